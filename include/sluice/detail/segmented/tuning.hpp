// sluice/detail/segmented/tuning.hpp: the segmented family's tile shapes and block sizes, by
// architecture. Tuning is data: the strategies read these; the measurements behind them are in
// docs/perf-notes.md.
#pragma once

#include <sluice/block/tile_shape.hpp>
#include <sluice/core/config.hpp>
#include <sluice/detail/scan/tuning.hpp>

namespace sluice::detail::segmented {

/// sm_90 (H100).
struct sm90_tuning {
  /// flat: the scan's single-pass tile shaped by the value, not by the (head count, value) pair: the
  /// single pass runs at a roughly fixed rate of tiles, so 24 u32 items a thread (3072 a tile) beat the
  /// pair's 12 (2026-11-21, 953a03b, H200: reduce at 256 u32 a segment 0.88× → 1.13× CUB, with the
  /// first-poll delay).
  template <class T>
  using flat_tile = scan::sm90_tuning::single_pass_tile<T>;

  /// merge_path (automatic for segmented_reduce by offsets): 128 threads × 23, 15 or 9 merged items for
  /// values of ≤ 4, ≤ 8 or more bytes, about 12 KiB of staged values a tile; many items amortise the
  /// per-thread split and the block scan, 128 threads keep the barrier waits short, and odd item counts
  /// start the threads' runs in different banks (2026-11-22, e7ba27e, H200: 2.08× CUB at 256 u32 a
  /// segment; H100 d1ea81c 2.00×, flat 1.08×).
  template <class T>
  using merge_path_tile = block::tile_shape<128, sizeof(T) <= 4 ? 23 : sizeof(T) <= 8 ? 15 : 9>;

  /// merge_path's partition kernel: one thread a tile boundary, 256 a block (not tuned).
  static constexpr int partition_threads = 256;
};

/// A table per architecture; those not measured take sm_90's.
template <int Arch>
struct tuning_for : sm90_tuning {};

using tuning = tuning_for<SLUICE_TUNING_ARCH>;

}  // namespace sluice::detail::segmented
