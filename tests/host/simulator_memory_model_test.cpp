// Host tests of the simulator's timing (sluice/host/simulator/memory_model.hpp): memory-level
// parallelism overlaps independent misses (latency / slots each) but not a dependent chain (the full
// latency each, the thesis's forced-sequential variant, Eilers §2.4); the memory channel bounds
// streams; the stride prefetcher hides sequential lines but not random ones.
#include <sluice/host/simulator/memory_model.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>

namespace {

namespace sim = sluice::host::simulator;

constexpr double latency = 100, l1_latency = 1;

/// One 32 KiB level, a TLB whose one huge page covers everything, memory at `latency`.
sim::machine_description toy_machine(unsigned slots, double ns_per_line, bool prefetch) {
  sim::machine_description m;
  m.caches = {{"L1", {32 * 1024, 64, 8}, l1_latency}};
  m.tlb = {std::size_t{1} << 40, {{"DTLB", 4, 0, 0.0}}, 0.0};
  m.timing = {latency, ns_per_line, slots, prefetch};
  return m;
}

constexpr std::size_t n = 10000;
// Lines far apart, never reused: each access is a miss to memory.
constexpr std::uint64_t scattered(std::size_t i) { return (std::uint64_t{1} << 30) + static_cast<std::uint64_t>(i) * 4096 * 7; }

TEST(SimulatorMemoryModel, IndependentMissesOverlapBySlots) {
  sim::memory_model model(toy_machine(10, 0.0, false));
  for (std::size_t i = 0; i < n; ++i) {
    model.next_iteration(0.0);
    model.load(scattered(i), 0);
  }
  EXPECT_NEAR(model.elapsed_ns(), n * latency / 10, latency);
  EXPECT_EQ(model.statistics().served_by[1], n);
}

TEST(SimulatorMemoryModel, DependentChainPaysEveryLatency) {
  sim::memory_model model(toy_machine(10, 0.0, false));
  double ready = 0;
  for (std::size_t i = 0; i < n; ++i) {
    model.next_iteration(0.0);
    ready = model.load(scattered(i), 0, ready);
  }
  EXPECT_DOUBLE_EQ(model.elapsed_ns(), n * latency);
}

TEST(SimulatorMemoryModel, OneSlotIsTheThesisSequentialModel) {
  sim::memory_model model(toy_machine(1, 0.0, false));
  for (std::size_t i = 0; i < n; ++i) {
    model.next_iteration(0.0);
    model.load(scattered(i), 0);
  }
  EXPECT_DOUBLE_EQ(model.elapsed_ns(), n * latency);
}

TEST(SimulatorMemoryModel, CoreWorkHidesMissesItCanOverlap) {
  // 10 slots of 100 ns allow a miss every 10 ns; a core that needs 20 ns per iteration is the bound.
  sim::memory_model model(toy_machine(10, 0.0, false));
  for (std::size_t i = 0; i < n; ++i) {
    model.next_iteration(20.0);
    model.load(scattered(i), 0);
  }
  EXPECT_NEAR(model.elapsed_ns(), n * 20.0, latency + 20.0);
}

TEST(SimulatorMemoryModel, MemoryChannelBoundsManySlots) {
  sim::memory_model model(toy_machine(1000, 5.0, false));
  for (std::size_t i = 0; i < n; ++i) {
    model.next_iteration(0.0);
    model.load(scattered(i), 0);
  }
  EXPECT_NEAR(model.elapsed_ns(), n * 5.0, latency);
}

TEST(SimulatorMemoryModel, PrefetcherHidesASequentialStreamButCostsBandwidth) {
  sim::memory_model model(toy_machine(1, 2.0, true));
  for (std::size_t i = 0; i < n; ++i) {
    model.next_iteration(0.0);
    model.load(i * 64, 0);  // one access per line, in order
  }
  EXPECT_EQ(model.statistics().served_by[1], 1u);  // only the first line is a demand miss
  EXPECT_EQ(model.statistics().prefetched_lines, n - 1);
  EXPECT_NEAR(model.elapsed_ns(), n * 2.0, latency);
}

TEST(SimulatorMemoryModel, PrefetcherIgnoresRandomSites) {
  sim::memory_model model(toy_machine(1, 0.0, true));
  for (std::size_t i = 0; i < n; ++i) {
    model.next_iteration(0.0);
    model.load(i * 64, 0);       // a sequential site
    model.load(scattered(i), 1);  // a random one: its misses stay misses
  }
  EXPECT_EQ(model.statistics().served_by[1], n + 1);
}

}  // namespace
