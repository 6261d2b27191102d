// Host tests of sluice/reference/search.hpp (Karsin Def 6.0.1): the largest index among duplicates,
// queries below and above every key, empty keys and queries, NaN, unsorted keys, and random queries
// against std::upper_bound − 1 and against counting by a linear pass.
#include <sluice/core/error.hpp>
#include <sluice/reference/search.hpp>

#include "support/compare.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <span>
#include <vector>

namespace {

namespace ref = sluice::reference;
using sluice::testing::all_equal;
using indices = std::vector<std::size_t>;
using signed_indices = std::vector<std::int64_t>;

TEST(ReferenceSearch, DuplicatesGiveTheLargestIndex) {
  const std::vector<int> keys{1, 3, 3, 3, 7, 9, 9};
  const std::vector<int> q{3, 0, 1, 2, 8, 9, 10, 7, -5};
  EXPECT_TRUE(all_equal(ref::predecessor<int>(keys, q), signed_indices{3, -1, 0, 0, 4, 6, 6, 4, -1}));
  EXPECT_TRUE(all_equal(ref::lower_bound_batch<int>(keys, q), indices{1, 0, 0, 1, 5, 5, 7, 4, 0}));
  EXPECT_TRUE(all_equal(ref::upper_bound_batch<int>(keys, q), indices{4, 0, 1, 1, 5, 7, 7, 5, 0}));
}

TEST(ReferenceSearch, AllEqualKeysAndExtremes) {
  const std::vector<std::uint32_t> same(5, 4u);
  EXPECT_TRUE(all_equal(ref::predecessor<std::uint32_t>(same, std::vector<std::uint32_t>{3, 4, 5}),
                        signed_indices{-1, 4, 4}));
  const std::vector<std::int32_t> keys{std::numeric_limits<std::int32_t>::min(), 0,
                                       std::numeric_limits<std::int32_t>::max()};
  EXPECT_TRUE(all_equal(ref::predecessor<std::int32_t>(keys, keys), signed_indices{0, 1, 2}));
}

TEST(ReferenceSearch, EmptyKeysOrQueries) {
  const std::vector<int> none, some{1, 2};
  EXPECT_TRUE(all_equal(ref::predecessor<int>(none, some), signed_indices{-1, -1}));
  EXPECT_TRUE(all_equal(ref::lower_bound_batch<int>(none, some), indices{0, 0}));
  EXPECT_TRUE(all_equal(ref::upper_bound_batch<int>(none, some), indices{0, 0}));
  EXPECT_TRUE(ref::predecessor<int>(some, none).empty());
  EXPECT_TRUE(ref::lower_bound_batch<int>(some, none).empty());
}

TEST(ReferenceSearch, FloatsWithSignedZerosAndNaN) {
  const std::vector<double> keys{-1.0, -0.0, 0.0, 2.0};
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> q{0.0, -0.0, nan, std::numeric_limits<double>::infinity()};
  EXPECT_TRUE(all_equal(ref::predecessor<double>(keys, q), signed_indices{2, 2, -1, 3}));
  EXPECT_TRUE(all_equal(ref::lower_bound_batch<double>(keys, q), indices{1, 1, 0, 4}));
  EXPECT_TRUE(all_equal(ref::upper_bound_batch<double>(keys, q), indices{3, 3, 4, 4}));
}

TEST(ReferenceSearch, UnsortedKeysThrowWithTheFirstBadIndex) {
  const std::vector<int> q{1};
  const std::vector<int> unsorted{1, 2, 2, 1, 0};
  const std::vector<double> with_nan{1.0, std::numeric_limits<double>::quiet_NaN(), 2.0};
  auto expect_throw = [](auto call, std::size_t index) {
    try {
      call();
      ADD_FAILURE() << "expected sluice::invalid_argument";
    } catch (const sluice::invalid_argument& e) {
      EXPECT_EQ(e.parameter(), "sorted_keys");
      EXPECT_EQ(e.index(), std::optional<std::size_t>(index));
    }
  };
  expect_throw([&] { (void)ref::predecessor<int>(unsorted, q); }, 3);
  expect_throw([&] { (void)ref::lower_bound_batch<int>(unsorted, q); }, 3);
  expect_throw([&] { (void)ref::upper_bound_batch<int>(unsorted, q); }, 3);
  expect_throw([&] { (void)ref::predecessor<double>(with_nan, std::vector<double>{1.0}); }, 1);
}

TEST(ReferenceSearch, RandomAgainstStdUpperBoundAndLinearCounts) {
  std::mt19937_64 rng(20);
  for (std::size_t n : {1u, 2u, 31u, 1000u, 65536u}) {
    std::vector<std::int32_t> keys(n);
    for (auto& k : keys) k = static_cast<std::int32_t>(rng() % (2 * n)) - static_cast<std::int32_t>(n / 2);
    std::sort(keys.begin(), keys.end());
    std::vector<std::int32_t> queries(4096);
    for (auto& q : queries) q = static_cast<std::int32_t>(rng() % (3 * n + 2)) - static_cast<std::int32_t>(n);
    const auto pred = ref::predecessor<std::int32_t>(keys, queries);
    const auto lower = ref::lower_bound_batch<std::int32_t>(keys, queries);
    const auto upper = ref::upper_bound_batch<std::int32_t>(keys, queries);
    for (std::size_t i = 0; i < queries.size(); ++i) {
      const std::int32_t q = queries[i];
      const auto ub = std::upper_bound(keys.begin(), keys.end(), q) - keys.begin();
      ASSERT_EQ(pred[i], static_cast<std::int64_t>(ub) - 1) << "q = " << q;
      if (n <= 1000) {  // linear counts on the smaller cases
        const auto below = static_cast<std::size_t>(std::count_if(keys.begin(), keys.end(), [&](std::int32_t k) { return k < q; }));
        const auto at_most = static_cast<std::size_t>(std::count_if(keys.begin(), keys.end(), [&](std::int32_t k) { return k <= q; }));
        ASSERT_EQ(lower[i], below) << "q = " << q;
        ASSERT_EQ(upper[i], at_most) << "q = " << q;
      }
    }
  }
}

}  // namespace
