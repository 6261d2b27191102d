// sluice/reference/scatter.hpp: sequential oracle for scatter and gather (Eilers §1.2).
//
// scatter(values, indices, out): out[indices[j]] = values[j] for j = 0, 1, …, n−1 in that order, so when
//   several j name one slot the LAST writer wins (Eilers' strict scatter). Slots nobody writes keep their
//   contents (the caller's default). An index that is negative or ≥ out.size() is dropped; the return
//   value counts them. indices.size() != values.size() throws invalid_argument("indices").
// gather(table, indices, fallback): out[i] = table[indices[i]], or fallback when indices[i] is negative or
//   ≥ table.size(); `out_of_range` counts those. An empty table makes every index out of range.
// Indices are any integer type and are compared exactly (no narrowing or sign conversion).
#pragma once

#include <sluice/core/error.hpp>

#include <concepts>
#include <cstddef>
#include <span>
#include <utility>
#include <vector>

namespace sluice::reference {

template <class T>
struct gather_result {
  std::vector<T> out;
  std::size_t out_of_range = 0;
};

template <class T, std::integral I>
std::size_t scatter(std::span<const T> values, std::span<const I> indices, std::span<T> out) {
  if (indices.size() != values.size())
    throw invalid_argument("reference::scatter", "indices", "must have one index per value");
  std::size_t dropped = 0;
  for (std::size_t j = 0; j < values.size(); ++j) {
    if (std::cmp_less(indices[j], 0) || std::cmp_greater_equal(indices[j], out.size())) ++dropped;
    else out[static_cast<std::size_t>(indices[j])] = values[j];
  }
  return dropped;
}

template <class T, std::integral I>
[[nodiscard]] gather_result<T> gather(std::span<const T> table, std::span<const I> indices, T fallback) {
  gather_result<T> result;
  result.out.reserve(indices.size());
  for (const I& index : indices) {
    if (std::cmp_less(index, 0) || std::cmp_greater_equal(index, table.size())) {
      result.out.push_back(fallback);
      ++result.out_of_range;
    } else {
      result.out.push_back(table[static_cast<std::size_t>(index)]);
    }
  }
  return result;
}

}  // namespace sluice::reference
