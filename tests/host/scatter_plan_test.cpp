// Host tests of scatter's host-side plan (detail/scatter/plan.hpp) and the partial sort rule it shares
// with multireduce (detail/partial_sort/plan.hpp): the slots an index type reaches, the bits the
// partial sort takes, automatic's choice, the option checks and the strategy names. The L2 is an
// H100's (50 MiB) unless a case says otherwise.
#include <sluice/detail/scatter/plan.hpp>

#include "support/errors.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

namespace {

namespace sc = sluice::detail::scatter;
using sluice::scatter_algorithm;

constexpr std::size_t h100_l2 = 50u << 20;
constexpr std::uint64_t two_to(int k) { return std::uint64_t{1} << k; }

TEST(ScatterPlan, StrategyNames) {
  EXPECT_EQ(sluice::to_string(scatter_algorithm::automatic), "automatic");
  EXPECT_EQ(sluice::to_string(scatter_algorithm::direct), "direct");
  EXPECT_EQ(sluice::to_string(scatter_algorithm::partial_sort), "partial_sort");
  EXPECT_EQ(sluice::to_string(static_cast<scatter_algorithm>(99)), "?");
}

TEST(ScatterPlan, ReachableSlotsStopAtTheIndexTypesLargestValue) {
  EXPECT_EQ(sc::reachable_slots<std::uint32_t>(0), 0u);
  EXPECT_EQ(sc::reachable_slots<std::int32_t>(1), 1u);
  EXPECT_EQ(sc::reachable_slots<std::uint32_t>(two_to(32)), two_to(32));
  EXPECT_EQ(sc::reachable_slots<std::uint32_t>(two_to(32) + 5), two_to(32));
  EXPECT_EQ(sc::reachable_slots<std::int32_t>(two_to(31)), two_to(31));
  EXPECT_EQ(sc::reachable_slots<std::int32_t>(two_to(31) + 1), two_to(31));
  EXPECT_EQ(sc::reachable_slots<std::int32_t>(two_to(31) - 1), two_to(31) - 1);
  EXPECT_EQ(sc::reachable_slots<std::int64_t>(two_to(40) + 3), two_to(40) + 3);
  EXPECT_EQ(sc::reachable_slots<std::int64_t>(two_to(63) + 3), two_to(63));
  EXPECT_EQ(sc::reachable_slots<std::uint64_t>(std::numeric_limits<std::uint64_t>::max()),
            std::numeric_limits<std::uint64_t>::max());
}

TEST(ScatterPlan, KeyBitsBelowASize) {
  EXPECT_EQ(sluice::detail::key_bits_below(0), 0);
  EXPECT_EQ(sluice::detail::key_bits_below(1), 0);
  EXPECT_EQ(sluice::detail::key_bits_below(2), 1);
  EXPECT_EQ(sluice::detail::key_bits_below(31), 5);
  EXPECT_EQ(sluice::detail::key_bits_below(32), 5);
  EXPECT_EQ(sluice::detail::key_bits_below(33), 6);
  EXPECT_EQ(sluice::detail::key_bits_below(two_to(32)), 32);
  EXPECT_EQ(sluice::detail::key_bits_below(two_to(32) + 5), 33);
  EXPECT_EQ(sluice::detail::key_bits_below(std::numeric_limits<std::uint64_t>::max()), 64);
}

TEST(ScatterPlan, WindowSortBitsNeverOverflow) {
  // The whole range of 64-bit slot counts, and slot sizes up to 16 bytes, without a shift past 63 bits.
  // 2^64 − 1 sixteen-byte slots: windows of 2^20 fit 25 MiB, so 44 bits, rounded up to 48.
  EXPECT_EQ(sluice::detail::window_sort_bits(std::numeric_limits<std::uint64_t>::max(), 16, h100_l2 / 2), 48);
  EXPECT_EQ(sluice::detail::window_sort_bits(two_to(63), 1, 0), 63);
  EXPECT_EQ(sluice::detail::window_sort_bits(two_to(40), 4, 25u << 20), 24);  // windows of 2^22 slots: 18 → 24
  EXPECT_EQ(sluice::detail::window_sort_bits(100, 4, 400), 0);                // all slots fit
  EXPECT_EQ(sluice::detail::window_sort_bits(101, 4, 400), 7);                // 7 bits: a full sort
}

TEST(ScatterPlan, PartialSortBitsFitAWindowInHalfTheL2) {
  // 2^28 u32 (1 GiB): windows of 2^22 slots (16 MiB) fit 25 MiB, so 6 bits, rounded up to a digit:
  // windows of 2^20 slots (4 MiB), docs/perf-notes.md's prediction.
  EXPECT_EQ(sc::choose_partial_sort_bits(two_to(28), 4, h100_l2), 8);
  EXPECT_EQ(sc::choose_partial_sort_bits(two_to(24), 4, h100_l2), 8);
  EXPECT_EQ(sc::choose_partial_sort_bits(two_to(30), 4, h100_l2), 8);
  EXPECT_EQ(sc::choose_partial_sort_bits(two_to(31), 4, h100_l2), 16);
  EXPECT_EQ(sc::choose_partial_sort_bits(two_to(32), 4, h100_l2), 16);
  EXPECT_EQ(sc::choose_partial_sort_bits(two_to(28), 16, h100_l2), 8);
  EXPECT_EQ(sc::choose_partial_sort_bits(two_to(29), 16, h100_l2), 16);
  EXPECT_EQ(sc::choose_partial_sort_bits(two_to(33), 1, h100_l2), 16);
  // The same windows as multireduce's rule for one set of the same values (one shared function).
  for (std::uint32_t m : {6553601u, 1u << 24, 1u << 30, 1u << 31})
    EXPECT_EQ(sc::choose_partial_sort_bits(m, 4, h100_l2), sluice::detail::window_sort_bits(m, 4, h100_l2 / 2)) << m;
  // A destination that fits still gets one digit (an explicit partial_sort sorts), never more bits
  // than an index in range has.
  EXPECT_EQ(sc::choose_partial_sort_bits(two_to(20), 4, h100_l2), 8);
  EXPECT_EQ(sc::choose_partial_sort_bits(31, 4, h100_l2), 5);
  EXPECT_EQ(sc::choose_partial_sort_bits(1, 4, h100_l2), 0);
  EXPECT_EQ(sc::choose_partial_sort_bits(0, 4, h100_l2), 0);
  // An L2 that holds no window (or none reported): a full sort of the index.
  EXPECT_EQ(sc::choose_partial_sort_bits(two_to(20) + 7, 4, 0), 21);
}

TEST(ScatterPlan, RequestedBitsAreClampedToTheIndex) {
  EXPECT_EQ(sc::partial_sort_bits(0, two_to(28), 4, h100_l2), 8);
  for (int b : {1, 8, 9, 16}) EXPECT_EQ(sc::partial_sort_bits(b, two_to(28), 4, h100_l2), b);
  EXPECT_EQ(sc::partial_sort_bits(9, 31, 4, h100_l2), 5);
  EXPECT_EQ(sc::partial_sort_bits(16, 33, 4, h100_l2), 6);
  EXPECT_EQ(sc::partial_sort_bits(1000, two_to(32), 4, h100_l2), 32);
  EXPECT_EQ(sc::partial_sort_bits(8, 1, 4, h100_l2), 0);  // one slot: nothing to sort by (direct)
}

TEST(ScatterPlan, AutomaticIsDirectAndExplicitStrategiesAreKept) {
  EXPECT_EQ(sc::resolve({}), scatter_algorithm::direct);
  EXPECT_EQ(sc::resolve({.algorithm = scatter_algorithm::direct}), scatter_algorithm::direct);
  EXPECT_EQ(sc::resolve({.algorithm = scatter_algorithm::partial_sort}), scatter_algorithm::partial_sort);
}

TEST(ScatterPlan, InvalidOptionsAreNamed) {
  using sluice::testing::expect_invalid_argument;
  EXPECT_NO_THROW(sc::check_options("scatter", {}));
  EXPECT_NO_THROW(
      sc::check_options("scatter", {.algorithm = scatter_algorithm::partial_sort, .partial_sort_bits = 64}));
  expect_invalid_argument([] { sc::check_options("scatter", {.partial_sort_bits = -1}); }, "options.partial_sort_bits");
  expect_invalid_argument([] { sc::check_options("scatter", {.algorithm = static_cast<scatter_algorithm>(7)}); },
                          "options.algorithm");
  expect_invalid_argument(
      [] { sc::check_options("scatter", {.semantics = static_cast<sluice::scatter_semantics>(7)}); },
      "options.semantics");
}

}  // namespace
