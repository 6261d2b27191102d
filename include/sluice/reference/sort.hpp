// sluice/reference/sort.hpp: sequential oracle for comparison sorts (Palik §6 segmented quicksort; the
// segmented_sort of merge_sort.cuh).
//
//   stable_sort(keys, less)                  keys sorted by `less`; keys `less` cannot order keep their
//                                            input order (std::stable_sort)
//   segmented_stable_sort(keys, heads, less) every segment sorted on its own, in place of the segment:
//                                            heads[i] != 0 starts a segment, element 0 always does;
//                                            heads.size() != keys.size() throws invalid_argument("heads")
//   segmented_stable_sort_offsets(keys, offsets, less)
//                                            every segment [offsets[s], offsets[s+1]) sorted on its own,
//                                            keys outside [offsets.front(), offsets.back()) unchanged;
//                                            offsets as segmented.hpp defines and checks them
//                                            (invalid_argument("offsets"), with the first bad index)
//   segmented_stable_sort_pairs_offsets(keys, values, offsets, less)
//                                            the same, each value moving with its key;
//                                            values.size() != keys.size() throws invalid_argument("values")
//
// With std::less on floats, -0.0 and +0.0 compare equal and keep their input order (radix sorts, which
// order by bits, put -0.0 first instead: see radix_sort.hpp).
#pragma once

#include <sluice/core/error.hpp>
#include <sluice/reference/merge.hpp>
#include <sluice/reference/segmented.hpp>

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

template <class T, class Less = std::less<>>
[[nodiscard]] std::vector<T> segmented_stable_sort_offsets(std::span<const T> keys,
                                                           std::span<const std::size_t> offsets, Less less = {}) {
  detail::check_offsets(keys.size(), offsets, "reference::segmented_stable_sort_offsets");
  std::vector<T> out(keys.begin(), keys.end());
  for (std::size_t s = 0; s + 1 < offsets.size(); ++s)
    std::stable_sort(out.begin() + static_cast<std::ptrdiff_t>(offsets[s]),
                     out.begin() + static_cast<std::ptrdiff_t>(offsets[s + 1]), less);
  return out;
}

template <class K, class V, class Less = std::less<>>
[[nodiscard]] merge_sort_pairs_result<K, V> segmented_stable_sort_pairs_offsets(std::span<const K> keys,
                                                                                std::span<const V> values,
                                                                                std::span<const std::size_t> offsets,
                                                                                Less less = {}) {
  const char* function = "reference::segmented_stable_sort_pairs_offsets";
  detail::check_offsets(keys.size(), offsets, function);
  if (values.size() != keys.size()) throw invalid_argument(function, "values", "must have one value per key");
  merge_sort_pairs_result<K, V> out{{keys.begin(), keys.end()}, {values.begin(), values.end()}};
  for (std::size_t s = 0; s + 1 < offsets.size(); ++s) {
    const std::size_t first = offsets[s];
    const std::size_t count = offsets[s + 1] - first;
    const auto sorted = merge_sort_pairs(keys.subspan(first, count), values.subspan(first, count), less);
    std::copy(sorted.keys.begin(), sorted.keys.end(), out.keys.begin() + static_cast<std::ptrdiff_t>(first));
    std::copy(sorted.values.begin(), sorted.values.end(), out.values.begin() + static_cast<std::ptrdiff_t>(first));
  }
  return out;
}

}  // namespace sluice::reference
