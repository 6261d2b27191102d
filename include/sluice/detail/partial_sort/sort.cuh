// sluice/detail/partial_sort/sort.cuh: the partial radix sort for locality that multireduce's global sets
// (Eilers §4.4a "plus partial radix sort", Table 4.2; detail/multireduce/partial_sort.cuh) and scatter's
// partial_sort strategy (§4.5.1, the sorted scatter; sluice/scatter.cuh) run in front of
// their kernels: one STABLE radix_sort_pairs of (key, value) by a bit range of the keys (the top bits,
// detail/partial_sort/plan.hpp), into scratch from the context's pool, then a callback on the sorted
// arrays.
//
// The keys are handed over by a producer, keys(sort), which calls sort(unsorted_keys) once with n
// unsigned keys that stay valid until sort returns: a caller whose keys must first be computed (bucket
// ids) writes them into its own scratch and lets it go back to the pool once the sort is queued; a
// caller whose input already is the key (scatter's index words) passes it straight through.
// Stability keeps pairs with equal keys in input order, which scatter's last_writer relies on.
// Memory: n sorted keys and n sorted values, live until run returns, plus the sort's temporary (n keys
// and n values) when the range spans more than one 8-bit onesweep pass. Traffic: the sort's upfront
// read of the keys, then per pass the pairs read and written once.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/core/scratch.hpp>
#include <sluice/detail/radix_sort/dispatch.cuh>


#include <cstddef>

namespace sluice::detail {

/// Calls run(sorted_keys, sorted_values) with the n pairs (key, values[i]) stably sorted by bits
/// [begin_bit, end_bit) of the K keys that keys(sort) hands to sort (header comment).
template <class K, class T, class Keys, class Run>
void with_partially_sorted_pairs(context& ctx, const T* values, std::size_t n, int begin_bit, int end_bit, Keys keys,
                                 Run run) {
  scratch<K> sorted_keys(ctx, n);
  scratch<T> sorted_values(ctx, n);
  keys([&](const K* unsorted_keys) {
    radix_sort::sort_arrays(ctx, unsorted_keys, values, sorted_keys.get(), sorted_values.get(), n,
                            {.begin_bit = begin_bit, .end_bit = end_bit});
  });
  run(static_cast<const K*>(sorted_keys.get()), static_cast<const T*>(sorted_values.get()));
}

}  // namespace sluice::detail
