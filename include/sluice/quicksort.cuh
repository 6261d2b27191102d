// sluice/quicksort.cuh: Palik's segmented quicksort (§6.2), a teaching strategy built from segmented
// scans. The production sort is radix_sort (radix_sort.cuh); use this one to study the seed, not for speed.
//
//   segmented_quicksort(keys, out)         out = keys sorted by `less`, stable
//   segmented_quicksort(keys, heads, out)  every segment sorted on its own (heads[i] != 0 starts a
//                                          segment; element 0 always does); segments stay in place
//
// Every round splits all unsorted segments at once: each picks a pivot (quicksort_options::pivot), its
// keys are classified <, ≡, > against it, a stable 3-way split within the segments (segmented scans)
// moves them, and the three parts become segments. A ≡ part is sorted the moment it is formed; the loop
// ends when no part of two or more elements is left unsorted (one stream synchronisation per round);
// the call returns the number of rounds.
//
// Stable: keys that `less` cannot order keep their input order, so -0.0 and +0.0 (equal under <) stay
// as they came. `less` must be a strict weak order: NaN under < is not one (the sort ends, but the
// result is not ordered). out may be keys itself (in place); partial overlap is not allowed.
//
// Rounds: the depth of the quicksort recursion. pivot = first (Palik's rule) costs n − 1 rounds on
// sorted or reverse-sorted input; median_of_three (the default) halves those, but inputs built against
// it still cost O(n) rounds. All-equal input takes one round. After options.max_rounds rounds
// (0: automatic, 64 + 8·⌈log2(n + 1)⌉) with segments still unsorted, out holds a partly sorted
// permutation of the keys and sluice::invalid_argument names 'options.max_rounds'; max_rounds ≥ n never
// throws. See docs/quicksort.md.
//
//   sluice::segmented_quicksort(ctx, keys.span(), sorted.span());
//   sluice::segmented_quicksort(ctx, keys.span(), keys.span(), {.pivot = sluice::quicksort_pivot::first});
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/memory.hpp>
#include <sluice/core/span.hpp>
#include <sluice/detail/quicksort/dispatch.cuh>
#include <sluice/options/quicksort.hpp>

#include <cuda/std/span>

#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <type_traits>

namespace sluice {

/// out = keys stably sorted by `less`; out may be keys (in place). Synchronises once per round; returns
/// the number of rounds (0 for fewer than two keys).
template <class KIn, std::size_t E1, class K, std::size_t E2, class Less = std::less<>>
  requires std::same_as<std::remove_const_t<KIn>, K>
std::size_t segmented_quicksort(context& ctx, cuda::std::span<KIn, E1> keys, cuda::std::span<K, E2> out,
                                const quicksort_options& options = {}, Less less = {}) {
  return detail::quicksort::sort(ctx, "segmented_quicksort", detail::as_const_span(keys), nullptr, cuda::std::span<K>(out),
                          options, less);
}

/// Each segment of keys (heads[i] != 0 starts one; element 0 always does) stably sorted by `less` into
/// the same positions of out; out may be keys (in place). Synchronises once per round; returns the
/// number of rounds.
template <class KIn, std::size_t E1, class K, std::size_t E2, class Less = std::less<>>
  requires std::same_as<std::remove_const_t<KIn>, K>
std::size_t segmented_quicksort(context& ctx, cuda::std::span<KIn, E1> keys, cuda::std::span<const std::uint8_t> heads,
                         cuda::std::span<K, E2> out, const quicksort_options& options = {}, Less less = {}) {
  const char* function = "segmented_quicksort";
  require_device_memory(ctx, heads, function, "heads");
  if (heads.size() != keys.size()) throw invalid_argument(function, "heads", "must have one flag per key");
  return detail::quicksort::sort(ctx, function, detail::as_const_span(keys), heads.data(), cuda::std::span<K>(out),
                                 options, less);
}

}  // namespace sluice
