// sluice/host/radix_sort.hpp: LSD radix sort on the CPU, keys or (key, value) pairs, by a bit range
// (Palik §5, Ashkiani §3.8; Eilers Alg. 2.4 is one pass of it).
//
// Keys are 8-to-64-bit integers, float or double, sorted through radix_word (core/radix_key.hpp, the
// GPU radix sort's), the order-preserving transform to an unsigned word (sign bit flipped for signed
// integers; for floats all bits flipped when negative, else the sign bit set):
// −NaN < −inf < … < −0.0 < +0.0 < … < +inf < +NaN. The sort is STABLE by the field bits
// [begin_bit, end_bit) of that word (descending: stable by the descending field), exactly what the
// oracle's reference::radix_sort_keys / radix_sort_pairs compute.
//
//   sluice::host::radix_sort_keys<float>(in, out);
//   sluice::host::radix_sort_pairs<std::uint64_t, std::uint32_t>(keys, values, keys_out, values_out,
//                                                                {.begin_bit = 0, .end_bit = 40});
//
// Each pass is a stable multisplit by one 8-bit digit on all cores (host/multisplit.hpp), least
// significant digit first, ping-ponging between out and one temporary (on 2 MiB pages with
// huge_pages). Traffic per pass: keys read twice and written once (pairs: values read and written once).
//
// Errors: bits outside the key (begin_bit < 0, begin_bit > end_bit, end_bit > 8·sizeof(K)) →
// invalid_argument("begin_bit" / "end_bit"); out sizes → invalid_argument("out" / "values" /
// "values_out").
#pragma once

#include <sluice/core/error.hpp>
#include <sluice/core/radix_key.hpp>
#include <sluice/host/detail/bucket_plan.hpp>
#include <sluice/host/huge_pages.hpp>
#include <sluice/host/multisplit.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace sluice::host {

struct radix_sort_options {
  int begin_bit = 0;
  std::optional<int> end_bit = std::nullopt;  ///< default: every bit of the key
  bool descending = false;
  bool huge_pages = false;     ///< the ping-pong temporary on 2 MiB pages
};

namespace detail {

/// Bits per pass: 256 buckets, whose per-block counts and write streams stay in L1.
inline constexpr int radix_digit_bits = 8;

template <sluice::detail::radix_key K, class V>
void radix_sort(const char* function, std::span<const K> keys, std::span<K> keys_out, std::span<const V> values,
                std::span<V> values_out, const radix_sort_options& options) {
  const int end_bit = options.end_bit.value_or(sluice::detail::key_bits<K>);
  sluice::detail::check_bit_range<K>(options.begin_bit, end_bit, function);
  if (keys_out.size() != keys.size()) throw invalid_argument(function, "out", "must have one element per key");
  const bool pairs = !values_out.empty() || !values.empty();
  const int passes = (end_bit - options.begin_bit + radix_digit_bits - 1) / radix_digit_bits;
  if (passes == 0) {
    std::copy(keys.begin(), keys.end(), keys_out.begin());
    if (pairs) std::copy(values.begin(), values.end(), values_out.begin());
    return;
  }
  const huge_page_buffer<K> keys_temp(passes > 1 ? keys.size() : 0, options.huge_pages);
  const huge_page_buffer<V> values_temp(passes > 1 && pairs ? keys.size() : 0, options.huge_pages);
  std::span<const K> keys_from = keys;
  std::span<const V> values_from = values;
  for (int pass = 0; pass < passes; ++pass) {
    // Destinations alternate so that the last pass writes out.
    const bool to_out = (passes - 1 - pass) % 2 == 0;
    const std::span<K> keys_to = to_out ? keys_out : keys_temp.span();
    const std::span<V> values_to = !pairs ? std::span<V>{} : to_out ? values_out : values_temp.span();
    const int shift = options.begin_bit + pass * radix_digit_bits;
    const int width = std::min(radix_digit_bits, end_bit - shift);
    const std::uint64_t mask = (std::uint64_t{1} << width) - 1;
    const auto digit = [&](std::size_t i) -> std::size_t {
      const std::uint64_t d = (static_cast<std::uint64_t>(sluice::detail::radix_word(keys_from[i])) >> shift) & mask;
      return options.descending ? mask - d : d;
    };
    const bucket_plan plan(keys.size(), std::size_t{1} << width, digit);
    distribute(plan, digit, keys_from, keys_to, values_from, values_to);
    keys_from = keys_to;
    values_from = values_to;
  }
}

}  // namespace detail

template <sluice::detail::radix_key K>
void radix_sort_keys(std::span<const K> keys, std::span<K> out, const radix_sort_options& options = {}) {
  detail::radix_sort<K, K>("host::radix_sort_keys", keys, out, {}, {}, options);
}

template <sluice::detail::radix_key K, class V>
void radix_sort_pairs(std::span<const K> keys, std::span<const V> values, std::span<K> keys_out,
                      std::span<V> values_out, const radix_sort_options& options = {}) {
  if (values.size() != keys.size())
    throw invalid_argument("host::radix_sort_pairs", "values", "must have one value per key");
  if (values_out.size() != keys.size())
    throw invalid_argument("host::radix_sort_pairs", "values_out", "must have one element per key");
  detail::radix_sort<K, V>("host::radix_sort_pairs", keys, keys_out, values, values_out, options);
}

}  // namespace sluice::host
