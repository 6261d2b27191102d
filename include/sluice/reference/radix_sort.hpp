// sluice/reference/radix_sort.hpp: sequential oracle for radix sort by a bit range (Palik §5, Ashkiani §3.8).
//
// radix_bits(key) maps a key to an unsigned word of the same width whose unsigned order is the key order,
// so that an LSD radix sort of the words sorts the keys:
//   unsigned integers   unchanged
//   signed integers     sign bit flipped (negatives below non-negatives, two's complement order kept)
//   float / double      negative (sign bit set): all bits flipped; otherwise: sign bit flipped.
// The float order this gives is total and differs from operator< at the edges, exactly:
//   −NaNs (largest payload first) < −inf < negative finite < −0.0 < +0.0 < positive finite < +inf < +NaNs
//   (smallest payload first); −0.0 sorts strictly before +0.0, and NaNs with the sign bit set come first.
//
// radix_sort_keys(keys, begin_bit, end_bit, descending) is a STABLE sort by the field
// (radix_bits(key) >> begin_bit) & (2^(end_bit − begin_bit) − 1), i.e. bits [begin_bit, end_bit), of the
// transformed word; keys whose fields are equal keep their input order (also when descending: it is a
// stable sort by descending field, not the reverse of the ascending result). The keys themselves are
// returned unchanged (not transformed). begin_bit = end_bit is a no-op. begin_bit < 0, begin_bit > end_bit
// or end_bit > radix_key_bits<T> (8 · sizeof(T)) throws invalid_argument("begin_bit" / "end_bit").
// radix_sort_pairs sorts the values along with their keys; values.size() != keys.size() throws
// invalid_argument("values"). Bits are ints, as in CUB.
#pragma once

#include <sluice/core/error.hpp>

#include <algorithm>
#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <span>
#include <type_traits>
#include <vector>

namespace sluice::reference {

template <class T>
concept radix_key = (std::integral<T> && !std::same_as<T, bool>) || std::same_as<T, float> ||
                    std::same_as<T, double>;

template <radix_key T>
inline constexpr int radix_key_bits = static_cast<int>(8 * sizeof(T));

template <radix_key T>
[[nodiscard]] constexpr auto radix_bits(T key) {
  if constexpr (std::integral<T>) {
    using U = std::make_unsigned_t<T>;
    const U word = static_cast<U>(key);
    if constexpr (std::is_signed_v<T>) return static_cast<U>(word ^ static_cast<U>(U{1} << (radix_key_bits<T> - 1)));
    else return word;
  } else {
    using U = std::conditional_t<std::is_same_v<T, float>, std::uint32_t, std::uint64_t>;
    const U word = std::bit_cast<U>(key);
    const U sign = static_cast<U>(U{1} << (radix_key_bits<T> - 1));
    return (word & sign) != 0 ? static_cast<U>(~word) : static_cast<U>(word | sign);
  }
}

template <class K, class V>
struct radix_sort_pairs_result {
  std::vector<K> keys;
  std::vector<V> values;
};

namespace detail {

template <radix_key T>
void check_bit_range(int begin_bit, int end_bit, const char* function) {
  if (begin_bit < 0) throw invalid_argument(function, "begin_bit", "must not be negative");
  if (begin_bit > end_bit) throw invalid_argument(function, "begin_bit", "must not exceed end_bit");
  if (end_bit > radix_key_bits<T>) throw invalid_argument(function, "end_bit", "exceeds the bits of the key type");
}

/// Bits [begin_bit, end_bit) of radix_bits(key), shifted down to bit 0.
template <radix_key T>
std::uint64_t radix_field(T key, int begin_bit, int end_bit) {
  const std::uint64_t word = radix_bits(key);
  const int width = end_bit - begin_bit;
  if (width == 0) return 0;
  const std::uint64_t mask = width >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1;
  return (word >> begin_bit) & mask;  // width > 0 implies begin_bit < 64
}

/// The stable sorting permutation: keys[order[0]], keys[order[1]], ... is sorted.
template <radix_key T>
std::vector<std::size_t> radix_order(std::span<const T> keys, int begin_bit, int end_bit, bool descending) {
  std::vector<std::uint64_t> field(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) field[i] = radix_field(keys[i], begin_bit, end_bit);
  std::vector<std::size_t> order(keys.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    return descending ? field[x] > field[y] : field[x] < field[y];
  });
  return order;
}

}  // namespace detail

template <radix_key T>
[[nodiscard]] std::vector<T> radix_sort_keys(std::span<const T> keys, int begin_bit = 0,
                                             int end_bit = radix_key_bits<T>, bool descending = false) {
  detail::check_bit_range<T>(begin_bit, end_bit, "reference::radix_sort_keys");
  std::vector<T> out;
  out.reserve(keys.size());
  for (std::size_t i : detail::radix_order(keys, begin_bit, end_bit, descending)) out.push_back(keys[i]);
  return out;
}

template <radix_key K, class V>
[[nodiscard]] radix_sort_pairs_result<K, V> radix_sort_pairs(std::span<const K> keys, std::span<const V> values,
                                                             int begin_bit = 0, int end_bit = radix_key_bits<K>,
                                                             bool descending = false) {
  if (values.size() != keys.size())
    throw invalid_argument("reference::radix_sort_pairs", "values", "must have one value per key");
  detail::check_bit_range<K>(begin_bit, end_bit, "reference::radix_sort_pairs");
  radix_sort_pairs_result<K, V> out;
  out.keys.reserve(keys.size());
  out.values.reserve(keys.size());
  for (std::size_t i : detail::radix_order(keys, begin_bit, end_bit, descending)) {
    out.keys.push_back(keys[i]);
    out.values.push_back(values[i]);
  }
  return out;
}

}  // namespace sluice::reference
