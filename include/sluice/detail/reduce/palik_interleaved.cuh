// sluice/detail/reduce/palik_interleaved.cuh: strategy palik_interleaved, Palik §3.3–3.4 (interleaved
// addressing, order-preserving) with the two levels of §3.5.
//
// A block owns a contiguous segment. First phase (§3.4): thread t folds its contiguous chunk
// [t·step, (t+1)·step), step = ⌈length/Threads⌉, in index order. Second phase (§3.3): in round r
// (d = 2^r) thread t combines positions d·t and d·t + d/2 of the partials in shared memory, so
// position d·t always holds the fold of chunks [d·t, d·t + d) in order and position 0 ends with the
// segment's fold. Segments are one wave of blocks; a second launch (one block) folds the partials.
//
// Fixed from the slides: the first element of each chunk is no longer counted twice (the loop ran from
// c = 0 after starting at work[tid·step]), `length`/`len`, threads whose chunk starts past the end
// hold no value (and are not read), the tree accepts any count of partials (guard d·t + d/2 < count),
// and shared memory is `extern`-free fixed-size storage.
//
// Operator: any associative one (non-commutative included).
// Work O(n); depth O(n/(grid·Threads) + log Threads). Traffic: n·sizeof(T) read once, grid·sizeof(T)
// partials. Contiguous chunks make a warp's loads 32 separate streams `step` elements apart
// (uncoalesced, served through L1): the cost of keeping order this simply.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/detail/reduce/common.cuh>
#include <sluice/detail/reduce/segment_passes.cuh>
#include <sluice/detail/reduce/tuning.hpp>

#include <cuda/std/cstddef>
#include <cuda/std/span>

namespace sluice::detail::reduce {

/// in[0] ⊕ … ⊕ in[length − 1], left to right (length ≥ 1).
template <class P, class Op>
__device__ __forceinline__ auto fold_in_order(P in, cuda::std::size_t length, Op op) {
  auto acc = in[0];
  for (cuda::std::size_t c = 1; c < length; ++c) acc = op(acc, in[c]);
  return acc;
}

template <class T, int Threads>
struct palik_interleaved_block {
  static constexpr int threads = Threads;
  struct TempStorage {
    uninitialized_array<T, Threads> partials;
  };

  template <class P, class Op>
  __device__ static T reduce(P segment, cuda::std::size_t length, Op op, TempStorage& temp) {
    T* const w = temp.partials.data();
    const int t = static_cast<int>(threadIdx.x);
    const cuda::std::size_t step = (length + Threads - 1) / Threads;
    const int count = static_cast<int>((length + step - 1) / step);  // threads with a chunk: a prefix
    if (t < count) {
      const cuda::std::size_t begin = t * step;
      w[t] = fold_in_order(segment + begin, length - begin < step ? length - begin : step, op);
    }
    __syncthreads();
    for (int d = 2, len = Threads / 2; len > 0; len /= 2, d *= 2) {
      if (t < len && d * t + d / 2 < count) w[d * t] = op(w[d * t], w[d * t + d / 2]);
      __syncthreads();
    }
    return w[0];
  }
};

template <class T, class Op>
void palik_interleaved(context& ctx, cuda::std::span<const T> in, T* out, T init, Op op) {
  constexpr int threads = tuning::tree_threads;
  reduce_in_passes<palik_interleaved_block<T, threads>>(ctx, in.data(), in.size(), out, init, op,
                                                        one_wave_of_segments<threads>{});
}

}  // namespace sluice::detail::reduce
