// GPU tests of histogram_even, histogram_range and histogram (bin function) against
// sluice::reference::histogram: bins 1 to 256 (one to eight count registers per lane, every ballot
// count), sizes around the warp window and the block step, uniform / all-equal / sorted / reverse / Zipf
// samples, integers of 1 to 8 bytes and floats with out-of-range samples (below, at upper, ±inf, NaN),
// 4- and 8-byte counters, accumulate, poisoned outputs, a count past 2^32, and bad arguments. Past 256
// bins (the multireduce-based strategies shared_per_bank and global_atomics, and automatic): even,
// range (splitters searched in global memory) and bin-function histograms up to 2^24 bins, every
// strategy on the same input, misaligned samples (the one-sample-per-load path), range splitters packed
// into one range cell or spanning the type. Weighted histograms (int
// and double weights, every strategy that takes them), sort_based across m and sizes, bank_trish and
// byte_counts on 1-byte samples (every bin count to 256, bin functions past 256 bins for byte_counts,
// misaligned starts, sizes that are not multiples of a word or a vector), coarse_bins (in every strategy sweep, and across m = 1 … 2^24, five shapes and sizes around its step).
#include <sluice/data/generate.cuh>
#include <sluice/histogram.cuh>
#include <sluice/reference/histogram.hpp>

#include "support/compare.hpp"
#include "support/errors.hpp"
#include "support/gpu_test.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace {

using sluice::testing::all_equal;
using sluice::testing::gpu_test;
namespace ref = sluice::reference;
namespace dist = sluice::data;

class Histogram : public gpu_test {};

/// One block step is 8 warps × 32 lanes × 8 windows = 2048 four-byte samples (4096 of one byte, 1024 of
/// eight): the sizes straddle a window, a step and a one-wave grid's worth of steps.
const std::size_t all_sizes[] = {0,    1,    31,   32,   33,   1023, 1024, 1025, 2047, 2048,
                                 2049, 4095, 4097, 100003, (std::size_t{1} << 22) + 3};
const std::vector<std::uint32_t> all_bin_counts{1, 2, 3, 7, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 200, 255, 256};
const dist::distribution shapes[] = {dist::distribution::uniform, dist::distribution::all_equal,
                                     dist::distribution::sorted, dist::distribution::reverse,
                                     dist::distribution::zipf};

/// Under a sanitizer: one size per path (empty, one sample, a partial window, steps and a remainder) and
/// bin counts of one, two, four and eight count registers, each a ballot count's edge.
std::vector<std::size_t> sizes() {
  return sluice::testing::under_sanitizer() ? std::vector<std::size_t>{0, 1, 33, 2049, 4097}
                                            : std::vector<std::size_t>(std::begin(all_sizes), std::end(all_sizes));
}
std::vector<std::uint32_t> bin_counts() {
  return sluice::testing::under_sanitizer() ? std::vector<std::uint32_t>{1, 33, 64, 129, 256} : all_bin_counts;
}

template <class T>
std::vector<T> generated(dist::distribution kind, std::size_t n, std::uint64_t range, std::uint64_t seed) {
  const double parameter = kind == dist::distribution::zipf ? 1.1 : 0.0;
  const std::uint64_t table_range = kind == dist::distribution::zipf && range == 0 ? 1000 : range;
  return dist::generate_host<T>(n, {kind, table_range, parameter, seed});
}

/// The oracle's counts in the counter type (modulo its width, as the device counts).
template <class Counter>
std::vector<Counter> as_counters(const std::vector<std::uint64_t>& counts) {
  std::vector<Counter> out(counts.size());
  std::transform(counts.begin(), counts.end(), out.begin(), [](std::uint64_t c) { return static_cast<Counter>(c); });
  return out;
}

/// Runs `call(bins_span)` on fresh poisoned bins (twice, two poisons) and compares with `expected`.
template <class Counter, class Call>
void expect_counts(sluice::context& ctx, std::size_t m, const std::vector<std::uint64_t>& expected, Call call,
                   const std::string& what) {
  sluice::device_buffer<Counter> bins(ctx, m);
  for (unsigned char poison : sluice::testing::poison_patterns) {
    bins.fill_bytes(poison);
    call(bins.span());
    ASSERT_TRUE(all_equal(bins.to_host(), as_counters<Counter>(expected))) << what;
  }
}

template <class T, class Counter = std::uint32_t>
void check_even(sluice::context& ctx, const std::vector<T>& host, T lower, T upper, std::uint32_t m,
                const std::string& what) {
  const sluice::device_buffer<T> samples(ctx, std::span<const T>(host));
  const auto expected = ref::histogram(std::span<const T>(host), ref::even_bins<T>(lower, upper, m)).counts;
  expect_counts<Counter>(ctx, m, expected, [&](cuda::std::span<Counter> bins) {
    sluice::histogram_even(ctx, samples.span(), bins, lower, upper);
  }, what + ", n = " + std::to_string(host.size()) + ", m = " + std::to_string(m));
}

TEST_F(Histogram, EvenU32AcrossBinCountsSizesAndShapes) {
  for (std::size_t n : sizes())
    for (auto shape : shapes)
      for (std::uint32_t m : bin_counts()) {
        // Samples in [0, 1000), bins over [100, 900): a fifth of the samples fall outside.
        const auto host = generated<std::uint32_t>(shape, n, 1000, n + m);
        check_even<std::uint32_t>(ctx(), host, 100, 900, m, std::string(dist::to_string(shape)));
      }
}

TEST_F(Histogram, EvenIntegersOfEveryWidth) {
  for (std::size_t n : sizes())
    for (std::uint32_t m : {1u, 5u, 32u, 97u, 256u}) {
      check_even<std::uint8_t>(ctx(), generated<std::uint8_t>(dist::distribution::uniform, n, 0, n + 1), 3, 250, m,
                               "u8");
      check_even<std::int16_t>(ctx(), generated<std::int16_t>(dist::distribution::uniform, n, 0, n + 2), -20000,
                               30000, m, "i16");
      check_even<std::int32_t>(ctx(), generated<std::int32_t>(dist::distribution::uniform, n, 0, n + 3),
                               std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max(),
                               m, "i32 over the whole type");
      check_even<std::uint64_t, std::uint64_t>(ctx(), generated<std::uint64_t>(dist::distribution::uniform, n, 0, n + 4),
                                               1, std::numeric_limits<std::uint64_t>::max(), m, "u64 near-full range");
      check_even<std::int64_t, std::int64_t>(ctx(), generated<std::int64_t>(dist::distribution::uniform, n, 0, n + 5),
                                             -(std::int64_t{1} << 62), std::int64_t{1} << 61, m, "i64");
    }
}

/// Floats in [0, 1), negated for a third, with every edge case sprinkled in.
template <class T>
std::vector<T> floats_with_edges(std::size_t n, std::uint64_t seed, T lower, T upper) {
  auto host = generated<T>(dist::distribution::uniform, n, 0, seed);
  const T specials[] = {lower, upper, std::nextafter(upper, lower), std::nextafter(lower, upper),
                        std::nextafter(lower, -std::numeric_limits<T>::infinity()),
                        std::numeric_limits<T>::infinity(), -std::numeric_limits<T>::infinity(),
                        std::numeric_limits<T>::quiet_NaN(), -std::numeric_limits<T>::quiet_NaN(), T(0), -T(0)};
  for (std::size_t i = 0; i < n; ++i) {
    if (i % 3 == 1) host[i] = -host[i];
    if (i % 13 == 0) host[i] = specials[(i / 13) % std::size(specials)];
  }
  return host;
}

TEST_F(Histogram, EvenFloatsDropWhatLiesOutsideAndClampTheTop) {
  for (std::size_t n : sizes())
    for (std::uint32_t m : {1u, 3u, 10u, 33u, 128u, 255u, 256u}) {
      check_even<float>(ctx(), floats_with_edges<float>(n, n + m, -0.25f, 0.75f), -0.25f, 0.75f, m, "f32");
      check_even<double, std::uint64_t>(ctx(), floats_with_edges<double>(n, n + m, -1.0 / 3, 2.0 / 3), -1.0 / 3,
                                        2.0 / 3, m, "f64");
    }
}

/// m + 1 strictly increasing splitters drawn from [0, range).
template <class T>
std::vector<T> splitters(std::uint32_t m, std::uint64_t range, std::uint64_t seed) {
  std::vector<T> s;
  for (std::uint64_t attempt = 0; s.size() < m + 1; ++attempt) {
    auto draw = generated<T>(dist::distribution::uniform, 4 * (m + 1), range, seed + 7919 * attempt);
    s.insert(s.end(), draw.begin(), draw.end());
    std::sort(s.begin(), s.end());
    s.erase(std::unique(s.begin(), s.end()), s.end());
  }
  // Keep the extremes so that some samples fall below and above; thin the middle evenly.
  std::vector<T> kept(m + 1);
  for (std::uint32_t i = 0; i <= m; ++i) kept[i] = s[static_cast<std::size_t>(i) * (s.size() - 1) / m];
  return kept;
}

template <class T, class Counter = std::uint32_t>
void check_range(sluice::context& ctx, const std::vector<T>& host, const std::vector<T>& levels,
                 const std::string& what) {
  const sluice::device_buffer<T> samples(ctx, std::span<const T>(host));
  const sluice::device_buffer<T> d_levels(ctx, std::span<const T>(levels));
  const auto expected = ref::histogram(std::span<const T>(host), ref::range_bins<T>(std::span<const T>(levels))).counts;
  expect_counts<Counter>(ctx, levels.size() - 1, expected, [&](cuda::std::span<Counter> bins) {
    sluice::histogram_range(ctx, samples.span(), d_levels.span(), bins);
  }, what + ", n = " + std::to_string(host.size()) + ", m = " + std::to_string(levels.size() - 1));
}

TEST_F(Histogram, RangeAcrossBinCountsSizesAndShapes) {
  for (std::size_t n : sizes())
    for (auto shape : shapes)
      for (std::uint32_t m : bin_counts()) {
        const auto host = generated<std::uint32_t>(shape, n, 100000, n + m);
        auto levels = splitters<std::uint32_t>(m, 100000, n * 31 + m);
        check_range<std::uint32_t>(ctx(), host, levels, std::string(dist::to_string(shape)) + " u32");
      }
}

TEST_F(Histogram, RangeFloatsWithEdges) {
  for (std::size_t n : sizes())
    for (std::uint32_t m : {1u, 2u, 31u, 64u, 256u}) {
      auto levels = splitters<float>(m, 0, n + m);
      for (float& level : levels) level = 2 * level - 1;  // [-1, 1): negative samples are in range too
      check_range<float>(ctx(), floats_with_edges<float>(n, n + 2 * m, levels.front(), levels.back()), levels, "f32");
      auto wide = splitters<double>(m, 0, n + 3 * m);
      check_range<double, std::uint64_t>(ctx(), floats_with_edges<double>(n, n + 4 * m, wide.front(), wide.back()),
                                         wide, "f64");
    }
}

/// A bin function that also returns negative and too-large bins: x mod 11 − 2 over m = 7 bins.
struct mod_eleven_minus_two {
  __host__ __device__ int operator()(std::uint32_t x) const { return static_cast<int>(x % 11) - 2; }
};
/// The same bins for the oracle.
struct oracle_binning {
  std::size_t m;
  [[nodiscard]] std::size_t bins() const { return m; }
  std::optional<std::size_t> operator()(std::uint32_t x) const {
    const int id = mod_eleven_minus_two{}(x);
    return id < 0 ? std::nullopt : std::optional<std::size_t>(static_cast<std::size_t>(id));
  }
};

/// A sample type that is not a number: the bin function reads one of its fields.
struct event {
  std::uint16_t kind;
  std::uint16_t flags;
  float weight;
};
struct kind_of {
  __host__ __device__ unsigned long long operator()(const event& e) const { return e.kind; }
};

TEST_F(Histogram, BinFunctionDropsNegativeAndTooLargeBins) {
  for (std::size_t n : sizes())
    for (std::uint32_t m : {1u, 7u, 9u, 200u}) {
      const auto host = generated<std::uint32_t>(dist::distribution::uniform, n, 0, n + m);
      const sluice::device_buffer<std::uint32_t> samples(ctx(), std::span<const std::uint32_t>(host));
      const auto expected = ref::histogram(std::span<const std::uint32_t>(host), oracle_binning{m}).counts;
      expect_counts<std::int32_t>(ctx(), m, expected, [&](cuda::std::span<std::int32_t> bins) {
        sluice::histogram(ctx(), samples.span(), bins, mod_eleven_minus_two{});
      }, "x mod 11 - 2, n = " + std::to_string(n) + ", m = " + std::to_string(m));
    }
}

TEST_F(Histogram, BinFunctionOverStructSamples) {
  for (std::size_t n : sizes()) {
    const auto kinds = generated<std::uint16_t>(dist::distribution::zipf, n, 300, n + 9);
    std::vector<event> host(n);
    std::vector<std::uint64_t> expected(256, 0);
    for (std::size_t i = 0; i < n; ++i) {
      host[i] = {kinds[i], static_cast<std::uint16_t>(i), 0.5f};
      if (kinds[i] < 256) ++expected[kinds[i]];
    }
    const sluice::device_buffer<event> samples(ctx(), std::span<const event>(host));
    expect_counts<std::uint64_t>(ctx(), 256, expected, [&](cuda::std::span<std::uint64_t> bins) {
      sluice::histogram(ctx(), samples.span(), bins, kind_of{});
    }, "struct samples, n = " + std::to_string(n));
  }
}

TEST_F(Histogram, AccumulateAddsToTheCountsThere) {
  for (std::size_t n : sizes())
    for (std::uint32_t m : {1u, 33u, 256u}) {
      const auto host = generated<std::uint32_t>(dist::distribution::uniform, n, 5000, n + m);
      const sluice::device_buffer<std::uint32_t> samples(ctx(), std::span<const std::uint32_t>(host));
      std::vector<std::uint64_t> start(m);
      for (std::uint32_t b = 0; b < m; ++b) start[b] = 1000u * b + 17u;
      const auto counts =
          ref::histogram(std::span<const std::uint32_t>(host), ref::even_bins<std::uint32_t>(0, 4000, m)).counts;
      std::vector<std::uint64_t> expected(m);
      for (std::uint32_t b = 0; b < m; ++b) expected[b] = start[b] + 2 * counts[b];
      sluice::device_buffer<std::uint64_t> bins(ctx(), std::span<const std::uint64_t>(start));
      for (int twice = 0; twice < 2; ++twice)
        sluice::histogram_even(ctx(), samples.span(), bins.span(), 0u, 4000u, {.accumulate = true});
      ASSERT_TRUE(all_equal(bins.to_host(), expected)) << "n = " << n << ", m = " << m;
    }
}

TEST_F(Histogram, ExplicitWarpBallotEqualsAutomatic) {
  const auto host = generated<std::uint32_t>(dist::distribution::uniform, 100003, 1 << 20, 5);
  const sluice::device_buffer<std::uint32_t> samples(ctx(), std::span<const std::uint32_t>(host));
  const auto expected =
      ref::histogram(std::span<const std::uint32_t>(host), ref::even_bins<std::uint32_t>(0, 1u << 20, 77)).counts;
  expect_counts<std::uint32_t>(ctx(), 77, expected, [&](cuda::std::span<std::uint32_t> bins) {
    sluice::histogram_even(ctx(), samples.span(), bins, 0u, 1u << 20,
                           {.algorithm = sluice::histogram_algorithm::warp_ballot});
  }, "warp_ballot");
}

/// 2^32 + 5 one-byte samples, all 7: one bin's count passes 32 bits, and the grid must split the input so
/// that no block's 32-bit counters wrap.
TEST_F(Histogram, CountsPast32Bits) {
  if (sluice::testing::under_sanitizer()) GTEST_SKIP() << "4 GiB of samples: too slow instrumented";
  const std::size_t n = (std::size_t{1} << 32) + 5;
  sluice::device_buffer<std::uint8_t> samples(ctx(), n);
  samples.fill_bytes(7);
  std::vector<std::uint64_t> expected(16, 0);
  expected[7] = n;
  expect_counts<std::uint64_t>(ctx(), 16, expected, [&](cuda::std::span<std::uint64_t> bins) {
    sluice::histogram_even(ctx(), samples.span(), bins, std::uint8_t{0}, std::uint8_t{16});
  }, "2^32 + 5 equal samples");
}

struct truncate {
  __host__ __device__ int operator()(float x) const { return static_cast<int>(x); }
};

/// Every strategy that can count m bins, and automatic.
std::vector<sluice::histogram_algorithm> strategies_for(std::uint32_t m, bool shared_fits) {
  std::vector<sluice::histogram_algorithm> all{sluice::histogram_algorithm::automatic,
                                               sluice::histogram_algorithm::global_atomics,
                                               sluice::histogram_algorithm::sort_based,
                                               sluice::histogram_algorithm::coarse_bins};
  if (m <= 256) all.push_back(sluice::histogram_algorithm::warp_ballot);
  if (shared_fits) all.push_back(sluice::histogram_algorithm::shared_per_bank);
  return all;
}

const char* name_of(sluice::histogram_algorithm a) {
  switch (a) {
    case sluice::histogram_algorithm::automatic: return "automatic";
    case sluice::histogram_algorithm::warp_ballot: return "warp_ballot";
    case sluice::histogram_algorithm::shared_per_bank: return "shared_per_bank";
    case sluice::histogram_algorithm::global_atomics: return "global_atomics";
    case sluice::histogram_algorithm::bank_trish: return "bank_trish";
    case sluice::histogram_algorithm::sort_based: return "sort_based";
    case sluice::histogram_algorithm::coarse_bins: return "coarse_bins";
    case sluice::histogram_algorithm::byte_counts: return "byte_counts";
  }
  return "?";
}

struct identity_bin {
  __host__ __device__ std::uint32_t operator()(std::uint32_t x) const { return x; }
};

struct flag_bin {
  __host__ __device__ int operator()(bool b) const { return b ? 1 : 0; }
};

TEST_F(Histogram, BadArgumentsAreRejected) {
  sluice::device_buffer<float> samples(ctx(), 100);
  sluice::device_buffer<std::uint32_t> bins(ctx(), 10), none(ctx(), 0), too_many(ctx(), 257);
  sluice::device_buffer<float> levels(ctx(), 10);
  std::vector<float> host(100);
  const cuda::std::span<float> host_samples(host.data(), host.size());
  using sluice::testing::expect_invalid_argument;
  expect_invalid_argument([&] { sluice::histogram_even(ctx(), samples.span(), none.span(), 0.0f, 1.0f); }, "bins");
  expect_invalid_argument(
      [&] {
        sluice::histogram_even(ctx(), samples.span(), too_many.span(), 0.0f, 1.0f,
                               {.algorithm = sluice::histogram_algorithm::warp_ballot});
      },
      "options");
  expect_invalid_argument([&] { sluice::histogram_even(ctx(), samples.span(), bins.span(), 1.0f, 1.0f); }, "upper");
  expect_invalid_argument(
      [&] { sluice::histogram_even(ctx(), samples.span(), bins.span(), 0.0f, std::nanf("")); }, "upper");
  expect_invalid_argument([&] { sluice::histogram_even(ctx(), host_samples, bins.span(), 0.0f, 1.0f); }, "samples");
  expect_invalid_argument([&] { sluice::histogram_range(ctx(), samples.span(), levels.span(), bins.span()); },
                          "splitters");
  sluice::device_buffer<std::uint32_t> beyond_shared(ctx(), std::size_t{1} << 20);
  expect_invalid_argument(
      [&] {
        sluice::histogram(ctx(), samples.span(), beyond_shared.span(), truncate{},
                          {.algorithm = sluice::histogram_algorithm::shared_per_bank});
      },
      "options");
  sluice::device_buffer<std::uint32_t> shared(ctx(), 100);
  expect_invalid_argument(
      [&] { sluice::histogram_even(ctx(), shared.span(), shared.span().first(10), 0u, 10u); }, "bins");

  // weights
  sluice::device_buffer<float> weights(ctx(), 100), short_weights(ctx(), 99), sums(ctx(), 10);
  std::vector<float> host_weights(100);
  const cuda::std::span<float> host_weight_span(host_weights.data(), host_weights.size());
  expect_invalid_argument(
      [&] { sluice::histogram_even(ctx(), samples.span(), short_weights.span(), sums.span(), 0.0f, 1.0f); }, "weights");
  expect_invalid_argument(
      [&] { sluice::histogram_even(ctx(), samples.span(), host_weight_span, sums.span(), 0.0f, 1.0f); }, "weights");
  expect_invalid_argument(
      [&] { sluice::histogram_even(ctx(), samples.span(), weights.span(), weights.span().first(10), 0.0f, 1.0f); },
      "bins");
  for (auto a : {sluice::histogram_algorithm::warp_ballot, sluice::histogram_algorithm::bank_trish,
                 sluice::histogram_algorithm::byte_counts})
    expect_invalid_argument(
        [&] { sluice::histogram_even(ctx(), samples.span(), weights.span(), sums.span(), 0.0f, 1.0f, {.algorithm = a}); },
        "options");
  // bank_trish: 1-byte samples, at most 256 bins
  const auto trish = sluice::histogram_options{.algorithm = sluice::histogram_algorithm::bank_trish};
  expect_invalid_argument([&] { sluice::histogram_even(ctx(), samples.span(), bins.span(), 0.0f, 1.0f, trish); },
                          "options");
  sluice::device_buffer<std::uint8_t> bytes(ctx(), 100);
  expect_invalid_argument(
      [&] { sluice::histogram_even(ctx(), bytes.span(), too_many.span(), std::uint8_t{0}, std::uint8_t{255}, trish); },
      "options");
  // byte_counts: 1-byte samples other than bool, unweighted (any m)
  const auto by_value = sluice::histogram_options{.algorithm = sluice::histogram_algorithm::byte_counts};
  expect_invalid_argument([&] { sluice::histogram_even(ctx(), samples.span(), bins.span(), 0.0f, 1.0f, by_value); },
                          "options");
  sluice::device_buffer<bool> flags(ctx(), 100);
  for (auto a : {sluice::histogram_algorithm::bank_trish, sluice::histogram_algorithm::byte_counts})
    expect_invalid_argument(
        [&] {
          sluice::histogram(ctx(), flags.span(), bins.span(), flag_bin{}, {.algorithm = a});
        },
        "options");
}

/// Weights as values: integer sums exact, float sums within rounding, every strategy that takes weights.
TEST_F(Histogram, WeightedSumsEveryStrategy) {
  const std::vector<sluice::histogram_algorithm> weighted{
      sluice::histogram_algorithm::automatic, sluice::histogram_algorithm::shared_per_bank,
      sluice::histogram_algorithm::global_atomics, sluice::histogram_algorithm::sort_based,
      sluice::histogram_algorithm::coarse_bins};
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{33}, std::size_t{1025}, std::size_t{100003}})
    for (std::uint32_t m : {1u, 7u, 256u, 5000u}) {
      const auto host = generated<std::uint32_t>(dist::distribution::zipf, n, m + m / 4 + 1, n + m);
      const auto int_weights = generated<std::uint32_t>(dist::distribution::uniform, n, 1000, n * 3 + m);
      std::vector<double> float_weights(n);
      std::transform(int_weights.begin(), int_weights.end(), float_weights.begin(),
                     [](std::uint32_t w) { return w / 7.0 - 50.0; });
      const sluice::device_buffer<std::uint32_t> samples(ctx(), std::span<const std::uint32_t>(host));
      const sluice::device_buffer<std::uint32_t> d_int(ctx(), std::span<const std::uint32_t>(int_weights));
      const sluice::device_buffer<double> d_float(ctx(), std::span<const double>(float_weights));
      const auto binning = ref::even_bins<std::uint32_t>(0, m, m);
      const auto int_expected =
          ref::weighted_histogram(std::span<const std::uint32_t>(host), std::span<const std::uint32_t>(int_weights),
                                  binning).sums;
      const auto float_expected =
          ref::weighted_histogram(std::span<const std::uint32_t>(host), std::span<const double>(float_weights),
                                  binning).sums;
      for (auto a : weighted) {
        const std::string what = std::string(name_of(a)) + ", n = " + std::to_string(n) + ", m = " + std::to_string(m);
        sluice::device_buffer<std::uint32_t> sums(ctx(), m);
        sluice::histogram_even(ctx(), samples.span(), d_int.span(), sums.span(), 0u, m, {.algorithm = a});
        EXPECT_TRUE(all_equal(sums.to_host(), int_expected)) << what;
        sluice::device_buffer<double> float_sums(ctx(), m);
        sluice::histogram(ctx(), samples.span(), d_float.span(), float_sums.span(), identity_bin{}, {.algorithm = a});
        EXPECT_TRUE(sluice::testing::all_near(float_sums.to_host(), float_expected, 1e-8)) << what;
      }
    }
}

/// sort_based across bin counts and sizes, a tenth of the samples outside the bins.
TEST_F(Histogram, SortBasedAcrossBinCountsAndSizes) {
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{33}, std::size_t{1023}, std::size_t{1025},
                        std::size_t{100003}})
    for (std::uint32_t m : {1u, 2u, 255u, 256u, 4096u, 1u << 20})
      for (auto shape : {dist::distribution::uniform, dist::distribution::all_equal}) {
        const auto host = generated<std::uint32_t>(shape, n, m + m / 10 + 1, n + m);
        const sluice::device_buffer<std::uint32_t> samples(ctx(), std::span<const std::uint32_t>(host));
        const auto expected =
            ref::histogram(std::span<const std::uint32_t>(host), ref::even_bins<std::uint32_t>(0, m, m)).counts;
        expect_counts<std::uint64_t>(ctx(), m, expected, [&](cuda::std::span<std::uint64_t> bins) {
          sluice::histogram_even(ctx(), samples.span(), bins, 0u, m,
                                 {.algorithm = sluice::histogram_algorithm::sort_based});
        }, std::string("sort_based ") + std::string(dist::to_string(shape)) + ", n = " + std::to_string(n) +
               ", m = " + std::to_string(m));
      }
}

/// A strategy that counts 1-byte samples, on every bin count of the brief, sizes that are not multiples
/// of a word, a vector or a tile, starting pointers at every offset within a load, all-equal, sorted and
/// uniform samples and samples outside the bins ([3, 250) leaves 9 byte values out).
struct byte_value_bin {
  __host__ __device__ int operator()(std::uint8_t x) const { return x; }
};

void expect_byte_histograms(sluice::context& ctx, sluice::histogram_algorithm algorithm, std::size_t tile,
                            std::size_t load_bytes) {
  const std::size_t byte_sizes[] = {0, 1, 2, 3, 4, 5, 15, 16, 17, 33, 1023, 1025, tile - 1, tile + 5, 3 * tile + 7,
                                    100003, sluice::testing::scaled_size((std::size_t{1} << 22) + 3, 4099)};
  const auto options = sluice::histogram_options{.algorithm = algorithm};
  // Under a sanitizer: sizes up to 2^15, the aligned and the most misaligned start, the m that change
  // the counter packing (1, 5, 64, 256).
  const bool thin = sluice::testing::under_sanitizer();
  std::vector<std::size_t> offsets{0, load_bytes - 1};
  if (!thin)
    for (std::size_t offset = 1; offset + 1 < load_bytes; offset += load_bytes > 4 ? 3 : 1) offsets.push_back(offset);
  const auto bin_counts = thin ? std::vector<std::uint32_t>{1, 5, 64, 256}
                               : std::vector<std::uint32_t>{1, 2, 3, 4, 5, 64, 255, 256};
  for (std::size_t n : sluice::testing::sweep_sizes(byte_sizes))
    for (auto shape : {dist::distribution::uniform, dist::distribution::all_equal, dist::distribution::sorted})
      for (std::size_t offset : offsets) {
        const auto all = generated<std::uint8_t>(shape, n + offset, 0, n + offset);
        const auto host = std::span<const std::uint8_t>(all).subspan(offset);
        const sluice::device_buffer<std::uint8_t> samples(ctx, std::span<const std::uint8_t>(all));
        const auto input = samples.span().subspan(offset);
        for (std::uint32_t m : bin_counts) {
          const std::string what = std::string(name_of(algorithm)) + ", " + std::string(dist::to_string(shape)) +
                                   ", n = " + std::to_string(n) + ", offset = " + std::to_string(offset) +
                                   ", m = " + std::to_string(m);
          const auto expected = ref::histogram(host, ref::even_bins<std::uint8_t>(3, 250, m)).counts;
          expect_counts<std::uint32_t>(ctx, m, expected, [&](cuda::std::span<std::uint32_t> bins) {
            sluice::histogram_even(ctx, input, bins, std::uint8_t{3}, std::uint8_t{250}, options);
          }, "even " + what);
          std::vector<std::uint64_t> by_value(m, 0);
          for (std::uint8_t x : host)
            if (x < m) ++by_value[x];
          expect_counts<std::int64_t>(ctx, m, by_value, [&](cuda::std::span<std::int64_t> bins) {
            sluice::histogram(ctx, input, bins, byte_value_bin{}, options);
          }, "bin function " + what);
        }
      }
}

TEST_F(Histogram, BankTrishOnBytes) {
  expect_byte_histograms(ctx(), sluice::histogram_algorithm::bank_trish, 512 * 7 * 4, 4);
}

TEST_F(Histogram, ByteCountsOnBytes) {
  for (auto a : {sluice::histogram_algorithm::byte_counts, sluice::histogram_algorithm::automatic})
    expect_byte_histograms(ctx(), a, 512 * 4 * 16, 16);
}

/// byte_counts takes any m: a bin function that spreads the 256 values over 1000 bins (several values to
/// one bin, most bins empty, some values out of range), and 2^20 bins; accumulated into 8-byte counters.
struct spread_bin {
  __host__ __device__ int operator()(std::uint8_t x) const { return x % 7 == 0 ? -1 : x * 37 % 1000; }
};

TEST_F(Histogram, ByteCountsPastTheByteValues) {
  const std::size_t n = sluice::testing::scaled_size(1000003, 40009);
  for (auto shape : {dist::distribution::uniform, dist::distribution::zipf, dist::distribution::all_equal}) {
    const auto host = generated<std::uint8_t>(shape, n, 256, n + 11);
    const sluice::device_buffer<std::uint8_t> samples(ctx(), std::span<const std::uint8_t>(host));
    for (std::uint32_t m : {1000u, 1u << 20}) {
      std::vector<std::uint64_t> expected(m, 5);  // the counts already there, accumulated into
      for (std::uint8_t x : host)
        if (const int bin = spread_bin{}(x); bin >= 0 && static_cast<std::uint32_t>(bin) < m) ++expected[bin];
      const std::vector<std::uint64_t> before(m, 5);
      sluice::device_buffer<std::uint64_t> bins(ctx(), std::span<const std::uint64_t>(before));
      sluice::histogram(ctx(), samples.span(), bins.span(), spread_bin{},
                        {.algorithm = sluice::histogram_algorithm::byte_counts, .accumulate = true});
      EXPECT_TRUE(all_equal(bins.to_host(), expected)) << dist::to_string(shape) << ", m = " << m;
    }
  }
}

TEST_F(Histogram, BankTrishSignedBytesAndRangeBins) {
  const std::size_t n = 100003;
  const auto host = generated<std::int8_t>(dist::distribution::uniform, n, 0, 5);
  const sluice::device_buffer<std::int8_t> samples(ctx(), std::span<const std::int8_t>(host));
  const auto trish = sluice::histogram_options{.algorithm = sluice::histogram_algorithm::bank_trish};
  for (std::uint32_t m : {1u, 5u, 64u, 255u}) {
    const auto expected =
        ref::histogram(std::span<const std::int8_t>(host), ref::even_bins<std::int8_t>(-100, 120, m)).counts;
    expect_counts<std::uint32_t>(ctx(), m, expected, [&](cuda::std::span<std::uint32_t> bins) {
      sluice::histogram_even(ctx(), samples.span(), bins, std::int8_t{-100}, std::int8_t{120}, trish);
    }, "i8 even, m = " + std::to_string(m));
    std::vector<std::int8_t> levels(m + 1);
    for (std::uint32_t b = 0; b <= m; ++b) levels[b] = static_cast<std::int8_t>(-128 + static_cast<int>(b));
    const sluice::device_buffer<std::int8_t> d_levels(ctx(), std::span<const std::int8_t>(levels));
    const auto by_range =
        ref::histogram(std::span<const std::int8_t>(host), ref::range_bins<std::int8_t>(std::span(levels))).counts;
    expect_counts<std::uint32_t>(ctx(), m, by_range, [&](cuda::std::span<std::uint32_t> bins) {
      sluice::histogram_range(ctx(), samples.span(), d_levels.span(), bins, trish);
    }, "i8 range, m = " + std::to_string(m));
  }
}

/// Bin counts past the warp ballots: per-bank set counts 32 … 1, and beyond one block (2^16, 2^20).
std::vector<std::uint32_t> many_bin_counts() {
  return sluice::testing::under_sanitizer() ? std::vector<std::uint32_t>{257, 4096, 1u << 16}
                                            : std::vector<std::uint32_t>{3, 32, 257, 1000, 4096, 5000, 30000,
                                                                         1u << 16, 1u << 20};
}
std::vector<std::size_t> many_bin_sizes() {
  return sluice::testing::under_sanitizer() ? std::vector<std::size_t>{0, 1, 4099}
                                            : std::vector<std::size_t>{0, 1, 3, 4097, 100003, (1u << 21) + 7};
}

TEST_F(Histogram, EvenPastTheWarpBallotsEveryStrategy) {
  for (std::size_t n : many_bin_sizes())
    for (auto shape : shapes)
      for (std::uint32_t m : many_bin_counts()) {
        const auto host = generated<std::uint32_t>(shape, n, 1u << 20, n + m);
        const sluice::device_buffer<std::uint32_t> samples(ctx(), std::span<const std::uint32_t>(host));
        const std::uint32_t lower = 1000, upper = (1u << 20) - 1000;
        const auto expected =
            ref::histogram(std::span<const std::uint32_t>(host), ref::even_bins<std::uint32_t>(lower, upper, m)).counts;
        for (auto a : strategies_for(m, m <= 30000))
          expect_counts<std::uint32_t>(ctx(), m, expected, [&](cuda::std::span<std::uint32_t> bins) {
            sluice::histogram_even(ctx(), samples.span(), bins, lower, upper, {.algorithm = a});
          }, std::string(name_of(a)) + " " + std::string(dist::to_string(shape)) + ", n = " + std::to_string(n) +
                 ", m = " + std::to_string(m));
      }
}

TEST_F(Histogram, RangePastTheWarpBallotsEveryStrategy) {
  for (std::size_t n : many_bin_sizes())
    for (std::uint32_t m : {257u, 4096u, 20000u}) {
      const auto host = generated<std::uint32_t>(dist::distribution::uniform, n, 1u << 24, n + m);
      const auto levels = splitters<std::uint32_t>(m, 1u << 24, n * 7 + m);
      const sluice::device_buffer<std::uint32_t> samples(ctx(), std::span<const std::uint32_t>(host));
      const sluice::device_buffer<std::uint32_t> d_levels(ctx(), std::span<const std::uint32_t>(levels));
      const auto expected =
          ref::histogram(std::span<const std::uint32_t>(host), ref::range_bins<std::uint32_t>(std::span(levels))).counts;
      for (auto a : strategies_for(m, true))
        expect_counts<std::uint64_t>(ctx(), m, expected, [&](cuda::std::span<std::uint64_t> bins) {
          sluice::histogram_range(ctx(), samples.span(), d_levels.span(), bins, {.algorithm = a});
        }, std::string(name_of(a)) + " range, n = " + std::to_string(n) + ", m = " + std::to_string(m));
    }
}

/// Range cells (core/binning.hpp) on splitters they cannot spread: most splitters packed into one cell
/// with the rest at the type's ends (int64: the 64-bit keys), and double splitters from −inf to +inf with
/// a −0.0 splitter and ±0.0 samples; every strategy, m past and below 256.
TEST_F(Histogram, RangeOnClusteredSplittersEveryStrategy) {
  const std::size_t n = sluice::testing::scaled_size(200003, 4099);
  for (std::uint32_t m : {40u, 300u, 5000u}) {
    std::vector<std::int64_t> levels{std::numeric_limits<std::int64_t>::min() + 1};
    for (std::uint32_t i = 1; i + 1 < m; ++i) levels.push_back(1000 + 3 * static_cast<std::int64_t>(i));
    levels.push_back(std::int64_t{1} << 50);
    levels.push_back(std::numeric_limits<std::int64_t>::max());
    auto host = generated<std::int64_t>(dist::distribution::uniform, n, 0, n + m);
    for (std::size_t i = 0; i < n; i += 2) host[i] = 990 + static_cast<std::int64_t>(host[i] % (3 * m + 20));
    host[0] = std::numeric_limits<std::int64_t>::min();
    host[1] = std::numeric_limits<std::int64_t>::max();
    const sluice::device_buffer<std::int64_t> samples(ctx(), std::span<const std::int64_t>(host));
    const sluice::device_buffer<std::int64_t> d_levels(ctx(), std::span<const std::int64_t>(levels));
    const auto expected =
        ref::histogram(std::span<const std::int64_t>(host), ref::range_bins<std::int64_t>(std::span(levels))).counts;
    for (auto a : strategies_for(m, true))
      expect_counts<std::uint64_t>(ctx(), m, expected, [&](cuda::std::span<std::uint64_t> bins) {
        sluice::histogram_range(ctx(), samples.span(), d_levels.span(), bins, {.algorithm = a});
      }, std::string(name_of(a)) + " clustered i64 range, m = " + std::to_string(m));

    const double inf = std::numeric_limits<double>::infinity();
    std::vector<double> reals{-inf, -0.0};
    for (std::uint32_t i = 2; i + 1 < m; ++i) reals.push_back(std::ldexp(1.0, static_cast<int>(i % 2000) - 1000) + i);
    std::sort(reals.begin() + 2, reals.end());
    reals.erase(std::unique(reals.begin(), reals.end()), reals.end());
    reals.push_back(inf);
    auto values = floats_with_edges<double>(n, n + 5 * m, -1e300, 1e300);
    for (std::size_t i = 0; i < n; i += 3) values[i] = i % 2 ? -0.0 : 0.0;
    const sluice::device_buffer<double> real_samples(ctx(), std::span<const double>(values));
    const sluice::device_buffer<double> d_reals(ctx(), std::span<const double>(reals));
    const auto real_expected =
        ref::histogram(std::span<const double>(values), ref::range_bins<double>(std::span(reals))).counts;
    for (auto a : strategies_for(static_cast<std::uint32_t>(reals.size() - 1), true))
      expect_counts<std::uint64_t>(ctx(), reals.size() - 1, real_expected, [&](cuda::std::span<std::uint64_t> bins) {
        sluice::histogram_range(ctx(), real_samples.span(), d_reals.span(), bins, {.algorithm = a});
      }, std::string(name_of(a)) + " f64 range over [-inf, inf), m = " + std::to_string(reals.size() - 1));
  }
}

TEST_F(Histogram, BinFunctionPastTheWarpBallotsWithMisalignedSamples) {
  const std::size_t n = sluice::testing::scaled_size(300007, 4099);
  for (std::uint32_t m : {9u, 300u, 5000u}) {
    const auto host = generated<std::uint32_t>(dist::distribution::zipf, n + 1, m + m / 3, n + m);
    const sluice::device_buffer<std::uint32_t> samples(ctx(), std::span<const std::uint32_t>(host));
    const auto tail = std::span<const std::uint32_t>(host).subspan(1);  // 4 bytes past a 16-byte boundary
    std::vector<std::uint64_t> expected(m, 0);
    for (std::uint32_t x : tail)
      if (x < m) ++expected[x];
    for (auto a : strategies_for(m, true))
      expect_counts<std::int64_t>(ctx(), m, expected, [&](cuda::std::span<std::int64_t> bins) {
        sluice::histogram(ctx(), samples.span().subspan(1), bins, identity_bin{}, {.algorithm = a});
      }, std::string(name_of(a)) + " misaligned, m = " + std::to_string(m));
  }
}

/// 2^24 bins (CUB's HistogramEven asks for gigabytes of temporary memory there): automatic, global
/// atomics and coarse bins, counts accumulated onto known contents.
TEST_F(Histogram, SixteenMillionBins) {
  const std::uint32_t m = 1u << 24;
  const std::size_t n = sluice::testing::scaled_size(std::size_t{1} << 24, 1u << 15);
  for (auto shape : {dist::distribution::uniform, dist::distribution::all_equal, dist::distribution::sorted}) {
    const auto host = generated<std::uint32_t>(shape, n, 0, 24);
    const sluice::device_buffer<std::uint32_t> samples(ctx(), std::span<const std::uint32_t>(host));
    const auto counts =
        ref::histogram(std::span<const std::uint32_t>(host), ref::even_bins<std::uint32_t>(0, 0xffffffffu, m)).counts;
    std::vector<std::uint32_t> start(m), expected(m);
    for (std::uint32_t b = 0; b < m; ++b) {
      start[b] = b * 3u;
      expected[b] = start[b] + static_cast<std::uint32_t>(counts[b]);
    }
    for (auto a : {sluice::histogram_algorithm::automatic, sluice::histogram_algorithm::global_atomics,
                   sluice::histogram_algorithm::coarse_bins}) {
      sluice::device_buffer<std::uint32_t> bins(ctx(), std::span<const std::uint32_t>(start));
      sluice::histogram_even(ctx(), samples.span(), bins.span(), 0u, 0xffffffffu, {.algorithm = a, .accumulate = true});
      ASSERT_TRUE(all_equal(bins.to_host(), expected)) << name_of(a) << " " << dist::to_string(shape);
    }
  }
}

/// coarse_bins (DTU report ch. 6): m = 1, 33 and 4096 (one coarse bin), 2^16 + 3 (two on an H100's
/// 58 112 four-byte counters per block, the second short), 2^20 and 2^24 (19 and 289 there); shapes that
/// give the tiles different segments: uniform (every coarse bin, a tile straddling one boundary or, at
/// 2^24, many short segments), all-equal and few-used (one or a few long segments, many empty coarse
/// bins), sorted (segments in input order), Zipf (skewed segment lengths); sizes 0, 1, 33, one block's
/// step ± 1 (a second tile of one sample) and 2^23 + 5 (tiles of at least one coarse bin's counters on an
/// H100's one-wave grid, so long segments are counted in shared memory, and short ones at segment ends
/// by global atomics). Samples over [0, m + m/10], bins [0, m): a tenth fall outside and are dropped by
/// the partition. Under a sanitizer: m up to 2^16 + 3 and the sizes up to step + 1.
TEST_F(Histogram, CoarseBinsAcrossBinCountsShapesAndSizes) {
  const std::size_t step = sluice::detail::histogram::coarse_step;
  const bool sanitizer = sluice::testing::under_sanitizer();
  std::vector<std::size_t> sizes{0, 1, 33, step - 1, step + 1};
  std::vector<std::uint32_t> bin_counts{1, 33, 4096, (1u << 16) + 3};
  if (!sanitizer) {
    sizes.push_back((std::size_t{1} << 23) + 5);
    bin_counts.insert(bin_counts.end(), {1u << 20, 1u << 24});
  }
  const auto coarse = sluice::histogram_options{.algorithm = sluice::histogram_algorithm::coarse_bins};
  for (std::uint32_t m : bin_counts)
    for (auto shape : {dist::distribution::uniform, dist::distribution::all_equal, dist::distribution::sorted,
                       dist::distribution::zipf, dist::distribution::few_used})
      for (std::size_t n : sizes) {
        const std::uint64_t range = std::uint64_t{m} + m / 10 + 1;
        const bool zipf = shape == dist::distribution::zipf;
        const double used_values = std::min(5.0, static_cast<double>(range));  // few_used: at most range
        const double parameter = zipf ? 1.1 : shape == dist::distribution::few_used ? used_values : 0.0;
        const auto host = dist::generate_host<std::uint32_t>(
            n, {shape, zipf ? std::min(range, dist::max_table_range) : range, parameter, n + m});
        const sluice::device_buffer<std::uint32_t> samples(ctx(), std::span<const std::uint32_t>(host));
        const auto expected =
            ref::histogram(std::span<const std::uint32_t>(host), ref::even_bins<std::uint32_t>(0, m, m)).counts;
        expect_counts<std::uint32_t>(ctx(), m, expected, [&](cuda::std::span<std::uint32_t> bins) {
          sluice::histogram_even(ctx(), samples.span(), bins, 0u, m, coarse);
        }, std::string("coarse_bins ") + std::string(dist::to_string(shape)) + ", n = " + std::to_string(n) +
               ", m = " + std::to_string(m));
      }
}

}  // namespace
