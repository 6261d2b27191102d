// Host tests of the GPU LSM's oracle (reference/lsm.hpp) and of the GPU algorithm's design, run on the
// host: a sequential shadow of containers/lsm.cuh built from detail/lsm/plan.hpp exactly as the
// container uses it (batch split into units and the partial buffer P, each slice reversed then stably
// sorted so that a key's last operation in the batch comes first, newer-first merges down the carry,
// lookup over P and the full levels newest first, count/range by the five steps with the candidate
// layout and the validation rule, successor/predecessor by candidate-then-lookup, cleanup by merge-all,
// mark and redistribute, bulk build by one sort and redistribution). The shadow answers every query like
// the std::map model after random histories of mixed batches of every size, with cleanups between
// them, for several b: that is the proof, on the host, that the level plan and the ordering rules give
// the documented semantics (docs/lsm.md).
#include <sluice/detail/lsm/plan.hpp>
#include <sluice/reference/lsm.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace {

namespace lp = sluice::detail::lsm;
using K = std::uint32_t;
using V = std::uint32_t;
using model = sluice::reference::lsm_model<K, V>;
using op = model::operation;

// ---- the oracle itself ----------------------------------------------------------------------------------

TEST(LsmModel, ABatchIsAppliedInItsOwnOrder) {
  model m;
  const std::vector<op> batch{{5, 50}, {5, 0, true}, {6, 0, true}, {6, 60}, {7, 70}, {7, 71}, {8, 0, true}};
  m.apply(batch);
  EXPECT_EQ(m.lookup(5), std::nullopt);          // insert then erase: deleted
  EXPECT_EQ(m.lookup(6), std::optional<V>(60));  // erase then insert: present
  EXPECT_EQ(m.lookup(7), std::optional<V>(71));  // the last insert's value
  EXPECT_EQ(m.lookup(8), std::nullopt);          // erase of an absent key: nothing
  EXPECT_EQ(m.size(), 2u);
  const std::vector<op> later{{6, 61}};
  m.apply(later);
  EXPECT_EQ(m.lookup(6), std::optional<V>(61));  // a later batch replaces
}

TEST(LsmModel, QueriesAtTheDomainEnds) {
  model m;
  const K top = std::numeric_limits<K>::max();
  const std::vector<op> batch{{0, 1}, {top, 2}, {100, 3}};
  m.apply(batch);
  EXPECT_EQ(m.count(0, top), 3u);
  EXPECT_EQ(m.count(top, 0), 0u);  // k1 > k2: empty
  EXPECT_EQ(m.count(1, 99), 0u);
  EXPECT_EQ(m.range(0, 100).size(), 2u);
  EXPECT_EQ(m.successor(top)->first, top);
  EXPECT_EQ(m.successor(101)->first, top);
  EXPECT_EQ(m.predecessor(0)->first, 0u);
  EXPECT_EQ(m.predecessor(99)->first, 0u);
  const std::vector<op> erase_ends{{0, 0, true}, {top, 0, true}};
  m.apply(erase_ends);
  EXPECT_EQ(m.successor(101), std::nullopt);
  EXPECT_EQ(m.predecessor(99), std::nullopt);
  const std::vector<std::pair<K, V>> pairs{{4, 1}, {4, 2}, {3, 3}};
  m.bulk_build(pairs);
  EXPECT_EQ(m.size(), 2u);
  EXPECT_EQ(m.lookup(4), std::optional<V>(2));
}

// ---- the shadow of the GPU algorithm -------------------------------------------------------------------------

struct element {
  K key;
  std::uint32_t status;
  V value;
};
using run = std::vector<element>;

bool by_key(const element& x, const element& y) { return x.key < y.key; }

/// A slice of a batch as the staging kernel writes it (reversed), stably sorted by key (the radix sort):
/// a key's copies end up last-operation first.
run sorted_slice(const std::vector<op>& batch, lp::slice s) {
  run out;
  for (std::uint64_t i = s.first + s.count; i-- > s.first;)
    out.push_back({batch[i].key, batch[i].erase ? lp::tombstone : lp::regular, batch[i].value});
  std::stable_sort(out.begin(), out.end(), by_key);
  return out;
}

/// The project's merge: stable, ties from the first (newer) input first.
run merge_newer_first(const run& newer, const run& older) {
  run out(newer.size() + older.size());
  std::merge(newer.begin(), newer.end(), older.begin(), older.end(), out.begin(), by_key);
  return out;
}

class shadow_lsm {
 public:
  shadow_lsm(std::uint64_t b, std::uint64_t capacity) : b_(b), levels_(lp::levels_for(capacity, b)), level_(levels_) {}

  /// false (and nothing changed) when the batch does not fit.
  bool apply(const std::vector<op>& batch) {
    const lp::batch_split split{b_, p_.size(), batch.size()};
    if (!lp::units_fit(r_, split.units(), levels_)) return false;
    for (std::uint64_t u = 0; u < split.units(); ++u) {
      run unit = sorted_slice(batch, split.unit(u));
      if (u == 0 && !p_.empty()) unit = merge_newer_first(unit, p_);
      carry(std::move(unit));
    }
    const run tail = sorted_slice(batch, split.tail());
    p_ = split.tail_joins_p() ? merge_newer_first(tail, p_) : tail;
    EXPECT_EQ(p_.size(), split.new_p());
    return true;
  }

  void bulk_build(const std::vector<std::pair<K, V>>& pairs) {
    std::vector<op> batch;
    for (const auto& [k, v] : pairs) batch.push_back({k, v});
    redistribute(sorted_slice(batch, {0, batch.size()}));
  }

  void cleanup() {
    const run all = merged_runs();
    run live;
    for (std::size_t i = 0; i < all.size(); ++i)
      if (lp::live_candidate(i == 0, i > 0 && all[i - 1].key == all[i].key, all[i].status)) live.push_back(all[i]);
    redistribute(live);
  }

  [[nodiscard]] std::optional<V> lookup(K k) const {
    for (const run* x : runs()) {
      const auto it = std::lower_bound(x->begin(), x->end(), k, [](const element& e, K q) { return e.key < q; });
      if (it != x->end() && it->key == k) return it->status == lp::regular ? std::optional<V>(it->value) : std::nullopt;
    }
    return std::nullopt;
  }

  /// The five steps of §4.4.3–4.4.4 for a batch of (k1, k2) queries: per-query live pairs, in key order.
  [[nodiscard]] std::vector<std::vector<std::pair<K, V>>> range(const std::vector<std::pair<K, K>>& queries) const {
    const auto rs = runs();
    const std::uint64_t m = rs.size();
    std::vector<std::uint64_t> sizes(queries.size() * m), lower(queries.size() * m);
    for (std::size_t q = 0; q < queries.size(); ++q)
      for (std::uint64_t j = 0; j < m; ++j) {
        const run& x = *rs[j];
        const auto lo = std::lower_bound(x.begin(), x.end(), queries[q].first, [](const element& e, K v) { return e.key < v; });
        const auto hi = std::upper_bound(x.begin(), x.end(), queries[q].second, [](K v, const element& e) { return v < e.key; });
        const std::uint64_t slot = lp::candidate_slot(q, m, j);
        lower[slot] = static_cast<std::uint64_t>(lo - x.begin());
        sizes[slot] = lp::candidate_count(queries[q].second < queries[q].first, lower[slot], static_cast<std::uint64_t>(hi - x.begin()));
      }
    std::vector<std::vector<std::pair<K, V>>> out(queries.size());
    for (std::size_t q = 0; q < queries.size(); ++q) {
      run candidates;  // steps 2–3: the scan places every (query, run) slice in slot order
      for (std::uint64_t j = 0; j < m; ++j) {
        const std::uint64_t slot = lp::candidate_slot(q, m, j);
        for (std::uint64_t t = 0; t < sizes[slot]; ++t) candidates.push_back((*rs[j])[lower[slot] + t]);
      }
      std::stable_sort(candidates.begin(), candidates.end(), by_key);  // step 4
      for (std::size_t t = 0; t < candidates.size(); ++t)             // step 5
        if (lp::live_candidate(t == 0, t > 0 && candidates[t - 1].key == candidates[t].key, candidates[t].status))
          out[q].emplace_back(candidates[t].key, candidates[t].value);
    }
    return out;
  }

  /// COUNT as the container reads it: step 1's bounds, then each candidate judged where it lies.
  [[nodiscard]] std::uint64_t count(K k1, K k2) const {
    if (k2 < k1) return 0;
    const auto rs = runs();
    std::vector<std::pair<std::size_t, std::size_t>> bounds;
    for (const run* x : rs) {
      const auto lo = std::lower_bound(x->begin(), x->end(), k1, [](const element& e, K v) { return e.key < v; });
      const auto hi = std::upper_bound(x->begin(), x->end(), k2, [](K v, const element& e) { return v < e.key; });
      bounds.emplace_back(static_cast<std::size_t>(lo - x->begin()), static_cast<std::size_t>(hi - x->begin()));
    }
    std::uint64_t live = 0;
    for (std::size_t j = 0; j < rs.size(); ++j)
      for (std::size_t i = bounds[j].first; i < bounds[j].second; ++i) {
        const element& e = (*rs[j])[i];
        bool in_newer = false;
        for (std::size_t n = 0; n < j; ++n) {
          const auto first = rs[n]->begin() + static_cast<std::ptrdiff_t>(bounds[n].first);
          const auto last = rs[n]->begin() + static_cast<std::ptrdiff_t>(bounds[n].second);
          in_newer = in_newer || std::binary_search(first, last, e, by_key);
        }
        live += lp::live_in_place(in_newer, i > bounds[j].first && (*rs[j])[i - 1].key == e.key, e.status) ? 1 : 0;
      }
    return live;
  }

  /// Candidate (smallest key ≥ x over the runs), then a lookup; a dead candidate moves x past it.
  [[nodiscard]] std::optional<std::pair<K, V>> successor(K x) const {
    for (;;) {
      std::optional<K> best;
      for (const run* r : runs()) {
        const auto it = std::lower_bound(r->begin(), r->end(), x, [](const element& e, K q) { return e.key < q; });
        if (it != r->end() && (!best || it->key < *best)) best = it->key;
      }
      if (!best) return std::nullopt;
      if (const auto v = lookup(*best)) return std::pair<K, V>(*best, *v);
      if (*best == std::numeric_limits<K>::max()) return std::nullopt;
      x = *best + 1;
    }
  }
  [[nodiscard]] std::optional<std::pair<K, V>> predecessor(K x) const {
    for (;;) {
      std::optional<K> best;
      for (const run* r : runs()) {
        const auto it = std::upper_bound(r->begin(), r->end(), x, [](K q, const element& e) { return q < e.key; });
        if (it != r->begin() && (!best || std::prev(it)->key > *best)) best = std::prev(it)->key;
      }
      if (!best) return std::nullopt;
      if (const auto v = lookup(*best)) return std::pair<K, V>(*best, *v);
      if (*best == 0) return std::nullopt;
      x = *best - 1;
    }
  }

  [[nodiscard]] std::uint64_t resident() const { return r_ * b_ + p_.size(); }
  [[nodiscard]] std::uint64_t units() const { return r_; }

 private:
  /// A carry into ffz(r): newer-first merges with levels 0 … k−1 (§4.4.1), then r + 1.
  void carry(run unit) {
    const int k = lp::first_empty_level(r_);
    EXPECT_EQ(lp::unit_goes_to_level0(r_), k == 0);
    for (int i = 0; i < k; ++i) {
      unit = merge_newer_first(unit, level_[i]);
      level_[i].clear();
    }
    EXPECT_EQ(unit.size(), lp::level_size(b_, k));
    level_[k] = std::move(unit);
    ++r_;
  }

  [[nodiscard]] std::vector<const run*> runs() const {
    std::vector<const run*> out;
    if (!p_.empty()) out.push_back(&p_);
    for (int i = 0; i < levels_; ++i)
      if (lp::level_full(r_, i)) out.push_back(&level_[i]);
    return out;
  }

  [[nodiscard]] run merged_runs() const {
    run all;
    for (const run* x : runs()) all = merge_newer_first(all, *x);
    return all;
  }

  void redistribute(const run& sorted) {
    const std::uint64_t n = sorted.size();
    ASSERT_LE(n, lp::max_elements(b_, levels_));
    const lp::slice p = lp::redistributed_p(n, b_);
    p_.assign(sorted.begin() + p.first, sorted.begin() + p.first + p.count);
    for (int i = 0; i < levels_; ++i) {
      const lp::slice s = lp::redistributed_level(n, b_, i);
      level_[i].assign(sorted.begin() + s.first, sorted.begin() + s.first + s.count);
    }
    r_ = n / b_;
  }

  std::uint64_t b_;
  int levels_;
  std::uint64_t r_ = 0;
  run p_;
  std::vector<run> level_;
};

/// Every query kind on the shadow equals the model: lookups of every key in [0, domain], count/range
/// over random, empty, reversed and whole-domain ranges, successor/predecessor of every key.
void expect_same(const shadow_lsm& gpu, const model& m, K domain, const std::string& what) {
  for (K k = 0; k <= domain; ++k) {
    ASSERT_EQ(gpu.lookup(k), m.lookup(k)) << what << ": lookup " << k;
    ASSERT_EQ(gpu.successor(k), m.successor(k)) << what << ": successor " << k;
    ASSERT_EQ(gpu.predecessor(k), m.predecessor(k)) << what << ": predecessor " << k;
  }
  ASSERT_EQ(gpu.successor(std::numeric_limits<K>::max()), m.successor(std::numeric_limits<K>::max())) << what;
  std::vector<std::pair<K, K>> queries{{0, domain}, {0, std::numeric_limits<K>::max()}, {domain, 0}, {3, 3}, {domain + 1, domain + 5}};
  for (K k1 = 0; k1 <= domain; k1 += 3) queries.emplace_back(k1, k1 + domain / 4);
  const auto answers = gpu.range(queries);
  for (std::size_t q = 0; q < queries.size(); ++q) {
    ASSERT_EQ(answers[q], m.range(queries[q].first, queries[q].second))
        << what << ": range [" << queries[q].first << ", " << queries[q].second << "]";
    ASSERT_EQ(answers[q].size(), m.count(queries[q].first, queries[q].second)) << what;
    ASSERT_EQ(gpu.count(queries[q].first, queries[q].second), m.count(queries[q].first, queries[q].second))
        << what << ": count [" << queries[q].first << ", " << queries[q].second << "]";
  }
}

/// A random batch of `size` operations on keys in [0, domain]: inserts and erases mixed, the same key
/// several times.
std::vector<op> random_batch(std::mt19937& rng, std::size_t size, K domain, double erase_share) {
  std::uniform_int_distribution<K> key(0, domain);
  std::bernoulli_distribution erase(erase_share);
  std::vector<op> batch;
  for (std::size_t i = 0; i < size; ++i) batch.push_back({key(rng), static_cast<V>(rng()), erase(rng)});
  return batch;
}

TEST(LsmShadow, RandomHistoriesMatchTheModelBeforeAndAfterCleanup) {
  std::mt19937 rng(27);
  for (std::uint64_t b : {1u, 2u, 3u, 8u, 13u}) {
    for (K domain : {K{7}, K{60}}) {
      shadow_lsm gpu(b, 4000);
      model m;
      for (int step = 0; step < 120; ++step) {
        const std::size_t size = std::uniform_int_distribution<std::size_t>(0, 3 * b + 5)(rng);
        const auto batch = random_batch(rng, size, domain, step % 3 == 0 ? 0.5 : 0.2);
        ASSERT_TRUE(gpu.apply(batch));
        m.apply(batch);
        const std::string what = "b " + std::to_string(b) + ", domain " + std::to_string(domain) + ", step " +
                                 std::to_string(step) + ", r " + std::to_string(gpu.units());
        if (step % 7 == 0) expect_same(gpu, m, domain, what);
        if (step % 29 == 28) {
          gpu.cleanup();
          expect_same(gpu, m, domain, what + " after cleanup");
          ASSERT_EQ(gpu.resident(), m.size()) << what;  // nothing stale is left
        }
      }
      expect_same(gpu, m, domain, "b " + std::to_string(b) + " at the end");
    }
  }
}

TEST(LsmShadow, EdgeHistories) {
  const K top = std::numeric_limits<K>::max();
  shadow_lsm gpu(4, 1000);
  model m;
  auto apply = [&](const std::vector<op>& batch) {
    ASSERT_TRUE(gpu.apply(batch));
    m.apply(batch);
  };
  apply({{0, 1}, {top, 2}, {5, 3}, {5, 0, true}});                   // a whole unit, insert-then-erase
  apply({{5, 4}});                                                   // re-insert in the next batch (P)
  apply({{0, 0, true}, {0, 9}, {top, 0, true}, {9, 9}, {9, 10}});    // erase-then-insert; a unit + tail
  apply({{77, 0, true}, {78, 0, true}});                             // erases of absent keys
  apply({});                                                         // an empty batch
  expect_same(gpu, m, 80, "edge history");
  EXPECT_EQ(gpu.successor(top), m.successor(top));
  EXPECT_EQ(gpu.predecessor(top), m.predecessor(top));
  gpu.cleanup();
  expect_same(gpu, m, 80, "edge history after cleanup");
  gpu.cleanup();  // idempotent
  expect_same(gpu, m, 80, "edge history after two cleanups");
  for (int i = 0; i < 6; ++i) apply({{1, 1, true}, {2, 2, true}, {3, 3, true}, {4, 4, true}});  // tombstones only
  gpu.cleanup();
  expect_same(gpu, m, 80, "after tombstones only");
}

TEST(LsmShadow, UpToTwoToTheTenResidentUnitsAndCapacity) {
  shadow_lsm gpu(2, 2 * 1023);  // 10 levels: r up to 1023
  model m;
  std::mt19937 rng(5);
  for (int r = 1; r <= 1023; ++r) {
    const auto batch = random_batch(rng, 2, 300, 0.25);
    ASSERT_TRUE(gpu.apply(batch));
    m.apply(batch);
    ASSERT_EQ(gpu.units(), static_cast<std::uint64_t>(r));
    if ((r & (r + 1)) == 0) expect_same(gpu, m, 300, "r = " + std::to_string(r));  // every level full
  }
  const auto one_more = random_batch(rng, 2, 300, 0);
  EXPECT_FALSE(gpu.apply(one_more));  // a full structure refuses, unchanged
  EXPECT_TRUE(gpu.apply({{1, 1}}));   // P still takes b − 1
  m.apply(std::vector<op>{{1, 1}});
  expect_same(gpu, m, 300, "full");
}

TEST(LsmShadow, BulkBuildKeepsTheLastOfEqualKeys) {
  std::mt19937 rng(9);
  for (std::uint64_t b : {1u, 3u, 16u}) {
    for (std::size_t n : {0u, 1u, 5u, 47u, 200u}) {
      std::vector<std::pair<K, V>> pairs;
      for (std::size_t i = 0; i < n; ++i) pairs.emplace_back(static_cast<K>(rng() % 64), static_cast<V>(rng()));
      shadow_lsm gpu(b, 1000);
      model m;
      gpu.bulk_build(pairs);
      m.bulk_build(pairs);
      const std::string what = "bulk b " + std::to_string(b) + ", n " + std::to_string(n);
      expect_same(gpu, m, 64, what);
      const auto batch = random_batch(rng, 2 * b + 1, 64, 0.3);
      ASSERT_TRUE(gpu.apply(batch));
      m.apply(batch);
      expect_same(gpu, m, 64, what + " then a batch");
    }
  }
}

}  // namespace
