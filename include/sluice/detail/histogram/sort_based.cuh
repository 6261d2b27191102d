// sluice/detail/histogram/sort_based.cuh: the histogram by a global sort of the bin ids (Eilers §4.5a,
// "no partitioning", with ones as the values; DTU report ch. 6 sorted its coarse bins the same way).
//
//   ids      every sample's bin (binned_samples.cuh's write_bin_ids, shared with coarse_bins.cuh: a
//            sample outside the bins gets m, so dropped samples sort last and form a run no one counts);
//   sort     sluice's radix sort of the ids over ⌈log2(m + 1)⌉ bits (bucket_sort.cuh's sort_buckets), so
//            the passes follow m as the seed's "minimal bits" SRTS did;
//   counts   each bin's run length from its two ends (bucket_sort.cuh's add_run_lengths, the piece
//            multireduce's sorted finish uses for its offsets), added straight into bins modulo their
//            width: no temporary counts.
// Weighted: (id, weight) pairs stably sorted, then multireduce's sorted finish (fold_sorted_buckets:
// offsets, merge-path segmented reduce in a fixed order, fold into bins).
// Deterministic for any m (integer counts are exact in any order; weighted float sums have an order fixed
// by n and m, docs/multireduce.md "Determinism"). Memory O(n + m): 2n ids (+ 2n weights) and the sort's
// temporary storage. Traffic: samples read once, ids written once, the sort's passes, the sorted ids
// read once more.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/core/operators.hpp>
#include <sluice/core/scratch.hpp>
#include <sluice/detail/histogram/binned_samples.cuh>
#include <sluice/detail/multireduce/bucket_sort.cuh>
#include <sluice/detail/multireduce/global_sort_reduce_by_key.cuh>

#include <cuda/std/cstddef>
#include <cuda/std/cstdint>
#include <cuda/std/type_traits>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace sluice::detail::histogram {

/// The unsigned word a counter is added as (the counts are modulo its width either way).
template <class Counter>
using counter_word = cuda::std::conditional_t<sizeof(Counter) == 4, unsigned, unsigned long long>;

/// bins[b] += the samples of bin b (or their weights: the source's), b < m, through a sort of the bin ids.
template <class Source, class Counter>
void sort_based(context& ctx, const Source& source, Counter* bins, std::uint32_t m) {
  const std::size_t n = source.n;
  scratch<std::uint32_t> ids(ctx, n);
  scratch<std::uint32_t> sorted_ids(ctx, n);
  write_bin_ids(ctx, source, m, ids.get());
  if constexpr (std::is_same_v<std::remove_cvref_t<decltype(source.weights)>, unit_weights<Counter>>) {
    multireduce::sort_buckets(ctx, ids.get(), n, m, sorted_ids.get());
    multireduce::add_run_lengths(ctx, sorted_ids.get(), n, m, reinterpret_cast<counter_word<Counter>*>(bins));
  } else {
    scratch<Counter> sorted_weights(ctx, n);
    multireduce::sort_pairs_by_bucket(ctx, ids.get(), source.weights.weights, n, m, sorted_ids.get(),
                                      sorted_weights.get());
    multireduce::fold_sorted_buckets(ctx, sorted_ids.get(), sorted_weights.get(), n, bins, m, sluice::plus{});
  }
}

}  // namespace sluice::detail::histogram
