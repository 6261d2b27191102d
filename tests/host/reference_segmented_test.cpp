// Host tests of sluice/reference/segmented.hpp: Palik's segmented-scan table, flag[0] = 0, all heads,
// one segment, offsets with empty segments and elements outside every segment, bad offsets, and the
// flags and offsets formulations held against each other with a non-commutative operator.
#include <sluice/core/error.hpp>
#include <sluice/core/operators.hpp>
#include <sluice/reference/reduce.hpp>
#include <sluice/reference/scan.hpp>
#include <sluice/reference/segmented.hpp>

#include "support/compare.hpp"
#include "support/errors.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace ref = sluice::reference;
using sluice::testing::all_equal;
using sluice::testing::expect_invalid_argument;
using affine32 = sluice::affine<std::uint32_t>;
using flag_vector = std::vector<std::uint8_t>;
using offset_vector = std::vector<std::size_t>;

const std::vector<int> palik_a{5, 1, 3, 4, 3, 9, 2, 6};
const flag_vector palik_f{1, 0, 1, 0, 0, 0, 1, 0};

TEST(ReferenceSegmented, PalikTable) {
  EXPECT_TRUE(all_equal(ref::segmented_inclusive_scan_flags<int>(palik_a, palik_f, sluice::plus{}),
                        {5, 6, 3, 7, 10, 19, 2, 8}));
  EXPECT_TRUE(all_equal(ref::segmented_inclusive_scan_flags<int>(palik_a, palik_f, sluice::max{}),
                        {5, 5, 3, 4, 4, 9, 2, 6}));
  EXPECT_TRUE(all_equal(ref::segmented_exclusive_scan_flags<int>(palik_a, palik_f, 0, sluice::plus{}),
                        {0, 5, 0, 3, 7, 10, 0, 2}));
  EXPECT_TRUE(all_equal(ref::segmented_reduce_flags<int>(palik_a, palik_f, 0, sluice::plus{}), {6, 19, 8}));
  EXPECT_TRUE(all_equal(ref::segmented_reduce_flags<int>(palik_a, palik_f, 100, sluice::plus{}), {106, 119, 108}));
}

TEST(ReferenceSegmented, PalikTableThroughOffsets) {
  const offset_vector offsets{0, 2, 6, 8};
  EXPECT_TRUE(all_equal(ref::segmented_inclusive_scan_offsets<int>(palik_a, offsets, sluice::plus{}),
                        {5, 6, 3, 7, 10, 19, 2, 8}));
  EXPECT_TRUE(all_equal(ref::segmented_exclusive_scan_offsets<int>(palik_a, offsets, 0, sluice::plus{}),
                        {0, 5, 0, 3, 7, 10, 0, 2}));
  EXPECT_TRUE(all_equal(ref::segmented_reduce_offsets<int>(palik_a, offsets, 0, sluice::max{}), {5, 9, 6}));
}

TEST(ReferenceSegmented, FirstFlagClearBehavesAsSet) {
  flag_vector f = palik_f;
  f[0] = 0;
  EXPECT_TRUE(all_equal(ref::segmented_inclusive_scan_flags<int>(palik_a, f, sluice::plus{}),
                        {5, 6, 3, 7, 10, 19, 2, 8}));
  EXPECT_TRUE(all_equal(ref::segmented_exclusive_scan_flags<int>(palik_a, f, 0, sluice::plus{}),
                        {0, 5, 0, 3, 7, 10, 0, 2}));
  EXPECT_TRUE(all_equal(ref::segmented_reduce_flags<int>(palik_a, f, 0, sluice::plus{}), {6, 19, 8}));
}

TEST(ReferenceSegmented, AnyNonzeroFlagIsAHead) {
  const flag_vector f{7, 0, 255, 0, 0, 0, 2, 0};
  EXPECT_TRUE(all_equal(ref::segmented_inclusive_scan_flags<int>(palik_a, f, sluice::plus{}),
                        {5, 6, 3, 7, 10, 19, 2, 8}));
}

TEST(ReferenceSegmented, AllFlagsSetIsTheIdentityMap) {
  const flag_vector f(palik_a.size(), 1);
  EXPECT_TRUE(all_equal(ref::segmented_inclusive_scan_flags<int>(palik_a, f, sluice::plus{}), palik_a));
  EXPECT_TRUE(all_equal(ref::segmented_reduce_flags<int>(palik_a, f, 0, sluice::plus{}), palik_a));
  EXPECT_TRUE(all_equal(ref::segmented_exclusive_scan_flags<int>(palik_a, f, -1, sluice::plus{}),
                        std::vector<int>(palik_a.size(), -1)));
}

TEST(ReferenceSegmented, OneSegmentIsThePlainScan) {
  flag_vector f(palik_a.size(), 0);
  f[0] = 1;
  EXPECT_TRUE(all_equal(ref::segmented_inclusive_scan_flags<int>(palik_a, f, sluice::plus{}),
                        ref::inclusive_scan<int>(palik_a, sluice::plus{})));
  EXPECT_TRUE(all_equal(ref::segmented_exclusive_scan_flags<int>(palik_a, f, 3, sluice::plus{}),
                        ref::exclusive_scan<int>(palik_a, 3, sluice::plus{})));
  EXPECT_TRUE(all_equal(ref::segmented_reduce_flags<int>(palik_a, f, 0, sluice::plus{}), {33}));
  const offset_vector whole{0, palik_a.size()};
  EXPECT_TRUE(all_equal(ref::segmented_inclusive_scan_offsets<int>(palik_a, whole, sluice::plus{}),
                        ref::inclusive_scan<int>(palik_a, sluice::plus{})));
}

TEST(ReferenceSegmented, EmptyInput) {
  const std::vector<int> none;
  const flag_vector no_flags;
  EXPECT_TRUE(ref::segmented_reduce_flags<int>(none, no_flags, 0, sluice::plus{}).empty());
  EXPECT_TRUE(ref::segmented_inclusive_scan_flags<int>(none, no_flags, sluice::plus{}).empty());
  EXPECT_TRUE(ref::segmented_exclusive_scan_flags<int>(none, no_flags, 0, sluice::plus{}).empty());
  const offset_vector zero_segments{0};
  EXPECT_TRUE(ref::segmented_reduce_offsets<int>(none, zero_segments, 0, sluice::plus{}).empty());
  EXPECT_TRUE(ref::segmented_inclusive_scan_offsets<int>(none, zero_segments, sluice::plus{}).empty());
  // Segments may all be empty: each reduces to init.
  const offset_vector three_empty{0, 0, 0, 0};
  EXPECT_TRUE(all_equal(ref::segmented_reduce_offsets<int>(none, three_empty, 9, sluice::plus{}), {9, 9, 9}));
}

TEST(ReferenceSegmented, EmptySegmentsAndElementsOutsideAllSegments) {
  const std::vector<int> v{1, 2, 3, 4, 5, 6, 7, 8, 9};
  // Elements 0, 1 and 8 lie outside [2, 8); segments [2,2), [2,5), [5,5), [5,8).
  const offset_vector offsets{2, 2, 5, 5, 8};
  EXPECT_TRUE(all_equal(ref::segmented_reduce_offsets<int>(v, offsets, 100, sluice::plus{}), {100, 112, 100, 121}));
  EXPECT_TRUE(all_equal(ref::segmented_inclusive_scan_offsets<int>(v, offsets, sluice::plus{}),
                        {1, 2, 3, 7, 12, 6, 13, 21, 9}));
  EXPECT_TRUE(all_equal(ref::segmented_exclusive_scan_offsets<int>(v, offsets, 100, sluice::plus{}),
                        {1, 2, 100, 103, 107, 100, 106, 113, 9}));
}

TEST(ReferenceSegmented, BadOffsetsThrowWithTheFirstBadIndex) {
  const std::vector<int> v{1, 2, 3, 4};
  auto reduce_with = [&](offset_vector offsets) {
    return [&v, offsets] { (void)ref::segmented_reduce_offsets<int>(v, offsets, 0, sluice::plus{}); };
  };
  expect_invalid_argument(reduce_with({0, 3, 2, 4}), "offsets", 2);    // decreasing
  expect_invalid_argument(reduce_with({0, 2, 5}), "offsets", 2);       // beyond n
  expect_invalid_argument(reduce_with({0, 7, 9, 3}), "offsets", 1);    // first of several problems
  expect_invalid_argument(reduce_with({}), "offsets", std::nullopt);   // not segments + 1 entries
  expect_invalid_argument([&] { (void)ref::segmented_inclusive_scan_offsets<int>(v, offset_vector{1, 0}, sluice::plus{}); },
                          "offsets", 1);
  expect_invalid_argument(
      [&] { (void)ref::segmented_exclusive_scan_offsets<int>(v, offset_vector{0, 5}, 0, sluice::plus{}); }, "offsets", 1);
  // offsets.back() == n is fine.
  EXPECT_TRUE(all_equal(ref::segmented_reduce_offsets<int>(v, offset_vector{0, 4}, 0, sluice::plus{}), {10}));
}

TEST(ReferenceSegmented, FlagCountMismatchThrows) {
  const std::vector<int> v{1, 2, 3};
  const flag_vector f{1, 0};
  expect_invalid_argument([&] { (void)ref::segmented_reduce_flags<int>(v, f, 0, sluice::plus{}); }, "flags", std::nullopt);
  expect_invalid_argument([&] { (void)ref::segmented_inclusive_scan_flags<int>(v, f, sluice::plus{}); }, "flags",
                          std::nullopt);
  expect_invalid_argument([&] { (void)ref::segmented_exclusive_scan_flags<int>(v, f, 0, sluice::plus{}); }, "flags",
                          std::nullopt);
}

TEST(ReferenceSegmented, ConcatenationShowsOrderWithinSegments) {
  const std::vector<std::string> w{"a", "b", "c", "d", "e"};
  const flag_vector f{1, 0, 1, 0, 0};
  EXPECT_TRUE(all_equal(ref::segmented_inclusive_scan_flags<std::string>(w, f, std::plus<>{}),
                        {"a", "ab", "c", "cd", "cde"}));
  EXPECT_TRUE(all_equal(ref::segmented_exclusive_scan_flags<std::string>(w, f, "x", std::plus<>{}),
                        {"x", "xa", "x", "xc", "xcd"}));
  EXPECT_TRUE(all_equal(ref::segmented_reduce_flags<std::string>(w, f, ">", std::plus<>{}), {">ab", ">cde"}));
}

/// Random non-commutative data: the flags formulation, the offsets formulation and per-segment plain
/// scans and reductions over subspans must all agree.
TEST(ReferenceSegmented, RandomFlagsOffsetsAndPerSegmentScansAgree) {
  std::mt19937_64 rng(2024);
  const affine32 e = sluice::identity<sluice::affine_compose, affine32>();
  const affine32 init{3, 1};
  for (std::size_t n : {1u, 2u, 17u, 1000u, 65536u}) {
    for (unsigned head_percent : {1u, 10u, 50u, 100u}) {
      std::vector<affine32> v(n);
      for (auto& f : v) f = {static_cast<std::uint32_t>(rng()), static_cast<std::uint32_t>(rng())};
      flag_vector flags(n);
      offset_vector offsets;
      for (std::size_t i = 0; i < n; ++i) {
        flags[i] = static_cast<std::uint8_t>(rng() % 100 < head_percent);
        if (i == 0 || flags[i]) offsets.push_back(i);
      }
      offsets.push_back(n);
      const sluice::affine_compose op{};
      const auto inc_f = ref::segmented_inclusive_scan_flags<affine32>(v, flags, op);
      const auto exc_f = ref::segmented_exclusive_scan_flags<affine32>(v, flags, init, op);
      const auto red_f = ref::segmented_reduce_flags<affine32>(v, flags, init, op);
      EXPECT_TRUE(all_equal(inc_f, ref::segmented_inclusive_scan_offsets<affine32>(v, offsets, op)));
      EXPECT_TRUE(all_equal(exc_f, ref::segmented_exclusive_scan_offsets<affine32>(v, offsets, init, op)));
      EXPECT_TRUE(all_equal(red_f, ref::segmented_reduce_offsets<affine32>(v, offsets, init, op)));
      ASSERT_EQ(red_f.size(), offsets.size() - 1);
      for (std::size_t s = 0; s + 1 < offsets.size(); ++s) {
        const std::span<const affine32> segment(v.data() + offsets[s], offsets[s + 1] - offsets[s]);
        ASSERT_TRUE(red_f[s] == ref::reduce(segment, init, op)) << "segment " << s;
        const auto inc = ref::inclusive_scan(segment, op, e);
        const auto exc = ref::exclusive_scan(segment, init, op);
        for (std::size_t i = 0; i < segment.size(); ++i) {
          ASSERT_TRUE(inc_f[offsets[s] + i] == inc[i]) << "segment " << s << ", element " << i;
          ASSERT_TRUE(exc_f[offsets[s] + i] == exc[i]) << "segment " << s << ", element " << i;
        }
      }
    }
  }
}

}  // namespace
