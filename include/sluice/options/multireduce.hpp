// sluice/options/multireduce.hpp: multireduce's strategy names and options, host-only so that the
// automatic choice (detail/multireduce/plan.hpp) and its host tests use them without CUDA.
#pragma once

#include <string_view>

namespace sluice {

enum class multireduce_algorithm {
  automatic,                  ///< detail/multireduce/plan.hpp
  per_bank_shared,            ///< Eilers Alg. 4.10 (commutative)
  per_bank_multi_pass,        ///< Eilers §4.4d, multi-pass (commutative)
  global_atomic_sets,         ///< Eilers Alg. 4.9 and Table 4.2 (commutative)
  block_sort_segmented,       ///< Eilers Alg. 4.13 (order-preserving)
  global_sort_reduce_by_key,  ///< Eilers §4.5a (order-preserving)
  vector,                     ///< the vector trick for tiny m (order-preserving)
  warp_private_sets,          ///< Eilers §4.3 with one private set per warp, peers by match (order-preserving)
};

/// The enumerator's name ("per_bank_shared"), for messages, reports and test names.
[[nodiscard]] constexpr std::string_view to_string(multireduce_algorithm algorithm) {
  switch (algorithm) {
    case multireduce_algorithm::automatic: return "automatic";
    case multireduce_algorithm::per_bank_shared: return "per_bank_shared";
    case multireduce_algorithm::per_bank_multi_pass: return "per_bank_multi_pass";
    case multireduce_algorithm::global_atomic_sets: return "global_atomic_sets";
    case multireduce_algorithm::block_sort_segmented: return "block_sort_segmented";
    case multireduce_algorithm::global_sort_reduce_by_key: return "global_sort_reduce_by_key";
    case multireduce_algorithm::vector: return "vector";
    case multireduce_algorithm::warp_private_sets: return "warp_private_sets";
  }
  return "?";
}

struct multireduce_options {
  multireduce_algorithm algorithm = multireduce_algorithm::automatic;
  /// Fold onto out's contents instead of starting every bucket from the identity.
  bool accumulate = false;
  /// Throw invalid_argument at the first label outside [0, m) instead of dropping it (synchronises).
  bool strict = false;
  /// Only strategies whose result does not depend on scheduling (bit-identical float sums across runs).
  bool deterministic = false;
  /// global_atomic_sets: the number of bucket sets, a power of two up to 32 (0: chosen from m and the
  /// L2 size).
  unsigned sets = 0;
  /// global_atomic_sets: first partition the pairs stably by this many top bits of the label's ⌈log2 m⌉
  /// (Eilers Table 4.2), so that the atomics stay in a window of buckets that fits the L2 (−1: chosen
  /// from m, the sets and the L2 size; 0: no sort; at most ⌈log2 m⌉, else an invalid_argument).
  int partial_sort_bits = -1;
};

}  // namespace sluice
