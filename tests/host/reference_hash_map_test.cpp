// Host tests of sluice/reference/hash_map.hpp (Ashkiani §5.1 slab-list semantics): duplicates in insertion
// order, REPLACE on the least-recent instance, DELETE of the least recent, DELETEALL, missing keys, no
// resurrection after delete and re-insert, and random operation sequences against a naive list model.
#include <sluice/reference/hash_map.hpp>

#include "support/compare.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <random>
#include <utility>
#include <vector>

namespace {

namespace ref = sluice::reference;
using sluice::testing::all_equal;
using values = std::vector<std::uint32_t>;

TEST(ReferenceHashMap, EmptyMap) {
  ref::multi_hash_map<std::uint32_t, std::uint32_t> h;
  EXPECT_EQ(h.size(), 0u);
  EXPECT_EQ(h.search(1), std::nullopt);
  EXPECT_TRUE(h.search_all(1).empty());
  EXPECT_FALSE(h.erase(1));
  EXPECT_EQ(h.erase_all(1), 0u);
  EXPECT_EQ(h.count(1), 0u);
}

TEST(ReferenceHashMap, DuplicatesKeepInsertionOrder) {
  ref::multi_hash_map<std::uint32_t, std::uint32_t> h;
  h.insert(7, 1);
  h.insert(8, 100);
  h.insert(7, 2);
  h.insert(7, 3);
  EXPECT_EQ(h.size(), 4u);
  EXPECT_EQ(h.count(7), 3u);
  EXPECT_EQ(h.search(7), 1u);  // least recent
  EXPECT_TRUE(all_equal(h.search_all(7), values{1, 2, 3}));

  EXPECT_TRUE(h.erase(7));  // removes the least recent
  EXPECT_TRUE(all_equal(h.search_all(7), values{2, 3}));
  EXPECT_EQ(h.search(7), 2u);

  h.replace(7, 20);  // replaces the least-recent instance
  EXPECT_TRUE(all_equal(h.search_all(7), values{20, 3}));
  EXPECT_EQ(h.size(), 3u);

  EXPECT_EQ(h.erase_all(7), 2u);
  EXPECT_EQ(h.search(7), std::nullopt);
  EXPECT_EQ(h.size(), 1u);
  EXPECT_EQ(h.search(8), 100u);
}

TEST(ReferenceHashMap, ReplaceIsAUniqueKeyUpsert) {
  ref::multi_hash_map<std::uint32_t, std::uint32_t> h;
  h.replace(5, 1);
  h.replace(5, 2);
  h.replace(5, 3);
  EXPECT_EQ(h.count(5), 1u);
  EXPECT_EQ(h.search(5), 3u);
  EXPECT_EQ(h.size(), 1u);
  // Delete then re-insert: the old value does not come back.
  EXPECT_TRUE(h.erase(5));
  EXPECT_FALSE(h.erase(5));
  EXPECT_EQ(h.search(5), std::nullopt);
  h.replace(5, 9);
  EXPECT_TRUE(all_equal(h.search_all(5), values{9}));
}

TEST(ReferenceHashMap, RandomOperationsAgainstANaiveListModel) {
  // The model: one list of (key, value) in insertion order, searched from the front (least recent).
  std::mt19937_64 rng(23);
  ref::multi_hash_map<std::uint32_t, std::uint32_t> h;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> model;
  auto first_of = [&](std::uint32_t k) {
    return std::find_if(model.begin(), model.end(), [k](const auto& p) { return p.first == k; });
  };
  for (int step = 0; step < 20000; ++step) {
    const auto k = static_cast<std::uint32_t>(rng() % 64);
    const auto v = static_cast<std::uint32_t>(rng());
    switch (rng() % 6) {
      case 0:
      case 1:
        h.insert(k, v);
        model.emplace_back(k, v);
        break;
      case 2: {
        h.replace(k, v);
        const auto it = first_of(k);
        if (it == model.end()) model.emplace_back(k, v);
        else it->second = v;
        break;
      }
      case 3: {
        const auto it = first_of(k);
        ASSERT_EQ(h.erase(k), it != model.end());
        if (it != model.end()) model.erase(it);
        break;
      }
      case 4: {
        const auto before = model.size();
        std::erase_if(model, [k](const auto& p) { return p.first == k; });
        ASSERT_EQ(h.erase_all(k), before - model.size());
        break;
      }
      default: {
        const auto it = first_of(k);
        ASSERT_EQ(h.search(k), it == model.end() ? std::nullopt : std::optional<std::uint32_t>(it->second));
        values all;
        for (const auto& p : model)
          if (p.first == k) all.push_back(p.second);
        ASSERT_TRUE(all_equal(h.search_all(k), all)) << "step " << step;
        ASSERT_EQ(h.count(k), all.size());
      }
    }
    ASSERT_EQ(h.size(), model.size()) << "step " << step;
  }
}

}  // namespace
