// sluice/quicksort.cuh: Palik's segmented quicksort (§6.2), a teaching strategy built from segmented
// scans. The production sort is radix sort (a later issue); use this one to study the seed, not for speed.
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
#include <sluice/detail/quicksort/palik_rounds.cuh>

#include <cuda/std/span>

#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <type_traits>

namespace sluice {

enum class quicksort_pivot {
  first,            ///< the segment's first key (Palik §6.2)
  median_of_three,  ///< the median of the segment's first, middle (start + (length − 1) / 2) and last keys
};

struct quicksort_options {
  quicksort_pivot pivot = quicksort_pivot::median_of_three;
  /// Rounds after which unsorted segments are an error; 0: 64 + 8·⌈log2(n + 1)⌉.
  std::size_t max_rounds = 0;
};

namespace detail::quicksort {

/// Random keys need about 3·log2 n rounds under the first-key rule (the height of a random binary
/// search tree, ≈ 4.31 ln n) and fewer under median-of-three: the automatic limit leaves a wide margin
/// and still stops a sorted input under the first-key rule long before its n − 1 rounds.
[[nodiscard]] inline std::size_t round_limit(const quicksort_options& options, std::size_t n) {
  if (options.max_rounds != 0) return options.max_rounds;
  return 64 + 8 * static_cast<std::size_t>(std::bit_width(n));
}

template <class K, class Less>
std::size_t sort(context& ctx, const char* function, cuda::std::span<const K> keys, const std::uint8_t* heads,
          cuda::std::span<K> out, const quicksort_options& options, Less less) {
  static_assert(std::is_trivially_copyable_v<K>, "segmented_quicksort moves trivially copyable keys");
  require_device_memory(ctx, keys, function, "keys");
  require_device_memory(ctx, out, function, "out");
  if (out.size() != keys.size())
    throw invalid_argument(function, "out", "has " + std::to_string(out.size()) + " elements but keys has " +
                                                std::to_string(keys.size()));
  const K* in = keys.data();
  if (in != out.data() && detail::overlaps(keys, out))
    throw invalid_argument(function, "out", "partially overlaps keys (in place means out.data() == keys.data())");
  const pivot_rule_id rule =
      options.pivot == quicksort_pivot::first ? pivot_rule_id::first : pivot_rule_id::median_of_three;
  const std::size_t n = keys.size();
  auto device = ctx.activate();
  if (n < 2) {
    if (n == 1 && in != out.data())
      SLUICE_CUDA_CHECK(cudaMemcpyAsync(out.data(), in, sizeof(K), cudaMemcpyDeviceToDevice, ctx.stream()));
    return 0;
  }
  const std::size_t limit = round_limit(options, n);
  if (n < (std::size_t{1} << 32))
    return sort_by_rounds<std::uint32_t>(ctx, function, in, heads, out.data(), n, rule, limit, less);
  return sort_by_rounds<std::uint64_t>(ctx, function, in, heads, out.data(), n, rule, limit, less);
}

}  // namespace detail::quicksort

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
