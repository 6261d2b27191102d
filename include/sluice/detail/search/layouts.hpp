// sluice/detail/search/layouts.hpp: the index arithmetic of the search layouts (Karsin §6.1), pure host +
// device functions so that the host tests prove on every n what the kernels compute.
//
// One shape serves eytzinger and btree: a COMPLETE (B+1)-ary tree of m = ⌈n/B⌉ nodes stored in level
// order (breadth first, left to right), node j's children at j·(B+1) + 1 + c for c = 0..B. B = 1 is the
// eytzinger layout (children 2j+1, 2j+2); B > 1 is the B-tree with B keys and B+1 children a node.
// Levels 0..H−1 are full and level H holds the L leftmost nodes, so the top levels are a PREFIX of the
// array (what a block caches in shared memory) and a descent ends within one level of the others.
//
// Padding, without a sentinel: the m·B slots are ranked in the tree's in-order (slot_rank), and the slot of
// in-order rank r holds sorted[min(r, n − 1)]. The m·B − n padding slots are copies of the largest key, so
// the in-order sequence is the sorted keys followed by copies of their maximum, still sorted. A search for
// a monotone predicate (true on a prefix: key < q, or !(q < key)) counts the slots where it holds in that
// padded sequence; the count over the real keys is min(count, n), because the copies agree with keys[n−1].
// Keys equal to the type's maximum therefore need no special case.
//
// Ranks (slot_rank): in the perfect tree of depth H, the slot s of the node with index i in level d has
// in-order rank i·k^(H−d+1) + (s+1)·k^(H−d) − 1 (k = B+1: every subtree of depth levels ℓ holds k^ℓ − 1
// slots). The missing nodes of level H (index ≥ L) come after the present ones there; subtracting the
// missing last-level slots that precede a rank gives the rank among the m·B present slots.
#pragma once

#include <sluice/core/config.hpp>

#include <cuda/std/cstdint>

namespace sluice::detail::search {

using index_t = cuda::std::uint64_t;

SLUICE_HOST_DEVICE constexpr index_t min_index(index_t a, index_t b) { return a < b ? a : b; }

/// base^exponent (no overflow for the trees the library builds: k^(H+1) ≤ k²·m·B).
SLUICE_HOST_DEVICE constexpr index_t power(index_t base, index_t exponent) {
  index_t result = 1;
  for (index_t e = 0; e < exponent; ++e) result *= base;
  return result;
}

/// The complete (B+1)-ary tree holding n keys, B a node.
struct tree_shape {
  index_t keys = 0;              ///< n, the real keys
  index_t keys_per_node = 1;     ///< B
  index_t nodes = 0;             ///< m = ⌈n/B⌉
  index_t last_depth = 0;        ///< H, the depth of the deepest (possibly partial) level
  index_t last_level_nodes = 0;  ///< L, the nodes present on level H

  [[nodiscard]] SLUICE_HOST_DEVICE constexpr index_t fan_out() const { return keys_per_node + 1; }
  [[nodiscard]] SLUICE_HOST_DEVICE constexpr index_t slots() const { return nodes * keys_per_node; }
};

SLUICE_HOST_DEVICE constexpr tree_shape make_tree_shape(index_t n, index_t keys_per_node) {
  tree_shape t;
  t.keys = n;
  t.keys_per_node = keys_per_node;
  t.nodes = (n + keys_per_node - 1) / keys_per_node;
  index_t above = 0;  // nodes on the levels above depth H
  index_t width = 1;  // nodes a full level at depth H holds
  while (above + width < t.nodes) {
    above += width;
    width *= t.fan_out();
    ++t.last_depth;
  }
  t.last_level_nodes = t.nodes - above;
  return t;
}

SLUICE_HOST_DEVICE constexpr index_t child(const tree_shape& t, index_t node, index_t c) {
  return node * t.fan_out() + 1 + c;
}

/// Slots of the last level (present or not) among the perfect tree's first r in-order slots: the last
/// level's slot s of node i has perfect rank i·k + s, so every k-th rank belongs to an upper level.
SLUICE_HOST_DEVICE constexpr index_t last_level_slots_before(const tree_shape& t, index_t r) {
  return r / t.fan_out() * t.keys_per_node + r % t.fan_out();
}

/// The in-order rank among the m·B slots of slot s of the node with index `index_in_level` on level depth.
SLUICE_HOST_DEVICE constexpr index_t slot_rank(const tree_shape& t, index_t depth, index_t index_in_level, index_t s) {
  const index_t k = t.fan_out();
  const index_t below = power(k, t.last_depth - depth);
  const index_t perfect = index_in_level * below * k + (s + 1) * below - 1;
  const index_t present_end = t.last_level_nodes * k;  // the present last-level slots come first there
  const index_t missing =
      last_level_slots_before(t, perfect) - last_level_slots_before(t, min_index(perfect, present_end));
  return perfect - missing;
}

/// The depth of a node and its index within that level.
struct node_position {
  index_t depth = 0;
  index_t index_in_level = 0;
};
SLUICE_HOST_DEVICE constexpr node_position position_of(const tree_shape& t, index_t node) {
  index_t first = 0, width = 1, depth = 0;
  while (node >= first + width) {
    first += width;
    width *= t.fan_out();
    ++depth;
  }
  return {depth, node - first};
}

/// The in-order rank of layout slot p (node p / B, key p % B): what the build gathers from.
SLUICE_HOST_DEVICE constexpr index_t layout_slot_rank(const tree_shape& t, index_t p) {
  const node_position at = position_of(t, p / t.keys_per_node);
  return slot_rank(t, at.depth, at.index_in_level, p % t.keys_per_node);
}

/// The sorted index whose key layout slot p holds: its rank, or n − 1 for a padding slot.
SLUICE_HOST_DEVICE constexpr index_t layout_source(const tree_shape& t, index_t p) {
  return min_index(layout_slot_rank(t, p), t.keys - 1);
}

/// One query's root-to-leaf walk, small enough to keep several a thread in registers. At each node the
/// caller counts c, the node's keys for which the predicate holds (a prefix of them), and step(c) moves
/// to child c; the first slot where the predicate fails on the deepest such node is the answer, since
/// everything in-order before it satisfies it.
struct tree_cursor {
  index_t node = 0;
  index_t answer_node = 0;
  index_t answer_slot = ~index_t{0};  ///< none yet

  [[nodiscard]] SLUICE_HOST_DEVICE constexpr bool active(const tree_shape& t) const { return node < t.nodes; }

  SLUICE_HOST_DEVICE constexpr void step(const tree_shape& t, index_t c) {
    if (c < t.keys_per_node) {
      answer_node = node;
      answer_slot = c;
    }
    node = child(t, node, c);
  }

  /// The number of real keys for which the predicate holds (after the walk ended).
  [[nodiscard]] SLUICE_HOST_DEVICE constexpr index_t count(const tree_shape& t) const {
    if (answer_slot == ~index_t{0}) return t.keys;
    const node_position at = position_of(t, answer_node);
    return min_index(slot_rank(t, at.depth, at.index_in_level, answer_slot), t.keys);
  }
};

/// The whole walk with `count_in(node)` counting the predicate's keys in a node (the host tests' and the
/// device view's form; the kernels interleave several cursors instead).
template <class CountInNode>
SLUICE_HOST_DEVICE constexpr index_t tree_count(const tree_shape& t, CountInNode count_in) {
  tree_cursor cursor;
  while (cursor.active(t)) cursor.step(t, count_in(cursor.node));
  return cursor.count(t);
}

/// Binary search on the plain sorted array: the number of leading keys for which `holds(i)` is true.
template <class Holds>
SLUICE_HOST_DEVICE constexpr index_t sorted_count(index_t n, Holds holds) {
  index_t first = 0, length = n;
  while (length > 0) {
    const index_t half = length / 2;
    if (holds(first + half)) {
      first += half + 1;
      length -= half + 1;
    } else {
      length = half;
    }
  }
  return first;
}

}  // namespace sluice::detail::search
