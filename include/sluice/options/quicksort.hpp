// sluice/options/quicksort.hpp: the public option types of quicksort.cuh, beside it so that its dispatch
// (detail/quicksort/dispatch.cuh) and the families built on it can name them without the entry points.
#pragma once

#include <cstddef>

namespace sluice {

enum class quicksort_pivot {
  first,            ///< the segment's first key (Palik §6.2)
  median_of_three,  ///< the median of the segment's first, middle (start + (length − 1) / 2) and last keys
};

struct quicksort_options {
  quicksort_pivot pivot = quicksort_pivot::median_of_three;
  /// Rounds after which unsorted segments are an error; 0: 64 + 8·⌈log2(n + 1)⌉.
  std::size_t max_rounds = 0;
};

}  // namespace sluice
