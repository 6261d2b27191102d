// Host tests of sluice/reference/ordered_map.hpp (Ashkiani §4.1 batch rules): deletes win within a batch,
// duplicate inserts in one batch (the last is kept, all are acceptable), later batches override, queries on
// an empty map, count/range bounds, successor/predecessor, and random batches against replaying the whole
// history key by key.
#include <sluice/reference/ordered_map.hpp>

#include "support/compare.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <utility>
#include <vector>

namespace {

namespace ref = sluice::reference;
using sluice::testing::all_equal;
using map = ref::lsm_map<std::uint32_t, std::uint32_t>;
using update = map::update;
using kv = std::pair<std::uint32_t, std::uint32_t>;

update ins(std::uint32_t k, std::uint32_t v) { return {k, v, false}; }
update del(std::uint32_t k) { return {k, 0, true}; }

void apply(map& m, std::vector<update> batch) { m.apply_batch(batch); }

TEST(ReferenceOrderedMap, EmptyMap) {
  const map m;
  EXPECT_EQ(m.size(), 0u);
  EXPECT_EQ(m.lookup(1), std::nullopt);
  EXPECT_TRUE(m.acceptable_values(1).empty());
  EXPECT_EQ(m.count(0, 0xFFFFFFFFu), 0u);
  EXPECT_TRUE(m.range(0, 0xFFFFFFFFu).empty());
  EXPECT_EQ(m.successor(0), std::nullopt);
  EXPECT_EQ(m.predecessor(0xFFFFFFFFu), std::nullopt);
}

TEST(ReferenceOrderedMap, BatchRules) {
  map m;
  apply(m, {ins(5, 50), ins(7, 70), ins(9, 90), del(3)});  // deleting a missing key is harmless
  EXPECT_EQ(m.size(), 3u);
  EXPECT_EQ(m.lookup(7), 70u);
  EXPECT_EQ(m.lookup(3), std::nullopt);

  // Insert and delete of one key in one batch ⇒ deleted, whatever the order inside the batch.
  apply(m, {ins(7, 71), del(7), del(9), ins(9, 91), ins(11, 110)});
  EXPECT_EQ(m.lookup(7), std::nullopt);
  EXPECT_EQ(m.lookup(9), std::nullopt);
  EXPECT_EQ(m.lookup(11), 110u);
  EXPECT_EQ(m.size(), 2u);

  // Several inserts of one key in one batch: any may win; the oracle keeps the last and lists all.
  apply(m, {ins(5, 51), ins(5, 52), ins(5, 53)});
  EXPECT_EQ(m.lookup(5), 53u);
  EXPECT_TRUE(all_equal(m.acceptable_values(5), std::vector<std::uint32_t>{51, 52, 53}));
  // A key set by an older batch has exactly one acceptable value.
  EXPECT_TRUE(all_equal(m.acceptable_values(11), std::vector<std::uint32_t>{110}));

  // A later batch overrides, and its acceptable values replace the old ones.
  apply(m, {ins(5, 54)});
  EXPECT_EQ(m.lookup(5), 54u);
  EXPECT_TRUE(all_equal(m.acceptable_values(5), std::vector<std::uint32_t>{54}));

  // Delete, then re-insert in a later batch: visible again. Several deletes act as one.
  apply(m, {del(5), del(5)});
  EXPECT_EQ(m.lookup(5), std::nullopt);
  apply(m, {ins(5, 55)});
  EXPECT_EQ(m.lookup(5), 55u);

  // An empty batch changes nothing.
  apply(m, {});
  EXPECT_EQ(m.size(), 2u);
  // Values 0 and 0xFFFFFFFF are ordinary values.
  apply(m, {ins(0, 0), ins(0xFFFFFFFFu, 0xFFFFFFFFu)});
  EXPECT_EQ(m.lookup(0), 0u);
  EXPECT_EQ(m.lookup(0xFFFFFFFFu), 0xFFFFFFFFu);
}

TEST(ReferenceOrderedMap, CountRangeSuccessorPredecessor) {
  map m;
  apply(m, {ins(10, 1), ins(20, 2), ins(30, 3), ins(40, 4)});
  EXPECT_EQ(m.count(10, 40), 4u);
  EXPECT_EQ(m.count(11, 39), 2u);
  EXPECT_EQ(m.count(20, 20), 1u);
  EXPECT_EQ(m.count(21, 21), 0u);
  EXPECT_EQ(m.count(40, 10), 0u);  // k1 > k2
  EXPECT_TRUE(m.range(40, 10).empty());
  EXPECT_EQ(m.range(15, 35), (std::vector<kv>{{20, 2}, {30, 3}}));
  EXPECT_EQ(m.range(0, 0xFFFFFFFFu), (std::vector<kv>{{10, 1}, {20, 2}, {30, 3}, {40, 4}}));
  EXPECT_EQ(m.successor(20), (std::optional<kv>{{20, 2}}));
  EXPECT_EQ(m.successor(21), (std::optional<kv>{{30, 3}}));
  EXPECT_EQ(m.successor(41), std::nullopt);
  EXPECT_EQ(m.predecessor(20), (std::optional<kv>{{20, 2}}));
  EXPECT_EQ(m.predecessor(19), (std::optional<kv>{{10, 1}}));
  EXPECT_EQ(m.predecessor(9), std::nullopt);
  apply(m, {del(20), ins(30, 33)});
  EXPECT_EQ(m.range(0, 100), (std::vector<kv>{{10, 1}, {30, 33}, {40, 4}}));
  EXPECT_EQ(m.successor(15), (std::optional<kv>{{30, 33}}));
  EXPECT_EQ(m.predecessor(29), (std::optional<kv>{{10, 1}}));
}

/// The state of key k after all batches, found by replaying the history of k alone.
struct replayed {
  std::optional<std::uint32_t> value;
  std::vector<std::uint32_t> acceptable;
};
replayed replay(const std::vector<std::vector<update>>& history, std::uint32_t k) {
  replayed state;
  for (const auto& batch : history) {
    bool deleted = false;
    std::vector<std::uint32_t> inserted;
    for (const update& u : batch)
      if (u.key == k) {
        if (u.is_delete) deleted = true;
        else inserted.push_back(u.value);
      }
    if (deleted) state = {};
    else if (!inserted.empty()) state = {inserted.back(), inserted};
  }
  return state;
}

TEST(ReferenceOrderedMap, RandomBatchesAgainstReplayingHistory) {
  std::mt19937_64 rng(22);
  const std::uint32_t key_space = 500;
  map m;
  std::vector<std::vector<update>> history;
  for (int round = 0; round < 60; ++round) {
    std::vector<update> batch(rng() % 64);
    for (auto& u : batch) u = {static_cast<std::uint32_t>(rng() % key_space), static_cast<std::uint32_t>(rng()),
                               rng() % 4 == 0};
    m.apply_batch(batch);
    history.push_back(batch);

    std::vector<kv> present;
    for (std::uint32_t k = 0; k < key_space; ++k) {
      const replayed expected = replay(history, k);
      ASSERT_EQ(m.lookup(k), expected.value) << "round " << round << ", key " << k;
      ASSERT_TRUE(all_equal(m.acceptable_values(k), expected.acceptable)) << "key " << k;
      if (expected.value) present.emplace_back(k, *expected.value);
    }
    ASSERT_EQ(m.size(), present.size());
    for (int q = 0; q < 20; ++q) {
      const auto k1 = static_cast<std::uint32_t>(rng() % (key_space + 10));
      const auto k2 = static_cast<std::uint32_t>(rng() % (key_space + 10));
      std::vector<kv> in_range;
      for (const kv& p : present)
        if (k1 <= p.first && p.first <= k2) in_range.push_back(p);
      ASSERT_EQ(m.range(k1, k2), in_range) << k1 << ".." << k2;
      ASSERT_EQ(m.count(k1, k2), in_range.size());
      std::optional<kv> succ, pred;
      for (const kv& p : present) {
        if (p.first >= k1 && !succ) succ = p;
        if (p.first <= k1) pred = p;
      }
      ASSERT_EQ(m.successor(k1), succ) << k1;
      ASSERT_EQ(m.predecessor(k1), pred) << k1;
    }
  }
}

}  // namespace
