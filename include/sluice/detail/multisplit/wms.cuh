// sluice/detail/multisplit/wms.cuh: Warp-level Multisplit (Ashkiani §3.5.3, §3.5.6.1).
//
// Four levels of localization: a warp owns a chunk (its subproblem), walks it in tiles of `windows`
// windows of 32 and reorders each tile by bucket in warp-private shared memory before scattering it
// (tile_reorder.cuh with a group of one warp): only __syncwarp, no block barrier. The tile is small
// (128 elements), so the scatter's runs grow with it only while m is small; BMS reorders tiles 8
// times larger.
//
// Traffic: as DMS. Shared memory per warp: 4 + 4 + 8 bytes per bucket and (key + value + 1) bytes per
// tile element (about 8 KiB at m = 256 and 8-byte pairs).
#pragma once

#include <sluice/detail/multisplit/tile_reorder.cuh>

namespace sluice::detail::multisplit {

/// WMS as a strategy of run_direct_pass: warps are independent; as few per block as keep the
/// warp-private storage of a block within 48 KiB for elements of up to 32 bytes.
struct wms {
  static constexpr int warps_per_block = tuning::wms_warps_per_block;
  static constexpr int group_warps = 1;
  static constexpr int windows = tuning::wms_windows;
  template <class K, class V, class Ids>
  static constexpr auto postscan = reorder_postscan_kernel<group_warps, warps_per_block, windows, K, V, Ids>;
};

}  // namespace sluice::detail::multisplit
