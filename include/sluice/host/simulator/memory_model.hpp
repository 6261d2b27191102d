// sluice/host/simulator/memory_model.hpp: the timing side of the cache simulator: caches (cache.hpp)
// and TLB (tlb.hpp) say where each access is served; this file turns that into time, with the
// memory-level parallelism the thesis found missing (Eilers §2.4: the real worst case, 63 ns/element,
// was below the 111 ns memory latency "because memory accesses are ... pipelined"; §6.2 names
// "memory pipelining" as the simulator's future work).
//
// The model is an out-of-order core reduced to four resources:
//   * the core issues one loop iteration every `core_ns` (the work of the loop body when every access
//     hits the first level), so iteration i issues at i·core_ns plus any stall;
//   * a load that misses the first level is served by a later level (or memory) after that level's
//     latency, and each serving level overlaps `miss_slots` of its loads: the core loses latency /
//     slots of issue time per such load (the part of the wait it cannot hide), on top of its own
//     work. Independent loads therefore cost latency / slots each, and a dependent chain (an address
//     computed from the previous load, the thesis's "forced sequential" variant) waits for each in
//     turn and costs the full latency. The slots are per level because they differ several-fold between
//     levels, and the loss adds to the core's work instead of hiding under it: buckets that half fit the
//     first level run well above the core time, where hiding would keep them core-bound. Stores take
//     no slot (the store buffer retires them); their lines still cross the memory channel;
//   * the core follows `write_streams` write streams at once (write_streams.hpp): a store past them
//     whose line memory serves costs the core `store_miss_ns` (the partial sort's distribution into
//     2^(bits+1) streams);
//   * a page walk adds its cost to the load's latency, and the walkers overlap `walk_slots` walks
//     (tlb.hpp): the core loses walk / walk_slots;
//   * memory is one channel that moves a line in `memory_ns_per_line` (line / single-core bandwidth):
//     demand misses, prefetched lines and write-backs of dirty lines all queue on it.
// A per-instruction stride prefetcher ("rudimentary prefetching", §2.4) recognises an access site
// (one load or store instruction of the loop) that walks lines in order; its lines arrive ahead of use,
// costing bandwidth but no latency and no slot. A random site (the bucket update) never trains it.
// Cost: a few ns per simulated access plus the cache and TLB lookups; memory: the caches' tags.
#pragma once

#include <sluice/host/simulator/cache.hpp>
#include <sluice/host/simulator/tlb.hpp>
#include <sluice/host/simulator/write_streams.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace sluice::host::simulator {

struct timing_parameters {
  double memory_latency_ns = 100;  ///< load-to-use latency of main memory (pointer chase)
  double memory_ns_per_line = 5;   ///< line bytes / sustained single-core memory bandwidth
  double miss_slots = 1;           ///< loads memory serves at once (1 everywhere: the thesis's sequential model)
  bool prefetch = true;            ///< the per-site stride prefetcher
  std::size_t write_streams = 0;   ///< write streams the core follows at once (write_streams.hpp)
  double store_miss_ns = 0;        ///< core time of a store to memory past them (0: stores cost no time)
};

/// Everything the simulator needs to know about a machine.
struct machine_description {
  std::vector<cache_level_config> caches;  ///< first (closest to the core) to last
  tlb_config tlb;
  timing_parameters timing;
};

/// Counts of what a simulated stream did.
struct access_statistics {
  std::uint64_t accesses = 0;
  std::vector<std::uint64_t> served_by;  ///< per cache level, then main memory (demand accesses)
  std::uint64_t prefetched_lines = 0;    ///< lines the prefetcher brought ahead of use
  std::uint64_t memory_writebacks = 0;
  std::vector<std::uint64_t> translated_by;  ///< per TLB level, then page walks
  std::uint64_t untracked_store_misses = 0;  ///< stores to memory past the followed write streams
};

/// The loads and stores of a loop that a site issues at most once per iteration; sites index the
/// prefetcher's per-instruction history.
inline constexpr std::size_t max_sites = 16;

/// Program-order timing of accesses under the resources described above.
class timeline {
 public:
  explicit timeline(double memory_ns_per_line) : memory_ns_per_line_(memory_ns_per_line) {}

  /// The core issues the next loop iteration after `core_ns` of work.
  void next_iteration(double core_ns) { stall(core_ns); }

  /// An access issued now (or once `ready`, when its address depends on an earlier load) that takes
  /// `latency_ns`, of which the core loses `exposed_ns`; `memory_lines` lines cross the memory channel
  /// first.
  double schedule(double latency_ns, double exposed_ns, std::size_t memory_lines, double ready = 0) {
    const double start = std::max(issue_, ready);
    const double done = std::max(start + latency_ns, transfer(start, memory_lines));
    finish_ = std::max(finish_, done);
    stall(exposed_ns);
    return done;
  }

  /// The core does nothing else for `ns` (its own work, a lost share of a miss, a page fault).
  void stall(double ns) {
    issue_ += ns;
    finish_ = std::max(finish_, issue_);
  }

  /// Lines that cross the memory channel off the critical path (write-backs).
  void background_transfer(std::size_t lines) { finish_ = std::max(finish_, transfer(issue_, lines)); }

  /// When the last access completed (or the core finished issuing).
  [[nodiscard]] double finish_ns() const { return finish_; }

 private:
  double transfer(double requested, std::size_t lines) {
    if (lines == 0) return requested;
    channel_free_ = std::max(channel_free_, requested) + static_cast<double>(lines) * memory_ns_per_line_;
    return channel_free_;
  }

  double memory_ns_per_line_;
  double issue_ = 0, finish_ = 0, channel_free_ = 0;
};

/// Caches, TLB, prefetcher and timeline together: what an address stream talks to.
class memory_model {
 public:
  explicit memory_model(const machine_description& machine)
      : machine_(machine), caches_(machine.caches), tlb_(machine.tlb),
        timeline_(machine.timing.memory_ns_per_line), write_streams_(machine.timing.write_streams) {
    statistics_.served_by.assign(caches_.levels() + 1, 0);
    statistics_.translated_by.assign(tlb_.levels() + 1, 0);
    last_line_.fill(no_line);
  }

  void next_iteration(double core_ns) { timeline_.next_iteration(core_ns); }
  void stall(double ns) { timeline_.stall(ns); }

  /// A load or store by instruction `site`; returns when its data is there. `ready`: when the address
  /// is known, for an access that depends on an earlier load (0: known at issue).
  double access(std::uint64_t address, bool write, std::size_t site, double ready = 0) {
    ++statistics_.accesses;
    const std::uint64_t line = address / caches_.line_bytes();
    const bool prefetched = machine_.timing.prefetch && last_line_[site] != no_line && line == last_line_[site] + 1;
    last_line_[site] = line;

    const translation t = tlb_.translate(address);
    ++statistics_.translated_by[t.served_by];
    const hierarchy_access h = caches_.access(address, write);
    statistics_.memory_writebacks += h.memory_writebacks;
    timeline_.background_transfer(h.memory_writebacks);
    const bool from_memory = h.served_by == caches_.levels();

    const std::size_t served = prefetched ? 0 : h.served_by;  // the prefetcher makes it a first-level hit
    statistics_.prefetched_lines += prefetched && h.served_by > 0 ? 1 : 0;
    ++statistics_.served_by[served];
    double exposed = 0;
    if (!write && served > 0) exposed += latency_of(served) / std::max(slots_of(served), 1.0);
    if (!write && t.served_by == tlb_.levels()) exposed += t.penalty_ns / std::max(machine_.tlb.walk_slots, 1.0);
    if (write) exposed += store_ns(line, served == caches_.levels());
    return timeline_.schedule(latency_of(served) + t.penalty_ns, exposed, from_memory ? 1 : 0, ready);
  }

  double load(std::uint64_t address, std::size_t site, double ready = 0) { return access(address, false, site, ready); }
  double store(std::uint64_t address, std::size_t site, double ready = 0) { return access(address, true, site, ready); }

  [[nodiscard]] double elapsed_ns() const { return timeline_.finish_ns(); }
  [[nodiscard]] const access_statistics& statistics() const { return statistics_; }
  [[nodiscard]] const machine_description& machine() const { return machine_; }
  [[nodiscard]] std::size_t line_bytes() const { return caches_.line_bytes(); }

 private:
  [[nodiscard]] double latency_of(std::size_t level) const {
    return level == caches_.levels() ? machine_.timing.memory_latency_ns : machine_.caches[level].latency_ns;
  }

  [[nodiscard]] double slots_of(std::size_t level) const {
    return level == caches_.levels() ? machine_.timing.miss_slots : machine_.caches[level].miss_slots;
  }

  /// What a store costs the core: nothing while it follows a write stream, or when a cache (or the
  /// prefetcher) has its line; store_miss_ns when it is past the followed streams and waits for memory.
  /// Every store refreshes its stream, so a stream's recency is that of its last store, not of its last
  /// new line: new lines come at regular intervals (every 16 u32 stores), and LRU over those alone
  /// drops every stream once there are more than it keeps, where the machine's store sweep still keeps some.
  double store_ns(std::uint64_t line, bool from_memory) {
    if (write_streams_.follows(line) || !from_memory) return 0;
    ++statistics_.untracked_store_misses;
    return machine_.timing.store_miss_ns;
  }

  static constexpr std::uint64_t no_line = ~std::uint64_t{0};

  machine_description machine_;
  cache_hierarchy caches_;
  tlb tlb_;
  timeline timeline_;
  write_stream_tracker write_streams_;
  access_statistics statistics_;
  std::array<std::uint64_t, max_sites> last_line_{};
};

}  // namespace sluice::host::simulator
