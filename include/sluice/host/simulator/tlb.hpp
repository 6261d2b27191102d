// sluice/host/simulator/tlb.hpp: virtual address translation for the cache simulator, the first
// extension Eilers names as future work (§2.4, §6.2: "virtual address translation"; §2.3.2 describes
// the TLB as a cache of page-table entries, with page walks on a miss).
//
// Levels of TLB (each an lru_level over page numbers) in front of a page walk. A translation served by
// the first level costs nothing beyond the access; one served by a later level costs that level's hit
// penalty; a miss in every level costs the page walk. The walk is one measured constant: the thesis
// suspects walks get dearer as more pages are used (Table 2.1: the miss rate flattens at 2^26 buckets
// while the time keeps rising), so `sluice simulate` measures it at the footprint where walks matter
// (the largest bucket array), in the same virtual machine and paging mode as the measured runs. Walks
// of independent loads overlap (several walkers); `walk_slots` says how many.
// Cost: O(associativity) per level per translation.
#pragma once

#include <sluice/host/simulator/cache.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace sluice::host::simulator {

struct tlb_level_config {
  std::string name;
  std::size_t entries = 0;
  std::size_t associativity = 0;  ///< 0: fully associative
  double hit_penalty_ns = 0;      ///< added to the access when this level (not the first) translates
};

struct tlb_config {
  std::size_t page_bytes = 4096;
  std::vector<tlb_level_config> levels;
  double page_walk_ns = 0;  ///< added when no level holds the translation
  double walk_slots = 1;    ///< walks in flight at once (memory_model.hpp: the core loses page_walk_ns / walk_slots)
};

/// How a translation was served: 0 for the first level, levels() for a page walk, and what it added.
struct translation {
  std::size_t served_by = 0;
  double penalty_ns = 0;
};

class tlb {
 public:
  explicit tlb(tlb_config config) : config_(std::move(config)) {
    for (const auto& l : config_.levels) {
      const std::size_t ways = l.associativity == 0 ? l.entries : l.associativity;
      levels_.emplace_back(level_geometry{l.entries * config_.page_bytes, config_.page_bytes, ways});
    }
  }

  [[nodiscard]] const tlb_config& config() const { return config_; }
  [[nodiscard]] std::size_t levels() const { return levels_.size(); }
  /// Bytes the first `level` + 1 levels together can translate without a walk (their reach).
  [[nodiscard]] std::size_t reach_bytes(std::size_t level) const { return config_.levels[level].entries * config_.page_bytes; }

  translation translate(std::uint64_t address) {
    const std::uint64_t page = address / config_.page_bytes;
    translation result{levels(), config_.page_walk_ns};
    for (std::size_t i = 0; i < levels(); ++i)
      if (levels_[i].touch(page, false)) {
        result = {i, i == 0 ? 0.0 : config_.levels[i].hit_penalty_ns};
        break;
      }
    for (std::size_t i = 0; i < result.served_by; ++i) levels_[i].insert(page, false);
    return result;
  }

 private:
  tlb_config config_;
  std::vector<lru_level> levels_;
};

}  // namespace sluice::host::simulator
