// Host tests of sluice/reference/histogram.hpp: even bins over integers (including the full 64-bit range,
// where a naive product overflows) and floats (clamping at the top, NaN and inf out of range), range bins
// and their validation, even bins against the equivalent range bins, custom binnings and weights.
#include <sluice/core/error.hpp>
#include <sluice/reference/histogram.hpp>

#include "support/compare.hpp"
#include "support/errors.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <span>
#include <string_view>
#include <vector>

namespace {

namespace ref = sluice::reference;
using sluice::testing::all_equal;
using sluice::testing::expect_invalid_argument;
using counts = std::vector<std::uint64_t>;

TEST(ReferenceHistogram, EvenIntegerBins) {
  const ref::even_bins<int> b{-10, 20, 3};  // [-10,0), [0,10), [10,20)
  EXPECT_EQ(b.bins(), 3u);
  EXPECT_EQ(b(-10), 0u);
  EXPECT_EQ(b(-1), 0u);
  EXPECT_EQ(b(0), 1u);
  EXPECT_EQ(b(19), 2u);
  EXPECT_EQ(b(20), std::nullopt);
  EXPECT_EQ(b(-11), std::nullopt);
  // Uneven division: width 10, 4 bins → bin = x·4/10: 0,0,0,1,1,2,2,2,3,3.
  const ref::even_bins<std::uint8_t> u{0, 10, 4};
  std::vector<std::size_t> got;
  for (std::uint8_t x = 0; x < 10; ++x) got.push_back(*u(x));
  EXPECT_TRUE(all_equal(got, std::vector<std::size_t>{0, 0, 0, 1, 1, 2, 2, 2, 3, 3}));

  const std::vector<int> samples{-10, -5, 0, 5, 9, 10, 19, 20, 100, -11};
  const auto h = ref::histogram<int>(samples, b);
  EXPECT_TRUE(all_equal(h.counts, counts{2, 3, 2}));
  EXPECT_EQ(h.dropped, 3u);
}

TEST(ReferenceHistogram, EvenBinsOverTheWhole64BitRangeDoNotOverflow) {
  constexpr auto lo = std::numeric_limits<std::int64_t>::min();
  constexpr auto hi = std::numeric_limits<std::int64_t>::max();
  const ref::even_bins<std::int64_t> b{lo, hi, 4};
  EXPECT_EQ(b(lo), 0u);
  EXPECT_EQ(b(-1), 1u);
  EXPECT_EQ(b(0), 2u);  // offset 2^63 of width 2^64 − 1: 2^63·4/(2^64−1) = 2.000…
  EXPECT_EQ(b(hi - 1), 3u);
  EXPECT_EQ(b(hi), std::nullopt);
  const ref::even_bins<std::uint64_t> u{0, ~std::uint64_t{0}, 1000};
  EXPECT_EQ(u(~std::uint64_t{0} - 1), 999u);
  EXPECT_EQ(u(std::uint64_t{1} << 63), 500u);
}

TEST(ReferenceHistogram, EvenFloatBins) {
  const ref::even_bins<float> b{0.0f, 1.0f, 10};
  EXPECT_EQ(b(0.0f), 0u);
  EXPECT_EQ(b(-0.0f), 0u);
  EXPECT_EQ(b(0.05f), 0u);
  EXPECT_EQ(b(0.5f), 5u);
  EXPECT_EQ(b(std::nextafter(1.0f, 0.0f)), 9u);
  EXPECT_EQ(b(1.0f), std::nullopt);
  EXPECT_EQ(b(-1e-30f), std::nullopt);
  EXPECT_EQ(b(std::numeric_limits<float>::quiet_NaN()), std::nullopt);
  EXPECT_EQ(b(std::numeric_limits<float>::infinity()), std::nullopt);
  EXPECT_EQ(b(-std::numeric_limits<float>::infinity()), std::nullopt);
  // Near upper the quotient can round to exactly 1 (here 1e16 + 0.5 and 1e16 + 1 both round to 1e16):
  // the clamp keeps such samples in the last bin.
  const ref::even_bins<double> d{-1e16, 1.0, 4};
  const double unclamped = (0.5 - -1e16) / (1.0 - -1e16) * 4.0;
  ASSERT_GE(unclamped, 4.0);  // the case really needs the clamp
  EXPECT_EQ(d(0.5), 3u);
  const ref::even_bins<double> big{-1e300, 1e300, 7};
  EXPECT_EQ(big(0.0), 3u);
  EXPECT_EQ(big(std::nextafter(1e300, 0.0)), 6u);
}

TEST(ReferenceHistogram, EvenBinsRejectBadParameters) {
  expect_invalid_argument([] { (void)ref::even_bins<int>(0, 10, 0); }, "bins", std::nullopt);
  expect_invalid_argument([] { (void)ref::even_bins<int>(5, 5, 1); }, "upper", std::nullopt);
  expect_invalid_argument([] { (void)ref::even_bins<int>(6, 5, 1); }, "upper", std::nullopt);
  expect_invalid_argument([] { (void)ref::even_bins<float>(0.0f, std::numeric_limits<float>::quiet_NaN(), 1); },
                          "upper", std::nullopt);
}

TEST(ReferenceHistogram, RangeBins) {
  const std::vector<double> s{-1.0, 0.0, 0.5, 10.0};
  const ref::range_bins<double> b(s);
  EXPECT_EQ(b.bins(), 3u);
  EXPECT_EQ(b(-1.0), 0u);
  EXPECT_EQ(b(-0.5), 0u);
  EXPECT_EQ(b(0.0), 1u);
  EXPECT_EQ(b(0.49), 1u);
  EXPECT_EQ(b(0.5), 2u);
  EXPECT_EQ(b(9.99), 2u);
  EXPECT_EQ(b(10.0), std::nullopt);
  EXPECT_EQ(b(-1.01), std::nullopt);
  EXPECT_EQ(b(std::numeric_limits<double>::quiet_NaN()), std::nullopt);
  const auto h = ref::histogram<double>(std::vector<double>{-2, -1, 0, 0.25, 0.75, 10, 11}, b);
  EXPECT_TRUE(all_equal(h.counts, counts{1, 2, 1}));
  EXPECT_EQ(h.dropped, 3u);
  // One bin.
  const ref::range_bins<int> one(std::vector<int>{3, 4});
  EXPECT_EQ(one(3), 0u);
  EXPECT_EQ(one(4), std::nullopt);
}

TEST(ReferenceHistogram, RangeBinsRejectBadSplitters) {
  auto make = [](std::vector<double> s) { return [s] { (void)ref::range_bins<double>(s); }; };
  expect_invalid_argument(make({0.0, 1.0, 1.0, 2.0}), "splitters", 2);  // duplicate
  expect_invalid_argument(make({0.0, 2.0, 1.0}), "splitters", 2);       // decreasing
  expect_invalid_argument(make({0.0, std::numeric_limits<double>::quiet_NaN(), 1.0}), "splitters", 1);
  expect_invalid_argument(make({1.0}), "splitters", std::nullopt);
  expect_invalid_argument(make({}), "splitters", std::nullopt);
}

TEST(ReferenceHistogram, EvenBinsAgreeWithTheEquivalentRangeBins) {
  // Width 1000 in 8 bins of 125: splitters are exact multiples, so both binnings must agree everywhere.
  const ref::even_bins<std::int32_t> even{-500, 500, 8};
  std::vector<std::int32_t> s;
  for (std::int32_t x = -500; x <= 500; x += 125) s.push_back(x);
  const ref::range_bins<std::int32_t> range(s);
  std::mt19937_64 rng(13);
  std::vector<std::int32_t> samples(65536);
  for (auto& x : samples) x = static_cast<std::int32_t>(rng() % 1201) - 600;
  const auto a = ref::histogram<std::int32_t>(samples, even);
  const auto b = ref::histogram<std::int32_t>(samples, range);
  EXPECT_TRUE(all_equal(a.counts, b.counts));
  EXPECT_EQ(a.dropped, b.dropped);
  // And with brute-force counting.
  counts brute(8, 0);
  std::size_t outside = 0;
  for (std::int32_t x : samples) {
    if (x < -500 || x >= 500) ++outside;
    else ++brute[static_cast<std::size_t>((x + 500) / 125)];
  }
  EXPECT_TRUE(all_equal(a.counts, brute));
  EXPECT_EQ(a.dropped, outside);
}

TEST(ReferenceHistogram, FloatEvenBinsAreMonotoneAndCoverEveryBin) {
  const ref::even_bins<float> b{-3.0f, 7.0f, 37};
  std::size_t previous = 0;
  counts seen(37, 0);
  for (float x = -3.0f; x < 7.0f; x = std::nextafter(x, 8.0f) + 0.0001f) {
    const auto bin = b(x);
    ASSERT_TRUE(bin.has_value()) << x;
    ASSERT_GE(*bin, previous) << x;
    ASSERT_LT(*bin, 37u);
    previous = *bin;
    ++seen[*bin];
  }
  for (std::size_t i = 0; i < seen.size(); ++i) EXPECT_GT(seen[i], 0u) << "bin " << i;
}

struct parity_binning {  // a custom binning: even → 0, odd → 1, negative → out of range, 99 → a faulty bin
  [[nodiscard]] std::size_t bins() const { return 2; }
  [[nodiscard]] std::optional<std::size_t> operator()(int x) const {
    if (x == 99) return 5;
    if (x < 0) return std::nullopt;
    return static_cast<std::size_t>(x % 2);
  }
};

TEST(ReferenceHistogram, CustomBinningAndWeights) {
  const std::vector<int> samples{1, 2, 3, -4, 5, 99, 6};
  const auto h = ref::histogram<int>(samples, parity_binning{});
  EXPECT_TRUE(all_equal(h.counts, counts{2, 3}));
  EXPECT_EQ(h.dropped, 2u);
  const std::vector<double> w{0.5, 1.0, 2.0, 100.0, 4.0, 1000.0, 8.0};
  const auto wh = ref::weighted_histogram<int, double>(samples, w, parity_binning{});
  EXPECT_TRUE(all_equal(wh.sums, {9.0, 6.5}));
  EXPECT_EQ(wh.dropped, 2u);
  expect_invalid_argument(
      [&] { (void)ref::weighted_histogram<int, double>(samples, std::vector<double>{1.0}, parity_binning{}); },
      "weights", std::nullopt);
}

TEST(ReferenceHistogram, EmptyInput) {
  const std::vector<float> none;
  const auto h = ref::histogram<float>(none, ref::even_bins<float>{0.0f, 1.0f, 5});
  EXPECT_TRUE(all_equal(h.counts, counts(5, 0)));
  EXPECT_EQ(h.dropped, 0u);
  const auto w = ref::weighted_histogram<float, std::uint32_t>(none, std::vector<std::uint32_t>{},
                                                               ref::even_bins<float>{0.0f, 1.0f, 2});
  EXPECT_TRUE(all_equal(w.sums, std::vector<std::uint32_t>{0, 0}));
}

}  // namespace
