// sluice/detail/reduce/palik_sequential_addressing.cuh: strategy palik_sequential_addressing, Palik
// §3.6 (commutative reduction: element i paired with i + len/2) with the two levels of §3.5.
//
// A block owns a contiguous segment. First phase: thread t folds elements t, t + Threads, t + 2·Threads,
// … of the segment (coalesced: a warp reads 32 consecutive elements per step; the order within a
// thread is irrelevant because ⊕ commutes). Second phase: the sequential-addressing tree over the
// partials in shared memory, with a block barrier per step while more than one warp is active and,
// for the last 64 → 1 (the slide's switch with fall-through), steps inside warp 0 separated by
// __syncwarp: the slides relied on implicit warp lock-step, which Volta and later do not give.
// Segments are one wave of blocks; a second launch (one block) folds the partials.
//
// Operator: commutative only.
// Work O(n); depth O(n/(grid·Threads) + log Threads). Traffic: n·sizeof(T) read once (coalesced),
// grid·sizeof(T) partials.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/detail/reduce/common.cuh>
#include <sluice/detail/reduce/segment_passes.cuh>
#include <sluice/detail/reduce/sequential_addressing.cuh>
#include <sluice/detail/reduce/tuning.hpp>
#include <sluice/warp/shuffle.cuh>

#include <cuda/std/cstddef>
#include <cuda/std/span>

namespace sluice::detail::reduce {

template <class T, int Threads>
struct palik_sequential_addressing_block {
  static_assert(Threads >= 2 * warp::size, "the block tree hands the last 64 partials to one warp");
  static constexpr int threads = Threads;
  struct TempStorage {
    uninitialized_array<T, Threads> partials;
  };

  template <class P, class Op>
  __device__ static T reduce(P segment, cuda::std::size_t length, Op op, TempStorage& temp) {
    T* const w = temp.partials.data();
    const int t = static_cast<int>(threadIdx.x);
    const int count = length < Threads ? static_cast<int>(length) : Threads;
    if (t < count) {
      T acc = segment[t];
      for (cuda::std::size_t i = t + Threads; i < length; i += Threads) acc = op(acc, segment[i]);
      w[t] = acc;
    }
    __syncthreads();
    sequential_addressing_steps(w, count, Threads / 2, 2 * warp::size, op, block_barrier{});
    if (t < warp::size) sequential_addressing_steps(w, count, warp::size, 1, op, warp_barrier{});
    __syncthreads();  // as the slides' block level: the root is read after every warp has finished
    return w[0];
  }
};

template <class T, class Op>
void palik_sequential_addressing(context& ctx, cuda::std::span<const T> in, T* out, T init, Op op) {
  constexpr int threads = tuning::tree_threads;
  reduce_in_passes<palik_sequential_addressing_block<T, threads>>(ctx, in.data(), in.size(), out, init, op,
                                                                  one_wave_of_segments<threads>{});
}

}  // namespace sluice::detail::reduce
