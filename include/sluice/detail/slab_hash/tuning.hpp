// sluice/detail/slab_hash/tuning.hpp: the slab hash kernels' shapes by architecture.
#pragma once

#include <sluice/core/config.hpp>

namespace sluice::detail::slab_hash {

/// sm_90 (H100; H200 runs where a value says so). bench/cases/slab_hash.cu sweeps the table, not these:
/// each value names the runs that set it.
struct sm90_tuning {
  /// Threads of a bulk or maintenance block (whole warps: WCWS needs all 32 lanes).
  static constexpr int block_threads = 128;
  /// Finds: base slabs a warp reads together (split among its tiles, at least one a tile), so that many
  /// reads are in flight a warp, not one. 2: H100, warp-wide groups, 17.6 G/s at 2^24 u32 pairs, 61%
  /// utilization (4 took 38 registers, not 30, and ran slower); H200, one a tile of 16 lanes, 19.1 G/s
  /// against warp-wide groups' 18.4 in the same run (11f6133; 2026-11-30).
  static constexpr int find_tasks_in_flight = 2;
  /// Inserts: tasks a tile serves as one group, their base slabs read, then their CASes issued, together.
  /// H200, 2^24 u32 pairs, β 0.7 (2026-11-30): a group of 4 a warp 6.6 G/s; a group a tile of 16 lanes,
  /// 2 / 3 / 4 / 6 / 8 tasks: 9.4 / 9.6 / 10.0 / 9.0 / 8.7 G/s (more take registers, and occupancy).
  static constexpr int insert_tasks_in_flight = 4;
  /// Blocks an SM the inserting kernels' registers must leave room for (__launch_bounds__). H200, 2^24 /
  /// 2^26 u32 pairs, β 0.7, two rounds each (2026-11-30): 1 (64 registers) 8.97 / 9.06 G/s, 9 (56) 10.04 /
  /// 10.06, 10 (48) 10.50 / 10.49: at 48 ptxas spills 28-48 bytes a thread, cheaper than the occupancy lost.
  static constexpr int insert_min_blocks = 10;
};

/// A table per architecture; those not measured take sm_90's.
template <int Arch>
struct tuning_for : sm90_tuning {};

using tuning = tuning_for<SLUICE_TUNING_ARCH>;

}  // namespace sluice::detail::slab_hash
