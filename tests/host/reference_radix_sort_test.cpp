// Host tests of sluice/reference/radix_sort.hpp: the order-preserving key transform for every integer
// width and both float types, the placement of ±0.0 and NaNs, full-width sorts against std::stable_sort
// with ordinary comparisons, bit ranges against arithmetic digit extraction, descending order, stability
// and bad bit ranges.
#include <sluice/core/error.hpp>
#include <sluice/reference/radix_sort.hpp>

#include "support/compare.hpp"
#include "support/errors.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>
#include <random>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

namespace {

namespace ref = sluice::reference;
using sluice::testing::all_equal;
using sluice::testing::expect_invalid_argument;

template <class T>
std::vector<T> random_keys(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> keys(n);
  for (T& k : keys) {
    if constexpr (std::is_integral_v<T>) {
      k = static_cast<T>(rng());
    } else {
      // Finite, nonzero, spread over many magnitudes and both signs; duplicates on purpose.
      const double mantissa = static_cast<double>(rng() % 1000) + 1.0;
      const int exponent = static_cast<int>(rng() % 40) - 20;
      k = static_cast<T>((rng() % 2 ? -1.0 : 1.0) * std::ldexp(mantissa, exponent));
    }
  }
  return keys;
}

/// Ascending values of T (as operator< orders them) must map to strictly increasing words.
template <class T>
void expect_transform_is_monotone(std::vector<T> values) {
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  for (std::size_t i = 1; i < values.size(); ++i)
    EXPECT_LT(ref::radix_bits(values[i - 1]), ref::radix_bits(values[i])) << +values[i - 1] << " vs " << +values[i];
}

TEST(ReferenceRadixSort, KeyTransformIsOrderPreserving) {
  static_assert(std::is_same_v<decltype(ref::radix_bits(std::int8_t{0})), std::uint8_t>);
  static_assert(std::is_same_v<decltype(ref::radix_bits(0.0f)), std::uint32_t>);
  static_assert(std::is_same_v<decltype(ref::radix_bits(0.0)), std::uint64_t>);
  static_assert(ref::radix_key_bits<std::int16_t> == 16 && ref::radix_key_bits<double> == 64);
  EXPECT_EQ(ref::radix_bits(std::int32_t{-1}), 0x7FFFFFFFu);
  EXPECT_EQ(ref::radix_bits(std::int32_t{0}), 0x80000000u);
  EXPECT_EQ(ref::radix_bits(std::uint16_t{1234}), 1234u);
  EXPECT_EQ(ref::radix_bits(1.0f), 0x3F800000u | 0x80000000u);
  EXPECT_EQ(ref::radix_bits(-1.0f), ~0xBF800000u);

  auto extremes = []<class T>(std::vector<T> v) {
    v.push_back(std::numeric_limits<T>::lowest());
    v.push_back(std::numeric_limits<T>::max());
    v.push_back(T(0));
    v.push_back(T(1));
    if constexpr (std::is_signed_v<T>) v.push_back(T(-1));
    return v;
  };
  expect_transform_is_monotone(extremes(random_keys<std::uint8_t>(300, 1)));
  expect_transform_is_monotone(extremes(random_keys<std::int8_t>(300, 2)));
  expect_transform_is_monotone(extremes(random_keys<std::uint16_t>(1000, 3)));
  expect_transform_is_monotone(extremes(random_keys<std::int16_t>(1000, 4)));
  expect_transform_is_monotone(extremes(random_keys<std::uint32_t>(1000, 5)));
  expect_transform_is_monotone(extremes(random_keys<std::int32_t>(1000, 6)));
  expect_transform_is_monotone(extremes(random_keys<std::uint64_t>(1000, 7)));
  expect_transform_is_monotone(extremes(random_keys<std::int64_t>(1000, 8)));
  for (auto v : {random_keys<float>(1000, 9)}) {
    v.push_back(std::numeric_limits<float>::infinity());
    v.push_back(-std::numeric_limits<float>::infinity());
    v.push_back(std::numeric_limits<float>::denorm_min());
    v.push_back(-std::numeric_limits<float>::denorm_min());
    expect_transform_is_monotone(extremes(v));
  }
  for (auto v : {random_keys<double>(1000, 10)}) {
    v.push_back(std::numeric_limits<double>::infinity());
    v.push_back(-std::numeric_limits<double>::infinity());
    v.push_back(std::numeric_limits<double>::denorm_min());
    expect_transform_is_monotone(extremes(v));
  }
}

template <class T>
void expect_full_width_sort_matches_std(std::uint64_t seed) {
  for (std::size_t n : {0u, 1u, 2u, 1000u, 65536u}) {
    const std::vector<T> keys = random_keys<T>(n, seed + n);
    std::vector<T> expected = keys;
    std::stable_sort(expected.begin(), expected.end());
    EXPECT_TRUE(all_equal(ref::radix_sort_keys<T>(keys), expected)) << "n = " << n;
    std::stable_sort(expected.begin(), expected.end(), [](T a, T b) { return b < a; });
    EXPECT_TRUE(all_equal(ref::radix_sort_keys<T>(keys, 0, ref::radix_key_bits<T>, true), expected)) << "n = " << n;
  }
}

TEST(ReferenceRadixSort, FullWidthMatchesStdStableSort) {
  expect_full_width_sort_matches_std<std::uint8_t>(1);
  expect_full_width_sort_matches_std<std::int8_t>(2);
  expect_full_width_sort_matches_std<std::uint16_t>(3);
  expect_full_width_sort_matches_std<std::int16_t>(4);
  expect_full_width_sort_matches_std<std::uint32_t>(5);
  expect_full_width_sort_matches_std<std::int32_t>(6);
  expect_full_width_sort_matches_std<std::uint64_t>(7);
  expect_full_width_sort_matches_std<std::int64_t>(8);
  expect_full_width_sort_matches_std<float>(9);
  expect_full_width_sort_matches_std<double>(10);
}

TEST(ReferenceRadixSort, SignedZerosAndNaNs) {
  const float qnan = std::numeric_limits<float>::quiet_NaN();
  const float neg_nan = std::copysign(qnan, -1.0f);
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> keys{0.0f, qnan, -0.0f, 1.0f, neg_nan, -inf, -1.0f, inf, 0.0f, -0.0f};
  const auto sorted = ref::radix_sort_keys<float>(keys);
  const std::vector<std::uint32_t> expected_bits{
      std::bit_cast<std::uint32_t>(neg_nan), std::bit_cast<std::uint32_t>(-inf),  std::bit_cast<std::uint32_t>(-1.0f),
      std::bit_cast<std::uint32_t>(-0.0f),   std::bit_cast<std::uint32_t>(-0.0f), std::bit_cast<std::uint32_t>(0.0f),
      std::bit_cast<std::uint32_t>(0.0f),    std::bit_cast<std::uint32_t>(1.0f),  std::bit_cast<std::uint32_t>(inf),
      std::bit_cast<std::uint32_t>(qnan)};
  std::vector<std::uint32_t> got_bits;
  for (float x : sorted) got_bits.push_back(std::bit_cast<std::uint32_t>(x));
  EXPECT_TRUE(all_equal(got_bits, expected_bits));

  // Descending: +NaN first, then +inf, …, +0.0 before −0.0, −NaN last.
  const auto down = ref::radix_sort_keys<float>(keys, 0, 32, true);
  EXPECT_TRUE(std::isnan(down.front()) && !std::signbit(down.front()));
  EXPECT_TRUE(std::isnan(down.back()) && std::signbit(down.back()));
  EXPECT_TRUE(!std::signbit(down[4]) && down[4] == 0.0f);  // down = +NaN, inf, 1, +0, +0, −0, −0, −1, −inf, −NaN
  EXPECT_TRUE(std::signbit(down[5]) && down[5] == 0.0f);

  // Doubles: NaN payloads order by their bits.
  const double nan1 = std::bit_cast<double>(std::uint64_t{0x7FF8000000000001});
  const double nan2 = std::bit_cast<double>(std::uint64_t{0x7FF8000000000002});
  const auto d = ref::radix_sort_keys<double>(std::vector<double>{nan2, -0.0, nan1, 0.0});
  EXPECT_TRUE(std::signbit(d[0]) && d[0] == 0.0);
  EXPECT_TRUE(!std::signbit(d[1]) && d[1] == 0.0);
  EXPECT_EQ(std::bit_cast<std::uint64_t>(d[2]), 0x7FF8000000000001u);
  EXPECT_EQ(std::bit_cast<std::uint64_t>(d[3]), 0x7FF8000000000002u);
}

TEST(ReferenceRadixSort, BitRangesSortByThatDigitOnly) {
  const std::vector<std::uint32_t> keys = random_keys<std::uint32_t>(65536, 11);
  std::vector<std::uint32_t> index(keys.size());
  std::iota(index.begin(), index.end(), 0u);
  for (auto [begin, end] : {std::pair{0, 8}, {4, 12}, {8, 9}, {24, 32}, {0, 32}, {31, 32}}) {
    // The digit by arithmetic: (key / 2^begin) mod 2^(end - begin).
    const std::uint64_t below = std::uint64_t{1} << begin, span = std::uint64_t{1} << (end - begin);
    auto digit = [&](std::uint32_t k) { return k / below % span; };
    std::vector<std::uint32_t> expected = index;
    std::stable_sort(expected.begin(), expected.end(),
                     [&](std::uint32_t x, std::uint32_t y) { return digit(keys[x]) < digit(keys[y]); });
    const auto r = ref::radix_sort_pairs<std::uint32_t, std::uint32_t>(keys, index, begin, end);
    EXPECT_TRUE(all_equal(r.values, expected)) << "bits [" << begin << ", " << end << ")";
    std::vector<std::uint32_t> expected_keys;
    for (std::uint32_t i : expected) expected_keys.push_back(keys[i]);
    EXPECT_TRUE(all_equal(r.keys, expected_keys));
    EXPECT_TRUE(all_equal(ref::radix_sort_keys<std::uint32_t>(keys, begin, end), expected_keys));
  }
  // Signed keys: the low bits are untouched by the transform, the top bit is flipped.
  const std::vector<std::int16_t> s{-1, 2, -3, 4, 0, -32768, 32767};
  // Low nibbles: -1→15, 2→2, -3→13, 4→4, 0→0, -32768→0, 32767→15.
  EXPECT_TRUE(all_equal(ref::radix_sort_keys<std::int16_t>(s, 0, 4), {0, -32768, 2, 4, -3, -1, 32767}));
  EXPECT_TRUE(all_equal(ref::radix_sort_keys<std::int16_t>(s, 15, 16), {-1, -3, -32768, 2, 4, 0, 32767}));
  // An empty bit range leaves the input order.
  EXPECT_TRUE(all_equal(ref::radix_sort_keys<std::int16_t>(s, 7, 7), s));
  EXPECT_TRUE(all_equal(ref::radix_sort_keys<std::int16_t>(s, 16, 16), s));
}

TEST(ReferenceRadixSort, StableInBothDirections) {
  const std::vector<std::uint8_t> keys{3, 1, 3, 2, 1, 3, 2};
  const std::vector<int> idx{0, 1, 2, 3, 4, 5, 6};
  const auto up = ref::radix_sort_pairs<std::uint8_t, int>(keys, idx);
  EXPECT_TRUE(all_equal(up.keys, {1, 1, 2, 2, 3, 3, 3}));
  EXPECT_TRUE(all_equal(up.values, {1, 4, 3, 6, 0, 2, 5}));
  const auto down = ref::radix_sort_pairs<std::uint8_t, int>(keys, idx, 0, 8, true);
  EXPECT_TRUE(all_equal(down.keys, {3, 3, 3, 2, 2, 1, 1}));
  EXPECT_TRUE(all_equal(down.values, {0, 2, 5, 3, 6, 1, 4}));  // not the reverse of `up`

  // Many duplicates in 64-bit keys: equal keys keep ascending indices.
  std::mt19937_64 rng(12);
  std::vector<std::int64_t> k(65536);
  for (auto& x : k) x = static_cast<std::int64_t>(rng() % 50) - 25;
  std::vector<std::uint32_t> i(k.size());
  std::iota(i.begin(), i.end(), 0u);
  for (bool descending : {false, true}) {
    const auto r = ref::radix_sort_pairs<std::int64_t, std::uint32_t>(k, i, 0, 64, descending);
    for (std::size_t p = 1; p < r.keys.size(); ++p) {
      ASSERT_TRUE(descending ? r.keys[p - 1] >= r.keys[p] : r.keys[p - 1] <= r.keys[p]) << p;
      if (r.keys[p - 1] == r.keys[p]) {
        ASSERT_LT(r.values[p - 1], r.values[p]) << p;
      }
    }
  }
}

TEST(ReferenceRadixSort, BadArgumentsThrow) {
  const std::vector<std::uint32_t> k{3, 1, 2};
  expect_invalid_argument([&] { (void)ref::radix_sort_keys<std::uint32_t>(k, 9, 8); }, "begin_bit");
  expect_invalid_argument([&] { (void)ref::radix_sort_keys<std::uint32_t>(k, -1, 8); }, "begin_bit");
  expect_invalid_argument([&] { (void)ref::radix_sort_keys<std::uint32_t>(k, 0, 33); }, "end_bit");
  expect_invalid_argument([&] { (void)ref::radix_sort_keys<std::uint8_t>(std::vector<std::uint8_t>{1}, 0, 9); },
                          "end_bit");
  expect_invalid_argument([&] { (void)ref::radix_sort_pairs<std::uint32_t, int>(k, std::vector<int>{1, 2}); },
                          "values");
  expect_invalid_argument([&] { (void)ref::radix_sort_pairs<std::uint32_t, int>(k, std::vector<int>{1, 2, 3}, 5, 4); },
                          "begin_bit");
}

}  // namespace
