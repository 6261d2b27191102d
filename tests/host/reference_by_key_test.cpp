// Host tests of sluice/reference/by_key.hpp: runs of consecutive equal keys (not a group-by), a custom
// equality, size mismatches, and a random cross-check against the head-flag segmented oracles.
#include <sluice/core/error.hpp>
#include <sluice/core/operators.hpp>
#include <sluice/reference/by_key.hpp>
#include <sluice/reference/segmented.hpp>

#include "support/compare.hpp"
#include "support/errors.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace ref = sluice::reference;
using sluice::testing::all_equal;
using sluice::testing::expect_invalid_argument;
using affine32 = sluice::affine<std::uint32_t>;

TEST(ReferenceByKey, RunsOfEqualKeysNotGroups) {
  const std::vector<int> keys{1, 1, 2, 2, 2, 1, 3};
  const std::vector<int> vals{1, 2, 3, 4, 5, 6, 7};
  const auto r = ref::reduce_by_key<int, int>(keys, vals, sluice::plus{});
  EXPECT_TRUE(all_equal(r.keys, {1, 2, 1, 3}));
  EXPECT_TRUE(all_equal(r.values, {3, 12, 6, 7}));
  EXPECT_TRUE(all_equal(ref::inclusive_scan_by_key<int, int>(keys, vals, sluice::plus{}), {1, 3, 3, 7, 12, 6, 7}));
  EXPECT_TRUE(all_equal(ref::exclusive_scan_by_key<int, int>(keys, vals, 10, sluice::plus{}),
                        {10, 11, 10, 13, 17, 10, 10}));
}

TEST(ReferenceByKey, EmptyAndSingle) {
  const std::vector<int> none;
  const auto r = ref::reduce_by_key<int, int>(none, none, sluice::plus{});
  EXPECT_TRUE(r.keys.empty());
  EXPECT_TRUE(r.values.empty());
  EXPECT_TRUE((ref::inclusive_scan_by_key<int, int>(none, none, sluice::plus{}).empty()));
  EXPECT_TRUE((ref::exclusive_scan_by_key<int, int>(none, none, 0, sluice::plus{}).empty()));
  const std::vector<int> k1{4}, v1{9};
  const auto r1 = ref::reduce_by_key<int, int>(k1, v1, sluice::plus{});
  EXPECT_TRUE(all_equal(r1.keys, {4}));
  EXPECT_TRUE(all_equal(r1.values, {9}));
  EXPECT_TRUE(all_equal(ref::exclusive_scan_by_key<int, int>(k1, v1, 5, sluice::plus{}), {5}));
}

TEST(ReferenceByKey, ValuesCombineInIndexOrderAndTheRunKeepsItsFirstKey) {
  const std::vector<std::string> keys{"x", "x", "y", "y", "y"};
  const std::vector<std::string> vals{"a", "b", "c", "d", "e"};
  const auto r = ref::reduce_by_key<std::string, std::string>(keys, vals, std::plus<>{});
  EXPECT_TRUE(all_equal(r.values, {"ab", "cde"}));
  EXPECT_TRUE(all_equal(ref::inclusive_scan_by_key<std::string, std::string>(keys, vals, std::plus<>{}),
                        {"a", "ab", "c", "cd", "cde"}));
  EXPECT_TRUE(all_equal(ref::exclusive_scan_by_key<std::string, std::string>(keys, vals, "-", std::plus<>{}),
                        {"-", "-a", "-", "-c", "-cd"}));
}

TEST(ReferenceByKey, CustomEqualityComparesNeighbours) {
  // Keys equal when they agree after division by 10; the output key is the run's first key.
  const std::vector<int> keys{10, 15, 19, 20, 29, 31};
  const std::vector<int> vals{1, 1, 1, 1, 1, 1};
  auto same_decade = [](int a, int b) { return a / 10 == b / 10; };
  const auto r = ref::reduce_by_key<int, int>(keys, vals, sluice::plus{}, same_decade);
  EXPECT_TRUE(all_equal(r.keys, {10, 20, 31}));
  EXPECT_TRUE(all_equal(r.values, {3, 2, 1}));
  EXPECT_TRUE(all_equal(ref::inclusive_scan_by_key<int, int>(keys, vals, sluice::plus{}, same_decade),
                        {1, 2, 3, 1, 2, 1}));
  EXPECT_TRUE(all_equal(ref::exclusive_scan_by_key<int, int>(keys, vals, 0, sluice::plus{}, same_decade),
                        {0, 1, 2, 0, 1, 0}));
  // A non-transitive "differ by at most 1": neighbours 1~2, 2~3 chain into one run although 1 and 3 differ.
  const std::vector<int> chain{1, 2, 3, 7};
  auto close = [](int a, int b) { return a - b <= 1 && b - a <= 1; };
  const auto c = ref::reduce_by_key<int, int>(chain, std::vector<int>{1, 1, 1, 1}, sluice::plus{}, close);
  EXPECT_TRUE(all_equal(c.keys, {1, 7}));
  EXPECT_TRUE(all_equal(c.values, {3, 1}));
  EXPECT_TRUE(all_equal(ref::exclusive_scan_by_key<int, int>(chain, std::vector<int>{1, 1, 1, 1}, 0, sluice::plus{},
                                                             close),
                        {0, 1, 2, 0}));
}

TEST(ReferenceByKey, SizeMismatchThrows) {
  const std::vector<int> keys{1, 2, 3};
  const std::vector<int> vals{1, 2};
  expect_invalid_argument([&] { (void)ref::reduce_by_key<int, int>(keys, vals, sluice::plus{}); }, "values");
  expect_invalid_argument([&] { (void)ref::inclusive_scan_by_key<int, int>(keys, vals, sluice::plus{}); }, "values");
  expect_invalid_argument([&] { (void)ref::exclusive_scan_by_key<int, int>(keys, vals, 0, sluice::plus{}); }, "values");
}

TEST(ReferenceByKey, RandomAgreesWithHeadFlagSegmentedOracles) {
  std::mt19937_64 rng(99);
  const affine32 init{5, 7};
  for (std::size_t n : {1u, 2u, 100u, 65536u}) {
    for (std::uint32_t distinct : {1u, 2u, 64u}) {
      std::vector<std::uint32_t> keys(n);
      std::vector<affine32> vals(n);
      std::vector<std::uint8_t> flags(n);
      std::vector<std::uint32_t> run_keys;
      for (std::size_t i = 0; i < n; ++i) {
        // Long runs: change key with probability 1/8.
        keys[i] = i > 0 && rng() % 8 != 0 ? keys[i - 1] : static_cast<std::uint32_t>(rng() % distinct);
        vals[i] = {static_cast<std::uint32_t>(rng()), static_cast<std::uint32_t>(rng())};
        flags[i] = static_cast<std::uint8_t>(i == 0 || keys[i] != keys[i - 1]);
        if (flags[i]) run_keys.push_back(keys[i]);
      }
      const sluice::affine_compose op{};
      const auto r = ref::reduce_by_key<std::uint32_t, affine32>(keys, vals, op);
      EXPECT_TRUE(all_equal(r.keys, run_keys));
      // reduce_by_key has no init: seed the segmented reduce with the identity.
      EXPECT_TRUE(all_equal(r.values, ref::segmented_reduce_flags<affine32>(vals, flags, affine32{1, 0}, op)));
      EXPECT_TRUE(all_equal(ref::inclusive_scan_by_key<std::uint32_t, affine32>(keys, vals, op),
                            ref::segmented_inclusive_scan_flags<affine32>(vals, flags, op)));
      EXPECT_TRUE(all_equal(ref::exclusive_scan_by_key<std::uint32_t, affine32>(keys, vals, init, op),
                            ref::segmented_exclusive_scan_flags<affine32>(vals, flags, init, op)));
    }
  }
}

}  // namespace
