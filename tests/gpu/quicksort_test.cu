// GPU tests of segmented_quicksort (Palik §6) against sluice::reference::stable_sort: Palik's worked
// example, both pivot rules on random, few-distinct, all-equal, sorted and reverse-sorted keys, the
// rounds each costs, the round limit, signed zeros (bit-exact against std::stable_sort), stability,
// caller-given segments, in place, and bad arguments.
#include <sluice/data/generate.cuh>
#include <sluice/quicksort.cuh>
#include <sluice/reference/sort.hpp>

#include "support/compare.hpp"
#include "support/errors.hpp"
#include "support/gpu_test.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace {

using sluice::testing::all_equal;
using sluice::testing::gpu_test;

class Quicksort : public gpu_test {};

const std::size_t all_sizes[] = {0, 1, 2, 31, 32, 33, 255, 256, 257, 4095, 4097, 100003, (std::size_t{1} << 20) + 7};

/// Every round is two segmented scans and four kernels, so an instrumented sort costs dozens of
/// instrumented launches: under a sanitizer the sweep stops at 4097 keys (several scan tiles, every path).
std::vector<std::size_t> sizes() {
  std::vector<std::size_t> kept;
  for (std::size_t n : sluice::testing::sweep_sizes(all_sizes))
    if (!sluice::testing::under_sanitizer() || n <= 4097) kept.push_back(n);
  return kept;
}
const sluice::quicksort_pivot both_rules[] = {sluice::quicksort_pivot::first, sluice::quicksort_pivot::median_of_three};

std::string describe(sluice::quicksort_pivot rule) {
  return rule == sluice::quicksort_pivot::first ? "first" : "median_of_three";
}

template <class T>
std::vector<T> generated(sluice::data::distribution kind, std::size_t n, std::uint64_t range, std::uint64_t seed) {
  return sluice::data::generate_host<T>(n, {kind, range, 0.0, seed});
}

/// Sorts `host` on the device (out of place, the input checked unchanged); returns the rounds taken.
template <class K, class Less = std::less<>>
std::size_t check_sort(sluice::context& ctx, const std::vector<K>& host, sluice::quicksort_options options,
                       const std::string& what, Less less = {}) {
  const std::span<const K> view(host);
  const sluice::device_buffer<K> keys(ctx, view);
  sluice::device_buffer<K> out(ctx, host.size());
  const auto expected = sluice::reference::stable_sort(view, less);
  std::size_t rounds = 0;
  for (unsigned char poison : sluice::testing::poison_patterns) {
    out.fill_bytes(poison);
    rounds = sluice::segmented_quicksort(ctx, keys.span(), out.span(), options, less);
    EXPECT_TRUE(all_equal(out.to_host(), expected)) << what << ", n = " << host.size();
  }
  EXPECT_TRUE(all_equal(keys.to_host(), host)) << what << ": the input changed";
  return rounds;
}

TEST_F(Quicksort, PaliksExample) {
  const std::vector<double> keys{6.4, 9.2, 3.4, 1.6, 8.7, 4.1, 9.2, 3.4};
  // Round 1 splits around 6.4, round 2 around 3.4, 6.4 and 9.2 (Palik §6.3); nothing is left after that.
  EXPECT_EQ(check_sort(ctx(), keys, {.pivot = sluice::quicksort_pivot::first}, "Palik"), 2u);
}

TEST_F(Quicksort, RandomAndFewDistinctKeys) {
  for (std::size_t n : sizes())
    for (auto rule : both_rules) {
      const std::string what = describe(rule);
      check_sort(ctx(), generated<std::uint32_t>(sluice::data::distribution::uniform, n, 0, n), {.pivot = rule},
                 "uniform u32, " + what);
      check_sort(ctx(), generated<std::int64_t>(sluice::data::distribution::uniform, n, 0, n + 1), {.pivot = rule},
                 "uniform i64, " + what);
      check_sort(ctx(), generated<std::uint8_t>(sluice::data::distribution::uniform, n, 4, n + 2), {.pivot = rule},
                 "4 distinct u8, " + what);
      check_sort(ctx(), generated<std::uint32_t>(sluice::data::distribution::zipf, n, 1000, n + 3), {.pivot = rule},
                 "zipf u32, " + what);
    }
}

TEST_F(Quicksort, SignedKeysAndDoubles) {
  for (std::size_t n : sizes()) {
    auto ints = generated<std::int32_t>(sluice::data::distribution::uniform, n, 0, n + 4);
    check_sort(ctx(), ints, {}, "i32");
    check_sort(ctx(), generated<double>(sluice::data::distribution::uniform, n, 0, n + 5), {}, "f64");
  }
}

TEST_F(Quicksort, AllEqualKeysTakeOneRound) {
  for (std::size_t n : sizes()) {
    if (n < 2) continue;
    const auto keys = generated<std::uint32_t>(sluice::data::distribution::all_equal, n, 0, 7);
    for (auto rule : both_rules) EXPECT_EQ(check_sort(ctx(), keys, {.pivot = rule}, "all equal"), 1u) << n;
  }
}

TEST_F(Quicksort, SortedAndReverseUnderMedianOfThreeTakeLogRounds) {
  for (std::size_t n : sizes()) {
    if (n < 2) continue;
    for (auto kind : {sluice::data::distribution::sorted, sluice::data::distribution::reverse}) {
      const auto keys = generated<std::uint32_t>(kind, n, n, 1);
      const std::size_t rounds = check_sort(ctx(), keys, {}, std::string(sluice::data::to_string(kind)));
      EXPECT_LE(rounds, static_cast<std::size_t>(std::bit_width(n))) << sluice::data::to_string(kind) << ", n = " << n;
    }
  }
}

/// Palik's rule on sorted input: every round finishes only the pivot (n − 1 rounds), so only small sizes.
TEST_F(Quicksort, SortedAndReverseUnderTheFirstKeyTakeLinearRounds) {
  const std::size_t small[] = {2, 31, 32, 33, 255, 256, 257, 1025};
  for (std::size_t n : small) {
    if (sluice::testing::under_sanitizer() && n > 33) continue;
    for (auto kind : {sluice::data::distribution::sorted, sluice::data::distribution::reverse}) {
      const auto keys = generated<std::uint32_t>(kind, n, n, 1);
      const std::size_t rounds =
          check_sort(ctx(), keys, {.pivot = sluice::quicksort_pivot::first, .max_rounds = n}, "first, sorted");
      EXPECT_EQ(rounds, n - 1) << sluice::data::to_string(kind) << ", n = " << n;
    }
  }
}

/// Sorted keys under the first-key rule need n − 1 rounds: the limit stops them and leaves a permutation.
void expect_round_limit(sluice::context& ctx, std::size_t n, std::size_t max_rounds) {
  const auto host = generated<std::uint32_t>(sluice::data::distribution::sorted, n, n, 1);
  sluice::device_buffer<std::uint32_t> keys(ctx, std::span<const std::uint32_t>(host));
  sluice::testing::expect_invalid_argument(
      [&] {
        sluice::segmented_quicksort(ctx, keys.span(), keys.span(),
                                    {.pivot = sluice::quicksort_pivot::first, .max_rounds = max_rounds});
      },
      "options.max_rounds");
  auto got = keys.to_host();
  std::sort(got.begin(), got.end());
  EXPECT_TRUE(all_equal(got, host)) << "the keys are no longer a permutation of the input";
}

TEST_F(Quicksort, TheRoundLimitStopsAnAdversarialInputWithAPermutation) { expect_round_limit(ctx(), 1000, 32); }

TEST_F(Quicksort, TheAutomaticRoundLimitStopsSortedInputUnderTheFirstKey) {
  if (sluice::testing::under_sanitizer()) GTEST_SKIP() << "168 instrumented rounds: covered by the explicit limit";
  expect_round_limit(ctx(), 4096, 0);  // 4095 rounds needed; the automatic limit is 64 + 8·13 = 168
}

/// -0.0 and +0.0 are equal under <, so they keep their input order: compared bit for bit.
TEST_F(Quicksort, SignedZerosKeepTheirInputOrder) {
  for (std::size_t n : sizes()) {
    auto keys = generated<float>(sluice::data::distribution::uniform, n, 16, n + 6);
    for (std::size_t i = 0; i < n; ++i) {
      if (i % 3 == 0) keys[i] = i % 2 ? -0.0f : 0.0f;
      else if (i % 3 == 1) keys[i] = -keys[i];
    }
    const sluice::device_buffer<float> d_keys(ctx(), std::span<const float>(keys));
    sluice::device_buffer<float> out(ctx(), n);
    sluice::segmented_quicksort(ctx(), d_keys.span(), out.span());
    const auto expected = sluice::reference::stable_sort(std::span<const float>(keys));
    const auto got = out.to_host();
    std::vector<std::uint32_t> got_bits(n), expected_bits(n);
    if (n) std::memcpy(got_bits.data(), got.data(), n * sizeof(float));
    if (n) std::memcpy(expected_bits.data(), expected.data(), n * sizeof(float));
    ASSERT_TRUE(all_equal(got_bits, expected_bits)) << "n = " << n;
  }
}

/// A key that remembers its input position; ordered by key only, so equal keys expose instability.
struct tagged {
  std::uint32_t key;
  std::uint32_t position;
  friend bool operator==(const tagged&, const tagged&) = default;
};
struct by_key {
  __host__ __device__ bool operator()(const tagged& a, const tagged& b) const { return a.key < b.key; }
};

TEST_F(Quicksort, StableUnderACustomOrder) {
  for (std::size_t n : sizes())
    for (std::uint64_t range : {std::uint64_t{1}, std::uint64_t{3}, std::uint64_t{1000}})
      for (auto rule : both_rules) {
        const auto keys = generated<std::uint32_t>(sluice::data::distribution::uniform, n, range, n + range);
        std::vector<tagged> host(n);
        for (std::size_t i = 0; i < n; ++i) host[i] = {keys[i], static_cast<std::uint32_t>(i)};
        check_sort(ctx(), host, {.pivot = rule}, "tagged, " + describe(rule), by_key{});
      }
}

TEST_F(Quicksort, EachGivenSegmentIsSortedOnItsOwn) {
  for (std::size_t n : sizes())
    for (std::uint64_t mean_length : {std::uint64_t{1}, std::uint64_t{3}, std::uint64_t{100}, std::uint64_t{5000}}) {
      const auto keys = generated<std::uint32_t>(sluice::data::distribution::uniform, n, 1000, n + mean_length);
      const auto r = generated<std::uint32_t>(sluice::data::distribution::uniform, n, mean_length, n + 2 * mean_length);
      std::vector<std::uint8_t> heads(n);
      for (std::size_t i = 0; i < n; ++i) heads[i] = r[i] == 0;  // heads[0] left random: it always starts one
      const sluice::device_buffer<std::uint32_t> d_keys(ctx(), std::span<const std::uint32_t>(keys));
      const sluice::device_buffer<std::uint8_t> d_heads(ctx(), std::span<const std::uint8_t>(heads));
      sluice::device_buffer<std::uint32_t> out(ctx(), n);
      out.fill_bytes(0xA5);
      sluice::segmented_quicksort(ctx(), d_keys.span(), d_heads.span(), out.span());
      const auto expected = sluice::reference::segmented_stable_sort(std::span<const std::uint32_t>(keys),
                                                                     std::span<const std::uint8_t>(heads));
      ASSERT_TRUE(all_equal(out.to_host(), expected)) << "n = " << n << ", mean length " << mean_length;
    }
}

TEST_F(Quicksort, InPlace) {
  for (std::size_t n : sizes()) {
    const auto host = generated<std::uint32_t>(sluice::data::distribution::uniform, n, 0, n + 8);
    sluice::device_buffer<std::uint32_t> keys(ctx(), std::span<const std::uint32_t>(host));
    sluice::segmented_quicksort(ctx(), keys.span(), keys.span());
    ASSERT_TRUE(all_equal(keys.to_host(), sluice::reference::stable_sort(std::span<const std::uint32_t>(host))))
        << "n = " << n;
  }
}

TEST_F(Quicksort, BadArgumentsAreRejected) {
  sluice::device_buffer<std::uint32_t> keys(ctx(), 100), out(ctx(), 100), shorter(ctx(), 99), wide(ctx(), 200);
  sluice::device_buffer<std::uint8_t> heads(ctx(), 99);
  std::vector<std::uint32_t> host(100);
  const cuda::std::span<std::uint32_t> host_span(host.data(), host.size());
  using sluice::testing::expect_invalid_argument;
  expect_invalid_argument([&] { sluice::segmented_quicksort(ctx(), host_span, out.span()); }, "keys");
  expect_invalid_argument([&] { sluice::segmented_quicksort(ctx(), keys.span(), host_span); }, "out");
  expect_invalid_argument([&] { sluice::segmented_quicksort(ctx(), keys.span(), shorter.span()); }, "out");
  expect_invalid_argument(
      [&] { sluice::segmented_quicksort(ctx(), wide.span().first(100), wide.span().subspan(50, 100)); }, "out");
  expect_invalid_argument([&] { sluice::segmented_quicksort(ctx(), keys.span(), heads.span(), out.span()); }, "heads");
}

}  // namespace
