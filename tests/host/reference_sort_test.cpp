// Host tests of sluice/reference/sort.hpp: Palik's quicksort example (§6.3), stability with keys that
// compare equal (-0.0 and +0.0), segments sorted in place, and the heads size check; the offsets forms:
// empty segments, keys outside the segments copied through, pairs stable, bad offsets, and agreement
// with the heads form where both describe the same segments.
#include <sluice/core/error.hpp>
#include <sluice/reference/sort.hpp>

#include "support/compare.hpp"
#include "support/errors.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <span>
#include <vector>

namespace {

namespace ref = sluice::reference;
using sluice::testing::all_equal;

TEST(ReferenceSort, PaliksExample) {
  const std::vector<double> keys{6.4, 9.2, 3.4, 1.6, 8.7, 4.1, 9.2, 3.4};
  EXPECT_TRUE(all_equal(ref::stable_sort<double>(keys), {1.6, 3.4, 3.4, 4.1, 6.4, 8.7, 9.2, 9.2}));
}

TEST(ReferenceSort, SignedZerosKeepTheirInputOrder) {
  const std::vector<float> keys{0.0f, 1.0f, -0.0f, -1.0f, 0.0f, -0.0f};
  const std::vector<float> expected{-1.0f, 0.0f, -0.0f, 0.0f, -0.0f, 1.0f};
  const auto sorted = ref::stable_sort<float>(keys);
  ASSERT_EQ(sorted.size(), expected.size());
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    EXPECT_EQ(sorted[i], expected[i]) << i;
    EXPECT_EQ(std::signbit(sorted[i]), std::signbit(expected[i])) << i;
  }
}

TEST(ReferenceSort, SegmentsAreSortedInPlace) {
  const std::vector<int> keys{5, 1, 4, 9, 8, 7, 3, 2, 2};
  const std::vector<std::uint8_t> heads{0, 0, 0, 1, 0, 0, 1, 1, 0};  // [5 1 4] [9 8 7] [3] [2 2]
  EXPECT_TRUE(all_equal(ref::segmented_stable_sort<int>(keys, heads), {1, 4, 5, 7, 8, 9, 3, 2, 2}));
  EXPECT_THROW((ref::segmented_stable_sort<int>(keys, std::span<const std::uint8_t>(heads).first(3))),
               sluice::invalid_argument);
}

TEST(ReferenceSort, OffsetsSortEachSegmentAndCopyTheRestThrough) {
  //                               out  [      ] [] [         ]  out
  const std::vector<int> keys{9, 8, 3, 1, 2, 7, 6, 5, 4};
  const std::vector<std::size_t> offsets{2, 5, 5, 8};  // [3 1 2] [] [7 6 5], 9 8 and 4 outside
  EXPECT_TRUE(all_equal(ref::segmented_stable_sort_offsets<int>(keys, offsets), {9, 8, 1, 2, 3, 5, 6, 7, 4}));
  EXPECT_TRUE(all_equal(ref::segmented_stable_sort_offsets<int>(keys, offsets, std::greater<>{}),
                        {9, 8, 3, 2, 1, 7, 6, 5, 4}));
  const std::vector<std::size_t> no_segments{4};
  EXPECT_TRUE(all_equal(ref::segmented_stable_sort_offsets<int>(keys, no_segments), keys));
  const std::vector<std::size_t> all_empty{0, 0, 9, 9};
  EXPECT_TRUE(all_equal(ref::segmented_stable_sort_offsets<int>(keys, all_empty), {1, 2, 3, 4, 5, 6, 7, 8, 9}));
}

TEST(ReferenceSort, OffsetsPairsAreStable) {
  const std::vector<int> keys{2, 1, 2, 1, 0, 5, 5, 3};
  const std::vector<int> values{0, 1, 2, 3, 4, 5, 6, 7};
  const std::vector<std::size_t> offsets{0, 4, 4, 7};  // [2 1 2 1] [] [0 5 5], 3 outside
  const auto sorted = ref::segmented_stable_sort_pairs_offsets<int, int>(keys, values, offsets);
  EXPECT_TRUE(all_equal(sorted.keys, {1, 1, 2, 2, 0, 5, 5, 3}));
  EXPECT_TRUE(all_equal(sorted.values, {1, 3, 0, 2, 4, 5, 6, 7}));
}

TEST(ReferenceSort, OffsetsAreChecked) {
  const std::vector<int> keys{1, 2, 3};
  using sluice::testing::expect_invalid_argument;
  const auto sort = [&](std::vector<std::size_t> offsets) {
    return ref::segmented_stable_sort_offsets<int>(keys, offsets);
  };
  expect_invalid_argument([&] { (void)sort({}); }, "offsets", std::nullopt);
  expect_invalid_argument([&] { (void)sort({0, 2, 1}); }, "offsets", 2);
  expect_invalid_argument([&] { (void)sort({0, 4}); }, "offsets", 1);
  const std::vector<int> values{1, 2};
  const std::vector<std::size_t> offsets{0, 3};
  expect_invalid_argument([&] { (void)ref::segmented_stable_sort_pairs_offsets<int, int>(keys, values, offsets); },
                          "values");
}

/// Where offsets cover [0, n) without empty segments they describe what head flags do.
TEST(ReferenceSort, OffsetsAgreeWithHeads) {
  std::mt19937_64 random(7);
  for (int trial = 0; trial < 50; ++trial) {
    const std::size_t n = 1 + random() % 200;
    std::vector<int> keys(n);
    for (auto& k : keys) k = static_cast<int>(random() % 10);
    std::vector<std::uint8_t> heads(n, 0);
    std::vector<std::size_t> offsets{0};
    for (std::size_t i = 1; i < n; ++i)
      if (random() % 5 == 0) {
        heads[i] = 1;
        offsets.push_back(i);
      }
    offsets.push_back(n);
    const auto by_pair_index = [](int x, int y) { return x / 3 < y / 3; };  // ties expose stability
    EXPECT_TRUE(all_equal(ref::segmented_stable_sort_offsets<int>(keys, offsets, by_pair_index),
                          ref::segmented_stable_sort<int>(keys, heads, by_pair_index)))
        << "trial " << trial;
  }
}

}  // namespace
