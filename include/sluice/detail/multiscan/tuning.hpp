// sluice/detail/multiscan/tuning.hpp: the multiscan family's thresholds and shapes, by architecture:
// automatic's limit, the partitioned finish's batch, the research strategies' shapes and memory budget
// (the block sort's tile is multireduce's tuning). The measurements are in docs/perf-notes.md.
#pragma once

#include <sluice/core/config.hpp>

#include <cstddef>
#include <cstdint>

namespace sluice::detail::multiscan {

/// sm_90 (H100).
struct sm90_tuning {
  /// automatic: block_sort_segmented up to this m where its bucket set fits shared memory, else
  /// global_sort_scan_by_key: the thesis's (Eilers Fig. 5.7/5.8). 2026-11-22, 48a3883, H100, 2^28 affine
  /// u32 uniform: 7.15 against 49.55 ms at m = 4096; above 4096 not measured.
  static constexpr std::uint32_t automatic_block_sort_max_buckets = 4096;
  /// Segments whose totals the finish's step 2 loads together (common.cuh). Not measured.
  static constexpr int partial_batch = 8;
  /// sequential and sheffler keep their bucket sets within the device's memory / this. Not measured.
  static constexpr std::size_t bucket_set_memory_divisor = 8;

  // sequential (sequential.cuh). Not measured: chosen from the thesis's reasoning.

  /// Elements of each segment staged per round (Alg. 4.7's nItems): a multiple of 8, so that 4-byte
  /// labels fill 32-byte sectors.
  static constexpr int sequential_items = 8;
  /// Threads per block: with global sets, and the most with shared ones (fewer when m is larger).
  static constexpr unsigned sequential_max_threads = 128;
  /// At most this many segments per SM: enough resident threads to keep the loads in flight, few
  /// enough that step 2's one thread per bucket walks a short list.
  static constexpr std::size_t sequential_segments_per_sm = 256;
  /// Elements per segment at least (eight rounds), so that small inputs do not become many tiny segments.
  static constexpr std::size_t sequential_min_segment_length = 64;
};

/// A table per architecture; those not measured take sm_90's.
template <int Arch>
struct tuning_for : sm90_tuning {};

using tuning = tuning_for<SLUICE_TUNING_ARCH>;

}  // namespace sluice::detail::multiscan
