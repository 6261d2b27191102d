// sluice/detail/quicksort/tuning.hpp: the segmented quicksort's block size and its automatic round
// limit, by architecture. Tuning is data: the rounds and the dispatch read these.
#pragma once

#include <sluice/core/config.hpp>

#include <cstddef>

namespace sluice::detail::quicksort {

/// sm_90 (H100).
struct sm90_tuning {
  /// The element-wise kernels of a round: 256 threads a block, one wave of blocks (not tuned).
  static constexpr int block_threads = 256;

  /// The automatic options.max_rounds: base + per_bit · ⌈log2(n + 1)⌉. Random keys need about
  /// 3·log2 n rounds under the first-key rule (the height of a random binary search tree, ≈ 4.31 ln n)
  /// and fewer under median-of-three: a wide margin that still stops sorted input under the first-key
  /// rule long before its n − 1 rounds (not measured).
  static constexpr std::size_t round_limit_base = 64;
  static constexpr std::size_t round_limit_per_bit = 8;
};

/// A table per architecture; those not measured take sm_90's.
template <int Arch>
struct tuning_for : sm90_tuning {};

using tuning = tuning_for<SLUICE_TUNING_ARCH>;

}  // namespace sluice::detail::quicksort
