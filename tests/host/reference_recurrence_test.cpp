// Host tests of sluice/reference/recurrence.hpp (Palik §4.5): the direct loop on hand-checked examples,
// and the theorem that the inclusive scan with the pair operator gives the same x_i, for the linear
// recurrence over uint32 (exact) and double (tolerance), max-plus, and the segmented scan as a recurrence
// over (flag, value).
#include <sluice/core/error.hpp>
#include <sluice/core/operators.hpp>
#include <sluice/reference/recurrence.hpp>
#include <sluice/reference/scan.hpp>
#include <sluice/reference/segmented.hpp>

#include "support/compare.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <random>
#include <span>
#include <vector>

namespace {

namespace ref = sluice::reference;
using sluice::testing::all_equal;
using sluice::testing::all_near;

auto multiplies = [](auto x, auto a) { return x * a; };
auto adds = [](auto x, auto a) { return x + a; };
auto maximum = [](auto x, auto y) { return std::max(x, y); };

/// The b components of the inclusive scan of the pairs [a_i, b_i].
template <class A, class B, class PairOp>
std::vector<B> solve_by_scan(const std::vector<A>& a, const std::vector<B>& b, PairOp op) {
  std::vector<ref::recurrence_pair<A, B>> c(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) c[i] = {a[i], b[i]};
  const auto s = ref::inclusive_scan<ref::recurrence_pair<A, B>>(c, op);
  std::vector<B> x(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) x[i] = s[i].b;
  return x;
}

TEST(ReferenceRecurrence, LinearHandExample) {
  // x0 = 1; x1 = 1·2 + 3 = 5; x2 = 5·4 + 5 = 25; x3 = 25·1 − 20 = 5.
  const std::vector<int> a{100, 2, 4, 1};  // a0 never matters
  const std::vector<int> b{1, 3, 5, -20};
  EXPECT_TRUE(all_equal(ref::linear_recurrence<int, int>(a, b, std::plus<>{}, multiplies), {1, 5, 25, 5}));
  const std::vector<int> a2{-7, 2, 4, 1};
  EXPECT_TRUE(all_equal(ref::linear_recurrence<int, int>(a2, b, std::plus<>{}, multiplies), {1, 5, 25, 5}));
}

TEST(ReferenceRecurrence, EmptySingleAndMismatch) {
  const std::vector<int> none;
  EXPECT_TRUE((ref::linear_recurrence<int, int>(none, none, std::plus<>{}, multiplies).empty()));
  EXPECT_TRUE(all_equal(ref::linear_recurrence<int, int>(std::vector<int>{9}, std::vector<int>{4}, std::plus<>{},
                                                         multiplies),
                        {4}));
  try {
    (void)ref::linear_recurrence<int, int>(std::vector<int>{1, 2}, std::vector<int>{1}, std::plus<>{}, multiplies);
    ADD_FAILURE() << "expected sluice::invalid_argument";
  } catch (const sluice::invalid_argument& e) {
    EXPECT_EQ(e.parameter(), "b");
  }
}

TEST(ReferenceRecurrence, PairOperatorIsNotCommutative) {
  const ref::recurrence_pair_op<std::plus<>, decltype(multiplies), decltype(multiplies)> op{{}, multiplies, multiplies};
  const ref::recurrence_pair<int, int> c1{2, 3}, c2{5, 7};
  EXPECT_EQ(op(c1, c2), (ref::recurrence_pair<int, int>{10, 3 * 5 + 7}));
  EXPECT_EQ(op(c2, c1), (ref::recurrence_pair<int, int>{10, 7 * 2 + 3}));
}

TEST(ReferenceRecurrence, LinearOverUint32ByScanIsExact) {
  std::mt19937_64 rng(1);
  const ref::recurrence_pair_op<std::plus<>, decltype(multiplies), decltype(multiplies)> op{{}, multiplies, multiplies};
  for (std::size_t n : {1u, 2u, 3u, 1000u, 65536u}) {
    std::vector<std::uint32_t> a(n), b(n);
    for (std::size_t i = 0; i < n; ++i) {
      a[i] = static_cast<std::uint32_t>(rng());
      b[i] = static_cast<std::uint32_t>(rng());
    }
    const auto direct = ref::linear_recurrence<std::uint32_t, std::uint32_t>(a, b, std::plus<>{}, multiplies);
    EXPECT_TRUE(all_equal(solve_by_scan(a, b, op), direct)) << "n = " << n;
    // Independent check: x_i is also the composition of the affine maps x ↦ a_j·x + b_j (j ≤ i) applied to 0.
    std::vector<sluice::affine<std::uint32_t>> maps(n);
    for (std::size_t i = 0; i < n; ++i) maps[i] = {a[i], b[i]};
    const auto composed = ref::inclusive_scan<sluice::affine<std::uint32_t>>(maps, sluice::affine_compose{});
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(composed[i](0u), direct[i]) << i;
  }
}

TEST(ReferenceRecurrence, LinearOverDoubleByScanWithinTolerance) {
  std::mt19937_64 rng(2);
  std::uniform_real_distribution<double> coefficient(-0.99, 0.99);  // |a| < 1 keeps the recurrence stable
  std::uniform_real_distribution<double> input(-1.0, 1.0);
  const ref::recurrence_pair_op<std::plus<>, decltype(multiplies), decltype(multiplies)> op{{}, multiplies, multiplies};
  const std::size_t n = 50000;
  std::vector<double> a(n), b(n);
  for (std::size_t i = 0; i < n; ++i) {
    a[i] = coefficient(rng);
    b[i] = input(rng);
  }
  const auto direct = ref::linear_recurrence<double, double>(a, b, std::plus<>{}, multiplies);
  EXPECT_TRUE(all_near(solve_by_scan(a, b, op), direct, 1e-12));
  // A hand value: compound interest 10% on 100, then +10 each step: 100, 120, 142.
  EXPECT_TRUE(all_near(ref::linear_recurrence<double, double>(std::vector<double>{0, 1.1, 1.1},
                                                              std::vector<double>{100, 10, 10}, std::plus<>{},
                                                              multiplies),
                       {100.0, 120.0, 142.0}, 1e-12));
}

TEST(ReferenceRecurrence, MaxPlusByScan) {
  // x_i = max(x_{i-1} + a_i, b_i): ⊗ = +, ⊕ = max, ⊙ = +.
  const std::vector<std::int64_t> a{0, -1, 5, -10, 2};
  const std::vector<std::int64_t> b{3, 1, 0, 4, -100};
  // x: 3, max(2,1)=2, max(7,0)=7, max(-3,4)=4, max(6,-100)=6
  const auto direct = ref::linear_recurrence<std::int64_t, std::int64_t>(a, b, maximum, adds);
  EXPECT_TRUE(all_equal(direct, {3, 2, 7, 4, 6}));
  const ref::recurrence_pair_op<decltype(maximum), decltype(adds), decltype(adds)> op{maximum, adds, adds};
  EXPECT_TRUE(all_equal(solve_by_scan(a, b, op), direct));

  std::mt19937_64 rng(3);
  const std::size_t n = 65536;
  std::vector<std::int64_t> ra(n), rb(n);
  for (std::size_t i = 0; i < n; ++i) {
    ra[i] = static_cast<std::int64_t>(rng() % 2001) - 1000;
    rb[i] = static_cast<std::int64_t>(rng() % 2000001) - 1000000;
  }
  EXPECT_TRUE(all_equal(solve_by_scan(ra, rb, op),
                        ref::linear_recurrence<std::int64_t, std::int64_t>(ra, rb, maximum, adds)));
}

TEST(ReferenceRecurrence, SegmentedScanIsARecurrenceOverFlagsAndValues) {
  // x ⊗ f = f ? identity : x; companion = OR. The pair operator is then (f1 | f2, f2 ? x2 : x1 ⊕ x2).
  auto flag_or = [](std::uint8_t f1, std::uint8_t f2) { return static_cast<std::uint8_t>(f1 | f2); };
  auto restart_sum = [](std::int64_t x, std::uint8_t f) { return f ? std::int64_t{0} : x; };
  auto restart_max = [](std::int64_t x, std::uint8_t f) {
    return f ? sluice::identity<sluice::max, std::int64_t>() : x;
  };
  const ref::recurrence_pair_op<sluice::plus, decltype(restart_sum), decltype(flag_or)> sum_op{{}, restart_sum, flag_or};
  const ref::recurrence_pair_op<sluice::max, decltype(restart_max), decltype(flag_or)> max_op{{}, restart_max, flag_or};

  const std::vector<std::uint8_t> f{1, 0, 1, 0, 0, 0, 1, 0};
  const std::vector<std::int64_t> a{5, 1, 3, 4, 3, 9, 2, 6};
  EXPECT_TRUE(all_equal(solve_by_scan(f, a, sum_op), {5, 6, 3, 7, 10, 19, 2, 8}));
  EXPECT_TRUE(all_equal(solve_by_scan(f, a, max_op), {5, 5, 3, 4, 4, 9, 2, 6}));

  std::mt19937_64 rng(4);
  for (std::size_t n : {1u, 7u, 5000u, 65536u}) {
    std::vector<std::uint8_t> flags(n);
    std::vector<std::int64_t> v(n);
    for (std::size_t i = 0; i < n; ++i) {
      flags[i] = static_cast<std::uint8_t>(rng() % 16 == 0);  // flag[0] random too: the recurrence ignores it
      v[i] = static_cast<std::int64_t>(rng() % 1000) - 500;
    }
    const auto seg_sum = ref::segmented_inclusive_scan_flags<std::int64_t>(v, flags, sluice::plus{});
    const auto seg_max = ref::segmented_inclusive_scan_flags<std::int64_t>(v, flags, sluice::max{});
    EXPECT_TRUE(all_equal(solve_by_scan(flags, v, sum_op), seg_sum)) << n;
    EXPECT_TRUE(all_equal(solve_by_scan(flags, v, max_op), seg_max)) << n;
    EXPECT_TRUE(all_equal(ref::linear_recurrence<std::uint8_t, std::int64_t>(flags, v, sluice::plus{}, restart_sum),
                          seg_sum))
        << n;
  }
}

}  // namespace
