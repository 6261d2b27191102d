// sluice/search.cuh: batched search over sorted keys (Karsin ch. 6): lower_bound, upper_bound and the
// predecessor (Def 6.0.1: the largest i with keys[i] ≤ q, or −1), on a plain sorted array, on a
// search_index (layouts sorted / eytzinger / btree, built on the device), and in shared memory for small
// key sets (pbs_predecessor: PBS, PBS-CF, PBS-CL). See docs/search.md.
//
//   lower_bound(ctx, keys, queries, out)   out[i] = first j with !less(keys[j], q), n if none
//   upper_bound(ctx, keys, queries, out)   out[i] = first j with less(q, keys[j]), n if none
//   predecessor(ctx, keys, queries, out)   out[i] = upper_bound − 1 (−1 when no key is ≤ q)
//   search_index<K, Less> index(ctx, keys, search_layout::eytzinger);  index.lower_bound(ctx, queries, out)
//   pbs_predecessor(ctx, keys, queries, out, {.algorithm = pbs_algorithm::pbs_cl})
//
// Semantics, whatever the layout: answers are indices into the SORTED order. keys must be sorted by
// `less` (a strict weak order); unsorted keys give unspecified answers, but every read and write stays
// in bounds. A NaN query of floating-point keys (under std::less) gives lower_bound 0, upper_bound n and
// predecessor −1, as reference/search.hpp does. With search_options::queries_sorted the free functions
// and the sorted layout run a merge-path search; queries not sorted under that flag give unspecified
// values, possibly leaving some outputs unwritten, still in bounds.
// The free functions' strategy (search_options::algorithm, automatic by default): binary_search, merge_path,
// sort_queries (integral keys under std::less: the queries radix-sorted by their top 16 bits, searched
// within their bucket's keys, the order restored; automatic picks it when the keys exceed an eighth of the
// L2, Q ≥ n/8 and Q ≥ 2^20), or a temporary eytzinger / btree layout built from the pool for the call (m·B
// keys; automatic picks the btree otherwise when Q ≥ n/4 and n ≥ 4096, since building it costs about as
// much as a few sequential passes).
// Out is any integer type whose maximum is at least n (32-bit outputs are the fastest); predecessor needs
// a signed one. sluice::invalid_argument names: 'sorted_keys', 'queries', 'out' (not device memory, size
// ≠ queries, overlapping an input, too narrow, unsigned for predecessor), the options ('options.algorithm':
// sort_queries for keys that are not integers under std::less) and 'sorted_keys' (sort_queries, n ≥ 2^32).
// Every call is asynchronous on ctx.stream(); temporaries come from the context's pool.
//
//   sluice::device_buffer<std::uint32_t> keys(ctx, sorted_host), queries(ctx, query_host);
//   sluice::device_buffer<std::uint32_t> ranks(ctx, queries.size());
//   sluice::lower_bound(ctx, keys.span(), queries.span(), ranks.span());
//   sluice::search_index<std::uint32_t> index(ctx, keys.span(), sluice::search_layout::btree);
//   index.lower_bound(ctx, queries.span(), ranks.span());
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/device_buffer.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/memory.hpp>
#include <sluice/core/scratch.hpp>
#include <sluice/core/span.hpp>
#include <sluice/detail/search/dispatch.cuh>
#include <sluice/detail/search/layouts.hpp>
#include <sluice/options/search.hpp>

#include <cuda/std/span>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>

namespace sluice {

namespace detail::search {
template <class K, class Less, class Out>
void search_sorted_checked(context& ctx, const char* function, cuda::std::span<const K> keys,
                           cuda::std::span<const K> queries, cuda::std::span<Out> out, bound_kind kind,
                           const search_options& options, Less less) {
  check_search_arguments(ctx, function, keys, queries, out, kind);
  auto device = ctx.activate();
  search_array(ctx, function, keys, queries, out.data(), kind, options, less);
}
}  // namespace detail::search

/// out[i] = the first index j of sorted_keys with !less(sorted_keys[j], queries[i]) (n if none).
template <class KIn, std::size_t E1, class QIn, std::size_t E2, class Out, std::size_t E3, class Less = std::less<>>
  requires std::same_as<std::remove_const_t<KIn>, std::remove_const_t<QIn>>
void lower_bound(context& ctx, cuda::std::span<KIn, E1> sorted_keys, cuda::std::span<QIn, E2> queries,
                 cuda::std::span<Out, E3> out, const search_options& options = {}, Less less = {}) {
  detail::search::search_sorted_checked(ctx, "lower_bound", detail::as_const_span(sorted_keys),
                                        detail::as_const_span(queries), cuda::std::span<Out>(out),
                                        detail::search::bound_kind::lower, options, less);
}

/// out[i] = the first index j of sorted_keys with less(queries[i], sorted_keys[j]) (n if none).
template <class KIn, std::size_t E1, class QIn, std::size_t E2, class Out, std::size_t E3, class Less = std::less<>>
  requires std::same_as<std::remove_const_t<KIn>, std::remove_const_t<QIn>>
void upper_bound(context& ctx, cuda::std::span<KIn, E1> sorted_keys, cuda::std::span<QIn, E2> queries,
                 cuda::std::span<Out, E3> out, const search_options& options = {}, Less less = {}) {
  detail::search::search_sorted_checked(ctx, "upper_bound", detail::as_const_span(sorted_keys),
                                        detail::as_const_span(queries), cuda::std::span<Out>(out),
                                        detail::search::bound_kind::upper, options, less);
}

/// out[i] = the largest index j with sorted_keys[j] ≤ queries[i] (!less(q, key)), or −1 (Karsin
/// Def 6.0.1): upper_bound − 1, and −1 for a NaN query. Out must be signed.
template <class KIn, std::size_t E1, class QIn, std::size_t E2, class Out, std::size_t E3, class Less = std::less<>>
  requires std::same_as<std::remove_const_t<KIn>, std::remove_const_t<QIn>>
void predecessor(context& ctx, cuda::std::span<KIn, E1> sorted_keys, cuda::std::span<QIn, E2> queries,
                 cuda::std::span<Out, E3> out, const search_options& options = {}, Less less = {}) {
  detail::search::search_sorted_checked(ctx, "predecessor", detail::as_const_span(sorted_keys),
                                        detail::as_const_span(queries), cuda::std::span<Out>(out),
                                        detail::search::bound_kind::predecessor, options, less);
}

/// Predecessor (as predecessor above) for a key set small enough for shared memory and any number of
/// queries: every block copies the keys, padded to P = bit_ceil(max(n, 32)) slots with copies of the
/// last key, into shared memory, and each thread searches one query at a time by Karsin's PBS, PBS-CF
/// or PBS-CL (§6.2; automatic: pbs_cl). invalid_argument('sorted_keys') when P·sizeof(K) exceeds the
/// device's shared memory per block; Out must be signed.
template <class KIn, std::size_t E1, class QIn, std::size_t E2, class Out, std::size_t E3, class Less = std::less<>>
  requires std::same_as<std::remove_const_t<KIn>, std::remove_const_t<QIn>>
void pbs_predecessor(context& ctx, cuda::std::span<KIn, E1> sorted_keys, cuda::std::span<QIn, E2> queries,
                     cuda::std::span<Out, E3> out, const pbs_options& options = {}, Less less = {}) {
  const char* function = "pbs_predecessor";
  const auto keys = detail::as_const_span(sorted_keys);
  const auto qs = detail::as_const_span(queries);
  detail::search::check_search_arguments(ctx, function, keys, qs, cuda::std::span<Out>(out),
                                         detail::search::bound_kind::predecessor);
  auto device = ctx.activate();
  detail::search::pbs_predecessor(ctx, function, keys, qs, out.data(), options, less);
}

/// The device side of a search_index: trivially copyable, passed by value into user kernels, each
/// thread searching its own query (no shared-memory cache). Valid while its index lives.
template <class K, class Less = std::less<>>
class search_index_view {
 public:
  search_index_view(const K* keys, search_layout layout, detail::search::tree_shape shape, Less less)
      : keys_(keys), layout_(layout), shape_(shape), less_(less) {}

  [[nodiscard]] SLUICE_DEVICE std::uint64_t lower_bound(const K& q) const {
    return count({q, less_, false});
  }
  [[nodiscard]] SLUICE_DEVICE std::uint64_t upper_bound(const K& q) const { return count({q, less_, true}); }
  /// −1 when no key is ≤ q (or q is NaN).
  [[nodiscard]] SLUICE_DEVICE std::int64_t predecessor(const K& q) const {
    return detail::search::bound_result<std::int64_t>(detail::search::bound_kind::predecessor, upper_bound(q), q);
  }
  [[nodiscard]] SLUICE_HOST_DEVICE std::uint64_t size() const { return shape_.keys; }

 private:
  SLUICE_DEVICE std::uint64_t count(const detail::search::bound_predicate<K, Less>& holds) const {
    if (layout_ == search_layout::sorted)
      return detail::search::sorted_count(shape_.keys, [&](std::uint64_t j) { return holds(keys_[j]); });
    return detail::search::tree_count(shape_, [&](std::uint64_t node) {
      std::uint64_t c = 0;
      for (std::uint64_t s = 0; s < shape_.keys_per_node; ++s) c += holds(keys_[node * shape_.keys_per_node + s]) ? 1 : 0;
      return c;
    });
  }

  const K* keys_;
  search_layout layout_;
  detail::search::tree_shape shape_;
  Less less_;
};

/// Sorted keys laid out for batched search (Karsin §6.1), built on the device from a sorted device array:
///   sorted     the keys as given, binary search per query (or merge path for sorted queries)
///   eytzinger  level-order binary search tree: n slots, no padding
///   btree      level-order B-tree of m = ⌈n/B⌉ nodes of B keys (a node one or more 32-byte sectors,
///              B from the device's tuning, two sectors, or search_index_options::btree_keys_per_node); the m·B − n
///              padding slots hold copies of the largest key (no sentinel value: any key may occur)
/// Members answer with indices into the sorted order whatever the layout. Each block of the tree
/// searches caches the top nodes in shared memory (search_index_options). Construction:
///   out of place  search_index(ctx, sorted_keys, layout)  owns a device buffer of the m·B laid-out
///                 slots (one gather kernel; sorted_keys unchanged and no longer needed)
///   in place      search_index::in_place(ctx, sorted_keys, layout)  rearranges sorted_keys itself into the
///                 layout and keeps a pointer to it (the caller's array must outlive the index). It copies
///                 the n keys to a temporary from the context's pool and gathers back (n extra keys for the
///                 duration of the call; not Berney et al.'s in-place algorithm). A btree in place needs n a
///                 multiple of B (no room for padding): invalid_argument('sorted_keys') otherwise.
template <class K, class Less = std::less<>>
class search_index {
 public:
  template <class KIn, std::size_t E>
    requires std::same_as<std::remove_const_t<KIn>, K>
  search_index(context& ctx, cuda::std::span<KIn, E> sorted_keys, search_layout layout = search_layout::eytzinger,
               const search_index_options& options = {}, Less less = {})
      : search_index(ctx, detail::as_const_span(sorted_keys).size(), layout, options, less, "search_index") {
    require_device_memory(ctx, sorted_keys, "search_index", "sorted_keys");
    owned_ = device_buffer<K>(ctx, layout == search_layout::sorted ? shape_.keys : shape_.slots());
    keys_ = owned_.data();
    if (layout == search_layout::sorted) {
      if (!sorted_keys.empty())
        SLUICE_CUDA_CHECK(cudaMemcpyAsync(owned_.data(), sorted_keys.data(), sorted_keys.size_bytes(),
                                          cudaMemcpyDeviceToDevice, ctx.stream()));
    } else {
      detail::search::gather_layout(ctx, sorted_keys.data(), owned_.data(), shape_);
    }
  }

  template <std::size_t E>
  [[nodiscard]] static search_index in_place(context& ctx, cuda::std::span<K, E> sorted_keys,
                                             search_layout layout = search_layout::eytzinger,
                                             const search_index_options& options = {}, Less less = {}) {
    const char* function = "search_index::in_place";
    require_device_memory(ctx, sorted_keys, function, "sorted_keys");
    search_index index(ctx, sorted_keys.size(), layout, options, less, function);
    if (layout != search_layout::sorted && index.shape_.slots() != sorted_keys.size())
      throw invalid_argument(function, "sorted_keys",
                             "a btree in place needs n a multiple of B = " + std::to_string(index.keys_per_node()));
    index.keys_ = sorted_keys.data();
    if (layout != search_layout::sorted && !sorted_keys.empty()) {
      detail::scratch<K> copy(ctx, sorted_keys.size());
      SLUICE_CUDA_CHECK(cudaMemcpyAsync(copy.get(), sorted_keys.data(), sorted_keys.size_bytes(),
                                        cudaMemcpyDeviceToDevice, ctx.stream()));
      detail::search::gather_layout(ctx, copy.get(), sorted_keys.data(), index.shape_);
    }
    return index;
  }

  template <class QIn, std::size_t E1, class Out, std::size_t E2>
  void lower_bound(context& ctx, cuda::std::span<QIn, E1> queries, cuda::std::span<Out, E2> out,
                   const search_options& options = {}) const {
    run(ctx, "search_index::lower_bound", queries, out, detail::search::bound_kind::lower, options);
  }
  template <class QIn, std::size_t E1, class Out, std::size_t E2>
  void upper_bound(context& ctx, cuda::std::span<QIn, E1> queries, cuda::std::span<Out, E2> out,
                   const search_options& options = {}) const {
    run(ctx, "search_index::upper_bound", queries, out, detail::search::bound_kind::upper, options);
  }
  template <class QIn, std::size_t E1, class Out, std::size_t E2>
  void predecessor(context& ctx, cuda::std::span<QIn, E1> queries, cuda::std::span<Out, E2> out,
                   const search_options& options = {}) const {
    run(ctx, "search_index::predecessor", queries, out, detail::search::bound_kind::predecessor, options);
  }

  [[nodiscard]] search_index_view<K, Less> view() const { return {keys_, layout_, shape_, less_}; }
  [[nodiscard]] std::size_t size() const { return shape_.keys; }
  [[nodiscard]] search_layout layout() const { return layout_; }
  /// B: 1 for eytzinger (and sorted), the node's keys for btree.
  [[nodiscard]] std::size_t keys_per_node() const { return shape_.keys_per_node; }
  /// The laid-out keys (m·B slots for the trees).
  [[nodiscard]] cuda::std::span<const K> laid_out_keys() const {
    return {keys_, layout_ == search_layout::sorted ? shape_.keys : shape_.slots()};
  }
  /// Bytes of shared memory each block of a tree search caches.
  [[nodiscard]] std::size_t cache_bytes() const { return cache_bytes_; }

 private:
  search_index(context& ctx, std::size_t n, search_layout layout, const search_index_options& options, Less less,
               const char* function)
      : layout_(layout), less_(less) {
    const int b = layout == search_layout::btree ? detail::search::btree_keys_per_node<K>(options.btree_keys_per_node, function) : 1;
    shape_ = detail::search::make_tree_shape(n, static_cast<std::uint64_t>(b));
    cache_bytes_ = layout == search_layout::sorted ? 0 : detail::search::tree_cache_bytes(ctx, options, function);
  }

  template <class QIn, std::size_t E1, class Out, std::size_t E2>
  void run(context& ctx, const char* function, cuda::std::span<QIn, E1> queries, cuda::std::span<Out, E2> out,
           detail::search::bound_kind kind, const search_options& options) const {
    static_assert(std::is_same_v<std::remove_const_t<QIn>, K>, "queries have the index's key type");
    const auto qs = detail::as_const_span(queries);
    detail::search::check_search_arguments(ctx, function, cuda::std::span<const K>(keys_, shape_.keys), qs,
                                           cuda::std::span<Out>(out), kind);
    auto device = ctx.activate();
    if (layout_ == search_layout::sorted)
      detail::search::search_sorted(ctx, keys_, shape_.keys, qs, out.data(), kind, options.queries_sorted, less_);
    else
      detail::search::search_tree(ctx, keys_, shape_, cache_bytes_, qs, out.data(), kind, less_);
  }

  device_buffer<K> owned_;
  const K* keys_ = nullptr;
  search_layout layout_;
  detail::search::tree_shape shape_;
  std::size_t cache_bytes_ = 0;
  Less less_;
};

}  // namespace sluice
