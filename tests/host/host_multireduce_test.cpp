// Tests of sluice::host::multireduce against reference::multireduce: every strategy (naive, privatized,
// partial sort with the machine's bits and with forced bits, huge pages) over the size × distribution ×
// bucket-count matrix, the operators + (u32 exact, float within tolerance), min, max, affine-map
// composition and 2x2 matrix product mod p (non-commutative: bit-exact), and bad input (m = 0, dropped
// labels of signed and unsigned types, strict mode, mismatched sizes). Outputs are poisoned twice.
#include <sluice/core/error.hpp>
#include <sluice/core/operators.hpp>
#include <sluice/data/distributions.hpp>
#include <sluice/host/multireduce.hpp>
#include <sluice/reference/multireduce.hpp>

#include "host/host_test_matrix.hpp"
#include "support/compare.hpp"
#include "support/errors.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace {

namespace host = sluice::host;
namespace ref = sluice::reference;
namespace matrix = sluice::testing::host_matrix;
using sluice::testing::all_equal;
using sluice::testing::all_near;
using sluice::testing::expect_invalid_argument;

using matrix::named_options;

/// The shared strategies and the naive loop on huge pages.
std::vector<named_options> strategies() {
  auto all = matrix::multireduce_strategies();
  all.push_back({"naive_huge", {.algorithm = sluice::host::multireduce_algo::naive, .huge_pages = true}});
  return all;
}

/// Runs host::multireduce into a poisoned output (twice) and compares with the oracle.
template <class L, class T, class Op, class Compare>
void expect_matches_oracle(const std::vector<L>& labels, const std::vector<T>& values, std::size_t m, Op op,
                           const named_options& how, const std::string& context, Compare compare) {
  const auto expected = ref::multireduce<L, T>(labels, values, m, op, sluice::identity<Op, T>());
  std::vector<T> out(m);
  for (unsigned char pattern : matrix::poison_patterns) {
    matrix::poison(std::span<T>(out), pattern);
    const auto r = host::multireduce<L, T>(labels, values, out, op, how.options);
    EXPECT_TRUE(compare(out, expected.buckets)) << context << ", " << how.name;
    EXPECT_EQ(r.dropped, expected.dropped) << context << ", " << how.name;
  }
}

auto exact = [](const auto& actual, const auto& expected) { return all_equal(actual, expected); };

TEST(HostMultireduce, SizesTimesDistributionsAllStrategies) {
  for (std::size_t n : matrix::sizes())
    for (const auto& d : matrix::distributions())
      for (std::size_t m : {std::size_t{1}, std::size_t{33}, std::size_t{4096}}) {
        const auto labels = matrix::labels(n, m, d);
        const auto values = sluice::data::generate_host<std::uint32_t>(n, {sluice::data::distribution::uniform, 0, 0, 5});
        for (const auto& how : strategies())
          expect_matches_oracle(labels, values, m, sluice::plus{}, how,
                                "n = " + std::to_string(n) + ", " + d.name + ", m = " + std::to_string(m), exact);
      }
}

TEST(HostMultireduce, EveryBucketCount) {
  const std::size_t n = (std::size_t{1} << 17) + 3;
  for (std::size_t m : matrix::bucket_counts())
    for (const auto& d : {matrix::distributions()[0], matrix::distributions()[4], matrix::distributions()[5]}) {
      const auto labels = matrix::labels(n, m, d);
      const auto values = sluice::data::generate_host<std::uint32_t>(n, {sluice::data::distribution::uniform, 0, 0, 6});
      for (const auto& how : strategies())
        expect_matches_oracle(labels, values, m, sluice::plus{}, how, d.name + ", m = " + std::to_string(m), exact);
    }
}

TEST(HostMultireduce, OperatorsCommutativeAndNot) {
  const sluice::mat2_multiply_mod mat_op(1000003u);
  for (std::size_t n : {std::size_t{33}, (std::size_t{1} << 17) + 3})
    for (std::size_t m : {std::size_t{1}, std::size_t{32}, std::size_t{257}, std::size_t{1} << 16}) {
      const auto labels = matrix::labels(n, m, matrix::distributions()[0], 21);
      const auto operands = matrix::operands(n, 13, mat_op.modulus());
      const std::string context = "n = " + std::to_string(n) + ", m = " + std::to_string(m);
      auto near = [](const auto& actual, const auto& expected) { return all_near(actual, expected, 1e-4); };
      for (const auto& how : strategies()) {
        expect_matches_oracle(labels, operands.floats, m, sluice::plus{}, how, context + ", + f32", near);
        expect_matches_oracle(labels, operands.ints, m, sluice::min{}, how, context + ", min i32", exact);
        expect_matches_oracle(labels, operands.ints, m, sluice::max{}, how, context + ", max i32", exact);
        expect_matches_oracle(labels, operands.maps, m, sluice::affine_compose{}, how, context + ", affine", exact);
        expect_matches_oracle(labels, operands.matrices, m, mat_op, how, context + ", mat2 mod p", exact);
      }
    }
}

TEST(HostMultireduce, ReportsWhatRan) {
  const std::vector<std::uint32_t> labels(1000, 3);
  const std::vector<std::uint32_t> values(1000, 1);
  std::vector<std::uint32_t> out(std::size_t{1} << 20);
  const auto sorted = host::multireduce<std::uint32_t, std::uint32_t>(
      labels, values, out, sluice::plus{}, {.algorithm = host::multireduce_algo::partial_sort, .partial_sort_bits = 5});
  EXPECT_EQ(sorted.algorithm, host::multireduce_algo::partial_sort);
  EXPECT_EQ(sorted.partial_sort_bits, 5);
  EXPECT_EQ(out[3], 1000u);
  const auto naive = host::multireduce<std::uint32_t, std::uint32_t>(labels, values, out, sluice::plus{},
                                                                     {.algorithm = host::multireduce_algo::naive});
  EXPECT_EQ(naive.algorithm, host::multireduce_algo::naive);
  EXPECT_EQ(naive.partial_sort_bits, 0);
  std::vector<std::uint32_t> one(1);  // m = 1: no label bits to sort by, so partial_sort runs naive
  const auto single = host::multireduce<std::uint32_t, std::uint32_t>(
      std::span<const std::uint32_t>(labels).first(10), std::span<const std::uint32_t>(values).first(10), one,
      sluice::plus{}, {.algorithm = host::multireduce_algo::partial_sort});
  EXPECT_EQ(single.algorithm, host::multireduce_algo::naive);
  EXPECT_EQ(one[0], 0u);  // every label (3) is ≥ m = 1: all dropped
  EXPECT_EQ(single.dropped, 10u);
}

TEST(HostMultireduce, OutOfRangeLabelsAreDroppedAndCounted) {
  const std::vector<std::int16_t> labels{0, -1, 1, 2, -32768, 1, 32767, 1};
  const std::vector<int> values{1, 10, 100, 1000, 10000, 100000, 1000000, 7};
  for (const auto& how : strategies()) {
    std::vector<int> out(2, -99);
    const auto r = host::multireduce<std::int16_t, int>(labels, values, out, sluice::plus{}, how.options);
    EXPECT_TRUE(all_equal(out, {1, 100107})) << how.name;
    EXPECT_EQ(r.dropped, 4u) << how.name;
  }
  const std::vector<std::uint64_t> wide{5, std::uint64_t{1} << 40, 0, ~std::uint64_t{0}};
  const std::vector<float> ones(4, 1.0f);
  std::vector<float> out(6);
  const auto r = host::multireduce<std::uint64_t, float>(wide, ones, out, sluice::plus{});
  EXPECT_TRUE(all_equal(out, {1.0f, 0.0f, 0.0f, 0.0f, 0.0f, 1.0f}));
  EXPECT_EQ(r.dropped, 2u);
}

TEST(HostMultireduce, StrictModeThrowsWithTheFirstOffendingIndexAndWritesNothing) {
  std::vector<std::uint32_t> labels(200000, 1);
  labels[150001] = 7;
  labels[170000] = 9;
  const std::vector<std::uint32_t> values(labels.size(), 1);
  for (const auto& how : strategies()) {
    std::vector<std::uint32_t> out(4, 0xDEADBEEFu);
    auto options = how.options;
    options.strict = true;
    expect_invalid_argument(
        [&] { (void)host::multireduce<std::uint32_t, std::uint32_t>(labels, values, out, sluice::plus{}, options); },
        "labels", std::size_t{150001});
    EXPECT_TRUE(all_equal(out, std::vector<std::uint32_t>(4, 0xDEADBEEFu))) << how.name;
  }
  std::vector<std::uint32_t> out(10);  // every label fits: strict mode changes nothing
  const auto r = host::multireduce<std::uint32_t, std::uint32_t>(labels, values, out, sluice::plus{}, {.strict = true});
  EXPECT_EQ(r.dropped, 0u);
  EXPECT_EQ(out[1], 199998u);
}

TEST(HostMultireduce, BadSizes) {
  const std::vector<std::uint32_t> labels{0, 1, 2};
  const std::vector<std::uint32_t> values{1, 2};
  std::vector<std::uint32_t> none;
  std::vector<std::uint32_t> out(4);
  expect_invalid_argument(
      [&] { (void)host::multireduce<std::uint32_t, std::uint32_t>(labels, labels, none, sluice::plus{}); }, "out");
  expect_invalid_argument(
      [&] { (void)host::multireduce<std::uint32_t, std::uint32_t>(labels, values, out, sluice::plus{}); }, "values");
}

}  // namespace
