// sluice/options/segmented.hpp: the public option types of segmented.cuh, beside it so that its dispatch
// (detail/segmented/dispatch.cuh) and the families built on it can name them without the entry points.
#pragma once

#include <string_view>

namespace sluice {

enum class segmented_algorithm {
  automatic,   ///< merge_path for segmented_reduce by offsets, flat for everything else
  flat,        ///< one single-pass scan over (head count, value) pairs
  merge_path,  ///< segmented_reduce by offsets: ends merged with elements, equal work per tile
};

/// The enumerator's name ("merge_path"), for reports and errors; "?" for a value outside the enumeration.
[[nodiscard]] constexpr std::string_view to_string(segmented_algorithm algorithm) {
  switch (algorithm) {
    case segmented_algorithm::automatic: return "automatic";
    case segmented_algorithm::flat: return "flat";
    case segmented_algorithm::merge_path: return "merge_path";
  }
  return "?";
}

struct segmented_options {
  segmented_algorithm algorithm = segmented_algorithm::automatic;
  /// Offsets: check on the device that they are non-decreasing and ≤ n, and throw
  /// sluice::invalid_argument with the first bad index (synchronises). Unchecked bad offsets give
  /// unspecified results but never an access out of bounds.
  bool validate_offsets = false;
};

}  // namespace sluice
