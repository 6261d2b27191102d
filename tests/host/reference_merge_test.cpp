// Host tests of sluice/reference/merge.hpp: stable merging (ties take a's elements first) against
// std::merge, unsorted inputs, merge sort stability with (key, index) pairs, custom comparators, and
// is_sorted.
#include <sluice/core/error.hpp>
#include <sluice/reference/merge.hpp>

#include "support/compare.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <iterator>
#include <numeric>
#include <optional>
#include <random>
#include <span>
#include <string_view>
#include <tuple>
#include <vector>

namespace {

namespace ref = sluice::reference;
using sluice::testing::all_equal;

struct tagged {
  int key;
  int tag;
  friend bool operator==(const tagged&, const tagged&) = default;
};
auto by_key = [](const tagged& x, const tagged& y) { return x.key < y.key; };

TEST(ReferenceMerge, TiesTakeFirstInputFirst) {
  const std::vector<tagged> a{{1, 0}, {2, 0}, {2, 1}, {5, 0}};
  const std::vector<tagged> b{{0, 10}, {2, 10}, {2, 11}, {5, 10}, {6, 10}};
  const auto m = ref::merge<tagged>(a, b, by_key);
  EXPECT_TRUE(all_equal(m, {{0, 10}, {1, 0}, {2, 0}, {2, 1}, {2, 10}, {2, 11}, {5, 0}, {5, 10}, {6, 10}}));
}

TEST(ReferenceMerge, EmptyInputs) {
  const std::vector<int> none, some{1, 2, 3};
  EXPECT_TRUE(ref::merge<int>(none, none).empty());
  EXPECT_TRUE(all_equal(ref::merge<int>(some, none), some));
  EXPECT_TRUE(all_equal(ref::merge<int>(none, some), some));
  EXPECT_TRUE(ref::merge_sort<int>(none).empty());
  EXPECT_TRUE(ref::is_sorted<int>(none));
  EXPECT_TRUE(ref::is_sorted<int>(std::vector<int>{4}));
}

TEST(ReferenceMerge, UnsortedInputThrowsWithTheFirstBadIndex) {
  const std::vector<int> sorted{1, 2, 3}, unsorted{1, 3, 2, 0};
  for (auto [a, b, parameter] : {std::tuple{&unsorted, &sorted, "a"}, std::tuple{&sorted, &unsorted, "b"}}) {
    try {
      (void)ref::merge<int>(*a, *b);
      ADD_FAILURE() << "expected sluice::invalid_argument";
    } catch (const sluice::invalid_argument& e) {
      EXPECT_EQ(e.parameter(), parameter);
      EXPECT_EQ(e.index(), std::optional<std::size_t>(2));
    }
  }
  // Sorted by a custom comparator (descending) is fine; the same input is unsorted under std::less.
  const std::vector<int> down{9, 5, 5, 1};
  EXPECT_TRUE(all_equal(ref::merge<int>(down, std::vector<int>{8, 0}, std::greater<>{}), {9, 8, 5, 5, 1, 0}));
  EXPECT_TRUE(ref::is_sorted<int>(down, std::greater<>{}));
  EXPECT_FALSE(ref::is_sorted<int>(down));
}

TEST(ReferenceMerge, RandomMergeMatchesStdMerge) {
  std::mt19937_64 rng(18);
  for (auto [na, nb] : {std::pair<std::size_t, std::size_t>{1, 1}, {100, 3}, {5000, 7000}, {65536, 1}}) {
    std::vector<tagged> a(na), b(nb);
    for (std::size_t i = 0; i < na; ++i) a[i] = {static_cast<int>(rng() % 100), static_cast<int>(i)};
    for (std::size_t i = 0; i < nb; ++i) b[i] = {static_cast<int>(rng() % 100), -static_cast<int>(i) - 1};
    std::stable_sort(a.begin(), a.end(), by_key);
    std::stable_sort(b.begin(), b.end(), by_key);
    std::vector<tagged> expected;
    std::merge(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(expected), by_key);
    EXPECT_TRUE(all_equal(ref::merge<tagged>(a, b, by_key), expected));
  }
}

TEST(ReferenceMerge, MergeSortIsStable) {
  std::mt19937_64 rng(19);
  const std::size_t n = 65536;
  std::vector<tagged> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = {static_cast<int>(rng() % 64), static_cast<int>(i)};
  const auto sorted = ref::merge_sort<tagged>(v, by_key);
  ASSERT_EQ(sorted.size(), n);
  for (std::size_t i = 1; i < n; ++i) {
    ASSERT_LE(sorted[i - 1].key, sorted[i].key) << i;
    if (sorted[i - 1].key == sorted[i].key) {
      ASSERT_LT(sorted[i - 1].tag, sorted[i].tag) << i;
    }
  }
  // Each tag appears once: a permutation of the input.
  std::vector<int> tags;
  for (const tagged& t : sorted) tags.push_back(t.tag);
  std::sort(tags.begin(), tags.end());
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(tags[i], static_cast<int>(i));
  EXPECT_TRUE(ref::is_sorted<tagged>(sorted, by_key));
  EXPECT_FALSE(ref::is_sorted<tagged>(v, by_key));
}

TEST(ReferenceMerge, MergeSortPairs) {
  const std::vector<int> keys{3, 1, 3, 2, 1};
  const std::vector<char> values{'a', 'b', 'c', 'd', 'e'};
  const auto r = ref::merge_sort_pairs<int, char>(keys, values);
  EXPECT_TRUE(all_equal(r.keys, {1, 1, 2, 3, 3}));
  EXPECT_TRUE(all_equal(r.values, {'b', 'e', 'd', 'a', 'c'}));
  const auto d = ref::merge_sort_pairs<int, char>(keys, values, std::greater<>{});
  EXPECT_TRUE(all_equal(d.keys, {3, 3, 2, 1, 1}));
  EXPECT_TRUE(all_equal(d.values, {'a', 'c', 'd', 'b', 'e'}));
  try {
    (void)ref::merge_sort_pairs<int, char>(keys, std::vector<char>{'a'});
    ADD_FAILURE() << "expected sluice::invalid_argument";
  } catch (const sluice::invalid_argument& e) {
    EXPECT_EQ(e.parameter(), "values");
  }
}

}  // namespace
