// sluice/reference/merge.hpp: sequential oracle for merging and merge sort (Karsin §7).
//
// comp is a strict weak order (default std::less<>). "Sorted" means no i with comp(x[i], x[i-1]).
//   is_sorted(x, comp)              whether x is sorted (n ≤ 1 is sorted)
//   merge(a, b, comp)               the stable merge of two sorted sequences: on ties every element of a
//                                   comes before the equivalent elements of b, and each input keeps its
//                                   order. An unsorted input throws invalid_argument("a" / "b") with the
//                                   first index i where comp(x[i], x[i-1]).
//   merge_sort(keys, comp)          a stable sort: equivalent keys keep their input order
//   merge_sort_pairs(keys, values, comp)
//                                   sorts by key, moving values along; stable; values.size() !=
//                                   keys.size() throws invalid_argument("values")
// Sorting uses std::stable_sort, whose guarantees are exactly these.
#pragma once

#include <sluice/core/error.hpp>

#include <algorithm>
#include <cstddef>
#include <functional>
#include <numeric>
#include <span>
#include <vector>

namespace sluice::reference {

template <class K, class V>
struct merge_sort_pairs_result {
  std::vector<K> keys;
  std::vector<V> values;
};

template <class T, class Comp = std::less<>>
[[nodiscard]] bool is_sorted(std::span<const T> x, Comp comp = {}) {
  for (std::size_t i = 1; i < x.size(); ++i)
    if (comp(x[i], x[i - 1])) return false;
  return true;
}

template <class T, class Comp = std::less<>>
[[nodiscard]] std::vector<T> merge(std::span<const T> a, std::span<const T> b, Comp comp = {}) {
  for (std::size_t i = 1; i < a.size(); ++i)
    if (comp(a[i], a[i - 1])) throw invalid_argument("reference::merge", "a", "is not sorted", i);
  for (std::size_t i = 1; i < b.size(); ++i)
    if (comp(b[i], b[i - 1])) throw invalid_argument("reference::merge", "b", "is not sorted", i);
  std::vector<T> out;
  out.reserve(a.size() + b.size());
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < a.size() && j < b.size()) {
    // b's element goes first only when strictly smaller: ties keep a's elements in front (stability).
    if (comp(b[j], a[i])) out.push_back(b[j++]);
    else out.push_back(a[i++]);
  }
  out.insert(out.end(), a.begin() + static_cast<std::ptrdiff_t>(i), a.end());
  out.insert(out.end(), b.begin() + static_cast<std::ptrdiff_t>(j), b.end());
  return out;
}

template <class T, class Comp = std::less<>>
[[nodiscard]] std::vector<T> merge_sort(std::span<const T> keys, Comp comp = {}) {
  std::vector<T> out(keys.begin(), keys.end());
  std::stable_sort(out.begin(), out.end(), comp);
  return out;
}

template <class K, class V, class Comp = std::less<>>
[[nodiscard]] merge_sort_pairs_result<K, V> merge_sort_pairs(std::span<const K> keys, std::span<const V> values,
                                                             Comp comp = {}) {
  if (values.size() != keys.size())
    throw invalid_argument("reference::merge_sort_pairs", "values", "must have one value per key");
  std::vector<std::size_t> order(keys.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return comp(keys[x], keys[y]); });
  merge_sort_pairs_result<K, V> out;
  out.keys.reserve(keys.size());
  out.values.reserve(keys.size());
  for (std::size_t i : order) {
    out.keys.push_back(keys[i]);
    out.values.push_back(values[i]);
  }
  return out;
}

}  // namespace sluice::reference
