// sluice/detail/lsm/tuning.hpp: the GPU LSM's own kernels' shapes by architecture (staging, lookup,
// candidate gathering, validation, successor, cleanup's tiles). Sorting, merging, searching, scanning and compaction
// are the project's primitives with their own tuning.
#pragma once

#include <sluice/core/config.hpp>

namespace sluice::detail::lsm {

/// sm_90 (H100). Not measured yet (bench/cases/lsm.cu measures the container, not these).
struct sm90_tuning {
  /// Threads of every LSM kernel's block (whole warps: validation gives a warp to a query).
  static constexpr int block_threads = 256;
  /// cleanup's tiles (cleanup.cuh): 256 threads × 7 elements, 5 where the key or the value has 8 bytes.
  /// Odd, so that the threads' stretches of a tile (a thread merges and judges `items` consecutive
  /// elements) start in different shared-memory banks; 8 put 32 threads on 4 banks (ncu at c78ac45: 66%
  /// of the tile kernel's shared wavefronts were conflicts). A tile's keys twice, its 16-bit positions
  /// twice and its entries stay under 48 KB of static shared memory.
  static constexpr int cleanup_threads = 256;
  template <class K, class V>
  static constexpr int cleanup_items = sizeof(K) == 4 && sizeof(V) == 4 ? 7 : 5;
};

/// A table per architecture; those not measured take sm_90's.
template <int Arch>
struct tuning_for : sm90_tuning {};

using tuning = tuning_for<SLUICE_TUNING_ARCH>;

}  // namespace sluice::detail::lsm
