// sluice/data/distinct_keys.hpp: distinct integer keys for the hash tables' tests and benchmarks (host).
//
// Key i is a bijective mix of its index (murmur3's finalisers over 32 or 64 bits), so keys from index
// ranges that do not overlap do not overlap either: [0, n) gives n keys to insert, [absent_keys, …) as
// many that are certainly absent. The two largest values of the type (the slab hash's empty and erased
// markers, −1 and −2 for signed keys) are skipped, the range running on past them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace sluice::data {

/// The first index of a range of keys disjoint from every range below it of fewer than 2^31 keys.
inline constexpr std::uint64_t absent_keys = std::uint64_t{1} << 31;

[[nodiscard]] constexpr std::uint32_t mix_index32(std::uint32_t x) {
  x ^= 0x2545F491u;
  x ^= x >> 16;
  x *= 0x85EBCA6Bu;
  x ^= x >> 13;
  x *= 0xC2B2AE35u;
  return x ^ (x >> 16);
}

[[nodiscard]] constexpr std::uint64_t mix_index64(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xFF51AFD7ED558CCDull;
  x ^= x >> 33;
  x *= 0xC4CEB9FE1A85EC53ull;
  return x ^ (x >> 33);
}

/// `count` distinct keys of a 4- or 8-byte integer type from the indices first, first + 1, ….
template <class K>
[[nodiscard]] std::vector<K> distinct_keys(std::uint64_t first, std::size_t count) {
  static_assert(std::is_integral_v<K> && (sizeof(K) == 4 || sizeof(K) == 8), "4- or 8-byte integer keys");
  using U = std::make_unsigned_t<K>;
  std::vector<K> keys;
  keys.reserve(count);
  for (std::uint64_t i = first; keys.size() < count; ++i) {
    const U bits = sizeof(K) == 4 ? static_cast<U>(mix_index32(static_cast<std::uint32_t>(i))) : static_cast<U>(mix_index64(i));
    if (bits < static_cast<U>(~U{0} - 1)) keys.push_back(static_cast<K>(bits));
  }
  return keys;
}

}  // namespace sluice::data
