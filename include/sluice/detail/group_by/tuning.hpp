// sluice/detail/group_by/tuning.hpp: the open-addressing group-by's table sizing and kernel shapes by
// architecture (what measured them: docs/perf-notes.md, "group_by_reduce").
#pragma once

#include <sluice/core/config.hpp>

#include <cstddef>

namespace sluice::detail::group_by {

/// sm_90 (H100, H200).
struct sm90_tuning {
  /// Threads of a block of the sketch, fill and aggregation kernels.
  static constexpr int threads = 256;
  /// 2^12 HyperLogLog registers: standard error 1.04 / 2^6 = 1.6% of the distinct count.
  static constexpr int sketch_bits = 12;
  /// Key counts below this size the table for every key instead of sketching (the sketch's read of the
  /// keys would cost more than the table it saves).
  static constexpr std::size_t sketch_min_keys = std::size_t{1} << 16;
  /// Slots for this many times the sketch's estimate (6 standard errors above it).
  static constexpr double estimate_margin = 1.1;
  /// Occupied slots over slots that sizing aims at: a find walks 0.5 (1 + 1 / (1 − load)) slots on
  /// average under linear probing (2 at 0.6), mostly within one 32-byte sector.
  static constexpr double max_load = 0.6;
  /// partitioned: threads of a fold block, and the shared memory its table takes (8192 slots of 8 bytes,
  /// 4096 of 16), filled to at most this load on average: the parts are sized for it. A warp's walk lasts
  /// as long as its longest probe sequence; at 0.5 that was ~6 rounds a window (ncu, 15ab7d6).
  static constexpr int fold_threads = 512;
  static constexpr std::size_t fold_shared_bytes = std::size_t{64} << 10;
  static constexpr double fold_max_load = 0.3;
  /// partitioned: a walk in a block's table gives up after this many slots and goes to the global table
  /// (a part with far more keys than planned, from a distinct count given too low, stays fast).
  static constexpr unsigned fold_max_walk = 32;
  /// unique (keys alone) stays in one pass up to this many distinct keys: at 2^24 keys the single pass took
  /// 0.47 ms for 2^16 distinct against partitioned's 0.57, at 2^28 keys 5.08 ms for 2^20 against 4.58
  /// (H200, d9e4bd3); between them not measured, the threshold the geometric middle.
  static constexpr std::size_t unique_single_pass_keys = std::size_t{1} << 18;
  /// partitioned: blocks per wave of resident fold blocks, as chunks of the parts (balance against the
  /// flushes, which are chunks × the part's distinct keys atomics).
  static constexpr int fold_waves = 2;
};

template <int Arch>
struct tuning_for : sm90_tuning {};

using tuning = tuning_for<SLUICE_TUNING_ARCH>;

}  // namespace sluice::detail::group_by
