// sluice/detail/reduce/sequential_addressing.cuh: the sequential-addressing tree step, shared by
// dtu_global_tree (DTU Listing 5.4, in global memory), dtu_shared_tree (Listing 5.6, in shared memory)
// and palik_sequential_addressing (Palik §3.6, shared memory with a warp-synchronous tail).
//
// At stride s, element t < s absorbs element t + s. The active threads are a contiguous prefix (no
// divergence inside a warp until s < 32, no shared-memory bank conflicts), but element 0 ends up as
// x0 ⊕ x_s ⊕ …: the order is lost, so the operator must be commutative.
//
// Any count of valid elements, not only powers of two (the DTU report's final pass lost elements):
// an element absorbs t + s only when t + s < count. With count ≤ 2·s before a step, the valid prefix
// after it is min(s, count), so a tree started at s ≥ count/2 ends with everything in element 0. No
// identity element is needed.
//
// Work: count − 1 applications of ⊕; depth log2(first stride) + 1 steps, each followed by a barrier.
#pragma once

#include <sluice/warp/shuffle.cuh>

namespace sluice::detail::reduce {

/// Barrier of a tree step that spans the block.
struct block_barrier {
  __device__ __forceinline__ void operator()() const { __syncthreads(); }
};

/// Barrier of a tree step inside one warp (Volta+: lanes are not implicitly in lock-step, and
/// __syncwarp also orders their shared-memory accesses).
struct warp_barrier {
  __device__ __forceinline__ void operator()() const { __syncwarp(warp::full_mask); }
};

/// Strides s = first, first/2, …, last (powers of two, first ≥ last ≥ 1) over the `count` valid
/// elements of `data` (count ≤ 2·first); each step is followed by `barrier()`, which every thread that
/// can be active must reach. Afterwards data[0] holds the fold when last = 1.
template <class T, class Op, class Barrier>
__device__ __forceinline__ void sequential_addressing_steps(T* data, int count, int first, int last, Op op,
                                                            Barrier barrier) {
  const int t = static_cast<int>(threadIdx.x);
  for (int s = first; s >= last; s /= 2) {
    if (t < s && t + s < count) data[t] = op(data[t], data[t + s]);
    barrier();
  }
}

}  // namespace sluice::detail::reduce
