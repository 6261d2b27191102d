// sluice/options/search.hpp: the public option types of search.cuh (Karsin ch. 6), beside it so that its
// dispatch (detail/search/dispatch.cuh) can name them without the entry points.
#pragma once

#include <cstddef>

namespace sluice {

/// How a search_index lays out its keys (Karsin §6.1).
enum class search_layout {
  sorted,     ///< the plain sorted array, binary search (SORTED)
  eytzinger,  ///< level-order binary search tree, children of i at 2i+1 and 2i+2 (the thesis' BST)
  btree,      ///< level-order B-tree, B keys and B+1 children a node, a node a whole number of sectors
};

/// The shared-memory predecessor search of pbs_predecessor (Karsin §6.2).
enum class pbs_algo {
  automatic,  ///< pbs_cl: work-optimal and conflict-limited, the seed's best on small and large N
  pbs,        ///< Algorithm 1 in every thread (Parallel Binary Search): w-way conflicts in the worst case
  pbs_cf,     ///< conflict-free: lane-offset stage 1, then a linear scan of w − 1 keys
  pbs_cl,     ///< conflict-limited: lane-offset stage 1, then a binary search with one δ for all lanes
};

/// Options of the batched searches (free functions and search_index members).
struct search_options {
  /// The queries are sorted by the same Less: the sorted layout then runs a merge-path sorted search
  /// (O(n + Q) sequential reads) instead of a binary search per query. Unsorted queries under this
  /// flag give unspecified results, but every read and write stays in bounds. Tree layouts ignore it.
  bool queries_sorted = false;
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
  pbs_algo algorithm = pbs_algo::automatic;
};

}  // namespace sluice
