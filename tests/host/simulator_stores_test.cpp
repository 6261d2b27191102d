// Host tests of the simulator's store side (sluice/host/simulator/write_streams.hpp and its use in
// memory_model.hpp): the tracker follows up to its number of write streams and, under LRU, none of one
// more used in turn, and K/S of S used in random order; the store sweep's estimators recover K and the
// cost of a store miss from a sweep built on that premise and ignore noise where the premise makes the
// estimate ill-conditioned; the memory model charges stores to memory past the followed streams and
// nothing else; the partial sort's distribution (Eilers §2.4) pays it at many groups and not at few.
#include <sluice/host/simulator/address_streams.hpp>
#include <sluice/host/simulator/memory_model.hpp>
#include <sluice/host/simulator/rounds.hpp>
#include <sluice/host/simulator/write_streams.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace {

namespace sim = sluice::host::simulator;

/// Stream s's k-th line: streams far apart, each walking its own lines in order.
constexpr std::uint64_t line_of(std::size_t stream, std::size_t k) { return (std::uint64_t{stream} << 32) + k; }

/// Stores of `streams` streams in turn, 100 lines each, under a tracker of `kept`: how many it follows.
std::size_t followed_in_turn(std::size_t streams, std::size_t kept) {
  sim::write_stream_tracker tracker(kept);
  std::size_t followed = 0;
  for (std::size_t k = 0; k < 100; ++k)
    for (std::size_t s = 0; s < streams; ++s) followed += tracker.follows(line_of(s, k)) ? 1 : 0;
  return followed;
}

TEST(SimulatorStores, TrackerFollowsUpToItsStreams) {
  // 4 streams in turn under a tracker of 4: only each stream's first line starts a stream.
  const std::size_t started = 4 * 100 - followed_in_turn(4, 4);
  EXPECT_EQ(started, 4u);
}

TEST(SimulatorStores, OneStreamTooManyInTurnFollowsNone) {
  // 5 streams in turn under a tracker of 4: LRU drops each stream just before it comes back.
  EXPECT_EQ(followed_in_turn(5, 4), 0u);
}

TEST(SimulatorStores, TrackerFollowsTheSameLineAndTheNextOnly) {
  sim::write_stream_tracker tracker(2);
  EXPECT_FALSE(tracker.follows(100));
  EXPECT_TRUE(tracker.follows(100));   // the stream's last line again (evicted from the first level)
  EXPECT_TRUE(tracker.follows(101));   // its next line
  EXPECT_FALSE(tracker.follows(103));  // a gap: another stream
  sim::write_stream_tracker none(0);
  EXPECT_FALSE(none.follows(100));
  EXPECT_FALSE(none.follows(100));
}

TEST(SimulatorStores, RandomStreamsAreFollowedKOverS) {
  // 64 streams in random order under a tracker of 16: a share 16/64 of the new lines is followed (the
  // premise of write_streams_kept).
  constexpr std::size_t kept = 16, streams = 64, stores = 200000;
  sim::write_stream_tracker tracker(kept);
  std::vector<std::size_t> next(streams, 0);
  std::uint64_t state = 42;
  std::size_t followed = 0;
  for (std::size_t i = 0; i < stores; ++i) {
    const std::size_t s = static_cast<std::size_t>(sim::splitmix64(state) % streams);
    followed += tracker.follows(line_of(s, next[s]++)) ? 1 : 0;
  }
  EXPECT_NEAR(static_cast<double>(followed) / stores, static_cast<double>(kept) / streams, 0.02);
}

/// A store sweep (2 … 1024 streams) as the premise has it: e(S) = e∞·(1 − K/S), nothing below K.
std::vector<sim::store_point> premise_sweep(double kept, double full_ns) {
  std::vector<sim::store_point> sweep;
  for (std::size_t streams = 2; streams <= 1024; streams *= 2)
    sweep.push_back({streams, static_cast<double>(streams) <= kept ? 0.0 : full_ns * (1 - kept / static_cast<double>(streams))});
  return sweep;
}

TEST(SimulatorStores, SweepGivesTheStreamsKeptAndTheMissCost) {
  const auto sweep = premise_sweep(24, 2.4);
  const std::size_t kept = sim::write_streams_kept(sweep);
  EXPECT_NEAR(static_cast<double>(kept), 24.0, 1.0);  // from the point at 32 streams, the only one in between
  // 2.4 ns per element over 1/8 new line per element, all of them missed: 19.2 ns per store miss.
  EXPECT_NEAR(sim::store_miss_ns(sweep, 24, 1.0 / 8), 19.2, 1e-9);
  // Where the widest point is followed, or costs nothing, stores cost nothing.
  EXPECT_DOUBLE_EQ(sim::store_miss_ns(sweep, 1024, 1.0 / 8), 0.0);
  EXPECT_DOUBLE_EQ(sim::store_miss_ns(premise_sweep(24, 0.0), 24, 1.0 / 8), 0.0);
  EXPECT_EQ(sim::write_streams_kept(premise_sweep(24, 0.0)), 1024u);  // nothing measurable: every stream followed
}

TEST(SimulatorStores, StreamsKeptIgnoreWidePointsReadLow) {
  // The quiet scratch probe of docs/simulator.md (touched minus cached, ns per element): the points at
  // ≤ 32 streams say K ≥ 30; 64 costs more than half the widest and does not count.
  std::vector<sim::store_point> probe{{2, 0.06},   {4, -0.03},  {8, 0.0},    {16, -0.03}, {32, 0.13},
                                      {64, 1.43},  {128, 2.30}, {256, 2.31}, {512, 2.45}, {1024, 2.40}};
  EXPECT_EQ(sim::write_streams_kept(probe), 30u);
  // 512 streams read 0.1 ns below the premise (K = 27) would say K = 66 on their own: still 30.
  probe[8].extra_ns = 2.4 / (1 - 27.0 / 1024) * (1 - 27.0 / 512) - 0.1;
  EXPECT_GT(sim::capacity_from_random_updates(512, probe[8].extra_ns, 0.0, 2.4, 1024), 60u);
  EXPECT_EQ(sim::write_streams_kept(probe), 30u);
  // Even the narrowest costing the widest's time: nothing is followed.
  EXPECT_EQ(sim::write_streams_kept(std::vector<sim::store_point>{{2, 2.0}, {1024, 2.0}}), 0u);
}

constexpr double latency = 100;

/// One 32 KiB level, a TLB whose one huge page covers everything, memory at `latency`, stores past
/// `streams` write streams costing `miss_ns`.
sim::machine_description store_machine(std::size_t streams, double miss_ns) {
  sim::machine_description m;
  m.caches = {{"L1", {32 * 1024, 64, 8}, 1.0, 1}};
  m.tlb = {std::size_t{1} << 40, {{"DTLB", 4, 0, 0.0}}, 0.0};
  m.timing = {.memory_latency_ns = latency, .memory_ns_per_line = 0.0, .miss_slots = 1, .prefetch = false,
              .write_streams = streams, .store_miss_ns = miss_ns};
  return m;
}

/// `streams` streams of stores in turn, one store per new line, `rounds` lines each.
sim::memory_model stores_in_turn(std::size_t streams, std::size_t rounds, const sim::machine_description& machine) {
  sim::memory_model model(machine);
  for (std::size_t k = 0; k < rounds; ++k)
    for (std::size_t s = 0; s < streams; ++s) {
      model.next_iteration(0.0);
      model.store(line_of(s, k) * 64, 0);
    }
  return model;
}

TEST(SimulatorStores, StoresToMemoryPastTheStreamsAreCharged) {
  constexpr std::size_t rounds = 1000;
  // 4 streams under 4 followed: the first line of each is charged, then nothing (stores take no slot).
  const sim::memory_model kept = stores_in_turn(4, rounds, store_machine(4, 10.0));
  EXPECT_EQ(kept.statistics().untracked_store_misses, 4u);
  EXPECT_DOUBLE_EQ(kept.elapsed_ns(), 4 * 10.0 + latency);
  // 8 streams under 4: every store starts a stream and costs the core 10 ns.
  const sim::memory_model past = stores_in_turn(8, rounds, store_machine(4, 10.0));
  EXPECT_EQ(past.statistics().untracked_store_misses, 8 * rounds);
  EXPECT_DOUBLE_EQ(past.elapsed_ns(), (8 * rounds - 1) * 10.0 + latency);  // the last store issues before its charge
  // With no cost (the model before the store sweep) stores still take no time.
  EXPECT_DOUBLE_EQ(stores_in_turn(8, rounds, store_machine(4, 0.0)).elapsed_ns(), latency);
}

TEST(SimulatorStores, StoresTheCachesServeAreNotCharged) {
  // A store to a line the first level holds, and one to a line only a cache holds, cost nothing however
  // few streams are followed; loads are not stores.
  sim::machine_description m = store_machine(0, 10.0);
  m.caches.push_back({"L2", {1024 * 1024, 64, 16}, 5.0, 8});
  sim::memory_model model(m);
  model.load(0, 0);                      // from memory: the line now in both levels
  model.store(0, 1);                     // first level
  for (std::size_t i = 1; i <= 1024; ++i) model.load(i * 64, 0);  // 64 KiB: pushes line 0 out of the first level
  model.store(0, 1);                     // second level
  EXPECT_EQ(model.statistics().untracked_store_misses, 0u);
  model.store(std::uint64_t{1} << 30, 1);  // memory, no stream followed: charged
  EXPECT_EQ(model.statistics().untracked_store_misses, 1u);
}

std::vector<std::uint64_t> random_labels(std::size_t n, std::uint64_t m) {
  std::vector<std::uint64_t> labels(n);
  std::uint64_t state = 7;
  for (auto& l : labels) l = sim::splitmix64(state) % m;
  return labels;
}

TEST(SimulatorStores, PartialSortPaysPastTheStreamsOnly) {
  // The distribution writes 2 · 2^bits streams (a label and a value array per group), a new line every
  // 16 stores of each. Under 8 followed streams: 1 bit (4 streams) charges only the first lines; 6 bits
  // (128 streams) charge (1 − 8/128) of the n/8 new lines.
  const std::size_t n = 1 << 16, m = 1 << 16;
  const auto labels = random_labels(n, m);
  const auto label_at = [&](std::size_t i) { return labels[i]; };
  sim::machine_description machine = store_machine(8, 50.0);
  // A second level catches the first's victims (the groups start 4 KiB apart and alias in its sets), so
  // that memory serves the new lines only, as on the calibrated machine.
  machine.caches.push_back({"L2", {1024 * 1024, 64, 16}, 5.0, 8});
  machine.tlb = {4096, {{"DTLB", 4096, 8, 0.0}}, 0.0};
  const auto few = sim::simulate_partial_sort(machine, {}, {n, m, 4, 4, 1, 0}, label_at);
  EXPECT_LE(few.statistics.untracked_store_misses, 8u);
  const auto many = sim::simulate_partial_sort(machine, {}, {n, m, 4, 4, 6, 0}, label_at);
  EXPECT_NEAR(static_cast<double>(many.statistics.untracked_store_misses), n / 8.0 * (1 - 8.0 / 128), n / 8.0 * 0.05);
  // The charge lands in the distribution: 50 ns per store miss past the streams.
  machine.timing.store_miss_ns = 0;
  const auto free_stores = sim::simulate_partial_sort(machine, {}, {n, m, 4, 4, 6, 0}, label_at);
  ASSERT_EQ(many.phases[2].name, "distribute");
  EXPECT_NEAR(many.phases[2].ns - free_stores.phases[2].ns,
              50.0 * static_cast<double>(many.statistics.untracked_store_misses), 50.0 * 16);
}

TEST(SimulatorStores, MedianMachineTakesTheStoreParametersMedian) {
  const std::vector<sim::machine_description> rounds{store_machine(24, 18.0), store_machine(40, 25.0),
                                                     store_machine(32, 20.0)};
  const sim::machine_description m = sim::median_machine(rounds);
  EXPECT_EQ(m.timing.write_streams, 32u);
  EXPECT_DOUBLE_EQ(m.timing.store_miss_ns, 20.0);
  // An even count: 24 and 31 streams, 27.5, rounded down to whole streams.
  const std::vector<sim::machine_description> two{store_machine(24, 18.0), store_machine(31, 25.0)};
  EXPECT_EQ(sim::median_machine(two).timing.write_streams, 27u);
  EXPECT_DOUBLE_EQ(sim::median_machine(two).timing.store_miss_ns, 21.5);
}

}  // namespace
