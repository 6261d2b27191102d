// sluice/options/merge_sort.hpp: the public option types of merge_sort.cuh, beside it so that its dispatch
// (detail/merge_sort/dispatch.cuh) and the families built on it can name them without the entry points.
#pragma once

#include <string_view>

namespace sluice {

enum class merge_sort_algorithm {
  automatic,  ///< radix where the key and comparator allow it (radix below), else pairwise
  pairwise,   ///< ModernGPU-style pairwise merge sort (Karsin §7.1): E keys a thread, merge-path rounds
  radix,      ///< the radix sort (radix_sort.cuh): integral keys (not bool) under std::less / std::greater only
  gpu_mms,    ///< Karsin's multiway merge sort GPU-MMS (§7.3): K-way MinBlockHeap merges, w² shearsort base case
};

/// The enumerator's name ("pairwise"), for reports and test names.
[[nodiscard]] constexpr std::string_view to_string(merge_sort_algorithm algorithm) {
  switch (algorithm) {
    case merge_sort_algorithm::automatic: return "automatic";
    case merge_sort_algorithm::pairwise: return "pairwise";
    case merge_sort_algorithm::radix: return "radix";
    case merge_sort_algorithm::gpu_mms: return "gpu_mms";
  }
  return "?";
}

struct merge_sort_options {
  merge_sort_algorithm algorithm = merge_sort_algorithm::automatic;
  /// pairwise: E, the keys each thread sorts in registers and merges per round; 0: the tuning table's
  /// value for the key size. Others must be one of the compiled values, 7, 11, 15, 17 or 23
  /// (detail/merge_sort/tuning.hpp), with a tile that fits the device's shared memory.
  int items_per_thread = 0;
  /// gpu_mms: K, the sorted lists merged per round: 2, 4, 8, 16 or 32; 0: the tuning table's.
  int ways = 0;
};

/// segmented_sort and segmented_sort_pairs (one strategy: segments bucketed by size, docs/merge_sort.md).
struct segmented_sort_options {
  /// Check on the device that the offsets are non-decreasing and ≤ n, and throw
  /// sluice::invalid_argument naming "offsets" with the first bad index (synchronises, as
  /// segmented_options::validate_offsets does). Unchecked bad offsets give an unspecified result but
  /// never a read or write outside the spans.
  bool validate_offsets = false;
};

}  // namespace sluice
