// sluice/detail/scatter/tuning.hpp: gather's and scatter's launch shape (threads a block, elements a
// thread keeps in flight) and the share of the L2 the partial_sort strategy's windows fit, by
// architecture. Tuning is data; the measurements behind it are in docs/perf-notes.md and docs/scatter.md.
#pragma once

#include <sluice/core/config.hpp>

#include <cstddef>

namespace sluice::detail::scatter {

/// sm_90 (H100).
struct sm90_tuning {
  /// Threads a block of every gather, scatter and claim kernel (not measured: the first draft's).
  static constexpr int block_threads = 256;
  /// Elements a thread has in flight per step: 16 independent loads hide DRAM latency on random
  /// indices (not swept; with it, cb8dd59, H100, 2^28 u32: identity gather 97.6% of copy, random gather
  /// level with thrust::gather).
  static constexpr int elements_per_thread = 16;
  /// partial_sort's windows fit the L2's size / this (not swept; with it, 023e2ee, H100, u32 random
  /// permutation: 1.62× direct at 2^24, no gain at 2^28).
  static constexpr std::size_t partial_sort_l2_divisor = 2;
};

/// A table per architecture; those not measured take sm_90's.
template <int Arch>
struct tuning_for : sm90_tuning {};

using tuning = tuning_for<SLUICE_TUNING_ARCH>;

}  // namespace sluice::detail::scatter
