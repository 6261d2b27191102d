// GPU tests of containers/slab_hash.cuh (Ashkiani ch. 5) against host models (std::unordered_map,
// std::unordered_set, sluice::reference::multi_hash_map): bulk build and queries for the four kinds (maps
// u32 → u32 and u64 → u64, sets of u32 and u64), incremental batches, erase then re-insert, duplicates
// (least recent first, erase and erase_all), every key in one bucket (a constant hasher) with chains of
// thousands of slabs, growth during insertion (instances of a key keep their order), flush, mixed batches
// of every operation checked element by element (keys of a batch partitioned by operation, so that the
// outcome is fixed), batches hammering few keys checked by invariants only (nothing lost, nothing
// invented), the device view in a user's kernel, light and regular pools alike, pool exhaustion from a
// bulk call (refused before any change) and from a user's kernel (the failed inserts alone missing, then
// an exception), reserved keys, bad op codes, bad spans, a moved-from table, and 2^31 + 5 keys (*Large*).
// insert_or_reduce over batches (group_by_reduce and unique: tests/gpu/group_by_test.cu).
// Every failure names the kind, n and the case; outputs are poisoned before each call.
#include <sluice/containers/slab_hash.cuh>
#include <sluice/data/distinct_keys.hpp>
#include <sluice/reference/hash_map.hpp>

#include "support/compare.hpp"
#include "support/errors.hpp"
#include "support/gpu_test.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <span>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace {

using sluice::slab_op;
using sluice::testing::gpu_test;
namespace ops = sluice::slab_ops;

class SlabHash : public gpu_test {};

// ---- keys, values, buffers ----------------------------------------------------------------------------------

/// `count` distinct keys from the indices first, first + 1, …; ranges of indices that do not overlap give
/// keys that do not overlap (data/distinct_keys.hpp).
template <class K>
std::vector<K> keys_from(std::uint64_t first, std::size_t count) {
  return sluice::data::distinct_keys<K>(first, count);
}
constexpr std::uint64_t absent_range = sluice::data::absent_keys;  ///< indices of keys never inserted

template <class V, class K>
V value_for(K key, std::uint32_t version) {
  return static_cast<V>(static_cast<V>(key) * 3u + 1u + version * 0x10001u);
}

template <class T>
sluice::device_buffer<T> to_device(sluice::context& ctx, const std::vector<T>& host) {
  return sluice::device_buffer<T>(ctx, std::span<const T>(host));
}
template <class T>
cuda::std::span<const T> in(const sluice::device_buffer<T>& buffer) {
  return buffer.span();
}

template <class Table>
std::string name_of() {
  using K = typename Table::key_type;
  std::string name = Table::is_map ? "map " : "set ";
  name += sizeof(K) == 4 ? "u32" : "u64";
  if constexpr (Table::is_map) name += std::string(" → ") + (sizeof(typename Table::mapped_type) == 4 ? "u32" : "u64");
  return name;
}

/// A small pool for tests (2 MiB super blocks), light unless asked.
sluice::slab_alloc_options small_pool(sluice::slab_alloc_variant variant = sluice::slab_alloc_variant::light) {
  return {.variant = variant, .blocks_per_super_block = 16, .super_blocks = 1};
}

// ---- checks against a model ---------------------------------------------------------------------------------

/// The table holds exactly `model` (unique keys): size, find/contains/count of every key and of `absent`
/// keys, retrieve_all.
template <class Table, class Model>
void expect_holds(sluice::context& ctx, const Table& table, const Model& model, const std::vector<typename Table::key_type>& absent,
                  const std::string& what) {
  using K = typename Table::key_type;
  ASSERT_EQ(table.size(ctx), model.size()) << what << ": size";
  std::vector<K> present;
  for (const auto& entry : model) {
    if constexpr (Table::is_map) present.push_back(entry.first);
    else present.push_back(entry);
  }
  std::vector<K> queries = present;
  queries.insert(queries.end(), absent.begin(), absent.end());
  const auto keys = to_device(ctx, queries);
  const std::size_t n = queries.size();
  sluice::device_buffer<std::uint8_t> flags(ctx, n);
  sluice::device_buffer<std::uint32_t> counts(ctx, n);
  for (unsigned char poison : sluice::testing::poison_patterns) {
    flags.fill_bytes(poison);
    counts.fill_bytes(poison);
    table.contains(ctx, in(keys), flags.span());
    table.count(ctx, in(keys), counts.span());
    const auto f = flags.to_host();
    const auto c = counts.to_host();
    for (std::size_t i = 0; i < n; ++i) {
      const bool expected = i < present.size();
      ASSERT_EQ(static_cast<bool>(f[i]), expected) << what << ": contains(" << queries[i] << ") at " << i;
      ASSERT_EQ(c[i], expected ? 1u : 0u) << what << ": count(" << queries[i] << ") at " << i;
    }
  }
  if constexpr (Table::is_map) {
    using V = typename Table::mapped_type;
    sluice::device_buffer<V> found(ctx, n);
    const V absent_value = static_cast<V>(0x5EED);
    for (unsigned char poison : sluice::testing::poison_patterns) {
      found.fill_bytes(poison);
      table.find(ctx, in(keys), found.span(), absent_value);
      const auto got = found.to_host();
      for (std::size_t i = 0; i < n; ++i) {
        const V expected = i < present.size() ? model.at(queries[i]) : absent_value;
        ASSERT_EQ(got[i], expected) << what << ": find(" << queries[i] << ") at " << i;
      }
    }
    sluice::device_buffer<K> all_keys(ctx, model.size() + 3);
    sluice::device_buffer<V> all_values(ctx, model.size() + 3);
    ASSERT_EQ(table.retrieve_all(ctx, all_keys.span(), all_values.span()), model.size()) << what;
    const auto rk = all_keys.to_host();
    const auto rv = all_values.to_host();
    std::map<K, V> retrieved;
    for (std::size_t i = 0; i < model.size(); ++i) ASSERT_TRUE(retrieved.emplace(rk[i], rv[i]).second) << what << ": key twice";
    ASSERT_EQ(retrieved, (std::map<K, V>(model.begin(), model.end()))) << what << ": retrieve_all";
  } else {
    sluice::device_buffer<K> all_keys(ctx, model.size() + 3);
    ASSERT_EQ(table.retrieve_all(ctx, all_keys.span()), model.size()) << what;
    auto rk = all_keys.to_host();
    rk.resize(model.size());
    ASSERT_EQ(std::set<K>(rk.begin(), rk.end()), (std::set<K>(model.begin(), model.end()))) << what << ": retrieve_all";
    ASSERT_EQ(std::set<K>(rk.begin(), rk.end()).size(), model.size()) << what << ": a key retrieved twice";
  }
}

template <class Table>
using model_of = std::conditional_t<Table::is_map,
                                    std::unordered_map<typename Table::key_type, typename Table::mapped_type>,
                                    std::unordered_set<typename Table::key_type>>;

/// insert_or_assign (maps) / insert_unique (sets) of `keys`, on the table and the model.
template <class Table>
void upsert(sluice::context& ctx, Table& table, model_of<Table>& model, const std::vector<typename Table::key_type>& keys,
            std::uint32_t version) {
  using K = typename Table::key_type;
  const auto d_keys = to_device(ctx, keys);
  if constexpr (Table::is_map) {
    using V = typename Table::mapped_type;
    std::vector<V> values;
    for (K k : keys) values.push_back(value_for<V>(k, version));
    const auto d_values = to_device(ctx, values);
    table.insert_or_assign(ctx, in(d_keys), in(d_values));
    for (std::size_t i = 0; i < keys.size(); ++i) model[keys[i]] = values[i];
  } else {
    table.insert_unique(ctx, in(d_keys));
    model.insert(keys.begin(), keys.end());
  }
}

template <class Table>
void erase(sluice::context& ctx, Table& table, model_of<Table>& model, const std::vector<typename Table::key_type>& keys) {
  const auto d_keys = to_device(ctx, keys);
  table.erase(ctx, in(d_keys));
  for (auto k : keys) model.erase(k);
}

// ---- bulk build and query, all kinds ---------------------------------------------------------------------------

template <class Table>
void bulk_build_and_query(sluice::context& ctx) {
  using K = typename Table::key_type;
  const std::size_t all[] = {0, 1, 2, 14, 15, 16, 31, 32, 33, 1000, 4097, 100003, (std::size_t{1} << 20) + 7};
  for (std::size_t n : sluice::testing::sweep_sizes(all)) {
    const std::string what = name_of<Table>() + ", n = " + std::to_string(n);
    Table table(ctx, {.capacity = n, .allocator = small_pool()});
    model_of<Table> model;
    upsert(ctx, table, model, keys_from<K>(0, n), 0);
    expect_holds(ctx, table, model, keys_from<K>(absent_range, std::min<std::size_t>(n + 5, 5000)), what);
    const auto stats = table.stats(ctx);
    EXPECT_EQ(stats.size, n) << what;
    EXPECT_LE(stats.slabs_per_bucket, table.options().max_slabs_per_bucket + 1e-9) << what;
  }
}

TEST_F(SlabHash, BulkBuildAndQueryMapU32) { bulk_build_and_query<sluice::slab_hash<std::uint32_t, std::uint32_t>>(ctx()); }
TEST_F(SlabHash, BulkBuildAndQueryMapU64) { bulk_build_and_query<sluice::slab_hash<std::uint64_t, std::uint64_t>>(ctx()); }
TEST_F(SlabHash, BulkBuildAndQuerySetU32) { bulk_build_and_query<sluice::slab_set<std::uint32_t>>(ctx()); }
TEST_F(SlabHash, BulkBuildAndQuerySetU64) { bulk_build_and_query<sluice::slab_set<std::uint64_t>>(ctx()); }

TEST_F(SlabHash, SignedKeysAndFloatValues) {
  sluice::slab_hash<std::int32_t, float> table(ctx(), {.capacity = 1000, .allocator = small_pool()});
  std::vector<std::int32_t> keys;
  std::vector<float> values;
  for (int i = -500; i < 500; ++i) {
    if (i == -1 || i == -2) continue;  // the markers of signed 32-bit keys
    keys.push_back(i * 7919);
    values.push_back(static_cast<float>(i) * 0.5f);
  }
  const auto d_keys = to_device(ctx(), keys);
  const auto d_values = to_device(ctx(), values);
  table.insert_or_assign(ctx(), in(d_keys), in(d_values));
  sluice::device_buffer<float> found(ctx(), keys.size());
  found.fill_bytes(0xA5);
  table.find(ctx(), in(d_keys), found.span());
  EXPECT_TRUE(sluice::testing::all_equal(found.to_host(), values));
}

// ---- incremental batches, erase and re-insert ---------------------------------------------------------------------

template <class Table>
void incremental_batches(sluice::context& ctx) {
  using K = typename Table::key_type;
  const std::size_t batch = sluice::testing::scaled_size(1 << 14, 1 << 10), batches = 12;
  // A table sized for one batch: it grows several times on the way.
  Table table(ctx, {.capacity = batch, .allocator = small_pool()});
  model_of<Table> model;
  const auto absent = keys_from<K>(absent_range, 3000);
  for (std::uint32_t b = 0; b < batches; ++b) {
    // New keys, and (maps) new values for half of the previous batch's keys.
    auto keys = keys_from<K>(b * batch, batch);
    if (b > 0) {
      const auto again = keys_from<K>((b - 1) * batch, batch / 2);
      keys.insert(keys.end(), again.begin(), again.end());
    }
    upsert(ctx, table, model, keys, b);
    expect_holds(ctx, table, model, absent, name_of<Table>() + ", batch " + std::to_string(b));
  }
  EXPECT_GT(table.bucket_count(), sluice::detail::slab_hash::buckets_for(batch, Table::slots_per_slab, 0.7))
      << name_of<Table>() << ": the table grew";
}

TEST_F(SlabHash, IncrementalBatchesMapU32) { incremental_batches<sluice::slab_hash<std::uint32_t, std::uint32_t>>(ctx()); }
TEST_F(SlabHash, IncrementalBatchesSetU64) { incremental_batches<sluice::slab_set<std::uint64_t>>(ctx()); }
TEST_F(SlabHash, IncrementalBatchesMapU64) { incremental_batches<sluice::slab_hash<std::uint64_t, std::uint64_t>>(ctx()); }

template <class Table>
void erase_then_reinsert(sluice::context& ctx) {
  using K = typename Table::key_type;
  const std::size_t n = sluice::testing::scaled_size(50000, 3000);
  Table table(ctx, {.capacity = n, .allocator = small_pool()});
  model_of<Table> model;
  const auto keys = keys_from<K>(0, n);
  upsert(ctx, table, model, keys, 1);
  std::vector<K> gone(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(n / 2));
  const auto missing = keys_from<K>(absent_range, 1000);  // erasing absent keys changes nothing
  gone.insert(gone.end(), missing.begin(), missing.end());
  erase(ctx, table, model, gone);
  expect_holds(ctx, table, model, gone, name_of<Table>() + ", after erase");
  // Re-inserted with new values: the old ones must not come back.
  upsert(ctx, table, model, std::vector<K>(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(n / 4)), 2);
  expect_holds(ctx, table, model, missing, name_of<Table>() + ", after re-insert");
  table.flush(ctx);
  expect_holds(ctx, table, model, missing, name_of<Table>() + ", after flush");
  upsert(ctx, table, model, std::vector<K>(keys.begin(), keys.end()), 3);
  expect_holds(ctx, table, model, missing, name_of<Table>() + ", after flush and re-insert");
}

TEST_F(SlabHash, EraseThenReinsertMapU32) { erase_then_reinsert<sluice::slab_hash<std::uint32_t, std::uint32_t>>(ctx()); }
TEST_F(SlabHash, EraseThenReinsertSetU32) { erase_then_reinsert<sluice::slab_set<std::uint32_t>>(ctx()); }
TEST_F(SlabHash, EraseThenReinsertMapU64) { erase_then_reinsert<sluice::slab_hash<std::uint64_t, std::uint64_t>>(ctx()); }

// ---- duplicates -----------------------------------------------------------------------------------------------------

using map32 = sluice::slab_hash<std::uint32_t, std::uint32_t>;

/// out[i · capacity …] = find_all of keys[i] through the device view; counts[i] = its result.
__global__ void find_all_kernel(map32::ref_type<ops::find_tag> table, const std::uint32_t* keys, std::size_t n,
                                std::uint32_t capacity, std::uint32_t* out, std::uint32_t* counts) {
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  const bool active = i < n;
  const std::uint32_t found =
      table.find_all(active, active ? keys[i] : 0u, active ? out + i * capacity : nullptr, capacity);
  if (active) counts[i] = found;
}

/// The table, checked against the multimap model: count and find (least recent) of `keys`, and
/// find_all's values in order.
template <class Hash>
void expect_multimap(sluice::context& ctx, const sluice::slab_hash<std::uint32_t, std::uint32_t, Hash>& table,
                     const sluice::reference::multi_hash_map<std::uint32_t, std::uint32_t>& model,
                     const std::vector<std::uint32_t>& keys, const std::string& what) {
  ASSERT_EQ(table.size(ctx), model.size()) << what;
  const auto d_keys = to_device(ctx, keys);
  sluice::device_buffer<std::uint32_t> counts(ctx, keys.size()), found(ctx, keys.size());
  counts.fill_bytes(0xA5);
  found.fill_bytes(0xA5);
  table.count(ctx, in(d_keys), counts.span());
  table.find(ctx, in(d_keys), found.span(), 0xDEADu);
  const std::uint32_t capacity = 8;
  sluice::device_buffer<std::uint32_t> all(ctx, keys.size() * capacity), all_counts(ctx, keys.size());
  all.fill_bytes(0xA5);
  const unsigned blocks = static_cast<unsigned>((keys.size() + 127) / 128);
  find_all_kernel<<<blocks, 128, 0, ctx.stream()>>>(table.ref(ops::find), d_keys.data(), keys.size(), capacity,
                                                    all.data(), all_counts.data());
  SLUICE_CHECK_LAUNCH();
  const auto c = counts.to_host(), f = found.to_host(), a = all.to_host(), ac = all_counts.to_host();
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const auto instances = model.search_all(keys[i]);
    ASSERT_EQ(c[i], instances.size()) << what << ": count(" << keys[i] << ")";
    ASSERT_EQ(ac[i], instances.size()) << what << ": find_all(" << keys[i] << ") count";
    ASSERT_EQ(f[i], instances.empty() ? 0xDEADu : instances.front()) << what << ": find(" << keys[i] << ") least recent";
    for (std::size_t j = 0; j < std::min<std::size_t>(instances.size(), capacity); ++j)
      ASSERT_EQ(a[i * capacity + j], instances[j]) << what << ": find_all(" << keys[i] << ")[" << j << "]";
  }
}

TEST_F(SlabHash, DuplicatesLeastRecentFirst) {
  // Each batch inserts every key once more (value = batch), so the instances' order is the batches'.
  const std::size_t n = sluice::testing::scaled_size(3000, 500);
  map32 table(ctx(), {.capacity = n, .allocator = small_pool()});
  sluice::reference::multi_hash_map<std::uint32_t, std::uint32_t> model;
  const auto keys = keys_from<std::uint32_t>(0, n);
  const auto d_keys = to_device(ctx(), keys);
  for (std::uint32_t b = 0; b < 6; ++b) {
    const sluice::device_buffer<std::uint32_t> values = to_device(ctx(), std::vector<std::uint32_t>(n, 100 + b));
    table.insert(ctx(), in(d_keys), in(values));
    for (auto k : keys) model.insert(k, 100 + b);
  }
  auto queries = keys;
  const auto missing = keys_from<std::uint32_t>(absent_range, 100);
  queries.insert(queries.end(), missing.begin(), missing.end());
  expect_multimap(ctx(), table, model, queries, "6 instances each");
  // DELETE removes the least recent instance; a key twice in one batch loses two.
  std::vector<std::uint32_t> gone(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(n / 2));
  gone.insert(gone.end(), keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(n / 4));
  table.erase(ctx(), in(to_device(ctx(), gone)));
  for (auto k : gone) model.erase(k);
  expect_multimap(ctx(), table, model, queries, "after erase");
  // DELETEALL removes every instance.
  const std::vector<std::uint32_t> all_gone(keys.begin() + static_cast<std::ptrdiff_t>(n / 2), keys.end());
  table.erase_all(ctx(), in(to_device(ctx(), all_gone)));
  for (auto k : all_gone) model.erase_all(k);
  expect_multimap(ctx(), table, model, queries, "after erase_all");
  // Flush keeps the order of what is left.
  table.flush(ctx());
  expect_multimap(ctx(), table, model, queries, "after flush");
}

/// Every key in bucket 0.
struct one_bucket {
  __host__ __device__ std::uint32_t operator()(std::uint64_t) const { return 0; }
};

TEST_F(SlabHash, AllKeysInOneBucketMakeChainsOfThousandsOfSlabs) {
  // 60 000 pairs in one list: 4000 slabs (1000 under a sanitizer).
  const std::size_t n = sluice::testing::scaled_size(60000, 15000);
  sluice::slab_hash<std::uint32_t, std::uint32_t, one_bucket> table(
      ctx(), {.capacity = n, .buckets = 1, .grow = false, .allocator = small_pool()});
  ASSERT_EQ(table.bucket_count(), 1u);
  std::unordered_map<std::uint32_t, std::uint32_t> model;
  upsert(ctx(), table, model, keys_from<std::uint32_t>(0, n), 0);
  const auto absent = keys_from<std::uint32_t>(absent_range, 1000);
  expect_holds(ctx(), table, model, absent, "one bucket");
  const auto stats = table.stats(ctx());
  EXPECT_EQ(stats.pool_slabs, (n + 14) / 15 - 1) << "every slab but the last full";
  // Erase two thirds, flush: the list shrinks to what the rest needs, in order.
  const auto keys = keys_from<std::uint32_t>(0, n);
  std::vector<std::uint32_t> gone;
  for (std::size_t i = 0; i < n; ++i)
    if (i % 3 != 0) gone.push_back(keys[i]);
  erase(ctx(), table, model, gone);
  expect_holds(ctx(), table, model, absent, "one bucket, after erase");
  table.flush(ctx());
  expect_holds(ctx(), table, model, absent, "one bucket, after flush");
  EXPECT_EQ(table.stats(ctx()).pool_slabs, (model.size() + 14) / 15 - 1) << "flush freed the emptied slabs";
  upsert(ctx(), table, model, gone, 1);
  expect_holds(ctx(), table, model, absent, "one bucket, refilled");
}

TEST_F(SlabHash, GrowthDuringInsertionKeepsEveryElementAndTheirOrder) {
  const std::size_t n = sluice::testing::scaled_size(1 << 18, 1 << 12);
  map32 table(ctx(), {.buckets = 1, .allocator = small_pool()});
  // Two instances of a few keys, inserted before growth: their order must survive it.
  sluice::reference::multi_hash_map<std::uint32_t, std::uint32_t> model;
  const auto twice = keys_from<std::uint32_t>(absent_range + 10, 64);
  for (std::uint32_t v : {1u, 2u}) {
    table.insert(ctx(), in(to_device(ctx(), twice)), in(to_device(ctx(), std::vector<std::uint32_t>(twice.size(), v))));
    for (auto k : twice) model.insert(k, v);
  }
  // One batch far past the bucket count, then batches that keep it growing.
  const auto keys = keys_from<std::uint32_t>(0, n);
  std::size_t done = 0;
  int growths = 0;
  for (std::size_t step : {n / 16, n / 16, n / 8, n / 4, n / 2}) {  // the elements double: the table keeps growing
    const std::vector<std::uint32_t> part(keys.begin() + static_cast<std::ptrdiff_t>(done),
                                          keys.begin() + static_cast<std::ptrdiff_t>(done + step));
    std::vector<std::uint32_t> values;
    for (auto k : part) values.push_back(value_for<std::uint32_t>(k, 0));
    const std::uint32_t before = table.bucket_count();
    // The policy's trigger (max_slabs_per_bucket = 1): the batch would pass 15 elements a bucket.
    const bool must_grow = model.size() + step > 15 * std::size_t{before};
    table.insert_or_assign(ctx(), in(to_device(ctx(), part)), in(to_device(ctx(), values)));
    for (std::size_t i = 0; i < part.size(); ++i) model.replace(part[i], values[i]);
    done += step;
    if (must_grow) EXPECT_GT(table.bucket_count(), before) << "batch of " << step << " grew the table";
    growths += table.bucket_count() > before ? 1 : 0;
    const auto stats = table.stats(ctx());
    EXPECT_LE(stats.slabs_per_bucket, 1.0) << "β after growth";
    EXPECT_EQ(stats.size, model.size());
  }
  EXPECT_GE(growths, 4) << "n = " << n << ": the batches kept the table growing";
  auto queries = twice;
  queries.insert(queries.end(), keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(n, 5000)));
  expect_multimap(ctx(), table, model, queries, "after growth");
}

TEST_F(SlabHash, ReserveGrowsAheadAndFixedTablesDoNot) {
  map32 fixed(ctx(), {.buckets = 7, .grow = false, .allocator = small_pool()});
  std::unordered_map<std::uint32_t, std::uint32_t> model;
  upsert(ctx(), fixed, model, keys_from<std::uint32_t>(0, 5000), 0);
  EXPECT_EQ(fixed.bucket_count(), 7u) << "grow = false: B stays";
  expect_holds(ctx(), fixed, model, keys_from<std::uint32_t>(absent_range, 100), "fixed B");
  fixed.reserve(ctx(), 100000);
  EXPECT_GE(fixed.bucket_count(), 100000u / 15u) << "reserve grows even a fixed table";
  expect_holds(ctx(), fixed, model, keys_from<std::uint32_t>(absent_range, 100), "after reserve");
}

// ---- mixed batches ---------------------------------------------------------------------------------------------------

/// The Γ = (insert new, erase present, find present, find missing) mixes of §5.6.3, plus assignments
/// of present keys, counts and contains: in one batch every key is used by one element only, so each
/// result is fixed whatever the order.
struct mix {
  double insert, erase, find_present, find_missing, assign;
};

template <class Table>
void mixed_batches(sluice::context& ctx, mix gamma, const std::string& name) {
  using K = typename Table::key_type;
  using V = std::conditional_t<Table::is_map, typename Table::mapped_type, std::uint32_t>;
  const std::size_t initial = sluice::testing::scaled_size(20000, 2000);
  const std::size_t batch = sluice::testing::scaled_size(1 << 14, 1 << 11);
  Table table(ctx, {.capacity = initial, .allocator = small_pool()});
  model_of<Table> model;
  upsert(ctx, table, model, keys_from<K>(0, initial), 0);
  std::vector<K> present = keys_from<K>(0, initial);
  std::uint64_t next_fresh = initial, next_missing = absent_range;
  std::mt19937_64 random(17);
  for (std::uint32_t b = 0; b < 8; ++b) {
    const std::string what = name_of<Table>() + ", " + name + ", batch " + std::to_string(b);
    std::shuffle(present.begin(), present.end(), random);
    const auto share = [&](double f) { return static_cast<std::size_t>(f * static_cast<double>(batch)); };
    std::size_t erasing = std::min(share(gamma.erase), present.size() / 3);
    std::size_t finding = std::min(share(gamma.find_present), present.size() / 3);
    std::size_t assigning = std::min(share(gamma.assign), present.size() / 3);
    const std::size_t inserting = share(gamma.insert), missing = share(gamma.find_missing);
    std::vector<slab_op> op;
    std::vector<K> key;
    std::vector<V> value;
    std::vector<std::uint32_t> expected_result;
    std::vector<V> expected_found;
    const V absent = static_cast<V>(0xABCDEF);
    auto add = [&](slab_op o, K k, V v, std::uint32_t r, V f) {
      op.push_back(o);
      key.push_back(k);
      value.push_back(v);
      expected_result.push_back(r);
      expected_found.push_back(f);
    };
    auto current = [&](K k) -> V {
      if constexpr (Table::is_map) return model.at(k);
      else return absent;
    };
    std::size_t p = 0;
    for (std::size_t i = 0; i < erasing; ++i, ++p) add(slab_op::erase, present[p], 0, 1, absent);
    for (std::size_t i = 0; i < finding; ++i, ++p) {
      const slab_op o = i % 3 == 0 ? slab_op::find : i % 3 == 1 ? slab_op::contains : slab_op::count;
      add(o, present[p], 0, 1, o == slab_op::find && Table::is_map ? current(present[p]) : absent);
    }
    for (std::size_t i = 0; i < assigning; ++i, ++p) add(slab_op::insert_or_assign, present[p], static_cast<V>(b * 7 + i), 0, absent);
    for (const K k : keys_from<K>(next_fresh, inserting))
      add(k % 2 ? slab_op::insert : slab_op::insert_or_assign, k, static_cast<V>(k ^ b), 1, absent);
    next_fresh += inserting + 4;
    for (const K k : keys_from<K>(next_missing, missing)) {
      const slab_op o = k % 4 == 0 ? slab_op::erase : k % 4 == 1 ? slab_op::erase_all : k % 4 == 2 ? slab_op::count : slab_op::find;
      add(o, k, 0, 0, absent);
    }
    next_missing += missing + 4;
    // Shuffle the elements (all four kinds in every warp), keeping each with its expectation.
    std::vector<std::size_t> order(op.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), random);
    auto permute = [&](auto& v) {
      auto copy = v;
      for (std::size_t i = 0; i < order.size(); ++i) v[i] = copy[order[i]];
    };
    permute(op);
    permute(key);
    permute(value);
    permute(expected_result);
    permute(expected_found);
    const auto d_ops = to_device(ctx, op);
    const auto d_keys = to_device(ctx, key);
    sluice::device_buffer<std::uint32_t> results(ctx, op.size());
    results.fill_bytes(0xA5);
    if constexpr (Table::is_map) {
      const auto d_values = to_device(ctx, value);
      sluice::device_buffer<V> found(ctx, op.size());
      found.fill_bytes(0x5A);
      table.apply(ctx, in(d_ops), in(d_keys), in(d_values), found.span(), results.span(), absent);
      const auto f = found.to_host();
      for (std::size_t i = 0; i < op.size(); ++i)
        ASSERT_EQ(f[i], expected_found[i]) << what << ": element " << i << ", " << sluice::to_string(op[i]) << "(" << key[i] << ")";
    } else {
      table.apply(ctx, in(d_ops), in(d_keys), results.span());
    }
    const auto r = results.to_host();
    for (std::size_t i = 0; i < op.size(); ++i)
      ASSERT_EQ(r[i], expected_result[i]) << what << ": element " << i << ", " << sluice::to_string(op[i]) << "(" << key[i] << ")";
    // The model follows the batch.
    for (std::size_t i = 0; i < op.size(); ++i) {
      if (op[i] == slab_op::erase && expected_result[i] == 1) model.erase(key[i]);
      if ((op[i] == slab_op::insert || op[i] == slab_op::insert_or_assign)) {
        if constexpr (Table::is_map) model[key[i]] = value[i];
        else model.insert(key[i]);
      }
    }
    present.clear();
    for (const auto& entry : model) {
      if constexpr (Table::is_map) present.push_back(entry.first);
      else present.push_back(entry);
    }
    std::sort(present.begin(), present.end());  // the model's iteration order is not reproducible
    if (b % 4 == 3) expect_holds(ctx, table, model, keys_from<K>(next_missing, 500), what);
  }
  expect_holds(ctx, table, model, keys_from<K>(next_missing, 500), name_of<Table>() + ", " + name + ", at the end");
}

constexpr mix gamma0{0.5, 0.5, 0, 0, 0}, gamma1{0.2, 0.2, 0.3, 0.3, 0}, gamma2{0.1, 0.1, 0.4, 0.4, 0},
    everything{0.2, 0.2, 0.2, 0.2, 0.2};

TEST_F(SlabHash, MixedBatchesMapU32) {
  for (auto [gamma, name] : {std::pair{gamma0, "Γ0"}, {gamma1, "Γ1"}, {gamma2, "Γ2"}, {everything, "all ops"}})
    mixed_batches<map32>(ctx(), gamma, name);
}
TEST_F(SlabHash, MixedBatchesSetU32) { mixed_batches<sluice::slab_set<std::uint32_t>>(ctx(), everything, "all ops"); }
TEST_F(SlabHash, MixedBatchesMapU64) {
  mixed_batches<sluice::slab_hash<std::uint64_t, std::uint64_t>>(ctx(), everything, "all ops");
}

/// Many operations on few keys in one kernel: results depend on the order, so only invariants are
/// checked. Per key, instances after = before + successful inserts − successful erases − erase_all's
/// counts (nothing lost, nothing invented); with only insert_or_assign inserting, never two instances;
/// every value found or left was written to that key.
void same_key_invariants(sluice::context& ctx, bool unique) {
  const std::string what = unique ? "unique keys" : "duplicates";
  const std::size_t n = sluice::testing::scaled_size(1 << 15, 1 << 11);
  const std::uint32_t distinct = 40;
  map32 table(ctx, {.capacity = 64, .allocator = small_pool()});
  const auto pool_keys = keys_from<std::uint32_t>(0, distinct);
  std::map<std::uint32_t, long long> instances;
  std::map<std::uint32_t, std::set<std::uint32_t>> written;  // every value ever written to a key
  std::mt19937 random(23);
  for (std::uint32_t b = 0; b < 6; ++b) {
    std::vector<slab_op> op(n);
    std::vector<std::uint32_t> key(n), value(n);
    for (std::size_t i = 0; i < n; ++i) {
      key[i] = pool_keys[random() % distinct];
      value[i] = (b << 20) | static_cast<std::uint32_t>(i);
      const unsigned pick = random() % 6;
      op[i] = pick == 0 ? (unique ? slab_op::insert_or_assign : slab_op::insert)
              : pick == 1 ? slab_op::insert_or_assign
              : pick == 2 ? slab_op::erase
              : pick == 3 && !unique ? slab_op::erase_all
              : pick == 4 ? slab_op::count
                          : slab_op::find;
      if (op[i] == slab_op::insert || op[i] == slab_op::insert_or_assign) written[key[i]].insert(value[i]);
    }
    const auto d_ops = to_device(ctx, op);
    const auto d_keys = to_device(ctx, key), d_values = to_device(ctx, value);
    sluice::device_buffer<std::uint32_t> found(ctx, n), results(ctx, n);
    table.apply(ctx, in(d_ops), in(d_keys), in(d_values), found.span(), results.span(), 0xFFFFFFFFu);
    const auto f = found.to_host(), r = results.to_host();
    for (std::size_t i = 0; i < n; ++i) {
      if (op[i] == slab_op::insert) instances[key[i]] += r[i];
      if (op[i] == slab_op::insert_or_assign) instances[key[i]] += r[i];
      if (op[i] == slab_op::erase) instances[key[i]] -= r[i];
      if (op[i] == slab_op::erase_all) instances[key[i]] -= r[i];
      if (op[i] == slab_op::find && r[i] == 1)
        ASSERT_TRUE(written[key[i]].count(f[i])) << what << ", batch " << b << ": find(" << key[i] << ") = " << f[i]
                                                 << ", a value never written to it";
      if (op[i] == slab_op::find && r[i] == 0) ASSERT_EQ(f[i], 0xFFFFFFFFu) << what;
    }
    const auto d_all = to_device(ctx, pool_keys);
    sluice::device_buffer<std::uint32_t> counts(ctx, distinct), values(ctx, distinct);
    table.count(ctx, in(d_all), counts.span());
    table.find(ctx, in(d_all), values.span(), 0xFFFFFFFFu);
    const auto c = counts.to_host(), v = values.to_host();
    long long total = 0;
    for (std::uint32_t k = 0; k < distinct; ++k) {
      const std::uint32_t key_k = pool_keys[k];
      ASSERT_EQ(static_cast<long long>(c[k]), instances[key_k])
          << what << ", batch " << b << ": key " << key_k << " has " << c[k] << " instances, the results account for "
          << instances[key_k];
      if (unique) ASSERT_LE(c[k], 1u) << what << ": insert_or_assign made a duplicate of " << key_k;
      if (c[k] > 0) ASSERT_TRUE(written[key_k].count(v[k])) << what << ": key " << key_k << " holds " << v[k];
      total += c[k];
    }
    ASSERT_EQ(static_cast<long long>(table.size(ctx)), total) << what << ", batch " << b << ": size";
  }
}

TEST_F(SlabHash, SameKeyConcurrencyKeepsInvariantsUniqueKeys) { same_key_invariants(ctx(), true); }
TEST_F(SlabHash, SameKeyConcurrencyKeepsInvariantsDuplicates) { same_key_invariants(ctx(), false); }

// ---- the device view in a user's kernel (docs/containers.md's example) ------------------------------------------------

// The example of docs/containers.md, as it is there: a kernel that inserts (key, i) for its keys and
// reports whether each key was found afterwards, through one view.
__global__ void insert_then_find(sluice::slab_hash<std::uint32_t, std::uint32_t>::ref_type<sluice::slab_ops::insert_tag,
                                                                                            sluice::slab_ops::find_tag> table,
                                 const std::uint32_t* keys, std::size_t n, std::uint32_t* found) {
  auto alloc = table.make_allocator();  // all 32 lanes, once: the warp's resident memory block
  for (std::size_t base = (blockIdx.x * std::size_t{blockDim.x} + threadIdx.x) / 32 * 32; base < n;
       base += std::size_t{gridDim.x} * blockDim.x) {
    const std::size_t i = base + threadIdx.x % 32;
    const bool active = i < n;  // every lane calls; the tail's lanes have no task
    const std::uint32_t key = active ? keys[i] : 0;
    table.insert(alloc, active, key, static_cast<std::uint32_t>(i));
    std::uint32_t value = 0;
    if (table.find(active, key, value) && active) found[i] = value;
  }
}

TEST_F(SlabHash, DeviceViewInAUsersKernel) {
  const std::size_t n = sluice::testing::scaled_size(100000, 5000);
  map32 table(ctx(), {.capacity = n, .allocator = small_pool()});
  table.reserve(ctx(), n);  // a user's kernel cannot grow the table: make room first
  const auto keys = keys_from<std::uint32_t>(0, n);
  const auto d_keys = to_device(ctx(), keys);
  sluice::device_buffer<std::uint32_t> found(ctx(), n);
  found.fill_bytes(0xA5);
  insert_then_find<<<64, 128, 0, ctx().stream()>>>(table.ref(sluice::slab_ops::insert, sluice::slab_ops::find),
                                                  d_keys.data(), n, found.data());
  SLUICE_CHECK_LAUNCH();
  std::vector<std::uint32_t> expected(n);
  std::unordered_map<std::uint32_t, std::uint32_t> model;
  for (std::size_t i = 0; i < n; ++i) model[keys[i]] = expected[i] = static_cast<std::uint32_t>(i);
  EXPECT_TRUE(sluice::testing::all_equal(found.to_host(), expected));
  expect_holds(ctx(), table, model, keys_from<std::uint32_t>(absent_range, 100), "user kernel");
}

TEST_F(SlabHash, LightAndRegularPoolsAgree) {
  for (auto variant : {sluice::slab_alloc_variant::light, sluice::slab_alloc_variant::regular}) {
    const std::string what = std::string(sluice::to_string(variant));
    map32 table(ctx(), {.buckets = 100, .allocator = {.variant = variant, .blocks_per_super_block = 1, .super_blocks = 1}});
    std::unordered_map<std::uint32_t, std::uint32_t> model;
    upsert(ctx(), table, model, keys_from<std::uint32_t>(0, 40000), 0);  // grows the table and the pool
    erase(ctx(), table, model, keys_from<std::uint32_t>(0, 10000));
    table.flush(ctx());
    upsert(ctx(), table, model, keys_from<std::uint32_t>(5000, 20000), 1);
    expect_holds(ctx(), table, model, keys_from<std::uint32_t>(absent_range, 100), what);
    EXPECT_GT(table.allocator().super_blocks(), 1u) << what << ": the pool grew";
  }
}

// ---- exhaustion and bad input ------------------------------------------------------------------------------------------

/// Inserts keys[i] through the view; ok[i] = whether it went in.
__global__ void insert_kernel(map32::ref_type<ops::insert_tag> table, const std::uint32_t* keys, std::size_t n,
                              std::uint8_t* ok) {
  auto alloc = table.make_allocator();
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  const bool active = i < n;
  const bool inserted = table.insert(alloc, active, active ? keys[i] : 0u, active ? keys[i] + 1 : 0u);
  if (active) ok[i] = inserted;
}

TEST_F(SlabHash, ExhaustionFromABulkCallChangesNothing) {
  // One bucket, a pool of 1024 slabs that may not grow: 15 + 1024 · 15 pairs fit, 20000 do not.
  map32 table(ctx(), {.buckets = 1, .grow = false,
                      .allocator = {.blocks_per_super_block = 1, .super_blocks = 1, .max_super_blocks = 1}});
  std::unordered_map<std::uint32_t, std::uint32_t> model;
  upsert(ctx(), table, model, keys_from<std::uint32_t>(0, 1000), 0);
  const auto big = keys_from<std::uint32_t>(1000, 20000);
  std::vector<std::uint32_t> values(big.size(), 7);
  EXPECT_THROW(table.insert_or_assign(ctx(), in(to_device(ctx(), big)), in(to_device(ctx(), values))),
               sluice::out_of_memory);
  expect_holds(ctx(), table, model, keys_from<std::uint32_t>(absent_range, 100), "after the refused batch");
}

TEST_F(SlabHash, ExhaustionInAUsersKernelLosesOnlyTheFailedInserts) {
  map32 table(ctx(), {.buckets = 1, .grow = false,
                      .allocator = {.blocks_per_super_block = 1, .super_blocks = 1, .max_super_blocks = 1}});
  const auto keys = keys_from<std::uint32_t>(0, 20000);
  const auto d_keys = to_device(ctx(), keys);
  sluice::device_buffer<std::uint8_t> ok(ctx(), keys.size());
  insert_kernel<<<static_cast<unsigned>((keys.size() + 127) / 128), 128, 0, ctx().stream()>>>(
      table.ref(ops::insert), d_keys.data(), keys.size(), ok.data());
  SLUICE_CHECK_LAUNCH();
  const auto inserted = ok.to_host();
  std::unordered_map<std::uint32_t, std::uint32_t> model;
  for (std::size_t i = 0; i < keys.size(); ++i)
    if (inserted[i]) model[keys[i]] = keys[i] + 1;
  // Every slot of the base slab and the pool's 1024 slabs, but for those a warp held while another failed:
  // a slab allocated and then freed (its warp lost the race to link it) can make a concurrent allocation
  // find the pool empty.
  EXPECT_LE(model.size(), 15u + 1024u * 15u);
  EXPECT_GE(model.size(), 15u + 1000u * 15u) << "the pool was nearly all used before inserts failed";
  // The next call that changes the table reports the exhaustion, and changes nothing.
  EXPECT_THROW(table.erase(ctx(), in(d_keys)), sluice::out_of_memory);
  std::vector<std::uint32_t> failed;
  for (std::size_t i = 0; i < keys.size(); ++i)
    if (!inserted[i]) failed.push_back(keys[i]);
  expect_holds(ctx(), table, model, failed, "after device exhaustion");
  EXPECT_NO_THROW(table.erase(ctx(), in(to_device(ctx(), std::vector<std::uint32_t>{keys[0]}))));
}

TEST_F(SlabHash, ReservedKeysAreRejectedWithTheirIndex) {
  using sluice::testing::expect_invalid_argument;
  map32 table(ctx(), {.capacity = 100, .allocator = small_pool()});
  std::unordered_map<std::uint32_t, std::uint32_t> model;
  upsert(ctx(), table, model, keys_from<std::uint32_t>(0, 50), 0);
  const auto bad = to_device(ctx(), std::vector<std::uint32_t>{1, 2, 3, 0xFFFFFFFFu, 5, 0xFFFFFFFEu});
  const auto values = to_device(ctx(), std::vector<std::uint32_t>(6, 9));
  expect_invalid_argument([&] { table.insert_or_assign(ctx(), in(bad), in(values)); }, "keys", 3);
  expect_invalid_argument([&] { table.insert(ctx(), in(bad), in(values)); }, "keys", 3);
  expect_invalid_argument([&] { table.erase(ctx(), in(bad)); }, "keys", 3);
  const auto tombstone_first = to_device(ctx(), std::vector<std::uint32_t>{7, 0xFFFFFFFEu});
  expect_invalid_argument([&] { table.erase_all(ctx(), in(tombstone_first)); }, "keys", 1);
  expect_holds(ctx(), table, model, {1, 2, 3, 5}, "nothing changed by the rejected calls");
  // Queries report the markers absent (they can never be stored).
  sluice::device_buffer<std::uint8_t> present(ctx(), 6);
  table.contains(ctx(), in(bad), present.span());
  const auto p = present.to_host();
  EXPECT_FALSE(p[3]);
  EXPECT_FALSE(p[5]);
  // A mixed batch: reserved keys and codes that are no slab_op.
  std::vector<slab_op> codes(6, slab_op::find);
  codes[4] = static_cast<slab_op>(42);
  const auto d_codes = to_device(ctx(), codes);
  const auto good = to_device(ctx(), std::vector<std::uint32_t>{1, 2, 3, 4, 5, 6});
  sluice::device_buffer<std::uint32_t> found(ctx(), 6), results(ctx(), 6);
  expect_invalid_argument([&] { table.apply(ctx(), in(d_codes), in(good), in(values), found.span(), results.span()); },
                          "ops", 4);
  expect_invalid_argument([&] { table.apply(ctx(), in(d_codes), in(bad), in(values), found.span(), results.span()); },
                          "keys", 3);
}

TEST_F(SlabHash, BadSpansAndOptions) {
  using sluice::testing::expect_invalid_argument;
  map32 table(ctx(), {.capacity = 100, .allocator = small_pool()});
  const auto keys = to_device(ctx(), std::vector<std::uint32_t>{1, 2, 3});
  const auto two = to_device(ctx(), std::vector<std::uint32_t>{1, 2});
  sluice::device_buffer<std::uint32_t> out(ctx(), 2);
  expect_invalid_argument([&] { table.insert(ctx(), in(keys), in(two)); }, "values");
  expect_invalid_argument([&] { table.find(ctx(), in(keys), out.span()); }, "found");
  std::vector<std::uint32_t> host(3, 1);
  expect_invalid_argument([&] { table.insert(ctx(), cuda::std::span<const std::uint32_t>(host.data(), 3), in(keys)); },
                          "keys");
  sluice::device_buffer<std::uint32_t> small(ctx(), 1);
  std::unordered_map<std::uint32_t, std::uint32_t> model;
  upsert(ctx(), table, model, {1, 2, 3}, 0);
  sluice::device_buffer<std::uint32_t> small_values(ctx(), 1);
  expect_invalid_argument([&] { (void)table.retrieve_all(ctx(), small.span(), small_values.span()); }, "out_keys");
  expect_invalid_argument([&] { map32 t(ctx(), {.target_slabs_per_bucket = 0}); }, "options.target_slabs_per_bucket");
  expect_invalid_argument([&] { map32 t(ctx(), {.target_slabs_per_bucket = 2, .max_slabs_per_bucket = 1}); },
                          "options.max_slabs_per_bucket");
}

TEST_F(SlabHash, MovedFromTableThrows) {
  using sluice::testing::expect_invalid_argument;
  map32 table(ctx(), {.capacity = 100, .allocator = small_pool()});
  std::unordered_map<std::uint32_t, std::uint32_t> model;
  upsert(ctx(), table, model, keys_from<std::uint32_t>(0, 100), 0);
  map32 other = std::move(table);
  const auto keys = to_device(ctx(), keys_from<std::uint32_t>(0, 10));
  sluice::device_buffer<std::uint32_t> out(ctx(), 10);
  expect_invalid_argument([&] { table.find(ctx(), in(keys), out.span()); }, "*this");
  expect_invalid_argument([&] { table.erase(ctx(), in(keys)); }, "*this");
  expect_invalid_argument([&] { (void)table.size(ctx()); }, "*this");
  expect_invalid_argument([&] { (void)table.ref(ops::find); }, "*this");
  expect_invalid_argument([&] { table.flush(ctx()); }, "*this");
  expect_holds(ctx(), other, model, {}, "the moved-to table");
  table = std::move(other);
  expect_holds(ctx(), table, model, {}, "moved back");
}

TEST_F(SlabHash, ClearEmptiesTheTableAndThePool) {
  map32 table(ctx(), {.capacity = 1000, .allocator = small_pool()});
  std::unordered_map<std::uint32_t, std::uint32_t> model;
  upsert(ctx(), table, model, keys_from<std::uint32_t>(0, 30000), 0);
  table.clear(ctx());
  model.clear();
  expect_holds(ctx(), table, model, keys_from<std::uint32_t>(0, 100), "after clear");
  EXPECT_EQ(table.stats(ctx()).pool_slabs, 0u);
  upsert(ctx(), table, model, keys_from<std::uint32_t>(0, 5000), 1);
  expect_holds(ctx(), table, model, keys_from<std::uint32_t>(absent_range, 100), "refilled");
  table.flush(ctx());  // also on a table whose lists need nothing
  expect_holds(ctx(), table, model, keys_from<std::uint32_t>(absent_range, 100), "flushed");
}

// ---- insert_or_reduce (group_by_reduce's slab_hash strategy: tests/gpu/group_by_test.cu) --------------------

TEST_F(SlabHash, InsertOrReduceAccumulatesOverBatches) {
  map32 table(ctx(), {.capacity = 1000, .allocator = small_pool()});
  const auto keys = keys_from<std::uint32_t>(0, 1000);
  std::unordered_map<std::uint32_t, std::uint32_t> model;
  for (std::uint32_t b = 1; b <= 3; ++b) {
    // Every key twice a batch, values b and 10·b: each batch adds 11·b.
    std::vector<std::uint32_t> k = keys, v(keys.size(), b);
    k.insert(k.end(), keys.begin(), keys.end());
    v.insert(v.end(), keys.size(), 10 * b);
    table.insert_or_reduce(ctx(), in(to_device(ctx(), k)), in(to_device(ctx(), v)), sluice::plus{});
    for (auto key : keys) model[key] += 11 * b;
  }
  expect_holds(ctx(), table, model, keys_from<std::uint32_t>(absent_range, 100), "insert_or_reduce");
}

// ---- 2^31 + 5 keys -----------------------------------------------------------------------------------------------------

__global__ void iota_kernel(std::uint32_t* out, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
    out[i] = static_cast<std::uint32_t>(i);
}
__global__ void count_true_kernel(const std::uint8_t* flags, std::size_t n, unsigned long long* total) {
  unsigned long long mine = 0;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
    mine += flags[i];
  atomicAdd(total, mine);
}

TEST_F(SlabHash, LargeSetOfTwoToThe31PlusFiveKeys) {
  if (sluice::testing::under_sanitizer()) GTEST_SKIP() << "2^31 + 5 keys: too slow instrumented";
  const std::size_t n = (std::size_t{1} << 31) + 5;  // keys 0 … n − 1, all below the markers
  std::size_t free = 0, total = 0;
  SLUICE_CUDA_CHECK(cudaMemGetInfo(&free, &total));
  // Keys and flags, the base slabs (β = 0.7, 21 keys a bucket), and the pool the insert reserves: at
  // most n/30 + B slabs (policy.hpp's bound).
  const std::size_t buckets = n / 21, needed = n * 5 + buckets * 128 + (n / 30 + buckets) * 128 + (std::size_t{4} << 30);
  if (free < needed) GTEST_SKIP() << "needs about " << needed / (std::size_t{1} << 30) << " GiB free";
  sluice::slab_set<std::uint32_t> set(ctx(), {.capacity = n, .allocator = {.blocks_per_super_block = 4096}});
  sluice::device_buffer<std::uint32_t> keys(ctx(), n);
  iota_kernel<<<1024, 256, 0, ctx().stream()>>>(keys.data(), n);
  SLUICE_CHECK_LAUNCH();
  set.insert_unique(ctx(), in(keys));
  EXPECT_EQ(set.size(ctx()), n);
  sluice::device_buffer<std::uint8_t> present(ctx(), n);
  present.fill_bytes(0);
  set.contains(ctx(), in(keys), present.span());
  sluice::device_buffer<unsigned long long> found(ctx(), 1);
  found.fill_bytes(0);
  count_true_kernel<<<1024, 256, 0, ctx().stream()>>>(present.data(), n, found.data());
  SLUICE_CHECK_LAUNCH();
  EXPECT_EQ(found.to_host()[0], n) << "every key found, the last at index 2^31 + 4";
}

}  // namespace
