// Host tests of sluice/reference/select.hpp: Palik's split (§5.3) and his quicksort's 3-way split (§6.3),
// flagged selection, stability with (key, index) pairs against std::stable_partition, bad classes, and
// unique against std::unique.
#include <sluice/core/error.hpp>
#include <sluice/reference/select.hpp>

#include "support/compare.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <utility>
#include <vector>

namespace {

namespace ref = sluice::reference;
using sluice::testing::all_equal;

struct tagged {
  int key;
  std::uint32_t index;
  friend bool operator==(const tagged&, const tagged&) = default;
};

auto is_even = [](int x) { return x % 2 == 0; };

TEST(ReferenceSelect, PalikSplit) {
  const std::vector<int> a{5, 7, 3, 1, 4, 2, 7, 2};
  const auto p = ref::stable_partition<int>(a, is_even);
  EXPECT_TRUE(all_equal(p.out, {4, 2, 2, 5, 7, 3, 1, 7}));
  EXPECT_EQ(p.selected, 3u);
  EXPECT_TRUE(all_equal(ref::select_if<int>(a, is_even), {4, 2, 2}));
}

TEST(ReferenceSelect, PalikQuicksortThreeWaySplits) {
  // First iteration: one segment, pivot 6.4; classes <, =, > are 0, 1, 2.
  const std::vector<double> key{6.4, 9.2, 3.4, 1.6, 8.7, 4.1, 9.2, 3.4};
  auto around = [](double pivot) { return [pivot](double x) { return x < pivot ? 0 : x == pivot ? 1 : 2; }; };
  const auto p = ref::stable_partition_3way<double>(key, around(6.4));
  EXPECT_TRUE(all_equal(p.out, {3.4, 1.6, 4.1, 3.4, 6.4, 9.2, 8.7, 9.2}));
  EXPECT_EQ(p.first, 4u);
  EXPECT_EQ(p.second, 1u);
  // Second iteration, segment [3.4, 1.6, 4.1, 3.4] with pivot 3.4, and [9.2, 8.7, 9.2] with pivot 9.2.
  const auto left = ref::stable_partition_3way<double>(std::span<const double>(p.out).first(4), around(3.4));
  EXPECT_TRUE(all_equal(left.out, {1.6, 3.4, 3.4, 4.1}));
  EXPECT_EQ(left.first, 1u);
  EXPECT_EQ(left.second, 2u);
  const auto right = ref::stable_partition_3way<double>(std::span<const double>(p.out).last(3), around(9.2));
  EXPECT_TRUE(all_equal(right.out, {8.7, 9.2, 9.2}));
  EXPECT_EQ(right.first, 1u);
  EXPECT_EQ(right.second, 2u);
}

TEST(ReferenceSelect, EmptyAndDegenerate) {
  const std::vector<int> none;
  EXPECT_TRUE(ref::select_if<int>(none, is_even).empty());
  EXPECT_TRUE(ref::select_flagged<int>(none, std::vector<std::uint8_t>{}).empty());
  const auto p = ref::stable_partition<int>(none, is_even);
  EXPECT_TRUE(p.out.empty());
  EXPECT_EQ(p.selected, 0u);
  const auto p3 = ref::stable_partition_3way<int>(none, [](int) { return 7; });  // never called
  EXPECT_TRUE(p3.out.empty());
  EXPECT_TRUE(ref::unique<int>(none).empty());

  const std::vector<int> odd{1, 3, 5};
  const auto all_rejected = ref::stable_partition<int>(odd, is_even);
  EXPECT_TRUE(all_equal(all_rejected.out, odd));
  EXPECT_EQ(all_rejected.selected, 0u);
  const auto all_selected = ref::stable_partition<int>(odd, [](int) { return true; });
  EXPECT_TRUE(all_equal(all_selected.out, odd));
  EXPECT_EQ(all_selected.selected, 3u);
  const auto all_two = ref::stable_partition_3way<int>(odd, [](int) { return 2u; });
  EXPECT_TRUE(all_equal(all_two.out, odd));
  EXPECT_EQ(all_two.first, 0u);
  EXPECT_EQ(all_two.second, 0u);
}

TEST(ReferenceSelect, SelectFlagged) {
  const std::vector<int> a{10, 11, 12, 13, 14};
  EXPECT_TRUE(all_equal(ref::select_flagged<int>(a, std::vector<std::uint8_t>{1, 0, 255, 0, 2}), {10, 12, 14}));
  try {
    (void)ref::select_flagged<int>(a, std::vector<std::uint8_t>{1, 0});
    ADD_FAILURE() << "expected sluice::invalid_argument";
  } catch (const sluice::invalid_argument& e) {
    EXPECT_EQ(e.parameter(), "flags");
    EXPECT_EQ(e.index(), std::nullopt);
  }
}

TEST(ReferenceSelect, ClassOutsideZeroToTwoThrowsWithItsIndex) {
  auto identity_class = [](int x) { return x; };
  const std::vector<std::pair<std::vector<int>, std::size_t>> cases{
      {{0, 1, 2, 1, 3, 0, -1}, 4}, {{2, 2, -1, 7}, 2}, {{9}, 0}};
  for (const auto& [classes, bad_index] : cases) {
    try {
      (void)ref::stable_partition_3way<int>(classes, identity_class);
      ADD_FAILURE() << "expected sluice::invalid_argument at index " << bad_index;
    } catch (const sluice::invalid_argument& e) {
      EXPECT_EQ(e.parameter(), "classify");
      EXPECT_EQ(e.index(), std::optional<std::size_t>(bad_index));
    }
  }
}

TEST(ReferenceSelect, RandomPartitionsAreStableAgainstStdStablePartition) {
  std::mt19937_64 rng(5);
  for (std::size_t n : {1u, 2u, 33u, 65536u}) {
    std::vector<tagged> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = {static_cast<int>(rng() % 10), static_cast<std::uint32_t>(i)};
    auto small = [](const tagged& t) { return t.key < 4; };

    std::vector<tagged> expected = v;
    const auto mid = std::stable_partition(expected.begin(), expected.end(), small);
    const auto p = ref::stable_partition<tagged>(v, small);
    EXPECT_TRUE(all_equal(p.out, expected));
    EXPECT_EQ(p.selected, static_cast<std::size_t>(mid - expected.begin()));
    EXPECT_TRUE(all_equal(ref::select_if<tagged>(v, small), std::vector<tagged>(expected.begin(), mid)));

    // Three classes: a stable sort by class is an independent formulation.
    auto cls = [](const tagged& t) { return t.key % 3; };
    std::vector<tagged> by_class = v;
    std::stable_sort(by_class.begin(), by_class.end(),
                     [&](const tagged& x, const tagged& y) { return cls(x) < cls(y); });
    const auto p3 = ref::stable_partition_3way<tagged>(v, cls);
    EXPECT_TRUE(all_equal(p3.out, by_class));
    const auto zeros = static_cast<std::size_t>(std::count_if(v.begin(), v.end(), [&](const tagged& t) { return cls(t) == 0; }));
    const auto ones = static_cast<std::size_t>(std::count_if(v.begin(), v.end(), [&](const tagged& t) { return cls(t) == 1; }));
    EXPECT_EQ(p3.first, zeros);
    EXPECT_EQ(p3.second, ones);

    std::vector<std::uint8_t> flags(n);
    for (std::size_t i = 0; i < n; ++i) flags[i] = static_cast<std::uint8_t>(small(v[i]) ? 1 + rng() % 255 : 0);
    EXPECT_TRUE(all_equal(ref::select_flagged<tagged>(v, flags), std::vector<tagged>(expected.begin(), mid)));
  }
}

TEST(ReferenceSelect, UniqueKeepsTheFirstOfEachRun) {
  const std::vector<int> a{1, 1, 2, 2, 2, 1, 3, 3};
  EXPECT_TRUE(all_equal(ref::unique<int>(a), {1, 2, 1, 3}));
  const std::vector<tagged> t{{1, 0}, {1, 1}, {2, 2}, {1, 3}, {1, 4}};
  auto same_key = [](const tagged& x, const tagged& y) { return x.key == y.key; };
  EXPECT_TRUE(all_equal(ref::unique<tagged>(t, same_key), {{1, 0}, {2, 2}, {1, 3}}));
  // Neighbours are compared: with the non-transitive "differ by at most 1", 1~2~3 is one run (std::unique,
  // comparing with the run's first element, would keep 3).
  auto close = [](int x, int y) { return x - y <= 1 && y - x <= 1; };
  EXPECT_TRUE(all_equal(ref::unique<int>(std::vector<int>{1, 2, 3, 7, 8}, close), {1, 7}));

  std::mt19937_64 rng(6);
  std::vector<int> r(65536);
  for (auto& x : r) x = static_cast<int>(rng() % 3);
  std::vector<int> expected = r;
  expected.erase(std::unique(expected.begin(), expected.end()), expected.end());
  EXPECT_TRUE(all_equal(ref::unique<int>(r), expected));
}

}  // namespace
