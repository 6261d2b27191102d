// Host tests of the slab hash's pure arithmetic (Ashkiani ch. 5): the four slab layouts put every key,
// value and the next pointer in the words docs/containers.md draws (the link always in word 31, the
// seed's address lane), an all-0xFF slab reads as empty, every lane maps to its slot; the universal hash
// equals its 128-bit definition and spreads keys over the buckets; the sizing, growth and pool bounds
// of policy.hpp, the last checked against a simulation of slab lists filling up.
#include <sluice/detail/slab_hash/hash.hpp>
#include <sluice/detail/slab_hash/layout.hpp>
#include <sluice/detail/slab_hash/policy.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

namespace sh = sluice::detail::slab_hash;
using none = sluice::detail::no_values;

/// The 32 words of a slab whose slots are `slots`.
template <class L>
std::vector<std::uint32_t> words_of(const std::vector<typename L::slot_type>& slots) {
  std::vector<std::uint32_t> words(32);
  static_assert(sizeof(typename L::slot_type) * L::slots == 128);
  std::memcpy(words.data(), slots.data(), 128);
  return words;
}

template <class L>
void check_layout(const std::string& what, std::uint32_t slots, std::uint32_t data_slots) {
  using slot = typename L::slot_type;
  EXPECT_EQ(L::slots, slots) << what;
  EXPECT_EQ(L::data_slots, data_slots) << what;
  EXPECT_EQ(sizeof(slot) * L::slots, 128u) << what;
  EXPECT_EQ(L::data_lanes, (1u << data_slots) - 1) << what;
  EXPECT_EQ(L::slot_of_lane(sh::address_lane), L::link_slot) << what << ": lane 31 reads the link slot";
  for (std::uint32_t lane = 0; lane < 32; ++lane) {
    EXPECT_LT(L::slot_of_lane(lane), L::slots) << what;
    if (lane < data_slots) {
      EXPECT_EQ(L::slot_of_lane(lane), lane) << what << ": a data lane reads its own slot";
    }
  }
  // An all-0xFF slab: every data slot empty, the link at the end of the list.
  std::vector<slot> empty(L::slots);
  std::memset(empty.data(), 0xFF, 128);
  for (std::uint32_t s = 0; s < data_slots; ++s) EXPECT_EQ(L::key_of(empty[s]), L::empty_key) << what;
  EXPECT_EQ(L::link_of(empty[L::link_slot]), sh::no_address) << what;
  EXPECT_TRUE(L::empty_slot() == empty[0]) << what;
  EXPECT_TRUE(L::link_to(sh::no_address) == empty[L::link_slot]) << what;
  // The link in word 31, the rest of the link slot (and word 30 of the 4-byte layout) untouched.
  std::vector<slot> linked = empty;
  linked[L::link_slot] = L::link_to(0x01020304u);
  const auto words = words_of<L>(linked);
  EXPECT_EQ(words[31], 0x01020304u) << what;
  for (std::uint32_t w = 0; w < 31; ++w) EXPECT_EQ(words[w], 0xFFFFFFFFu) << what << ", word " << w;
  EXPECT_EQ(L::link_of(linked[L::link_slot]), 0x01020304u) << what;
  EXPECT_TRUE(L::is_reserved(L::empty_key) && L::is_reserved(L::tombstone_key)) << what;
  EXPECT_FALSE(L::is_reserved(L::tombstone_key - 1) || L::is_reserved(0)) << what;
}

TEST(SlabHashLayout, SlotsDataSlotsAndTheLink) {
  check_layout<sh::layout<std::uint32_t, none>>("set u32", 32, 30);
  check_layout<sh::layout<std::uint32_t, std::uint32_t>>("map u32 → u32", 16, 15);
  check_layout<sh::layout<std::uint64_t, none>>("set u64", 16, 15);
  check_layout<sh::layout<std::uint64_t, std::uint64_t>>("map u64 → u64", 8, 7);
  check_layout<sh::layout<std::int32_t, float>>("map i32 → float", 16, 15);
}

TEST(SlabHashLayout, KeysAndValuesSitInTheSeedsWords) {
  // Map of 32-bit pairs: slot p is words 2p (key) and 2p + 1 (value), the seed's even and odd lanes.
  using map32 = sh::layout<std::uint32_t, std::uint32_t>;
  std::vector<map32::slot_type> pairs(16, map32::empty_slot());
  for (std::uint32_t p = 0; p < 15; ++p) pairs[p] = map32::make_slot(100 + p, 200 + p);
  auto words = words_of<map32>(pairs);
  for (std::uint32_t p = 0; p < 15; ++p) {
    EXPECT_EQ(words[2 * p], 100 + p);
    EXPECT_EQ(words[2 * p + 1], 200 + p);
    EXPECT_EQ(map32::key_of(pairs[p]), 100 + p);
    EXPECT_EQ(map32::value_bits_of(pairs[p]), 200 + p);
  }
  // Set of 32-bit keys: slot p is word p.
  using set32 = sh::layout<std::uint32_t, none>;
  std::vector<set32::slot_type> keys(32, set32::empty_slot());
  for (std::uint32_t p = 0; p < 30; ++p) keys[p] = set32::make_slot(7 * p);
  words = words_of<set32>(keys);
  for (std::uint32_t p = 0; p < 30; ++p) EXPECT_EQ(words[p], 7 * p);
  // Map of 64-bit pairs: slot p is words 4p … 4p + 3, key then value, little-endian halves.
  using map64 = sh::layout<std::uint64_t, std::uint64_t>;
  std::vector<map64::slot_type> wide(8, map64::empty_slot());
  for (std::uint32_t p = 0; p < 7; ++p) wide[p] = map64::make_slot((std::uint64_t{p} << 32) | 1u, (std::uint64_t{p} << 32) | 2u);
  words = words_of<map64>(wide);
  for (std::uint32_t p = 0; p < 7; ++p) {
    EXPECT_EQ(words[4 * p], 1u);
    EXPECT_EQ(words[4 * p + 1], p);
    EXPECT_EQ(words[4 * p + 2], 2u);
    EXPECT_EQ(words[4 * p + 3], p);
  }
}

TEST(SlabHashLayout, SignedKeysAndFloatValuesRoundTrip) {
  using L = sh::layout<std::int32_t, float>;
  for (std::int32_t key : {0, 1, -3, 2147483647, -2147483647 - 1}) {
    for (float value : {0.0f, -0.0f, 1.5f, -7.25e10f}) {
      const auto slot = L::make_slot(L::bits_of_key(key), L::bits_of_value(value));
      EXPECT_EQ(L::key_of_bits(L::key_of(slot)), key);
      const float back = L::value_of_bits(L::value_bits_of(slot));
      EXPECT_EQ(std::memcmp(&back, &value, 4), 0) << value;
    }
  }
  EXPECT_TRUE(L::is_reserved(L::bits_of_key(-1)));  // the empty marker of signed keys
  EXPECT_TRUE(L::is_reserved(L::bits_of_key(-2)));  // the tombstone
  using L64 = sh::layout<std::int64_t, double>;
  const auto slot = L64::make_slot(L64::bits_of_key(-5), L64::bits_of_value(3.0));
  EXPECT_EQ(L64::key_of_bits(L64::key_of(slot)), -5);
  EXPECT_EQ(L64::value_of_bits(L64::value_bits_of(slot)), 3.0);
}

sluice::uint128_t random128(std::mt19937_64& random, int bits) {
  const sluice::uint128_t x = (static_cast<sluice::uint128_t>(random()) << 64) | random();
  return bits >= 128 ? x : x & ((static_cast<sluice::uint128_t>(1) << bits) - 1);
}

TEST(SlabHashHash, MersenneReductionEqualsTheRemainder) {
  const sluice::uint128_t p = sh::mersenne61;
  const sluice::uint128_t top = (static_cast<sluice::uint128_t>(1) << 122) - 1;
  for (sluice::uint128_t x : {sluice::uint128_t{0}, p - 1, p, p + 1, 2 * p, 2 * p - 1, p * p, p * p - 1, top})
    EXPECT_EQ(sh::mod_mersenne61(x), static_cast<std::uint64_t>(x % p));
  std::mt19937_64 random(5);
  for (int bits : {32, 61, 62, 64, 100, 122})
    for (int i = 0; i < 200000; ++i) {
      const sluice::uint128_t x = random128(random, bits);
      ASSERT_EQ(sh::mod_mersenne61(x), static_cast<std::uint64_t>(x % p)) << bits << " bits";
    }
}

TEST(SlabHashHash, UniversalHashEqualsItsDefinition) {
  const sluice::uint128_t p = sh::mersenne61;
  std::mt19937_64 random(9);
  for (std::uint64_t seed : {0ull, 1ull, 42ull, 0xFFFFFFFFFFFFFFFFull}) {
    const auto h = sh::universal_hash::from_seed(seed);
    ASSERT_GE(h.a, 1u);
    ASSERT_LT(h.a, sh::mersenne61);
    ASSERT_LT(h.b, sh::mersenne61);
    for (int i = 0; i < 100000; ++i) {
      const std::uint64_t key = i < 8 ? std::uint64_t{0} - static_cast<std::uint64_t>(i) : random();
      const auto expected = static_cast<std::uint32_t>(((h.a * static_cast<sluice::uint128_t>(key) + h.b) % p) >> 29);
      ASSERT_EQ(h(key), expected) << "seed " << seed << ", key " << key;
    }
  }
  EXPECT_NE(sh::universal_hash::from_seed(1).a, sh::universal_hash::from_seed(2).a);
}

TEST(SlabHashHash, BucketsStayInRangeAndCoverIt) {
  for (std::uint32_t buckets : {1u, 2u, 3u, 1000u, 1u << 20, 0x7FFFFFFFu}) {
    EXPECT_EQ(sh::bucket_of(0, buckets), 0u);
    EXPECT_EQ(sh::bucket_of(0xFFFFFFFFu, buckets), buckets - 1);
    for (std::uint32_t h : {1u, 0x80000000u, 0xDEADBEEFu}) EXPECT_LT(sh::bucket_of(h, buckets), buckets);
  }
}

TEST(SlabHashHash, SequentialKeysSpreadEvenly) {
  // 2^20 consecutive keys (the easy case to get wrong) over 4096 buckets: 256 a bucket on average; a
  // Poisson(256) count stays within 256 ± 100 with overwhelming probability.
  const std::uint32_t buckets = 4096;
  for (std::uint64_t seed : {0ull, 7ull}) {
    const auto h = seed == 0 ? sh::universal_hash{} : sh::universal_hash::from_seed(seed);
    std::vector<int> count(buckets, 0);
    for (std::uint64_t k = 0; k < (1u << 20); ++k) ++count[sh::bucket_of(h(k), buckets)];
    const auto [least, most] = std::minmax_element(count.begin(), count.end());
    EXPECT_GT(*least, 156) << "seed " << seed;
    EXPECT_LT(*most, 356) << "seed " << seed;
  }
}

TEST(SlabHashPolicy, BucketsForTheSeedsSweep) {
  // §5.6.1: 2^22 elements, M = 15, β from 0.1 to 5.
  EXPECT_EQ(sh::buckets_for(1u << 22, 15, 5.0), 55925u);  // "… to 55 k buckets"
  EXPECT_EQ(sh::buckets_for(1u << 22, 15, 0.7), 399458u);  // ⌈2^22 / 10.5⌉
  EXPECT_EQ(sh::buckets_for(0, 15, 0.7), 1u);
  EXPECT_EQ(sh::buckets_for(1, 30, 0.7), 1u);
  EXPECT_EQ(sh::buckets_for(std::uint64_t{1} << 40, 7, 0.1), std::uint32_t{1} << 31);  // clamped
  EXPECT_NEAR(sh::average_slabs(1u << 22, sh::buckets_for(1u << 22, 15, 0.7), 15), 0.7, 1e-5);
}

TEST(SlabHashPolicy, GrowthDoublesOrReachesTheTarget) {
  // 100 buckets of M = 15 hold 1500 elements at β = 1.
  EXPECT_EQ(sh::grown_buckets(1500, 100, 15, 0.7, 1.0), 100u);      // at the threshold: no growth
  EXPECT_EQ(sh::grown_buckets(1501, 100, 15, 0.7, 1.0), 200u);      // just past: doubled (β 0.5)
  EXPECT_EQ(sh::grown_buckets(15000, 100, 15, 0.7, 1.0), 1429u);    // far past: to the target β
  EXPECT_NEAR(sh::average_slabs(15000, 1429, 15), 0.7, 0.001);
  EXPECT_EQ(sh::grown_buckets(1u << 30, 1u << 31, 7, 0.7, 1.0), 1u << 31);  // no room left to grow
  // Growth repeated as a table fills keeps β at or under the maximum after each step.
  std::uint32_t b = 1;
  for (std::uint64_t n = 0; n < 10000000; n += 12345) {
    b = sh::grown_buckets(n, b, 15, 0.7, 1.0);
    ASSERT_LE(sh::average_slabs(n, b, 15), 1.0) << n;
  }
}

/// Slabs a list takes for `inserts` more elements when its tail has `room` free slots (M a slab).
std::uint64_t slabs_taken(std::uint64_t inserts, std::uint64_t room, std::uint32_t m) {
  return inserts <= room ? 0 : (inserts - room + m - 1) / m;
}

TEST(SlabHashPolicy, PoolBoundCoversEveryWayInsertsCanFall) {
  EXPECT_EQ(sh::units_for_inserts(0, 100, 15, 64), 0u);
  std::mt19937 random(13);
  for (std::uint32_t m : {7u, 15u, 30u})
    for (std::uint32_t buckets : {1u, 3u, 100u, 5000u})
      for (std::uint64_t inserts : {1ull, 14ull, 15ull, 16ull, 1000ull, 100000ull})
        for (int trial = 0; trial < 20; ++trial) {
          // Inserts fall on the buckets at random (trial 0: all on one); each tail has random room.
          std::vector<std::uint64_t> per_bucket(buckets, 0);
          for (std::uint64_t i = 0; i < inserts; ++i) ++per_bucket[trial == 0 ? 0 : random() % buckets];
          std::uint64_t taken = 0;
          for (std::uint32_t b = 0; b < buckets; ++b) taken += slabs_taken(per_bucket[b], random() % (m + 1), m);
          ASSERT_LE(taken, sh::units_for_inserts(inserts, buckets, m, 0))
              << "M = " << m << ", B = " << buckets << ", k = " << inserts << ", trial " << trial;
        }
}

TEST(SlabHashPolicy, MemoryUtilization) {
  // The seed's maximum: a full map32 slab holds 15 pairs of 8 bytes in 128 (94% for the 30-key set).
  EXPECT_NEAR(sh::memory_utilization(15, 8, 1, 128), 0.9375, 1e-12);
  EXPECT_NEAR(sh::memory_utilization(30, 4, 1, 128), 0.9375, 1e-12);
  EXPECT_EQ(sh::memory_utilization(0, 8, 0, 128), 0.0);
}

}  // namespace
