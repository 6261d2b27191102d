// sluice/radix_sort.cuh: LSD radix sort of keys or (key, value) pairs by a bit range: onesweep (Adinets
// & Merrill 2022, CUB's design; not from the seeds) by default, and the seeds' strategies for study
// (Ashkiani §3.7.1, "Building a radix sort" on multisplit; the DTU course §5.7 and Palik §5 1-bit split).
//
//   radix_sort(ctx, keys, out_keys, options)
//   radix_sort_pairs(ctx, keys, values, out_keys, out_values, options)
//
// Keys: 8- to 64-bit integers, float, double. The sort is STABLE by bits [begin_bit, end_bit) of each
// key's order-preserving word (core/radix_key.hpp): unsigned integers as they are, signed
// integers with the sign bit flipped, floats with every bit flipped when negative and the sign bit set
// otherwise. Over all bits this is the numeric order, extended to a total order that places
//   −NaN (largest payload first) < −inf < … < −0.0 < +0.0 < … < +inf < +NaN (smallest payload first):
// NaNs by their sign bit, negative ones before −inf and positive ones after +inf, and −0.0 strictly
// before +0.0. Keys with equal fields keep their input order; descending sorts stably by the descending
// field (equal fields still in input order, as CUB's SortKeysDescending), not the reverse of the
// ascending result. Keys and values are moved, never transformed. Exactly reference::radix_sort_keys
// and reference::radix_sort_pairs, which the tests compare bit for bit.
//
//   sluice::radix_sort(ctx, keys.span(), sorted.span());
//   sluice::radix_sort(ctx, keys.span(), sorted.span(), {.begin_bit = 8, .end_bit = 24, .descending = true});
//   sluice::radix_sort_pairs(ctx, keys.span(), values.span(), sorted_keys.span(), sorted_values.span());
//
// Strategies (radix_sort_options::algorithm):
//   automatic    onesweep; multisplit for values over 16 bytes, or when the options ask for what only
//                multisplit does (bits_per_pass other than 0 and 8, a pass_algorithm other than automatic).
//   onesweep     ⌈bits / 8⌉ passes, each one kernel: tiles rank their keys by digit and find their
//                digit runs' places by a decoupled look-back per digit, after one upfront read that
//                counts every pass's digits (detail/onesweep/). Traffic per pass: keys
//                (and values) read once and written once; plus one read of the keys per sort. Values of
//                at most 16 bytes.
//   multisplit   ⌈bits / r⌉ passes, each a stable multisplit into 2^r buckets by the pass's digit
//                (Ashkiani's bit-field buckets f_k(u) = (u >> kr) & (2^r − 1)); r from bits_per_pass,
//                else detail/onesweep/pass_plan.hpp (thresholds: detail/radix_sort/tuning.hpp); each
//                pass's strategy from pass_algorithm, else multisplit's automatic choice. Traffic per
//                pass with BMS: keys read twice and written once, values read and written once (the
//                seed's 12 bytes per u32 key, 20 per pair).
//   split        one stable 2-way split per bit by a scan (detail/radix_sort/split.cuh): `bits` passes
//                of 28 bytes per u32 key. For study, not for speed.
// Passes ping-pong between out and one temporary of n keys (+ n values) from the context's pool, so
// that the last pass writes out; one pass needs no temporary, and begin_bit = end_bit copies the input.
// onesweep sorts 4-byte keys with 4-byte values over three passes or more as packed 8-byte words
// (detail/onesweep/packed_pairs.cuh), held between passes in the temporary and in out_keys and
// out_values themselves where both are 8-byte aligned: the same memory, 4% less time at 2^28 (H100).
// Asynchronous on the context's stream. See docs/radix_sort.md.
//
// Errors (sluice::invalid_argument): begin_bit < 0, end_bit outside [0, 8·sizeof(K)] (−1 means every
// bit), begin_bit > end_bit; bits_per_pass outside [0, 8] (split: 0 or 1; onesweep: 0 or 8); with
// onesweep, a pass_algorithm other than automatic or values over 16 bytes; with multisplit, a
// pass_algorithm that cannot take the element (multisplit's error naming "options"); out_keys, values or
// out_values not of the keys' size; host memory; an output overlapping an input or the other output
// (sort out of place: in place is not supported).
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/memory.hpp>
#include <sluice/core/span.hpp>
#include <sluice/detail/radix_sort/dispatch.cuh>
#include <sluice/options/radix_sort.hpp>

#include <cuda/std/span>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>

namespace sluice {

/// out_keys = keys stably sorted by bits [begin_bit, end_bit) of their order-preserving words.
template <class KIn, std::size_t E1, class K, std::size_t E2>
  requires std::same_as<std::remove_const_t<KIn>, K> && detail::radix_key<K>
void radix_sort(context& ctx, cuda::std::span<KIn, E1> keys, cuda::std::span<K, E2> out_keys,
                const radix_sort_options& options = {}) {
  detail::radix_sort::sort<K, detail::no_values>(ctx, "radix_sort", detail::as_const_span(keys), {},
                                                              cuda::std::span<K>(out_keys), {}, options);
}

/// out_keys = keys stably sorted as radix_sort does; out_values[i] = the value of out_keys[i]'s key.
template <class KIn, std::size_t E1, class VIn, std::size_t E2, class K, std::size_t E3, class V, std::size_t E4>
  requires std::same_as<std::remove_const_t<KIn>, K> && std::same_as<std::remove_const_t<VIn>, V> &&
           detail::radix_key<K>
void radix_sort_pairs(context& ctx, cuda::std::span<KIn, E1> keys, cuda::std::span<VIn, E2> values,
                      cuda::std::span<K, E3> out_keys, cuda::std::span<V, E4> out_values,
                      const radix_sort_options& options = {}) {
  detail::radix_sort::sort<K, V>(ctx, "radix_sort_pairs", detail::as_const_span(keys), detail::as_const_span(values),
                                 cuda::std::span<K>(out_keys), cuda::std::span<V>(out_values), options);
}

}  // namespace sluice
