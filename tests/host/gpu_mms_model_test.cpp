// Host model of GPU-MMS (detail/merge_sort/gpu_mms.cuh, Karsin §7.3): the kernels' steps replayed on the
// CPU over a "warp" of 32 lanes (an array, lane i's register is element i), with the device's own index
// arithmetic (gpu_mms_plan.hpp) and network schedule (warp/bitonic_network.hpp). Checked against
// std::stable_sort for sizes around every boundary (0, 1, 31, w², K·w² ± 1, several rounds), every K,
// random, duplicate-heavy, all-equal, sorted and reverse keys, forced partitions, tagged and untagged
// orders; a comparator that is not a strict weak order gives a permutation. A bank simulator shows the
// base case's row and column accesses and the heap's node accesses take the minimum number of shared
// memory wavefronts (β = 1) for items of 1 to 10 words.
#include <sluice/detail/merge_sort/gpu_mms_plan.hpp>
#include <sluice/warp/bitonic_network.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace {

namespace mms = sluice::detail::merge_sort::gpu_mms;
using mms::size_type;
using mms::w;

template <class Item>
using lanes = std::array<Item, w>;

// ---- the warp, replayed -------------------------------------------------------------------------------

/// One step of warp::bitonic_step on one sequence: every lane keeps bitonic_kept of its pair.
template <class Item, class Before>
void step(lanes<Item>& x, int stride, int block, bool descending, Before before) {
  const lanes<Item> in = x;
  for (int lane = 0; lane < w; ++lane)
    x[static_cast<std::size_t>(lane)] =
        sluice::warp::bitonic_kept(lane, stride, sluice::warp::bitonic_pair_ascending(lane, block, descending),
                                   in[static_cast<std::size_t>(lane)], in[static_cast<std::size_t>(lane ^ stride)], before);
}

template <class Item, class Before>
void bitonic_sort(lanes<Item>& x, bool descending, Before before) {
  for (int block = 2; block <= w; block *= 2)
    for (int stride = block / 2; stride > 0; stride /= 2) step(x, stride, block, descending, before);
}

template <class Item, class Before>
void bitonic_merge(lanes<Item>& x, Before before) {
  for (int stride = w / 2; stride > 0; stride /= 2) step(x, stride, 2 * w, false, before);
}

// ---- base case: base_case_kernel ---------------------------------------------------------------------

template <class Order>
void shearsort_pass(std::vector<typename Order::item>& tile, bool columns, unsigned descending, const Order& order) {
  auto before = [&](const auto& a, const auto& b) { return order.before(a, b); };
  for (int line = 0; line < w; ++line) {
    auto slot = [&](int lane) { return static_cast<std::size_t>(columns ? mms::tile_slot(lane, line) : mms::tile_slot(line, lane)); };
    lanes<typename Order::item> x;
    for (int lane = 0; lane < w; ++lane) x[static_cast<std::size_t>(lane)] = tile[slot(lane)];
    bitonic_sort(x, ((descending >> line) & 1u) != 0, before);
    for (int lane = 0; lane < w; ++lane) tile[slot(lane)] = x[static_cast<std::size_t>(lane)];
  }
}

template <class Order, class Key>
void base_case(const std::vector<Key>& keys, const Order& order, std::vector<typename Order::item>& out) {
  const size_type n = keys.size();
  for (size_type begin = 0; begin < n; begin += mms::tile_items) {
    std::vector<typename Order::item> tile(mms::tile_items);
    for (int row = 0; row < w; ++row)
      for (int lane = 0; lane < w; ++lane) {
        const size_type position = begin + static_cast<size_type>(row * w + lane);
        tile[static_cast<std::size_t>(mms::tile_slot(row, lane))] = position < n ? order.make(keys[position], position) : order.pad();
      }
    for (int round = 0; round < mms::shearsort_rounds; ++round) {
      shearsort_pass(tile, false, mms::snake_descending_rows, order);
      shearsort_pass(tile, true, 0u, order);
    }
    shearsort_pass(tile, false, 0u, order);
    for (int row = 0; row < w; ++row)
      for (int lane = 0; lane < w; ++lane) {
        const size_type position = begin + static_cast<size_type>(row * w + lane);
        if (position < n) out[position] = tile[static_cast<std::size_t>(mms::tile_slot(row, lane))];
      }
  }
}

// ---- merge rounds: split_kernel, splits_monotone_kernel, min_block_heap, merge_kernel ----------------

template <class Order>
struct heap_model {
  using item = typename Order::item;
  int log_ways;
  int ways;
  std::vector<item> nodes;
  const item* group;
  std::vector<size_type> next, end;  // per list
  const Order& order;

  item leaf_item(int j, int lane) const {
    const size_type position = next[static_cast<std::size_t>(j)] + static_cast<size_type>(lane);
    return position < end[static_cast<std::size_t>(j)] ? group[position] : Order::pad();
  }
  lanes<item> next_leaf(int j) {
    lanes<item> x;
    for (int lane = 0; lane < w; ++lane) x[static_cast<std::size_t>(lane)] = leaf_item(j, lane);
    auto& cursor = next[static_cast<std::size_t>(j)];
    cursor = std::min(cursor + w, end[static_cast<std::size_t>(j)]);
    return x;
  }
  item& at(int node, int lane) { return nodes[static_cast<std::size_t>(mms::node_slot(node, lane))]; }

  void build() {
    for (int j = 0; j < ways; ++j) {
      const lanes<item> x = next_leaf(j);
      for (int lane = 0; lane < w; ++lane) at(ways + j, lane) = x[static_cast<std::size_t>(lane)];
    }
    for (int node = ways - 1; node >= 1; --node) refill(node);
  }

  /// min_block_heap::refill: path first, every pair loaded, merged, then stored.
  void refill(int node) {
    auto before = [&](const auto& a, const auto& b) { return order.before(a, b); };
    const int levels = mms::levels_below(node, log_ways);
    std::vector<int> parent, emptied;
    std::vector<lanes<item>> small, large;
    int leaf = node;
    for (int d = 0; d < levels; ++d) {
      parent.push_back(leaf);
      emptied.push_back(mms::child_to_empty(leaf, at(2 * leaf, w - 1), at(2 * leaf + 1, w - 1), before));
      lanes<item> a, b;
      for (int lane = 0; lane < w; ++lane) {
        a[static_cast<std::size_t>(lane)] = at(emptied.back() ^ 1, lane);
        b[static_cast<std::size_t>(lane)] = at(emptied.back(), w - 1 - lane);
      }
      small.push_back(a);
      large.push_back(b);
      leaf = emptied.back();
    }
    const lanes<item> fresh = next_leaf(leaf - ways);
    for (int d = 0; d < levels; ++d) {
      auto& lo = small[static_cast<std::size_t>(d)];
      auto& hi = large[static_cast<std::size_t>(d)];
      for (std::size_t lane = 0; lane < w; ++lane)
        if (before(hi[lane], lo[lane])) std::swap(lo[lane], hi[lane]);
      bitonic_merge(lo, before);
      bitonic_merge(hi, before);
      for (int lane = 0; lane < w; ++lane) {
        at(parent[static_cast<std::size_t>(d)], lane) = lo[static_cast<std::size_t>(lane)];
        at(emptied[static_cast<std::size_t>(d)] ^ 1, lane) = hi[static_cast<std::size_t>(lane)];
      }
    }
    for (int lane = 0; lane < w; ++lane) at(leaf, lane) = fresh[static_cast<std::size_t>(lane)];
  }
};

struct model_options {
  size_type target_tasks = 1;
  size_type min_task_items = 1;
};

/// split_kernel: lane j's range per list; the warp's sort of the proposals, running sum and ballot.
template <class Order>
std::vector<size_type> search_splits(const typename Order::item* group, const mms::round_plan& plan, size_type g,
                                     size_type rank, const Order& order, int* steps_taken = nullptr) {
  using item = typename Order::item;
  auto before = [&](const item& a, const item& b) { return order.before(a, b); };
  const auto ways = static_cast<std::size_t>(plan.ways);
  std::vector<size_type> low(ways, 0), high(ways);
  for (int j = 0; j < plan.ways; ++j) high[static_cast<std::size_t>(j)] = plan.list_size(g, j);
  auto list = [&](int j) { return group + plan.list_begin(j); };
  for (int step = 0; step < mms::split_step_limit; ++step) {
    size_type undecided = 0;
    for (std::size_t j = 0; j < ways; ++j) undecided += high[j] - low[j];
    if (steps_taken) *steps_taken = step;
    if (undecided == 0) break;
    lanes<mms::split_proposal<item>> proposals;
    for (int lane = 0; lane < w; ++lane)
      proposals[static_cast<std::size_t>(lane)] =
          lane < plan.ways ? mms::propose<item, Order>(list(lane), lane, low[static_cast<std::size_t>(lane)],
                                                       high[static_cast<std::size_t>(lane)])
                           : mms::split_proposal<item>{Order::pad(), lane, 0, 0};
    bitonic_sort(proposals, false, [&](const auto& a, const auto& b) { return mms::proposal_before(a, b, before); });
    size_type running = 0;
    int median = 0;
    for (; median < w; ++median) {
      running += proposals[static_cast<std::size_t>(median)].weight;
      if (2 * running >= undecided) break;
    }
    const auto pivot = proposals[static_cast<std::size_t>(median)];
    std::vector<size_type> counts(ways);
    size_type sum = 0;
    for (int j = 0; j < plan.ways; ++j) {
      const auto jj = static_cast<std::size_t>(j);
      counts[jj] = mms::count_before_pivot(list(j), j, low[jj], high[jj], pivot, before);
      sum += counts[jj];
    }
    for (int j = 0; j < plan.ways; ++j) {
      const auto jj = static_cast<std::size_t>(j);
      mms::narrow_split_range(low[jj], high[jj], counts[jj], j == pivot.list, sum < rank);
    }
  }
  return low;
}

template <class Order>
void merge_round(const std::vector<typename Order::item>& source, std::vector<typename Order::item>& target, int log_ways,
                 int round, const Order& order, model_options options) {
  const int ways = 1 << log_ways;
  const mms::round_plan plan = mms::plan_round(source.size(), ways, round, options.target_tasks, options.min_task_items);
  std::vector<size_type> splits(plan.split_count());
  for (size_type g = 0; g < plan.groups; ++g)
    for (size_type p = 1; p < plan.tasks_per_group; ++p) {
      const auto found = search_splits(source.data() + plan.group_begin(g), plan, g, plan.boundary_rank(g, p), order);
      for (int j = 0; j < ways; ++j) splits[plan.split_index(g, p, j)] = found[static_cast<std::size_t>(j)];
    }
  for (size_type g = 0; g < plan.groups; ++g)  // splits_monotone_kernel
    for (int j = 0; j < ways; ++j)
      for (size_type p = 2; p < plan.tasks_per_group; ++p)
        splits[plan.split_index(g, p, j)] = std::max(splits[plan.split_index(g, p, j)], splits[plan.split_index(g, p - 1, j)]);
  for (size_type task = 0; task < plan.tasks(); ++task) {  // merge_kernel
    const size_type g = task / plan.tasks_per_group, p = task % plan.tasks_per_group;
    heap_model<Order> heap{log_ways, ways, std::vector<typename Order::item>(static_cast<std::size_t>(mms::heap_nodes(ways) * w)),
                           source.data() + plan.group_begin(g), {}, {}, order};
    size_type out_begin = 0, count = 0;
    for (int j = 0; j < ways; ++j) {
      const size_type low = mms::task_split(plan, splits.data(), g, p, j), high = mms::task_split(plan, splits.data(), g, p + 1, j);
      out_begin += low;
      count += high > low ? high - low : 0;
      heap.next.push_back(plan.list_begin(j) + low);
      heap.end.push_back(plan.list_begin(j) + std::max(high, low));
    }
    if (count == 0) continue;
    heap.build();
    for (size_type done = 0; done < count; done += w) {
      for (int lane = 0; lane < w; ++lane)
        if (done + static_cast<size_type>(lane) < count)
          target.at(plan.group_begin(g) + out_begin + done + static_cast<size_type>(lane)) = heap.at(1, lane);
      if (done + w < count) heap.refill(1);
    }
  }
}

/// The whole sort: base case, then the rounds (targets poisoned with padding, so a missed slot shows).
template <class Order, class Key>
std::vector<typename Order::item> model_sort(const std::vector<Key>& keys, int log_ways, const Order& order,
                                             model_options options = {}) {
  std::vector<typename Order::item> items(keys.size(), Order::pad());
  base_case(keys, order, items);
  for (int round = 0; round < mms::merge_rounds(keys.size(), 1 << log_ways); ++round) {
    std::vector<typename Order::item> next(keys.size(), Order::pad());
    merge_round(items, next, log_ways, round, order, options);
    items.swap(next);
  }
  return items;
}

// ---- inputs -------------------------------------------------------------------------------------------

enum class input { random, few_distinct, all_equal, sorted, reverse };
const input every_input[] = {input::random, input::few_distinct, input::all_equal, input::sorted, input::reverse};
std::string describe(input kind) {
  switch (kind) {
    case input::random: return "random";
    case input::few_distinct: return "few distinct";
    case input::all_equal: return "all equal";
    case input::sorted: return "sorted";
    case input::reverse: return "reverse";
  }
  return "?";
}

std::vector<std::uint32_t> make_keys(input kind, size_type n, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::vector<std::uint32_t> keys(n);
  for (size_type i = 0; i < n; ++i) {
    switch (kind) {
      case input::random: keys[i] = static_cast<std::uint32_t>(random()); break;
      case input::few_distinct: keys[i] = static_cast<std::uint32_t>(random() % 5) * 0x3FFFFFFFu; break;
      case input::all_equal: keys[i] = 0xFFFFFFFFu; break;  // the untagged order's padding value
      case input::sorted: keys[i] = static_cast<std::uint32_t>(i / 3); break;
      case input::reverse: keys[i] = static_cast<std::uint32_t>((n - i) / 3); break;
    }
  }
  return keys;
}

/// Sizes around every boundary for K: 0, 1, 31, w² ± 1, K·w² ± 1, K²·w² + 1 (three rounds for small K).
std::vector<size_type> sizes_for(int ways) {
  const size_type k = static_cast<size_type>(ways), t = mms::tile_items;
  std::vector<size_type> sizes{0, 1, 2, 31, 32, 33, t - 1, t, t + 1, k * t - 1, k * t, k * t + 1, 3 * t + 17};
  if (ways <= 4) sizes.push_back(k * k * t + 1);
  return sizes;
}

/// Untagged items are keys; tagged items are checked key and tag against the stable sort of (key, index).
template <class Less, class Tag = std::uint32_t>
void check_tagged(const std::vector<std::uint32_t>& keys, int log_ways, Less less, model_options options, const std::string& what) {
  using order_type = mms::tagged_order<std::uint32_t, Tag, Less>;
  const order_type order{less};
  const auto got = model_sort(keys, log_ways, order, options);
  std::vector<Tag> expected_tags(keys.size());
  for (size_type i = 0; i < keys.size(); ++i) expected_tags[i] = static_cast<Tag>(i);
  std::stable_sort(expected_tags.begin(), expected_tags.end(), [&](Tag a, Tag b) { return less(keys[a], keys[b]); });
  ASSERT_EQ(got.size(), keys.size());
  for (size_type i = 0; i < keys.size(); ++i) {
    ASSERT_EQ(got[i].tag, expected_tags[i]) << what << ", n = " << keys.size() << ", K = " << (1 << log_ways) << ", at " << i;
    ASSERT_EQ(got[i].key, keys[expected_tags[i]]) << what;
  }
}

// ---- tests --------------------------------------------------------------------------------------------

TEST(GpuMmsModel, TileSlotIsABijectionWithRowsAndColumnsInDistinctBanks) {
  std::set<int> slots;
  for (int r = 0; r < w; ++r) {
    std::set<int> row_banks, column_banks;
    for (int c = 0; c < w; ++c) {
      slots.insert(mms::tile_slot(r, c));
      row_banks.insert(mms::tile_slot(r, c) % 32);
      column_banks.insert(mms::tile_slot(c, r) % 32);
    }
    EXPECT_EQ(row_banks.size(), 32u);
    EXPECT_EQ(column_banks.size(), 32u);
  }
  EXPECT_EQ(slots.size(), static_cast<std::size_t>(mms::tile_items));
  EXPECT_EQ(*slots.rbegin(), mms::tile_items - 1);
}

/// Shared-memory wavefronts of one warp access (32 lanes, `words` 4-byte words each at item index
/// slot[lane]): the most distinct words any of the 32 banks must serve, against the minimum
/// ⌈32·words / 32⌉ = words. Lanes reading the same word are served together (broadcast).
int wavefronts(const std::array<int, 32>& slot, int words) {
  std::map<int, std::set<long>> per_bank;
  for (int lane = 0; lane < 32; ++lane)
    for (int k = 0; k < words; ++k) {
      const long word = static_cast<long>(slot[static_cast<std::size_t>(lane)]) * words + k;
      per_bank[static_cast<int>(word % 32)].insert(word);
    }
  std::size_t most = 0;
  for (const auto& [bank, distinct] : per_bank) most = std::max(most, distinct.size());
  return static_cast<int>(most);
}

TEST(GpuMmsModel, BankSimulatorBaseCaseAndHeapAccessesAreConflictFree) {
  for (int words = 1; words <= 10; ++words) {
    for (int line = 0; line < w; ++line) {
      std::array<int, 32> row{}, column{};
      for (int lane = 0; lane < w; ++lane) {
        row[static_cast<std::size_t>(lane)] = mms::tile_slot(line, lane);
        column[static_cast<std::size_t>(lane)] = mms::tile_slot(lane, line);
      }
      EXPECT_EQ(wavefronts(row, words), words) << "row " << line << ", " << words << "-word items";
      EXPECT_EQ(wavefronts(column, words), words) << "column " << line << ", " << words << "-word items";
    }
    for (int node = 1; node < mms::heap_nodes(32); ++node) {
      std::array<int, 32> forward{}, reversed{}, last{};
      for (int lane = 0; lane < w; ++lane) {
        forward[static_cast<std::size_t>(lane)] = mms::node_slot(node, lane);
        reversed[static_cast<std::size_t>(lane)] = mms::node_slot(node, w - 1 - lane);
        last[static_cast<std::size_t>(lane)] = mms::node_slot(node, w - 1);
      }
      EXPECT_EQ(wavefronts(forward, words), words) << "node " << node;
      EXPECT_EQ(wavefronts(reversed, words), words) << "node " << node << " reversed";
      EXPECT_EQ(wavefronts(last, words), 1) << "node " << node << " last item (broadcast)";
    }
  }
  // The unrotated layout (row·w + column) would serialise a column: 32 wavefronts for 4-byte items.
  std::array<int, 32> naive{};
  for (int lane = 0; lane < w; ++lane) naive[static_cast<std::size_t>(lane)] = lane * w;
  EXPECT_EQ(wavefronts(naive, 1), 32);
}

TEST(GpuMmsModel, WarpBitonicSortAndMergeSortEveryLaneArrangement) {
  std::mt19937 random(7);
  auto before = [](int a, int b) { return a < b; };
  for (int trial = 0; trial < 2000; ++trial) {
    lanes<int> x;
    for (auto& v : x) v = static_cast<int>(random() % (trial % 2 ? 4 : 1000));
    for (bool descending : {false, true}) {
      lanes<int> y = x;
      bitonic_sort(y, descending, before);
      lanes<int> expected = x;
      std::sort(expected.begin(), expected.end());
      if (descending) std::reverse(expected.begin(), expected.end());
      ASSERT_EQ(y, expected);
    }
    // Merge: ascending then descending halves is bitonic.
    lanes<int> a = x;
    std::sort(a.begin(), a.begin() + 16);
    std::sort(a.begin() + 16, a.end(), std::greater<>{});
    lanes<int> expected = x;
    std::sort(expected.begin(), expected.end());
    bitonic_merge(a, before);
    ASSERT_EQ(a, expected);
  }
}

TEST(GpuMmsModel, BaseCaseShearsortSortsZeroOneAndRandomTiles) {
  const mms::tagged_order<std::uint32_t, std::uint32_t, std::less<>> order{};
  std::mt19937_64 random(11);
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<std::uint32_t> keys(mms::tile_items);
    const int density = trial % 9;  // 0-1 inputs of every density, then random ones
    for (auto& k : keys) k = trial < 200 ? static_cast<std::uint32_t>(random() % 8 < static_cast<unsigned>(density)) : static_cast<std::uint32_t>(random());
    check_tagged(keys, 1, std::less<>{}, {}, "one tile, trial " + std::to_string(trial));
  }
  (void)order;
}

TEST(GpuMmsModel, UntaggedSortsEqualStdSortForEveryK) {
  for (int log_ways = 1; log_ways <= 5; ++log_ways)
    for (size_type n : sizes_for(1 << log_ways))
      for (input kind : every_input) {
        const auto keys = make_keys(kind, n, n * 31 + static_cast<size_type>(log_ways));
        const mms::untagged_order<std::uint32_t, std::less<>> order{};
        const auto got = model_sort(keys, log_ways, order);
        auto expected = keys;
        std::sort(expected.begin(), expected.end());
        ASSERT_EQ(got, expected) << describe(kind) << ", n = " << n << ", K = " << (1 << log_ways);
      }
}

TEST(GpuMmsModel, UntaggedGreaterPadsWithTheLowestKey) {
  const auto keys = make_keys(input::few_distinct, 5000, 3);
  const mms::untagged_order<std::uint32_t, std::greater<>> order{};
  const auto got = model_sort(keys, 2, order);
  auto expected = keys;
  std::sort(expected.begin(), expected.end(), std::greater<>{});
  EXPECT_EQ(got, expected);
}

TEST(GpuMmsModel, TaggedSortsAreStableForEveryKAndPartition) {
  const auto by_high_bits = [](std::uint32_t a, std::uint32_t b) { return (a >> 28) < (b >> 28); };
  const model_options partitions[] = {{1, 1}, {5, 64}, {1000, 1}};
  for (int log_ways = 1; log_ways <= 5; ++log_ways)
    for (size_type n : sizes_for(1 << log_ways))
      for (input kind : every_input)
        for (const auto& options : partitions) {
          if (n > 20000 && options.target_tasks == 1000) continue;  // keep the model's run time short
          const auto keys = make_keys(kind, n, n + 5);
          check_tagged(keys, log_ways, by_high_bits, options,
                       describe(kind) + ", tasks " + std::to_string(options.target_tasks));
        }
}

/// n ≥ 2^32 − 1 takes 64-bit tags; the same order at a size the model can run.
TEST(GpuMmsModel, SixtyFourBitTagsSortTheSame) {
  const auto by_high_bits = [](std::uint32_t a, std::uint32_t b) { return (a >> 29) < (b >> 29); };
  for (size_type n : {size_type{1}, size_type{1025}, size_type{8 * 1024 + 1}, size_type{70000}})
    check_tagged<decltype(by_high_bits), std::uint64_t>(make_keys(input::random, n, n), 3, by_high_bits, {16, 64},
                                                        "u64 tags");
}

TEST(GpuMmsModel, PlanCoversEveryItemOnce) {
  for (int ways : {2, 4, 8, 16, 32})
    for (size_type n : {size_type{1025}, size_type{100003}, (size_type{1} << 31) + 5})
      for (int round = 0; round < mms::merge_rounds(n, ways); ++round)
        for (size_type target : {size_type{1}, size_type{8448}, size_type{1} << 20}) {
          const auto plan = mms::plan_round(n, ways, round, target, 512 * static_cast<size_type>(ways));
          ASSERT_GE(plan.tasks_per_group, 1u);
          ASSERT_GE(plan.task_items * plan.tasks_per_group, plan.group_items());
          size_type covered = 0;
          for (size_type g = 0; g < plan.groups; ++g) {
            size_type lists = 0;
            for (int j = 0; j < ways; ++j) lists += plan.list_size(g, j);
            ASSERT_EQ(lists, plan.group_size(g));
            ASSERT_EQ(plan.boundary_rank(g, plan.tasks_of(g)), plan.group_size(g));
            ASSERT_LT(plan.boundary_rank(g, plan.tasks_of(g) - 1), plan.group_size(g));
            covered += plan.group_size(g);
          }
          ASSERT_EQ(covered, n);
        }
  EXPECT_EQ(mms::merge_rounds(0, 8), 0);
  EXPECT_EQ(mms::merge_rounds(1024, 8), 0);
  EXPECT_EQ(mms::merge_rounds(1025, 8), 1);
  EXPECT_EQ(mms::merge_rounds(8 * 1024, 8), 1);
  EXPECT_EQ(mms::merge_rounds(8 * 1024 + 1, 8), 2);
  EXPECT_EQ(mms::merge_rounds(size_type{1} << 28, 16), 5);
}

TEST(GpuMmsModel, MultiwaySplitsAreConsistentCutsOfTheRank) {
  std::mt19937_64 random(5);
  const auto less = [](std::uint32_t a, std::uint32_t b) { return a < b; };
  for (int ways : {2, 4, 8, 32}) {
    const size_type n = static_cast<size_type>(ways) * 1024 + 777;
    std::vector<std::uint32_t> items(n);
    for (auto& x : items) x = static_cast<std::uint32_t>(random() % 50);
    const auto plan = mms::plan_round(n, ways, 0, 1, 1);
    for (size_type g = 0; g < plan.groups; ++g)
      for (int j = 0; j < ways; ++j)
        std::sort(items.begin() + static_cast<long>(plan.group_begin(g) + plan.list_begin(j)),
                  items.begin() + static_cast<long>(plan.group_begin(g) + plan.list_begin(j) + plan.list_size(g, j)));
    const mms::untagged_order<std::uint32_t, std::less<>> order{};
    for (size_type rank = 0; rank <= plan.group_size(0); rank += 37) {
      int steps = 0;
      const auto splits = search_splits(items.data(), plan, 0, rank, order, &steps);
      // Every step removes a quarter of the undecided items at least.
      ASSERT_LE(steps, static_cast<int>(std::ceil(std::log(static_cast<double>(n)) / std::log(4.0 / 3.0))) + 1);
      size_type sum = 0;
      for (int j = 0; j < ways; ++j) {
        const size_type s = splits[static_cast<std::size_t>(j)];
        sum += s;
        // A consistent cut: every taken item of list j comes before every item not taken of any list.
        for (int l = 0; l < ways; ++l) {
          const size_type t = splits[static_cast<std::size_t>(l)];
          if (s > 0 && t < plan.list_size(0, l)) {
            ASSERT_FALSE(mms::merged_before(items[plan.list_begin(l) + t], l, t, items[plan.list_begin(j) + s - 1], j,
                                            s - 1, less))
                << "K = " << ways << ", rank " << rank;
          }
        }
      }
      ASSERT_EQ(sum, rank) << "K = " << ways;
    }
  }
}

TEST(GpuMmsModel, ComparatorThatIsNotAStrictWeakOrderGivesAPermutation) {
  // a < b for every pair: irreflexivity and asymmetry both broken.
  const auto always = [](std::uint32_t, std::uint32_t) { return true; };
  const auto alternating = [](std::uint32_t a, std::uint32_t b) { return ((a ^ b) & 1u) != 0; };
  for (int log_ways : {1, 3, 5})
    for (size_type n : {size_type{1}, size_type{1000}, size_type{5000}, size_type{40000}}) {
      auto keys = make_keys(input::random, n, n);
      for (int c = 0; c < 2; ++c) {
        const model_options options{64, 16};
        std::vector<std::uint32_t> tags;
        if (c == 0) {
          for (const auto& x : model_sort(keys, log_ways, mms::tagged_order<std::uint32_t, std::uint32_t, decltype(always)>{always}, options))
            tags.push_back(x.tag);
        } else {
          for (const auto& x : model_sort(keys, log_ways, mms::tagged_order<std::uint32_t, std::uint32_t, decltype(alternating)>{alternating}, options))
            tags.push_back(x.tag);
        }
        std::sort(tags.begin(), tags.end());
        for (size_type i = 0; i < n; ++i) ASSERT_EQ(tags[i], i) << "comparator " << c << ", n = " << n << ", K = " << (1 << log_ways);
      }
    }
}

}  // namespace
