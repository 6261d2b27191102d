// sluice/detail/merge_sort/gpu_mms_tuning.hpp: GPU-MMS's merge width K, block shape and partition size,
// by architecture (Karsin §7.3.3). Tuning is data: detail/merge_sort/gpu_mms.cuh reads these.
#pragma once

#include <sluice/core/config.hpp>

#include <cstddef>

namespace sluice::detail::merge_sort::gpu_mms {

/// sm_90 (H100). Not yet measured on the device: the values follow the thesis and the model in
/// docs/merge_sort-gpu_mms.md until bench/cases/merge_sort.cu sweeps them.
struct sm90_tuning {
  /// K, the lists merged per round (a power of two in [2, 32]). The thesis measured 8 or 16 best on
  /// Maxwell and 8 on Kepler (Fig. 7.7); the H100's 228 KiB of shared memory per SM keeps 8 warps' K = 16
  /// heaps of 8-byte (key, tag) items resident, and ⌈log_16(2^28 / 1024)⌉ = 5 rounds against 6 for K = 8.
  static constexpr int ways = 16;
  /// Independent warps (heaps, base-case tiles) per block: more than one so that residency is not capped
  /// by the 32 resident blocks per SM (digest §14); they never synchronise with each other.
  static constexpr int warps_per_block = 4;
  /// Merge tasks per resident warp in a round: spare tasks even out partitions of different cost.
  static constexpr int tasks_per_resident_warp = 2;
  /// A merge task covers at least this many output items per list merged (× K): the heap start-up
  /// (K leaves loaded, K − 1 node fills) and the partition search are amortised over it.
  static constexpr std::size_t min_task_items_per_way = 512;
};

/// A table per architecture; those not measured take sm_90's.
template <int Arch>
struct tuning_for : sm90_tuning {};

using tuning = tuning_for<SLUICE_TUNING_ARCH>;

}  // namespace sluice::detail::merge_sort::gpu_mms
