// sluice/detail/search/kernels.cuh: the batched search kernels (Karsin ch. 6). Every kernel is a thin
// loop around the pure index functions of layouts.hpp and pbs.hpp, which the host tests prove.
//
//   gather_layout_kernel  builds a tree layout: slot p ← sorted[layout_source(p)]; n reads, m·B writes
//   tree_search_kernel    eytzinger / btree: each block first copies the top nodes (a prefix of the level
//                         order) into shared memory (Karsin's M_TB), then every thread walks several
//                         queries down at once, issuing their independent node loads together
//   sorted_search_kernel  binary search on the plain sorted array (SORTED), one query a thread
//   merge_search_kernel   sorted queries: each block cuts a tile of the merge of keys and queries by merge
//                         path, stages it in shared memory, and every thread walks E merged items there;
//                         O(n + Q) coalesced reads
//   pbs_kernel            keys padded into shared memory per block, then PBS / PBS-CF / PBS-CL a query
//   sort_queries: iota_kernel (original indices), bucket_start_kernel (a binary search a bucket),
//                         bucket_search_kernel (a query's count within its bucket's keys),
//                         restore_window_kernel (one window of answers through shared memory)
// Every index derived from a comparison is bounded by the shapes (cursor nodes < m, merge indices ≤ n and
// ≤ Q, PBS probes < P), so keys that are not sorted give unspecified answers but no stray access.
#pragma once

#include <sluice/core/config.hpp>
#include <sluice/core/merge_path.hpp>
#include <sluice/detail/search/layouts.hpp>
#include <sluice/detail/search/merge_search.hpp>
#include <sluice/detail/search/pbs.hpp>
#include <sluice/detail/search/sort_queries.hpp>
#include <sluice/detail/search/tuning.hpp>
#include <sluice/options/search.hpp>

#include <cuda/std/cstdint>
#include <cuda/std/type_traits>

namespace sluice::detail::search {

enum class bound_kind : int { lower, upper, predecessor };

/// A NaN query (floating-point keys only): no key is ≤ it, so its predecessor is −1 (reference/search.hpp).
template <class K>
SLUICE_HOST_DEVICE constexpr bool is_nan_query(const K& q) {
  if constexpr (cuda::std::is_floating_point_v<K>) return q != q;
  else return false;
}

/// The monotone predicate a bound counts: lower_bound keys k < q; upper_bound and predecessor k ≤ q,
/// that is !(q < k).
template <class K, class Less>
struct bound_predicate {
  K query;
  Less less;
  bool inclusive;
  SLUICE_HOST_DEVICE SLUICE_FORCEINLINE bool operator()(const K& key) const {
    return inclusive ? !less(query, key) : less(key, query);
  }
};

/// A bound's result from the number of keys its predicate holds for, the query not being NaN.
template <class Out>
SLUICE_HOST_DEVICE SLUICE_FORCEINLINE Out count_result(bound_kind kind, index_t count) {
  return kind == bound_kind::predecessor ? static_cast<Out>(static_cast<cuda::std::int64_t>(count) - 1)
                                         : static_cast<Out>(count);
}

/// A bound's result from the number of keys its predicate holds for.
template <class Out, class K>
SLUICE_HOST_DEVICE SLUICE_FORCEINLINE Out bound_result(bound_kind kind, index_t count, const K& query) {
  return kind == bound_kind::predecessor && is_nan_query(query) ? static_cast<Out>(-1) : count_result<Out>(kind, count);
}

/// Queries a thread walks at once: enough independent node loads in flight without spilling registers.
template <class K>
constexpr int queries_per_thread(int keys_per_node) {
  const int node_words = static_cast<int>((keys_per_node * sizeof(K) + 3) / 4);
  const int wanted = tuning::node_words_in_flight / node_words;
  return wanted < 1 ? 1 : wanted > tuning::max_queries_per_thread ? tuning::max_queries_per_thread : wanted;
}

/// A node's B keys into registers, in 16-byte loads when the node is a multiple of 16 bytes (nodes then
/// start 16-byte aligned: the layout and the shared cache are).
template <int B, class K>
SLUICE_DEVICE SLUICE_FORCEINLINE void load_node(const K* node, K (&keys)[B]) {
  constexpr unsigned bytes = B * sizeof(K);
  if constexpr (bytes % 16 == 0) {
    uint4 raw[bytes / 16];
#pragma unroll
    for (unsigned v = 0; v < bytes / 16; ++v) raw[v] = reinterpret_cast<const uint4*>(node)[v];
    __builtin_memcpy(keys, raw, bytes);
  } else {
#pragma unroll
    for (int s = 0; s < B; ++s) keys[s] = node[s];
  }
}

template <class K>
__global__ void gather_layout_kernel(const K* __restrict__ sorted, K* __restrict__ layout, tree_shape t) {
  const index_t stride = index_t{gridDim.x} * blockDim.x;
  for (index_t p = index_t{blockIdx.x} * blockDim.x + threadIdx.x; p < t.slots(); p += stride)
    layout[p] = sorted[layout_source(t, p)];
}

template <int B, class K, class Less, class Out>
__global__ void __launch_bounds__(tuning::tree_block_threads, tuning::tree_blocks_per_sm)
    tree_search_kernel(const K* __restrict__ layout, tree_shape shape, index_t cached_nodes,
                       const K* __restrict__ queries, index_t count, Out* __restrict__ out, bound_kind kind,
                       Less less) {
  constexpr int qpt = queries_per_thread<K>(B);
  // B as a compile-time constant in the inlined index arithmetic: divisions by B + 1 become multiplies.
  tree_shape t = shape;
  t.keys_per_node = B;
  extern __shared__ __align__(16) unsigned char tree_cache_storage[];
  K* cache = reinterpret_cast<K*>(tree_cache_storage);
  for (index_t i = threadIdx.x; i < cached_nodes * B; i += blockDim.x) cache[i] = layout[i];
  __syncthreads();

  const index_t tile = index_t{blockDim.x} * qpt;
  for (index_t base = index_t{blockIdx.x} * tile; base < count; base += index_t{gridDim.x} * tile) {
    tree_cursor cursor[qpt];
    K query[qpt];
#pragma unroll
    for (int j = 0; j < qpt; ++j) {
      const index_t i = base + static_cast<index_t>(j) * blockDim.x + threadIdx.x;
      query[j] = queries[min_index(i, count - 1)];
      if (i >= count) cursor[j].node = t.nodes;  // no query: the walk is over before it starts
    }
    for (bool walking = true; walking;) {
      // All loads first, then all comparisons: the qpt walks' memory accesses overlap.
      K keys[qpt][B];
#pragma unroll
      for (int j = 0; j < qpt; ++j) {
        const index_t node = cursor[j].node;
        if (cursor[j].active(t)) load_node<B>(node < cached_nodes ? cache + node * B : layout + node * B, keys[j]);
      }
      walking = false;
#pragma unroll
      for (int j = 0; j < qpt; ++j) {
        if (!cursor[j].active(t)) continue;
        const bound_predicate<K, Less> holds{query[j], less, kind != bound_kind::lower};
        index_t c = 0;
#pragma unroll
        for (int s = 0; s < B; ++s) c += holds(keys[j][s]) ? 1 : 0;
        cursor[j].step(t, c);
        walking = true;
      }
    }
#pragma unroll
    for (int j = 0; j < qpt; ++j) {
      const index_t i = base + static_cast<index_t>(j) * blockDim.x + threadIdx.x;
      if (i < count) out[i] = bound_result<Out>(kind, cursor[j].count(t), query[j]);
    }
  }
}

template <class K, class Less, class Out>
__global__ void sorted_search_kernel(const K* __restrict__ keys, index_t n, const K* __restrict__ queries, index_t count,
                                     Out* __restrict__ out, bound_kind kind, Less less) {
  const index_t stride = index_t{gridDim.x} * blockDim.x;
  for (index_t i = index_t{blockIdx.x} * blockDim.x + threadIdx.x; i < count; i += stride) {
    const bound_predicate<K, Less> holds{queries[i], less, kind != bound_kind::lower};
    const index_t taken = sorted_count(n, [&](index_t j) { return holds(keys[j]); });
    out[i] = bound_result<Out>(kind, taken, holds.query);
  }
}

/// Sorted queries: a tile of the merge of keys and queries at a time (E items a thread); its two inputs
/// are cut by merge path, copied into shared memory with coalesced loads, and each thread walks its E
/// items there (merge_search.hpp).
template <int E, class K, class Less, class Out>
__global__ void __launch_bounds__(tuning::merge_block_threads)
    merge_search_kernel(const K* __restrict__ keys, index_t n, const K* __restrict__ queries, index_t count,
                        Out* __restrict__ out, bound_kind kind, Less less) {
  constexpr index_t tile = index_t{tuning::merge_block_threads} * E;
  extern __shared__ __align__(16) unsigned char merge_storage[];
  K* staged = reinterpret_cast<K*>(merge_storage);  // the tile's keys, then its queries
  __shared__ index_t tile_a[2];

  const bool inclusive = kind != bound_kind::lower;
  auto key_first = [&](const K& key, const K& query) { return inclusive ? !less(query, key) : less(key, query); };
  auto query_first = [&](const K& query, const K& key) { return !key_first(key, query); };
  const index_t total = n + count;
  for (index_t d_begin = index_t{blockIdx.x} * tile; d_begin < total; d_begin += index_t{gridDim.x} * tile) {
    const index_t d_end = min_index(d_begin + tile, total);
    if (threadIdx.x < 2) tile_a[threadIdx.x] = merge_path(keys, n, queries, count, threadIdx.x == 0 ? d_begin : d_end, query_first);
    __syncthreads();
    const tile_split split = make_tile_split(tile_a[0], tile_a[1], d_begin, d_end, n, count);
    const index_t na = split.a_end - split.a_begin, nb = split.b_end - split.b_begin;
    for (index_t i = threadIdx.x; i < na + nb; i += blockDim.x)
      staged[i] = i < na ? keys[split.a_begin + i] : queries[split.b_begin + (i - na)];
    __syncthreads();
    const index_t diagonal = index_t{threadIdx.x} * E;
    if (diagonal < na + nb)
      walk_merge(staged, na, staged + na, nb, diagonal, index_t{E}, key_first, [&](index_t j, index_t i) {
        out[split.b_begin + j] = bound_result<Out>(kind, split.a_begin + i, staged[na + j]);
      });
    __syncthreads();  // the next tile overwrites staged and tile_a
  }
}

template <pbs_algorithm Algo, class K, class Less, class Out>
__global__ void pbs_kernel(const K* __restrict__ keys, index_t n, pbs_index padded, const K* __restrict__ queries,
                           index_t count, Out* __restrict__ out, Less less) {
  constexpr pbs_index w = 32;  // the warp width and the bank count of every NVIDIA GPU
  extern __shared__ __align__(16) unsigned char pbs_storage[];
  K* slots = reinterpret_cast<K*>(pbs_storage);
  for (index_t i = threadIdx.x; i < static_cast<index_t>(padded); i += blockDim.x) slots[i] = keys[min_index(i, n - 1)];
  __syncthreads();

  const pbs_index lane = threadIdx.x % w;
  const index_t stride = index_t{gridDim.x} * blockDim.x;
  for (index_t i = index_t{blockIdx.x} * blockDim.x + threadIdx.x; i < count; i += stride) {
    const K q = queries[i];
    auto read = [&](pbs_index j) { return !less(q, slots[j]); };
    const padded_slots<decltype(read)> le{padded, read};
    pbs_index taken = 0;
    if constexpr (Algo == pbs_algorithm::pbs) taken = pbs_count(padded, le);
    else if constexpr (Algo == pbs_algorithm::pbs_cf) taken = pbs_cf_count(padded, w, lane, le);
    else taken = pbs_cl_count(padded, w, lane, le);
    out[i] = bound_result<Out>(bound_kind::predecessor, min_index(static_cast<index_t>(taken), n), q);
  }
}

// --- sort_queries (sort_queries.hpp) ---

template <class I>
__global__ void iota_kernel(I* __restrict__ indices, index_t count) {
  const index_t stride = index_t{gridDim.x} * blockDim.x;
  for (index_t i = index_t{blockIdx.x} * blockDim.x + threadIdx.x; i < count; i += stride) indices[i] = static_cast<I>(i);
}

/// starts[h] = bucket_start(h) for h = 0 … buckets (the last entry is n).
template <class K>
__global__ void bucket_start_kernel(const K* __restrict__ keys, index_t n, int bits, cuda::std::uint32_t* __restrict__ starts,
                                    index_t buckets) {
  const index_t stride = index_t{gridDim.x} * blockDim.x;
  for (index_t h = index_t{blockIdx.x} * blockDim.x + threadIdx.x; h <= buckets; h += stride)
    starts[h] = static_cast<cuda::std::uint32_t>(bucket_start(keys, n, bits, h));
}

/// staged[slot(j)] = keys[j] for j < size, Items loads a thread in flight before their stores (one at a
/// time, each store waited for its load: ~12 round trips a tile at 2^26).
template <int Threads, int Items, class K, class Slot>
__device__ void stage_keys(const K* __restrict__ keys, index_t size, K* staged, Slot slot) {
  for (index_t base = 0; base < size; base += index_t{Threads} * Items) {
    K loaded[Items];
#pragma unroll
    for (int u = 0; u < Items; ++u) {
      const index_t j = base + static_cast<index_t>(u) * Threads + threadIdx.x;
      if (j < size) loaded[u] = keys[j];
    }
#pragma unroll
    for (int u = 0; u < Items; ++u) {
      const index_t j = base + static_cast<index_t>(u) * Threads + threadIdx.x;
      if (j < size) staged[slot(j)] = loaded[u];
    }
  }
}

/// counts[i] = the number of keys the bound's predicate holds for, searched within queries[i]'s bucket.
/// The queries are sorted by bucket (step 1), so a tile of Threads × Items consecutive queries covers the
/// buckets of its first and last query and those between: the block stages their keys in shared memory
/// when they fit (capacity keys, and few a query: staging reads them all) and searches there, else it
/// searches in global memory (L1 / L2). A thread loads its Items queries and their table entries before
/// the staging wait and, on staged keys, runs their searches interleaved in 32-bit offsets
/// (count_in_buckets), Items probes in flight; in global memory one after the other (interleaved 64-bit
/// searches cost more instructions than they hide). A query's range is clamped into the staged keys: a
/// no-op for sorted keys, in bounds for any. Staged key j sits in slot j + j/32: a bucket of ~2^10 keys
/// puts a binary search's first probes ~2^9, 2^8, … apart, the same bank 32 lanes over unless every 32
/// keys shift a bank (c077e46: 87% of the shared wavefronts were conflicts).
template <class K, class Less>
__global__ void __launch_bounds__(tuning::sort_queries_block_threads)
    bucket_search_kernel(const K* __restrict__ keys, index_t n, const cuda::std::uint32_t* __restrict__ starts, int bits,
                         const K* __restrict__ queries, index_t count, cuda::std::uint32_t* __restrict__ counts,
                         bound_kind kind, Less less) {
  constexpr int threads = tuning::sort_queries_block_threads, items = tuning::sort_queries_items_per_thread;
  constexpr index_t tile = index_t{threads} * items;
  constexpr index_t capacity = tuning::sort_queries_staged_bytes / sizeof(K) / 33 * 32;
  __shared__ K staged[capacity + capacity / 32];
  const auto slot = [](auto j) { return j + j / 32; };
  for (index_t first = index_t{blockIdx.x} * tile; first < count; first += index_t{gridDim.x} * tile) {
    const index_t size = min_index(tile, count - first);
    K query[items];
    key_range range[items];
#pragma unroll
    for (int k = 0; k < items; ++k)
      query[k] = queries[first + min_index(static_cast<index_t>(k) * threads + threadIdx.x, size - 1)];
#pragma unroll
    for (int k = 0; k < items; ++k) range[k] = bucket_keys(starts, bucket_of(query[k], bits), n);
    const key_range span{bucket_keys(starts, bucket_of(queries[first], bits), n).first,
                         bucket_keys(starts, bucket_of(queries[first + size - 1], bits), n).last};
    const bool fits = span.first <= span.last && span.last - span.first <= capacity &&
                      span.last - span.first <= size * tuning::sort_queries_staged_keys_per_query;
    if (fits) stage_keys<threads, items>(keys + span.first, span.last - span.first, staged, slot);
    __syncthreads();
    index_t found[items];
    if (fits) {  // in 32-bit offsets into the staged keys
      using local = cuda::std::uint32_t;
      index_range<local> staged_range[items];
#pragma unroll
      for (int k = 0; k < items; ++k) {
        const key_range r = within(range[k], span);
        staged_range[k] = {static_cast<local>(r.first - span.first), static_cast<local>(r.last - span.first)};
      }
      local count_here[items];
      count_in_buckets(staged_range, [&](int k, local j) {
        return bound_predicate<K, Less>{query[k], less, kind != bound_kind::lower}(staged[slot(j)]);
      }, count_here);
#pragma unroll
      for (int k = 0; k < items; ++k) found[k] = span.first + count_here[k];
    } else {  // one search at a time: interleaved 64-bit searches cost more instructions than they hide
#pragma unroll
      for (int k = 0; k < items; ++k) {
        const bound_predicate<K, Less> holds{query[k], less, kind != bound_kind::lower};
        found[k] = count_in_bucket(range[k], [&](index_t j) { return holds(keys[j]); });
      }
    }
#pragma unroll
    for (int k = 0; k < items; ++k) {
      const index_t i = static_cast<index_t>(k) * threads + threadIdx.x;
      if (i < size) counts[first + i] = static_cast<cuda::std::uint32_t>(found[k]);
    }
    __syncthreads();  // the next tile overwrites staged
  }
}

/// Window w of the output from the pairs sorted by the indices' bits above the window (sort_queries.hpp,
/// step 4): positions [w·W, (w+1)·W) hold exactly the indices of that window, scattered through shared
/// memory and written out in order. An index outside the block's window (impossible for a permutation) is
/// dropped, so every access stays in bounds.
template <int WindowLog2, class Out>
__global__ void __launch_bounds__(tuning::sort_queries_block_threads)
    restore_window_kernel(const cuda::std::uint32_t* __restrict__ indices, const cuda::std::uint32_t* __restrict__ counts,
                          index_t count, Out* __restrict__ out, bound_kind kind) {
  constexpr index_t window = index_t{1} << WindowLog2;
  __shared__ cuda::std::uint32_t staged[window];
  for (index_t w = blockIdx.x; w * window < count; w += gridDim.x) {
    const index_t base = w * window, size = min_index(window, count - base);
    for (index_t t = threadIdx.x; t < size; t += blockDim.x) {
      const index_t slot = indices[base + t] - base;  // wraps to a huge value below the window
      if (slot < size) staged[slot] = counts[base + t];
    }
    __syncthreads();
    for (index_t t = threadIdx.x; t < size; t += blockDim.x) out[base + t] = count_result<Out>(kind, staged[t]);
    __syncthreads();  // the next window overwrites staged
  }
}

}  // namespace sluice::detail::search
