// sluice/options/multiscan.hpp: the public option types of multiscan.cuh, beside it so that its dispatch
// (detail/multiscan/dispatch.cuh) and the families built on it can name them without the entry points.
#pragma once

#include <string_view>

namespace sluice {

enum class multiscan_algorithm {
  automatic,                ///< block_sort_segmented for m ≤ 4096 where it fits, else global_sort_scan_by_key
  block_sort_segmented,     ///< Eilers Alg. 5.4 in the partitioning scheme (Alg. 5.2)
  global_sort_scan_by_key,  ///< Eilers §5.5: sort, scan by key, scatter back
  sequential,               ///< Eilers §5.3 / App. B: a segment per thread, partitioned (research)
  sheffler,                 ///< Eilers §5.4: Sheffler's spinetree, identity bug fixed (research, slow)
};

/// The enumerator's name ("block_sort_segmented"), for messages, reports and test names.
[[nodiscard]] constexpr std::string_view to_string(multiscan_algorithm algorithm) {
  switch (algorithm) {
    case multiscan_algorithm::automatic: return "automatic";
    case multiscan_algorithm::block_sort_segmented: return "block_sort_segmented";
    case multiscan_algorithm::global_sort_scan_by_key: return "global_sort_scan_by_key";
    case multiscan_algorithm::sequential: return "sequential";
    case multiscan_algorithm::sheffler: return "sheffler";
  }
  return "?";
}

struct multiscan_options {
  multiscan_algorithm algorithm = multiscan_algorithm::automatic;
  /// Throw invalid_argument at the first label outside [0, m) instead of dropping it (synchronises).
  bool strict = false;
};

}  // namespace sluice
