// Host tests of sluice/reference/scatter.hpp (Eilers §1.2): last writer wins, untouched slots keep their
// contents, out-of-range indices (negative and too large) are dropped and counted, gather's fallback, and
// scatter held against multireduce with the "take the right operand" operator.
#include <sluice/core/error.hpp>
#include <sluice/reference/multireduce.hpp>
#include <sluice/reference/scatter.hpp>

#include "support/compare.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <span>
#include <vector>

namespace {

namespace ref = sluice::reference;
using sluice::testing::all_equal;

TEST(ReferenceScatter, LastWriterWinsAndUntouchedSlotsKeepTheirContents) {
  const std::vector<int> values{10, 20, 30, 40, 50};
  const std::vector<int> indices{2, 0, 2, 7, -1};
  std::vector<int> out{-1, -1, -1, -1};
  EXPECT_EQ((ref::scatter<int, int>(values, indices, out)), 2u);
  EXPECT_TRUE(all_equal(out, {20, -1, 30, -1}));
}

TEST(ReferenceScatter, UnsignedIndicesAndEmptyInputs) {
  const std::vector<std::uint8_t> idx{3, 255, 0};
  const std::vector<double> vals{1.5, 2.5, 3.5};
  std::vector<double> out(4, 0.0);
  EXPECT_EQ((ref::scatter<double, std::uint8_t>(vals, idx, out)), 1u);
  EXPECT_TRUE(all_equal(out, {3.5, 0.0, 0.0, 1.5}));
  std::vector<double> nothing;
  EXPECT_EQ((ref::scatter<double, std::uint8_t>(vals, idx, nothing)), 3u);
  EXPECT_EQ((ref::scatter<double, std::uint8_t>(std::vector<double>{}, std::vector<std::uint8_t>{}, out)), 0u);
}

TEST(ReferenceScatter, SizeMismatchThrows) {
  std::vector<int> out(3);
  try {
    (void)ref::scatter<int, int>(std::vector<int>{1, 2}, std::vector<int>{0}, out);
    ADD_FAILURE() << "expected sluice::invalid_argument";
  } catch (const sluice::invalid_argument& e) {
    EXPECT_EQ(e.parameter(), "indices");
  }
}

TEST(ReferenceScatter, GatherWithFallback) {
  const std::vector<char> table{'a', 'b', 'c'};
  const std::vector<std::int64_t> idx{2, 0, -1, 3, 1, 2, std::int64_t{1} << 40};
  const auto g = ref::gather<char, std::int64_t>(table, idx, '?');
  EXPECT_TRUE(all_equal(g.out, {'c', 'a', '?', '?', 'b', 'c', '?'}));
  EXPECT_EQ(g.out_of_range, 3u);
  const auto empty_table = ref::gather<char, std::int64_t>(std::vector<char>{}, idx, '-');
  EXPECT_TRUE(all_equal(empty_table.out, std::vector<char>(idx.size(), '-')));
  EXPECT_EQ(empty_table.out_of_range, idx.size());
  EXPECT_TRUE((ref::gather<char, std::int64_t>(table, std::vector<std::int64_t>{}, '?').out.empty()));
}

TEST(ReferenceScatter, PermutationScatterThenGatherRestoresTheValues) {
  std::mt19937_64 rng(16);
  const std::size_t n = 65536;
  std::vector<std::uint32_t> perm(n), values(n);
  std::iota(perm.begin(), perm.end(), 0u);
  std::shuffle(perm.begin(), perm.end(), rng);
  for (auto& v : values) v = static_cast<std::uint32_t>(rng());
  std::vector<std::uint32_t> out(n, 0);
  EXPECT_EQ((ref::scatter<std::uint32_t, std::uint32_t>(values, perm, out)), 0u);
  const auto back = ref::gather<std::uint32_t, std::uint32_t>(out, perm, 0);
  EXPECT_TRUE(all_equal(back.out, values));
  EXPECT_EQ(back.out_of_range, 0u);
}

TEST(ReferenceScatter, RandomScatterIsMultireduceWithTakeRight) {
  std::mt19937_64 rng(17);
  const std::size_t n = 65536, m = 1000;
  std::vector<std::int32_t> idx(n);
  std::vector<std::uint32_t> values(n);
  for (std::size_t i = 0; i < n; ++i) {
    idx[i] = static_cast<std::int32_t>(rng() % (m + 200)) - 100;  // collisions and both kinds of out of range
    values[i] = static_cast<std::uint32_t>(rng());
  }
  std::vector<std::uint32_t> scattered(m, 7u), reduced(m, 7u);
  const std::size_t dropped = ref::scatter<std::uint32_t, std::int32_t>(values, idx, scattered);
  auto take_right = [](std::uint32_t, std::uint32_t y) { return y; };
  EXPECT_EQ(dropped, (ref::multireduce_into<std::int32_t, std::uint32_t>(idx, values, take_right, reduced)));
  EXPECT_TRUE(all_equal(scattered, reduced));
  EXPECT_GT(dropped, 0u);
}

}  // namespace
