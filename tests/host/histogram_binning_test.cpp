// Host tests of the histogram's bin lookups (core/binning.hpp, GPU and CPU backend) against the oracle's
// binnings (reference/histogram.hpp), value by value: even bins over every 8- and 16-bit value, 32- and
// 64-bit integers at random and on each side of every bin edge (the reciprocal estimate and its
// correction must give the exact quotient, also for bin counts far past 256), floats with their edge
// values, range bins by upper bound (directly, and through range cells of 2 to 2^16 cells over spread-out,
// clustered and type-spanning splitters, zeros of either sign, infinities and NaN), and bin functions
// returning negative or too-large bins.
#include <sluice/core/binning.hpp>
#include <sluice/reference/histogram.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <type_traits>
#include <vector>

namespace {

namespace h = sluice::detail;
namespace ref = sluice::reference;

/// The oracle's bin in the lookup's encoding (out of range: h::out_of_range).
template <class Binning, class T>
std::uint32_t oracle_bin(const Binning& binning, T x) {
  const std::optional<std::size_t> bin = binning(x);
  return bin ? static_cast<std::uint32_t>(*bin) : h::out_of_range;
}

template <class T>
void expect_even_matches(T lower, T upper, std::uint32_t bins, const std::vector<T>& samples) {
  const auto lookup = h::even_binning<T>::make(lower, upper, bins);
  const ref::even_bins<T> oracle(lower, upper, bins);
  for (T x : samples)
    ASSERT_EQ(lookup(x), oracle_bin(oracle, x)) << "x = " << +x << " over [" << +lower << ", " << +upper << ") in "
                                                << bins << " bins";
}

/// Every value of a small type.
template <class T>
std::vector<T> every_value() {
  std::vector<T> v;
  for (long long x = std::numeric_limits<T>::min(); x <= std::numeric_limits<T>::max(); ++x) v.push_back(static_cast<T>(x));
  return v;
}

TEST(HistogramBinning, EvenBinsOverEverySmallValue) {
  const auto bytes = every_value<std::uint8_t>();
  for (int lower : {0, 1, 37, 128, 254})
    for (int upper = lower + 1; upper <= 255; upper += 23)
      for (std::uint32_t bins : {1u, 2u, 3u, 7u, 32u, 100u, 255u, 256u, 1000u})
        expect_even_matches<std::uint8_t>(static_cast<std::uint8_t>(lower), static_cast<std::uint8_t>(upper), bins,
                                          bytes);
  const auto shorts = every_value<std::int16_t>();
  for (std::uint32_t bins : {1u, 3u, 7u, 100u, 255u, 256u, 65535u})
    expect_even_matches<std::int16_t>(std::numeric_limits<std::int16_t>::min(), std::numeric_limits<std::int16_t>::max(),
                                      bins, shorts);
}

/// Random values in [lower, upper) plus those on each side of every edge of the first and last 64 bins.
template <class T>
std::vector<T> around_edges(T lower, T upper, std::uint32_t bins, std::uint64_t seed) {
  using U = std::make_unsigned_t<T>;
  __extension__ using wide = unsigned __int128;
  const U width = static_cast<U>(static_cast<U>(upper) - static_cast<U>(lower));
  std::vector<T> v{lower, upper, static_cast<T>(upper - 1), std::numeric_limits<T>::min(), std::numeric_limits<T>::max()};
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 2000; ++i) v.push_back(static_cast<T>(static_cast<U>(lower) + static_cast<U>(rng() % width)));
  for (std::uint64_t b = 1; b < bins; ++b) {
    if (b > 64 && b + 64 < bins) b = bins - 64;
    // The first offset of bin b is ⌈b·width / bins⌉.
    const auto edge = static_cast<U>((wide{b} * width + bins - 1) / bins);
    for (U d : {U(0), U(1)}) {
      v.push_back(static_cast<T>(static_cast<U>(lower) + static_cast<U>(edge - d)));
      v.push_back(static_cast<T>(static_cast<U>(lower) + static_cast<U>(edge + d)));
    }
  }
  return v;
}

template <class T>
void expect_even_matches_around_edges(T lower, T upper) {
  for (std::uint32_t bins : {1u, 2u, 3u, 7u, 33u, 255u, 256u, 1000003u, 0x7fffffffu, 0xffffffffu})
    expect_even_matches<T>(lower, upper, bins, around_edges<T>(lower, upper, bins, bins));
}

/// Found by search: the double-precision estimate is one too low (19·1000/38 = 500 exactly) and one too
/// high; each correction step has its case.
TEST(HistogramBinning, EvenBinsCorrectTheEstimateBothWays) {
  expect_even_matches<std::uint32_t>(0, 38, 1000, {19});
  expect_even_matches<std::uint32_t>(0, 4107184499u, 3708074905u, {3981836972u});
  EXPECT_EQ(h::even_binning<std::uint32_t>::make(0, 38, 1000)(19), 500u);
  EXPECT_EQ(h::even_binning<std::uint32_t>::make(0, 4107184499u, 3708074905u)(3981836972u), 3594907838u);
}

TEST(HistogramBinning, EvenBinsOfWideIntegersAreExact) {
  expect_even_matches_around_edges<std::uint32_t>(0, 1000);
  expect_even_matches_around_edges<std::uint32_t>(100, 900);
  expect_even_matches_around_edges<std::uint32_t>(0, std::numeric_limits<std::uint32_t>::max());
  expect_even_matches_around_edges<std::uint32_t>(12345, 0xfffffff1u);
  expect_even_matches_around_edges<std::int32_t>(std::numeric_limits<std::int32_t>::min(),
                                                 std::numeric_limits<std::int32_t>::max());
  expect_even_matches_around_edges<std::int32_t>(-7, 1 << 30);
  expect_even_matches_around_edges<std::uint64_t>(1, std::numeric_limits<std::uint64_t>::max());
  expect_even_matches_around_edges<std::int64_t>(std::numeric_limits<std::int64_t>::min(), 5);
  expect_even_matches_around_edges<std::int64_t>(-1000, 1000);
}

template <class T>
std::vector<T> float_samples(T lower, T upper, std::uint64_t seed) {
  using L = std::numeric_limits<T>;
  std::vector<T> v{lower,         upper,          std::nextafter(upper, lower), std::nextafter(lower, upper),
                   std::nextafter(lower, -L::infinity()), L::infinity(), -L::infinity(), L::quiet_NaN(),
                   -L::quiet_NaN(), T(0),          -T(0)};
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 20000; ++i) {
    const T fraction = static_cast<T>(static_cast<double>(rng() >> 11) * 0x1p-53);
    v.push_back(lower + (upper - lower) * (fraction * T(1.2) - T(0.1)));
  }
  return v;
}

TEST(HistogramBinning, EvenBinsOfFloatsAreTheOraclesDoubleArithmetic) {
  for (std::uint32_t bins : {1u, 3u, 10u, 33u, 255u, 256u, 100000u}) {
    expect_even_matches<float>(-0.25f, 0.75f, bins, float_samples<float>(-0.25f, 0.75f, bins));
    expect_even_matches<float>(0.0f, 1024.0f, bins, float_samples<float>(0.0f, 1024.0f, bins));
    expect_even_matches<double>(-1.0 / 3, 2.0 / 3, bins, float_samples<double>(-1.0 / 3, 2.0 / 3, bins));
    expect_even_matches<double>(1e-300, 1e300, bins, float_samples<double>(1e-300, 1e300, bins));
  }
}

TEST(HistogramBinning, RangeBinsAreTheUpperBound) {
  std::mt19937_64 rng(3);
  for (std::uint32_t bins : {1u, 2u, 3u, 31u, 32u, 33u, 100u, 255u, 256u}) {
    std::vector<std::int32_t> levels;
    std::int32_t next = -5000;
    for (std::uint32_t i = 0; i <= bins; ++i) levels.push_back(next += 1 + static_cast<std::int32_t>(rng() % 40));
    const typename h::range_binning<std::int32_t>::lookup lookup{levels.data(), bins + 1};
    const ref::range_bins<std::int32_t> oracle{std::span<const std::int32_t>(levels)};
    for (std::int32_t x = levels.front() - 50; x <= levels.back() + 50; ++x)
      ASSERT_EQ(lookup(x), oracle_bin(oracle, x)) << "x = " << x << ", " << bins << " bins";
  }
  const std::vector<double> levels{-1.0, -0.0, 0.5, 2.0};
  const h::range_binning<double>::lookup lookup{levels.data(), 4};
  const ref::range_bins<double> oracle{std::span<const double>(levels)};
  for (double x : {-2.0, -1.0, -0.5, -0.0, 0.0, 0.25, 0.5, 1.0, 2.0, 3.0, std::nan(""),
                   std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()})
    EXPECT_EQ(lookup(x), oracle_bin(oracle, x)) << "x = " << x;
}

/// The range cells of `levels`, built serially with the device kernel's two functions, and their lookup.
template <class T>
struct host_range_cells {
  std::vector<std::uint32_t> counts;
  h::range_cell_lookup<T> lookup;

  host_range_cells(const std::vector<T>& levels, unsigned cells_log2) {
    const auto count = static_cast<std::uint32_t>(levels.size());
    const h::range_cell_plan<T> plan = h::plan_range_cells(levels.data(), count, cells_log2);
    for (std::uint32_t cell = 0; cell <= (1u << cells_log2); ++cell)
      counts.push_back(h::range_cell_count(levels.data(), count, plan, cell, cells_log2));
    lookup = {levels.data(), count, levels.front(), levels.back(), counts.data(), plan.first_key, plan.shift};
  }
};

template <class T>
void expect_range_cells_match(const std::vector<T>& levels, const std::vector<T>& samples, const char* what) {
  const ref::range_bins<T> oracle{std::span<const T>(levels)};
  for (unsigned cells_log2 : {1u, 4u, 8u, 16u}) {
    const host_range_cells<T> cells(levels, cells_log2);
    for (std::uint32_t c = 0; c < (1u << cells_log2); ++c) ASSERT_LE(cells.counts[c], cells.counts[c + 1]) << what;
    for (T x : samples)
      ASSERT_EQ(cells.lookup(x), oracle_bin(oracle, x)) << what << ": x = " << +x << ", 2^" << cells_log2 << " cells";
  }
}

/// Splitters and samples: every splitter, its neighbours, and random values past both ends.
template <class T>
std::vector<T> around(const std::vector<T>& levels, std::mt19937_64& rng, std::size_t random_count) {
  std::vector<T> v;
  for (T s : levels) {
    v.push_back(s);
    if constexpr (std::is_floating_point_v<T>) {
      v.push_back(std::nextafter(s, -std::numeric_limits<T>::infinity()));
      v.push_back(std::nextafter(s, std::numeric_limits<T>::infinity()));
    } else {
      if (s != std::numeric_limits<T>::min()) v.push_back(static_cast<T>(s - 1));
      if (s != std::numeric_limits<T>::max()) v.push_back(static_cast<T>(s + 1));
    }
  }
  const double low = static_cast<double>(levels.front()), high = static_cast<double>(levels.back());
  std::uniform_real_distribution<double> draw(low - (high - low) / 4, high + (high - low) / 4);
  for (std::size_t i = 0; i < random_count; ++i) {
    const double x = std::clamp(draw(rng), static_cast<double>(std::numeric_limits<T>::lowest()),
                                static_cast<double>(std::numeric_limits<T>::max()));
    v.push_back(static_cast<T>(x));
  }
  return v;
}

TEST(HistogramBinning, RangeCellsAreTheUpperBound) {
  std::mt19937_64 rng(5);
  // spread-out, clustered (a few wide gaps, most splitters in one cell) and at the type's ends
  for (std::uint32_t bins : {1u, 2u, 31u, 256u, 4096u}) {
    std::vector<std::int32_t> spread, clustered;
    std::int32_t next = -100000, close = 7;
    for (std::uint32_t i = 0; i <= bins; ++i) {
      spread.push_back(next += 1 + static_cast<std::int32_t>(rng() % 60));
      clustered.push_back(i + 2 == bins + 1 ? 1 << 30 : i + 1 == bins + 1 ? std::numeric_limits<std::int32_t>::max()
                                                                         : close++);
    }
    if (bins == 1) clustered = {std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max()};
    std::sort(clustered.begin(), clustered.end());
    expect_range_cells_match(spread, around(spread, rng, 2000), "spread int32");
    expect_range_cells_match(clustered, around(clustered, rng, 2000), "clustered int32");
  }
  const std::vector<std::uint64_t> wide{0, 1, 1u << 20, std::uint64_t{1} << 40, ~std::uint64_t{0} - 1, ~std::uint64_t{0}};
  expect_range_cells_match(wide, around(wide, rng, 2000), "uint64 to the top");
  const std::vector<std::int8_t> bytes{-128, -3, 0, 5, 127};
  expect_range_cells_match(bytes, around(bytes, rng, 200), "int8");
  // floats: a zero splitter, equal to −0.0 samples; tiny and huge magnitudes; infinities as splitters
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> reals{-inf, -1e300, -1.0, -1e-300, 0.0, 1e-310, 0.5, 2.0, 1e300, inf};
  auto samples = around(reals, rng, 2000);
  samples.insert(samples.end(), {-0.0, 0.0, std::nan(""), -std::nan(""), 1e-320, -1e-320});
  expect_range_cells_match(reals, samples, "double");
  const std::vector<float> negative_zero{-2.0f, -0.0f, 3.0f};
  expect_range_cells_match(negative_zero, {-2.0f, -1.0f, -0.0f, 0.0f, 1.0f, 3.0f, -3.0f}, "float, -0.0 splitter");
}

struct signed_id {
  int operator()(int x) const { return x; }
};
struct unsigned_id {
  std::uint64_t operator()(std::uint64_t x) const { return x; }
};

TEST(HistogramBinning, BinFunctionsOutsideTheBinsAreOutOfRange) {
  const h::functor_binning<signed_id> s{{}, 5};
  EXPECT_EQ(s(-1), h::out_of_range);
  EXPECT_EQ(s(std::numeric_limits<int>::min()), h::out_of_range);
  EXPECT_EQ(s(0), 0u);
  EXPECT_EQ(s(4), 4u);
  EXPECT_EQ(s(5), h::out_of_range);
  const h::functor_binning<unsigned_id> u{{}, 256};
  EXPECT_EQ(u(255), 255u);
  EXPECT_EQ(u(256), h::out_of_range);
  EXPECT_EQ(u(std::uint64_t{1} << 32), h::out_of_range);  // not truncated to 0
}

}  // namespace
