// sluice/detail/radix_sort/tuning.hpp: the radix sort's own launch shapes and thresholds, by
// architecture: the multisplit strategy's pass width, when onesweep moves pairs as packed words, the
// split passes' blocks. The onesweep passes' shapes are the engine's (detail/onesweep/tuning.hpp).
// Tuning is data; the measurements behind it are in docs/perf-notes.md and docs/radix_sort.md.
#pragma once

#include <sluice/core/config.hpp>

#include <cstddef>

namespace sluice::detail::radix_sort {

/// sm_90 (H100).
struct sm90_tuning {
  /// The multisplit strategy's pass width when bits_per_pass is 0 (onesweep/pass_plan.hpp's
  /// automatic_pass_bits): 7 bits while key + value take at most multisplit_narrow_element_bytes (not
  /// measured: the seed's best on its newest GPU, GTX 1080, Table 3.8), else the widest pass, 8 (not
  /// measured: a guess, fewer passes over larger elements).
  static constexpr int multisplit_pass_bits = 7;
  static constexpr std::size_t multisplit_narrow_element_bytes = 8;
  /// onesweep moves 4-byte keys with 4-byte values as packed words from this many passes on (03927ee
  /// probe, H100, 2^28 u32 pairs: 4 passes 8.52 against 8.90 ms separate, 3 6.54 against 6.70, 2 4.64
  /// against 4.61).
  static constexpr int packed_pairs_min_passes = 3;
  /// The split strategy's flag and scatter kernels: threads a block (not measured).
  static constexpr int split_threads = 256;
};

/// A table per architecture; those not measured take sm_90's.
template <int Arch>
struct tuning_for : sm90_tuning {};

using tuning = tuning_for<SLUICE_TUNING_ARCH>;

}  // namespace sluice::detail::radix_sort
