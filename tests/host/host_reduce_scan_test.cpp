// Tests of sluice::host::reduce, inclusive_scan and exclusive_scan against reference/reduce.hpp and
// reference/scan.hpp: every strategy, the sizes of the matrix (one and several blocks), the operators
// + (u64 exact, f32 within tolerance), min, max, affine maps and 2x2 matrices mod p (bit-exact, so the
// blocks must combine in order), init values that are not identities, in place, bad sizes.
#include <sluice/core/error.hpp>
#include <sluice/core/operators.hpp>
#include <sluice/data/distributions.hpp>
#include <sluice/host/reduce.hpp>
#include <sluice/host/scan.hpp>
#include <sluice/reference/reduce.hpp>
#include <sluice/reference/scan.hpp>

#include "host/host_test_matrix.hpp"
#include "support/compare.hpp"
#include "support/errors.hpp"
#include "support/random_operands.hpp"

#include <gtest/gtest.h>

#include <cmath>
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
using affine32 = sluice::affine<std::uint32_t>;

template <class T, class Op, class Compare>
void expect_reduce_and_scans_match(const std::vector<T>& in, T init, Op op, const std::string& context,
                                   Compare compare) {
  for (auto algorithm : {host::reduce_algo::automatic, host::reduce_algo::sequential, host::reduce_algo::blocked}) {
    const T got = host::reduce<T>(in, init, op, {algorithm});
    EXPECT_TRUE(compare(std::vector<T>{got}, std::vector<T>{ref::reduce<T>(in, init, op)}))
        << context << ", reduce " << host::to_string(algorithm);
  }
  const auto inclusive = ref::inclusive_scan<T>(in, op);
  const auto inclusive_init = ref::inclusive_scan<T>(in, op, init);
  const auto exclusive = ref::exclusive_scan<T>(in, init, op);
  std::vector<T> out(in.size());
  for (auto algorithm : {host::scan_algo::automatic, host::scan_algo::sequential, host::scan_algo::reduce_then_scan})
    for (unsigned char pattern : matrix::poison_patterns) {
      const std::string where = context + ", scan algorithm " + std::to_string(static_cast<int>(algorithm));
      matrix::poison(std::span<T>(out), pattern);
      host::inclusive_scan<T>(in, out, op, {algorithm});
      EXPECT_TRUE(compare(out, inclusive)) << where << ", inclusive";
      matrix::poison(std::span<T>(out), pattern);
      host::inclusive_scan<T>(in, out, op, init, {algorithm});
      EXPECT_TRUE(compare(out, inclusive_init)) << where << ", inclusive with init";
      matrix::poison(std::span<T>(out), pattern);
      host::exclusive_scan<T>(in, out, init, op, {algorithm});
      EXPECT_TRUE(compare(out, exclusive)) << where << ", exclusive";
    }
}

auto exact = [](const auto& actual, const auto& expected) { return all_equal(actual, expected); };

TEST(HostReduceScan, EveryOperatorAndSize) {
  const sluice::mat2_multiply_mod mat_op(1000003u);
  for (std::size_t n : matrix::sizes()) {
    const std::string context = "n = " + std::to_string(n);
    const auto words = sluice::data::generate_host<std::uint64_t>(n, {sluice::data::distribution::uniform, 1u << 20, 0, 3});
    const auto floats = sluice::data::generate_host<float>(n, {sluice::data::distribution::uniform, 0, 0, 4});
    std::vector<std::int32_t> ints(n);
    std::vector<affine32> maps(n);
    for (std::size_t i = 0; i < n; ++i) {
      ints[i] = static_cast<std::int32_t>(words[i] * 2654435761u);
      maps[i] = {static_cast<std::uint32_t>(words[i]) * 2u + 1u, static_cast<std::uint32_t>(words[i] >> 3)};
    }
    const auto matrices = sluice::testing::random_matrices(n, 29, mat_op.modulus());
    auto near = [n](const auto& actual, const auto& expected) {
      return all_near(actual, expected, 1e-6 * std::sqrt(static_cast<double>(n) + 1.0));
    };
    expect_reduce_and_scans_match<std::uint64_t>(words, 17, sluice::plus{}, context + ", + u64", exact);
    expect_reduce_and_scans_match<float>(floats, 0.5f, sluice::plus{}, context + ", + f32", near);
    expect_reduce_and_scans_match<std::int32_t>(ints, 12345, sluice::min{}, context + ", min i32", exact);
    expect_reduce_and_scans_match<std::int32_t>(ints, -12345, sluice::max{}, context + ", max i32", exact);
    expect_reduce_and_scans_match<affine32>(maps, {3, 4}, sluice::affine_compose{}, context + ", affine", exact);
    expect_reduce_and_scans_match<sluice::mat2>(matrices, {1, 2, 3, 4}, mat_op, context + ", mat2 mod p", exact);
  }
}

TEST(HostReduceScan, InPlace) {
  const std::size_t n = (std::size_t{1} << 18) + 5;
  const auto in = sluice::data::generate_host<std::uint32_t>(n, {sluice::data::distribution::uniform, 0, 0, 7});
  std::vector<std::uint32_t> data = in;
  host::exclusive_scan<std::uint32_t>(data, data, 9u, sluice::plus{});
  EXPECT_TRUE(all_equal(data, ref::exclusive_scan<std::uint32_t>(in, 9u, sluice::plus{})));
  data = in;
  host::inclusive_scan<std::uint32_t>(data, data, sluice::plus{});
  EXPECT_TRUE(all_equal(data, ref::inclusive_scan<std::uint32_t>(in, sluice::plus{})));
}

TEST(HostReduceScan, BadSizes) {
  const std::vector<std::uint32_t> in{1, 2, 3};
  std::vector<std::uint32_t> out(2);
  expect_invalid_argument([&] { host::inclusive_scan<std::uint32_t>(in, out, sluice::plus{}); }, "out");
  expect_invalid_argument([&] { host::exclusive_scan<std::uint32_t>(in, out, 0u, sluice::plus{}); }, "out");
}

}  // namespace
