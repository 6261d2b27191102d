// sluice/options/histogram.hpp: the public option types of histogram.cuh, beside it so that its dispatch
// (detail/histogram/dispatch.cuh) and the families built on it can name them without the entry points.
#pragma once

#include <concepts>

namespace sluice {

enum class histogram_algorithm {
  automatic,        ///< by m (detail/histogram/dispatch.cuh, choose; thresholds in tuning.hpp)
  warp_ballot,      ///< Ashkiani §3.7.3: ballot-based warp histograms, global atomics per block (m ≤ 256)
  shared_per_bank,  ///< Eilers §4.4c: per-bank counter sets in shared memory (m ≤ one block's shared memory)
  global_atomics,   ///< Eilers Alg. 4.9: counter sets in global memory, atomics (any m)
  bank_trish,       ///< Eilers §4.5.2: 64 sub-histograms of 8-bit counters (1-byte samples, m ≤ 256)
  sort_based,       ///< Eilers §4.5a: radix sort of the bin ids, counts from the runs (any m, deterministic)
  coarse_bins,      ///< DTU ch. 6: ids partitioned by coarse bin, privatised shared counters per coarse bin (any m)
  byte_counts,      ///< 1-byte samples: the 256 values counted in per-bank shared counters, then binned (any m)
};

struct histogram_options {
  histogram_algorithm algorithm = histogram_algorithm::automatic;
  /// Add to the counts already in bins instead of overwriting them.
  bool accumulate = false;
};

/// An output counter: a 4- or 8-byte integer (incremented by 32- or 64-bit atomics).
template <class C>
concept histogram_counter = std::integral<C> && !std::same_as<C, bool> && (sizeof(C) == 4 || sizeof(C) == 8);

/// A weighted bin, of the weights' own type: a counter (integer sums modulo its width) or float / double.
template <class B>
concept histogram_weight = histogram_counter<B> || std::same_as<B, float> || std::same_as<B, double>;

}  // namespace sluice
