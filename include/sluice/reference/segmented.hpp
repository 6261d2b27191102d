// sluice/reference/segmented.hpp: sequential oracle for segmented reduce and scan, with segments given
// either by head flags or by offsets (Palik §4.6, Eilers §1.2).
//
// Head flags (std::span<const std::uint8_t>, one per value): a nonzero flag marks the FIRST element of a
// segment. flags[0] is treated as set whatever its value: Eilers calls a segmented scan with f_0 ≠ 1
// undefined, and Palik's recurrence form ignores f_0 (x_0 = a_0), so we define it the way the recurrence
// computes it. With n > 0 there are 1 + (number of nonzero flags[1..n-1]) segments, none empty; n = 0
// has no segments. flags.size() != values.size() throws invalid_argument("flags").
//
// Offsets (std::span<const std::size_t>, segments + 1 entries): segment s is [offsets[s], offsets[s+1]).
// They must be non-decreasing with every entry ≤ n; otherwise invalid_argument("offsets") with the first
// index i where offsets[i] > n or offsets[i] < offsets[i-1]. An empty offsets span (which cannot be
// "segments + 1") throws invalid_argument("offsets") with no index. Empty segments are allowed.
// Elements outside [offsets.front(), offsets.back()) belong to no segment: reductions ignore them and the
// scans copy them through to the output unchanged (so every scan output has n elements and a GPU
// implementation must write those positions too).
//
//   segmented_reduce_*           one result per segment: init ⊕ (elements in index order); an empty
//                                segment (offsets only) gives init
//   segmented_inclusive_scan_*   out[i] = head ⊕ … ⊕ values[i] within i's segment (no identity needed)
//   segmented_exclusive_scan_*   out[i] = init ⊕ head ⊕ … ⊕ values[i-1]; init at every head
//
// Palik's table (a = [5,1,3,4,3,9,2,6], f = [1,0,1,0,0,0,1,0]): +-scan [5,6,3,7,10,19,2,8].
#pragma once

#include <sluice/core/error.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace sluice::reference {

namespace detail {

inline void check_flags(std::size_t n, std::span<const std::uint8_t> flags, const char* function) {
  if (flags.size() != n) throw invalid_argument(function, "flags", "must have one flag per value");
}

/// flags[0] counts as set: see the header comment.
inline bool is_head(std::span<const std::uint8_t> flags, std::size_t i) { return i == 0 || flags[i] != 0; }

inline void check_offsets(std::size_t n, std::span<const std::size_t> offsets, const char* function) {
  if (offsets.empty()) throw invalid_argument(function, "offsets", "must have segments + 1 entries (at least one)");
  for (std::size_t i = 0; i < offsets.size(); ++i) {
    if (offsets[i] > n) throw invalid_argument(function, "offsets", "has an entry beyond the end of values", i);
    if (i > 0 && offsets[i] < offsets[i - 1]) throw invalid_argument(function, "offsets", "is not non-decreasing", i);
  }
}

}  // namespace detail

template <class T, class Op>
[[nodiscard]] std::vector<T> segmented_reduce_flags(std::span<const T> values, std::span<const std::uint8_t> flags,
                                                    T init, Op op) {
  detail::check_flags(values.size(), flags, "reference::segmented_reduce_flags");
  std::vector<T> out;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (detail::is_head(flags, i)) out.push_back(init);
    out.back() = op(out.back(), values[i]);
  }
  return out;
}

template <class T, class Op>
[[nodiscard]] std::vector<T> segmented_reduce_offsets(std::span<const T> values, std::span<const std::size_t> offsets,
                                                      T init, Op op) {
  detail::check_offsets(values.size(), offsets, "reference::segmented_reduce_offsets");
  std::vector<T> out;
  out.reserve(offsets.size() - 1);
  for (std::size_t s = 0; s + 1 < offsets.size(); ++s) {
    T acc = init;
    for (std::size_t i = offsets[s]; i < offsets[s + 1]; ++i) acc = op(acc, values[i]);
    out.push_back(acc);
  }
  return out;
}

template <class T, class Op>
[[nodiscard]] std::vector<T> segmented_inclusive_scan_flags(std::span<const T> values,
                                                            std::span<const std::uint8_t> flags, Op op) {
  detail::check_flags(values.size(), flags, "reference::segmented_inclusive_scan_flags");
  std::vector<T> out;
  out.reserve(values.size());
  for (std::size_t i = 0; i < values.size(); ++i)
    out.push_back(detail::is_head(flags, i) ? values[i] : op(out[i - 1], values[i]));
  return out;
}

template <class T, class Op>
[[nodiscard]] std::vector<T> segmented_exclusive_scan_flags(std::span<const T> values,
                                                            std::span<const std::uint8_t> flags, T init, Op op) {
  detail::check_flags(values.size(), flags, "reference::segmented_exclusive_scan_flags");
  std::vector<T> out;
  out.reserve(values.size());
  T acc = init;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (detail::is_head(flags, i)) acc = init;
    out.push_back(acc);
    acc = op(acc, values[i]);
  }
  return out;
}

template <class T, class Op>
[[nodiscard]] std::vector<T> segmented_inclusive_scan_offsets(std::span<const T> values,
                                                              std::span<const std::size_t> offsets, Op op) {
  detail::check_offsets(values.size(), offsets, "reference::segmented_inclusive_scan_offsets");
  std::vector<T> out(values.begin(), values.end());  // positions outside every segment stay as they are
  for (std::size_t s = 0; s + 1 < offsets.size(); ++s)
    for (std::size_t i = offsets[s] + 1; i < offsets[s + 1]; ++i) out[i] = op(out[i - 1], values[i]);
  return out;
}

template <class T, class Op>
[[nodiscard]] std::vector<T> segmented_exclusive_scan_offsets(std::span<const T> values,
                                                              std::span<const std::size_t> offsets, T init, Op op) {
  detail::check_offsets(values.size(), offsets, "reference::segmented_exclusive_scan_offsets");
  std::vector<T> out(values.begin(), values.end());  // positions outside every segment stay as they are
  for (std::size_t s = 0; s + 1 < offsets.size(); ++s) {
    T acc = init;
    for (std::size_t i = offsets[s]; i < offsets[s + 1]; ++i) {
      out[i] = acc;
      acc = op(acc, values[i]);
    }
  }
  return out;
}

}  // namespace sluice::reference
