// sluice/detail/multireduce/global_sort_reduce_by_key.cuh: multireduce by a global stable sort by
// bucket, then reduce_by_key (Eilers §4.5a, "no partitioning": SRTS over log2 m bits + moderngpu
// reduce-by-key). Order-preserving: the sort is stable and reduce_by_key folds each run in index order,
// so non-commutative operators get the oracle's bits. Any m < 2^32.
//
// Steps: bucket ids and the sort of (bucket, value) (bucket_sort.cuh); reduce_by_key over the sorted
// ids (segmented.cuh: one single pass, runs of equal ids); a fold of each run's total onto out[bucket]
// (out holds the identity or the caller's contents), skipping the run of dropped ids (bucket m).
// Memory: 2n ids and 2n values for the sort, min(n, m + 2) run totals: O(n + m), never n·m.
// Traffic: labels read once, the sort's passes over (id, value), the sorted pairs read once more, runs
// written and read once.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/detail/multireduce/bucket_sort.cuh>
#include <sluice/scan.cuh>
#include <sluice/segmented.cuh>

#include <cuda/std/cstddef>
#include <cuda/std/cstdint>
#include <cuda/std/span>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace sluice::detail::multireduce {

/// out[buckets[r]] = out[buckets[r]] ⊕ totals[r] for every run r < *runs of a bucket below m (ids m and
/// above are dropped elements or padding). Each bucket is one run, so no two threads touch the same bucket.
template <class T, class Op>
__global__ void fold_runs_kernel(const std::uint32_t* __restrict__ buckets, const T* __restrict__ totals,
                                 const std::size_t* runs, std::size_t capacity, std::uint32_t m, T* out, Op op) {
  const cuda::std::size_t count = cuda::std::min<cuda::std::size_t>(*runs, capacity);
  for (cuda::std::size_t r = blockIdx.x * cuda::std::size_t{blockDim.x} + threadIdx.x; r < count;
       r += cuda::std::size_t{gridDim.x} * blockDim.x) {
    const std::uint32_t k = buckets[r];
    if (k < m) out[k] = op(out[k], totals[r]);
  }
}

/// Folds the totals of runs of equal, sorted bucket ids onto out; ids are at most m + 1 (the block
/// strategy's padding), and runs of ids ≥ m are skipped.
template <class T, class Op>
void fold_sorted_runs(context& ctx, const std::uint32_t* sorted_buckets, const T* sorted_values, std::size_t n,
                      T* out, std::uint32_t m, Op op) {
  const std::size_t most_runs = std::min<std::size_t>(n, std::size_t{m} + 2);
  scan::scratch<std::uint32_t> run_buckets(ctx, most_runs);
  scan::scratch<T> run_totals(ctx, most_runs);
  scan::scratch<std::size_t> runs(ctx, 1);
  reduce_by_key(ctx, cuda::std::span<const std::uint32_t>(sorted_buckets, n), cuda::std::span<const T>(sorted_values, n),
                cuda::std::span<std::uint32_t>(run_buckets.get(), most_runs),
                cuda::std::span<T>(run_totals.get(), most_runs), runs.get(), op);
  fold_runs_kernel<<<scan::streaming_grid(ctx, fold_runs_kernel<T, Op>, most_runs), 256, 0, ctx.stream()>>>(
      run_buckets.get(), run_totals.get(), runs.get(), most_runs, m, out, op);
  SLUICE_CHECK_LAUNCH();
}

template <class L, class T, class Op>
void run_global_sort_reduce_by_key(context& ctx, const L* labels, const T* values, std::size_t n, T* out,
                                   std::uint32_t m, Op op, std::size_t* dropped) {
  scan::scratch<std::uint32_t> sorted_buckets(ctx, n);
  scan::scratch<T> sorted_values(ctx, n);
  sort_by_bucket(ctx, labels, values, n, m, dropped, sorted_buckets.get(), sorted_values.get());
  fold_sorted_runs(ctx, sorted_buckets.get(), sorted_values.get(), n, out, m, op);
}

}  // namespace sluice::detail::multireduce
