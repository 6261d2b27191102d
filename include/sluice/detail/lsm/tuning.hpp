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
  /// cleanup's tiles (cleanup.cuh): 256 threads × 8 elements, 4 where the key or the value has 8 bytes,
  /// so that a tile's keys twice, its 16-bit positions twice and its entries fit 48 KB of static shared
  /// memory (40 KB for 32-bit keys and values: five blocks an SM on an H100). Not tuned yet.
  static constexpr int cleanup_threads = 256;
  template <class K, class V>
  static constexpr int cleanup_items = sizeof(K) == 4 && sizeof(V) == 4 ? 8 : 4;
};

/// A table per architecture; those not measured take sm_90's.
template <int Arch>
struct tuning_for : sm90_tuning {};

using tuning = tuning_for<SLUICE_TUNING_ARCH>;

}  // namespace sluice::detail::lsm
