// Host tests of sluice/data/distinct_keys.hpp: keys of a range are distinct and never a hash-table marker
// (the two largest values), ranges of indices that do not overlap give keys that do not overlap, and the
// same range gives the same keys.
#include <sluice/data/distinct_keys.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <unordered_set>
#include <vector>

namespace {

template <class K>
void check(std::size_t n) {
  using U = std::make_unsigned_t<K>;
  const auto present = sluice::data::distinct_keys<K>(0, n);
  const auto absent = sluice::data::distinct_keys<K>(sluice::data::absent_keys, n);
  ASSERT_EQ(present.size(), n);
  std::unordered_set<K> seen(present.begin(), present.end());
  EXPECT_EQ(seen.size(), n) << "distinct";
  for (K k : present) ASSERT_LT(static_cast<U>(k), static_cast<U>(~U{0} - 1)) << "a marker";
  for (K k : absent) ASSERT_FALSE(seen.count(k)) << "ranges overlap at " << k;
  EXPECT_EQ(sluice::data::distinct_keys<K>(0, n), present) << "deterministic";
}

TEST(DataDistinctKeys, DistinctDisjointAndNeverAMarker) {
  check<std::uint32_t>(1 << 20);
  check<std::int32_t>(1 << 16);
  check<std::uint64_t>(1 << 18);
  check<std::int64_t>(1000);
}

/// a⁻¹ mod 2^32 for odd a (Newton: each step doubles the correct low bits).
constexpr std::uint32_t inverse(std::uint32_t a) {
  std::uint32_t x = a;  // correct to 3 bits
  for (int i = 0; i < 5; ++i) x *= 2u - a * x;
  return x;
}

/// The index whose mix is y: mix_index32 undone step by step.
constexpr std::uint32_t unmix(std::uint32_t y) {
  y ^= y >> 16;
  y *= inverse(0xC2B2AE35u);
  y ^= (y >> 13) ^ (y >> 26);
  y *= inverse(0x85EBCA6Bu);
  y ^= y >> 16;
  return y ^ 0x2545F491u;
}

TEST(DataDistinctKeys, TheMarkersAreSkippedWhereTheMixHitsThem) {
  for (std::uint32_t y : {0u, 1u, 0x12345678u, 0xFFFFFFFEu, 0xFFFFFFFFu})
    ASSERT_EQ(sluice::data::mix_index32(unmix(y)), y) << "the mix is a bijection";
  // The two indices the mix sends to the markers: a range over them runs on past them.
  for (std::uint32_t marker : {0xFFFFFFFEu, 0xFFFFFFFFu}) {
    const std::uint32_t hit = unmix(marker);
    const auto keys = sluice::data::distinct_keys<std::uint32_t>(hit, 2);
    EXPECT_LT(keys[0], 0xFFFFFFFEu);
    EXPECT_LT(keys[1], 0xFFFFFFFEu);
    EXPECT_NE(keys[0], keys[1]);
    if (sluice::data::mix_index32(hit + 1) < 0xFFFFFFFEu) {
      EXPECT_EQ(keys[0], sluice::data::mix_index32(hit + 1));
    }
  }
}

}  // namespace
