// Host tests of sluice/reference/multisplit.hpp (Ashkiani §3.1): a hand example, offsets, dropped ids
// (≥ m and negative), m = 1, m = 0, stability with values = original index against std::stable_sort by
// bucket.
#include <sluice/core/error.hpp>
#include <sluice/reference/multisplit.hpp>

#include "support/compare.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
#include <random>
#include <span>
#include <vector>

namespace {

namespace ref = sluice::reference;
using sluice::testing::all_equal;
using offsets = std::vector<std::size_t>;

TEST(ReferenceMultisplit, HandExample) {
  const std::vector<std::uint32_t> keys{5, 7, 3, 1, 4, 2, 7, 2, 9};
  auto mod3 = [](std::uint32_t k) { return k % 3u; };
  const auto r = ref::multisplit<std::uint32_t>(keys, 3, mod3);
  EXPECT_TRUE(all_equal(r.keys, {3, 9, 7, 1, 4, 7, 5, 2, 2}));
  EXPECT_TRUE(all_equal(r.offsets, offsets{0, 2, 6, 9}));
  EXPECT_EQ(r.dropped, 0u);
}

TEST(ReferenceMultisplit, PalikSplitIsAMultisplitIntoTwo) {
  const std::vector<int> a{5, 7, 3, 1, 4, 2, 7, 2};
  const auto r = ref::multisplit<int>(a, 2, [](int x) { return static_cast<unsigned>(x % 2); });
  EXPECT_TRUE(all_equal(r.keys, {4, 2, 2, 5, 7, 3, 1, 7}));
  EXPECT_TRUE(all_equal(r.offsets, offsets{0, 3, 8}));
}

TEST(ReferenceMultisplit, OutOfRangeIdsAreDroppedAndCounted) {
  const std::vector<std::uint32_t> keys{0, 1, 2, 3, 4, 5, 6};
  // Buckets 0, 1 and 2; ids 3 and 0xFFFFFFFF are out of range.
  auto id = [](std::uint32_t k) { return k == 6 ? 0xFFFFFFFFu : k % 4u; };
  const auto r = ref::multisplit<std::uint32_t>(keys, 3, id);
  EXPECT_TRUE(all_equal(r.keys, {0, 4, 1, 5, 2}));
  EXPECT_TRUE(all_equal(r.offsets, offsets{0, 2, 4, 5}));
  EXPECT_EQ(r.dropped, 2u);
  EXPECT_EQ(r.offsets.back(), keys.size() - r.dropped);
  // A signed bucket id: negative ids are out of range too.
  const auto s = ref::multisplit<std::uint32_t>(keys, 2, [](std::uint32_t k) { return static_cast<int>(k) - 3; });
  EXPECT_TRUE(all_equal(s.keys, {3, 4}));
  EXPECT_TRUE(all_equal(s.offsets, offsets{0, 1, 2}));
  EXPECT_EQ(s.dropped, 5u);
}

TEST(ReferenceMultisplit, EmptyInputOneBucketAndZeroBuckets) {
  const std::vector<std::uint32_t> none;
  auto id = [](std::uint32_t k) { return k; };
  const auto empty = ref::multisplit<std::uint32_t>(none, 4, id);
  EXPECT_TRUE(empty.keys.empty());
  EXPECT_TRUE(all_equal(empty.offsets, offsets{0, 0, 0, 0, 0}));
  EXPECT_EQ(empty.dropped, 0u);

  const std::vector<std::uint32_t> keys{3, 1, 2};
  const auto one = ref::multisplit<std::uint32_t>(keys, 1, [](std::uint32_t) { return 0u; });
  EXPECT_TRUE(all_equal(one.keys, keys));
  EXPECT_TRUE(all_equal(one.offsets, offsets{0, 3}));

  for (auto call : {+[](std::span<const std::uint32_t> k) { (void)ref::multisplit(k, 0, [](std::uint32_t x) { return x; }); },
                    +[](std::span<const std::uint32_t> k) {
                      (void)ref::multisplit_pairs(k, k, 0, [](std::uint32_t x) { return x; });
                    }}) {
    try {
      call(keys);
      ADD_FAILURE() << "expected sluice::invalid_argument";
    } catch (const sluice::invalid_argument& e) {
      EXPECT_EQ(e.parameter(), "m");
    }
  }
}

TEST(ReferenceMultisplit, PairsSizeMismatchThrows) {
  const std::vector<std::uint32_t> keys{1, 2, 3};
  const std::vector<std::uint32_t> values{1, 2};
  try {
    (void)ref::multisplit_pairs<std::uint32_t, std::uint32_t>(keys, values, 2, [](std::uint32_t k) { return k % 2; });
    ADD_FAILURE() << "expected sluice::invalid_argument";
  } catch (const sluice::invalid_argument& e) {
    EXPECT_EQ(e.parameter(), "values");
  }
}

TEST(ReferenceMultisplit, RandomIsAStableSortByBucket) {
  std::mt19937_64 rng(8);
  for (std::size_t n : {1u, 31u, 32u, 33u, 65536u}) {
    for (std::size_t m : {1u, 2u, 31u, 33u, 257u}) {
      std::vector<std::uint32_t> keys(n);
      for (auto& k : keys) k = static_cast<std::uint32_t>(rng());
      // Bucket ids run to m + m/4, so about a fifth of the keys are dropped (none when m < 4).
      const std::size_t id_range = m + m / 4;
      auto bucket_of = [id_range](std::uint32_t k) { return static_cast<std::uint32_t>((k >> 7) % id_range); };
      std::vector<std::uint32_t> index(n);
      std::iota(index.begin(), index.end(), 0u);

      std::vector<std::uint32_t> kept;  // indices of elements with a valid bucket, stably sorted by bucket
      for (std::uint32_t i = 0; i < n; ++i)
        if (bucket_of(keys[i]) < m) kept.push_back(i);
      std::stable_sort(kept.begin(), kept.end(),
                       [&](std::uint32_t x, std::uint32_t y) { return bucket_of(keys[x]) < bucket_of(keys[y]); });
      std::vector<std::uint32_t> expected_keys;
      for (std::uint32_t i : kept) expected_keys.push_back(keys[i]);

      const auto r = ref::multisplit_pairs<std::uint32_t, std::uint32_t>(keys, index, m, bucket_of);
      EXPECT_TRUE(all_equal(r.values, kept)) << "n = " << n << ", m = " << m;
      EXPECT_TRUE(all_equal(r.keys, expected_keys));
      EXPECT_EQ(r.dropped, n - kept.size());
      const auto k_only = ref::multisplit<std::uint32_t>(keys, m, bucket_of);
      EXPECT_TRUE(all_equal(k_only.keys, expected_keys));
      EXPECT_TRUE(all_equal(k_only.offsets, r.offsets));
      EXPECT_EQ(k_only.dropped, r.dropped);
      // Offsets: m + 1 entries bracketing each bucket.
      ASSERT_EQ(r.offsets.size(), m + 1);
      EXPECT_EQ(r.offsets.front(), 0u);
      EXPECT_EQ(r.offsets.back(), n - r.dropped);
      for (std::size_t j = 0; j < m; ++j)
        for (std::size_t p = r.offsets[j]; p < r.offsets[j + 1]; ++p) ASSERT_EQ(bucket_of(r.keys[p]), j);
    }
  }
}

}  // namespace
