// GPU tests of the recurrence solver against the direct sequential loop (reference::linear_recurrence):
// first-order linear over wrapping integers (exact) and floats (tolerance), max-plus, and the
// segmented scan written as a recurrence, held against the direct segmented scan.
#include <sluice/data/generate.cuh>
#include <sluice/recurrence.cuh>
#include <sluice/reference/recurrence.hpp>
#include <sluice/reference/segmented.hpp>
#include <sluice/segmented.cuh>

#include "support/compare.hpp"
#include "support/gpu_test.hpp"
#include "support/tile_sizes.hpp"

#include <cstdint>
#include <vector>

namespace {

using sluice::testing::all_equal;
using sluice::testing::all_near;
using sluice::testing::gpu_test;

class Recurrence : public gpu_test {};

const std::vector<std::size_t> sizes =
    sluice::testing::with_single_pass_tile_sizes(std::vector<std::size_t>{1, 2, 31, 33, 2047, 2049, 100003, (std::size_t{1} << 20) + 7});

template <class T>
std::vector<T> uniform(std::size_t n, std::uint64_t seed, std::uint64_t range = 0) {
  return sluice::data::generate_host<T>(n, {sluice::data::distribution::uniform, range, 0.0, seed});
}

template <class T, class Solve>
std::vector<T> solve_on_device(sluice::context& ctx, const std::vector<T>& a, const std::vector<T>& b, Solve solve) {
  const sluice::device_buffer<T> d_a(ctx, std::span<const T>(a)), d_b(ctx, std::span<const T>(b));
  sluice::device_buffer<T> x(ctx, a.size());
  x.fill_bytes(0xA5);
  solve(d_a.span(), d_b.span(), x.span());
  return x.to_host();
}

TEST_F(Recurrence, FirstOrderLinearOverWrappingIntegersIsExact) {
  for (std::size_t n : sluice::testing::sweep_sizes(sizes)) {
    const auto a = uniform<std::uint32_t>(n, n), b = uniform<std::uint32_t>(n, n + 1);
    const auto got = solve_on_device(ctx(), a, b, [&](auto da, auto db, auto x) {
      sluice::first_order_linear_recurrence(ctx(), da, db, x);
    });
    const auto expected = sluice::reference::linear_recurrence(std::span<const std::uint32_t>(a),
                                                               std::span<const std::uint32_t>(b), sluice::plus{},
                                                               sluice::multiplies{});
    ASSERT_TRUE(all_equal(got, expected)) << "n = " << n;
  }
}

TEST_F(Recurrence, FirstOrderLinearFloatWithinRounding) {
  for (std::size_t n : sluice::testing::sweep_sizes(sizes)) {
    // A decaying filter (0 ≤ a < 1): errors do not grow along the sequence.
    const auto a = uniform<float>(n, n + 2), b = uniform<float>(n, n + 3);
    const auto got = solve_on_device(ctx(), a, b, [&](auto da, auto db, auto x) {
      sluice::first_order_linear_recurrence(ctx(), da, db, x);
    });
    const std::vector<double> a64(a.begin(), a.end()), b64(b.begin(), b.end());
    const auto expected = sluice::reference::linear_recurrence(std::span<const double>(a64), std::span<const double>(b64),
                                                               sluice::plus{}, sluice::multiplies{});
    ASSERT_TRUE(all_near(std::vector<double>(got.begin(), got.end()), expected, 1e-5)) << "n = " << n;
  }
}

TEST_F(Recurrence, MaxPlusIsExact) {
  for (std::size_t n : sluice::testing::sweep_sizes(sizes)) {
    auto a = uniform<std::int64_t>(n, n + 4, 2001), b = uniform<std::int64_t>(n, n + 5, 1u << 20);
    for (auto& x : a) x -= 1000;  // steps both up and down
    const auto got = solve_on_device(ctx(), a, b, [&](auto da, auto db, auto x) {
      sluice::max_plus_recurrence(ctx(), da, db, x);
    });
    const auto expected = sluice::reference::linear_recurrence(std::span<const std::int64_t>(a),
                                                               std::span<const std::int64_t>(b), sluice::max{},
                                                               sluice::plus{});
    ASSERT_TRUE(all_equal(got, expected)) << "n = " << n;
  }
}

TEST_F(Recurrence, SegmentedScanAsRecurrenceEqualsTheDirectSegmentedScan) {
  for (std::size_t n : sluice::testing::sweep_sizes(sizes)) {
    const auto values = uniform<std::uint32_t>(n, n + 6);
    const auto r = uniform<std::uint32_t>(n, n + 7, 20);
    std::vector<std::uint8_t> flags(n);
    for (std::size_t i = 0; i < n; ++i) flags[i] = r[i] == 0;
    const sluice::device_buffer<std::uint32_t> d_values(ctx(), std::span<const std::uint32_t>(values));
    const sluice::device_buffer<std::uint8_t> d_flags(ctx(), std::span<const std::uint8_t>(flags));
    sluice::device_buffer<std::uint32_t> by_recurrence(ctx(), n), direct(ctx(), n);
    by_recurrence.fill_bytes(0xA5);
    direct.fill_bytes(0x5A);
    sluice::segmented_scan_by_recurrence(ctx(), d_values.span(), d_flags.span(), by_recurrence.span(), sluice::plus{});
    sluice::segmented_inclusive_scan(ctx(), d_values.span(), d_flags.span(), direct.span(), sluice::plus{});
    const auto expected = sluice::reference::segmented_inclusive_scan_flags(
        std::span<const std::uint32_t>(values), std::span<const std::uint8_t>(flags), sluice::plus{});
    ASSERT_TRUE(all_equal(by_recurrence.to_host(), expected)) << "n = " << n;
    ASSERT_TRUE(all_equal(direct.to_host(), expected)) << "n = " << n;
  }
}

TEST_F(Recurrence, SizeMismatchIsRejected) {
  sluice::device_buffer<float> a(ctx(), 10), b(ctx(), 9), x(ctx(), 10);
  EXPECT_THROW(sluice::first_order_linear_recurrence(ctx(), a.span(), b.span(), x.span()), sluice::invalid_argument);
}

}  // namespace
