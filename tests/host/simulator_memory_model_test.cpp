// Host tests of the simulator's timing (sluice/host/simulator/memory_model.hpp): memory-level
// parallelism overlaps independent misses (latency / slots each, with each level's own slots) but not
// a dependent chain (the full latency each, the thesis's forced-sequential variant, Eilers §2.4); the
// lost time adds to the core's work; walks overlap by their own slots; stores take none; the memory
// channel bounds streams; the stride prefetcher hides sequential lines but not random ones.
#include <sluice/host/simulator/memory_model.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>

namespace {

namespace sim = sluice::host::simulator;

constexpr double latency = 100, l1_latency = 1;

/// One 32 KiB level, a TLB whose one huge page covers everything, memory at `latency`.
sim::machine_description toy_machine(double slots, double ns_per_line, bool prefetch) {
  sim::machine_description m;
  m.caches = {{"L1", {32 * 1024, 64, 8}, l1_latency, 1}};
  m.tlb = {std::size_t{1} << 40, {{"DTLB", 4, 0, 0.0}}, 0.0};
  m.timing = {.memory_latency_ns = latency, .memory_ns_per_line = ns_per_line, .miss_slots = slots, .prefetch = prefetch};
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

TEST(SimulatorMemoryModel, CoreWorkAndLostMissTimeAdd) {
  // 10 slots of 100 ns lose the core 10 ns per miss, on top of its 20 ns of work per iteration.
  sim::memory_model model(toy_machine(10, 0.0, false));
  for (std::size_t i = 0; i < n; ++i) {
    model.next_iteration(20.0);
    model.load(scattered(i), 0);
  }
  EXPECT_NEAR(model.elapsed_ns(), n * 30.0, latency + 30.0);
}

TEST(SimulatorMemoryModel, EachLevelOverlapsItsOwnSlots) {
  // A 256 KiB second level (10 ns, 4 slots) under the 32 KiB first: a cycle over 2048 lines (128 KiB)
  // misses the first level every time under LRU and hits the second from its second round on, so a
  // round costs 2048 · 10 / 4 ns; memory's 10 slots do not help it.
  sim::machine_description m = toy_machine(10, 0.0, false);
  m.caches.push_back({"L2", {256 * 1024, 64, 8}, 10.0, 4});
  sim::memory_model model(m);
  constexpr std::size_t lines = 2048;
  for (std::size_t round = 0; round < 2; ++round)
    for (std::size_t i = 0; i < lines; ++i) {
      model.next_iteration(0.0);
      model.load(i * 64, 0);
    }
  // The first round from memory, 10 at a time; the second from the second level, 4 at a time.
  EXPECT_NEAR(model.elapsed_ns(), lines * latency / 10 + lines * 10.0 / 4, 10.0);
  EXPECT_EQ(model.statistics().served_by[1], lines);
  EXPECT_EQ(model.statistics().served_by[2], lines);
}

TEST(SimulatorMemoryModel, WalksOverlapByWalkSlots) {
  // A 4-entry TLB cycled over 8 pages walks on every access (LRU); the lines stay in the first level
  // after the first round, so each access loses the core 50 ns walk / 5 walkers.
  sim::machine_description m = toy_machine(10, 0.0, false);
  m.tlb = {4096, {{"DTLB", 4, 0, 0.0}}, 50.0, 5};
  sim::memory_model model(m);
  for (std::size_t i = 0; i < n; ++i) {
    model.next_iteration(0.0);
    model.load((i % 8) * 4096, 0);
  }
  EXPECT_EQ(model.statistics().translated_by[1], n);
  EXPECT_EQ(model.statistics().served_by[1], 8u);
  EXPECT_NEAR(model.elapsed_ns(), n * 10.0 + 8 * latency / 10, latency + 50.0);
}

TEST(SimulatorMemoryModel, StoresTakeNoSlot) {
  // One slot would space loads 100 ns apart; stores all start at once and end one latency later.
  sim::memory_model model(toy_machine(1, 0.0, false));
  for (std::size_t i = 0; i < n; ++i) {
    model.next_iteration(0.0);
    model.store(scattered(i), 0);
  }
  EXPECT_DOUBLE_EQ(model.elapsed_ns(), latency);
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
