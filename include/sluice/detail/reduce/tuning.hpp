// sluice/detail/reduce/tuning.hpp: the reduce family's launch shapes, by architecture.
// Tuning is data: the strategies read these; the measurements behind them are in docs/perf-notes.md.
#pragma once

#include <sluice/block/tile_shape.hpp>
#include <sluice/core/config.hpp>

namespace sluice::detail::reduce {

/// sm_90 (H100).
struct sm90_tuning {
  /// two_pass_tiles (automatic), warp_shuffle, transform_reduce and scan's reduce_then_scan: 256 threads ×
  /// 64 bytes of elements, the shared default (2026-11-21, da8c60f, H100: 0.99× CUB at 2^28 u32).
  template <class T>
  using tile = block::default_tile_shape<T>;
  /// The seed strategies' trees (dtu_*, palik_*): 256 threads a block (not tuned).
  static constexpr int tree_threads = 256;
};

/// A table per architecture; those not measured take sm_90's.
template <int Arch>
struct tuning_for : sm90_tuning {};

using tuning = tuning_for<SLUICE_TUNING_ARCH>;

}  // namespace sluice::detail::reduce
