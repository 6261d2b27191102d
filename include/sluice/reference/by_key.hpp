// sluice/reference/by_key.hpp: sequential oracle for reduce-by-key and scan-by-key (Eilers §1.2 and §3.3).
//
// These are segmented operations whose segments are the runs of consecutive equal keys: element i starts
// a new run when i = 0 or !eq(keys[i-1], keys[i]). Neighbours are compared (as CUB and Thrust do), not
// each element with its run's first key; the two agree whenever eq is an equivalence relation. Keys that
// are equal but not adjacent form separate runs (this is not a group-by).
//
//   reduce_by_key(keys, values, op, eq)    one output per run: the run's FIRST key, and
//                                          values[first] ⊕ … ⊕ values[last] (no init, no identity needed)
//   inclusive_scan_by_key(keys, values, op, eq)         out[i] = run head ⊕ … ⊕ values[i]
//   exclusive_scan_by_key(keys, values, init, op, eq)   out[i] = init ⊕ run head ⊕ … ⊕ values[i-1]
//
// n = 0 gives empty outputs. values.size() != keys.size() throws invalid_argument("values").
#pragma once

#include <sluice/core/error.hpp>

#include <cstddef>
#include <functional>
#include <span>
#include <vector>

namespace sluice::reference {

template <class K, class V>
struct reduce_by_key_result {
  std::vector<K> keys;
  std::vector<V> values;
};

namespace detail {
template <class K, class V>
void check_by_key_sizes(std::span<const K> keys, std::span<const V> values, const char* function) {
  if (keys.size() != values.size()) throw invalid_argument(function, "values", "must have one value per key");
}
}  // namespace detail

template <class K, class V, class Op, class Eq = std::equal_to<>>
[[nodiscard]] reduce_by_key_result<K, V> reduce_by_key(std::span<const K> keys, std::span<const V> values, Op op,
                                                       Eq eq = {}) {
  detail::check_by_key_sizes(keys, values, "reference::reduce_by_key");
  reduce_by_key_result<K, V> out;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (i == 0 || !eq(keys[i - 1], keys[i])) {
      out.keys.push_back(keys[i]);
      out.values.push_back(values[i]);
    } else {
      out.values.back() = op(out.values.back(), values[i]);
    }
  }
  return out;
}

template <class K, class V, class Op, class Eq = std::equal_to<>>
[[nodiscard]] std::vector<V> inclusive_scan_by_key(std::span<const K> keys, std::span<const V> values, Op op,
                                                   Eq eq = {}) {
  detail::check_by_key_sizes(keys, values, "reference::inclusive_scan_by_key");
  std::vector<V> out;
  out.reserve(values.size());
  for (std::size_t i = 0; i < keys.size(); ++i)
    out.push_back(i == 0 || !eq(keys[i - 1], keys[i]) ? values[i] : op(out[i - 1], values[i]));
  return out;
}

template <class K, class V, class Op, class Eq = std::equal_to<>>
[[nodiscard]] std::vector<V> exclusive_scan_by_key(std::span<const K> keys, std::span<const V> values, V init, Op op,
                                                   Eq eq = {}) {
  detail::check_by_key_sizes(keys, values, "reference::exclusive_scan_by_key");
  std::vector<V> out;
  out.reserve(values.size());
  V acc = init;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (i == 0 || !eq(keys[i - 1], keys[i])) acc = init;
    out.push_back(acc);
    acc = op(acc, values[i]);
  }
  return out;
}

}  // namespace sluice::reference
