// sluice/detail/reduce/common.cuh: small pieces every reduce strategy shares.
//
// - store_init: the result of an empty input (init) written by a one-thread kernel, so that an empty
//   reduce is asynchronous and stream-ordered like every other.
// - pass_through: the transform of plain reduce (transform_reduce passes its own).
// - uninitialized_array: shared-memory storage for T values without running T's constructor
//   (__shared__ variables cannot have constructors; any trivially copyable T must work).
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>

#include <cuda/std/cstddef>

namespace sluice::detail::reduce {

template <class T>
__global__ void store_value_kernel(T* out, T value) {
  *out = value;
}

template <class T>
void store_init(context& ctx, T* out, T init) {
  store_value_kernel<<<1, 1, 0, ctx.stream()>>>(out, init);
  SLUICE_CHECK_LAUNCH();
}

struct pass_through {
  template <class T>
  __device__ __forceinline__ const T& operator()(const T& x) const {
    return x;
  }
};

template <class T, int N>
struct uninitialized_array {
  alignas(T) unsigned char bytes[N * sizeof(T)];
  __device__ __forceinline__ T* data() { return reinterpret_cast<T*>(bytes); }
};

}  // namespace sluice::detail::reduce
