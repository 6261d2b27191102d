// Host tests of the simulator's address streams (sluice/host/simulator/address_streams.hpp): the
// naive multireduce issues one access per line of its sequential arrays and a load and store per
// bucket update; the partial sort's group order is the stable order by the top bits of the label;
// sampling simulates the stated prefix and scales it to the loop.
#include <sluice/host/simulator/address_streams.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace {

namespace sim = sluice::host::simulator;

sim::machine_description roomy_machine() {
  sim::machine_description m;
  m.caches = {{"L1", {1 << 20, 64, 16}, 1.0, 1}};
  m.tlb = {4096, {{"DTLB", 4096, 8, 0.0}}, 20.0};
  m.timing = {.memory_latency_ns = 100.0, .memory_ns_per_line = 1.0, .miss_slots = 8, .prefetch = true};
  return m;
}

std::vector<std::uint64_t> some_labels(std::size_t n, std::uint64_t m) {
  std::vector<std::uint64_t> labels(n);
  for (std::size_t i = 0; i < n; ++i) labels[i] = (i * 2654435761u) % m;
  return labels;
}

TEST(SimulatorStreams, NaiveIssuesOneAccessPerLineAndTwoPerUpdate) {
  const std::size_t n = 4096, m = 16;
  const auto labels = some_labels(n, m);
  const auto run = sim::simulate_naive(roomy_machine(), {}, {n, m, 4, 4, 0, 0}, [&](std::size_t i) { return labels[i]; });
  const std::size_t lines_of_inputs = 2 * n * 4 / 64, lines_of_buckets = m * 4 / 64;
  EXPECT_EQ(run.statistics.accesses, lines_of_buckets + lines_of_inputs + 2 * n);
  ASSERT_EQ(run.phases.size(), 2u);
  EXPECT_EQ(run.phases[1].simulated, n);
  EXPECT_GT(run.ns_per_element(n), 0.0);
}

TEST(SimulatorStreams, SamplingSimulatesThePrefixAndScales) {
  const std::size_t n = 1 << 16, m = 1 << 10;
  const auto labels = some_labels(n, m);
  const auto label_at = [&](std::size_t i) { return labels[i]; };
  const auto full = sim::simulate_naive(roomy_machine(), {}, {n, m, 4, 4, 0, 0}, label_at);
  const auto sampled = sim::simulate_naive(roomy_machine(), {}, {n, m, 4, 4, 0, n / 4}, label_at);
  EXPECT_EQ(sampled.phases[1].simulated, n / 4);
  EXPECT_EQ(sampled.phases[1].iterations, n);
  EXPECT_NEAR(sampled.phases[1].ns, full.phases[1].ns, 0.1 * full.phases[1].ns);  // a stationary loop
}

TEST(SimulatorStreams, GroupOrderIsStableByTopBits) {
  const std::size_t n = 1000;
  const auto labels = some_labels(n, 256);
  const int shift = 5;  // 8 groups of 32 labels
  std::vector<std::size_t> sizes(8, 0);
  for (auto l : labels) ++sizes[l >> shift];
  const auto label_at = [&](std::size_t i) { return labels[i]; };
  const sim::detail::group_order<decltype(label_at)> order(label_at, n, shift, sizes, 100);  // several batches
  std::vector<std::uint64_t> seen;
  order.for_each(n, [&](std::uint64_t l) { seen.push_back(l); });
  std::vector<std::uint64_t> expected = labels;
  std::stable_sort(expected.begin(), expected.end(), [&](auto a, auto b) { return (a >> shift) < (b >> shift); });
  EXPECT_EQ(seen, expected);
}

TEST(SimulatorStreams, PartialSortKeepsRandomAccessesInsideAGroup) {
  // 2^16 buckets of 4 bytes (256 KiB) do not fit a 32 KiB first level; 4 bits leave groups of 4096
  // buckets (16 KiB) that do, so the sorted loop's bucket updates hit where the naive loop's miss.
  const std::size_t n = 1 << 17, m = 1 << 16;
  const auto labels = some_labels(n, m);
  const auto label_at = [&](std::size_t i) { return labels[i]; };
  sim::machine_description small = roomy_machine();
  small.caches = {{"L1", {32 * 1024, 64, 8}, 1.0, 1}};
  const auto naive = sim::simulate_naive(small, {}, {n, m, 4, 4, 0, 0}, label_at);
  const auto sorted = sim::simulate_partial_sort(small, {}, {n, m, 4, 4, 4, 0}, label_at);
  ASSERT_EQ(sorted.phases.size(), 4u);  // fill, count, distribute, fold groups
  EXPECT_LT(sorted.phases[3].ns, naive.phases[1].ns / 2);
}

}  // namespace
