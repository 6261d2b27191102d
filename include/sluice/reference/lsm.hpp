// sluice/reference/lsm.hpp: sequential oracle of sluice::lsm (containers/lsm.cuh), the GPU LSM with the
// batch semantics docs/lsm.md lists: Ashkiani §4.3.1 with rules 4 and 6 changed so that a batch is
// applied in its own order (the last operation on a key in a batch wins).
//
//   lsm_model<K, V> m;
//   m.apply(batch)        each {key, value, erase} in batch order: insert sets key → value, erase removes
//                         the key (absent keys: nothing); so insert-then-erase in one batch is deleted,
//                         erase-then-insert is present, and of several inserts the last one's value stays
//   m.bulk_build(pairs)   the content replaced by pairs (the last of equal keys wins)
//   lookup(k)             the value, or nullopt
//   count(k1, k2)         keys in [k1, k2] (inclusive); 0 when k1 > k2
//   range(k1, k2)         those pairs in ascending key order; empty when k1 > k2
//   successor(k)          the pair with the smallest key ≥ k; predecessor(k): the largest key ≤ k
//   size()                keys present
// Tombstones, stale copies and cleanup are the GPU structure's business: no query here can see them, and
// a cleanup must leave every answer unchanged. count and range cost O(log n + answer).
// (reference/ordered_map.hpp's lsm_map keeps the seed's rules 4 and 6 instead.)
#pragma once

#include <cstddef>
#include <iterator>
#include <map>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace sluice::reference {

template <class K, class V>
class lsm_model {
 public:
  struct operation {
    K key;
    V value{};           ///< ignored for erases
    bool erase = false;
  };

  void apply(std::span<const operation> batch) {
    for (const operation& op : batch) {
      if (op.erase) entries_.erase(op.key);
      else entries_[op.key] = op.value;
    }
  }

  void bulk_build(std::span<const std::pair<K, V>> pairs) {
    entries_.clear();
    for (const auto& [k, v] : pairs) entries_[k] = v;
  }

  [[nodiscard]] std::optional<V> lookup(const K& k) const {
    const auto it = entries_.find(k);
    if (it == entries_.end()) return std::nullopt;
    return it->second;
  }

  [[nodiscard]] std::size_t count(const K& k1, const K& k2) const {
    if (k2 < k1) return 0;
    return static_cast<std::size_t>(std::distance(entries_.lower_bound(k1), entries_.upper_bound(k2)));
  }

  [[nodiscard]] std::vector<std::pair<K, V>> range(const K& k1, const K& k2) const {
    if (k2 < k1) return {};
    return {entries_.lower_bound(k1), entries_.upper_bound(k2)};
  }

  [[nodiscard]] std::optional<std::pair<K, V>> successor(const K& k) const {
    const auto it = entries_.lower_bound(k);
    if (it == entries_.end()) return std::nullopt;
    return *it;
  }

  [[nodiscard]] std::optional<std::pair<K, V>> predecessor(const K& k) const {
    auto it = entries_.upper_bound(k);  // the first key > k; the one before it is the largest ≤ k
    if (it == entries_.begin()) return std::nullopt;
    return *std::prev(it);
  }

  [[nodiscard]] std::size_t size() const { return entries_.size(); }
  [[nodiscard]] const std::map<K, V>& entries() const { return entries_; }

 private:
  std::map<K, V> entries_;
};

}  // namespace sluice::reference
