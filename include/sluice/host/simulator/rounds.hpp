// sluice/host/simulator/rounds.hpp: the statistics of `sluice simulate`'s interleaved rounds.
//
// On a shared machine the time of one loop moves between two runs a minute apart (docs/simulator.md,
// "Interleaved rounds"). A row measured once, with a machine description taken
// once just before it, compares the model with whatever a neighbour did during those seconds. So
// `sluice simulate` measures in rounds: every round calibrates the machine once and then measures
// every bucket count once, in an order shuffled per round; each bucket count reports the median over
// the rounds (with the smallest and the largest, so that the noise stays visible), and the model gets
// the median of every calibrated parameter over the same rounds. The measured and the simulated side
// are thus taken over the same minutes, and one disturbed round moves neither median.
//
// Pure functions, tested in tests/host/simulator_rounds_test.cpp.
#pragma once

#include <sluice/core/mix.hpp>
#include <sluice/host/simulator/address_streams.hpp>
#include <sluice/host/simulator/memory_model.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <utility>
#include <vector>

namespace sluice::host::simulator {

/// The median of `values` (the mean of the middle two for an even count; 0 for none).
[[nodiscard]] inline double median(std::span<const double> values) {
  if (values.empty()) return 0;
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  const std::size_t half = sorted.size() / 2;
  return sorted.size() % 2 == 1 ? sorted[half] : (sorted[half - 1] + sorted[half]) / 2;
}

/// The median at each position over the rounds' sweeps (each a vector of the same measured points, in
/// the same order): the median sweep, as long as the shortest. A once-measured sweep is one draw from
/// a machine whose neighbours move it several-fold; a sweep per round and its median per point is what
/// every other calibrated parameter gets.
[[nodiscard]] inline std::vector<double> median_by_position(std::span<const std::vector<double>> sweeps) {
  if (sweeps.empty()) return {};
  std::size_t points = sweeps.front().size();
  for (const auto& s : sweeps) points = std::min(points, s.size());
  std::vector<double> out(points);
  std::vector<double> at(sweeps.size());
  for (std::size_t i = 0; i < points; ++i) {
    for (std::size_t r = 0; r < sweeps.size(); ++r) at[r] = sweeps[r][i];
    out[i] = median(at);
  }
  return out;
}

/// The smallest, the median and the largest of a set of measurements.
struct spread {
  double min = 0, median = 0, max = 0;

  /// (max − min) / median: how far apart the rounds were, relative to what is reported.
  [[nodiscard]] double relative_width() const { return median > 0 ? (max - min) / median : 0.0; }
  /// Whether `x` lies within [min, max].
  [[nodiscard]] bool contains(double x) const { return min <= x && x <= max; }
};

[[nodiscard]] inline spread spread_of(std::span<const double> values) {
  if (values.empty()) return {};
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  return {*lo, median(values), *hi};
}

/// Tells a visit that a neighbour disturbed from one that ran on the machine alone, by the straight
/// loop's core time (a 10 ms loop in the first level) taken on either side of the visit: a neighbour on
/// the core slows it far past its quiet spread. The model describes the machine alone, so `sluice
/// simulate` times such a visit again. The judge is the core loop, never the measured time itself: a
/// visit is kept or redone for what happened around it, not for the number it gave.
class disturbance_watch {
 public:
  /// Slower than this many times the quickest core time of the run: disturbed (between quiet spread and a shared core).
  static constexpr double slow_factor = 1.25;

  /// Takes in one core time (from the visits or from a round's calibration).
  void observe(double core_ns) { quickest_ = std::min(quickest_, core_ns); }
  /// Whether `core_ns` is a disturbed core time (never, before any time was observed).
  [[nodiscard]] bool disturbed(double core_ns) const { return core_ns > slow_factor * quickest_; }
  /// The quickest core time observed so far (infinity before the first).
  [[nodiscard]] double quickest() const { return quickest_; }

 private:
  double quickest_ = std::numeric_limits<double>::infinity();
};

/// splitmix64: a small, fully specified generator (the standard library's distributions are not the
/// same on every implementation; the order of a round should be).
[[nodiscard]] constexpr std::uint64_t splitmix64(std::uint64_t& state) {
  return sluice::detail::mix64(state += 0x9e3779b97f4a7c15ULL);
}

/// The order in which round `round` visits `count` items: a permutation of [0, count), shuffled
/// (Fisher–Yates) by a generator seeded with `seed` and the round, so that the same call gives the same
/// order and no item keeps its place (first after the calibration, or right after the largest) in
/// every round.
[[nodiscard]] inline std::vector<std::size_t> round_order(std::size_t count, std::size_t round, std::uint64_t seed = 0x5eed) {
  std::vector<std::size_t> order(count);
  for (std::size_t i = 0; i < count; ++i) order[i] = i;
  std::uint64_t state = seed ^ (0xd1b54a32d192ed03ULL * (static_cast<std::uint64_t>(round) + 1));
  for (std::size_t i = count; i > 1; --i) {
    const std::size_t j = static_cast<std::size_t>(splitmix64(state) % i);  // bias below 2^-40 for any count here
    std::swap(order[i - 1], order[j]);
  }
  return order;
}

/// Whether round `round` measures the straight loop before the partial sort (alternating, so that
/// neither always runs second, after the other has filled the caches and the page cache).
[[nodiscard]] constexpr bool naive_first(std::size_t round) { return round % 2 == 0; }

/// The median of each parameter over the rounds' descriptions (all of the same machine: the same
/// levels, names and geometry but for the sizes). A level's size is the median size rounded down to a
/// whole number of its sets (at least one set), as a cache of that associativity must be; the write
/// streams followed, the median rounded down to whole streams. Slots are
/// not medians of their own: what a round measures is the latency and the time the core loses per
/// access (latency / slots), and the loss is what independent accesses cost, so the slots are the
/// median latency over the median loss (within the rounds' own range of slots). The median of the
/// slots alone can pair a latency with a loss that no round measured.
[[nodiscard]] inline machine_description median_machine(std::span<const machine_description> rounds) {
  if (rounds.empty()) return {};
  machine_description out = rounds.front();
  const auto median_of = [&](auto field) {
    std::vector<double> values;
    values.reserve(rounds.size());
    for (const auto& r : rounds) values.push_back(field(r));
    return median(values);
  };
  // Slots from the median latency and the median loss (latency / slots), kept within the rounds' slots.
  const auto slots_for = [&](double latency, auto latency_of, auto slots_of) {
    double fewest = slots_of(rounds.front()), most = fewest;
    for (const auto& r : rounds) fewest = std::min(fewest, slots_of(r)), most = std::max(most, slots_of(r));
    const double loss = median_of([&](const machine_description& r) { return latency_of(r) / slots_of(r); });
    return loss > 0 ? std::clamp(latency / loss, fewest, most) : most;
  };
  for (std::size_t i = 0; i < out.caches.size(); ++i) {
    auto& c = out.caches[i];
    const std::size_t set_bytes = c.geometry.associativity * c.geometry.block_bytes;
    const double bytes =
        median_of([i](const machine_description& r) { return static_cast<double>(r.caches[i].geometry.size_bytes); });
    c.geometry.size_bytes = std::max(static_cast<std::size_t>(bytes) / set_bytes, std::size_t{1}) * set_bytes;
    c.latency_ns = median_of([i](const machine_description& r) { return r.caches[i].latency_ns; });
    c.miss_slots = slots_for(c.latency_ns, [i](const machine_description& r) { return r.caches[i].latency_ns; },
                             [i](const machine_description& r) { return r.caches[i].miss_slots; });
  }
  for (std::size_t i = 0; i < out.tlb.levels.size(); ++i)
    out.tlb.levels[i].hit_penalty_ns = median_of([i](const machine_description& r) { return r.tlb.levels[i].hit_penalty_ns; });
  out.tlb.page_walk_ns = median_of([](const machine_description& r) { return r.tlb.page_walk_ns; });
  out.tlb.walk_slots = slots_for(out.tlb.page_walk_ns, [](const machine_description& r) { return r.tlb.page_walk_ns; },
                                 [](const machine_description& r) { return r.tlb.walk_slots; });
  out.timing.memory_latency_ns = median_of([](const machine_description& r) { return r.timing.memory_latency_ns; });
  out.timing.memory_ns_per_line = median_of([](const machine_description& r) { return r.timing.memory_ns_per_line; });
  out.timing.miss_slots =
      slots_for(out.timing.memory_latency_ns, [](const machine_description& r) { return r.timing.memory_latency_ns; },
                [](const machine_description& r) { return r.timing.miss_slots; });
  out.timing.write_streams = static_cast<std::size_t>(
      median_of([](const machine_description& r) { return static_cast<double>(r.timing.write_streams); }));
  out.timing.store_miss_ns = median_of([](const machine_description& r) { return r.timing.store_miss_ns; });
  return out;
}

/// The median of each core time over the rounds.
[[nodiscard]] inline loop_costs median_costs(std::span<const loop_costs> rounds) {
  const auto median_of = [&](double loop_costs::*field) {
    std::vector<double> values;
    values.reserve(rounds.size());
    for (const auto& r : rounds) values.push_back(r.*field);
    return median(values);
  };
  if (rounds.empty()) return {};
  return {median_of(&loop_costs::fill_ns), median_of(&loop_costs::fold_ns), median_of(&loop_costs::count_ns),
          median_of(&loop_costs::distribute_ns), median_of(&loop_costs::page_fault_ns)};
}

}  // namespace sluice::host::simulator
