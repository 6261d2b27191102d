// Dist* gpu tests of dist::slab_hash (sluice/dist/slab_hash.cuh) with however many GPUs are visible, batch
// by batch against a host model (std::unordered_map of key → instances) and against the one-GPU
// sluice::slab_hash given the same batches: inserts, finds of present and absent keys, counts, contains,
// erase and erase_all, insert_or_assign, a set's insert_unique; every deal of the batches (empty ranks,
// one rank holding all, uneven); all keys equal; every rank's table holding only the keys it owns; a
// reserved key reported by its global index on every rank with nothing inserted; a found buffer of the
// wrong size on one rank; phase timings.
#include "dist/dist_test.hpp"

#include <sluice/containers/slab_hash.cuh>
#include <sluice/dist/slab_hash.cuh>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

using namespace sluice::testing;
namespace dist = sluice::dist;

class DistSlabHash : public dist_test {};

constexpr deal_layout all_deals[] = {deal_layout::even, deal_layout::empty_ranks, deal_layout::one_rank_all,
                                     deal_layout::uneven};

std::string describe(const std::string& what, std::size_t n, deal_layout d) {
  return what + " n=" + std::to_string(n) + " deal=" + name(d) + " world=" + std::to_string(suite_communicator()->world_size());
}

/// `n` distinct keys (none reserved), drawn from `rng`.
template <class K>
std::vector<K> distinct_keys(std::size_t n, std::mt19937_64& rng) {
  std::set<K> seen;
  std::vector<K> keys;
  while (keys.size() < n) {
    const K k = static_cast<K>(rng() >> 2);  // the top bits clear: never 0xFF…FF or 0xFF…FE
    if (seen.insert(k).second) keys.push_back(k);
  }
  return keys;
}

/// The distributed call's outputs, one part per local rank, poisoned.
template <class T>
std::vector<sluice::device_buffer<T>> poisoned_parts(dist::communicator& comm, const std::vector<std::size_t>& offsets) {
  std::vector<sluice::device_buffer<T>> parts;
  for (std::size_t i = 0; i < comm.local_count(); ++i) {
    const auto r = static_cast<std::size_t>(comm.rank(i));
    parts.emplace_back(comm.ctx(i), offsets[r + 1] - offsets[r]);
    parts.back().fill_bytes(0xA5);
  }
  return parts;
}

/// find, count and contains of `queries` dealt by `d`, each checked against the model and the one-GPU table.
template <class K, class V>
void check_queries(dist::slab_hash<K, V>& table, sluice::slab_hash<K, V>& one_gpu,
                   const std::unordered_map<K, std::vector<V>>& model, const std::vector<K>& queries, deal_layout d,
                   const std::string& what) {
  dist::communicator& comm = *suite_communicator();
  const auto offsets = deal(queries.size(), comm.world_size(), d);
  const auto key_parts = scatter_to_ranks(comm, queries, offsets);
  auto found = poisoned_parts<V>(comm, offsets);
  auto counts = poisoned_parts<std::uint32_t>(comm, offsets);
  auto present = poisoned_parts<std::uint8_t>(comm, offsets);
  const V absent = static_cast<V>(0x5EED);
  table.find(view(key_parts), view_mutable(found), absent);
  table.count(view(key_parts), view_mutable(counts));
  table.contains(view(key_parts), view_mutable(present));
  const auto got_found = gather_to_host(found);
  const auto got_counts = gather_to_host(counts);
  const auto got_present = gather_to_host(present);

  sluice::context& ctx = comm.ctx(0);
  const sluice::device_buffer<K> all_queries(ctx, std::span<const K>(queries));
  sluice::device_buffer<V> one_found(ctx, queries.size());
  one_gpu.find(ctx, all_queries.span(), one_found.span(), absent);
  const auto want_one = one_found.to_host();

  for (std::size_t i = 0; i < queries.size(); ++i) {
    const auto it = model.find(queries[i]);
    const std::size_t instances = it == model.end() ? 0 : it->second.size();
    ASSERT_EQ(got_counts[i], instances) << what << " count of query " << i << " key " << queries[i];
    ASSERT_EQ(got_present[i], instances > 0 ? 1 : 0) << what << " contains of query " << i;
    // the least recent instance (the tests list a key at most once a batch, so it is well defined)
    const V want = instances == 0 ? absent : it->second.front();
    ASSERT_EQ(got_found[i], want) << what << " find of query " << i << " key " << queries[i];
    ASSERT_EQ(got_found[i], want_one[i]) << what << " find differs from the one-GPU table's at " << i;
  }
}

/// Every rank's table holds only keys it owns, and together they hold the model's elements.
template <class K, class V>
void check_contents(dist::slab_hash<K, V>& table, const std::unordered_map<K, std::vector<V>>& model,
                    const std::string& what) {
  dist::communicator& comm = *suite_communicator();
  std::vector<std::pair<K, V>> held;
  for (std::size_t i = 0; i < comm.local_count(); ++i) {
    sluice::context& ctx = comm.ctx(i);
    auto& mine = table.local(i);
    const std::size_t size = mine.size(ctx);
    sluice::device_buffer<K> keys(ctx, size);
    sluice::device_buffer<V> values(ctx, size);
    ASSERT_EQ(mine.retrieve_all(ctx, keys.span(), values.span()), size) << what;
    const auto k = keys.to_host();
    const auto v = values.to_host();
    for (std::size_t j = 0; j < size; ++j) {
      ASSERT_EQ(table.owner(k[j], comm.world_size()), comm.rank(i)) << what << " key " << k[j] << " on a rank not its owner";
      held.emplace_back(k[j], v[j]);
    }
  }
  std::vector<std::pair<K, V>> want;
  for (const auto& [k, values] : model)
    for (V v : values) want.emplace_back(k, v);
  std::sort(held.begin(), held.end());
  std::sort(want.begin(), want.end());
  ASSERT_EQ(held, want) << what << " contents";
  ASSERT_EQ(table.size(), want.size()) << what << " size";
}

template <class K, class V>
void batches_match_the_model(std::size_t n, deal_layout d, std::uint64_t seed) {
  dist::communicator& comm = *suite_communicator();
  const std::string what = describe(std::string("u") + std::to_string(8 * sizeof(K)), n, d);
  std::mt19937_64 rng(seed);
  dist::slab_hash<K, V> table(comm);
  sluice::slab_hash<K, V> one_gpu(comm.ctx(0));
  std::unordered_map<K, std::vector<V>> model;

  // batch 1: n distinct keys, then n/4 of them again (instances of a key in two batches).
  const std::vector<K> keys = distinct_keys<K>(n + n / 2 + 1, rng);
  const std::vector<K> stored(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(n));
  const std::vector<K> never(keys.begin() + static_cast<std::ptrdiff_t>(n), keys.end());
  std::vector<V> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<V>(i * 7 + 1);
  const auto insert = [&](const std::vector<K>& k, const std::vector<V>& v) {
    const auto offsets = deal(k.size(), comm.world_size(), d);
    const auto key_parts = scatter_to_ranks(comm, k, offsets);
    const auto value_parts = scatter_to_ranks(comm, v, offsets);
    table.insert(view(key_parts), view(value_parts));
    const sluice::device_buffer<K> all_keys(comm.ctx(0), std::span<const K>(k));
    const sluice::device_buffer<V> all_values(comm.ctx(0), std::span<const V>(v));
    one_gpu.insert(comm.ctx(0), all_keys.span(), all_values.span());
    for (std::size_t i = 0; i < k.size(); ++i) model[k[i]].push_back(v[i]);
  };
  insert(stored, values);
  check_contents(table, model, what + " after insert");
  std::vector<K> queries = stored;
  queries.insert(queries.end(), never.begin(), never.end());
  std::shuffle(queries.begin(), queries.end(), rng);
  check_queries(table, one_gpu, model, queries, d, what + " after insert");

  const std::vector<K> again(stored.begin(), stored.begin() + static_cast<std::ptrdiff_t>(n / 4));
  std::vector<V> again_values(again.size());
  for (std::size_t i = 0; i < again.size(); ++i) again_values[i] = static_cast<V>(1000000 + i);
  insert(again, again_values);
  check_queries(table, one_gpu, model, queries, d, what + " after the second insert");

  // erase: one instance of the first n/2 keys (the least recent: batch 1's), then erase_all of n/8.
  const std::vector<K> erased(stored.begin(), stored.begin() + static_cast<std::ptrdiff_t>(n / 2));
  {
    const auto offsets = deal(erased.size(), comm.world_size(), d);
    const auto parts = scatter_to_ranks(comm, erased, offsets);
    table.erase(view(parts));
    const sluice::device_buffer<K> all(comm.ctx(0), std::span<const K>(erased));
    one_gpu.erase(comm.ctx(0), all.span());
    for (K k : erased) model[k].erase(model[k].begin());
  }
  const std::vector<K> erased_all(stored.begin() + static_cast<std::ptrdiff_t>(n / 2),
                                  stored.begin() + static_cast<std::ptrdiff_t>(n / 2 + n / 8));
  {
    const auto offsets = deal(erased_all.size(), comm.world_size(), d);
    const auto parts = scatter_to_ranks(comm, erased_all, offsets);
    table.erase_all(view(parts));
    const sluice::device_buffer<K> all(comm.ctx(0), std::span<const K>(erased_all));
    one_gpu.erase_all(comm.ctx(0), all.span());
    for (K k : erased_all) model[k].clear();
  }
  std::erase_if(model, [](const auto& entry) { return entry.second.empty(); });
  check_contents(table, model, what + " after erase");
  check_queries(table, one_gpu, model, queries, d, what + " after erase");
}

TEST_F(DistSlabHash, BatchesMatchTheHostModelAndOneGpu) {
  std::uint64_t seed = 1;
  for (deal_layout d : all_deals)
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{33}, std::size_t{1000}, std::size_t{100000}}) {
      batches_match_the_model<std::uint32_t, std::uint32_t>(n, d, seed++);
      batches_match_the_model<std::uint64_t, std::uint64_t>(n, d, seed++);
    }
}

TEST_F(DistSlabHash, AllKeysEqual) {
  dist::communicator& comm = dist_test::comm();
  for (deal_layout d : all_deals) {
    const std::size_t n = 5000;
    dist::slab_hash<std::uint32_t, std::uint32_t> table(comm);
    const std::vector<std::uint32_t> keys(n, 42u);
    std::vector<std::uint32_t> values(n);
    for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<std::uint32_t>(i);
    const auto offsets = deal(n, comm.world_size(), d);
    const auto key_parts = scatter_to_ranks(comm, keys, offsets);
    const auto value_parts = scatter_to_ranks(comm, values, offsets);
    table.insert(view(key_parts), view(value_parts));
    EXPECT_EQ(table.size(), n) << name(d);
    auto counts = poisoned_parts<std::uint32_t>(comm, offsets);
    table.count(view(key_parts), view_mutable(counts));
    for (std::uint32_t c : gather_to_host(counts)) ASSERT_EQ(c, n) << name(d);
    for (std::size_t i = 0; i < comm.local_count(); ++i)
      EXPECT_EQ(table.local(i).size(comm.ctx(i)), comm.rank(i) == table.owner(42u, comm.world_size()) ? n : 0) << name(d);
    table.erase_all(view(key_parts));
    EXPECT_EQ(table.size(), 0u) << name(d);
  }
}

TEST_F(DistSlabHash, InsertOrAssignKeepsOneValueAKey) {
  dist::communicator& comm = dist_test::comm();
  std::mt19937_64 rng(7);
  const std::size_t n = 20000;
  const auto keys = distinct_keys<std::uint64_t>(n, rng);
  dist::slab_hash<std::uint64_t, std::uint64_t> table(comm);
  const auto offsets = deal(n, comm.world_size(), deal_layout::uneven);
  const auto key_parts = scatter_to_ranks(comm, keys, offsets);
  for (std::uint64_t round = 0; round < 3; ++round) {
    std::vector<std::uint64_t> values(n);
    for (std::size_t i = 0; i < n; ++i) values[i] = keys[i] ^ round;
    const auto value_parts = scatter_to_ranks(comm, values, offsets);
    table.insert_or_assign(view(key_parts), view(value_parts));
    ASSERT_EQ(table.size(), n) << "round " << round;
    auto found = poisoned_parts<std::uint64_t>(comm, offsets);
    table.find(view(key_parts), view_mutable(found));
    const auto got = gather_to_host(found);
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], values[i]) << "round " << round << " key " << i;
  }
}

TEST_F(DistSlabHash, SetInsertUniqueAndContains) {
  dist::communicator& comm = dist_test::comm();
  std::mt19937_64 rng(11);
  for (deal_layout d : all_deals) {
    const std::size_t n = 30000;
    auto distinct = distinct_keys<std::uint32_t>(n / 3, rng);
    std::vector<std::uint32_t> keys;
    for (int copy = 0; copy < 3; ++copy) keys.insert(keys.end(), distinct.begin(), distinct.end());
    std::shuffle(keys.begin(), keys.end(), rng);
    dist::slab_hash<std::uint32_t> set(comm);
    const auto offsets = deal(keys.size(), comm.world_size(), d);
    const auto parts = scatter_to_ranks(comm, keys, offsets);
    set.insert_unique(view(parts));
    EXPECT_EQ(set.size(), distinct.size()) << name(d);
    set.insert(view(parts));  // a multiset insert: three more instances of each
    EXPECT_EQ(set.size(), distinct.size() + keys.size()) << name(d);
    auto present = poisoned_parts<std::uint8_t>(comm, offsets);
    set.contains(view(parts), view_mutable(present));
    for (std::uint8_t p : gather_to_host(present)) ASSERT_EQ(p, 1) << name(d);
  }
}

TEST_F(DistSlabHash, ReservedKeyIsNamedOnEveryRankAndNothingIsInserted) {
  dist::communicator& comm = dist_test::comm();
  const std::size_t n = 1000;
  std::vector<std::uint32_t> keys(n), values(n, 1);
  for (std::size_t i = 0; i < n; ++i) keys[i] = static_cast<std::uint32_t>(i);
  keys[n - 3] = 0xFFFFFFFEu;  // the erased marker, on the last rank of an even deal
  dist::slab_hash<std::uint32_t, std::uint32_t> table(comm);
  const auto offsets = deal(n, comm.world_size(), deal_layout::even);
  const auto key_parts = scatter_to_ranks(comm, keys, offsets);
  const auto value_parts = scatter_to_ranks(comm, values, offsets);
  try {
    table.insert(view(key_parts), view(value_parts));
    FAIL() << "a reserved key was accepted";
  } catch (const sluice::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("reserved"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(std::to_string(n - 3)), std::string::npos) << e.what();
  }
  EXPECT_EQ(table.size(), 0u);
}

TEST_F(DistSlabHash, OutputOfTheWrongSizeOnOneRankFailsEveryRank) {
  dist::communicator& comm = dist_test::comm();
  const std::size_t n = 100;
  std::vector<std::uint32_t> keys(n);
  for (std::size_t i = 0; i < n; ++i) keys[i] = static_cast<std::uint32_t>(i);
  dist::slab_hash<std::uint32_t, std::uint32_t> table(comm);
  const auto offsets = deal(n, comm.world_size(), deal_layout::even);
  const auto key_parts = scatter_to_ranks(comm, keys, offsets);
  auto found = poisoned_parts<std::uint32_t>(comm, offsets);
  const std::size_t last = comm.local_count() - 1;
  found[last] = sluice::device_buffer<std::uint32_t>(comm.ctx(last), found[last].size() + 1);
  EXPECT_THROW(table.find(view(key_parts), view_mutable(found)), dist::rank_failure);
  table.insert(view(key_parts), view(key_parts));  // the communicator stays usable
  EXPECT_EQ(table.size(), n);
}

TEST_F(DistSlabHash, PhaseTimingsAreReported) {
  dist::communicator& comm = dist_test::comm();
  const std::size_t n = 1 << 20;
  std::vector<std::uint32_t> keys(n);
  for (std::size_t i = 0; i < n; ++i) keys[i] = static_cast<std::uint32_t>(i * 2654435761u >> 1);
  dist::slab_hash<std::uint32_t, std::uint32_t> table(comm);
  const auto offsets = deal(n, comm.world_size(), deal_layout::even);
  const auto key_parts = scatter_to_ranks(comm, keys, offsets);
  dist::timings report;
  table.insert(view(key_parts), view(key_parts), &report);
  ASSERT_EQ(report.phases, (std::vector<std::string>{"split", "exchange", "local", "answer"}));
  ASSERT_EQ(report.ms.size(), static_cast<std::size_t>(comm.world_size()));
  EXPECT_GT(report.slowest("local"), 0.0);
  if (comm.world_size() > 1) EXPECT_GT(report.slowest("exchange"), 0.0);
  auto found = poisoned_parts<std::uint32_t>(comm, offsets);
  table.find(view(key_parts), view_mutable(found), 0u, &report);
  EXPECT_GT(report.slowest("local"), 0.0);
  if (comm.world_size() > 1) EXPECT_GT(report.slowest("answer"), 0.0);
}

}  // namespace
