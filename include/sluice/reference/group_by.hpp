// sluice/reference/group_by.hpp: sequential oracle for the hash-based group-by (containers/group_by.cuh):
// equal keys anywhere in the input form one group (unlike reduce_by_key's runs of neighbours).
//
//   group_by_reduce(keys, values, op)   the distinct keys in ascending order and, for each, its values
//                                       folded in input order (first value, no identity needed)
//   distinct_keys(keys)                 the distinct keys in ascending order
//
// The device calls return their groups in no particular order: tests sort them by key before comparing.
// values.size() != keys.size() throws invalid_argument("values").
#pragma once

#include <sluice/core/error.hpp>
#include <sluice/reference/by_key.hpp>

#include <map>
#include <set>
#include <span>
#include <vector>

namespace sluice::reference {

template <class K, class V, class Op>
[[nodiscard]] reduce_by_key_result<K, V> group_by_reduce(std::span<const K> keys, std::span<const V> values, Op op) {
  detail::check_by_key_sizes(keys, values, "group_by_reduce");
  std::map<K, V> groups;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const auto [at, fresh] = groups.try_emplace(keys[i], values[i]);
    if (!fresh) at->second = op(at->second, values[i]);
  }
  reduce_by_key_result<K, V> out;
  for (const auto& [key, value] : groups) {
    out.keys.push_back(key);
    out.values.push_back(value);
  }
  return out;
}

template <class K>
[[nodiscard]] std::vector<K> distinct_keys(std::span<const K> keys) {
  const std::set<K> seen(keys.begin(), keys.end());
  return std::vector<K>(seen.begin(), seen.end());
}

}  // namespace sluice::reference
