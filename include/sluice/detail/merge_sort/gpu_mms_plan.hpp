// sluice/detail/merge_sort/gpu_mms_plan.hpp: the index arithmetic of GPU-MMS (Karsin §7.3), host and
// device: the w×w base-case tile layout, the stable item order (key, input index) with its padding, the
// MinBlockHeap's node numbering and path choice, the rounds of K-way merges, and the multiway partition
// of a round into independent merge tasks. Pure functions, so that the host model
// (tests/host/gpu_mms_model_test.cpp) proves on the CPU exactly what the kernels (gpu_mms.cuh) run.
#pragma once

#include <sluice/core/comparators.hpp>
#include <sluice/core/config.hpp>

#include <cuda/std/array>
#include <cuda/std/bit>
#include <cuda/std/cstddef>
#include <cuda/std/cstdint>
#include <cuda/std/limits>

#include <functional>
#include <type_traits>

namespace sluice::detail::merge_sort::gpu_mms {

using size_type = cuda::std::size_t;

/// w, the warp width: a heap node and a tile row hold w items.
inline constexpr int w = 32;
inline constexpr int log_w = 5;
/// The base case sorts w² items per warp (§7.3.1 "increased base case").
inline constexpr int tile_items = w * w;

// ---- the base-case tile ------------------------------------------------------------------------------

/// Shared-memory slot of tile element (row, column): row·w + (row + column) mod w. Rotating each row by
/// its index puts the w elements of a row and the w elements of a column in w different banks (for
/// 4-byte items; for s-word items a column covers the same bank words as a row), so the shearsort's row
/// and column passes are both conflict-free (§7.3.1: "by carefully defining indices").
SLUICE_HOST_DEVICE constexpr int tile_slot(int row, int column) { return row * w + ((row + column) & (w - 1)); }

/// Shearsort rounds before the final row pass (Afshani & Sitchinava's variant, §7.3.1): each (rows in
/// snake order, columns ascending) round at least halves the rows that are not all-equal in the 0-1
/// principle, so log w rounds leave one, which the final all-ascending row pass sorts.
inline constexpr int shearsort_rounds = log_w;

/// Bit r set: row r of a snake-order row pass sorts descending (the odd rows).
inline constexpr unsigned snake_descending_rows = 0xAAAAAAAAu;

// ---- the item order: stability by input index, padding --------------------------------------------

/// True when two keys that `Less` cannot order are bitwise identical, so the order among them is
/// unobservable and the sort needs no input-index tags: integral keys under std::less / std::greater.
template <class K, class Less>
inline constexpr bool stability_unobservable =
    std::is_integral_v<K> && (is_std_less<Less, K> || is_std_greater<Less, K>);

/// Items are the keys themselves; padding is the last key in the order (the numeric max under less,
/// the lowest under greater), indistinguishable from a real key of that value.
template <class K, class Less>
struct untagged_order {
  static_assert(stability_unobservable<K, Less>);
  using key_type = K;
  using item = K;
  static constexpr bool descending = std::is_same_v<Less, std::greater<>> || std::is_same_v<Less, std::greater<K>>;

  Less less;

  SLUICE_HOST_DEVICE static item make(const K& key, size_type) { return key; }
  SLUICE_HOST_DEVICE static item pad() {
    return descending ? cuda::std::numeric_limits<K>::lowest() : cuda::std::numeric_limits<K>::max();
  }
  SLUICE_HOST_DEVICE static const K& key(const item& x) { return x; }
  SLUICE_HOST_DEVICE bool before(const item& a, const item& b) const { return less(a, b); }
};

/// Items are (key, input index): ordering them lexicographically makes any sort of them stable, and the
/// index gathers the values at the end. Padding is the tag ~0 (never an index: the dispatch picks Tag
/// wide enough), after every real item whatever the comparator says; the comparator never sees it.
template <class K, class Tag, class Less>
struct tagged_order {
  using key_type = K;
  struct item {
    K key;
    Tag tag;
  };
  static constexpr Tag pad_tag = cuda::std::numeric_limits<Tag>::max();

  Less less;

  SLUICE_HOST_DEVICE static item make(const K& key, size_type index) { return {key, static_cast<Tag>(index)}; }
  SLUICE_HOST_DEVICE static item pad() {
    // Built from zero bytes: K need not be default-constructible.
    item x = cuda::std::bit_cast<item>(cuda::std::array<unsigned char, sizeof(item)>{});
    x.tag = pad_tag;
    return x;
  }
  SLUICE_HOST_DEVICE static const K& key(const item& x) { return x.key; }
  SLUICE_HOST_DEVICE static bool is_pad(const item& x) { return x.tag == pad_tag; }
  SLUICE_HOST_DEVICE bool before(const item& a, const item& b) const {
    if (is_pad(a)) return false;
    if (is_pad(b)) return true;
    if (less(a.key, b.key)) return true;
    if (less(b.key, a.key)) return false;
    return a.tag < b.tag;
  }
};

// ---- the MinBlockHeap ------------------------------------------------------------------------------------

/// Nodes 1 … 2K − 1 of K leaves, root 1, children 2v and 2v + 1; leaf K + j reads list j. Node v's w
/// items sit at shared slots (v − 1)·w + lane (contiguous: conflict-free).
SLUICE_HOST_DEVICE constexpr int heap_nodes(int ways) { return 2 * ways - 1; }
SLUICE_HOST_DEVICE constexpr int node_slot(int node, int lane) { return (node - 1) * w + lane; }

/// Levels below node v down to the leaves (log K at the root).
SLUICE_HOST_DEVICE constexpr int levels_below(int node, int log_ways) {
  return log_ways - (cuda::std::bit_width(static_cast<unsigned>(node)) - 1);
}

/// The child of v whose items move up when v is refilled (fillEmptyNode, §7.3.1): the one with the
/// smaller last item, the left one on a tie. The other child keeps the larger half, so its last item
/// (its maximum) is unchanged and the heap property v[w − 1] ≤ u[0] (≤, not <: duplicates) holds.
template <class Item, class Before>
SLUICE_HOST_DEVICE int child_to_empty(int node, const Item& left_last, const Item& right_last, Before before) {
  return before(right_last, left_last) ? 2 * node + 1 : 2 * node;
}

// ---- rounds ----------------------------------------------------------------------------------------------

/// K-way merge rounds after the base case: ⌈log_K ⌈n / w²⌉⌉.
SLUICE_HOST_DEVICE constexpr int merge_rounds(size_type n, int ways) {
  int rounds = 0;
  for (size_type runs = (n + tile_items - 1) / tile_items; runs > 1; runs = (runs + ways - 1) / ways) ++rounds;
  return rounds;
}

/// One merge round: groups of K consecutive sorted runs of `run` items (the last run, the last group
/// shorter: tails need no padding in memory), each group cut into tasks of about `task_items` outputs.
struct round_plan {
  size_type n = 0;
  int ways = 2;
  size_type run = 0;              ///< items per sorted input run
  size_type groups = 0;           ///< ⌈n / (K·run)⌉
  size_type tasks_per_group = 1;  ///< P, tasks of a full group
  size_type task_items = 0;       ///< ⌈K·run / P⌉

  [[nodiscard]] SLUICE_HOST_DEVICE constexpr size_type group_items() const { return run * static_cast<size_type>(ways); }
  [[nodiscard]] SLUICE_HOST_DEVICE constexpr size_type group_begin(size_type g) const { return g * group_items(); }
  [[nodiscard]] SLUICE_HOST_DEVICE constexpr size_type group_size(size_type g) const {
    const size_type begin = group_begin(g);
    return n - begin < group_items() ? n - begin : group_items();
  }
  /// List j of group g: [list_begin, list_begin + list_size) relative to the group's start.
  [[nodiscard]] SLUICE_HOST_DEVICE constexpr size_type list_begin(int j) const { return static_cast<size_type>(j) * run; }
  [[nodiscard]] SLUICE_HOST_DEVICE constexpr size_type list_size(size_type g, int j) const {
    const size_type size = group_size(g), begin = list_begin(j);
    if (begin >= size) return 0;
    return size - begin < run ? size - begin : run;
  }
  /// Tasks of group g (the last group may need fewer).
  [[nodiscard]] SLUICE_HOST_DEVICE constexpr size_type tasks_of(size_type g) const {
    return g + 1 < groups ? tasks_per_group : (group_size(g) + task_items - 1) / task_items;
  }
  [[nodiscard]] SLUICE_HOST_DEVICE constexpr size_type tasks() const {
    return (groups - 1) * tasks_per_group + tasks_of(groups - 1);
  }
  /// Output rank in its group where task boundary p (0 ≤ p ≤ tasks_of(g)) falls.
  [[nodiscard]] SLUICE_HOST_DEVICE constexpr size_type boundary_rank(size_type g, size_type p) const {
    const size_type rank = p * task_items, size = group_size(g);
    return rank < size ? rank : size;
  }
  /// Interior boundaries p = 1 … P − 1 of every group, K splits each, in the splits array.
  [[nodiscard]] SLUICE_HOST_DEVICE constexpr size_type split_count() const {
    return groups * (tasks_per_group - 1) * static_cast<size_type>(ways);
  }
  [[nodiscard]] SLUICE_HOST_DEVICE constexpr size_type split_index(size_type g, size_type p, int j) const {
    return (g * (tasks_per_group - 1) + (p - 1)) * static_cast<size_type>(ways) + static_cast<size_type>(j);
  }
};

/// The plan of merge round `round` (0-based): runs of w²·K^round items; P tasks per group so that the
/// round has about `target_tasks` tasks, none smaller than `min_task_items`.
SLUICE_HOST_DEVICE constexpr round_plan plan_round(size_type n, int ways, int round, size_type target_tasks,
                                                 size_type min_task_items) {
  round_plan plan;
  plan.n = n;
  plan.ways = ways;
  plan.run = tile_items;
  for (int r = 0; r < round; ++r) plan.run *= static_cast<size_type>(ways);
  plan.groups = (n + plan.group_items() - 1) / plan.group_items();
  const size_type wanted = (target_tasks + plan.groups - 1) / plan.groups;
  const size_type most = plan.group_items() / (min_task_items > 0 ? min_task_items : 1);
  plan.tasks_per_group = wanted < most ? wanted : most;
  if (plan.tasks_per_group < 1) plan.tasks_per_group = 1;
  plan.task_items = (plan.group_items() + plan.tasks_per_group - 1) / plan.tasks_per_group;
  return plan;
}

// ---- the multiway partition -----------------------------------------------------------------------------

/// Items of `list` (size `size`) that the stable merge puts before item x of list j, for list l ≠ j:
/// lists merge in their order, so an equal item of an earlier list (l < j) comes first and one of a
/// later list does not. One binary search, O(log size) comparisons.
template <class Item, class Before>
SLUICE_HOST_DEVICE size_type items_before(const Item* list, size_type size, const Item& x, bool earlier_list,
                                          Before before) {
  size_type low = 0, high = size;
  while (low < high) {
    const size_type mid = low + (high - low) / 2;
    const bool comes_first = earlier_list ? !before(x, list[mid]) : before(list[mid], x);
    if (comes_first) low = mid + 1;
    else high = mid;
  }
  return low;
}

/// The stable K-way merge order: by item, then by list (an earlier list's equal item first), then by
/// position. A strict total order on (item, list, position) whenever `before` is a strict weak order.
template <class Item, class Before>
SLUICE_HOST_DEVICE bool merged_before(const Item& a, int list_a, size_type index_a, const Item& b, int list_b,
                                      size_type index_b, Before before) {
  if (before(a, b)) return true;
  if (before(b, a)) return false;
  return list_a != list_b ? list_a < list_b : index_a < index_b;
}

// The multiway partition (§7.2.1: K&S cut the K lists of a round with a search across them): the splits
// s_0 … s_{K−1} of output rank r are the counts of each list's items among the first r outputs of the
// stable K-way merge. A rank-based search across the K lists finds them all at once, one lane per list:
// every list keeps the range [low, high) where its split must lie (initially the whole list); each step
// proposes the middle item of every non-empty range, takes the weighted median of the proposals
// (weights: the ranges' sizes) as the pivot x, counts for every list how many of its items precede x
// (a binary search inside the range only: the parts outside are already decided), and compares the sum
// with r. If x is among the first r outputs, every item before it is too (each low rises to its count);
// if not, nothing after it is (each high falls to its count). The lists whose proposal lies on the
// decided side of the median lose at least half their range, so every step removes at least a quarter
// of the undecided items: ⌈log_{4/3}(K·run)⌉ + 1 steps, each O(log run) reads per list.

/// One list's proposal: its range's middle item, where it sits, and the range's size (0: no proposal).
template <class Item>
struct split_proposal {
  Item item;
  int list;
  size_type index;
  size_type weight;
};

/// Proposals in merge order, the empty ones last (a bitonic sort across the warp orders them).
template <class Item, class Before>
SLUICE_HOST_DEVICE bool proposal_before(const split_proposal<Item>& a, const split_proposal<Item>& b, Before before) {
  if (a.weight == 0) return false;
  if (b.weight == 0) return true;
  return merged_before(a.item, a.list, a.index, b.item, b.list, b.index, before);
}

/// List `list`'s proposal over its undecided range [low, high) (items of the list at `items`).
template <class Item, class Order>
SLUICE_HOST_DEVICE split_proposal<Item> propose(const Item* items, int list, size_type low, size_type high) {
  const size_type middle = low + (high - low) / 2;
  return {high > low ? items[middle] : Order::pad(), list, middle, high - low};
}

/// How many items of list `list` (range [low, high) undecided) precede the pivot, clamped to the range:
/// enough to compare the pivot's merged rank with r, since the split lies in the range.
template <class Item, class Before>
SLUICE_HOST_DEVICE size_type count_before_pivot(const Item* items, int list, size_type low, size_type high,
                                                const split_proposal<Item>& pivot, Before before) {
  if (list == pivot.list) return pivot.index;
  return low + items_before(items + low, high - low, pivot.item, list < pivot.list, before);
}

/// Narrows a list's range after a step: `taken` says whether the pivot is among the first r outputs.
/// The pivot's own list drops the pivot too, so every step shrinks some range (termination for any
/// comparator); the results stay inside the old range whatever the comparator answered.
SLUICE_HOST_DEVICE inline void narrow_split_range(size_type& low, size_type& high, size_type count, bool pivot_list,
                                                  bool taken) {
  const size_type bound = count < low ? low : (count > high ? high : count);
  if (taken) low = pivot_list && bound < high ? bound + 1 : bound;
  else high = bound;
}

/// Steps after which a search stops even if the comparator kept it from converging (a strict weak order
/// needs at most ⌈log_{4/3} 2^40⌉ + 1 = 98): the splits are then clamped monotone (task_split).
inline constexpr int split_step_limit = 128;

/// Where task boundary p of group g cuts list j: 0 and the list's size at the ends, else the searched
/// split after the running maximum over p (splits_monotone), which keeps tasks disjoint and covering
/// every item even when a comparator that is not a strict weak order makes the searches disagree.
SLUICE_HOST_DEVICE constexpr size_type task_split(const round_plan& plan, const size_type* splits, size_type g,
                                                  size_type p, int j) {
  if (p == 0) return 0;
  if (p >= plan.tasks_of(g)) return plan.list_size(g, j);
  return splits[plan.split_index(g, p, j)];
}

}  // namespace sluice::detail::merge_sort::gpu_mms
