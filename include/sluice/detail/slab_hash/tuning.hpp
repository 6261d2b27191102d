// sluice/detail/slab_hash/tuning.hpp: the slab hash kernels' shapes by architecture.
#pragma once

#include <sluice/core/config.hpp>

namespace sluice::detail::slab_hash {

/// sm_90 (H100). Not measured yet (bench/cases/slab_hash.cu sweeps the table, not these).
struct sm90_tuning {
  /// Threads of a bulk or maintenance block (whole warps: WCWS needs all 32 lanes).
  static constexpr int block_threads = 128;
  /// Tasks a warp serves as one group in find/contains and in insert/insert_or_assign kernels: their
  /// base slabs are read together, so that many reads (then CASes) are in flight a warp, not one.
  /// Finds: 2 (17.6 G/s at 2^24, 61% utilization); 4 took 38 registers, not 30, and ran slower (16.9).
  static constexpr int find_tasks_in_flight = 2;
  static constexpr int insert_tasks_in_flight = 4;
};

/// A table per architecture; those not measured take sm_90's.
template <int Arch>
struct tuning_for : sm90_tuning {};

using tuning = tuning_for<SLUICE_TUNING_ARCH>;

}  // namespace sluice::detail::slab_hash
