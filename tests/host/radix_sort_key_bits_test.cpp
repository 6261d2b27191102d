// Host tests of the radix sort's host-and-device helpers: radix_word (detail/radix_sort/key_bits.hpp)
// against the oracle's reference::radix_bits on every edge value of every key type, the NaN and ±0
// placement it gives, its inverse radix_key_of (and onesweep's padding keys), radix_digit (bit fields,
// descending), and the pass plans (pass_plan.hpp): balanced widths that cover exactly [begin_bit,
// end_bit), and the automatic pass widths.
#include <sluice/core/radix_key.hpp>
#include <sluice/detail/onesweep/pass_plan.hpp>
#include <sluice/reference/radix_sort.hpp>

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

namespace {

namespace rs = sluice::detail;  // core/radix_key.hpp: the key word and digit (since f278d17)
namespace passes = sluice::detail::onesweep;
namespace ref = sluice::reference;

template <class T>
std::vector<T> edge_values() {
  using L = std::numeric_limits<T>;
  std::vector<T> v{T(0), T(1), L::min(), L::max(), L::lowest(), static_cast<T>(L::max() / 2)};
  if constexpr (std::is_signed_v<T>)
    for (T x : {T(-1), static_cast<T>(L::min() + 1)}) v.push_back(x);
  if constexpr (std::is_floating_point_v<T>)
    for (T x : {-T(0), L::infinity(), -L::infinity(), L::quiet_NaN(), -L::quiet_NaN(), L::denorm_min(),
                -L::denorm_min(), L::epsilon(), -L::min()})
      v.push_back(x);
  std::mt19937_64 rng(sizeof(T));
  for (int i = 0; i < 200; ++i) {
    using U = rs::word_t<T>;
    v.push_back(std::bit_cast<T>(static_cast<U>(rng())));  // every bit pattern class, NaN payloads included
  }
  return v;
}

template <class T>
void expect_same_word_as_the_oracle() {
  static_assert(std::is_same_v<decltype(rs::radix_word(T{})), decltype(ref::radix_bits(T{}))>);
  for (T x : edge_values<T>()) EXPECT_EQ(rs::radix_word(x), ref::radix_bits(x)) << +x;
}

TEST(RadixSortKeyBits, WordIsTheOraclesForEveryKeyType) {
  expect_same_word_as_the_oracle<std::uint8_t>();
  expect_same_word_as_the_oracle<std::int8_t>();
  expect_same_word_as_the_oracle<std::uint16_t>();
  expect_same_word_as_the_oracle<std::int16_t>();
  expect_same_word_as_the_oracle<std::uint32_t>();
  expect_same_word_as_the_oracle<std::int32_t>();
  expect_same_word_as_the_oracle<std::uint64_t>();
  expect_same_word_as_the_oracle<std::int64_t>();
  expect_same_word_as_the_oracle<float>();
  expect_same_word_as_the_oracle<double>();
}

template <class T>
void expect_float_placement() {
  using L = std::numeric_limits<T>;
  // −NaN < −inf < −max < −0 < +0 < min < max < +inf < +NaN, each strictly.
  const T ordered[] = {-L::quiet_NaN(), -L::infinity(), L::lowest(), T(-1), -L::denorm_min(), -T(0),
                       T(0),            L::denorm_min(), T(1),       L::max(), L::infinity(), L::quiet_NaN()};
  for (std::size_t i = 1; i < std::size(ordered); ++i)
    EXPECT_LT(rs::radix_word(ordered[i - 1]), rs::radix_word(ordered[i])) << "position " << i;
}

TEST(RadixSortKeyBits, NansOutsideTheInfinitiesAndNegativeZeroFirst) {
  expect_float_placement<float>();
  expect_float_placement<double>();
}

TEST(RadixSortKeyBits, DigitIsTheBitFieldOfTheWord) {
  const rs::radix_digit<std::int32_t> low{0, 8, false};
  EXPECT_EQ(low(-1), 0xffu);                      // 0x7fffffff after the sign flip
  EXPECT_EQ(low(0), 0x00u);                       // 0x80000000
  const rs::radix_digit<std::int32_t> top{24, 8, false};
  EXPECT_EQ(top(std::numeric_limits<std::int32_t>::min()), 0x00u);
  EXPECT_EQ(top(0), 0x80u);
  const rs::radix_digit<std::uint64_t> middle{29, 7, false};
  EXPECT_EQ(middle(std::uint64_t{0x5a} << 29), 0x5au);
  const rs::radix_digit<std::uint64_t> highest{63, 1, false};
  EXPECT_EQ(highest(std::uint64_t{1} << 63), 1u);
  const rs::radix_digit<std::uint8_t> reversed{4, 3, true};
  EXPECT_EQ(reversed(std::uint8_t{0x30}), 7u - 3u);  // bits 4..6 are 3; descending counts down from 7
  const rs::radix_digit<float> sign{31, 1, false};
  EXPECT_EQ(sign(-0.0f), 0u);
  EXPECT_EQ(sign(0.0f), 1u);
}

/// radix_key_of inverts radix_word bit for bit (NaN payloads and −0.0 included), and the keys of the
/// all-ones and all-zeros words (onesweep's padding) take the largest ascending and descending digit.
template <class T>
void expect_key_of_word_inverts_word() {
  using U = rs::word_t<T>;
  for (T x : edge_values<T>()) {
    EXPECT_EQ(std::bit_cast<U>(rs::radix_key_of<T>(rs::radix_word(x))), std::bit_cast<U>(x)) << +x;
    EXPECT_EQ(rs::radix_word(rs::radix_key_of<T>(std::bit_cast<U>(x))), std::bit_cast<U>(x)) << +x;
  }
  const T ascending_pad = rs::radix_key_of<T>(static_cast<U>(~U{0}));
  const T descending_pad = rs::radix_key_of<T>(U{0});
  for (int shift = 0; shift < rs::key_bits<T>; ++shift)
    for (int bits = 1; bits <= passes::max_pass_bits && shift + bits <= rs::key_bits<T>; ++bits) {
      const std::uint32_t largest = (1u << bits) - 1;
      EXPECT_EQ((rs::radix_digit<T>{shift, bits, false}(ascending_pad)), largest) << shift << " " << bits;
      EXPECT_EQ((rs::radix_digit<T>{shift, bits, true}(descending_pad)), largest) << shift << " " << bits;
    }
}

TEST(RadixSortKeyBits, KeyOfWordInvertsWordForEveryKeyType) {
  expect_key_of_word_inverts_word<std::uint8_t>();
  expect_key_of_word_inverts_word<std::int8_t>();
  expect_key_of_word_inverts_word<std::uint16_t>();
  expect_key_of_word_inverts_word<std::int16_t>();
  expect_key_of_word_inverts_word<std::uint32_t>();
  expect_key_of_word_inverts_word<std::int32_t>();
  expect_key_of_word_inverts_word<std::uint64_t>();
  expect_key_of_word_inverts_word<std::int64_t>();
  expect_key_of_word_inverts_word<float>();
  expect_key_of_word_inverts_word<double>();
}

TEST(RadixSortPassPlan, BalancedPassesCoverTheBitRangeExactly) {
  for (int begin = 0; begin <= 64; ++begin)
    for (int end = begin; end <= 64; ++end)
      for (int widest = 1; widest <= passes::max_pass_bits; ++widest) {
        const passes::pass_plan plan = passes::plan_passes(begin, end, widest);
        ASSERT_EQ(plan.passes, (end - begin + widest - 1) / widest);
        int next = begin;
        for (int p = 0; p < plan.passes; ++p) {
          ASSERT_EQ(plan.shift(p), next) << begin << ".." << end << " r = " << widest << " pass " << p;
          ASSERT_GE(plan.width(p), 1);
          ASSERT_LE(plan.width(p), widest);
          if (p > 0) {
            ASSERT_LE(plan.width(p), plan.width(p - 1));
          }
          ASSERT_LE(plan.width(0) - plan.width(p), 1);
          next += plan.width(p);
        }
        ASSERT_EQ(next, end) << begin << ".." << end << " r = " << widest;
      }
}

TEST(RadixSortPassPlan, ThirtyTwoBitsAtSevenTakeFivePasses) {
  const passes::pass_plan plan = passes::plan_passes(0, 32, 7);
  ASSERT_EQ(plan.passes, 5);
  const int widths[] = {7, 7, 6, 6, 6};
  for (int p = 0; p < 5; ++p) EXPECT_EQ(plan.width(p), widths[p]);
  EXPECT_EQ(passes::plan_passes(5, 5, 7).passes, 0);
}

TEST(RadixSortPassPlan, AutomaticWidthsStayWithinTheMultisplitLimit) {
  for (std::size_t key : {1u, 2u, 4u, 8u})
    for (std::size_t value : {0u, 1u, 4u, 8u, 16u, 64u}) {
      const int r = passes::automatic_pass_bits(key, value);
      EXPECT_GE(r, 1);
      EXPECT_LE(r, passes::max_pass_bits);
    }
  EXPECT_EQ(passes::automatic_pass_bits(4, 0), 7);  // the seed's best on its newest GPU (Table 3.8)
  EXPECT_EQ(passes::automatic_pass_bits(4, 4), 7);
}

}  // namespace
