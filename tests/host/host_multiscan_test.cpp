// Tests of sluice::host::multiscan_inclusive / multiscan_exclusive / multitag against the oracles in
// reference/multireduce.hpp: every strategy over the size × distribution × bucket-count matrix, the
// operators + (u32; f32 within tolerance), min, max, affine maps and 2x2 matrices mod p (bit-exact),
// in place, dropped labels, strict mode and bad sizes. Outputs are poisoned twice.
#include <sluice/core/error.hpp>
#include <sluice/core/operators.hpp>
#include <sluice/data/distributions.hpp>
#include <sluice/host/multiscan.hpp>
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


auto exact = [](const auto& actual, const auto& expected) { return all_equal(actual, expected); };

/// Both scans into poisoned outputs (twice each), compared with the oracle.
template <class L, class T, class Op, class Compare>
void expect_scans_match(const std::vector<L>& labels, const std::vector<T>& values, std::size_t m, Op op,
                        const named_options& how, const std::string& context, Compare compare) {
  const T e = sluice::identity<Op, T>();
  const auto inclusive = ref::multiscan_inclusive<L, T>(labels, values, m, op, e);
  const auto exclusive = ref::multiscan_exclusive<L, T>(labels, values, m, op, e);
  std::vector<T> out(labels.size());
  for (unsigned char pattern : matrix::poison_patterns) {
    matrix::poison(std::span<T>(out), pattern);
    auto r = host::multiscan_inclusive<L, T>(labels, values, out, m, op, how.options);
    EXPECT_TRUE(compare(out, inclusive.out)) << context << ", inclusive, " << how.name;
    EXPECT_EQ(r.dropped, inclusive.dropped) << context << ", " << how.name;
    matrix::poison(std::span<T>(out), pattern);
    r = host::multiscan_exclusive<L, T>(labels, values, out, m, op, how.options);
    EXPECT_TRUE(compare(out, exclusive.out)) << context << ", exclusive, " << how.name;
    EXPECT_EQ(r.dropped, exclusive.dropped) << context << ", " << how.name;
  }
}

template <class L>
void expect_multitag_matches(const std::vector<L>& labels, std::size_t m, const named_options& how,
                             const std::string& context) {
  const auto expected = ref::multitag<L>(labels, m);
  std::vector<std::uint32_t> rank(labels.size());
  std::vector<std::uint64_t> counts(m);
  for (unsigned char pattern : matrix::poison_patterns) {
    matrix::poison(std::span<std::uint32_t>(rank), pattern);
    matrix::poison(std::span<std::uint64_t>(counts), pattern);
    const auto r = host::multitag<L>(labels, rank, counts, how.options);
    EXPECT_TRUE(all_equal(rank, expected.rank)) << context << ", multitag, " << how.name;
    EXPECT_TRUE(all_equal(counts, expected.counts)) << context << ", multitag, " << how.name;
    EXPECT_EQ(r.dropped, expected.dropped) << context << ", " << how.name;
  }
}

TEST(HostMultiscan, SizesTimesDistributionsAllStrategies) {
  for (std::size_t n : matrix::sizes())
    for (const auto& d : matrix::distributions())
      for (std::size_t m : {std::size_t{1}, std::size_t{33}, std::size_t{4096}}) {
        const auto labels = matrix::labels(n, m, d);
        const auto values = sluice::data::generate_host<std::uint32_t>(n, {sluice::data::distribution::uniform, 0, 0, 5});
        const std::string context = "n = " + std::to_string(n) + ", " + d.name + ", m = " + std::to_string(m);
        for (const auto& how : matrix::multireduce_strategies()) {
          expect_scans_match(labels, values, m, sluice::plus{}, how, context, exact);
          expect_multitag_matches(labels, m, how, context);
        }
      }
}

TEST(HostMultiscan, EveryBucketCount) {
  const std::size_t n = (std::size_t{1} << 17) + 3;
  for (std::size_t m : matrix::bucket_counts()) {
    const auto labels = matrix::labels(n, m, matrix::distributions()[0]);
    const auto values = sluice::data::generate_host<std::uint32_t>(n, {sluice::data::distribution::uniform, 0, 0, 6});
    for (const auto& how : matrix::multireduce_strategies()) {
      expect_scans_match(labels, values, m, sluice::plus{}, how, "m = " + std::to_string(m), exact);
      expect_multitag_matches(labels, m, how, "m = " + std::to_string(m));
    }
  }
}

TEST(HostMultiscan, OperatorsCommutativeAndNot) {
  const sluice::mat2_multiply_mod mat_op(1000003u);
  for (std::size_t n : {std::size_t{33}, (std::size_t{1} << 17) + 3})
    for (std::size_t m : {std::size_t{1}, std::size_t{32}, std::size_t{257}, std::size_t{1} << 16}) {
      const auto labels = matrix::labels(n, m, matrix::distributions()[4], 23);
      const auto operands = matrix::operands(n, 17, mat_op.modulus());
      const std::string context = "n = " + std::to_string(n) + ", m = " + std::to_string(m);
      auto near = [](const auto& actual, const auto& expected) { return all_near(actual, expected, 1e-4); };
      for (const auto& how : matrix::multireduce_strategies()) {
        expect_scans_match(labels, operands.floats, m, sluice::plus{}, how, context + ", + f32", near);
        expect_scans_match(labels, operands.ints, m, sluice::min{}, how, context + ", min i32", exact);
        expect_scans_match(labels, operands.ints, m, sluice::max{}, how, context + ", max i32", exact);
        expect_scans_match(labels, operands.maps, m, sluice::affine_compose{}, how, context + ", affine", exact);
        expect_scans_match(labels, operands.matrices, m, mat_op, how, context + ", mat2 mod p", exact);
      }
    }
}

TEST(HostMultiscan, InPlace) {
  const std::size_t n = (std::size_t{1} << 17) + 3;
  const auto labels = matrix::labels(n, 300, matrix::distributions()[0]);
  const auto values = sluice::data::generate_host<std::uint32_t>(n, {sluice::data::distribution::uniform, 1000, 0, 4});
  const auto expected = ref::multiscan_exclusive<std::uint32_t, std::uint32_t>(labels, values, 300, sluice::plus{}, 0u);
  for (const auto& how : matrix::multireduce_strategies()) {
    std::vector<std::uint32_t> data = values;
    (void)host::multiscan_exclusive<std::uint32_t, std::uint32_t>(labels, data, data, 300, sluice::plus{}, how.options);
    EXPECT_TRUE(all_equal(data, expected.out)) << how.name;
  }
}

TEST(HostMultiscan, DroppedLabelsGetTheIdentityAndStrictModeThrows) {
  const std::vector<std::int8_t> labels{0, -1, 1, 2, -128, 1, 127};
  const std::vector<int> values{1, 10, 100, 1000, 10000, 100000, 1000000};
  for (const auto& how : matrix::multireduce_strategies()) {
    std::vector<int> out(labels.size(), -99);
    const auto r = host::multiscan_inclusive<std::int8_t, int>(labels, values, out, 2, sluice::plus{}, how.options);
    EXPECT_TRUE(all_equal(out, {1, 0, 100, 0, 0, 100100, 0})) << how.name;
    EXPECT_EQ(r.dropped, 4u);
    std::vector<std::uint32_t> rank(labels.size(), 99);
    std::vector<std::uint64_t> counts(2, 99);
    EXPECT_EQ(host::multitag<std::int8_t>(labels, rank, counts, how.options).dropped, 4u);
    EXPECT_TRUE(all_equal(rank, std::vector<std::uint32_t>{0, 0, 0, 0, 0, 1, 0})) << how.name;
    EXPECT_TRUE(all_equal(counts, std::vector<std::uint64_t>{1, 2})) << how.name;
    auto strict = how.options;
    strict.strict = true;
    std::fill(out.begin(), out.end(), -99);
    expect_invalid_argument(
        [&] { (void)host::multiscan_exclusive<std::int8_t, int>(labels, values, out, 2, sluice::plus{}, strict); },
        "labels", std::size_t{1});
    EXPECT_TRUE(all_equal(out, std::vector<int>(labels.size(), -99))) << how.name;
    expect_invalid_argument([&] { (void)host::multitag<std::int8_t>(labels, rank, counts, strict); }, "labels",
                            std::size_t{1});
  }
}

TEST(HostMultiscan, BadSizes) {
  const std::vector<std::uint32_t> labels{0, 1, 2};
  const std::vector<std::uint32_t> values{1, 2, 3};
  std::vector<std::uint32_t> out(3), short_out(2);
  std::vector<std::uint32_t> rank(3);
  std::vector<std::uint64_t> no_counts;
  expect_invalid_argument(
      [&] { (void)host::multiscan_inclusive<std::uint32_t, std::uint32_t>(labels, values, out, 0, sluice::plus{}); }, "m");
  expect_invalid_argument(
      [&] { (void)host::multiscan_inclusive<std::uint32_t, std::uint32_t>(labels, values, short_out, 4, sluice::plus{}); },
      "out");
  expect_invalid_argument(
      [&] {
        (void)host::multiscan_exclusive<std::uint32_t, std::uint32_t>(
            labels, std::span<const std::uint32_t>(values).first(2), out, 4, sluice::plus{});
      },
      "values");
  expect_invalid_argument([&] { (void)host::multitag<std::uint32_t>(labels, rank, no_counts); }, "counts");
}

}  // namespace
