// Host tests of sluice/reference/multireduce.hpp (Eilers §1.2, §7.4): hand examples, dropped labels of
// signed and unsigned types, accumulation into existing buckets, m = 1 against reduce and scan, m = 0,
// and random non-commutative data (affine maps over uint32, 2x2 matrices mod p) against filtering each
// bucket's values and reducing or scanning them.
#include <sluice/core/error.hpp>
#include <sluice/core/operators.hpp>
#include <sluice/reference/multireduce.hpp>
#include <sluice/reference/reduce.hpp>
#include <sluice/reference/scan.hpp>

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

TEST(ReferenceMultireduce, HandExampleInIndexOrder) {
  const std::vector<int> labels{2, 0, 2, 1, 0, 2};
  const std::vector<std::string> values{"a", "b", "c", "d", "e", "f"};
  const auto r = ref::multireduce<int, std::string>(labels, values, 4, std::plus<>{}, "");
  EXPECT_TRUE(all_equal(r.buckets, {"be", "d", "acf", ""}));
  EXPECT_EQ(r.dropped, 0u);
  const auto inc = ref::multiscan_inclusive<int, std::string>(labels, values, 4, std::plus<>{}, "");
  EXPECT_TRUE(all_equal(inc.out, {"a", "b", "ac", "d", "be", "acf"}));
  EXPECT_TRUE(all_equal(inc.totals, r.buckets));
  const auto exc = ref::multiscan_exclusive<int, std::string>(labels, values, 4, std::plus<>{}, "");
  EXPECT_TRUE(all_equal(exc.out, {"", "", "a", "", "b", "ac"}));
  EXPECT_TRUE(all_equal(exc.totals, r.buckets));
  const auto tags = ref::multitag<int>(labels, 4);
  EXPECT_TRUE(all_equal(tags.rank, std::vector<std::uint32_t>{0, 0, 1, 0, 1, 2}));
  EXPECT_TRUE(all_equal(tags.counts, std::vector<std::uint64_t>{2, 1, 3, 0}));
  EXPECT_EQ(tags.dropped, 0u);
}

TEST(ReferenceMultireduce, OutOfRangeLabelsAreDroppedAndCounted) {
  const std::vector<std::int8_t> labels{0, -1, 1, 2, -128, 1, 127};
  const std::vector<int> values{1, 10, 100, 1000, 10000, 100000, 1000000};
  const auto r = ref::multireduce<std::int8_t, int>(labels, values, 2, sluice::plus{}, 0);
  EXPECT_TRUE(all_equal(r.buckets, {1, 100100}));
  EXPECT_EQ(r.dropped, 4u);
  const auto inc = ref::multiscan_inclusive<std::int8_t, int>(labels, values, 2, sluice::plus{}, -7);
  EXPECT_TRUE(all_equal(inc.out, {-6, -7, 93, -7, -7, 100093, -7}));
  EXPECT_EQ(inc.dropped, 4u);
  const auto exc = ref::multiscan_exclusive<std::int8_t, int>(labels, values, 2, sluice::plus{}, 0);
  EXPECT_TRUE(all_equal(exc.out, {0, 0, 0, 0, 0, 100, 0}));
  const auto tags = ref::multitag<std::int8_t>(labels, 2);
  EXPECT_TRUE(all_equal(tags.rank, std::vector<std::uint32_t>{0, 0, 0, 0, 0, 1, 0}));
  EXPECT_TRUE(all_equal(tags.counts, std::vector<std::uint64_t>{1, 2}));
  EXPECT_EQ(tags.dropped, 4u);
  // Unsigned labels: label m is the first invalid one.
  const std::vector<std::uint64_t> big{3, 4, ~std::uint64_t{0}};
  const auto u = ref::multireduce<std::uint64_t, int>(big, std::vector<int>{1, 2, 3}, 4, sluice::plus{}, 0);
  EXPECT_TRUE(all_equal(u.buckets, {0, 0, 0, 1}));
  EXPECT_EQ(u.dropped, 2u);
}

TEST(ReferenceMultireduce, IntoAccumulatesOntoExistingBuckets) {
  const std::vector<std::uint16_t> labels{1, 0, 1, 5};
  const std::vector<std::string> values{"a", "b", "c", "d"};
  std::vector<std::string> buckets{"x", "y"};
  EXPECT_EQ((ref::multireduce_into<std::uint16_t, std::string>(labels, values, std::plus<>{}, buckets)), 1u);
  EXPECT_TRUE(all_equal(buckets, {"xb", "yac"}));
  std::vector<std::string> none;
  expect_invalid_argument(
      [&] { (void)ref::multireduce_into<std::uint16_t, std::string>(labels, values, std::plus<>{}, none); },
      "buckets");
}

TEST(ReferenceMultireduce, EmptyInput) {
  const std::vector<int> labels;
  const std::vector<double> values;
  const auto r = ref::multireduce<int, double>(labels, values, 3, sluice::min{}, 5.0);
  EXPECT_TRUE(all_equal(r.buckets, {5.0, 5.0, 5.0}));
  EXPECT_EQ(r.dropped, 0u);
  const auto s = ref::multiscan_inclusive<int, double>(labels, values, 3, sluice::min{}, 5.0);
  EXPECT_TRUE(s.out.empty());
  EXPECT_TRUE(all_equal(s.totals, {5.0, 5.0, 5.0}));
  const auto t = ref::multitag<int>(labels, 3);
  EXPECT_TRUE(t.rank.empty());
  EXPECT_TRUE(all_equal(t.counts, std::vector<std::uint64_t>{0, 0, 0}));
}

TEST(ReferenceMultireduce, BadArgumentsThrow) {
  const std::vector<int> labels{0, 1};
  const std::vector<int> values{1, 2};
  expect_invalid_argument([&] { (void)ref::multireduce<int, int>(labels, values, 0, sluice::plus{}, 0); }, "m");
  expect_invalid_argument([&] { (void)ref::multiscan_inclusive<int, int>(labels, values, 0, sluice::plus{}, 0); }, "m");
  expect_invalid_argument([&] { (void)ref::multiscan_exclusive<int, int>(labels, values, 0, sluice::plus{}, 0); }, "m");
  expect_invalid_argument([&] { (void)ref::multitag<int>(labels, 0); }, "m");
  const std::vector<int> short_values{1};
  expect_invalid_argument([&] { (void)ref::multireduce<int, int>(labels, short_values, 2, sluice::plus{}, 0); },
                          "values");
  expect_invalid_argument(
      [&] { (void)ref::multiscan_exclusive<int, int>(labels, short_values, 2, sluice::plus{}, 0); }, "values");
}

template <class T, class Op>
void check_against_per_bucket_filtering(const std::vector<std::int32_t>& labels, const std::vector<T>& values,
                                        std::size_t m, Op op, T identity) {
  const auto r = ref::multireduce<std::int32_t, T>(labels, values, m, op, identity);
  const auto inc = ref::multiscan_inclusive<std::int32_t, T>(labels, values, m, op, identity);
  const auto exc = ref::multiscan_exclusive<std::int32_t, T>(labels, values, m, op, identity);
  const auto tags = ref::multitag<std::int32_t>(labels, m);
  ASSERT_EQ(r.buckets.size(), m);
  std::size_t valid = 0;
  for (std::size_t k = 0; k < m; ++k) {
    std::vector<T> mine;
    std::vector<std::size_t> where;
    for (std::size_t i = 0; i < labels.size(); ++i)
      if (labels[i] == static_cast<std::int32_t>(k)) {
        mine.push_back(values[i]);
        where.push_back(i);
      }
    valid += mine.size();
    ASSERT_TRUE(r.buckets[k] == ref::reduce<T>(mine, identity, op)) << "bucket " << k;
    ASSERT_TRUE(inc.totals[k] == r.buckets[k]);
    ASSERT_TRUE(exc.totals[k] == r.buckets[k]);
    ASSERT_EQ(tags.counts[k], mine.size());
    const auto inc_k = ref::inclusive_scan<T>(mine, op, identity);
    const auto exc_k = ref::exclusive_scan<T>(mine, identity, op);
    for (std::size_t j = 0; j < where.size(); ++j) {
      ASSERT_TRUE(inc.out[where[j]] == inc_k[j]) << "bucket " << k << ", element " << where[j];
      ASSERT_TRUE(exc.out[where[j]] == exc_k[j]) << "bucket " << k << ", element " << where[j];
      ASSERT_EQ(tags.rank[where[j]], j);
    }
  }
  EXPECT_EQ(r.dropped, labels.size() - valid);
  EXPECT_EQ(inc.dropped, r.dropped);
  EXPECT_EQ(tags.dropped, r.dropped);
  for (std::size_t i = 0; i < labels.size(); ++i)
    if (labels[i] < 0 || labels[i] >= static_cast<std::int32_t>(m)) {
      ASSERT_TRUE(inc.out[i] == identity) << i;
      ASSERT_TRUE(exc.out[i] == identity) << i;
      ASSERT_EQ(tags.rank[i], 0u) << i;
    }
}

TEST(ReferenceMultireduce, RandomNonCommutativeAgainstPerBucketFiltering) {
  std::mt19937_64 rng(14);
  const sluice::mat2_multiply_mod mat_op{};
  for (std::size_t n : {1u, 100u, 20000u}) {
    for (std::size_t m : {1u, 2u, 33u, 257u}) {
      std::vector<std::int32_t> labels(n);
      // Labels from −2 to m + 1: a few out of range on each side.
      for (auto& l : labels) l = static_cast<std::int32_t>(rng() % (m + 4)) - 2;
      std::vector<affine32> maps(n);
      for (auto& f : maps) f = {static_cast<std::uint32_t>(rng()), static_cast<std::uint32_t>(rng())};
      check_against_per_bucket_filtering(labels, maps, m, sluice::affine_compose{}, affine32{1, 0});
      std::vector<sluice::mat2> mats(n);
      for (auto& x : mats) {
        auto residue = [&] { return static_cast<std::uint32_t>(rng() % mat_op.modulus()); };
        x = {residue(), residue(), residue(), residue()};
      }
      check_against_per_bucket_filtering(labels, mats, m, mat_op, sluice::mat2{1, 0, 0, 1});
    }
  }
}

TEST(ReferenceMultireduce, OneBucketIsThePlainReduceAndScan) {
  std::mt19937_64 rng(15);
  const std::size_t n = 65536;
  std::vector<std::uint32_t> labels(n, 0);
  std::vector<affine32> maps(n);
  for (auto& f : maps) f = {static_cast<std::uint32_t>(rng()), static_cast<std::uint32_t>(rng())};
  const affine32 e{1, 0};
  const sluice::affine_compose op{};
  const auto r = ref::multireduce<std::uint32_t, affine32>(labels, maps, 1, op, e);
  EXPECT_TRUE(r.buckets[0] == ref::reduce<affine32>(maps, e, op));
  EXPECT_TRUE(all_equal(ref::multiscan_inclusive<std::uint32_t, affine32>(labels, maps, 1, op, e).out,
                        ref::inclusive_scan<affine32>(maps, op)));
  EXPECT_TRUE(all_equal(ref::multiscan_exclusive<std::uint32_t, affine32>(labels, maps, 1, op, e).out,
                        ref::exclusive_scan<affine32>(maps, e, op)));
  const auto tags = ref::multitag<std::uint32_t>(labels, 1);
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(tags.rank[i], i);
}

}  // namespace
