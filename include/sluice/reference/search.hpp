// sluice/reference/search.hpp: sequential oracle for batched search in a sorted array (Karsin Def 6.0.1).
//
// sorted_keys must be sorted non-decreasingly: the first index i with !(keys[i-1] ≤ keys[i]) throws
// invalid_argument("sorted_keys") with that index (a NaN anywhere but alone therefore counts as unsorted).
//   predecessor(keys, queries)        for each q the LARGEST i with keys[i] ≤ q (the last of several equal
//                                     keys), or −1 when there is none: q < keys[0], keys empty, or q NaN.
//   lower_bound_batch(keys, queries)  for each q the first i with !(keys[i] < q)  (std::lower_bound), n if none
//   upper_bound_batch(keys, queries)  for each q the first i with q < keys[i]     (std::upper_bound), n if none
// For non-NaN q, predecessor = upper_bound − 1. A NaN query gives lower_bound 0 and upper_bound n (as the
// std algorithms do, since every comparison with NaN is false) but predecessor −1, following the
// definition literally. Q = 0 gives empty results. Each query is a binary search: O(Q log N).
#pragma once

#include <sluice/core/error.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace sluice::reference {

namespace detail {
template <class T>
void check_sorted_keys(std::span<const T> keys, const char* function) {
  for (std::size_t i = 1; i < keys.size(); ++i)
    if (!(keys[i - 1] <= keys[i])) throw invalid_argument(function, "sorted_keys", "is not sorted", i);
}
}  // namespace detail

template <class T>
[[nodiscard]] std::vector<std::int64_t> predecessor(std::span<const T> sorted_keys, std::span<const T> queries) {
  detail::check_sorted_keys(sorted_keys, "reference::predecessor");
  std::vector<std::int64_t> out;
  out.reserve(queries.size());
  for (const T& q : queries) {
    // keys[i] ≤ q holds on a prefix of the sorted keys; its length is one past the predecessor.
    const auto prefix_end =
        std::partition_point(sorted_keys.begin(), sorted_keys.end(), [&](const T& key) { return key <= q; });
    out.push_back(static_cast<std::int64_t>(prefix_end - sorted_keys.begin()) - 1);
  }
  return out;
}

template <class T>
[[nodiscard]] std::vector<std::size_t> lower_bound_batch(std::span<const T> sorted_keys, std::span<const T> queries) {
  detail::check_sorted_keys(sorted_keys, "reference::lower_bound_batch");
  std::vector<std::size_t> out;
  out.reserve(queries.size());
  for (const T& q : queries)
    out.push_back(static_cast<std::size_t>(std::lower_bound(sorted_keys.begin(), sorted_keys.end(), q) -
                                           sorted_keys.begin()));
  return out;
}

template <class T>
[[nodiscard]] std::vector<std::size_t> upper_bound_batch(std::span<const T> sorted_keys, std::span<const T> queries) {
  detail::check_sorted_keys(sorted_keys, "reference::upper_bound_batch");
  std::vector<std::size_t> out;
  out.reserve(queries.size());
  for (const T& q : queries)
    out.push_back(static_cast<std::size_t>(std::upper_bound(sorted_keys.begin(), sorted_keys.end(), q) -
                                           sorted_keys.begin()));
  return out;
}

}  // namespace sluice::reference
