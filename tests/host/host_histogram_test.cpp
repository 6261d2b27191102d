// Tests of sluice::host::histogram and histogram_by against reference/histogram.hpp: even bins over
// integers and floats, range bins, a bin functor, every strategy, the size × distribution matrix,
// out-of-range samples, bad sizes, and host::even_bins / range_bins rejecting what the oracle's
// binnings reject. The expected counts come from the oracle's own binnings. Counts are poisoned twice.
#include <sluice/core/error.hpp>
#include <sluice/data/distributions.hpp>
#include <sluice/host/histogram.hpp>
#include <sluice/reference/histogram.hpp>

#include "host/host_test_matrix.hpp"
#include "support/compare.hpp"
#include "support/errors.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace {

namespace host = sluice::host;
namespace ref = sluice::reference;
namespace matrix = sluice::testing::host_matrix;
using sluice::testing::all_equal;
using sluice::testing::expect_invalid_argument;

std::vector<host::multireduce_options> strategies() {
  using algo = host::multireduce_algo;
  return {{}, {.algorithm = algo::naive}, {.algorithm = algo::privatized},
          {.algorithm = algo::partial_sort, .partial_sort_bits = 4}, {.algorithm = algo::partial_sort, .huge_pages = true}};
}

/// host::histogram under `binning` against the oracle's histogram under its own `oracle_binning`.
template <class T, class Binning, class OracleBinning>
void expect_histogram_matches(const std::vector<T>& samples, const Binning& binning,
                              const OracleBinning& oracle_binning, const std::string& context) {
  ASSERT_EQ(binning.bins(), oracle_binning.bins()) << context;
  const auto expected = ref::histogram<T>(samples, oracle_binning);
  std::vector<std::uint64_t> counts(binning.bins());
  for (const auto& options : strategies())
    for (unsigned char pattern : matrix::poison_patterns) {
      matrix::poison(std::span<std::uint64_t>(counts), pattern);
      const auto r = host::histogram<T>(samples, counts, binning, options);
      EXPECT_TRUE(all_equal(counts, expected.counts)) << context << ", " << host::to_string(options.algorithm);
      EXPECT_EQ(r.dropped, expected.dropped) << context;
    }
}

TEST(HostHistogram, EvenAndRangeBinsOverTheMatrix) {
  for (std::size_t n : matrix::sizes())
    for (const auto& d : matrix::distributions())
      for (std::size_t bins : {std::size_t{1}, std::size_t{33}, std::size_t{4096}}) {
        const std::string context = "n = " + std::to_string(n) + ", " + d.name + ", bins = " + std::to_string(bins);
        const auto ints = matrix::labels(n, 10000, d, 51);
        expect_histogram_matches(ints, host::even_bins<std::uint32_t>(100, 9000, bins),
                                 ref::even_bins<std::uint32_t>(100, 9000, bins), context + ", even u32");
        std::vector<float> floats(n);
        for (std::size_t i = 0; i < n; ++i) floats[i] = static_cast<float>(ints[i]) / 10000.0f - 0.1f;
        expect_histogram_matches(floats, host::even_bins<float>(0.0f, 0.8f, bins),
                                 ref::even_bins<float>(0.0f, 0.8f, bins), context + ", even f32");
      }
  std::vector<double> splitters{-1.0, 0.0, 0.001, 0.5, 0.75, 2.0};
  const auto samples = sluice::data::generate_host<double>((std::size_t{1} << 17) + 1,
                                                           {sluice::data::distribution::uniform, 0, 0, 52});
  expect_histogram_matches(samples, host::range_bins<double>(splitters), ref::range_bins<double>(splitters),
                           "range bins");
  const std::vector<double> odd{std::nan(""), -5.0, 2.0, 1.999, std::numeric_limits<double>::infinity(), 0.0};
  expect_histogram_matches(odd, host::range_bins<double>(splitters), ref::range_bins<double>(splitters),
                           "range bins, out of range");
}

TEST(HostHistogram, BinningsKeepTheirParametersAndBinLikeTheOracle) {
  const host::even_bins<std::int16_t> even(-300, 700, 7);
  EXPECT_EQ(even.lower(), -300);
  EXPECT_EQ(even.upper(), 700);
  EXPECT_EQ(even.bins(), 7u);
  const ref::even_bins<std::int16_t> oracle(-300, 700, 7);
  for (int x = std::numeric_limits<std::int16_t>::min(); x <= std::numeric_limits<std::int16_t>::max(); ++x)
    ASSERT_EQ(even(static_cast<std::int16_t>(x)), oracle(static_cast<std::int16_t>(x))) << x;
  const std::vector<float> splitters{-1.0f, 0.0f, 0.25f, 4.0f};
  const host::range_bins<float> range(splitters);
  const ref::range_bins<float> range_oracle(splitters);
  EXPECT_EQ(range.bins(), 3u);
  EXPECT_TRUE(all_equal(std::vector<float>(range.splitters().begin(), range.splitters().end()), splitters));
  for (float x : {-2.0f, -1.0f, -0.5f, 0.0f, 0.25f, 3.99f, 4.0f, 5.0f, std::nanf(""),
                  std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity()})
    EXPECT_EQ(range(x), range_oracle(x)) << x;
}

TEST(HostHistogram, BinningsRejectWhatTheOracleRejects) {
  expect_invalid_argument([] { (void)host::even_bins<int>(0, 10, 0); }, "bins");
  expect_invalid_argument([] { (void)host::even_bins<int>(10, 10, 4); }, "upper");
  expect_invalid_argument([] { (void)host::even_bins<int>(11, 10, 4); }, "upper");
  expect_invalid_argument([] { (void)host::even_bins<double>(0.0, std::nan(""), 4); }, "upper");
  expect_invalid_argument([] { (void)host::even_bins<std::uint64_t>(0, 10, std::size_t{1} << 32); }, "bins");
  EXPECT_EQ(host::even_bins<std::uint64_t>(0, 10, 0xffffffffu).bins(), 0xffffffffu);
  const std::vector<double> one{1.0}, flat{0.0, 1.0, 1.0, 2.0}, falling{0.0, 2.0, 1.0};
  expect_invalid_argument([&] { (void)host::range_bins<double>(one); }, "splitters");
  expect_invalid_argument([&] { (void)host::range_bins<double>(flat); }, "splitters", 2);
  expect_invalid_argument([&] { (void)host::range_bins<double>(falling); }, "splitters", 2);
}

TEST(HostHistogram, BinFunctor) {
  const std::size_t n = (std::size_t{1} << 17) + 3;
  const auto bytes = sluice::data::generate_host<std::uint8_t>(n, {sluice::data::distribution::zipf, 256, 1.1, 53});
  const auto bin_of = [](std::uint8_t b) { return static_cast<int>(b) - 6; };  // 0..5 map below 0: dropped
  std::vector<std::uint64_t> expected(250, 0);
  std::size_t dropped = 0;
  for (std::uint8_t b : bytes) {
    if (b < 6) ++dropped;
    else ++expected[b - 6];
  }
  std::vector<std::uint64_t> counts(250);
  for (const auto& options : strategies())
    for (unsigned char pattern : matrix::poison_patterns) {
      matrix::poison(std::span<std::uint64_t>(counts), pattern);
      const auto r = host::histogram_by<std::uint8_t>(bytes, counts, bin_of, options);
      EXPECT_TRUE(all_equal(counts, expected)) << host::to_string(options.algorithm);
      EXPECT_EQ(r.dropped, dropped);
    }
}

TEST(HostHistogram, BadSizes) {
  const std::vector<float> samples{0.5f};
  std::vector<std::uint64_t> counts(3), none;
  expect_invalid_argument(
      [&] { (void)host::histogram<float>(samples, counts, host::even_bins<float>(0.0f, 1.0f, 4)); }, "counts");
  expect_invalid_argument([&] { (void)host::histogram_by<float>(samples, none, [](float) { return 0; }); }, "counts");
}

}  // namespace
