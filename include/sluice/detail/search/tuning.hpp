// sluice/detail/search/tuning.hpp: the batched searches' launch shapes and the B-tree node size, by
// architecture. Tuning is data: detail/search/dispatch.cuh reads these. The btree node is set from the
// first H100 run (search@7ca44c0, docs/perf-notes.md "Batched search"); the rest are not swept yet.
#pragma once

#include <sluice/core/config.hpp>

#include <cstddef>

namespace sluice::detail::search {

/// sm_90 (H100).
struct sm90_tuning {
  /// Tree searches: threads a block, and blocks an SM the shared-memory cache is divided for (Karsin's
  /// M_TB = M·b/P with 2 blocks of 512 threads: half the SM's shared memory each, a 50 % occupancy).
  static constexpr int tree_block_threads = 512;
  static constexpr int tree_blocks_per_sm = 2;
  /// Node words a thread keeps in flight: the walks of several queries interleave so that their
  /// independent loads overlap (Karsin's ILP factor). Queries a thread = this / node words, clamped to
  /// [1, max_queries_per_thread]: eytzinger u32 4, B = 8 u32 2, B = 16 or 32 u32 1 (more spills
  /// registers at 2 blocks of 512 threads an SM).
  static constexpr int node_words_in_flight = 16;
  static constexpr int max_queries_per_thread = 4;
  /// B-tree node bytes when options.btree_keys_per_node is 0: two 32-byte sectors (16 u32, 8 u64 keys).
  /// Measured on the H100 (7ca44c0, 2^26 random u32 queries into 2^26 keys): B = 8 6.39 ms, B = 16
  /// 5.90 ms, B = 32 9.75 ms. HBM3 moves 64-byte bursts, so a lone sector costs nearly a two-sector node,
  /// and B = 16 has 7 levels to B = 8's 9 (docs/perf-notes.md).
  static constexpr std::size_t btree_node_bytes = 64;
  /// Shared memory a block keeps for its own use beside the cache (the runtime reserves 1 KiB).
  static constexpr std::size_t shared_reserve_bytes = 1024;
  /// Sorted layout: binary search, one query a thread, one wave of 256-thread blocks.
  static constexpr int sorted_block_threads = 256;
  /// search_algorithm::automatic builds a temporary btree for unsorted queries when Q ≥ n / this and n ≥
  /// temporary_tree_min_keys: the build reads and writes the n keys once (a few sequential passes' worth),
  /// while each tree query saves most of a binary search's missed levels (docs/perf-notes.md). Not
  /// measured yet: the bench's automatic and binary_search rows at Q = 2^26 should set it.
  static constexpr std::size_t temporary_tree_keys_per_query = 4;
  static constexpr std::size_t temporary_tree_min_keys = 4096;
  /// search_algorithm::sort_queries (detail/search/sort_queries.hpp). automatic takes it for integral keys
  /// under std::less when Q ≥ n / sort_queries_keys_per_query, Q ≥ sort_queries_min_queries (about ten
  /// launches and a 2^16-entry table of fixed cost) and the keys exceed an eighth of the L2 (below).
  /// Predicted at 2^26 u32 (docs/perf-notes.md) ~2.9 ms against the temporary btree's ~6.5.
  static constexpr std::size_t sort_queries_keys_per_query = 8;
  static constexpr std::size_t sort_queries_min_queries = std::size_t{1} << 20;
  /// ... and the keys exceed an eighth of the L2. 2026-11-29, 8d40cac, H200 (L2 60 MB), Q = 2^26 u32:
  /// N = 2^22 (16 MiB) sort_queries 3.05 ms against the temporary btree's 3.49; 2^20: 2.95 / 3.05; 2^18:
  /// 2.84 / 2.63.
  static constexpr std::size_t sort_queries_l2_fraction = 8;
  /// Buckets of the queries' first sort: their top 16 radix bits, two 8-bit onesweep passes; 2^26
  /// uniform u32 keys leave ~1024 keys (4 KiB) a bucket, searched from the L1 / L2.
  static constexpr int sort_queries_bucket_bits = 16;
  /// The order is restored by windows of 2^10 answers (4 KiB of u32 counts in shared memory a block):
  /// the second sort need not order the indices' low 10 bits, two passes for Q ≤ 2^26.
  static constexpr int restore_window_log2 = 10;
  static constexpr int sort_queries_block_threads = 256;
  /// The bucket search's tiles: 8 sorted queries a thread (2048 a block), whose buckets' keys a block
  /// stages in 48 KiB of shared memory when they fit (2^26 uniform u32 keys and queries: a tile spans
  /// ~2 buckets, ~3K keys); a tile whose buckets hold more searches from the L1 / L2 as before.
  static constexpr int sort_queries_items_per_thread = 8;
  static constexpr std::size_t sort_queries_staged_bytes = 48 * 1024;
  /// ... and when they are at most this many a query: staging reads every key of the span, probing ~10
  /// (8d40cac, N = 2^28, Q = 2^26, ~5 keys a query: 4.48 ms staged against 3.80 probing at 81af514; at
  /// abdac1b with 4 here, 4.32). 2 here did not change it (H200, 2026-11-30: 4.29 ms at 63479a7 against
  /// 4.27 at 0aa97eb, one run): the staging is not what 2^28 lost since 81af514.
  static constexpr std::size_t sort_queries_staged_keys_per_query = 4;
  /// Queries a chunk: the original indices and the counts are 32-bit words (larger batches run in chunks).
  static constexpr std::size_t sort_queries_max_chunk = std::size_t{1} << 31;
  /// Merge-path sorted search: a block stages a tile of about merge_tile_bytes of keys and queries in
  /// shared memory, merge_items_per_thread<K> merged items a thread: odd, so that the threads' walks
  /// start in different banks (ModernGPU's choice): 31 for u32, 15 for u64, 7 for 16-byte keys.
  static constexpr int merge_block_threads = 256;
  static constexpr std::size_t merge_tile_bytes = 32768;
  template <class K>
  static constexpr int merge_items_per_thread() {
    const auto fit = static_cast<int>(merge_tile_bytes / (merge_block_threads * sizeof(K)));
    return fit < 2 ? 1 : fit % 2 == 0 ? fit - 1 : fit;
  }
  /// PBS: threads a block (each block keeps its own copy of the keys in shared memory).
  static constexpr int pbs_block_threads = 512;
};

/// A table per architecture; those not measured take sm_90's.
template <int Arch>
struct tuning_for : sm90_tuning {};

using tuning = tuning_for<SLUICE_TUNING_ARCH>;

}  // namespace sluice::detail::search
