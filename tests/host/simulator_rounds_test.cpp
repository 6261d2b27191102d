// Host tests of the interleaved rounds of `sluice simulate` (sluice/host/simulator/rounds.hpp): the
// median and the spread of a row's rounds, the order in which a round visits the bucket counts (a
// permutation, the same for the same round, not the same in every round), the alternation of the two
// loops, the median machine description (every parameter its median; sizes whole sets), and the
// watch that tells a disturbed visit by the core time around it.
#include <sluice/host/simulator/rounds.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <set>
#include <vector>

namespace {

namespace sim = sluice::host::simulator;

TEST(SimulatorRounds, MedianOfOddAndEvenCounts) {
  EXPECT_DOUBLE_EQ(sim::median(std::vector<double>{3.0}), 3.0);
  EXPECT_DOUBLE_EQ(sim::median(std::vector<double>{5.0, 1.0, 4.0}), 4.0);
  EXPECT_DOUBLE_EQ(sim::median(std::vector<double>{0.72, 0.50, 0.51, 0.49, 0.95}), 0.51);  // two outliers do not move it
  EXPECT_DOUBLE_EQ(sim::median(std::vector<double>{4.0, 1.0, 2.0, 3.0}), 2.5);
  EXPECT_DOUBLE_EQ(sim::median(std::vector<double>{}), 0.0);
}

TEST(SimulatorRounds, SpreadIsMinMedianMax) {
  const std::vector<double> rounds{0.58, 0.72, 0.55, 0.61, 0.57};
  const sim::spread s = sim::spread_of(rounds);
  EXPECT_DOUBLE_EQ(s.min, 0.55);
  EXPECT_DOUBLE_EQ(s.median, 0.58);
  EXPECT_DOUBLE_EQ(s.max, 0.72);
  EXPECT_NEAR(s.relative_width(), (0.72 - 0.55) / 0.58, 1e-12);
  EXPECT_TRUE(s.contains(0.55));
  EXPECT_TRUE(s.contains(0.70));
  EXPECT_FALSE(s.contains(0.50));
  EXPECT_FALSE(s.contains(0.73));
  const sim::spread none = sim::spread_of(std::vector<double>{});
  EXPECT_DOUBLE_EQ(none.relative_width(), 0.0);
}

TEST(SimulatorRounds, MedianByPositionIsEachPointsMedian) {
  // Three rounds' translation sweeps (ns at 2^13, 2^14, 2^15, 2^16 pages): one disturbed round moves
  // no point, and each point takes its own median (not one round's sweep).
  const std::vector<std::vector<double>> sweeps{{17.6, 25.7, 168.4, 49.2}, {20.5, 33.6, 28.0, 184.4}, {19.0, 30.0, 30.0, 60.0}};
  const std::vector<double> m = sim::median_by_position(sweeps);
  ASSERT_EQ(m.size(), 4u);
  EXPECT_DOUBLE_EQ(m[0], 19.0);
  EXPECT_DOUBLE_EQ(m[1], 30.0);
  EXPECT_DOUBLE_EQ(m[2], 30.0);
  EXPECT_DOUBLE_EQ(m[3], 60.0);
  // Even count: the mean of the middle two; a shorter sweep shortens the result.
  const std::vector<std::vector<double>> two{{1.0, 2.0, 9.0}, {3.0, 4.0}};
  EXPECT_EQ(sim::median_by_position(two), (std::vector<double>{2.0, 3.0}));
  EXPECT_TRUE(sim::median_by_position(std::vector<std::vector<double>>{}).empty());
}

TEST(SimulatorRounds, DisturbanceWatchJudgesByTheQuickestCoreTime) {
  sim::disturbance_watch watch;
  EXPECT_TRUE(std::isinf(watch.quickest()));
  EXPECT_FALSE(watch.disturbed(5.0));  // nothing observed yet: nothing to compare with
  // A run that starts disturbed: the first core time is the slow one, so it judges nothing slow...
  watch.observe(1.02);
  EXPECT_FALSE(watch.disturbed(1.02));
  // ...until a quiet time comes in; then the shared-core times of 2026-11-27 are disturbed.
  watch.observe(0.58);
  EXPECT_DOUBLE_EQ(watch.quickest(), 0.58);
  EXPECT_TRUE(watch.disturbed(1.02));
  EXPECT_TRUE(watch.disturbed(0.58 * sim::disturbance_watch::slow_factor * 1.001));
  EXPECT_FALSE(watch.disturbed(0.58 * sim::disturbance_watch::slow_factor));  // at the bound: not yet
  EXPECT_FALSE(watch.disturbed(0.61));  // a quiet run's spread (0.56-0.61 on 2026-11-26, a54fd80)
  // A slower time observed later does not raise the bar.
  watch.observe(0.95);
  EXPECT_DOUBLE_EQ(watch.quickest(), 0.58);
  EXPECT_TRUE(watch.disturbed(0.95));
}

TEST(SimulatorRounds, RoundOrderIsAPermutation) {
  for (std::size_t count : {0u, 1u, 2u, 12u, 23u})
    for (std::size_t round = 0; round < 7; ++round) {
      auto order = sim::round_order(count, round);
      ASSERT_EQ(order.size(), count);
      std::sort(order.begin(), order.end());
      for (std::size_t i = 0; i < count; ++i) EXPECT_EQ(order[i], i) << "count " << count << " round " << round;
    }
}

TEST(SimulatorRounds, RoundOrderIsReproducibleAndDiffersBetweenRounds) {
  EXPECT_EQ(sim::round_order(12, 3), sim::round_order(12, 3));
  EXPECT_EQ(sim::round_order(12, 3, 99), sim::round_order(12, 3, 99));
  std::set<std::vector<std::size_t>> orders;
  std::set<std::size_t> firsts;
  for (std::size_t round = 0; round < 5; ++round) {
    const auto order = sim::round_order(12, round);
    orders.insert(order);
    firsts.insert(order.front());
  }
  EXPECT_EQ(orders.size(), 5u);   // five rounds, five orders
  EXPECT_GE(firsts.size(), 3u);   // and not the same bucket count first after every calibration
  EXPECT_NE(sim::round_order(12, 0, 1), sim::round_order(12, 0, 2));
}

TEST(SimulatorRounds, EveryPlaceVisitedOverManyRounds) {
  // Over many rounds each item comes first about equally often (a uniform shuffle: 1/count each).
  constexpr std::size_t count = 6, rounds = 6000;
  std::vector<std::size_t> first(count, 0);
  for (std::size_t round = 0; round < rounds; ++round) ++first[sim::round_order(count, round).front()];
  for (std::size_t i = 0; i < count; ++i) {
    EXPECT_GT(first[i], rounds / count * 8 / 10) << i;
    EXPECT_LT(first[i], rounds / count * 12 / 10) << i;
  }
}

TEST(SimulatorRounds, LoopsAlternate) {
  EXPECT_TRUE(sim::naive_first(0));
  EXPECT_FALSE(sim::naive_first(1));
  EXPECT_TRUE(sim::naive_first(2));
}

sim::machine_description described(std::size_t l2_bytes, double l2_latency, double l2_slots, double memory_latency,
                                   double memory_slots) {
  sim::machine_description m;
  m.caches = {{"L1", {32 * 1024, 64, 8}, 1.0, 1}, {"L2", {l2_bytes, 64, 16}, l2_latency, l2_slots}};
  m.tlb = {4096, {{"L1 DTLB", 64, 0, 0.0}, {"L2 DTLB", 2048, 8, 2.0}}, 30.0, 64};
  m.timing = {.memory_latency_ns = memory_latency, .memory_ns_per_line = 2.0, .miss_slots = memory_slots, .prefetch = true};
  return m;
}

TEST(SimulatorRounds, MedianMachineTakesEachParametersMedian) {
  const std::vector<sim::machine_description> rounds{described(900 * 1024, 5.0, 9.0, 170.0, 30.0),
                                                     described(600 * 1024, 6.5, 8.0, 190.0, 18.0),
                                                     described(1000 * 1024, 4.9, 10.5, 172.0, 28.0)};
  const sim::machine_description m = sim::median_machine(rounds);
  ASSERT_EQ(m.caches.size(), 2u);
  EXPECT_EQ(m.caches[0].geometry.size_bytes, 32u * 1024);
  EXPECT_EQ(m.caches[1].geometry.size_bytes, 900u * 1024);  // 900 KiB is a whole number of 1 KiB sets
  EXPECT_DOUBLE_EQ(m.caches[1].latency_ns, 5.0);
  EXPECT_DOUBLE_EQ(m.caches[1].miss_slots, 9.0);
  EXPECT_EQ(m.caches[1].geometry.associativity, 16u);
  EXPECT_EQ(m.caches[1].name, "L2");
  EXPECT_DOUBLE_EQ(m.timing.memory_latency_ns, 172.0);
  EXPECT_DOUBLE_EQ(m.timing.miss_slots, 28.0);
  EXPECT_DOUBLE_EQ(m.timing.memory_ns_per_line, 2.0);
  EXPECT_EQ(m.tlb.levels.size(), 2u);
  EXPECT_DOUBLE_EQ(m.tlb.levels[1].hit_penalty_ns, 2.0);
  EXPECT_DOUBLE_EQ(m.tlb.walk_slots, 64.0);
}

TEST(SimulatorRounds, MedianMachineSlotsKeepTheMedianLoss) {
  // Losses per access (latency / slots): 1, 3 and 0.5 ns; the median latency 20 ns over the median loss
  // 1 ns is 20 slots, where the median of the slots alone (10) would lose 2 ns per access, which no
  // round did but the slowest.
  const std::vector<sim::machine_description> rounds{described(900 * 1024, 10.0, 10.0, 100.0, 10.0),
                                                     described(900 * 1024, 30.0, 10.0, 300.0, 10.0),
                                                     described(900 * 1024, 20.0, 40.0, 200.0, 40.0)};
  const sim::machine_description m = sim::median_machine(rounds);
  EXPECT_DOUBLE_EQ(m.caches[1].latency_ns, 20.0);
  EXPECT_DOUBLE_EQ(m.caches[1].miss_slots, 20.0);
  EXPECT_DOUBLE_EQ(m.timing.memory_latency_ns, 200.0);
  EXPECT_DOUBLE_EQ(m.timing.miss_slots, 20.0);
  EXPECT_DOUBLE_EQ(m.caches[0].miss_slots, 1.0);  // one slot in every round stays one
  // Rounds that agree on the loss (1 ns per access) give the median round's latency and slots.
  const std::vector<sim::machine_description> capped{described(900 * 1024, 64.0, 64.0, 100.0, 10.0),
                                                     described(900 * 1024, 8.0, 8.0, 100.0, 10.0),
                                                     described(900 * 1024, 8.0, 8.0, 100.0, 10.0)};
  const sim::machine_description c = sim::median_machine(capped);
  EXPECT_DOUBLE_EQ(c.caches[1].latency_ns, 8.0);
  EXPECT_DOUBLE_EQ(c.caches[1].miss_slots, 8.0);
}

TEST(SimulatorRounds, MedianMachineSizesAreWholeSets) {
  // Two rounds: the median of 600 KiB and 601 KiB + 64 B is not a whole number of 1 KiB sets.
  const std::vector<sim::machine_description> rounds{described(600 * 1024, 5.0, 9.0, 170.0, 30.0),
                                                     described(601 * 1024 + 64, 5.0, 9.0, 170.0, 30.0)};
  const sim::machine_description m = sim::median_machine(rounds);
  EXPECT_EQ(m.caches[1].geometry.size_bytes, 600u * 1024);
  EXPECT_EQ(m.caches[1].geometry.sets() * m.caches[1].geometry.associativity * 64, m.caches[1].geometry.size_bytes);
}

TEST(SimulatorRounds, MedianCosts) {
  const std::vector<sim::loop_costs> rounds{
      {0, 0.47, 0.86, 2.27, 1873}, {0, 0.72, 1.29, 3.22, 2500}, {0, 0.45, 0.83, 2.25, 1900}};
  const sim::loop_costs c = sim::median_costs(rounds);
  EXPECT_DOUBLE_EQ(c.fold_ns, 0.47);
  EXPECT_DOUBLE_EQ(c.count_ns, 0.86);
  EXPECT_DOUBLE_EQ(c.distribute_ns, 2.27);
  EXPECT_DOUBLE_EQ(c.page_fault_ns, 1900);
}

}  // namespace
