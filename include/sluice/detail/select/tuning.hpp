// sluice/detail/select/tuning.hpp: the select family's tile of the classify-scatter pass, its look-back
// and the counting pass's block, by architecture. Tuning is data: the strategies read these; the
// measurements behind them are in docs/perf-notes.md.
#pragma once

#include <sluice/core/config.hpp>
#include <sluice/detail/scan/tuning.hpp>

namespace sluice::detail::select {

/// sm_90 (H100).
struct sm90_tuning {
  /// The classify-scatter tile: 384 threads × 16 items of 4 bytes for select and unique (CUB's SM90
  /// select tile is 384 × 17), × 12 for the partitions; ptxas gives the u32 kernels 56 registers, three
  /// blocks an SM (2026-11-22, 026d6be, H100: select_if 50% u32 1.00× CUB; 256 × 20 1.02× and 128 × 16
  /// 0.96× in the same run; stable_partition 384 × 12 0.70×, 128 × 16 0.76×).
  static constexpr int scatter_threads = 384;
  static constexpr int select_items = 16;
  static constexpr int partition_items = 12;
  /// Items for elements of `element_bytes`: `nominal` for 4-byte elements, as many bytes a thread for
  /// larger ones (registers hold every item across the look-back), at least one.
  static constexpr int scatter_items(int nominal, int element_bytes) {
    const int items = nominal * 4 / element_bytes;
    return items < 1 ? 1 : (items > nominal ? nominal : items);
  }

  /// The look-back: the scan's (026d6be, H100: a 1000 ns first poll gave 0.93× where 1.5 µs gave 1.00×).
  using look_back = scan::sm90_tuning::look_back;
};

/// A table per architecture; those not measured take sm_90's.
template <int Arch>
struct tuning_for : sm90_tuning {};

using tuning = tuning_for<SLUICE_TUNING_ARCH>;

}  // namespace sluice::detail::select
