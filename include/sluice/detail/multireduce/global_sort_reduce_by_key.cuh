// sluice/detail/multireduce/global_sort_reduce_by_key.cuh: multireduce by a global stable sort by
// bucket, then a reduction of each bucket's run (Eilers §4.5a, "no partitioning": SRTS over log2 m bits
// + moderngpu reduce-by-key). Order-preserving: the sort is stable and each run is folded in index
// order, so non-commutative operators get the oracle's bits. Any m.
//
// Steps: bucket ids and the sort of (bucket, value) (bucket_sort.cuh); then the finish shared with
// block_sort_segmented's records (fold_sorted_buckets):
//   offsets  every bucket's run is contiguous, so bucket k is [offsets[k], offsets[k+1]): the run ends
//            add their lengths to counts (bucket_sort.cuh's add_run_lengths, shared with the histogram's
//            sort_based strategy), and an exclusive scan of the integers gives the m + 1 offsets (exact
//            in any order);
//   reduce   segmented_reduce by those offsets with the merge-path strategy (segmented.cuh), init = the
//            identity, into m totals; ids ≥ m (dropped, padding) sort last and belong to no segment;
//   fold     out[k] = out[k] ⊕ total[k] for every non-empty bucket (out holds the identity or the
//            caller's contents), one thread per bucket.
// Deterministic (options.deterministic): the sort is stable, the offsets are integers, and the merge
// path combines in an order fixed by n and m (its carries by a fixed-order scan); reduce_by_key's
// look-back scan grouped a run spanning many tiles by timing, so float sums varied between runs.
// Memory: 2n ids and 2n values for the sort, m + 1 offsets and m totals, O((n + m) / tile) for the merge
// path: O(n + m), never n·m. Traffic: labels read once, the sort's passes over (id, value), the sorted
// ids read once more (boundaries) and the sorted values once (reduce), O(m) for offsets and totals.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/core/operators.hpp>
#include <sluice/detail/multireduce/bucket_sort.cuh>
#include <sluice/detail/scan/dispatch.cuh>
#include <sluice/detail/segmented/dispatch.cuh>

#include <cuda/std/cstddef>
#include <cuda/std/cstdint>
#include <cuda/std/span>

#include <cstddef>
#include <cstdint>

namespace sluice::detail::multireduce {

/// out[k] = out[k] ⊕ totals[k] for every non-empty bucket k < m; an empty one keeps out[k].
template <class T, class Op>
__global__ void fold_bucket_totals_kernel(const std::size_t* __restrict__ offsets, const T* __restrict__ totals,
                                          std::uint32_t m, T* out, Op op) {
  for (cuda::std::size_t k = blockIdx.x * cuda::std::size_t{blockDim.x} + threadIdx.x; k < m;
       k += cuda::std::size_t{gridDim.x} * blockDim.x)
    if (offsets[k + 1] > offsets[k]) out[k] = op(out[k], totals[k]);
}

/// Folds each bucket's values, in their sorted (stable) order, onto out[bucket]: n (id, value) pairs
/// sorted by id, ids at most m + 1 (the block strategy's padding); ids ≥ m are skipped. The order of
/// every combination is fixed by n and m (header comment).
template <class T, class Op>
void fold_sorted_buckets(context& ctx, const std::uint32_t* sorted_buckets, const T* sorted_values, std::size_t n,
                         T* out, std::uint32_t m, Op op) {
  static_assert(sizeof(unsigned long long) == sizeof(std::size_t));
  const std::size_t bounds = std::size_t{m} + 1;
  scratch<std::size_t> offsets(ctx, bounds);
  scratch<T> totals(ctx, m);
  auto* counts = reinterpret_cast<unsigned long long*>(offsets.get());
  SLUICE_CUDA_CHECK(cudaMemsetAsync(counts, 0, bounds * sizeof(std::size_t), ctx.stream()));
  add_run_lengths(ctx, sorted_buckets, n, m, counts);
  // counts[m] is never written (0): the exclusive scan's last entry is offsets[m], the sum of the others.
  scan::run_single_pass_scan<scan::scan_kind::exclusive, true>(ctx, static_cast<const std::size_t*>(offsets.get()),
                                                               offsets.get(), bounds, std::size_t{0}, plus{});
  segmented::run_merge_path_reduce(ctx, sorted_values, n, cuda::std::span<const std::size_t>(offsets.get(), bounds),
                                   totals.get(), identity<Op, T>(), op);
  fold_bucket_totals_kernel<<<streaming_grid(ctx, fold_bucket_totals_kernel<T, Op>, m), 256, 0, ctx.stream()>>>(
      offsets.get(), totals.get(), m, out, op);
  SLUICE_CHECK_LAUNCH();
}

template <class L, class T, class Op>
void run_global_sort_reduce_by_key(context& ctx, const L* labels, const T* values, std::size_t n, T* out,
                                   std::uint32_t m, Op op, std::size_t* dropped) {
  scratch<std::uint32_t> sorted_buckets(ctx, n);
  scratch<T> sorted_values(ctx, n);
  sort_by_bucket(ctx, labels, values, n, m, dropped, sorted_buckets.get(), sorted_values.get());
  fold_sorted_buckets(ctx, sorted_buckets.get(), sorted_values.get(), n, out, m, op);
}

}  // namespace sluice::detail::multireduce
