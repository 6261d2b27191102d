// sluice/detail/dist/tuning.hpp: the distributed algorithms' constants, as data. None is measured yet
// (no multi-GPU run at the commit that set them): each says what it rests on until one is.
#pragma once

#include <sluice/core/config.hpp>

#include <cstdint>

namespace sluice::detail::dist {

/// sm_90 (H100).
struct sm90_tuning {
  /// The sort's gathered sample over the whole world: 128 samples per default candidate word, so an open
  /// bucket's share is known to ±9% (1/√128); the host sorts 256 KiB of words.
  static constexpr std::uint64_t world_samples = 32768;
  /// A rank's fewest samples, however large the world (the record stays at least 512 bytes).
  static constexpr std::uint64_t min_samples_per_rank = 64;
  /// Candidate words when the options leave it 0: the most (max_candidates); each adds one binary
  /// search over the sorted keys and narrows the open buckets, so the shares' balance.
  static constexpr unsigned default_candidates = 255;
  /// The sort's received share and output are allocated at max(n, share) · (1 + 1/divisor) + bytes and
  /// truncated: the pool's freed blocks then fit the next call's sorted copy and local-sort temporary,
  /// where exact sizes (which differ by the shares' imbalance) made the pool map fresh memory, 1.5–2.5 ms
  /// a call at 2^28–2^29 keys a GPU on two H200s (docs/perf-notes.md, "sort locally first").
  static constexpr std::uint64_t pool_slack_divisor = 32;
  static constexpr std::uint64_t pool_slack_bytes = std::uint64_t{8} << 20;
  /// multireduce automatic: a collective while m · value bytes ≤ this × the largest rank's pair bytes
  /// (the bytes model of detail/dist/owners.hpp).
  static constexpr double collective_max_partial_to_pairs = 1.0;
};

template <int Arch>
struct tuning_for : sm90_tuning {};

using tuning = tuning_for<SLUICE_TUNING_ARCH>;

}  // namespace sluice::detail::dist
