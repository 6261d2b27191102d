// sluice/reference/hash_map.hpp: sequential oracle for the slab hash's dictionary semantics
// (Ashkiani §5.1, slab-list operations), applied one operation at a time.
//
// multi_hash_map<K, V> is a multimap that remembers, per key, its instances from least to most recent:
//   insert(k, v)      adds an instance (duplicates allowed: INSERT)
//   replace(k, v)     unique-key upsert (REPLACE): sets the value of k's least-recent instance, or inserts
//                     when k is absent; with only replace() calls every key has one instance
//   search(k)         the least-recent instance's value (SEARCH), or nullopt
//   search_all(k)     every instance's value, least recent first (SEARCHALL); empty when absent
//   erase(k)          removes the least-recent instance (DELETE); false when k is absent
//   erase_all(k)      removes every instance (DELETEALL); returns how many
//   count(k), size()  instances of k; instances in total
// On the GPU, operations issued concurrently in one kernel are unordered; tests should check only outcomes
// that do not depend on their order (e.g. a batch of replaces of distinct keys), or replay the GPU's order.
// erase() shifts the key's remaining instances: O(instances of k), fine for the few duplicates tests use.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <unordered_map>
#include <vector>

namespace sluice::reference {

template <class K, class V, class Hash = std::hash<K>>
class multi_hash_map {
 public:
  void insert(const K& k, const V& v) {
    instances_[k].push_back(v);
    ++size_;
  }

  void replace(const K& k, const V& v) {
    const auto it = instances_.find(k);
    if (it == instances_.end()) insert(k, v);
    else it->second.front() = v;
  }

  [[nodiscard]] std::optional<V> search(const K& k) const {
    const auto it = instances_.find(k);
    if (it == instances_.end()) return std::nullopt;
    return it->second.front();
  }

  [[nodiscard]] std::vector<V> search_all(const K& k) const {
    const auto it = instances_.find(k);
    return it == instances_.end() ? std::vector<V>{} : it->second;
  }

  bool erase(const K& k) {
    const auto it = instances_.find(k);
    if (it == instances_.end()) return false;
    it->second.erase(it->second.begin());
    if (it->second.empty()) instances_.erase(it);  // a present key always has at least one instance
    --size_;
    return true;
  }

  std::size_t erase_all(const K& k) {
    const auto it = instances_.find(k);
    if (it == instances_.end()) return 0;
    const std::size_t removed = it->second.size();
    instances_.erase(it);
    size_ -= removed;
    return removed;
  }

  [[nodiscard]] std::size_t count(const K& k) const {
    const auto it = instances_.find(k);
    return it == instances_.end() ? 0 : it->second.size();
  }

  [[nodiscard]] std::size_t size() const { return size_; }

 private:
  std::unordered_map<K, std::vector<V>, Hash> instances_;  // only keys with at least one instance
  std::size_t size_ = 0;
};

}  // namespace sluice::reference
