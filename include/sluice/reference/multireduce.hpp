// sluice/reference/multireduce.hpp: sequential oracle for multireduce, multiscan and multitag
// (Eilers §1.2, §7.4).
//
// Labels are any integer type; label l is valid when 0 ≤ l < m. The library's default policy for any
// other label is "drop": the element takes no part in any bucket and is counted in `dropped`.
// Every bucket is a left fold in index order starting from `identity` (which must be a true identity of
// op for the results to mean "the reduction of the bucket's values"; the oracle just starts from it), so
// non-commutative operators have exactly one right answer:
//
//   multireduce(labels, values, m, op, identity)
//       buckets[k] = identity ⊕ values[j_1] ⊕ values[j_2] ⊕ … for the j with labels[j] = k, j ascending;
//       an empty bucket is identity.
//   multireduce_into(labels, values, op, buckets)
//       the same, folded onto the existing contents of `buckets` (m = buckets.size()); returns dropped.
//   multiscan_inclusive(labels, values, m, op, identity)
//       out[i] = identity ⊕ (values[j] for j ≤ i with labels[j] = labels[i]); totals = multireduce buckets.
//   multiscan_exclusive(...)
//       out[i] = identity ⊕ (values[j] for j < i with labels[j] = labels[i]), so each label's first
//       element gets identity.
//     In both scans an element with a dropped label gets out[i] = identity and contributes nothing.
//   multitag(labels, m)
//       rank[i] = the number of earlier elements with the same valid label (the exclusive multiscan of
//       ones); counts[k] = the number of elements labelled k. A dropped element gets rank 0. Ranks are
//       32-bit, so n > 2^32 throws invalid_argument("labels").
//
// m = 0 (or an empty `buckets`) throws invalid_argument("m" / "buckets"); values.size() != labels.size()
// throws invalid_argument("values"). n = 0 gives all-identity buckets and empty scan outputs.
#pragma once

#include <sluice/core/error.hpp>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace sluice::reference {

template <class T>
struct multireduce_result {
  std::vector<T> buckets;
  std::size_t dropped = 0;
};

template <class T>
struct multiscan_result {
  std::vector<T> out;     ///< n entries
  std::vector<T> totals;  ///< m entries: the multireduce
  std::size_t dropped = 0;
};

struct multitag_result {
  std::vector<std::uint32_t> rank;
  std::vector<std::uint64_t> counts;
  std::size_t dropped = 0;
};

namespace detail {

/// The bucket of a label, or nullopt when it is negative or ≥ m (compared exactly, whatever its type).
template <std::integral L>
std::optional<std::size_t> valid_label(L label, std::size_t m) {
  if (std::cmp_less(label, 0) || std::cmp_greater_equal(label, m)) return std::nullopt;
  return static_cast<std::size_t>(label);
}

template <class L, class T>
void check_labels_values(std::span<const L> labels, std::span<const T> values, const char* function) {
  if (values.size() != labels.size()) throw invalid_argument(function, "values", "must have one value per label");
}

inline void check_bucket_count(std::size_t m, const char* function) {
  if (m == 0) throw invalid_argument(function, "m", "must be at least 1");
}

template <std::integral L, class T, class Op>
multiscan_result<T> multiscan(std::span<const L> labels, std::span<const T> values, std::size_t m, Op op,
                              T identity, bool inclusive, const char* function) {
  check_bucket_count(m, function);
  check_labels_values(labels, values, function);
  multiscan_result<T> result;
  result.totals.assign(m, identity);
  result.out.reserve(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::optional<std::size_t> k = valid_label(labels[i], m);
    if (!k) {
      result.out.push_back(identity);
      ++result.dropped;
      continue;
    }
    if (!inclusive) result.out.push_back(result.totals[*k]);
    result.totals[*k] = op(result.totals[*k], values[i]);
    if (inclusive) result.out.push_back(result.totals[*k]);
  }
  return result;
}

}  // namespace detail

template <std::integral L, class T, class Op>
std::size_t multireduce_into(std::span<const L> labels, std::span<const T> values, Op op, std::span<T> buckets) {
  if (buckets.empty()) throw invalid_argument("reference::multireduce_into", "buckets", "must have at least 1 bucket");
  detail::check_labels_values(labels, values, "reference::multireduce_into");
  std::size_t dropped = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::optional<std::size_t> k = detail::valid_label(labels[i], buckets.size());
    if (k) buckets[*k] = op(buckets[*k], values[i]);
    else ++dropped;
  }
  return dropped;
}

template <std::integral L, class T, class Op>
[[nodiscard]] multireduce_result<T> multireduce(std::span<const L> labels, std::span<const T> values, std::size_t m,
                                                Op op, T identity) {
  detail::check_bucket_count(m, "reference::multireduce");
  multireduce_result<T> result;
  result.buckets.assign(m, identity);
  result.dropped = multireduce_into(labels, values, op, std::span<T>(result.buckets));
  return result;
}

template <std::integral L, class T, class Op>
[[nodiscard]] multiscan_result<T> multiscan_inclusive(std::span<const L> labels, std::span<const T> values,
                                                      std::size_t m, Op op, T identity) {
  return detail::multiscan(labels, values, m, op, identity, true, "reference::multiscan_inclusive");
}

template <std::integral L, class T, class Op>
[[nodiscard]] multiscan_result<T> multiscan_exclusive(std::span<const L> labels, std::span<const T> values,
                                                      std::size_t m, Op op, T identity) {
  return detail::multiscan(labels, values, m, op, identity, false, "reference::multiscan_exclusive");
}

template <std::integral L>
[[nodiscard]] multitag_result multitag(std::span<const L> labels, std::size_t m) {
  detail::check_bucket_count(m, "reference::multitag");
  if (!labels.empty() && labels.size() - 1 > std::numeric_limits<std::uint32_t>::max())
    throw invalid_argument("reference::multitag", "labels", "has more elements than 32-bit ranks can count");
  multitag_result result;
  result.counts.assign(m, 0);
  result.rank.reserve(labels.size());
  for (const L& label : labels) {
    const std::optional<std::size_t> k = detail::valid_label(label, m);
    if (k) result.rank.push_back(static_cast<std::uint32_t>(result.counts[*k]++));
    else {
      result.rank.push_back(0);
      ++result.dropped;
    }
  }
  return result;
}

}  // namespace sluice::reference
