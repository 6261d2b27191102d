// sluice/detail/multireduce/global_atomic_sets.cuh: global-memory multireduce with nSets interleaved
// bucket sets and atomics (Eilers §4.4a, Alg. 4.9, Table 4.1), for any m.
//
//   sets:   lane l uses set l mod sets, so the lanes of a warp spread the atomics of equal labels over
//           `sets` addresses (one set per block was the seed's rejected layout: 32-way conflicts on
//           degenerate input). Set-major, slot (b, s) at s·stride + b, stride = m rounded up to 64
//           values: a bucket's sets lie in different 256-byte chunks, so their atomics go to different
//           L2 slices. The seed's interleaving (b·sets + s) put all of a bucket's sets in one 32-byte
//           sector, where the L2 serialises them (docs/perf-notes.md, global atomic sets on all-equal
//           labels).
//   walk:   pair_walk.cuh's, with its runs: a thread's run of equal labels is one atomic. Besides, when
//           the last runs of all 32 lanes of a warp share a bucket (all-equal labels, long sorted runs),
//           the warp folds them by shuffles and lane 0 adds the total with a single atomic, in set
//           (warp mod sets): on all-equal input one atomic per warp per 2·4·32 pairs.
//   fold:   with sets > 1, out[b] = out[b] ⊕ (the fold of b's sets), one thread per bucket (+ accumulate
//           semantics: out holds the identity or the caller's contents). One set needs no fold: the
//           atomics go straight into out.
//   sort:   with partial_sort_bits = b > 0 (Table 4.2), the walk reads the pairs stably sorted by the
//           top b bits of the label first (partial_sort.cuh), so that the atomics stay in a window of
//           2^(⌈log2 m⌉ − b) buckets at a time, in the L2 when sets·m is not.
// Sets (options.sets, or plan.hpp's choose_global_sets: up to 8 while sets·m values fit half the L2);
// sort bits (options.partial_sort_bits, or plan.hpp's choose_partial_sort_bits: 0 while those sets fit
// half the L2, whole radix digits beyond). Temporary memory: sets · stride values when sets > 1 (O(m)),
// plus the sort's O(n). Traffic: n labels and n values read once (streaming), the atomics, served by
// the L2 while sets·m (or, sorted, a window's sets) fits it; the fold reads sets·m values and reads and
// writes m; the sort's passes (partial_sort.cuh) when b > 0.
#pragma once

#include <sluice/core/atomics.cuh>
#include <sluice/core/context.hpp>
#include <sluice/core/device_buffer.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/core/operators.hpp>
#include <sluice/detail/multireduce/common.cuh>
#include <sluice/detail/multireduce/pair_walk.cuh>
#include <sluice/detail/multireduce/partial_sort.cuh>
#include <sluice/detail/multireduce/plan.hpp>
#include <sluice/warp/reduce.cuh>

#include <cuda/std/cstddef>
#include <cuda/std/cstdint>

namespace sluice::detail::multireduce {

/// Sends runs to the global sets; dropped runs (bucket ≥ m) are skipped.
template <class T, class Op>
struct global_sink {
  T* slots;
  cuda::std::uint32_t m;
  cuda::std::size_t stride;
  unsigned lane_set;
  unsigned warp_set;
  Op op;

  [[nodiscard]] __device__ __forceinline__ T* slot(cuda::std::uint32_t bucket, unsigned set) const {
    return slots + set * stride + bucket;
  }
  __device__ __forceinline__ void add(cuda::std::uint32_t bucket, const T& value) const {
    if (bucket < m) atomic_combine(slot(bucket, lane_set), value, op);
  }
  /// The whole warp calls it: one atomic when every lane's run has the same bucket.
  __device__ __forceinline__ void add_converged(cuda::std::uint32_t bucket, const T& value) const {
    T total = value;
    if (!merge_warp(bucket, total, op)) return add(bucket, value);
    if (warp::lane_id() == 0 && bucket < m) atomic_combine(slot(bucket, warp_set), total, op);
  }
};

template <class Source, class Op>
__global__ void __launch_bounds__(tuning::global_sets_threads)
    global_sets_kernel(Source source, typename Source::value_type* slots, cuda::std::uint32_t m, unsigned sets,
                       cuda::std::size_t stride, Op op, std::size_t* dropped) {
  using T = typename Source::value_type;
  __shared__ typename Source::shared staged;
  const auto reader = source.stage(staged, threadIdx.x, tuning::global_sets_threads);
  __syncthreads();
  const unsigned warp_index = (blockIdx.x * tuning::global_sets_threads + threadIdx.x) / warp::size;
  const global_sink<T, Op> sink{slots, m, stride, static_cast<unsigned>(warp::lane_id()) & (sets - 1),
                                warp_index & (sets - 1), op};
  unsigned long long invalid = 0;
  walk_pairs(reader, m, op, sink, invalid);
  add_dropped(invalid, dropped);
}

/// out[b] = out[b] ⊕ (slots[b] ⊕ slots[stride + b] ⊕ … ⊕ slots[(sets − 1)·stride + b]), skipping an
/// identity fold.
template <class T, class Op>
__global__ void fold_sets_kernel(const T* __restrict__ slots, unsigned sets, cuda::std::size_t stride,
                                 T* __restrict__ out, cuda::std::uint32_t m, Op op) {
  const T e = identity<Op, T>();
  for (cuda::std::size_t b = blockIdx.x * cuda::std::size_t{blockDim.x} + threadIdx.x; b < m;
       b += cuda::std::size_t{gridDim.x} * blockDim.x) {
    T total = e;
    for (unsigned s = 0; s < sets; ++s) total = op(total, slots[s * stride + b]);
    if (!same_bits(total, e)) out[b] = op(out[b], total);
  }
}

/// out[b] ⊕= the pairs of bucket b, b < m, through `sets` global bucket sets (a power of two ≤ 32).
template <class Source, class Op>
void global_sets(context& ctx, const Source& source, typename Source::value_type* out, std::uint32_t m, Op op,
                 std::size_t* dropped, unsigned sets) {
  using T = typename Source::value_type;
  constexpr int threads = tuning::global_sets_threads;
  auto kernel = global_sets_kernel<Source, Op>;
  const std::size_t steps = ceil_div(source.n, std::size_t{2} * Source::width * threads);
  const std::size_t grid = one_wave_grid(ctx, kernel, threads, steps);
  if (sets == 1) {
    kernel<<<static_cast<unsigned>(grid), threads, 0, ctx.stream()>>>(source, out, m, 1, 0, op, dropped);
    SLUICE_CHECK_LAUNCH();
    return;
  }
  constexpr std::size_t quantum = tuning::global_sets_stride_quantum;
  const std::size_t stride = ceil_div(m, quantum) * quantum;
  device_buffer<T> slots(ctx, sets * stride);
  fill_identity<Op>(ctx, slots.data(), slots.size());
  kernel<<<static_cast<unsigned>(grid), threads, 0, ctx.stream()>>>(source, slots.data(), m, sets, stride, op,
                                                                    dropped);
  SLUICE_CHECK_LAUNCH();
  constexpr int fold_threads = tuning::fold_sets_threads;
  auto fold = fold_sets_kernel<T, Op>;
  const std::size_t fold_grid = one_wave_grid(ctx, fold, fold_threads, ceil_div(m, fold_threads));
  fold<<<static_cast<unsigned>(fold_grid), fold_threads, 0, ctx.stream()>>>(slots.data(), sets, stride, out, m, op);
  SLUICE_CHECK_LAUNCH();
}

/// The strategy with the plan's `sets` and partial sort `bits` (plan.hpp's resolve).
template <class L, class T, class Op>
void run_global_atomic_sets(context& ctx, const L* labels, const T* values, std::size_t n, T* out, std::uint32_t m,
                            Op op, std::size_t* dropped, unsigned sets, int bits) {
  if constexpr (runs_atomically<T, Op>) {
    auto reduce = [&](const auto* pair_labels, const T* pair_values) {
      with_labelled_values(pair_labels, pair_values, n, m,
                           [&](const auto& source) { global_sets(ctx, source, out, m, op, dropped, sets); });
    };
    if (bits == 0) reduce(labels, values);
    else with_partially_sorted(ctx, labels, values, n, m, bits, reduce);
  } else {
    refuse_atomic("global_atomic_sets");
  }
}

}  // namespace sluice::detail::multireduce
