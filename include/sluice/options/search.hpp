// sluice/options/search.hpp: the public option types of search.cuh (Karsin ch. 6), beside it so that its
// dispatch (detail/search/dispatch.cuh) can name them without the entry points.
#pragma once

#include <cstddef>
#include <string_view>

namespace sluice {

/// How a search_index lays out its keys (Karsin §6.1).
enum class search_layout {
  sorted,     ///< the plain sorted array, binary search (SORTED)
  eytzinger,  ///< level-order binary search tree, children of i at 2i+1 and 2i+2 (the thesis' BST)
  btree,      ///< level-order B-tree, B keys and B+1 children a node, a node a whole number of sectors
};

/// The shared-memory predecessor search of pbs_predecessor (Karsin §6.2).
enum class pbs_algorithm {
  automatic,  ///< pbs_cl: work-optimal and conflict-limited, the seed's best on small and large N
  pbs,        ///< Algorithm 1 in every thread (Parallel Binary Search): w-way conflicts in the worst case
  pbs_cf,     ///< conflict-free: lane-offset stage 1, then a linear scan of w − 1 keys
  pbs_cl,     ///< conflict-limited: lane-offset stage 1, then a binary search with one δ for all lanes
};

/// How the free functions (lower_bound, upper_bound, predecessor on a plain sorted array) search.
enum class search_algorithm {
  automatic,      ///< merge_path for sorted queries; sort_queries for integral keys under std::less
                  ///< beyond an eighth of the L2 with Q ≥ n/8 and Q ≥ 2^20; btree when there are enough
                  ///< queries to pay for building it (detail/search/tuning.hpp); else binary_search
  binary_search,  ///< one binary search a query on the array as given (Karsin's SORTED)
  merge_path,     ///< sorted queries only: a merge-path walk of keys and queries, O(n + Q)
  eytzinger,      ///< build a temporary eytzinger layout (m·B keys from the pool), search it, free it
  btree,          ///< build a temporary btree layout (the device's B), search it, free it
  sort_queries,   ///< integral keys under std::less only: sort (query, index) by the queries' top 16
                  ///< bits, search each within its bucket's keys, restore the order (docs/search.md)
};

/// The enumerator's name ("merge_path"), for reports and errors; "?" for a value outside the enumeration.
[[nodiscard]] constexpr std::string_view to_string(search_algorithm algorithm) {
  switch (algorithm) {
    case search_algorithm::automatic: return "automatic";
    case search_algorithm::binary_search: return "binary_search";
    case search_algorithm::merge_path: return "merge_path";
    case search_algorithm::eytzinger: return "eytzinger";
    case search_algorithm::btree: return "btree";
    case search_algorithm::sort_queries: return "sort_queries";
  }
  return "?";
}

/// Options of the batched searches (free functions and search_index members).
struct search_options {
  /// The queries are sorted by the same Less: automatic then runs a merge-path search (O(n + Q)
  /// sequential reads), and so does a search_index of the sorted layout. Unsorted queries under this
  /// flag give unspecified results, but every read and write stays in bounds. Tree layouts ignore it.
  bool queries_sorted = false;
  /// The free functions' strategy; search_index members search their own layout and ignore it.
  search_algorithm algorithm = search_algorithm::automatic;
};

/// Options of building a search_index.
struct search_index_options {
  /// B of the btree layout; 0: the device's tuning (a node of one or more 32-byte sectors). Otherwise
  /// B·sizeof(K) must be 32, 64 or 128 bytes, rounded down to whole keys (invalid_argument).
  int btree_keys_per_node = 0;
  /// Cache the top levels of eytzinger and btree trees in shared memory per block (Karsin's M_TB).
  bool cache_top_levels = true;
  /// Bytes of that cache a block; 0: the device's tuning (a share of its shared memory per SM).
  std::size_t cache_bytes = 0;
};

/// Options of pbs_predecessor.
struct pbs_options {
  pbs_algorithm algorithm = pbs_algorithm::automatic;
};

}  // namespace sluice
