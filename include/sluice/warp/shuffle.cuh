// sluice/warp/shuffle.cuh: warp shuffles of any trivially copyable type, by 32-bit words.
//
// The hardware shuffles 32-bit registers; a struct (an affine map, a 2x2 matrix, a (flag, value)
// pair) moves as ⌈sizeof(T)/4⌉ shuffles. Every call names its mask explicitly (Volta+ semantics:
// no implicit lock-step); all lanes in the mask must make the call.
#pragma once

#include <cuda/std/cstring>
#include <cuda/std/type_traits>

namespace sluice::warp {

inline constexpr unsigned full_mask = 0xffffffffu;
inline constexpr int size = 32;

namespace detail {
template <class T, class Shuffle>
__device__ __forceinline__ T shuffle_words(const T& value, Shuffle shuffle) {
  static_assert(cuda::std::is_trivially_copyable_v<T>, "warp shuffles move trivially copyable types");
  constexpr int words = (static_cast<int>(sizeof(T)) + 3) / 4;
  unsigned in[words] = {};
  cuda::std::memcpy(in, &value, sizeof(T));
#pragma unroll
  for (int w = 0; w < words; ++w) in[w] = shuffle(in[w]);
  T out;
  cuda::std::memcpy(&out, in, sizeof(T));
  return out;
}
}  // namespace detail

/// The value of lane (this lane + delta); lanes past the end keep their own.
template <class T>
__device__ __forceinline__ T shuffle_down(const T& value, int delta, unsigned mask = full_mask) {
  return detail::shuffle_words(value, [&](unsigned w) { return __shfl_down_sync(mask, w, delta); });
}

/// The value of lane (this lane − delta); lanes before the start keep their own.
template <class T>
__device__ __forceinline__ T shuffle_up(const T& value, int delta, unsigned mask = full_mask) {
  return detail::shuffle_words(value, [&](unsigned w) { return __shfl_up_sync(mask, w, delta); });
}

/// The value of lane (this lane ^ lane_mask): the butterfly of bitonic networks and xor reductions.
template <class T>
__device__ __forceinline__ T shuffle_xor(const T& value, int lane_mask, unsigned mask = full_mask) {
  return detail::shuffle_words(value, [&](unsigned w) { return __shfl_xor_sync(mask, w, lane_mask); });
}

/// The value of `source_lane`.
template <class T>
__device__ __forceinline__ T broadcast(const T& value, int source_lane, unsigned mask = full_mask) {
  return detail::shuffle_words(value, [&](unsigned w) { return __shfl_sync(mask, w, source_lane); });
}

[[nodiscard]] __device__ __forceinline__ int lane_id() { return static_cast<int>(threadIdx.x) % size; }

}  // namespace sluice::warp
