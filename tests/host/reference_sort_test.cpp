// Host tests of sluice/reference/sort.hpp: Palik's quicksort example (§6.3), stability with keys that
// compare equal (-0.0 and +0.0), segments sorted in place, and the heads size check.
#include <sluice/core/error.hpp>
#include <sluice/reference/sort.hpp>

#include "support/compare.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
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

}  // namespace
