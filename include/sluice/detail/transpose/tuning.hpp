// sluice/detail/transpose/tuning.hpp: the transpose family's tile shapes, block sizes and the skinny
// threshold of `automatic`, by architecture. Tuning is data: the kernels and the automatic choice read
// these; the measurements behind them are in docs/perf-notes.md and docs/transpose.md.
#pragma once

#include <sluice/core/config.hpp>

#include <cstddef>

namespace sluice::detail::transpose {

/// sm_90 (H100).
struct sm90_tuning {
  /// automatic: the skinny path up to this many bytes on the smaller side (one 128-byte line), where a
  /// square tile would be mostly idle threads (2026-11-21, 23d44b1, H200, 2^26 floats as (2^26/k) × k:
  /// skinny ahead up to k = 32, 94.2% of copy against 78.0%; a tie at k = 64; the tile ahead at 128).
  static constexpr std::size_t skinny_max_bytes = 128;

  /// skinny: 256 threads, chunks of 16 KiB, 4 vectors in flight a thread (a chunk is one batch) (not
  /// compared with other shapes; 2026-11-22, d1ea81c, H100: 100.4% of copy at 3·10^8 × 2 floats).
  static constexpr int skinny_threads = 256;
  static constexpr int skinny_chunk_bytes = 16384;
  static constexpr int skinny_batch = 4;

  /// vector_tiled: 256 threads over 16 KiB tiles whose rows and output rows are whole 128-byte lines,
  /// 4 global loads in flight a thread (the whole load phase), 1 strip at a time in the store phase
  /// (strips come from shared memory: occupancy hides its latency) (not compared with other shapes;
  /// 2026-11-22, d1ea81c, H100: 96.0% of copy at 16384² floats).
  static constexpr int vector_tile_threads = 256;
  static constexpr int vector_tile_load_batch = 4;
  static constexpr int vector_tile_store_batch = 1;
  /// Tile rows × columns for elements of `element_bytes`: 128 × 128 bytes, 128 × 64 halves, 64 × 64
  /// words, 64 × 32 doubles, 32 × 32 16-byte elements (0 for other sizes, which have no vector tile).
  static constexpr int vector_tile_rows(int element_bytes) {
    switch (element_bytes) {
      case 1: return 128;
      case 2: return 128;
      case 4: return 64;
      case 8: return 64;
      case 16: return 32;
      default: return 0;
    }
  }
  static constexpr int vector_tile_cols(int element_bytes) {
    switch (element_bytes) {
      case 1: return 128;
      case 2: return 64;
      case 4: return 64;
      case 8: return 32;
      case 16: return 32;
      default: return 0;
    }
  }

  /// The fallback (rows not 16-byte aligned): the padded 32 × 32 tile with 32 × 8 threads, four cells
  /// a thread, so four loads are in flight before the block synchronises (not compared with other shapes).
  static constexpr int scalar_tile_dim = 32;
  static constexpr int scalar_block_rows = 8;

  /// The seed strategies (naive, tiled, tiled_padded): the seed's 32 × 32 tile and threads, one element
  /// each (DTU §4.7; not tuned).
  static constexpr int seed_tile_dim = 32;
};

/// A table per architecture; those not measured take sm_90's.
template <int Arch>
struct tuning_for : sm90_tuning {};

using tuning = tuning_for<SLUICE_TUNING_ARCH>;

}  // namespace sluice::detail::transpose
