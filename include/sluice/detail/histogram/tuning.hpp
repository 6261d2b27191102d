// sluice/detail/histogram/tuning.hpp: the histogram family's launch shapes and thresholds, by
// architecture: automatic's ballot limit and the warp-ballot, BankTRISH, byte-count and coarse-bin shapes
// (shared_per_bank and global_atomics are multireduce's kernels, with multireduce's tuning).
#pragma once

#include <sluice/core/config.hpp>

#include <cstddef>
#include <cstdint>

namespace sluice::detail::histogram {

/// sm_90 (H100).
struct sm90_tuning {
  /// automatic: warp_ballot up to this many bins (unweighted), then shared_per_bank. 2026-11-22, ee1a8c9,
  /// H100, 2^28 u32 over [0, 2^20): ballots 0.95× CUB HistogramEven at m = 2, shared_per_bank 1.07× at 32;
  /// shared_per_bank at m = 2 not measured.
  static constexpr std::uint32_t automatic_warp_ballot_max_bins = 2;
  /// automatic: coarse_bins instead of global_atomics once m counters take more than this fraction of the
  /// L2. 2026-11-27, abf4149, H100 (50 MB L2), 2^28 u32 over every u32: 2^20 four-byte bins (4 MB) global
  /// 3.12 ms, coarse_bins 3.14; 2^24 bins (64 MB) global 11.88 ms, coarse_bins 3.65.
  static constexpr double automatic_coarse_bins_l2_fraction = 0.5;
  /// warp_ballot: warps per block. Not measured.
  static constexpr int warp_ballot_warps = 8;
  /// warp_ballot: windows of 32 samples a warp loads per step: about 32 bytes in flight per lane, at most
  /// 8 samples. Not measured.
  static constexpr int warp_ballot_unroll(std::size_t sample_bytes) {
    return sample_bytes >= 32 ? 1 : sample_bytes <= 4 ? 8 : static_cast<int>(32 / sample_bytes);
  }
  /// bank_trish: threads per block and sub-histograms (thread t uses t mod 64): the seed's best, 8 threads
  /// per sub-histogram (Eilers App. A). Not measured here.
  static constexpr int bank_trish_threads = 512;
  static constexpr int bank_trish_sets = 64;
  /// byte_counts: threads per block (32 KiB of counters each) and 16-byte vectors a thread loads before
  /// counting any (64 bytes in flight per thread). Not measured.
  static constexpr int byte_counts_threads = 512;
  static constexpr int byte_counts_vectors = 4;
  /// Range cells (range_cells.cuh): 2^c cells for m bins, c = bit_width(m) within these bounds (1 KiB to
  /// 256 KiB of counts). Not measured.
  static constexpr unsigned range_cells_min_log2 = 8;
  static constexpr unsigned range_cells_max_log2 = 16;
  /// coarse_bins counts a segment in shared counters when it holds at least this many samples per counter
  /// slot it would clear and flush, by global atomics otherwise. Not measured: a slot costs a shared store
  /// and a shared load, and privatising saves global atomics only where samples outnumber their bins.
  static constexpr std::size_t coarse_privatise_samples_per_slot = 1;
};

/// A table per architecture; those not measured take sm_90's.
template <int Arch>
struct tuning_for : sm90_tuning {};

using tuning = tuning_for<SLUICE_TUNING_ARCH>;

}  // namespace sluice::detail::histogram
