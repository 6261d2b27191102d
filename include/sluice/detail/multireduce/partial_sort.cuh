// sluice/detail/multireduce/partial_sort.cuh: the partial radix sort in front of global_atomic_sets
// (Eilers §4.4a "plus partial radix sort", Table 4.2; the CPU's partial sort of §2.3 carried to the GPU).
//
// Once sets · m leaves the L2, every atomic of the global sets misses it (Table 4.1's cliff). Sorting
// the pairs stably by the top b of the label's ⌈log2 m⌉ bits groups them into 2^b windows of
// 2^(⌈log2 m⌉ − b) consecutive buckets, in window order; the global sets kernel then walks the sorted
// pairs with its grid stride (pair_walk.cuh), so all its resident warps move through the windows
// together and at any time touch about one window's sets, which fit the L2 (plan.hpp,
// choose_partial_sort_bits, picks b so). Within a window the order stays the input's: the sort is only
// for locality, and any order is correct for the commutative operators this strategy runs.
//
// Steps: bucket ids (bucket_sort.cuh's write_bucket_ids: a dropped label becomes m), then one stable
// radix_sort_pairs of (id, value) by bits [⌈log2 m⌉ − b, ⌈log2 m⌉) of the id, ⌈b / 8⌉ onesweep passes
// (detail/partial_sort/sort.cuh, which scatter's partial_sort strategy shares).
// The ids pass counts nothing: the sorted ids carry the dropped ones (id m, in whichever window its
// bits name: harmless, no atomic is spent on it), and the global sets kernel counts them as it does
// unsorted labels, so each is counted exactly once.
// Memory: n ids, n sorted ids and n sorted values, plus the sort's temporary (n ids and n values when
// b > 8): O(n), all from the context's pool. Traffic: labels read once, ids written once, the sort's
// upfront read and per pass (id, value) read and written once; the global sets kernel then reads the
// sorted pairs instead of the input.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/core/scratch.hpp>
#include <sluice/detail/multireduce/bucket_sort.cuh>
#include <sluice/detail/multireduce/plan.hpp>
#include <sluice/detail/partial_sort/sort.cuh>

#include <cstddef>
#include <cstdint>

namespace sluice::detail::multireduce {

/// Calls run(sorted_buckets, sorted_values) with the n pairs (bucket_of(labels[i], m), values[i]) stably
/// sorted by the top `bits` (1 ≤ bits ≤ label_bits(m)) of the label's label_bits(m) bits (header
/// comment); the sorted arrays live until run returns. Nothing is added to a dropped counter.
template <class L, class T, class Run>
void with_partially_sorted(context& ctx, const L* labels, const T* values, std::size_t n, std::uint32_t m, int bits,
                           Run run) {
  const int end_bit = label_bits(m);
  detail::with_partially_sorted_pairs<std::uint32_t>(
      ctx, values, n, end_bit - bits, end_bit,
      [&](auto sort) {
        scratch<std::uint32_t> buckets(ctx, n);  // back to the pool (stream-ordered) once the sort is queued
        write_bucket_ids(ctx, labels, n, m, nullptr, buckets.get(), static_cast<std::uint32_t*>(nullptr));
        sort(static_cast<const std::uint32_t*>(buckets.get()));
      },
      run);
}

}  // namespace sluice::detail::multireduce
