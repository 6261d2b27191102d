// sluice/reference/ordered_map.hpp: sequential oracle for the GPU LSM, a batched ordered dictionary
// (Ashkiani §4.1, batch semantics rules 3–6).
//
// lsm_map<K, V> holds at most one value per key and changes only by whole batches:
//   apply_batch(updates)  within one batch
//                         - every delete of k wins over every insert of k (insert + delete ⇒ deleted;
//                           several deletes act as one; deleting a missing key is harmless);
//                         - several inserts of k (and no delete) ⇒ k is present, and the GPU LSM may keep
//                           ANY one of them (rule 4). The oracle keeps the LAST one for lookup, range and
//                           successor/predecessor, and remembers all of them: acceptable_values(k) lists
//                           every value inserted for k in the batch that last set it, in batch order, so
//                           a test should accept a GPU answer that is any element of that list.
//                         - a key not mentioned keeps its state; a later batch's insert replaces the
//                           value an earlier batch set (rule 3). An empty batch changes nothing.
//   lookup(k)             the value, or nullopt
//   count(k1, k2)         the number of keys with k1 ≤ k ≤ k2 (inclusive); 0 when k1 > k2
//   range(k1, k2)         those (key, value) pairs in ascending key order; empty when k1 > k2
//   successor(k)          the pair with the smallest key ≥ k;  predecessor(k): the largest key ≤ k
//   size()                the number of keys present
// Tombstones, staleness and cleanup are GPU-side representation details: no query here can observe them.
// count and range cost O(log n + answer size).
#pragma once

#include <cstddef>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <utility>
#include <vector>

namespace sluice::reference {

template <class K, class V>
class lsm_map {
 public:
  struct update {
    K key;
    V value;          ///< ignored for deletes
    bool is_delete = false;
  };

  void apply_batch(std::span<const update> batch) {
    std::set<K> deleted;
    std::map<K, std::vector<V>> inserted;  // every value inserted per key, in batch order
    for (const update& u : batch) {
      if (u.is_delete) deleted.insert(u.key);
      else inserted[u.key].push_back(u.value);
    }
    for (const K& k : deleted) entries_.erase(k);
    for (auto& [k, values] : inserted)
      if (!deleted.contains(k)) entries_[k] = std::move(values);
  }

  [[nodiscard]] std::optional<V> lookup(const K& k) const {
    const auto it = entries_.find(k);
    if (it == entries_.end()) return std::nullopt;
    return it->second.back();
  }

  /// Every value the GPU may legally return for k (empty when k is absent); lookup(k) is the last one.
  [[nodiscard]] std::vector<V> acceptable_values(const K& k) const {
    const auto it = entries_.find(k);
    return it == entries_.end() ? std::vector<V>{} : it->second;
  }

  [[nodiscard]] std::size_t count(const K& k1, const K& k2) const {
    if (k2 < k1) return 0;
    return static_cast<std::size_t>(std::distance(entries_.lower_bound(k1), entries_.upper_bound(k2)));
  }

  [[nodiscard]] std::vector<std::pair<K, V>> range(const K& k1, const K& k2) const {
    std::vector<std::pair<K, V>> out;
    if (k2 < k1) return out;
    for (auto it = entries_.lower_bound(k1); it != entries_.upper_bound(k2); ++it)
      out.emplace_back(it->first, it->second.back());
    return out;
  }

  [[nodiscard]] std::optional<std::pair<K, V>> successor(const K& k) const {
    const auto it = entries_.lower_bound(k);
    if (it == entries_.end()) return std::nullopt;
    return std::pair<K, V>(it->first, it->second.back());
  }

  [[nodiscard]] std::optional<std::pair<K, V>> predecessor(const K& k) const {
    auto it = entries_.upper_bound(k);  // first key > k; the one before it is the largest key ≤ k
    if (it == entries_.begin()) return std::nullopt;
    --it;
    return std::pair<K, V>(it->first, it->second.back());
  }

  [[nodiscard]] std::size_t size() const { return entries_.size(); }

 private:
  std::map<K, std::vector<V>> entries_;  // key → the values its latest setting batch inserted (never empty)
};

}  // namespace sluice::reference
