// sluice/host/simulator/cache.hpp: the storage pieces of the cache simulator (Eilers §2.4): one
// set-associative level with exact LRU replacement, and a hierarchy of write-back, write-allocate
// levels over main memory.
//
// The thesis's simulator used "a simple approximated LRU replacement mechanism"; this one keeps exact
// LRU (a per-way use stamp) so that the hand-computable cases (a stride that maps to one set evicts at
// associativity + 1) hold exactly, and because the thesis attributes its remaining error to the real
// CPU's non-LRU policy, not to the approximation. Levels are non-inclusive: a miss fills every level
// above the one that hit, a dirty victim is written into the next level (which may evict in turn), and
// a dirty victim of the last level is a write-back to memory. Levels work on block numbers (address /
// block size), so the TLB (tlb.hpp) is the same structure over page numbers.
// Cost: O(associativity) per level per access; memory: 24 bytes per block of capacity.
#pragma once

#include <sluice/core/error.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace sluice::host::simulator {

struct level_geometry {
  std::size_t size_bytes = 0;
  std::size_t block_bytes = 64;   ///< cache line (or page, for a TLB)
  std::size_t associativity = 1;  ///< ways per set; size / block for fully associative

  [[nodiscard]] std::size_t blocks() const { return size_bytes / block_bytes; }
  [[nodiscard]] std::size_t sets() const { return blocks() / associativity; }
};

/// A block pushed out of a level to make room.
struct eviction {
  bool happened = false;
  bool dirty = false;
  std::uint64_t block = 0;
};

/// One set-associative level with exact LRU replacement.
class lru_level {
 public:
  explicit lru_level(level_geometry g) : geometry_(g) {
    if (g.block_bytes == 0 || !std::has_single_bit(g.block_bytes) || g.associativity == 0 || g.sets() == 0 ||
        g.sets() * g.associativity * g.block_bytes != g.size_bytes)
      throw invalid_argument("simulator::lru_level", "geometry",
                             "size must be sets × associativity × block bytes, with a power-of-two block");
    ways_.resize(g.sets() * g.associativity);
  }

  [[nodiscard]] const level_geometry& geometry() const { return geometry_; }

  /// True (and the block becomes most recently used, dirty if `write`) when the block is present.
  bool touch(std::uint64_t block, bool write) {
    way* w = find(block);
    if (w == nullptr) return false;
    w->last_use = ++clock_;
    w->dirty = w->dirty || write;
    return true;
  }

  /// Places an absent block as most recently used, evicting the least recently used way of its set.
  eviction insert(std::uint64_t block, bool dirty) {
    way* victim = least_recently_used(block);
    eviction out{victim->last_use != 0, victim->dirty, victim->block};
    *victim = {block, ++clock_, dirty};
    return out;
  }

  [[nodiscard]] bool contains(std::uint64_t block) const { return find(block) != nullptr; }

 private:
  struct way {
    std::uint64_t block = 0;
    std::uint64_t last_use = 0;  ///< 0: empty
    bool dirty = false;
  };

  [[nodiscard]] std::size_t first_way_of(std::uint64_t block) const {
    return static_cast<std::size_t>(block % geometry_.sets()) * geometry_.associativity;
  }
  way* set_of(std::uint64_t block) { return ways_.data() + first_way_of(block); }

  [[nodiscard]] const way* find(std::uint64_t block) const {
    const way* set = ways_.data() + first_way_of(block);
    for (std::size_t i = 0; i < geometry_.associativity; ++i)
      if (set[i].last_use != 0 && set[i].block == block) return set + i;
    return nullptr;
  }
  way* find(std::uint64_t block) { return const_cast<way*>(std::as_const(*this).find(block)); }

  way* least_recently_used(std::uint64_t block) {
    way* set = set_of(block);
    way* oldest = set;
    for (std::size_t i = 1; i < geometry_.associativity; ++i)
      if (set[i].last_use < oldest->last_use) oldest = set + i;
    return oldest;
  }

  level_geometry geometry_;
  std::vector<way> ways_;
  std::uint64_t clock_ = 0;
};

/// A level of the hierarchy: its geometry, the load-to-use latency of a hit there and how many loads
/// it serves at once (memory_model.hpp; the first level's hits hold no slot, so its count is unused).
struct cache_level_config {
  std::string name;
  level_geometry geometry;
  double latency_ns = 0;
  double miss_slots = 1;
};

/// Where an access was served: 0 for the first level, levels() for main memory.
struct hierarchy_access {
  std::size_t served_by = 0;
  std::size_t memory_writebacks = 0;  ///< dirty lines this access pushed out to memory
};

/// Write-back, write-allocate, non-inclusive levels over main memory, all with one line size.
class cache_hierarchy {
 public:
  explicit cache_hierarchy(const std::vector<cache_level_config>& levels) {
    for (const auto& l : levels) {
      if (l.geometry.block_bytes != levels.front().geometry.block_bytes)
        throw invalid_argument("simulator::cache_hierarchy", "levels", "every level must have the same line size");
      levels_.emplace_back(l.geometry);
    }
    if (levels_.empty()) throw invalid_argument("simulator::cache_hierarchy", "levels", "needs at least one level");
  }

  [[nodiscard]] std::size_t levels() const { return levels_.size(); }
  [[nodiscard]] std::size_t line_bytes() const { return levels_.front().geometry().block_bytes; }
  [[nodiscard]] const lru_level& level(std::size_t i) const { return levels_[i]; }

  hierarchy_access access(std::uint64_t address, bool write) {
    const std::uint64_t line = address / line_bytes();
    hierarchy_access result{levels(), 0};
    for (std::size_t i = 0; i < levels(); ++i)
      if (levels_[i].touch(line, write && i == 0)) {
        result.served_by = i;
        break;
      }
    // Fill from the outermost missing level inwards, so that victims cascade outwards consistently.
    for (std::size_t i = result.served_by; i-- > 0;)
      result.memory_writebacks += place(i, line, write && i == 0);
    return result;
  }

 private:
  /// Puts `line` into level i; returns how many dirty lines that pushed out to memory.
  std::size_t place(std::size_t i, std::uint64_t line, bool dirty) {
    const eviction victim = levels_[i].insert(line, dirty);
    if (!victim.happened || !victim.dirty) return 0;
    if (i + 1 == levels()) return 1;
    if (levels_[i + 1].touch(victim.block, true)) return 0;
    return place(i + 1, victim.block, true);
  }

  std::vector<lru_level> levels_;
};

/// The capacity an LRU level needs to serve what a machine served of random updates over `footprint_bytes`:
/// under uniformly random accesses an LRU level of C bytes holds C of a larger footprint S, so a share
/// 1 − C/S of the updates go past it, and the time per update is hit + (1 − C/S)·Δ. `hit_ns` is the
/// time where the footprint surely fits; `miss_ns` the time over `miss_footprint_bytes` (0: so large
/// that every update goes past, as memory's), where the level still keeps C/miss_footprint. Two
/// equations, C and Δ unknown: with a = measured − hit and b = miss − hit,
/// C = (b − a) / (b/S − a/S_miss) (S_miss infinite: C = S·(1 − a/b)). Clamped to [0, footprint]
/// (neighbours only add time: at or below `hit_ns` the level holds at least the footprint).
/// This is how `sluice simulate` sizes each level: the loop's own access kind, where a pointer chase
/// falls off a cliff once its cycle no longer fits and says nothing about the gradual loss past it.
[[nodiscard]] inline std::size_t capacity_from_random_updates(std::size_t footprint_bytes, double measured_ns, double hit_ns,
                                                            double miss_ns, std::size_t miss_footprint_bytes = 0) {
  const double a = measured_ns - hit_ns, b = miss_ns - hit_ns, s = static_cast<double>(footprint_bytes);
  if (b <= 0 || a <= 0) return footprint_bytes;
  if (a >= b) return 0;
  const double inverse_miss = miss_footprint_bytes == 0 ? 0.0 : 1.0 / static_cast<double>(miss_footprint_bytes);
  const double c = (b - a) / (b / s - a * inverse_miss);
  return c >= s ? footprint_bytes : static_cast<std::size_t>(c);
}

/// One footprint of an update sweep and the repeated timings of its random updates.
struct update_point {
  std::size_t footprint_bytes = 0;
  std::vector<double> ns;  ///< ns per update, one per timing
};

/// The fastest of a point's timings: a neighbour (the sibling hardware thread, another tenant) only
/// adds time, so the fastest timing is the one nearest the level's own behaviour. Empty: 0.
[[nodiscard]] inline double fastest(const std::vector<double>& ns) {
  double best = 0;
  for (std::size_t i = 0; i < ns.size(); ++i)
    if (i == 0 || ns[i] < best) best = ns[i];
  return best;
}

/// A level's capacity from an update sweep: every point (and the hit and the miss reference) taken at
/// its fastest timing, each footprint's capacity by capacity_from_random_updates, the largest counting,
/// at least `hit.footprint_bytes` (where the updates surely fit). The fastest, because one slow timing
/// of the hit reference or of a footprint moves a small level's estimate by its whole size.
[[nodiscard]] inline std::size_t capacity_from_update_sweep(const update_point& hit, const std::vector<update_point>& footprints,
                                                          double miss_ns, std::size_t miss_footprint_bytes = 0) {
  const double hit_ns = fastest(hit.ns);
  std::size_t best = hit.footprint_bytes;
  for (const auto& p : footprints) {
    const std::size_t holds = capacity_from_random_updates(p.footprint_bytes, fastest(p.ns), hit_ns, miss_ns, miss_footprint_bytes);
    if (holds > best) best = holds;
  }
  return best;
}

}  // namespace sluice::host::simulator
