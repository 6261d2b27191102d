// Host tests of detail/group_by/sizing.hpp (the open-addressing group-by's table sizing: the hash, the
// HyperLogLog sketch's register, rank and estimate, the slot count) and of reference/group_by.hpp.
#include <sluice/core/operators.hpp>
#include <sluice/detail/group_by/sizing.hpp>
#include <sluice/reference/group_by.hpp>

#include "support/errors.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <span>
#include <string>
#include <vector>

namespace {

namespace gb = sluice::detail::group_by;
constexpr int bits = gb::tuning::sketch_bits;

/// The sketch the kernel builds, built here with the same functions.
template <class Keys>
std::vector<std::uint32_t> sketch_of(const Keys& keys) {
  std::vector<std::uint32_t> registers(std::size_t{1} << bits, 0);
  for (const std::uint64_t key : keys) {
    const std::uint64_t h = sluice::detail::mix64(key);
    auto& r = registers[gb::sketch_register(h, bits)];
    r = std::max(r, gb::sketch_rank(h, bits));
  }
  return registers;
}

TEST(GroupBySizing, ScrambleSpreadsSequentialAndStridedKeys) {
  // Keys differing only in low bits, or only in high bits, land on distinct home regions: the top 12 bits
  // of their hashes take well over half of the 4096 values for 4096 such keys (a bijection's image).
  for (const int shift : {0, 20, 40}) {
    std::set<std::uint32_t> tops;
    for (std::uint64_t k = 0; k < 4096; ++k) tops.insert(gb::sketch_register(sluice::detail::mix64(k << shift), bits));
    EXPECT_GT(tops.size(), 2400u) << "keys k << " << shift;
  }
  EXPECT_NE(sluice::detail::mix64(0), sluice::detail::mix64(1));
}

TEST(GroupBySizing, PartHashBalancesSequentialAndWideKeys) {
  // 2^16 sequential keys (and the same shifted into the high word) into 256 parts: every part within 25%
  // of its share (256 keys; a binomial's standard deviation is 16).
  for (const int shift : {0, 32}) {
    std::vector<int> parts(256, 0);
    for (std::uint64_t k = 0; k < (1u << 16); ++k)
      ++parts[(std::uint64_t{gb::part_hash<std::uint64_t>(k << shift)} * 256) >> 32];
    const auto [low, high] = std::minmax_element(parts.begin(), parts.end());
    EXPECT_GT(*low, 192) << "shift " << shift;
    EXPECT_LT(*high, 320) << "shift " << shift;
  }
}

TEST(GroupBySizing, RankCountsLeadingZerosAfterTheRegister) {
  EXPECT_EQ(gb::sketch_rank(~std::uint64_t{0}, bits), 1u);                       // next bit set
  EXPECT_EQ(gb::sketch_rank(std::uint64_t{1} << (63 - bits - 2), bits), 3u);     // two zeros first
  EXPECT_EQ(gb::sketch_rank(std::uint64_t{0xFFF} << (64 - bits), bits), 64u - bits + 1u);  // the guard bit
  EXPECT_EQ(gb::sketch_register(std::uint64_t{0xABC} << (64 - bits), bits), 0xABCu);
}

TEST(GroupBySizing, EstimateIsWithinFourStandardErrors) {
  const double standard_error = 1.04 / std::sqrt(double(1u << bits));
  for (const std::size_t distinct : {std::size_t{1}, std::size_t{100}, std::size_t{5000}, std::size_t{20000},
                                     std::size_t{300000}, std::size_t{2000000}}) {
    for (const std::uint64_t seed : {1ull, 2ull, 3ull}) {
      std::mt19937_64 random(seed * distinct);
      std::vector<std::uint64_t> keys(distinct);
      for (auto& k : keys) k = random();
      // Each key three times over: repeats must not count.
      std::vector<std::uint64_t> repeated = keys;
      repeated.insert(repeated.end(), keys.begin(), keys.end());
      repeated.insert(repeated.end(), keys.begin(), keys.end());
      const double estimate = gb::estimate_distinct(sketch_of(repeated));
      EXPECT_NEAR(estimate, double(distinct), 4 * standard_error * double(distinct) + 1.0)
          << distinct << " distinct, seed " << seed;
    }
  }
  // Sequential keys (ids) estimate as well as random ones.
  std::vector<std::uint64_t> ids(1u << 20);
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = i;
  EXPECT_NEAR(gb::estimate_distinct(sketch_of(ids)), double(ids.size()), 4 * standard_error * double(ids.size()));
}

TEST(GroupBySizing, SlotsFollowTheGivenCountTheSketchOrEveryKey) {
  EXPECT_EQ(gb::table_slots(0), 32u);
  EXPECT_EQ(gb::table_slots(6), 32u);
  EXPECT_EQ(gb::table_slots(600), static_cast<std::size_t>(std::ceil(600 / gb::tuning::max_load)));
  const std::size_t n = std::size_t{1} << 24;
  EXPECT_EQ(gb::distinct_to_size_for(n, 1000, 5.0), 1000.0);   // given: the sketch is not consulted
  EXPECT_EQ(gb::distinct_to_size_for(n, n * 2, 5.0), double(n));  // never more than the keys
  EXPECT_EQ(gb::distinct_to_size_for(1000, 0, 5.0), 1000.0);    // too few keys to sketch
  EXPECT_EQ(gb::distinct_to_size_for(n, 0, 1e6), 1e6 * gb::tuning::estimate_margin);
  EXPECT_EQ(gb::distinct_to_size_for(n, 0, 1e9), double(n));
}

TEST(GroupBySizing, AutomaticPartitionsWhileOnePassMakesTheParts) {
  using sluice::group_by_algorithm;
  constexpr std::size_t slot = 8;
  const double per_part = gb::tuning::fold_max_load * double(gb::fold_slots(slot));
  EXPECT_EQ(gb::fold_slots(slot), 2 * gb::fold_slots(16));
  EXPECT_EQ(gb::fold_parts(1, slot), 1u);
  EXPECT_EQ(gb::fold_parts(std::floor(per_part), slot), 1u);
  EXPECT_EQ(gb::fold_parts(std::floor(per_part) + 1, slot), 2u);
  EXPECT_EQ(gb::fold_parts(10 * per_part, slot), 10u);
  EXPECT_EQ(gb::fold_parts(10 * per_part, 16), 20u);  // 16-byte slots: half as many a part
  EXPECT_LE(gb::fold_parts(double(1 << 20), slot), gb::max_parts);  // the benchmark's 2^20 keys: one pass
  const std::size_t n = std::size_t{1} << 24;
  const auto automatic = group_by_algorithm::automatic;
  EXPECT_EQ(gb::table_strategy(automatic, n, double(1 << 16), slot, true), group_by_algorithm::partitioned);
  EXPECT_EQ(gb::table_strategy(automatic, n, per_part * gb::max_parts, slot, true), group_by_algorithm::partitioned);
  EXPECT_EQ(gb::table_strategy(automatic, n, per_part * gb::max_parts + 1, slot, true),
            group_by_algorithm::open_addressing);
  EXPECT_EQ(gb::table_strategy(automatic, gb::tuning::sketch_min_keys - 1, 10, slot, true),
            group_by_algorithm::open_addressing);
  // unique (no values) stays in one pass up to its threshold.
  const double single = static_cast<double>(gb::tuning::unique_single_pass_keys);
  EXPECT_EQ(gb::table_strategy(automatic, n, single, 4, false), group_by_algorithm::open_addressing);
  EXPECT_EQ(gb::table_strategy(automatic, n, single + 1, 4, false), group_by_algorithm::partitioned);
  for (const auto asked : {group_by_algorithm::open_addressing, group_by_algorithm::partitioned, group_by_algorithm::slab_hash})
    EXPECT_EQ(gb::table_strategy(asked, n, 10, slot, true), asked);
}

TEST(ReferenceGroupBy, GroupsEqualKeysAnywhereInInputOrder) {
  namespace ref = sluice::reference;
  const std::vector<int> keys{3, 1, 3, 2, 1, 3};
  const std::vector<int> values{1, 2, 3, 4, 5, 6};
  const auto sums = ref::group_by_reduce<int, int>(keys, values, sluice::plus{});
  EXPECT_EQ(sums.keys, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(sums.values, (std::vector<int>{7, 4, 10}));
  // Values folded in input order: a non-commutative fold shows it (10·a + b).
  const auto digits = ref::group_by_reduce<int, int>(keys, values, [](int a, int b) { return 10 * a + b; });
  EXPECT_EQ(digits.values, (std::vector<int>{25, 4, 136}));
  EXPECT_EQ(ref::distinct_keys<int>(keys), (std::vector<int>{1, 2, 3}));
  EXPECT_TRUE(ref::distinct_keys<int>(std::span<const int>{}).empty());
  sluice::testing::expect_invalid_argument(
      [&] { (void)ref::group_by_reduce<int, int>(keys, std::span<const int>(values).first(2), sluice::plus{}); },
      "values");
}

}  // namespace
