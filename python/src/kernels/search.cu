// libsluice_python_kernels: batched lower_bound / upper_bound / predecessor over sorted keys, and
// search_index (sluice/search.cuh; CPU: std::lower_bound / std::upper_bound per query, as
// sluice/reference/search.hpp, without its sortedness check). Keys and queries of one of the numeric
// dtypes; answers int64 (torch.searchsorted's default). The bound is a run-time argument of the search
// kernels and the index's searches are the free functions' temporary layouts: the predecessor and the
// index add no instantiation of their own beyond the layout's gather.
#include "api_search.hpp"
#include "common.hpp"

#include <sluice/search.cuh>

#include <algorithm>
#include <vector>

namespace sluice::python {

namespace {

const char* function_of(bound kind) {
  switch (kind) {
    case bound::lower: return "lower_bound";
    case bound::upper: return "upper_bound";
    case bound::predecessor: return "predecessor";
  }
  return "?";
}

/// The answer of one query on the host: a NaN query gives lower_bound 0, upper_bound n and predecessor −1,
/// as the device's (search.cuh).
template <class K>
std::int64_t host_bound(std::span<const K> keys, const K& q, bound kind) {
  if (kind == bound::lower) return std::lower_bound(keys.begin(), keys.end(), q) - keys.begin();
  const std::int64_t upper = std::upper_bound(keys.begin(), keys.end(), q) - keys.begin();
  if (kind == bound::upper) return upper;
  if constexpr (std::is_floating_point_v<K>)
    if (q != q) return -1;
  return upper - 1;
}

template <class K>
void search_on_host(const char* function, std::span<const K> keys, const array& queries, const array& out, bound kind) {
  const auto qs = host_span<const K>(queries);
  const auto to = host_span<std::int64_t>(out);
  if (to.size() != qs.size()) throw invalid_argument(function, "out", "must have one element per query");
  for (std::size_t i = 0; i < qs.size(); ++i) to[i] = host_bound(keys, qs[i], kind);
}

void require_answers(const array& out, const char* function) {
  visit(types<std::int64_t>{}, out.type, function, "out", [](auto) {});
}

void search_sorted_array(const call& c, const array& sorted_keys, const array& queries, const array& out, bound kind,
                         search_algorithm algorithm, bool queries_sorted) {
  guarded([&] {
    const char* function = function_of(kind);
    require_type(queries, sorted_keys.type, function, "queries");
    require_answers(out, function);
    visit(numeric_types{}, sorted_keys.type, function, "sorted_keys", [&]<class K>(type_tag<K>) {
      if (c.on_host()) return search_on_host(function, host_span<const K>(sorted_keys), queries, out, kind);
      context& ctx = context_for(c);
      const search_options options{.queries_sorted = queries_sorted, .algorithm = algorithm};
      const auto keys = device_span<const K>(sorted_keys);
      const auto qs = device_span<const K>(queries);
      const auto to = device_span<std::int64_t>(out);
      switch (kind) {
        case bound::lower: return sluice::lower_bound(ctx, keys, qs, to, options);
        case bound::upper: return sluice::upper_bound(ctx, keys, qs, to, options);
        case bound::predecessor: return sluice::predecessor(ctx, keys, qs, to, options);
      }
    });
  });
}

}  // namespace

void search(const call& c, const array& sorted_keys, const array& queries, const array& out, bool upper,
            search_algorithm algorithm, bool queries_sorted) {
  search_sorted_array(c, sorted_keys, queries, out, upper ? bound::upper : bound::lower, algorithm, queries_sorted);
}

void predecessor(const call& c, const array& sorted_keys, const array& queries, const array& out,
                 search_algorithm algorithm, bool queries_sorted) {
  search_sorted_array(c, sorted_keys, queries, out, bound::predecessor, algorithm, queries_sorted);
}

// ---- search_index ----------------------------------------------------------------------------------------

struct search_index_handle::impl {
  virtual ~impl() = default;
  virtual void search(const call& c, const array& queries, const array& out, bound kind, const char* function) const = 0;

  std::size_t size = 0;
  search_layout layout = search_layout::eytzinger;
  std::size_t keys_per_node = 1;
  dtype type = dtype::int32;
  int device = -1;
};

namespace {

template <class K>
struct device_index final : search_index_handle::impl {
  device_index(context& ctx, const array& keys, search_layout how, int btree_keys_per_node)
      : index(ctx, device_span<const K>(keys), how, {.btree_keys_per_node = btree_keys_per_node}) {
    size = index.size();
    layout = how;
    keys_per_node = index.keys_per_node();
    type = keys.type;
    device = ctx.device();
    ctx.synchronize();  // built before any stream queries it (documented)
  }

  void search(const call& c, const array& queries, const array& out, bound kind, const char*) const override {
    context& ctx = context_for(c);
    const auto qs = device_span<const K>(queries);
    const auto to = device_span<std::int64_t>(out);
    switch (kind) {
      case bound::lower: return index.lower_bound(ctx, qs, to);
      case bound::upper: return index.upper_bound(ctx, qs, to);
      case bound::predecessor: return index.predecessor(ctx, qs, to);
    }
  }

  sluice::search_index<K> index;
};

template <class K>
struct host_index final : search_index_handle::impl {
  host_index(const array& sorted_keys, search_layout how) {
    const auto from = host_span<const K>(sorted_keys);
    keys.assign(from.begin(), from.end());
    size = keys.size();
    layout = how;
    type = sorted_keys.type;
  }

  void search(const call&, const array& queries, const array& out, bound kind, const char* function) const override {
    search_on_host<K>(function, keys, queries, out, kind);
  }

  std::vector<K> keys;
};

}  // namespace

search_index_handle::search_index_handle(const call& c, const array& sorted_keys, search_layout layout,
                                         int btree_keys_per_node) {
  impl_ = guarded([&]() -> std::unique_ptr<impl> {
    return visit(numeric_types{}, sorted_keys.type, "SearchIndex", "sorted_keys", [&]<class K>(type_tag<K>) -> std::unique_ptr<impl> {
      if (c.on_host()) return std::make_unique<host_index<K>>(sorted_keys, layout);
      return std::make_unique<device_index<K>>(context_for(c), sorted_keys, layout, btree_keys_per_node);
    });
  });
}

search_index_handle::~search_index_handle() = default;
search_index_handle::search_index_handle(search_index_handle&&) noexcept = default;
search_index_handle& search_index_handle::operator=(search_index_handle&&) noexcept = default;

void search_index_handle::search(const call& c, const array& queries, const array& out, bound kind) const {
  guarded([&] {
    const std::string function = "SearchIndex." + std::string(function_of(kind));
    require_type(queries, impl_->type, function.c_str(), "queries");
    require_answers(out, function.c_str());
    if (c.device != impl_->device)
      throw error(error_kind::value, "sluice." + function + ": 'queries' is on " +
                                         (c.device < 0 ? std::string("the host") : "cuda:" + std::to_string(c.device)) +
                                         " but the index on " +
                                         (impl_->device < 0 ? std::string("the host") : "cuda:" + std::to_string(impl_->device)));
    impl_->search(c, queries, out, kind, function.c_str());
  });
}

std::size_t search_index_handle::size() const { return impl_->size; }
search_layout search_index_handle::layout() const { return impl_->layout; }
std::size_t search_index_handle::keys_per_node() const { return impl_->keys_per_node; }
dtype search_index_handle::key_type() const { return impl_->type; }
int search_index_handle::device() const { return impl_->device; }

}  // namespace sluice::python
