// sluice/detail/reduce/dtu_shared_tree.cuh: strategy dtu_shared_tree, DTU report §5.3 Listing 5.6
// ("shared"): each block copies its segment (one element per thread) to shared memory and reduces it
// with the sequential-addressing tree; the multi-pass wrapper (Listing 5.5) repeats over the partials.
//
// Fixed from the seed: no `return` before __syncthreads() (threads past the end of the last segment
// stay for every barrier and simply hold no value), any segment length (the tree guards t + s < count
// instead of assuming a power of two), and the wrapper's sizing bugs (segment_passes.cuh).
//
// Operator: commutative only (sequential addressing reorders).
// Work O(n); depth O(n/(grid·Threads)·log Threads + log n) over ⌈log_Threads n⌉ passes. Traffic:
// n·sizeof(T) read once from global memory, ≈ n/Threads·sizeof(T) partials written and read back; the
// tree's log2(Threads) steps stay in shared memory.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/detail/reduce/common.cuh>
#include <sluice/detail/reduce/segment_passes.cuh>
#include <sluice/detail/reduce/sequential_addressing.cuh>
#include <sluice/detail/reduce/tuning.hpp>

#include <cuda/std/cstddef>
#include <cuda/std/span>

namespace sluice::detail::reduce {

template <class T, int Threads>
struct dtu_shared_tree_block {
  static constexpr int threads = Threads;
  struct TempStorage {
    uninitialized_array<T, Threads> values;
  };

  template <class P, class Op>
  __device__ static T reduce(P segment, cuda::std::size_t length, Op op, TempStorage& temp) {
    T* const values = temp.values.data();
    const int count = static_cast<int>(length);
    if (static_cast<int>(threadIdx.x) < count) values[threadIdx.x] = segment[threadIdx.x];
    __syncthreads();
    sequential_addressing_steps(values, count, Threads / 2, 1, op, block_barrier{});
    return values[0];
  }
};

template <class T, class Op>
void dtu_shared_tree(context& ctx, cuda::std::span<const T> in, T* out, T init, Op op) {
  constexpr int threads = tuning::tree_threads;
  reduce_in_passes<dtu_shared_tree_block<T, threads>>(ctx, in.data(), in.size(), out, init, op,
                                                      one_element_per_thread<threads>{});
}

}  // namespace sluice::detail::reduce
