// sluice/merge_sort.cuh: comparison sorting and merging with any strict weak order (Karsin ch. 7).
//
//   merge(a, b, out)                          out = the stable merge of sorted a and b (ties: a first)
//   merge_pairs(a_keys, a_values, b_keys, b_values, out_keys, out_values)
//   merge_sort(keys, out_keys)                out_keys = keys stably sorted by `less`
//   merge_sort_pairs(keys, values, out_keys, out_values)
//   segmented_sort(keys, offsets, out_keys)  every segment [offsets[s], offsets[s+1]) stably sorted
//   segmented_sort_pairs(keys, values, offsets, out_keys, out_values)
//
// Keys: any trivially copyable type of 1 to 32 bytes; values: trivially copyable, at most 32 bytes.
// `less` is a functor or a __device__ / extended lambda (callable on the device; the sort never calls it
// on the host) and must be a strict weak order for the result to be sorted. Stable: keys that `less`
// cannot order keep their input order (-0.0 and +0.0 under <, a struct's unordered fields).
//
// Strategies (merge_sort_options::algorithm, docs/merge_sort.md):
//   pairwise   ModernGPU-style merge sort (Karsin §7.1): NT·E-key tiles sorted in a block (odd-even
//              network in registers, merge rounds in shared memory), then ⌈log2(n / tile)⌉ rounds of
//              merge-path partitioned merges, each reading and writing every key (and value) once
//   radix      the radix sort (radix_sort.cuh): integral keys (not bool) under std::less<> / std::less<K>
//              (ascending) or std::greater<> / std::greater<K> (descending) only; else invalid_argument
//              naming options.algorithm. Floating-point keys never go to radix: it orders −0.0 before
//              +0.0 and places NaNs, unlike a stable sort under <.
//   automatic  radix where it applies (the same result, several times faster), else pairwise
// merge() always merges by merge path (one round of the pairwise strategy).
//
// segmented_sort: offsets as segmented.cuh has them (segments + 1 non-decreasing entries ≤ n, empty
// segments allowed; keys outside [offsets.front(), offsets.back()) are copied through unchanged).
// Segments are bucketed by size (detail/merge_sort/segmented.cuh): up to 36 four-byte keys sorted by
// four lanes of a warp, up to 224 by a warp, larger ones by the pairwise strategy's tiles and rounds
// (every segment's rounds together, however many segments). Empty offsets are invalid_argument; bad
// entries are checked (synchronising) only with options.validate_offsets, and otherwise give an
// unspecified result without any access outside the spans. Fewer than 2^32 − 1 segments.
//
// A comparator that is not a strict weak order (random answers, <=, NaN under <) gives an unspecified
// order but never hangs, crashes or writes out of bounds: the output is a permutation of the input
// (every merge-path split is clamped and repaired, core/merge_splits.hpp). NaN float keys under
// std::less: a NaN compares false both ways, so it acts as equal to every key, and the result
// (deterministic for a given input and n) is a permutation, with the non-NaN keys not necessarily sorted.
//
// out_keys may be keys itself (in place; out_values may likewise be values); any other overlap between
// an output and an input is invalid_argument naming the output; sizes must match (invalid_argument
// naming the short span). merge is out of place. Asynchronous on ctx.stream(); temporaries (n keys and
// values for n above one tile) come from the context's pool.
//
//   sluice::merge_sort(ctx, keys.span(), sorted.span());
//   sluice::merge_sort(ctx, keys.span(), keys.span(), {.algorithm = sluice::merge_sort_algorithm::pairwise},
//                      [] __device__(const item& x, const item& y) { return x.weight < y.weight; });
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/span.hpp>
#include <sluice/core/values.hpp>
#include <sluice/detail/merge_sort/dispatch.cuh>
#include <sluice/options/merge_sort.hpp>

#include <cuda/std/span>

#include <concepts>
#include <cstddef>
#include <functional>
#include <type_traits>

namespace sluice {

/// out = the stable merge of the sorted spans a and b under `less` (on ties a's keys first);
/// out.size() must be a.size() + b.size() and out must not overlap an input.
template <class AIn, std::size_t EA, class BIn, std::size_t EB, class K, std::size_t EO, class Less = std::less<>>
  requires std::same_as<std::remove_const_t<AIn>, K> && std::same_as<std::remove_const_t<BIn>, K>
void merge(context& ctx, cuda::std::span<AIn, EA> a, cuda::std::span<BIn, EB> b, cuda::std::span<K, EO> out,
           Less less = {}) {
  using none = detail::no_values;
  detail::merge_sort::merge<K, none>(ctx, "merge", detail::as_const_span(a), cuda::std::span<const none>{},
                                     detail::as_const_span(b), cuda::std::span<const none>{}, cuda::std::span<K>(out),
                                     cuda::std::span<none>{}, less);
}

/// The stable merge of two sorted key spans, each key's value moving with it.
template <class AKIn, std::size_t E1, class AVIn, std::size_t E2, class BKIn, std::size_t E3, class BVIn, std::size_t E4,
          class K, std::size_t E5, class V, std::size_t E6, class Less = std::less<>>
  requires std::same_as<std::remove_const_t<AKIn>, K> && std::same_as<std::remove_const_t<BKIn>, K> &&
           std::same_as<std::remove_const_t<AVIn>, V> && std::same_as<std::remove_const_t<BVIn>, V>
void merge_pairs(context& ctx, cuda::std::span<AKIn, E1> a_keys, cuda::std::span<AVIn, E2> a_values,
                 cuda::std::span<BKIn, E3> b_keys, cuda::std::span<BVIn, E4> b_values, cuda::std::span<K, E5> out_keys,
                 cuda::std::span<V, E6> out_values, Less less = {}) {
  detail::merge_sort::merge<K, V>(ctx, "merge_pairs", detail::as_const_span(a_keys), detail::as_const_span(a_values),
                                  detail::as_const_span(b_keys), detail::as_const_span(b_values),
                                  cuda::std::span<K>(out_keys), cuda::std::span<V>(out_values), less);
}

/// out_keys = keys stably sorted by `less`; out_keys may be keys (in place).
template <class KIn, std::size_t E1, class K, std::size_t E2, class Less = std::less<>>
  requires std::same_as<std::remove_const_t<KIn>, K>
void merge_sort(context& ctx, cuda::std::span<KIn, E1> keys, cuda::std::span<K, E2> out_keys,
                const merge_sort_options& options = {}, Less less = {}) {
  using none = detail::no_values;
  detail::merge_sort::sort<K, none>(ctx, "merge_sort", detail::as_const_span(keys), cuda::std::span<const none>{},
                                    cuda::std::span<K>(out_keys), cuda::std::span<none>{}, options, less);
}

/// Keys stably sorted by `less`, each value moving with its key; in place allowed for keys and values.
template <class KIn, std::size_t E1, class VIn, std::size_t E2, class K, std::size_t E3, class V, std::size_t E4,
          class Less = std::less<>>
  requires std::same_as<std::remove_const_t<KIn>, K> && std::same_as<std::remove_const_t<VIn>, V>
void merge_sort_pairs(context& ctx, cuda::std::span<KIn, E1> keys, cuda::std::span<VIn, E2> values,
                      cuda::std::span<K, E3> out_keys, cuda::std::span<V, E4> out_values,
                      const merge_sort_options& options = {}, Less less = {}) {
  detail::merge_sort::sort<K, V>(ctx, "merge_sort_pairs", detail::as_const_span(keys), detail::as_const_span(values),
                                 cuda::std::span<K>(out_keys), cuda::std::span<V>(out_values), options, less);
}

/// out_keys = keys with every segment [offsets[s], offsets[s+1]) stably sorted by `less`, keys outside
/// [offsets.front(), offsets.back()) copied through; out_keys may be keys (in place).
///
///   sluice::segmented_sort(ctx, keys.span(), offsets.span(), sorted.span());
template <class KIn, std::size_t E1, class K, std::size_t E2, class Less = std::less<>>
  requires std::same_as<std::remove_const_t<KIn>, K>
void segmented_sort(context& ctx, cuda::std::span<KIn, E1> keys, cuda::std::span<const std::size_t> offsets,
                    cuda::std::span<K, E2> out_keys, const segmented_sort_options& options = {}, Less less = {}) {
  using none = detail::no_values;
  detail::merge_sort::sort_segments<K, none>(ctx, "segmented_sort", detail::as_const_span(keys),
                                             cuda::std::span<const none>{}, offsets, cuda::std::span<K>(out_keys),
                                             cuda::std::span<none>{}, options, less);
}

/// segmented_sort moving each value with its key; in place allowed for keys and values.
template <class KIn, std::size_t E1, class VIn, std::size_t E2, class K, std::size_t E3, class V, std::size_t E4,
          class Less = std::less<>>
  requires std::same_as<std::remove_const_t<KIn>, K> && std::same_as<std::remove_const_t<VIn>, V>
void segmented_sort_pairs(context& ctx, cuda::std::span<KIn, E1> keys, cuda::std::span<VIn, E2> values,
                          cuda::std::span<const std::size_t> offsets, cuda::std::span<K, E3> out_keys,
                          cuda::std::span<V, E4> out_values, const segmented_sort_options& options = {},
                          Less less = {}) {
  detail::merge_sort::sort_segments<K, V>(ctx, "segmented_sort_pairs", detail::as_const_span(keys),
                                          detail::as_const_span(values), offsets, cuda::std::span<K>(out_keys),
                                          cuda::std::span<V>(out_values), options, less);
}

}  // namespace sluice
