// sluice/reference/sort.hpp: sequential oracle for comparison sorts (Palik §6 segmented quicksort).
//
//   stable_sort(keys, less)                  keys sorted by `less`; keys `less` cannot order keep their
//                                            input order (std::stable_sort)
//   segmented_stable_sort(keys, heads, less) every segment sorted on its own, in place of the segment:
//                                            heads[i] != 0 starts a segment, element 0 always does;
//                                            heads.size() != keys.size() throws invalid_argument("heads")
//
// With std::less on floats, -0.0 and +0.0 compare equal and keep their input order (radix sorts, which
// order by bits, put -0.0 first instead: see radix_sort.hpp).
#pragma once

#include <sluice/core/error.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace sluice::reference {

template <class T, class Less = std::less<>>
[[nodiscard]] std::vector<T> stable_sort(std::span<const T> keys, Less less = {}) {
  std::vector<T> out(keys.begin(), keys.end());
  std::stable_sort(out.begin(), out.end(), less);
  return out;
}

template <class T, class Less = std::less<>>
[[nodiscard]] std::vector<T> segmented_stable_sort(std::span<const T> keys, std::span<const std::uint8_t> heads,
                                                   Less less = {}) {
  if (heads.size() != keys.size())
    throw invalid_argument("reference::segmented_stable_sort", "heads", "must have one flag per key");
  std::vector<T> out(keys.begin(), keys.end());
  std::size_t start = 0;
  for (std::size_t i = 1; i <= out.size(); ++i) {
    if (i < out.size() && heads[i] == 0) continue;
    std::stable_sort(out.begin() + static_cast<std::ptrdiff_t>(start), out.begin() + static_cast<std::ptrdiff_t>(i),
                     less);
    start = i;
  }
  return out;
}

}  // namespace sluice::reference
