// sluice/detail/multireduce/tuning.hpp: the multireduce family's launch shapes and thresholds, by
// architecture: block sizes, items per thread, the block sort's tile and the automatic choice's limits.
// Tuning is data: the strategies and plan.hpp read these; the measurements are in docs/perf-notes.md.
#pragma once

#include <sluice/block/tile_shape.hpp>
#include <sluice/core/config.hpp>

#include <cstddef>
#include <cstdint>

namespace sluice::detail::multireduce {

/// sm_90 (H100).
struct sm90_tuning {
  // ---- the automatic choice (plan.hpp) ----------------------------------------------------------------

  /// The vector strategy's largest m (its kernels are instantiated for M = 1, 2, 4, 8; why not 16:
  /// vector.cuh). 2026-11-22, bdf0a2c, H100, 2^28 affine u32: 159 G pairs/s at m = 8, warp_private_sets 161.
  static constexpr std::uint32_t vector_max_buckets = 8;
  /// automatic's vector rung: the m of the M = 1, 2, 4 kernels (m = 5 … 8 run the M = 8 kernel).
  /// 2026-11-29, f8da371, H200, 2^24 affine u32: m = 4 vector 0.093 ms uniform and all equal,
  /// warp_private_sets 0.159 / 0.069; m = 8 vector 0.122 / 0.123, warp_private_sets 0.118 / 0.070.
  static constexpr std::uint32_t automatic_vector_max_buckets = 4;
  /// warp_private_sets above the vector rung up to this m. 2026-11-22, 8a94c81, H100, 2^24 affine u32:
  /// 154 / 109 G pairs/s uniform at m = 32 / 1024 against block_sort_segmented's 77 / 62; above 1024 not measured.
  static constexpr std::uint32_t automatic_warp_sets_max_buckets = 1024;
  /// block_sort_segmented up to this m, global_sort_reduce_by_key beyond: the seed's (Eilers Fig. 4.21).
  /// 2026-11-22, bdf0a2c, H100, 2^28 affine u32 uniform: 68.7 against 33.6 G pairs/s at m = 4096, 15.2
  /// against 25.5 at 2^16; the crossover between them not measured.
  static constexpr std::uint32_t automatic_block_sort_max_buckets = 4096;
  /// per_bank_shared while one block holds at least this many sets of m buckets. 2026-11-29, H200:
  /// one set of 2^14 and 2^15 u32 buckets a block reads 2^28 uniform pairs at 527–545 G pairs/s, the
  /// read bandwidth, where the L2's atomics give 66–68 (bench/probes/cluster_atomics, docs/perf-notes.md
  /// "Buckets past one block"); 4 (before) sent m > 14 528 to the global atomics.
  static constexpr unsigned automatic_per_bank_min_sets = 1;
  /// per_bank_multi_pass beyond one block's set while it takes at most this many passes, global_atomic_sets
  /// beyond. The probe's rates (H200): a pass ≈ 0.5 ms over 2^28 u32 pairs, the L2's atomics 2.8–3.0 ms
  /// at 2^16 … 2^22 buckets, so passes win up to about 5; 3 leaves room for the H100's lower bandwidth
  /// and for skewed labels, which slow shared atomics more than the L2's.
  static constexpr std::uint32_t automatic_multi_pass_max_passes = 3;
  /// global_atomic_sets keeps its sets, and the partial sort one window of them, within the L2's size /
  /// this (Table 4.1: the cliff where sets · m leaves the L2). 2026-11-22, e764603, H100, 2^28 uniform
  /// u32: the bits it gives were right at m = 2^20 (0: 3.28 ms, 8 bits 6.79) and 2^24 (8: 6.68 ms;
  /// unsorted 12.41 at ee1a8c9); the crossover between them not measured.
  static constexpr std::size_t global_sets_l2_divisor = 2;
  /// global_atomic_sets chooses at most this many sets. Not measured: the seed's (Eilers Fig. 4.10: 8
  /// sets were best on degenerate input; Table 4.1: more never helped random input).
  static constexpr unsigned global_max_chosen_sets = 8;

  // ---- per_bank_shared, per_bank_multi_pass (per_bank.cuh) --------------------------------------------

  /// Threads per block (the coarse-bin histogram's count takes the same). Not measured.
  static constexpr int per_bank_threads = 512;

  // ---- global_atomic_sets (global_atomic_sets.cuh) and the pair walk (pair_walk.cuh) ------------------

  /// Threads per block of the sets kernel. Not measured.
  static constexpr int global_sets_threads = 256;
  /// The sets' stride is a multiple of this many values: ≥ 256 bytes puts a bucket's sets in different L2
  /// sectors and slices (docs/perf-notes.md, global atomic sets on all-equal labels).
  static constexpr std::size_t global_sets_stride_quantum = 64;
  /// Threads per block of the fold of the sets. Not measured.
  static constexpr int fold_sets_threads = 256;
  /// Elements per load of the pair walk's fast layout (4-byte labels and values: 16-byte loads). Not
  /// measured against other widths.
  static constexpr int pair_vector_width = 4;

  // ---- the order-preserving strategies ----------------------------------------------------------------

  /// warp_private_sets: warps per block, each with its own set of m buckets (the sets bound m: plan.hpp).
  /// Not measured.
  static constexpr int warp_sets_warps = 8;
  /// warp_private_sets: windows of 32 pairs a warp loads before it folds the first (8 loads per lane in
  /// flight). Not measured: the kernel waits on its shared-memory pipe, not on loads (docs/perf-notes.md).
  static constexpr int warp_sets_lookahead = 4;
  /// vector: threads per block. Not measured.
  static constexpr int vector_threads = 256;
  /// vector: a lane's run of pairs, 64 bytes of the wider of label and value (16 items for 4-byte pairs,
  /// 4 for 16-byte values). Not measured: 128 bytes would halve the warp reductions per pair but leave
  /// two blocks per SM (registers: docs/perf-notes.md).
  static constexpr int vector_items(std::size_t label_bytes, std::size_t value_bytes) {
    const int widest = static_cast<int>(label_bytes > value_bytes ? label_bytes : value_bytes);
    const int items = 64 / widest;
    return items < 4 ? 4 : (items > 16 ? 16 : items);
  }
  /// block_sort_segmented (and multiscan's): items per thread of a sorted tile, about 48 bytes of values:
  /// the thesis's nItems = 12 for 4-byte values (§4.5c: the largest without spills, and CUB's sort gets
  /// more efficient with more items). Not measured here.
  static constexpr int sort_tile_items(int value_bytes) {
    const int items = 48 / value_bytes;
    return items < 1 ? 1 : (items > 12 ? 12 : items);
  }
  /// The sorted tile: 256 threads of sort_tile_items(sizeof(T)) values each. Not measured.
  template <class T>
  using sort_tile_shape = block::tile_shape<256, sort_tile_items(static_cast<int>(sizeof(T)))>;
  /// The largest bucket set the block sorts keep in shared memory beside a tile (multiscan's sequential
  /// strategy bounds its shared sets by it too): 48 KiB keeps two blocks per SM. Not measured.
  static constexpr std::size_t accumulator_bytes = 48 * 1024;
  /// Threads per block of the fold of the blocks' partials (block_partials.cuh). Not measured.
  static constexpr int fold_partials_threads = 256;
  /// Threads per block of the identity fill (common.cuh). Not measured.
  static constexpr int fill_threads = 256;
};

/// A table per architecture; those not measured take sm_90's.
template <int Arch>
struct tuning_for : sm90_tuning {};

using tuning = tuning_for<SLUICE_TUNING_ARCH>;

}  // namespace sluice::detail::multireduce
