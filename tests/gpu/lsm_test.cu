// GPU tests of containers/lsm.cuh (Ashkiani ch. 4) against the std::map model (reference/lsm.hpp), batch
// by batch: random histories of mixed batches of every size (0 to 3b) over small key domains, so that
// keys are inserted, overwritten and erased again and again; the edge histories (insert-then-erase and
// erase-then-insert in one batch, the same key in consecutive batches, erases of absent keys, keys 0
// and the maximum); every query kind after each checked batch (lookup, contains, count and range over
// random, empty, reversed and whole-domain ranges, successor and predecessor of every key and of the
// domain's ends, size); cleanup after every kind of history (identical answers, nothing stale left,
// idempotent) and across many of cleanup's tiles (every tile boundary inside one key's copies); r from
// 1 to 2^10 resident batches and capacity exhaustion (refused, nothing changed);
// bulk build; the automatic cleanup policy; bad input (sizes, op codes, host memory, options, a
// moved-from lsm, empty batches and query batches); a query batch of 2^31 + 5 (*Large*).
// Keys u32 → u32 and u64 → u64. Every failure names the types, b, the step and the query; outputs are
// poisoned (two patterns) before each query.
#include <sluice/containers/lsm.cuh>
#include <sluice/reference/lsm.hpp>

#include "support/errors.hpp"
#include "support/gpu_test.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace {

using sluice::lsm_op;
using sluice::testing::gpu_test;

class Lsm : public gpu_test {};

template <class T>
sluice::device_buffer<T> to_device(sluice::context& ctx, const std::vector<T>& host) {
  return sluice::device_buffer<T>(ctx, std::span<const T>(host));
}
template <class T>
cuda::std::span<const T> in(const sluice::device_buffer<T>& buffer) {
  return buffer.span();
}

template <class K, class V>
std::string name_of(std::size_t b) {
  return std::string(sizeof(K) == 4 ? "u32" : "u64") + " → " + (sizeof(V) == 4 ? "u32" : "u64") + ", b " + std::to_string(b);
}

/// An lsm beside its model: every batch goes to both, and check() compares every query kind.
template <class K, class V>
struct pair_under_test {
  using model_type = sluice::reference::lsm_model<K, V>;
  using op = typename model_type::operation;

  sluice::context& ctx;
  sluice::lsm<K, V> gpu;
  model_type model;
  std::string name;

  pair_under_test(sluice::context& c, const sluice::lsm_options& options)
      : ctx(c), gpu(c, options), name(name_of<K, V>(options.batch_size)) {}

  void apply(const std::vector<op>& batch) {
    std::vector<K> keys;
    std::vector<V> values;
    std::vector<lsm_op> ops;
    for (const op& o : batch) {
      keys.push_back(o.key);
      values.push_back(o.value);
      ops.push_back(o.erase ? lsm_op::erase : lsm_op::insert);
    }
    const auto k = to_device(ctx, keys);
    const auto v = to_device(ctx, values);
    const auto o = to_device(ctx, ops);
    gpu.apply(ctx, in(o), in(k), in(v));
    model.apply(batch);
  }
  /// The pairs' keys and values in device memory.
  struct device_pairs {
    sluice::device_buffer<K> keys;
    sluice::device_buffer<V> values;
  };
  device_pairs to_device_pairs(const std::vector<std::pair<K, V>>& pairs) const {
    std::vector<K> keys;
    std::vector<V> values;
    for (const auto& [k, v] : pairs) {
      keys.push_back(k);
      values.push_back(v);
    }
    return {to_device(ctx, keys), to_device(ctx, values)};
  }
  void insert(const std::vector<std::pair<K, V>>& pairs) {
    std::vector<op> batch;
    for (const auto& [k, v] : pairs) batch.push_back({k, v, false});
    const device_pairs d = to_device_pairs(pairs);
    gpu.insert(ctx, in(d.keys), in(d.values));
    model.apply(batch);
  }
  void bulk_build(const std::vector<std::pair<K, V>>& pairs) {
    const device_pairs d = to_device_pairs(pairs);
    gpu.bulk_build(ctx, in(d.keys), in(d.values));
    model.bulk_build(pairs);
  }
  void erase(const std::vector<K>& keys) {
    std::vector<op> batch;
    for (K k : keys) batch.push_back({k, V{}, true});
    const auto dk = to_device(ctx, keys);
    gpu.erase(ctx, in(dk));
    model.apply(batch);
  }

  /// Every query kind answers as the model does, for `probe` keys and the ranges built from them.
  void check(const std::vector<K>& probe, const std::string& when) {
    const std::string what = name + ", " + when + " (r " + std::to_string(gpu.resident_batches()) + ", P " +
                             std::to_string(gpu.partial_size()) + ")";
    const std::size_t n = probe.size();
    const auto queries = to_device(ctx, probe);
    sluice::device_buffer<V> values(ctx, n);
    sluice::device_buffer<K> keys(ctx, n);
    sluice::device_buffer<std::uint8_t> flags(ctx, n);
    for (unsigned char poison : sluice::testing::poison_patterns) {
      values.fill_bytes(poison);
      flags.fill_bytes(poison);
      const V absent = static_cast<V>(0xABCD);
      gpu.lookup(ctx, in(queries), values.span(), absent);
      gpu.contains(ctx, in(queries), flags.span());
      const auto got = values.to_host();
      const auto present = flags.to_host();
      for (std::size_t i = 0; i < n; ++i) {
        const auto expected = model.lookup(probe[i]);
        ASSERT_EQ(got[i], expected ? *expected : absent) << what << ": lookup of " << probe[i];
        ASSERT_EQ(present[i], expected ? 1 : 0) << what << ": contains " << probe[i];
      }
      for (bool up : {true, false}) {
        keys.fill_bytes(poison);
        values.fill_bytes(poison);
        flags.fill_bytes(poison);
        if (up) gpu.successor(ctx, in(queries), keys.span(), values.span(), flags.span());
        else gpu.predecessor(ctx, in(queries), keys.span(), values.span(), flags.span());
        const auto k = keys.to_host();
        const auto v = values.to_host();
        const auto f = flags.to_host();
        for (std::size_t i = 0; i < n; ++i) {
          const auto expected = up ? model.successor(probe[i]) : model.predecessor(probe[i]);
          const char* kind = up ? ": successor of " : ": predecessor of ";
          ASSERT_EQ(f[i], expected ? 1 : 0) << what << kind << probe[i];
          ASSERT_EQ(k[i], expected ? expected->first : probe[i]) << what << kind << probe[i];
          ASSERT_EQ(v[i], expected ? expected->second : V{}) << what << kind << probe[i];
        }
      }
    }
    check_ranges(probe, what);
    ASSERT_EQ(gpu.size(ctx), model.size()) << what << ": size";
  }

  void check_ranges(const std::vector<K>& probe, const std::string& what) {
    constexpr K lowest = std::numeric_limits<K>::min(), highest = std::numeric_limits<K>::max();
    std::vector<K> k1{lowest, highest, lowest, highest}, k2{highest, lowest, lowest, highest};  // whole, reversed, ends
    for (std::size_t i = 0; i + 1 < probe.size(); i += 2) {
      k1.push_back(probe[i]);
      k2.push_back(probe[i + 1]);  // random order: some empty (k1 > k2), some single keys
    }
    const std::size_t q = k1.size();
    const auto d1 = to_device(ctx, k1);
    const auto d2 = to_device(ctx, k2);
    sluice::device_buffer<std::uint64_t> counts(ctx, q);
    for (unsigned char poison : sluice::testing::poison_patterns) {
      counts.fill_bytes(poison);
      gpu.count(ctx, in(d1), in(d2), counts.span());
      const auto c = counts.to_host();
      for (std::size_t i = 0; i < q; ++i)
        ASSERT_EQ(c[i], model.count(k1[i], k2[i])) << what << ": count [" << k1[i] << ", " << k2[i] << "]";
    }
    const auto result = gpu.range(ctx, in(d1), in(d2));
    const auto offsets = result.offsets.to_host();
    const auto keys = result.keys.to_host();
    const auto values = result.values.to_host();
    ASSERT_EQ(offsets.size(), q + 1) << what;
    ASSERT_EQ(offsets[0], 0u) << what;
    ASSERT_EQ(offsets[q], keys.size()) << what;
    for (std::size_t i = 0; i < q; ++i) {
      const auto expected = model.range(k1[i], k2[i]);
      ASSERT_EQ(offsets[i + 1] - offsets[i], expected.size()) << what << ": range [" << k1[i] << ", " << k2[i] << "]";
      for (std::size_t j = 0; j < expected.size(); ++j) {
        ASSERT_EQ(keys[offsets[i] + j], expected[j].first) << what << ": range [" << k1[i] << ", " << k2[i] << "] #" << j;
        ASSERT_EQ(values[offsets[i] + j], expected[j].second) << what << ": range [" << k1[i] << ", " << k2[i] << "] #" << j;
      }
    }
  }
};

/// Keys in [0, domain) and the two ends of the key type, in a fixed random order.
template <class K>
std::vector<K> probe_keys(K domain, std::mt19937_64& rng) {
  std::vector<K> keys;
  for (K k = 0; k < domain; ++k) keys.push_back(k);
  keys.push_back(std::numeric_limits<K>::max());
  keys.push_back(static_cast<K>(std::numeric_limits<K>::max() - 1));
  std::shuffle(keys.begin(), keys.end(), rng);
  return keys;
}

/// A random batch of `size` operations on keys in [0, domain) (and now and then the maximum key).
template <class K, class V>
std::vector<typename sluice::reference::lsm_model<K, V>::operation> random_batch(std::mt19937_64& rng, std::size_t size,
                                                                               K domain, double erase_share) {
  std::uniform_int_distribution<K> key(0, domain - 1);
  std::bernoulli_distribution erase(erase_share), top(0.01);
  std::vector<typename sluice::reference::lsm_model<K, V>::operation> batch;
  for (std::size_t i = 0; i < size; ++i)
    batch.push_back({top(rng) ? std::numeric_limits<K>::max() : key(rng), static_cast<V>(rng()), erase(rng)});
  return batch;
}

template <class K, class V>
void random_histories(sluice::context& ctx) {
  std::mt19937_64 rng(27);
  for (std::size_t b : {std::size_t{1}, std::size_t{32}, std::size_t{1000}}) {
    const K domain = static_cast<K>(b == 1 ? 50 : 3 * b);
    pair_under_test<K, V> t(ctx, {.batch_size = b, .capacity = 200 * b + 200});
    const auto probe = probe_keys<K>(domain + 2, rng);
    for (int step = 0; step < 40; ++step) {
      const std::size_t size = std::uniform_int_distribution<std::size_t>(0, 3 * b)(rng);
      t.apply(random_batch<K, V>(rng, size, domain, step % 4 == 0 ? 0.6 : 0.2));
      if (step % 5 == 4) t.check(probe, "step " + std::to_string(step));
      if (step % 13 == 12) {
        t.gpu.cleanup(ctx);
        ASSERT_EQ(t.gpu.resident_size(), t.model.size()) << t.name << ": cleanup leaves only live keys";
        t.check(probe, "cleanup at step " + std::to_string(step));
      }
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}
TEST_F(Lsm, RandomMixedHistoriesU32) { random_histories<std::uint32_t, std::uint32_t>(ctx()); }
TEST_F(Lsm, RandomMixedHistoriesU64) { random_histories<std::uint64_t, std::uint64_t>(ctx()); }

template <class K, class V>
void edge_histories(sluice::context& ctx) {
  constexpr K top = std::numeric_limits<K>::max();
  std::mt19937_64 rng(3);
  auto probe = probe_keys<K>(20, rng);
  pair_under_test<K, V> t(ctx, {.batch_size = 4, .capacity = 400});
  t.check(probe, "empty");
  t.gpu.cleanup(ctx);
  t.check(probe, "cleanup of an empty lsm");
  t.apply({{0, 1}, {top, 2}, {5, 3}, {5, 0, true}});                  // a whole unit; insert-then-erase: deleted
  t.check(probe, "insert-then-erase");
  t.apply({{5, 4}});                                                  // the same key in the next batch (P)
  t.apply({{5, 6}});                                                  // and the next
  t.check(probe, "same key in consecutive batches");
  t.apply({{0, 0, true}, {0, 9}, {top, 0, true}, {9, 9}, {9, 10}});   // erase-then-insert; last insert wins
  t.check(probe, "erase-then-insert");
  t.erase({17, 18, 19});                                              // erases of absent keys
  t.apply({});                                                        // an empty batch
  t.check(probe, "erases of absent keys");
  t.insert({{top, 7}, {0, 8}, {1, 1}, {2, 2}, {3, 3}, {4, 4}, {6, 6}, {7, 7}, {8, 8}});
  t.check(probe, "domain ends");
  t.gpu.cleanup(ctx);
  t.check(probe, "after cleanup");
  t.gpu.cleanup(ctx);
  t.check(probe, "after a second cleanup");
  std::vector<K> everything;
  for (const auto& [k, v] : t.model.entries()) everything.push_back(k);
  t.erase(everything);
  t.check(probe, "everything erased");
  t.gpu.cleanup(ctx);
  EXPECT_EQ(t.gpu.resident_size(), 0u);
  t.check(probe, "cleanup of everything erased");
}
TEST_F(Lsm, EdgeHistoriesU32) { edge_histories<std::uint32_t, std::uint32_t>(ctx()); }
TEST_F(Lsm, EdgeHistoriesU64) { edge_histories<std::uint64_t, std::uint64_t>(ctx()); }

TEST_F(Lsm, CleanupAfterEveryKindOfHistory) {
  using K = std::uint32_t;
  std::mt19937_64 rng(11);
  const auto probe = probe_keys<K>(300, rng);
  struct history {
    const char* name;
    double erase_share;
    K domain;
  };
  for (const history h : {history{"no stale elements", 0.0, 1u << 30}, history{"mostly overwrites", 0.0, 40},
                          history{"mostly erases", 0.8, 300}, history{"half and half", 0.5, 300}}) {
    pair_under_test<K, K> t(ctx(), {.batch_size = 16, .capacity = 4096});
    for (int step = 0; step < 20; ++step) t.apply(random_batch<K, K>(rng, 37, h.domain, h.erase_share));
    t.check(probe, std::string(h.name) + ", before cleanup");
    const std::size_t before = t.gpu.resident_size();
    t.gpu.cleanup(ctx());
    EXPECT_EQ(t.gpu.resident_size(), t.model.size()) << h.name;
    EXPECT_LE(t.gpu.resident_size(), before) << h.name;
    t.check(probe, std::string(h.name) + ", after cleanup");
    t.apply(random_batch<K, K>(rng, 50, 300, 0.3));
    t.check(probe, std::string(h.name) + ", a batch after cleanup");
  }
}

TEST_F(Lsm, UpToTwoToTheTenResidentBatchesThenCapacity) {
  using K = std::uint32_t;
  std::mt19937_64 rng(5);
  const auto probe = probe_keys<K>(600, rng);
  pair_under_test<K, K> t(ctx(), {.batch_size = 3, .capacity = 3 * 1023});  // 10 levels: r ≤ 1023
  ASSERT_EQ(t.gpu.level_count(), 10);
  ASSERT_EQ(t.gpu.capacity(), 3u * 1023 + 2);
  for (int r = 1; r <= 1023; ++r) {
    t.apply(random_batch<K, K>(rng, 3, 600, 0.2));
    ASSERT_EQ(t.gpu.resident_batches(), static_cast<std::uint64_t>(r));
    ASSERT_EQ(t.gpu.occupied_levels(), std::popcount(static_cast<unsigned>(r)));
    if ((r & (r - 1)) == 0 || (r & (r + 1)) == 0) t.check(probe, "r = " + std::to_string(r));  // 2^k and 2^k − 1
    if (HasFatalFailure()) return;
  }
  // Full: a batch that completes a unit is refused and nothing changes; P still takes b − 1.
  const auto refused = random_batch<K, K>(rng, 3, 600, 0.0);
  std::vector<K> keys;
  std::vector<K> values;
  for (const auto& o : refused) {
    keys.push_back(o.key);
    values.push_back(o.value);
  }
  const auto dk = to_device(ctx(), keys);
  const auto dv = to_device(ctx(), values);
  sluice::testing::expect_invalid_argument([&] { t.gpu.insert(ctx(), in(dk), in(dv)); }, "keys");
  t.check(probe, "after a refused batch");
  t.apply(random_batch<K, K>(rng, 2, 600, 0.0));
  t.check(probe, "full, P holding b − 1");
  t.gpu.cleanup(ctx());
  t.check(probe, "full, then cleanup");
}

TEST_F(Lsm, BulkBuildThenBatches) {
  using K = std::uint64_t;
  std::mt19937_64 rng(9);
  const auto probe = probe_keys<K>(200, rng);
  for (std::size_t b : {std::size_t{1}, std::size_t{7}, std::size_t{64}}) {
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{6}, std::size_t{150}, std::size_t{1000}}) {
      pair_under_test<K, K> t(ctx(), {.batch_size = b, .capacity = 4000});
      std::vector<std::pair<K, K>> pairs;
      for (std::size_t i = 0; i < n; ++i) pairs.emplace_back(rng() % 180, rng());
      t.bulk_build(pairs);
      ASSERT_EQ(t.gpu.resident_size(), n);
      t.check(probe, "bulk build of " + std::to_string(n));
      t.apply(random_batch<K, K>(rng, 2 * b + 3, 200, 0.3));
      t.check(probe, "bulk build of " + std::to_string(n) + ", then a batch");
    }
  }
}

/// Batches of several onesweep tiles and carries of several merge tiles, in the update buffers kept
/// between batches (the sort's per-pass status arrays, the merge's splits grown with the carry, P's two
/// buffers), then a bulk build on the used map (a sort of n ≤ b in those buffers) and more batches.
template <class K, class V>
void multi_tile_batches(sluice::context& ctx) {
  std::mt19937_64 rng(31);
  const std::size_t b = 3 * (std::size_t{1} << 13) + 5;
  const K domain = static_cast<K>(4 * b);
  pair_under_test<K, V> t(ctx, {.batch_size = b, .capacity = 16 * b});
  std::vector<K> probe{std::numeric_limits<K>::max(), static_cast<K>(std::numeric_limits<K>::max() - 1)};
  for (int i = 0; i < 600; ++i) probe.push_back(static_cast<K>(rng() % (domain + 2)));  // few: ranges stay small
  for (int step = 0; step < 14; ++step) {
    const std::size_t size = std::uniform_int_distribution<std::size_t>(b / 2, 5 * b / 2)(rng);
    t.apply(random_batch<K, V>(rng, size, domain, step % 3 == 0 ? 0.5 : 0.1));
    if (step % 3 == 2) t.check(probe, "b = " + std::to_string(b) + ", step " + std::to_string(step));
    if (::testing::Test::HasFatalFailure()) return;
  }
  std::vector<std::pair<K, V>> pairs;
  for (std::size_t i = 0; i < b - 7; ++i) pairs.emplace_back(static_cast<K>(rng() % domain), static_cast<V>(rng()));
  t.bulk_build(pairs);
  t.check(probe, "bulk build of b − 7 on a used map");
  for (int step = 0; step < 4; ++step) t.apply(random_batch<K, V>(rng, b + 11, domain, 0.2));
  t.check(probe, "bulk build, then four batches of b + 11");
}
TEST_F(Lsm, MultiTileBatchesU32) { multi_tile_batches<std::uint32_t, std::uint32_t>(ctx()); }
TEST_F(Lsm, MultiTileBatchesU64) { multi_tile_batches<std::uint64_t, std::uint64_t>(ctx()); }

/// cleanup's pass over many tiles (detail/lsm/cleanup.cuh: up to 1792 elements a tile, 1280 with 64-bit
/// keys or values): five keys over 23 units and a partial one, so that every tile boundary falls inside
/// one key's copies, spread over five runs; a second round over a wider domain with erases; then
/// cleanups of one bulk-built run (no merge round) and of a bulk build of several runs. size() (the pass
/// without stores) before each cleanup, the model's answers after it.
template <class K, class V>
void cleanup_across_tiles(sluice::context& ctx, std::size_t b) {
  std::mt19937_64 rng(41);
  pair_under_test<K, V> t(ctx, {.batch_size = b, .capacity = 64 * b});
  std::vector<K> probe{std::numeric_limits<K>::max()};
  for (K k = 0; k < 400; ++k) probe.push_back(k);
  const auto clean = [&](const std::string& when) {
    ASSERT_EQ(t.gpu.size(ctx), t.model.size()) << t.name << ", " << when << ": size before cleanup";
    t.gpu.cleanup(ctx);
    ASSERT_EQ(t.gpu.resident_size(), t.model.size()) << t.name << ", " << when << ": cleanup leaves the live keys";
    t.check(probe, when + ", cleaned");
  };
  for (int unit = 0; unit < 23; ++unit) t.apply(random_batch<K, V>(rng, b, K{5}, 0.2));
  t.apply(random_batch<K, V>(rng, b / 2, K{5}, 0.2));
  ASSERT_EQ(t.gpu.occupied_levels(), 4);
  clean("five keys over 23.5 units");
  if (::testing::Test::HasFatalFailure()) return;
  for (int unit = 0; unit < 9; ++unit) t.apply(random_batch<K, V>(rng, b + 101, static_cast<K>(2 * b), 0.3));
  clean("a domain of 2b with erases");
  if (::testing::Test::HasFatalFailure()) return;
  std::vector<std::pair<K, V>> pairs;
  for (std::size_t i = 0; i < b; ++i) pairs.emplace_back(static_cast<K>(rng() % 300), static_cast<V>(rng()));
  t.bulk_build(pairs);
  clean("one bulk-built run");
  if (::testing::Test::HasFatalFailure()) return;
  pairs.clear();
  for (std::size_t i = 0; i < 7 * b + 13; ++i) pairs.emplace_back(static_cast<K>(rng() % (3 * b)), static_cast<V>(rng()));
  t.bulk_build(pairs);
  t.apply(random_batch<K, V>(rng, 2 * b, static_cast<K>(3 * b), 0.5));
  clean("a bulk build of 7b + 13, then a batch of 2b");
}
TEST_F(Lsm, CleanupAcrossTilesU32) { cleanup_across_tiles<std::uint32_t, std::uint32_t>(ctx(), 3000); }
TEST_F(Lsm, CleanupAcrossTilesU64) { cleanup_across_tiles<std::uint64_t, std::uint64_t>(ctx(), 4096); }

// COUNT of many queries in one call, where a warp takes up to 32 of them and shares its lanes among their
// candidates (plan.hpp's count_queries_per_warp): several runs of mixed histories, 2^19 ranges of a few
// keys, some reversed (empty), some across the whole domain, against the model.
TEST_F(Lsm, CountOfManyQueriesSharesWarps) {
  using K = std::uint32_t;
  std::mt19937_64 rng(41);
  const std::size_t b = 1000;
  const K domain = 20000;
  pair_under_test<K, K> t(ctx(), {.batch_size = b, .capacity = 64 * b});
  for (int step = 0; step < 11; ++step) t.apply(random_batch<K, K>(rng, b + 37 * step, domain, 0.3));
  ASSERT_GE(t.gpu.occupied_levels(), 2);
  const std::size_t q = std::size_t{1} << 19;
  std::vector<K> k1(q), k2(q);
  for (std::size_t i = 0; i < q; ++i) {
    k1[i] = static_cast<K>(rng() % (domain + 2));
    k2[i] = i % 64 == 0 ? static_cast<K>(rng() % (domain + 2)) : static_cast<K>(k1[i] + rng() % 16);
  }
  const auto d1 = to_device(ctx(), k1);
  const auto d2 = to_device(ctx(), k2);
  sluice::device_buffer<std::uint64_t> counts(ctx(), q);
  counts.fill_bytes(0xA5);
  t.gpu.count(ctx(), in(d1), in(d2), counts.span());
  const auto c = counts.to_host();
  for (std::size_t i = 0; i < q; ++i)
    ASSERT_EQ(c[i], t.model.count(k1[i], k2[i])) << "count [" << k1[i] << ", " << k2[i] << "] of query " << i;
}

TEST_F(Lsm, AutomaticCleanupPolicyKeepsStaleElementsBounded) {
  using K = std::uint32_t;
  std::mt19937_64 rng(13);
  const auto probe = probe_keys<K>(64, rng);
  pair_under_test<K, K> t(ctx(), {.batch_size = 32, .capacity = 1 << 16, .cleanup_stale_fraction = 0.5});
  for (int step = 0; step < 60; ++step) {
    t.apply(random_batch<K, K>(rng, 40, 64, 0.3));  // 64 keys, overwritten again and again
    ASSERT_EQ(t.gpu.size(ctx()), t.model.size()) << "step " << step;
    ASSERT_LE(t.gpu.resident_size(), 2 * t.model.size() + 1) << "step " << step << ": stale share above one half";
    if (step % 10 == 9) t.check(probe, "policy, step " + std::to_string(step));
  }
}

TEST_F(Lsm, BadInput) {
  using K = std::uint32_t;
  using sluice::testing::expect_invalid_argument;
  sluice::lsm<K, K> map(ctx(), {.batch_size = 4, .capacity = 12});
  sluice::device_buffer<K> four(ctx(), 4), three(ctx(), 3), none(ctx(), 0);
  sluice::device_buffer<std::uint64_t> counts(ctx(), 4);
  sluice::device_buffer<std::uint8_t> flags(ctx(), 4);
  four.fill_bytes(0);
  expect_invalid_argument([&] { map.insert(ctx(), in(four), in(three)); }, "values");
  std::vector<std::uint8_t> codes{0, 1, 7, 0};
  const auto ops = sluice::device_buffer<lsm_op>(ctx(), std::span<const lsm_op>(reinterpret_cast<const lsm_op*>(codes.data()), 4));
  expect_invalid_argument([&] { map.apply(ctx(), in(ops), in(four), in(four)); }, "ops", 2);
  expect_invalid_argument([&] { map.apply(ctx(), in(ops).first(3), in(four), in(four)); }, "ops");
  expect_invalid_argument([&] { map.count(ctx(), in(four), in(three), counts.span()); }, "k2");
  expect_invalid_argument([&] { map.count(ctx(), in(four), in(four), counts.span().first(3)); }, "counts");
  expect_invalid_argument([&] { (void)map.range(ctx(), in(three), in(four)); }, "k2");
  expect_invalid_argument([&] { map.contains(ctx(), in(four), flags.span().first(2)); }, "present");
  std::vector<K> host(4);
  expect_invalid_argument([&] { map.erase(ctx(), cuda::std::span<const K>(host.data(), 4)); }, "keys");
  EXPECT_EQ(map.resident_size(), 0u) << "rejected calls change nothing";
  // Batches and query batches of size 0.
  map.insert(ctx(), in(none), in(none));
  map.count(ctx(), in(none), in(none), counts.span().first(0));
  const auto empty = map.range(ctx(), in(none), in(none));
  EXPECT_EQ(empty.offsets.to_host(), std::vector<std::uint64_t>{0});
  EXPECT_EQ(map.resident_size(), 0u);
  // Capacity: b·(2^2 − 1) + b − 1 = 15 elements; a bulk build or batch past it is refused, unchanged.
  ASSERT_EQ(map.capacity(), 15u);
  sluice::device_buffer<K> sixteen(ctx(), 16);
  sixteen.fill_bytes(1);
  expect_invalid_argument([&] { map.bulk_build(ctx(), in(sixteen), in(sixteen)); }, "keys");
  map.insert(ctx(), in(sixteen).first(12), in(sixteen).first(12));
  expect_invalid_argument([&] { map.insert(ctx(), in(four), in(four)); }, "keys");
  EXPECT_EQ(map.resident_size(), 12u);
  map.insert(ctx(), in(three), in(three));  // P takes 3 = b − 1
  EXPECT_EQ(map.resident_size(), 15u);
  // Options.
  expect_invalid_argument([&] { (void)sluice::lsm<K, K>(ctx(), {.batch_size = 0}); }, "options.batch_size");
  expect_invalid_argument([&] { (void)sluice::lsm<K, K>(ctx(), {.batch_size = 4, .capacity = 0}); }, "options.capacity");
  expect_invalid_argument([&] { (void)sluice::lsm<K, K>(ctx(), {.batch_size = 1, .capacity = std::size_t{1} << 45}); },
                          "options.capacity");
  expect_invalid_argument([&] { (void)sluice::lsm<K, K>(ctx(), {.cleanup_stale_fraction = 1.5}); },
                          "options.cleanup_stale_fraction");
  // A moved-from lsm.
  sluice::lsm<K, K> moved = std::move(map);
  EXPECT_EQ(moved.resident_size(), 15u);
  expect_invalid_argument([&] { map.erase(ctx(), in(four)); }, "*this");
  expect_invalid_argument([&] { map.cleanup(ctx()); }, "*this");
}

__global__ void iota_kernel(std::uint32_t* out, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
    out[i] = static_cast<std::uint32_t>(i);
}

TEST_F(Lsm, LargeQueryBatchOfTwoToThe31PlusFive) {
  if (sluice::testing::under_sanitizer()) GTEST_SKIP() << "2^31 + 5 queries: too slow instrumented";
  const std::size_t n = (std::size_t{1} << 31) + 5;
  std::size_t free = 0, total = 0;
  SLUICE_CUDA_CHECK(cudaMemGetInfo(&free, &total));
  const std::size_t needed = n * (4 + 4 + 4 + 1) + (std::size_t{2} << 30);
  if (free < needed) GTEST_SKIP() << "needs about " << needed / (std::size_t{1} << 30) << " GiB free";
  // Keys 0, 3, 6, … (2^20 of them) over 40 batches of odd sizes: P and several levels.
  constexpr std::size_t stored = std::size_t{1} << 20;
  sluice::lsm<std::uint32_t, std::uint32_t> map(ctx(), {.batch_size = 1 << 16, .capacity = stored});
  std::vector<std::uint32_t> keys(stored);
  for (std::size_t i = 0; i < stored; ++i) keys[i] = static_cast<std::uint32_t>(3 * i);
  const auto dk = to_device(ctx(), keys);
  for (std::size_t first = 0; first < stored;) {
    const std::size_t size = std::min<std::size_t>(stored - first, 26'177);
    map.insert(ctx(), in(dk).subspan(first, size), in(dk).subspan(first, size));
    first += size;
  }
  sluice::device_buffer<std::uint32_t> queries(ctx(), n);
  iota_kernel<<<1024, 256, 0, ctx().stream()>>>(queries.data(), n);
  SLUICE_CHECK_LAUNCH();
  sluice::device_buffer<std::uint32_t> found(ctx(), n), succ(ctx(), n);
  sluice::device_buffer<std::uint8_t> flags(ctx(), n);
  found.fill_bytes(0xA5);
  map.lookup(ctx(), in(queries), found.span(), 0xFFFFFFFFu);
  const auto got = found.to_host();
  const std::size_t top = 3 * (stored - 1);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t q = static_cast<std::uint32_t>(i);
    const bool present = q % 3 == 0 && q <= top;
    ASSERT_EQ(got[i], present ? q : 0xFFFFFFFFu) << "lookup #" << i << " of 2^31 + 5";
  }
  flags.fill_bytes(0xA5);
  map.successor(ctx(), in(queries), succ.span(), found.span(), flags.span());
  const auto s = succ.to_host();
  const auto f = flags.to_host();
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t q = static_cast<std::uint32_t>(i);
    const std::uint64_t next = (q + 2) / 3 * 3;
    ASSERT_EQ(f[i], next <= top ? 1 : 0) << "successor #" << i;
    if (next <= top) ASSERT_EQ(s[i], next) << "successor #" << i;
  }
}

}  // namespace
