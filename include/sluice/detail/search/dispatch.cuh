// sluice/detail/search/dispatch.cuh: launch shapes of the batched searches from the device (SM count,
// shared memory per SM and per block) and the tuning table, and the checks every entry point makes.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/core/memory.hpp>
#include <sluice/core/scratch.hpp>
#include <sluice/core/span.hpp>
#include <sluice/detail/radix_sort/dispatch.cuh>
#include <sluice/detail/search/kernels.cuh>
#include <sluice/detail/search/layouts.hpp>
#include <sluice/detail/search/pbs.hpp>
#include <sluice/detail/search/sort_queries.hpp>
#include <sluice/detail/search/tuning.hpp>
#include <sluice/options/search.hpp>

#include <cuda/std/span>

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

namespace sluice::detail::search {

/// The node sizes a btree may have: one or two 32-byte sectors or one 128-byte line (B ≥ 1). Larger
/// nodes would not fit a thread's registers at the tree search's occupancy.
inline constexpr std::size_t btree_node_byte_choices[] = {32, 64, 128};

template <class K>
constexpr int keys_in_node_bytes(std::size_t bytes) {
  return static_cast<int>(std::max<std::size_t>(1, bytes / sizeof(K)));
}

/// B for a btree: the tuning's node when `requested` is 0, else `requested` if it is one of the choices.
template <class K>
int btree_keys_per_node(int requested, const char* function) {
  if (requested == 0) return keys_in_node_bytes<K>(tuning::btree_node_bytes);
  for (std::size_t bytes : btree_node_byte_choices)
    if (requested == keys_in_node_bytes<K>(bytes)) return requested;
  throw invalid_argument(function, "options.btree_keys_per_node",
                         "must be 0 or fill a node of 32, 64 or 128 bytes (" + std::to_string(sizeof(K)) +
                             "-byte keys: " + std::to_string(keys_in_node_bytes<K>(32)) + ", " +
                             std::to_string(keys_in_node_bytes<K>(64)) + " or " +
                             std::to_string(keys_in_node_bytes<K>(128)) + ")");
}

/// The checks of every batched search: device memory, one output per query, no output overlapping an
/// input, an output type that holds every answer (n for the bounds, −1 … n − 1 for predecessor).
template <class K, class Out>
void check_search_arguments(const context& ctx, const char* function, cuda::std::span<const K> keys,
                            cuda::std::span<const K> queries, cuda::std::span<Out> out, bound_kind kind) {
  static_assert(std::is_integral_v<Out> && !std::is_same_v<Out, bool>, "search outputs are integer indices");
  require_device_memory(ctx, keys, function, "sorted_keys");
  require_device_memory(ctx, queries, function, "queries");
  require_device_memory(ctx, out, function, "out");
  if (out.size() != queries.size()) throw invalid_argument(function, "out", "must have one element per query");
  if (overlaps(out, keys) || overlaps(out, queries)) throw invalid_argument(function, "out", "overlaps an input");
  if (kind == bound_kind::predecessor && !std::is_signed_v<Out>)
    throw invalid_argument(function, "out", "must be a signed integer type: predecessor answers −1 when none");
  if (static_cast<unsigned long long>(std::numeric_limits<Out>::max()) < keys.size())
    throw invalid_argument(function, "out",
                           "has an element type too narrow for " + std::to_string(keys.size()) + " keys");
}

/// Bound or predecessor on the plain sorted array: binary search, or merge path (sorted queries).
template <class K, class Less, class Out>
void search_sorted(context& ctx, const K* keys, index_t n, cuda::std::span<const K> queries, Out* out, bound_kind kind,
                   bool by_merge_path, Less less) {
  if (queries.empty()) return;
  if (by_merge_path && n > 0) {
    constexpr int items = tuning::template merge_items_per_thread<K>();
    const auto kernel = merge_search_kernel<items, K, Less, Out>;
    const std::size_t tile = static_cast<std::size_t>(tuning::merge_block_threads) * items;
    const std::size_t shared_bytes = tile * sizeof(K);
    SLUICE_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared_bytes)));
    const auto grid = one_wave_grid(ctx, kernel, tuning::merge_block_threads, ceil_div(n + queries.size(), tile), shared_bytes);
    kernel<<<static_cast<unsigned>(grid), tuning::merge_block_threads, shared_bytes, ctx.stream()>>>(
        keys, n, queries.data(), queries.size(), out, kind, less);
  } else {
    const auto kernel = sorted_search_kernel<K, Less, Out>;
    const auto grid = one_wave_grid(ctx, kernel, tuning::sorted_block_threads,
                                    ceil_div(queries.size(), static_cast<std::size_t>(tuning::sorted_block_threads)));
    kernel<<<static_cast<unsigned>(grid), tuning::sorted_block_threads, 0, ctx.stream()>>>(
        keys, n, queries.data(), queries.size(), out, kind, less);
  }
  SLUICE_CUDA_CHECK(cudaGetLastError());
}

/// Shared-memory bytes a block of the tree search may cache: options.cache_bytes, or the SM's shared
/// memory divided among tuning::tree_blocks_per_sm blocks; 0 when caching is off.
inline std::size_t tree_cache_bytes(const context& ctx, const search_index_options& options, const char* function) {
  if (!options.cache_top_levels) return 0;
  const std::size_t most = ctx.properties().shared_memory_per_block_optin;
  if (options.cache_bytes > most)
    throw invalid_argument(function, "options.cache_bytes",
                           "exceeds the device's shared memory per block (" + std::to_string(most) + " bytes)");
  if (options.cache_bytes != 0) return options.cache_bytes;
  const std::size_t share = ctx.properties().shared_memory_per_sm / tuning::tree_blocks_per_sm;
  return std::min(most, share > tuning::shared_reserve_bytes ? share - tuning::shared_reserve_bytes : 0);
}

template <int B, class K, class Less, class Out>
void launch_tree_search(context& ctx, const K* layout, const tree_shape& t, std::size_t cache_bytes,
                        cuda::std::span<const K> queries, Out* out, bound_kind kind, Less less) {
  const auto kernel = tree_search_kernel<B, K, Less, Out>;
  const index_t cached_nodes = min_index(t.nodes, cache_bytes / (sizeof(K) * B));
  const std::size_t shared_bytes = cached_nodes * B * sizeof(K);
  SLUICE_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared_bytes)));
  constexpr int threads = tuning::tree_block_threads;
  const std::size_t tile = static_cast<std::size_t>(threads) * queries_per_thread<K>(B);
  const auto grid = one_wave_grid(ctx, kernel, threads, ceil_div(queries.size(), tile), shared_bytes);
  kernel<<<static_cast<unsigned>(grid), threads, shared_bytes, ctx.stream()>>>(layout, t, cached_nodes, queries.data(),
                                                                                queries.size(), out, kind, less);
  SLUICE_CUDA_CHECK(cudaGetLastError());
}

/// Bound or predecessor on an eytzinger (B = 1) or btree layout; B is one of the node-size choices.
template <class K, class Less, class Out>
void search_tree(context& ctx, const K* layout, const tree_shape& t, std::size_t cache_bytes,
                 cuda::std::span<const K> queries, Out* out, bound_kind kind, Less less) {
  if (queries.empty()) return;
  const auto b = static_cast<int>(t.keys_per_node);
  constexpr int b32 = keys_in_node_bytes<K>(32), b64 = keys_in_node_bytes<K>(64);
  constexpr int b128 = keys_in_node_bytes<K>(128);
  if (b == 1) launch_tree_search<1>(ctx, layout, t, cache_bytes, queries, out, kind, less);
  else if (b == b32) launch_tree_search<b32>(ctx, layout, t, cache_bytes, queries, out, kind, less);
  else if (b == b64) launch_tree_search<b64>(ctx, layout, t, cache_bytes, queries, out, kind, less);
  else if (b == b128) launch_tree_search<b128>(ctx, layout, t, cache_bytes, queries, out, kind, less);
  else throw invalid_argument("search_index", "keys_per_node", "is not a node size the kernels are built for");
}

/// layout[p] ← sorted[layout_source(p)] for the m·B slots (layout and sorted must not overlap).
template <class K>
void gather_layout(context& ctx, const K* sorted, K* layout, const tree_shape& t) {
  if (t.slots() == 0) return;
  const auto kernel = gather_layout_kernel<K>;
  kernel<<<streaming_grid(ctx, kernel, t.slots()), 256, 0, ctx.stream()>>>(sorted, layout, t);
  SLUICE_CUDA_CHECK(cudaGetLastError());
}

/// The free functions' strategy for search_algorithm::automatic (tuning.hpp's thresholds): merge_path for
/// sorted queries; sort_queries for large batches of integral keys beyond an eighth of the L2; a temporary
/// btree while the queries outnumber a quarter of the keys; else binary_search.
template <class K, class Less>
search_algorithm chosen_algo(const context& ctx, const search_options& options, std::size_t n, std::size_t queries) {
  if (options.algorithm != search_algorithm::automatic) return options.algorithm;
  if (options.queries_sorted) return search_algorithm::merge_path;
  if (sorts_by_radix_word<K, Less> && n <= std::numeric_limits<std::uint32_t>::max() &&
      sort_queries_pays(n, queries, sizeof(K), ctx.properties().l2_cache_bytes, tuning::sort_queries_l2_fraction,
                        tuning::sort_queries_keys_per_query, tuning::sort_queries_min_queries))
    return search_algorithm::sort_queries;
  const bool tree_pays = n >= tuning::temporary_tree_min_keys && queries * tuning::temporary_tree_keys_per_query >= n;
  return tree_pays ? search_algorithm::btree : search_algorithm::binary_search;
}

/// sort_queries on one chunk of at most 2^31 queries (sort_queries.hpp's steps 1, 3 and 4; `starts` is
/// step 2's table). Temporaries: the sorted queries and 4 words a query, returned stream-ordered.
template <class K, class Less, class Out>
void search_chunk_by_sorting(context& ctx, const K* keys, index_t n, const std::uint32_t* starts, int bits,
                             cuda::std::span<const K> queries, Out* out, bound_kind kind, Less less) {
  using word = std::uint32_t;
  const std::size_t q = queries.size();
  const scratch<K> sorted_queries(ctx, q);
  const scratch<word> sorted_indices(ctx, q);
  {
    const scratch<word> indices(ctx, q);
    const auto iota = iota_kernel<word>;
    iota<<<streaming_grid(ctx, iota, q), 256, 0, ctx.stream()>>>(indices.get(), q);
    SLUICE_CHECK_LAUNCH();
    radix_sort::sort_arrays(ctx, queries.data(), static_cast<const word*>(indices.get()), sorted_queries.get(),
                            sorted_indices.get(), q, {.begin_bit = key_bits<K> - bits, .end_bit = key_bits<K>});
  }
  const scratch<word> counts(ctx, q);
  {
    const auto kernel = bucket_search_kernel<K, Less>;
    constexpr int threads = tuning::sort_queries_block_threads;
    constexpr std::size_t tile = std::size_t{threads} * tuning::sort_queries_items_per_thread;
    const auto grid = one_wave_grid(ctx, kernel, threads, ceil_div(q, tile));
    kernel<<<static_cast<unsigned>(grid), threads, 0, ctx.stream()>>>(keys, n, starts, bits, sorted_queries.get(), q,
                                                                       counts.get(), kind, less);
    SLUICE_CHECK_LAUNCH();
  }
  // Step 4: the indices' bits above the window sorted (none when one window holds every query).
  const bit_range above = restore_bits(q, tuning::restore_window_log2);
  const std::size_t resorted = above.begin < above.end ? q : 0;
  const scratch<word> window_indices(ctx, resorted), window_counts(ctx, resorted);
  if (resorted != 0)
    radix_sort::sort_arrays(ctx, static_cast<const word*>(sorted_indices.get()), static_cast<const word*>(counts.get()),
                            window_indices.get(), window_counts.get(), q, {.begin_bit = above.begin, .end_bit = above.end});
  const auto kernel = restore_window_kernel<tuning::restore_window_log2, Out>;
  constexpr int threads = tuning::sort_queries_block_threads;
  const auto grid = one_wave_grid(ctx, kernel, threads, ceil_div(q, std::size_t{1} << tuning::restore_window_log2));
  kernel<<<static_cast<unsigned>(grid), threads, 0, ctx.stream()>>>(resorted ? window_indices.get() : sorted_indices.get(),
                                                                     resorted ? window_counts.get() : counts.get(), q, out,
                                                                     kind);
  SLUICE_CHECK_LAUNCH();
}

/// What sort_queries takes: integral keys under std::less (the radix order is the search's), n < 2^32.
template <class K, class Less>
void check_sort_queries(const char* function, std::size_t n) {
  if (!sorts_by_radix_word<K, Less>)
    throw invalid_argument(function, "options.algorithm",
                           "sort_queries needs integral keys under std::less (their radix order is the search's)");
  if (n > std::numeric_limits<std::uint32_t>::max())
    throw invalid_argument(function, "sorted_keys", "sort_queries takes at most 2^32 − 1 keys (32-bit counts)");
}

/// search_algorithm::sort_queries (sort_queries.hpp), checked by check_sort_queries, n ≥ 1: step 2's table
/// once, then the queries in chunks of at most 2^31.
template <class K, class Less, class Out>
void search_by_sorting_queries(context& ctx, cuda::std::span<const K> keys, cuda::std::span<const K> queries, Out* out,
                               bound_kind kind, Less less) {
  if constexpr (sorts_by_radix_word<K, Less>) {
    const int bits = bucket_bits_of<K>(tuning::sort_queries_bucket_bits);
    const index_t buckets = index_t{1} << bits;
    const scratch<std::uint32_t> starts(ctx, buckets + 1);
    const auto table = bucket_start_kernel<K>;
    table<<<streaming_grid(ctx, table, buckets + 1), 256, 0, ctx.stream()>>>(keys.data(), keys.size(), bits,
                                                                              starts.get(), buckets);
    SLUICE_CHECK_LAUNCH();
    for (std::size_t first = 0; first < queries.size(); first += tuning::sort_queries_max_chunk) {
      const std::size_t size = std::min(tuning::sort_queries_max_chunk, queries.size() - first);
      search_chunk_by_sorting(ctx, keys.data(), keys.size(), starts.get(), bits, queries.subspan(first, size), out + first,
                              kind, less);
    }
  }
}

/// A free function's search: on the array, by sorting the queries, or on a temporary layout built from it
/// (pool memory of m·B keys, returned stream-ordered when the search is enqueued).
template <class K, class Less, class Out>
void search_array(context& ctx, const char* function, cuda::std::span<const K> keys, cuda::std::span<const K> queries,
                  Out* out, bound_kind kind, const search_options& options, Less less) {
  const search_algorithm algo = chosen_algo<K, Less>(ctx, options, keys.size(), queries.size());
  if (algo == search_algorithm::sort_queries) check_sort_queries<K, Less>(function, keys.size());
  if (algo == search_algorithm::binary_search || algo == search_algorithm::merge_path || keys.empty() || queries.empty())
    return search_sorted(ctx, keys.data(), keys.size(), queries, out, kind, algo == search_algorithm::merge_path, less);
  if (algo == search_algorithm::sort_queries) return search_by_sorting_queries(ctx, keys, queries, out, kind, less);
  const int b = algo == search_algorithm::btree ? btree_keys_per_node<K>(0, function) : 1;
  const tree_shape shape = make_tree_shape(keys.size(), static_cast<index_t>(b));
  const scratch<K> layout(ctx, shape.slots());
  gather_layout(ctx, keys.data(), layout.get(), shape);
  search_tree(ctx, layout.get(), shape, tree_cache_bytes(ctx, {}, function), queries, out, kind, less);
}

template <pbs_algorithm Algo, class K, class Less, class Out>
void launch_pbs(context& ctx, cuda::std::span<const K> keys, pbs_index padded, cuda::std::span<const K> queries,
                Out* out, Less less) {
  const auto kernel = pbs_kernel<Algo, K, Less, Out>;
  const std::size_t shared_bytes = static_cast<std::size_t>(padded) * sizeof(K);
  SLUICE_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared_bytes)));
  constexpr int threads = tuning::pbs_block_threads;
  const auto grid = one_wave_grid(ctx, kernel, threads, ceil_div(queries.size(), std::size_t{threads}), shared_bytes);
  kernel<<<static_cast<unsigned>(grid), threads, shared_bytes, ctx.stream()>>>(keys.data(), keys.size(), padded,
                                                                                queries.data(), queries.size(), out, less);
  SLUICE_CUDA_CHECK(cudaGetLastError());
}

/// Predecessor by PBS / PBS-CF / PBS-CL with the keys padded into shared memory (pbs.hpp).
template <class K, class Less, class Out>
void pbs_predecessor(context& ctx, const char* function, cuda::std::span<const K> keys, cuda::std::span<const K> queries,
                     Out* out, const pbs_options& options, Less less) {
  constexpr pbs_index w = 32;
  const pbs_index padded = pbs_padded_size(static_cast<pbs_index>(keys.size()), w);
  const std::size_t most = ctx.properties().shared_memory_per_block_optin;
  if (static_cast<std::size_t>(padded) * sizeof(K) > most)
    throw invalid_argument(function, "sorted_keys",
                           std::to_string(keys.size()) + " keys padded to " + std::to_string(padded) + " (" +
                               std::to_string(static_cast<std::size_t>(padded) * sizeof(K)) +
                               " bytes) exceed the device's shared memory per block (" + std::to_string(most) + " bytes)");
  if (queries.empty()) return;
  if (keys.empty()) return search_sorted(ctx, keys.data(), 0, queries, out, bound_kind::predecessor, false, less);
  switch (options.algorithm) {
    case pbs_algorithm::pbs: return launch_pbs<pbs_algorithm::pbs>(ctx, keys, padded, queries, out, less);
    case pbs_algorithm::pbs_cf: return launch_pbs<pbs_algorithm::pbs_cf>(ctx, keys, padded, queries, out, less);
    case pbs_algorithm::automatic:
    case pbs_algorithm::pbs_cl: return launch_pbs<pbs_algorithm::pbs_cl>(ctx, keys, padded, queries, out, less);
  }
  throw invalid_argument(function, "options.algorithm", "is not a pbs_algorithm");
}

}  // namespace sluice::detail::search
