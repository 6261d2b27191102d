// sluice/detail/multisplit/tuning.hpp: multisplit's launch shapes (the direct strategies' warps and
// windows, the helper kernels' blocks), the digit widths its onesweep kernels are compiled for, and the
// automatic choice's thresholds, by architecture. Tuning is data: the strategies and plan.hpp's choice
// read these; the measurements behind them are in docs/perf-notes.md and docs/multisplit.md.
#pragma once

#include <sluice/core/config.hpp>

#include <cstddef>
#include <cstdint>

namespace sluice::detail::multisplit {

/// sm_90 (H100).
struct sm90_tuning {
  /// DMS (dms.cuh): warps a block, windows of 32 a warp takes per step (not measured: the first draft's).
  static constexpr int dms_warps_per_block = 8;
  static constexpr int dms_windows = 8;
  /// WMS (wms.cuh): 4 warps a block keep the block's warp-private storage within 48 KiB for elements of
  /// up to 32 bytes; tiles of 4 windows (not measured).
  static constexpr int wms_warps_per_block = 4;
  static constexpr int wms_windows = 4;
  /// BMS (bms.cuh): the seed's 8 warps × 4 windows, tiles of 1024 (Ashkiani §3.6; not measured here).
  static constexpr int bms_warps_per_block = 8;
  static constexpr int bms_windows = 4;
  /// The helper kernels (the strict check, bucket starts, RB-sort's labels and gather, scan_split's zip
  /// and unzip, the direct passes' counts): threads a block (not measured).
  static constexpr int helper_threads = 256;

  /// The digit widths the onesweep strategy's kernels are compiled for, narrowest first; a call ranks
  /// the narrowest that holds its digits (b47bb62, H100: 64 digits instead of 256 took 7.4% off the
  /// m = 32 keys pass).
  static constexpr int onesweep_digit_widths[4] = {5, 6, 8, 9};

  /// automatic: onesweep from this many buckets on (7ca4d5e, H100, 2^28 u32, m = 2: 1.35 ms against
  /// DMS's 1.65 for keys, 2.36 against BMS's 2.52 for pairs).
  static constexpr std::uint32_t automatic_onesweep_min_buckets = 2;
  /// automatic: past this many digit passes (m > 65 280), RB-sort (not measured: the first draft's).
  static constexpr int automatic_max_digit_passes = 2;
  /// automatic: DMS for keys alone of at most this many bytes into at most this many buckets, a copy
  /// (m = 1 not measured; the 4 bytes are the u32 keys of 80d29aa, H100, where DMS led at m = 2).
  static constexpr std::uint32_t automatic_dms_max_buckets = 1;
  static constexpr std::size_t automatic_dms_max_key_bytes = 4;
  /// automatic: scan_split (the 3-way partition) for keys alone of at most this many bytes into at most
  /// this many buckets (0f00278, H200, 2^28 u32, m = 2: 1.08 / 0.99 / 1.16 ms against onesweep's 1.15 /
  /// 1.07 / 1.21 on bit-field, identity and delta buckets; pairs keep onesweep, 1.57–1.80 against 4.16).
  static constexpr std::uint32_t automatic_scan_split_max_buckets = 2;
  static constexpr std::size_t automatic_scan_split_max_key_bytes = 4;
};

/// A table per architecture; those not measured take sm_90's.
template <int Arch>
struct tuning_for : sm90_tuning {};

using tuning = tuning_for<SLUICE_TUNING_ARCH>;

}  // namespace sluice::detail::multisplit
