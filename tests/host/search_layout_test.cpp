// Host tests of sluice/detail/search/layouts.hpp, the index arithmetic the search kernels run: for every
// n = 0..5000 and B ∈ {1 (eytzinger), 2, 3, 5, 7, 8, 16, 32, 33} the slot ranks are a bijection onto the
// in-order traversal of the complete (B+1)-ary tree (walked recursively here, independently of the
// formula); the layout built from them and searched by the same cursor the kernels use equals
// reference::lower_bound_batch / upper_bound_batch / predecessor on random, duplicate-heavy and
// max-value keys; and the plain binary search (sorted layout) does too.
#include <sluice/detail/search/layouts.hpp>
#include <sluice/reference/search.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <span>
#include <vector>

namespace {

namespace search = sluice::detail::search;
using search::index_t;

const index_t keys_per_node[] = {1, 2, 3, 5, 7, 8, 16, 32, 33};

/// The slots of the complete tree in in-order, by recursion over the level-order child links.
void in_order(const search::tree_shape& t, index_t node, std::vector<index_t>& slots) {
  if (node >= t.nodes) return;
  for (index_t c = 0; c <= t.keys_per_node; ++c) {
    in_order(t, search::child(t, node, c), slots);
    if (c < t.keys_per_node) slots.push_back(node * t.keys_per_node + c);
  }
}

TEST(SearchLayout, SlotRanksAreTheInOrderTraversalForEveryN) {
  for (index_t b : keys_per_node) {
    for (index_t n = 0; n <= 5000; ++n) {
      const auto t = search::make_tree_shape(n, b);
      ASSERT_EQ(t.nodes, (n + b - 1) / b);
      std::vector<index_t> slots;
      in_order(t, 0, slots);
      ASSERT_EQ(slots.size(), t.slots()) << "n = " << n << ", B = " << b;
      for (index_t r = 0; r < slots.size(); ++r)
        ASSERT_EQ(search::layout_slot_rank(t, slots[r]), r) << "n = " << n << ", B = " << b << ", slot " << slots[r];
    }
  }
}

TEST(SearchLayout, ShapeHasFullLevelsAboveTheLast) {
  for (index_t b : keys_per_node) {
    for (index_t n = 1; n <= 5000; ++n) {
      const auto t = search::make_tree_shape(n, b);
      index_t above = 0, width = 1;
      for (index_t d = 0; d < t.last_depth; ++d, width *= t.fan_out()) above += width;
      ASSERT_GE(t.last_level_nodes, 1u);
      ASSERT_LE(t.last_level_nodes, width);
      ASSERT_EQ(above + t.last_level_nodes, t.nodes);
    }
  }
}

template <class K>
std::vector<K> build_layout(const std::vector<K>& sorted, const search::tree_shape& t) {
  std::vector<K> layout(t.slots());
  for (index_t p = 0; p < layout.size(); ++p) layout[p] = sorted[search::layout_source(t, p)];
  return layout;
}

/// The three searches on a layout by the kernels' cursor, against the oracles.
template <class K>
void check_layout(const std::vector<K>& sorted, const std::vector<K>& queries, index_t b, const char* what) {
  const auto t = search::make_tree_shape(sorted.size(), b);
  const auto layout = build_layout(sorted, t);
  const std::span<const K> keys(sorted), qs(queries);
  const auto lower = sluice::reference::lower_bound_batch(keys, qs);
  const auto upper = sluice::reference::upper_bound_batch(keys, qs);
  const auto pred = sluice::reference::predecessor(keys, qs);
  for (std::size_t i = 0; i < queries.size(); ++i) {
    const K q = queries[i];
    auto count_where = [&](auto holds) {
      return search::tree_count(t, [&](index_t node) {
        index_t c = 0;
        for (index_t s = 0; s < b; ++s) c += holds(layout[node * b + s]) ? 1 : 0;
        return c;
      });
    };
    const index_t lo = count_where([&](const K& k) { return k < q; });
    const index_t up = count_where([&](const K& k) { return !(q < k); });
    ASSERT_EQ(lo, lower[i]) << what << ": lower_bound, n = " << sorted.size() << ", B = " << b << ", q = " << q;
    ASSERT_EQ(up, upper[i]) << what << ": upper_bound, n = " << sorted.size() << ", B = " << b << ", q = " << q;
    ASSERT_EQ(static_cast<std::int64_t>(up) - 1, pred[i]) << what << ": predecessor, n = " << sorted.size();
    const index_t flat = search::sorted_count(sorted.size(), [&](index_t j) { return sorted[j] < q; });
    ASSERT_EQ(flat, lower[i]) << what << ": sorted layout, n = " << sorted.size();
  }
}

/// Queries: every key, each key ± 1, below the minimum, the type's extremes, and random values.
std::vector<std::uint32_t> queries_for(const std::vector<std::uint32_t>& keys, std::mt19937& random, std::size_t limit) {
  std::vector<std::uint32_t> q = {0u, 1u, std::numeric_limits<std::uint32_t>::max(),
                                  std::numeric_limits<std::uint32_t>::max() - 1};
  const std::size_t step = keys.size() / limit + 1;
  for (std::size_t i = 0; i < keys.size(); i += step) q.insert(q.end(), {keys[i], keys[i] - 1, keys[i] + 1});
  for (int i = 0; i < 16; ++i) q.push_back(static_cast<std::uint32_t>(random()));
  return q;
}

std::vector<std::uint32_t> sorted_random(std::mt19937& random, std::size_t n, std::uint32_t range, bool max_tail) {
  std::uniform_int_distribution<std::uint32_t> pick(0, range);
  std::vector<std::uint32_t> keys(n);
  for (auto& k : keys) k = pick(random);
  if (max_tail)  // keys equal to the type's maximum, the value a sentinel scheme would reserve
    for (std::size_t i = 0; i < n / 3; ++i) keys[i] = std::numeric_limits<std::uint32_t>::max();
  std::sort(keys.begin(), keys.end());
  return keys;
}

TEST(SearchLayout, SearchesEqualTheOracleForEveryN) {
  std::mt19937 random(25);
  for (std::size_t n = 0; n <= 5000; n += (n < 300 ? 1 : 7)) {
    const auto wide = sorted_random(random, n, std::numeric_limits<std::uint32_t>::max(), false);
    const auto duplicates = sorted_random(random, n, static_cast<std::uint32_t>(n / 4 + 1), false);
    const auto max_valued = sorted_random(random, n, 1000, true);
    const std::size_t limit = n < 300 ? n + 1 : 48;
    for (index_t b : keys_per_node) {
      check_layout(wide, queries_for(wide, random, limit), b, "random");
      check_layout(duplicates, queries_for(duplicates, random, limit), b, "duplicates");
      check_layout(max_valued, queries_for(max_valued, random, limit), b, "max-valued");
    }
  }
}

TEST(SearchLayout, AllEqualKeysAndFloatSignedZeros) {
  for (index_t b : keys_per_node) {
    for (std::size_t n : {1u, 2u, 31u, 32u, 33u, 1025u}) {
      check_layout(std::vector<std::uint32_t>(n, 7u), std::vector<std::uint32_t>{0u, 6u, 7u, 8u}, b, "all equal");
      std::vector<float> keys(n, 0.0f);
      for (std::size_t i = 0; i < n / 2; ++i) keys[i] = -0.0f;
      keys.back() = 1.5f;
      check_layout(keys, std::vector<float>{-0.0f, 0.0f, -1.0f, 1.5f, 2.0f}, b, "signed zeros");
    }
  }
}

TEST(SearchLayout, LargeShapesKeepRanksInRange) {
  // 2^31 + 5 keys: the ranks of the first and last slots of every level, and of the padding.
  for (index_t b : {index_t{1}, index_t{16}, index_t{32}}) {
    const index_t n = (index_t{1} << 31) + 5;
    const auto t = search::make_tree_shape(n, b);
    index_t first = 0, width = 1;
    for (index_t d = 0; d <= t.last_depth; ++d) {
      const index_t present = d == t.last_depth ? t.last_level_nodes : width;
      for (index_t node : {first, first + present - 1})
        for (index_t s : {index_t{0}, b - 1}) EXPECT_LT(search::layout_slot_rank(t, node * b + s), t.slots());
      first += width;
      width *= t.fan_out();
    }
    // The leftmost slot of the deepest level is the smallest key; the root's last key sits right of
    // everything in its first B subtrees.
    EXPECT_EQ(search::slot_rank(t, t.last_depth, 0, 0), 0u);
  }
}

}  // namespace
