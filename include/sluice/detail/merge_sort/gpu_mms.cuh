// sluice/detail/merge_sort/gpu_mms.cuh: GPU-MMS, Karsin's multiway merge sort (thesis §7.3).
//
//   base case   every warp sorts a tile of w² = 1024 items in shared memory by shearsort (log w rounds of
//               snake-order row sorts and column sorts, then one row sort; each row or column is a warp
//               bitonic sort in registers), conflict-free through the rotated tile layout (tile_slot).
//   merge round groups of K sorted runs are merged by MinBlockHeaps (one per warp, 2K − 1 nodes of w
//               items in shared memory): pop the root (w items, coalesced), then refill it along the path
//               of emptied nodes down to a leaf, whose list supplies w new items; the log K node merges
//               of the path are loaded together and interleaved (bitonic merges in registers). When there
//               are fewer groups than resident warps, a group is cut into independent tasks by the
//               multiway partition (gpu_mms_plan.hpp, split_kernel).
//
// Items are keys, or (key, input index) where stability is observable (gpu_mms_plan.hpp): the index
// breaks ties, so the bitonic networks' instability never shows, and it gathers the values once at the
// end (out_values[i] = values[index of item i]) instead of dragging them through every round.
// Global traffic: (⌈log_K ⌈n/w²⌉⌉ + 1) reads and writes of n items; see docs/merge_sort-gpu_mms.md.
// Warps never synchronise with each other, so a block of several warps holds independent heaps.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/core/scratch.hpp>
#include <sluice/core/values.hpp>
#include <sluice/detail/merge_sort/gpu_mms_plan.hpp>
#include <sluice/detail/merge_sort/tuning.hpp>
#include <sluice/warp/bitonic.cuh>
#include <sluice/warp/shuffle.cuh>

#include <cuda/std/span>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

namespace sluice::detail::merge_sort::gpu_mms {

/// Writes items where the next round reads them.
template <class Item>
struct item_sink {
  Item* out;
  __device__ void store(size_type position, const Item& x) const { out[position] = x; }
};

/// Writes the last round's keys, and the values their tags name (tags of real items are < n; the clamp
/// keeps even a broken invariant in bounds).
template <class Order, class V>
struct final_sink {
  using key_type = typename Order::key_type;
  key_type* keys;
  V* values;
  const V* value_source;
  size_type n;
  __device__ void store(size_type position, const typename Order::item& x) const {
    keys[position] = Order::key(x);
    if constexpr (has_values<V>) {
      const size_type tag = static_cast<size_type>(x.tag);
      values[position] = value_source[tag < n ? tag : n - 1];
    }
  }
};

extern __shared__ __align__(16) unsigned char gpu_mms_shared[];

[[nodiscard]] __device__ __forceinline__ int warp_in_block() { return static_cast<int>(threadIdx.x) / w; }
[[nodiscard]] __device__ __forceinline__ size_type global_warp(int warps_per_block) {
  return static_cast<size_type>(blockIdx.x) * static_cast<size_type>(warps_per_block) +
         static_cast<size_type>(warp_in_block());
}

// ---- base case -------------------------------------------------------------------------------------------

/// Rows sorted per batch of a shearsort pass: independent sorts whose steps interleave.
inline constexpr int rows_in_flight = 4;

/// One shearsort pass over a tile: `columns` false sorts rows (row r descending where bit r of
/// `descending` is set), true sorts columns ascending. Lane i touches element i of the row or column.
template <class Order>
__device__ void shearsort_pass(typename Order::item* tile, bool columns, unsigned descending, const Order& order) {
  using item = typename Order::item;
  const int lane = warp::lane_id();
  auto slot = [&](int line, int k) { return columns ? tile_slot(lane, line + k) : tile_slot(line + k, lane); };
  auto before = [&](const item& a, const item& b) { return order.before(a, b); };
  for (int line = 0; line < w; line += rows_in_flight) {
    item x[rows_in_flight];
#pragma unroll
    for (int k = 0; k < rows_in_flight; ++k) x[k] = tile[slot(line, k)];
    warp::bitonic_sort(x, (descending >> line) & ((1u << rows_in_flight) - 1u), before);
#pragma unroll
    for (int k = 0; k < rows_in_flight; ++k) tile[slot(line, k)] = x[k];
  }
  __syncwarp();
}

/// Each warp sorts tile `global warp` of the keys (items past n are padding) and stores it row-major.
template <class Order, class Sink>
__global__ void base_case_kernel(const typename Order::key_type* keys, size_type n, size_type tiles,
                                 int warps_per_block, Order order, Sink sink) {
  using item = typename Order::item;
  const size_type tile_index = global_warp(warps_per_block);
  if (tile_index >= tiles) return;
  item* tile = reinterpret_cast<item*>(gpu_mms_shared) + static_cast<size_type>(warp_in_block()) * tile_items;
  const int lane = warp::lane_id();
  const size_type begin = tile_index * tile_items;
  for (int row = 0; row < w; ++row) {
    const size_type position = begin + static_cast<size_type>(row * w + lane);
    tile[tile_slot(row, lane)] = position < n ? order.make(keys[position], position) : order.pad();
  }
  __syncwarp();
  for (int round = 0; round < shearsort_rounds; ++round) {
    shearsort_pass(tile, false, snake_descending_rows, order);
    shearsort_pass(tile, true, 0u, order);
  }
  shearsort_pass(tile, false, 0u, order);
  for (int row = 0; row < w; ++row) {
    const size_type position = begin + static_cast<size_type>(row * w + lane);
    if (position < n) sink.store(position, tile[tile_slot(row, lane)]);
  }
}

// ---- the multiway partition ------------------------------------------------------------------------------

[[nodiscard]] __device__ __forceinline__ size_type warp_sum(size_type value) {
#pragma unroll
  for (int mask = w / 2; mask > 0; mask /= 2) value += warp::shuffle_xor(value, mask, warp::full_mask);
  return value;
}

[[nodiscard]] __device__ __forceinline__ size_type warp_inclusive_sum(size_type value) {
  const int lane = warp::lane_id();
#pragma unroll
  for (int delta = 1; delta < w; delta *= 2) {
    const size_type other = warp::shuffle_up(value, delta, warp::full_mask);
    if (lane >= delta) value += other;
  }
  return value;
}

/// One warp per (group, interior task boundary), lane j < K searching list j's split: the multiway
/// partition of gpu_mms_plan.hpp (weighted-median pivots, ranges narrowed until every one is empty).
template <class Order, int WarpsPerBlock>
__global__ void split_kernel(const typename Order::item* source, round_plan plan, size_type* splits, Order order) {
  using item = typename Order::item;
  const size_type boundary = global_warp(WarpsPerBlock);
  if (boundary >= plan.groups * (plan.tasks_per_group - 1)) return;
  const size_type p = boundary % (plan.tasks_per_group - 1) + 1;
  const size_type g = boundary / (plan.tasks_per_group - 1);
  const int lane = warp::lane_id();
  const bool owns_list = lane < plan.ways;
  const item* list = source + plan.group_begin(g) + (owns_list ? plan.list_begin(lane) : 0);
  size_type low = 0, high = owns_list ? plan.list_size(g, lane) : 0;
  const size_type rank = plan.boundary_rank(g, p);
  auto before = [&](const item& a, const item& b) { return order.before(a, b); };
  auto proposal_order = [&](const split_proposal<item>& a, const split_proposal<item>& b) {
    return proposal_before(a, b, before);
  };
  for (int step = 0; step < split_step_limit; ++step) {
    const size_type undecided = warp_sum(high - low);
    if (undecided == 0) break;
    split_proposal<item> proposals[1] = {propose<item, Order>(list, lane, low, high)};
    warp::bitonic_sort(proposals, 0u, proposal_order);
    // The weighted median: the first proposal (in merge order) whose running weight reaches half.
    const size_type running = warp_inclusive_sum(proposals[0].weight);
    const unsigned reached = __ballot_sync(warp::full_mask, 2 * running >= undecided);
    const split_proposal<item> pivot = warp::broadcast(proposals[0], __ffs(static_cast<int>(reached)) - 1, warp::full_mask);
    const size_type count = owns_list ? count_before_pivot(list, lane, low, high, pivot, before) : 0;
    const bool taken = warp_sum(count) < rank;
    if (owns_list) narrow_split_range(low, high, count, lane == pivot.list, taken);
  }
  if (owns_list) splits[plan.split_index(g, p, lane)] = low;
}

/// One warp per (group, list): the running maximum of the list's splits over the boundaries, so that
/// tasks stay disjoint and cover every item whatever the comparator (task_split).
template <int WarpsPerBlock>
__global__ void splits_monotone_kernel(round_plan plan, size_type* splits) {
  const size_type pair = global_warp(WarpsPerBlock);
  if (pair >= plan.groups * static_cast<size_type>(plan.ways)) return;
  const size_type g = pair / static_cast<size_type>(plan.ways);
  const int j = static_cast<int>(pair % static_cast<size_type>(plan.ways));
  const int lane = warp::lane_id();
  size_type carried = 0;
  for (size_type first = 1; first < plan.tasks_per_group; first += w) {
    const size_type p = first + static_cast<size_type>(lane);
    size_type value = p < plan.tasks_per_group ? splits[plan.split_index(g, p, j)] : 0;
    value = value > carried ? value : carried;
#pragma unroll
    for (int delta = 1; delta < w; delta *= 2) {
      const size_type other = warp::shuffle_up(value, delta, warp::full_mask);
      if (lane >= delta && other > value) value = other;
    }
    if (p < plan.tasks_per_group) splits[plan.split_index(g, p, j)] = value;
    carried = warp::broadcast(value, w - 1, warp::full_mask);
  }
}

// ---- the MinBlockHeap ------------------------------------------------------------------------------------

/// One warp's MinBlockHeap of K = 2^LogWays leaves over the lists of one merge task (§7.3.1).
template <class Order, int LogWays>
class min_block_heap {
 public:
  static constexpr int ways = 1 << LogWays;
  using item = typename Order::item;

  /// Lane j < K holds list j's cursor: [next, end) are the task's items of list j not yet in a leaf.
  __device__ min_block_heap(item* nodes, const item* group, size_type next, size_type end, const Order& order)
      : nodes_(nodes), group_(group), next_(next), end_(end), order_(order), lane_(warp::lane_id()) {}

  /// Loads every leaf, then fills the internal nodes bottom-up (fillEmptyNode on each, K − 1 in all).
  __device__ void build() {
    for (int j = 0; j < ways; ++j) nodes_[node_slot(ways + j, lane_)] = next_leaf_item(j);
    __syncwarp();
    for (int node = ways - 1; node >= 1; --node) refill(node);
  }

  [[nodiscard]] __device__ item root() const { return nodes_[node_slot(1, lane_)]; }

  /// fillEmptyNode(node) down to a leaf, pipelined (§7.3.1 "independent merging"): choose the path of
  /// emptied nodes first (it depends only on the children's last items), load every node pair on it,
  /// merge them all in registers with interleaved steps, then store. Each merge puts the w smallest of
  /// the pair into the parent and the w largest into the child that kept its maximum.
  __device__ void refill(int node) {
    const int levels = levels_below(node, LogWays);
    auto before = [&](const item& a, const item& b) { return order_.before(a, b); };
    int parent[LogWays] = {};
    int emptied[LogWays] = {};
    item halves[2 * LogWays];  // [d]: the smaller halves, [LogWays + d]: the larger
    int leaf = node;
#pragma unroll
    for (int d = 0; d < LogWays; ++d) {
      halves[d] = Order::pad();
      halves[LogWays + d] = Order::pad();
      if (d < levels) {
        parent[d] = leaf;
        emptied[d] = child_to_empty(leaf, nodes_[node_slot(2 * leaf, w - 1)], nodes_[node_slot(2 * leaf + 1, w - 1)],
                                    before);
        // Bitonic merge of the pair: the kept child ascending, the emptied one reversed.
        halves[d] = nodes_[node_slot(emptied[d] ^ 1, lane_)];
        halves[LogWays + d] = nodes_[node_slot(emptied[d], w - 1 - lane_)];
        leaf = emptied[d];
      }
    }
    const item fresh = next_leaf_item(leaf - ways);
    __syncwarp();  // every lane has read before any lane overwrites
#pragma unroll
    for (int d = 0; d < LogWays; ++d) {
      const item a = halves[d], b = halves[LogWays + d];
      const bool swap = before(b, a);
      halves[d] = swap ? b : a;
      halves[LogWays + d] = swap ? a : b;
    }
    warp::bitonic_merge(halves, before);
#pragma unroll
    for (int d = 0; d < LogWays; ++d)
      if (d < levels) {
        nodes_[node_slot(parent[d], lane_)] = halves[d];
        nodes_[node_slot(emptied[d] ^ 1, lane_)] = halves[LogWays + d];
      }
    nodes_[node_slot(leaf, lane_)] = fresh;
    __syncwarp();
  }

 private:
  /// Lane i's item of the next w items of list j (padding past its end); advances list j's cursor.
  __device__ item next_leaf_item(int j) {
    const size_type next = warp::broadcast(next_, j, warp::full_mask);
    const size_type end = warp::broadcast(end_, j, warp::full_mask);
    const size_type position = next + static_cast<size_type>(lane_);
    if (lane_ == j) next_ = next + w < end ? next + w : end;
    return position < end ? group_[position] : Order::pad();
  }

  item* nodes_;
  const item* group_;
  size_type next_;
  size_type end_;
  const Order& order_;
  int lane_;
};

/// One warp per merge task: its heap pops ⌈count / w⌉ roots into the task's output range.
template <class Order, int LogWays, class Sink>
__global__ void merge_kernel(const typename Order::item* source, round_plan plan, const size_type* splits,
                             int warps_per_block, Order order, Sink sink) {
  using item = typename Order::item;
  constexpr int ways = 1 << LogWays;
  const size_type task = global_warp(warps_per_block);
  if (task >= plan.tasks()) return;
  const size_type g = task / plan.tasks_per_group, p = task % plan.tasks_per_group;
  const int lane = warp::lane_id();
  size_type out_begin = 0, count = 0, next = 0, end = 0;
  for (int j = 0; j < ways; ++j) {
    const size_type low = task_split(plan, splits, g, p, j), high = task_split(plan, splits, g, p + 1, j);
    out_begin += low;
    count += high > low ? high - low : 0;
    if (j == lane) {
      next = plan.list_begin(j) + low;
      end = plan.list_begin(j) + (high > low ? high : low);
    }
  }
  if (count == 0) return;
  item* nodes = reinterpret_cast<item*>(gpu_mms_shared) +
                static_cast<size_type>(warp_in_block()) * static_cast<size_type>(heap_nodes(ways) * w);
  min_block_heap<Order, LogWays> heap(nodes, source + plan.group_begin(g), next, end, order);
  heap.build();
  const size_type out = plan.group_begin(g) + out_begin;
  for (size_type done = 0; done < count; done += w) {
    const item top = heap.root();
    if (done + static_cast<size_type>(lane) < count) sink.store(out + done + static_cast<size_type>(lane), top);
    if (done + w < count) heap.refill(1);
  }
}

// ---- host side -------------------------------------------------------------------------------------------

/// Launch shape of a warp-per-unit kernel with `per_warp_bytes` of shared memory per warp.
struct warp_launch {
  int warps_per_block = 1;
  std::size_t shared_bytes = 0;
  std::size_t resident_warps = 1;  ///< on the whole device
};

template <class Kernel>
[[nodiscard]] warp_launch shape_warp_launch(const context& ctx, Kernel kernel, std::size_t per_warp_bytes) {
  const std::size_t limit = ctx.properties().shared_memory_per_block_optin;
  const int fit = static_cast<int>(std::min<std::size_t>(limit / per_warp_bytes, tuning::warps_per_block));
  if (fit < 1)
    throw invalid_argument("merge_sort gpu_mms", "ways",
                           "needs " + std::to_string(per_warp_bytes) + " bytes of shared memory per warp; the device has " +
                               std::to_string(limit));
  warp_launch shape;
  shape.warps_per_block = fit;
  shape.shared_bytes = per_warp_bytes * static_cast<std::size_t>(fit);
  SLUICE_CUDA_CHECK(
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shape.shared_bytes)));
  shape.resident_warps = static_cast<std::size_t>(ctx.properties().sm_count) *
                         static_cast<std::size_t>(resident_blocks_per_sm(kernel, fit * w, shape.shared_bytes)) *
                         static_cast<std::size_t>(fit);
  return shape;
}

template <class Order, class Sink>
void run_base_case(context& ctx, const typename Order::key_type* keys, std::size_t n, const Order& order, Sink sink) {
  auto kernel = base_case_kernel<Order, Sink>;
  const warp_launch shape = shape_warp_launch(ctx, kernel, sizeof(typename Order::item) * tile_items);
  const std::size_t tiles = ceil_div(n, tile_items);
  const std::size_t blocks = ceil_div(tiles, static_cast<std::size_t>(shape.warps_per_block));
  kernel<<<static_cast<unsigned>(blocks), static_cast<unsigned>(shape.warps_per_block * w), shape.shared_bytes,
           ctx.stream()>>>(keys, n, tiles, shape.warps_per_block, order, sink);
  SLUICE_CHECK_LAUNCH();
}

template <class Order, int LogWays, class Sink>
void run_merge_round(context& ctx, const typename Order::item* source, std::size_t n, int round, const Order& order,
                     Sink sink) {
  using item = typename Order::item;
  constexpr int ways = 1 << LogWays;
  auto kernel = merge_kernel<Order, LogWays, Sink>;
  const warp_launch shape = shape_warp_launch(ctx, kernel, sizeof(item) * heap_nodes(ways) * w);
  const round_plan plan = plan_round(n, ways, round, shape.resident_warps * tuning::tasks_per_resident_warp,
                                     tuning::min_task_items_per_way * ways);
  scratch<size_type> splits(ctx, plan.split_count());
  if (plan.split_count() > 0) {
    constexpr int split_warps = 4;
    const std::size_t boundaries = plan.groups * (plan.tasks_per_group - 1);
    split_kernel<Order, split_warps><<<static_cast<unsigned>(ceil_div(boundaries, split_warps)), split_warps * w, 0,
                                       ctx.stream()>>>(source, plan, splits.get(), order);
    SLUICE_CHECK_LAUNCH();
    constexpr int monotone_warps = 8;
    const std::size_t pairs = plan.groups * ways;
    splits_monotone_kernel<monotone_warps><<<static_cast<unsigned>(ceil_div(pairs, monotone_warps)), monotone_warps * w,
                                             0, ctx.stream()>>>(plan, splits.get());
    SLUICE_CHECK_LAUNCH();
  }
  const std::size_t blocks = ceil_div(plan.tasks(), static_cast<std::size_t>(shape.warps_per_block));
  kernel<<<static_cast<unsigned>(blocks), static_cast<unsigned>(shape.warps_per_block * w), shape.shared_bytes,
           ctx.stream()>>>(source, plan, splits.get(), shape.warps_per_block, order, sink);
  SLUICE_CHECK_LAUNCH();
}

/// The base case into buffers[0], then the merge rounds, round r reading buffers[r % 2] and writing
/// buffers[(r + 1) % 2], except the last, which writes through `last` (the caller's keys, and values by
/// tag). buffers[1] is used only when there are two rounds or more.
template <class Order, int LogWays, class LastSink>
void run_rounds(context& ctx, const typename Order::key_type* keys, std::size_t n, const Order& order,
                typename Order::item* const (&buffers)[2], LastSink last) {
  using item = typename Order::item;
  const int rounds = merge_rounds(n, 1 << LogWays);
  if (rounds == 0) return run_base_case(ctx, keys, n, order, last);
  run_base_case(ctx, keys, n, order, item_sink<item>{buffers[0]});
  for (int round = 0; round < rounds; ++round) {
    const item* source = buffers[round % 2];
    if (round + 1 == rounds) run_merge_round<Order, LogWays>(ctx, source, n, round, order, last);
    else run_merge_round<Order, LogWays>(ctx, source, n, round, order, item_sink<item>{buffers[(round + 1) % 2]});
  }
}

/// Item buffers for `rounds` merge rounds, the last one writing `out`. Keys-only untagged sorts reuse
/// out_keys as the buffer the last round does not read (in place too: the base case reads a whole tile
/// before writing it), so they need n items of scratch, tagged sorts 2n.
template <class Order, int LogWays, class V>
void sort_items(context& ctx, cuda::std::span<const typename Order::key_type> keys, cuda::std::span<const V> values,
                cuda::std::span<typename Order::key_type> out_keys, cuda::std::span<V> out_values, const Order& order) {
  using item = typename Order::item;
  static_assert(alignof(item) <= 16, "tiles and heaps sit in 16-byte-aligned shared memory");
  const std::size_t n = keys.size();
  const int rounds = merge_rounds(n, 1 << LogWays);
  constexpr bool items_are_keys = std::is_same_v<item, typename Order::key_type>;
  scratch<item> read_last(ctx, rounds >= 1 ? n : 0);
  scratch<item> other(ctx, rounds >= 2 && !items_are_keys ? n : 0);
  item* buffers[2] = {};
  buffers[(rounds + 1) % 2] = read_last.get();  // buffers[(rounds − 1) % 2]: the last round's source
  if constexpr (items_are_keys) buffers[rounds % 2] = out_keys.data();
  else buffers[rounds % 2] = other.get();
  if constexpr (items_are_keys) {
    static_assert(!has_values<V>, "pairs carry tags");
    run_rounds<Order, LogWays>(ctx, keys.data(), n, order, buffers, item_sink<item>{out_keys.data()});
  } else {
    // Gathering in place would read values already overwritten: gather from a copy.
    const bool values_in_place = has_values<V> && static_cast<const void*>(values.data()) == out_values.data();
    scratch<V> values_copy(ctx, values_in_place ? n : 0);
    const V* value_source = values.data();
    if (values_in_place) {
      SLUICE_CUDA_CHECK(cudaMemcpyAsync(values_copy.get(), values.data(), n * sizeof(V), cudaMemcpyDeviceToDevice,
                                        ctx.stream()));
      value_source = values_copy.get();
    }
    run_rounds<Order, LogWays>(ctx, keys.data(), n, order, buffers,
                               final_sink<Order, V>{out_keys.data(), out_values.data(), value_source, n});
  }
}

template <class Order, class V>
void sort_with_ways(context& ctx, cuda::std::span<const typename Order::key_type> keys, cuda::std::span<const V> values,
                    cuda::std::span<typename Order::key_type> out_keys, cuda::std::span<V> out_values,
                    const Order& order, int ways) {
  switch (ways) {
    case 2: return sort_items<Order, 1>(ctx, keys, values, out_keys, out_values, order);
    case 4: return sort_items<Order, 2>(ctx, keys, values, out_keys, out_values, order);
    case 8: return sort_items<Order, 3>(ctx, keys, values, out_keys, out_values, order);
    case 16: return sort_items<Order, 4>(ctx, keys, values, out_keys, out_values, order);
    case 32: return sort_items<Order, 5>(ctx, keys, values, out_keys, out_values, order);
    default:
      throw invalid_argument("merge_sort gpu_mms", "ways",
                             "is " + std::to_string(ways) + "; GPU-MMS merges 2, 4, 8, 16 or 32 lists (0: tuning)");
  }
}

/// GPU-MMS (Karsin §7.3), stable: keys (and values, when V is not no_values) sorted by `less` into
/// out_keys (out_values). `ways` is K in {2, 4, 8, 16, 32}, 0 for the tuning table's. The caller has
/// checked the spans (device memory, equal sizes, out equal to or disjoint from the input). Keys are
/// trivially copyable (1 to 32 bytes were tested); values any trivially copyable type (gathered once at
/// the end, so their size never enters the rounds). Asynchronous on ctx.stream(); scratch: n items of
/// (key, index) twice, or n keys once where stability is unobservable, plus n values when sorting
/// values in place.
template <class K, class V, class Less>
void sort(context& ctx, cuda::std::span<const K> keys, cuda::std::span<const V> values, cuda::std::span<K> out_keys,
          cuda::std::span<V> out_values, Less less, int ways) {
  static_assert(std::is_trivially_copyable_v<K> && std::is_trivially_copyable_v<V>,
                "merge sort moves trivially copyable keys and values");
  if (ways == 0) ways = tuning::ways;
  const std::size_t n = keys.size();
  if (n == 0) return;
  auto device = ctx.activate();
  if constexpr (stability_unobservable<K, Less> && !has_values<V>) {
    sort_with_ways(ctx, keys, values, out_keys, out_values, untagged_order<K, Less>{less}, ways);
  } else if (n < std::size_t{0xFFFFFFFFu}) {  // every index below the u32 pad tag
    sort_with_ways(ctx, keys, values, out_keys, out_values, tagged_order<K, std::uint32_t, Less>{less}, ways);
  } else {
    sort_with_ways(ctx, keys, values, out_keys, out_values, tagged_order<K, std::uint64_t, Less>{less}, ways);
  }
}

}  // namespace sluice::detail::merge_sort::gpu_mms
