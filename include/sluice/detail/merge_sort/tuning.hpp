// sluice/detail/merge_sort/tuning.hpp: the pairwise merge sort's block shape by key size, the E values
// compiled, and the partition kernel's block; segmented_sort's small-segment groups; GPU-MMS's merge
// width K, block shape and partition size (Karsin §7.3.3); by architecture. Tuning is data: the
// dispatch, segmented.cuh and gpu_mms.cuh read these.
#pragma once

#include <sluice/core/config.hpp>

#include <cstddef>

namespace sluice::detail::merge_sort {

/// sm_90 (H100).
struct sm90_tuning {
  /// Threads of a sort or merge block (NT; a power of two: the block sort's rounds double the lists).
  /// CUB's merge sort uses 256 on sm_90 too; not measured for sluice yet.
  static constexpr int block_threads = 256;

  /// E by key size: odd, so that a warp's blocked accesses (thread t at t·E) hit 32 distinct banks
  /// (Karsin §7.1); 17 for four-byte keys as CUB's sm_60+ policy (256 threads × Nominal4BItemsToItems(17):
  /// 17, 8, 4, 2 items for 4-, 8-, 16-, 32-byte keys), odd and a little more for wide keys (no spills at
  /// 7 × 32-byte keys with 4-byte values: 118 registers). The E sweep (docs/perf-notes.md, 758618a) keeps
  /// these: 17 (or 11, within 1%) best for u32 keys, 7 for 16-byte keys.
  [[nodiscard]] static constexpr int items_per_thread(std::size_t key_bytes) {
    return key_bytes <= 4 ? 17 : key_bytes <= 8 ? 11 : 7;
  }

  /// The E values compiled (options.items_per_thread takes one of these): each is one set of kernels in
  /// every instantiation. The 2^20 … 2^28 sweep (758618a, docs/perf-notes.md) found 11 or 17 best for
  /// u32 keys and 7 for 16-byte keys; 15 and 23 were never best, so they are not compiled.
  static constexpr int compiled_items[] = {7, 11, 17};

  /// Blocks an SM the block sort and merge kernels are compiled for (__launch_bounds__'s second
  /// argument; 0: none, ptxas's own register choice). Unbounded, 16-byte keys alone at E = 7 take
  /// 110–113 registers, two 256-thread blocks an SM, and the merge kernel's in-shared merge and its
  /// DRAM traffic barely overlap; bounded to three blocks (80 registers, 16–192 bytes spilled) the
  /// struct's sort at 2^24 ran 3.59 → 3.19 ms on the H200. Every other shape measured was slower with
  /// any bound, even one that does not bind (u32 keys 1.02 → 1.37–1.39 ms, u64 1.72 → 1.90–2.01, u32
  /// pairs within noise): docs/perf-notes.md "Registers of the 16-byte sort".
  [[nodiscard]] static constexpr int min_blocks_per_sm(std::size_t key_bytes, std::size_t value_bytes, int items) {
    return key_bytes == 16 && value_bytes == 0 && items == 7 ? 3 : 0;  // the shape measured, no other
  }

  /// The partition kernel: one thread per tile boundary.
  static constexpr int partition_threads = 256;

  /// segmented_sort's small segments (segmented_plan.hpp's tiers): a segment of up to segment_lanes ×
  /// segment_lanes_items(key bytes) keys is sorted by segment_lanes lanes of a warp, one of up to 32 ×
  /// segment_warp_items by a whole warp, larger ones by the tiles above. CUB's sm_80+ segmented sort of
  /// keys takes 4 lanes × 9 and 32 lanes × 7 four-byte keys (Nominal4BItemsToItems); sluice keeps the
  /// shapes, E odd and fewer for wide keys. Not measured for sluice yet (bench/cases/segmented_sort.cu).
  static constexpr int segment_lanes = 4;
  [[nodiscard]] static constexpr int segment_lanes_items(std::size_t key_bytes) {
    return key_bytes <= 4 ? 9 : key_bytes <= 8 ? 5 : 3;
  }
  [[nodiscard]] static constexpr int segment_warp_items(std::size_t key_bytes) {
    return key_bytes <= 4 ? 7 : key_bytes <= 8 ? 5 : 3;
  }
  /// Threads of a block of the group tiers (its groups sort their segments independently).
  static constexpr int segment_group_threads = 256;
};

/// A table per architecture; those not measured take sm_90's.
template <int Arch>
struct tuning_for : sm90_tuning {};

using tuning = tuning_for<SLUICE_TUNING_ARCH>;

}  // namespace sluice::detail::merge_sort

namespace sluice::detail::merge_sort::gpu_mms {

/// sm_90 (H100). The values follow the thesis and the model in docs/merge_sort-gpu_mms.md; the K sweep
/// (758618a, H200, docs/perf-notes.md) found K = 8 … 16 best from 2^24 keys up and K = 4 below.
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
