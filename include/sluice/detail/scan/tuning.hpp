// sluice/detail/scan/tuning.hpp: the scan family's tile shapes, block sizes and look-back tuning, by
// architecture. Tuning is data: the strategies read these; the measurements behind them are in
// docs/perf-notes.md. Also the look-back's tuning type, which segmented, select and recurrence name.
#pragma once

#include <sluice/block/tile_shape.hpp>
#include <sluice/core/config.hpp>

namespace sluice::detail::scan {

/// How tiles learn their order and how the look-back waits: the tuning of the single pass.
enum class tile_order {
  atomic_counter,  ///< a block takes the next tile from a counter: every predecessor has started
  block_index,     ///< tile = blockIdx.x, relying on blocks being dispatched in index order (as CUB does)
};
template <tile_order Order, unsigned FirstPollDelayNs, unsigned PollDelayNs>
struct look_back_tuning {
  static constexpr tile_order order = Order;
  static constexpr unsigned first_poll_delay_ns = FirstPollDelayNs;  ///< before the first read of a window
  static constexpr unsigned poll_delay_ns = PollDelayNs;              ///< between reads of an unfinished window
};

/// sm_90 (H100).
struct sm90_tuning {
  /// decoupled_look_back (automatic): 128 threads × about 96 bytes of elements (1 to 24 items). Small
  /// blocks with many items keep a dozen or more blocks resident per SM, so that while one block's first
  /// warp looks back, other blocks are loading (2026-11-21, 3a1177e; with the look-back below 1.04× CUB
  /// at 2^28 u32: 52576a2 on an H200, d1ea81c on an H100).
  static constexpr int single_pass_threads = 128;
  static constexpr int single_pass_bytes = 96;  ///< of elements a thread
  static constexpr int single_pass_max_items = 24;
  static constexpr int single_pass_items(int element_bytes) {
    const int items = single_pass_bytes / element_bytes;
    return items < 1 ? 1 : (items > single_pass_max_items ? single_pass_max_items : items);
  }
  template <class T>
  using single_pass_tile = block::tile_shape<single_pass_threads, single_pass_items(static_cast<int>(sizeof(T)))>;

  /// The look-back: tiles by blockIdx, 1.5 µs before the first poll (the predecessors finish their own
  /// tiles meanwhile), 650 ns between polls (2026-11-21, 52576a2, H200: 1.04× CUB at 2^28 u32; 0.88×
  /// before the first-poll delay). It relies, as CUB does, on blocks being dispatched in index order
  /// (every CUDA GPU so far does; CUDA does not promise it); look_back_tuning<tile_order::atomic_counter,
  /// 2000, 650> does not (1.02× in the same run).
  using look_back = look_back_tuning<tile_order::block_index, 1500, 650>;

  /// reduce_then_scan's rescan: 256 threads × 64 bytes of elements, the shared default (not tuned for
  /// the rescan).
  template <class T>
  using rescan_tile = block::default_tile_shape<T>;

  /// brent_kung: 256 threads, tiles of 512 elements (not tuned).
  static constexpr int brent_kung_threads = 256;
};

/// A table per architecture; those not measured take sm_90's.
template <int Arch>
struct tuning_for : sm90_tuning {};

using tuning = tuning_for<SLUICE_TUNING_ARCH>;

}  // namespace sluice::detail::scan
