// sluice/detail/multisplit/bms.cuh: Block-level Multisplit (Ashkiani §3.5.3, §3.5.5.3–3.5.5.4, §3.5.6.2).
//
// Five levels of localization: a block owns a chunk (its subproblem, one column of H), walks it in
// tiles shared by its 8 warps, each warp taking 4 consecutive windows of 32 (the seed's 8 × 4 shape,
// §3.6): 1024 elements per tile. The prescan adds the warps' ballot histograms by segmented __shfl_xor;
// the postscan reorders each tile by bucket across the whole block (tile_reorder.cuh: segmented
// __shfl_up of per-warp counts, then the tile histogram's scan) and scatters runs of the bucket's
// tile count, so the writes coalesce even at m = 256 (4 elements per bucket on average).
//
// Traffic: as DMS. Shared memory: 4 bytes per bucket and warp plus 16 per bucket (12 KiB at m = 256)
// and (key + value + 1) bytes per tile element (9 KiB for 4-byte pairs).
#pragma once

#include <sluice/detail/multisplit/tile_reorder.cuh>

namespace sluice::detail::multisplit {

/// BMS as a strategy of run_direct_pass.
struct bms {
  static constexpr int warps_per_block = tuning::bms_warps_per_block;
  static constexpr int group_warps = warps_per_block;
  static constexpr int windows = tuning::bms_windows;
  template <class K, class V, class Ids>
  static constexpr auto postscan = reorder_postscan_kernel<group_warps, warps_per_block, windows, K, V, Ids>;
};

}  // namespace sluice::detail::multisplit
