// sluice/python/api_search.hpp: the type-erased API (as api.hpp's) of search.cuh's predecessor and
// search_index. Apart from api.hpp so that the translation units bound first do not depend on it. Keys of
// the six numeric dtypes; answers int64.
#pragma once

#include "api.hpp"

#include <memory>
#include <string_view>

namespace sluice::python {

search_layout parse_search_layout(std::string_view name);
[[nodiscard]] std::string_view name(search_layout layout);

/// out[i] = the largest j with sorted_keys[j] <= queries[i], or −1 (Karsin Def 6.0.1: upper_bound − 1).
void predecessor(const call& c, const array& sorted_keys, const array& queries, const array& out,
                 search_algorithm algorithm, bool queries_sorted);

enum class bound { lower, upper, predecessor };

/// A sluice::search_index of one numeric dtype, built on the device of its call (which it then waits for,
/// so that any stream may query it), or, for host keys, a copy of the keys searched by std::lower_bound /
/// std::upper_bound (the layout is then only reported). Queries must be on the index's device and of its
/// dtype; answers int64 indices into the sorted order.
class search_index_handle {
 public:
  search_index_handle(const call& c, const array& sorted_keys, search_layout layout, int btree_keys_per_node);
  ~search_index_handle();
  search_index_handle(search_index_handle&&) noexcept;
  search_index_handle& operator=(search_index_handle&&) noexcept;

  void search(const call& c, const array& queries, const array& out, bound kind) const;

  [[nodiscard]] std::size_t size() const;
  [[nodiscard]] search_layout layout() const;
  /// B: the keys of a btree node; 1 for the other layouts (and on the host).
  [[nodiscard]] std::size_t keys_per_node() const;
  [[nodiscard]] dtype key_type() const;
  /// −1: the keys are in host memory.
  [[nodiscard]] int device() const;

  struct impl;

 private:
  std::unique_ptr<impl> impl_;
};

}  // namespace sluice::python
