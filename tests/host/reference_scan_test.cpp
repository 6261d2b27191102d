// Host tests of sluice/reference/scan.hpp: inclusive scans with and without init, the exclusive scan,
// empty and single-element input, and index order under non-commutative operators.
#include <sluice/core/operators.hpp>
#include <sluice/reference/reduce.hpp>
#include <sluice/reference/scan.hpp>

#include "support/compare.hpp"
#include "support/random_operands.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace {

namespace ref = sluice::reference;
using sluice::testing::random_matrices;
using sluice::testing::all_equal;
using affine32 = sluice::affine<std::uint32_t>;

TEST(ReferenceScan, EmptyInputGivesEmptyOutput) {
  const std::vector<int> none;
  EXPECT_TRUE(ref::inclusive_scan<int>(none, sluice::plus{}).empty());
  EXPECT_TRUE(ref::inclusive_scan<int>(none, sluice::plus{}, 5).empty());
  EXPECT_TRUE(ref::exclusive_scan<int>(none, 5, sluice::plus{}).empty());
}

TEST(ReferenceScan, SingleElement) {
  const std::vector<int> one{7};
  EXPECT_TRUE(all_equal(ref::inclusive_scan<int>(one, sluice::plus{}), {7}));
  EXPECT_TRUE(all_equal(ref::inclusive_scan<int>(one, sluice::plus{}, 10), {17}));
  EXPECT_TRUE(all_equal(ref::exclusive_scan<int>(one, 10, sluice::plus{}), {10}));
}

TEST(ReferenceScan, PalikExample) {
  const std::vector<int> a{5, 1, 3, 4, 3, 9, 2, 6};
  EXPECT_TRUE(all_equal(ref::inclusive_scan<int>(a, sluice::plus{}), {5, 6, 9, 13, 16, 25, 27, 33}));
  EXPECT_TRUE(all_equal(ref::exclusive_scan<int>(a, 0, sluice::plus{}), {0, 5, 6, 9, 13, 16, 25, 27}));
  EXPECT_TRUE(all_equal(ref::inclusive_scan<int>(a, sluice::max{}), {5, 5, 5, 5, 5, 9, 9, 9}));
  EXPECT_TRUE(all_equal(ref::inclusive_scan<int>(a, sluice::plus{}, 100), {105, 106, 109, 113, 116, 125, 127, 133}));
}

TEST(ReferenceScan, ConcatenationShowsOrderAndWhereInitGoes) {
  const std::vector<std::string> w{"a", "b", "c"};
  EXPECT_TRUE(all_equal(ref::inclusive_scan<std::string>(w, std::plus<>{}), {"a", "ab", "abc"}));
  EXPECT_TRUE(all_equal(ref::inclusive_scan<std::string>(w, std::plus<>{}, "x"), {"xa", "xab", "xabc"}));
  EXPECT_TRUE(all_equal(ref::exclusive_scan<std::string>(w, "x", std::plus<>{}), {"x", "xa", "xab"}));
}

TEST(ReferenceScan, AffinePrefixesEqualApplyingTheMapsOneByOne) {
  std::mt19937_64 rng(11);
  std::vector<affine32> maps(5000);
  for (auto& f : maps) f = {static_cast<std::uint32_t>(rng()), static_cast<std::uint32_t>(rng())};
  const auto inc = ref::inclusive_scan<affine32>(maps, sluice::affine_compose{});
  const auto exc = ref::exclusive_scan<affine32>(maps, affine32{1, 0}, sluice::affine_compose{});
  const std::uint32_t x0 = 987654321u;
  std::uint32_t y = x0;
  for (std::size_t i = 0; i < maps.size(); ++i) {
    ASSERT_EQ(exc[i](x0), y) << i;
    y = maps[i](y);
    ASSERT_EQ(inc[i](x0), y) << i;
  }
}

TEST(ReferenceScan, ExclusiveAndInclusiveAgreeWithEachOtherAndWithReduce) {
  const sluice::mat2_multiply_mod op{};
  const std::vector<sluice::mat2> ms = random_matrices(777, 3, op.modulus());
  const sluice::mat2 init{2, 3, 5, 7};
  const auto exc = ref::exclusive_scan<sluice::mat2>(ms, init, op);
  const auto inc = ref::inclusive_scan<sluice::mat2>(ms, op, init);
  for (std::size_t i = 0; i < ms.size(); ++i) ASSERT_TRUE(op(exc[i], ms[i]) == inc[i]) << i;
  EXPECT_TRUE(inc.back() == ref::reduce<sluice::mat2>(ms, init, op));
  // Without init the first prefix is the first element itself.
  const auto bare = ref::inclusive_scan<sluice::mat2>(ms, op);
  EXPECT_TRUE(bare[0] == ms[0]);
  EXPECT_FALSE(bare[1] == op(ms[1], ms[0]));  // order matters for this data
  EXPECT_TRUE(bare[1] == op(ms[0], ms[1]));
}

}  // namespace
