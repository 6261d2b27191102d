// Benchmark: the slab hash and SlabAlloc (Ashkiani ch. 5, §5.6's experiments), u32 keys → u32 values,
// distinct random keys (data/distinct_keys.hpp), every insertion a REPLACE (insert_or_assign) as in the seed.
//
//   utilization sweep   n = 2^22 (the seed's), β = 0.1 … 5 slabs a bucket (B = n / (15 β), no growth):
//                       build, then n searches all found and n none found; rows named by β and the memory
//                       utilization the build reached (stored bytes / bytes of every slab in use, §5.3.3)
//   scaling             β = 0.7 (≈ 60% utilization), n = 2^18 … 2^26 (quick: 2^24)
//   incremental         2^26 keys (quick 2^22) in batches of 2^16, into a table sized for them and into one
//                       that starts at one batch and grows; the baseline rebuilds its table after every batch
//   concurrent mixes    Γ0 = (0.5, 0.5, 0, 0), Γ1 = (0.2, 0.2, 0.3, 0.3), Γ2 = (0.1, 0.1, 0.4, 0.4) of (insert new,
//                       erase present, find present, find missing) in one kernel, on a table of 2^24 (quick
//                       2^20) keys at β 0.35, 0.7, 1.0; keys of a batch partitioned by operation so every
//                       result is known; no baseline (cuCollections has no concurrent mixed operations)
//   SlabAlloc           allocations a second: every warp of one full wave allocating 64 units (the seed: 1 M
//                       allocations on a K40c, 600 M/s); light and regular pools; no baseline
//   group_by_reduce     sum of 2^28 (quick 2^24) u32 values by u32 keys drawn from 2^20 (quick 2^16)
//                       distinct ones, each strategy (open_addressing, partitioned, slab_hash, automatic) with and
//                       without the distinct count given; unique of the same keys the same way;
//                       baselines thrust sort_by_key + reduce_by_key, and sort + unique, on copies
//   stress (family slab_hash_stress)  10^9 mixed operations (quick: 2^24) on a 2^26-key universe, checked
//                       against a host model after every batch: nothing lost, nothing invented
//
// Baselines: cuCollections' static_map<u32, u32> at the load factor equal to the slab hash's measured
// utilization (insert from empty, find), when the build finds cuCollections (CMake: -DSLUICE_CUCO_DIR=… or
// find_package(cuco); bench/CMakeLists.txt); otherwise its rows are skipped and stderr says so once.
//
// Timing: a build starts from an empty table (clear() before each repetition, outside the timed region).
// A call that changes the slab hash includes its status read-back (one check kernel over the batch, a
// popcount of the pool's bitmaps, a 48-byte copy and a wait for the stream: containers.md) in its time.
//
// Bytes (the GB/s column): the batch's inputs read and outputs written, plus one 32-byte sector of the
// table an operation (the least any hash table moves for a random key): build 8 + 32 bytes a pair, search
// 8 + 32 a query, a mixed operation 13 + 32. SlabAlloc rows: 4 bytes an allocation (its bitmap word).
//
// Verification: every search output against the host's values (absent: the sentinel); a build by searching
// every key afterwards; a mixed batch's results and values element by element; SlabAlloc's addresses
// distinct and the pool's count equal to the allocations.
#include "harness/measure.hpp"

#include <sluice/containers/group_by.cuh>
#include <sluice/containers/slab_alloc.cuh>
#include <sluice/containers/slab_hash.cuh>
#include <sluice/data/distinct_keys.hpp>

#include <thrust/execution_policy.h>
#include <thrust/reduce.h>
#include <thrust/sort.h>
#include <thrust/unique.h>

#if defined(SLUICE_HAVE_CUCO)
#include <cuco/static_map.cuh>
#endif

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <random>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace {

using namespace sluice;
using table_type = slab_hash<std::uint32_t, std::uint32_t>;
constexpr std::uint32_t absent_value = 0xFFFFFFFFu;
constexpr double sector = 32.0;

using bench::power_name;
std::string fixed(double x, int digits) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.*f", digits, x);
  return text;
}

/// Keys [0, n), their values, absent keys, on the host and the device.
struct key_set {
  std::vector<std::uint32_t> keys, values, absent;
  device_buffer<std::uint32_t> d_keys, d_values, d_absent;
  key_set(context& ctx, std::size_t n)
      : keys(data::distinct_keys<std::uint32_t>(0, n)), absent(data::distinct_keys<std::uint32_t>(data::absent_keys, n)) {
    values.reserve(n);
    for (auto k : keys) values.push_back(k * 3u + 1u);
    d_keys = device_buffer<std::uint32_t>(ctx, std::span<const std::uint32_t>(keys));
    d_values = device_buffer<std::uint32_t>(ctx, std::span<const std::uint32_t>(values));
    d_absent = device_buffer<std::uint32_t>(ctx, std::span<const std::uint32_t>(absent));
  }
};

bool all_absent(const std::vector<std::uint32_t>& got) {
  return std::all_of(got.begin(), got.end(), [](std::uint32_t v) { return v == absent_value; });
}

#if defined(SLUICE_HAVE_CUCO)
using cuco_map = cuco::static_map<std::uint32_t, std::uint32_t>;
using cuco_pair = cuco::pair<std::uint32_t, std::uint32_t>;

__global__ void make_pairs_kernel(const std::uint32_t* keys, const std::uint32_t* values, std::size_t n, cuco_pair* out) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
    out[i] = cuco_pair{keys[i], values[i]};
}

/// The pairs cuCollections inserts, made once outside the timing.
device_buffer<cuco_pair> cuco_pairs(context& ctx, const key_set& set) {
  device_buffer<cuco_pair> pairs(ctx, set.keys.size());
  make_pairs_kernel<<<1024, 256, 0, ctx.stream()>>>(set.d_keys.data(), set.d_values.data(), set.keys.size(), pairs.data());
  SLUICE_CHECK_LAUNCH();
  return pairs;
}

cuco_map make_cuco(context& ctx, std::size_t n, double load) {
  return cuco_map{n, load, cuco::empty_key<std::uint32_t>{0xFFFFFFFFu}, cuco::empty_value<std::uint32_t>{absent_value},
                  {}, {}, {}, {}, {}, cuda::stream_ref{ctx.stream()}};
}
#endif

/// Says once that the baseline's rows are missing (nothing where cuCollections is built in).
void note_no_cuco() {
#if !defined(SLUICE_HAVE_CUCO)
  static bool said = false;
  if (!said) std::cerr << "bench: slab_hash: cuCollections baseline rows skipped (built without SLUICE_CUCO_DIR / cuco)\n";
  said = true;
#endif
}

/// Build, search-all and search-none of n pairs into B = n / (15 β) buckets, and the baseline's at the
/// same load factor.
void build_and_search(bench::case_context& session, std::size_t n, double beta, const std::string& sweep) {
  auto& ctx = session.gpu();
  const key_set set(ctx, n);
  table_type table(ctx, {.buckets = detail::slab_hash::buckets_for(n, table_type::slots_per_slab, beta), .grow = false});
  table.insert_or_assign(ctx, set.d_keys.span(), set.d_values.span());
  const double utilization = table.stats(ctx).memory_utilization;
  const std::string tag = sweep + ", n = " + power_name(n) + ", β " + fixed(beta, 2) + ", utilization " + fixed(utilization, 2);
  device_buffer<std::uint32_t> found(ctx, n);
  const auto find_present = [&] { return found.to_host() == set.values; };
  const auto find_none = [&] { return all_absent(found.to_host()); };
  const double items = static_cast<double>(n);
  const bench::work_description build{"slab_hash", "build " + tag, n, (8 + sector) * items};
  const bench::work_description search_all{"slab_hash", "search all found " + tag, n, (8 + sector) * items};
  const bench::work_description search_none{"slab_hash", "search none found " + tag, n, (8 + sector) * items};
  const auto built = [&] {
    found.fill_bytes(0xA5);
    table.find(ctx, set.d_keys.span(), found.span(), absent_value);
    return find_present();
  };
  if (session.runs("sluice::slab_hash", bench::role::subject)) {
    const auto t = bench::time_device(ctx, [&] { table.clear(ctx); },
                                      [&] { table.insert_or_assign(ctx, set.d_keys.span(), set.d_values.span()); },
                                      session.policy());
    bench::record_verified(session, build, "sluice::slab_hash", bench::role::subject, true, t, built);
  }
  found.fill_bytes(0xA5);
  bench::measure(session, search_all, "sluice::slab_hash", bench::role::subject, true,
                 [&] { table.find(ctx, set.d_keys.span(), found.span(), absent_value); }, find_present);
  found.fill_bytes(0xA5);
  bench::measure(session, search_none, "sluice::slab_hash", bench::role::subject, true,
                 [&] { table.find(ctx, set.d_absent.span(), found.span(), absent_value); }, find_none);
#if defined(SLUICE_HAVE_CUCO)
  const auto pairs = cuco_pairs(ctx, set);
  auto map = make_cuco(ctx, n, std::clamp(utilization, 0.05, 0.95));
  const std::string label = "cuco::static_map (load " + fixed(std::clamp(utilization, 0.05, 0.95), 2) + ")";
  const auto t = bench::time_device(ctx, [&] { map.clear_async(cuda::stream_ref{ctx.stream()}); },
                                    [&] { map.insert_async(pairs.data(), pairs.data() + n, cuda::stream_ref{ctx.stream()}); },
                                    session.policy());
  bench::record_verified(session, build, label, bench::role::baseline, true, t, [&] {
    found.fill_bytes(0xA5);
    map.find(set.d_keys.data(), set.d_keys.data() + n, found.data(), cuda::stream_ref{ctx.stream()});
    return find_present();
  });
  found.fill_bytes(0xA5);
  bench::measure(session, search_all, label, bench::role::baseline, true, [&] {
    map.find_async(set.d_keys.data(), set.d_keys.data() + n, found.data(), cuda::stream_ref{ctx.stream()});
  }, find_present);
  found.fill_bytes(0xA5);
  bench::measure(session, search_none, label, bench::role::baseline, true, [&] {
    map.find_async(set.d_absent.data(), set.d_absent.data() + n, found.data(), cuda::stream_ref{ctx.stream()});
  }, find_none);
#endif
  note_no_cuco();
}

SLUICE_BENCH_CASE("slab_hash", "build and search vs memory utilization", gpu) {
  const std::vector<double> betas = session.quick() ? std::vector<double>{0.3, 0.7, 1.5}
                                                    : std::vector<double>{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8,
                                                                          0.9, 1.0, 1.2, 1.5, 2.0, 3.0, 5.0};
  for (double beta : betas) build_and_search(session, std::size_t{1} << 22, beta, "utilization sweep");
}

SLUICE_BENCH_CASE("slab_hash", "build and search vs n at 60% utilization", gpu) {
  const auto sizes = session.quick() ? std::vector<std::size_t>{std::size_t{1} << 24} : bench::powers_of_two(18, 26, 2);
  for (std::size_t n : sizes) build_and_search(session, n, 0.7, "scaling");
}

SLUICE_BENCH_CASE("slab_hash", "incremental batches vs rebuilding", gpu) {
  auto& ctx = session.gpu();
  const std::size_t n = session.quick() ? std::size_t{1} << 22 : std::size_t{1} << 26, batch = std::size_t{1} << 16;
  const key_set set(ctx, n);
  const std::string name = power_name(n) + " pairs in batches of " + power_name(batch);
  const bench::work_description work{"slab_hash", "incremental " + name, n, (8 + sector) * static_cast<double>(n)};
  device_buffer<std::uint32_t> found(ctx, n);
  const bench::timing_policy few{1, 3};
  auto insert_batches = [&](table_type& table) {
    for (std::size_t first = 0; first < n; first += batch)
      table.insert_or_assign(ctx, set.d_keys.span().subspan(first, batch), set.d_values.span().subspan(first, batch));
  };
  for (bool sized : {true, false}) {
    const std::string label = sized ? "sluice::slab_hash (sized for n)" : "sluice::slab_hash (grows from one batch)";
    if (!session.runs(label, bench::role::subject)) continue;
    table_type table(ctx, {.capacity = sized ? n : batch});
    const auto t = bench::time_device(ctx, [&] { table.clear(ctx); }, [&] { insert_batches(table); }, few);
    bench::record_verified(session, work, label, bench::role::subject, true, t, [&] {
      found.fill_bytes(0xA5);
      table.find(ctx, set.d_keys.span(), found.span(), absent_value);
      return found.to_host() == set.values;
    });
  }
#if defined(SLUICE_HAVE_CUCO)
  // Rebuilt after every batch from everything so far, at load 0.65 (the seed's CUDPP setting), in one map
  // of the final capacity cleared each time.
  const auto pairs = cuco_pairs(ctx, set);
  auto map = make_cuco(ctx, n, 0.65);
  const auto t = bench::time_device(ctx, [] {}, [&] {
    for (std::size_t end = batch; end <= n; end += batch) {
      map.clear_async(cuda::stream_ref{ctx.stream()});
      map.insert_async(pairs.data(), pairs.data() + end, cuda::stream_ref{ctx.stream()});
    }
  }, {0, 1});
  bench::record_verified(session, work, "cuco::static_map rebuilt after every batch", bench::role::baseline, true, t, [&] {
    found.fill_bytes(0xA5);
    map.find(set.d_keys.data(), set.d_keys.data() + n, found.data(), cuda::stream_ref{ctx.stream()});
    return found.to_host() == set.values;
  });
#endif
  note_no_cuco();
}

// ---- concurrent mixes ---------------------------------------------------------------------------------------------

struct mix {
  const char* name;
  double insert, erase, find_present, find_missing;
};

/// One batch of `ops` operations of the mix on a table holding keys [0, initial): inserts of new keys,
/// erases and finds of distinct present keys, finds of absent keys, shuffled; with each element's result.
struct mixed_batch {
  std::vector<slab_op> ops;
  std::vector<std::uint32_t> keys, values, results, found;
};

mixed_batch make_mix(const key_set& set, std::size_t initial, std::size_t ops, const mix& m, std::uint64_t seed) {
  mixed_batch b;
  const auto count = [&](double f) { return static_cast<std::size_t>(f * static_cast<double>(ops)); };
  const std::size_t inserts = count(m.insert), erases = std::min(count(m.erase), initial / 2),
                    finds = std::min(count(m.find_present), initial / 2), misses = ops - inserts - erases - finds;
  const auto fresh = data::distinct_keys<std::uint32_t>(std::uint64_t{initial} + (std::uint64_t{1} << 30), inserts);
  auto add = [&](slab_op op, std::uint32_t key, std::uint32_t value, std::uint32_t result, std::uint32_t found) {
    b.ops.push_back(op);
    b.keys.push_back(key);
    b.values.push_back(value);
    b.results.push_back(result);
    b.found.push_back(found);
  };
  for (std::size_t i = 0; i < inserts; ++i) add(slab_op::insert_or_assign, fresh[i], fresh[i] ^ 7u, 1, absent_value);
  for (std::size_t i = 0; i < erases; ++i) add(slab_op::erase, set.keys[i], 0, 1, absent_value);
  for (std::size_t i = 0; i < finds; ++i) add(slab_op::find, set.keys[initial - 1 - i], 0, 1, set.values[initial - 1 - i]);
  for (std::size_t i = 0; i < misses; ++i) add(slab_op::find, set.absent[i], 0, 0, absent_value);
  std::vector<std::size_t> order(b.ops.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), std::mt19937_64(seed));
  mixed_batch shuffled;
  for (std::size_t i : order) {
    shuffled.ops.push_back(b.ops[i]);
    shuffled.keys.push_back(b.keys[i]);
    shuffled.values.push_back(b.values[i]);
    shuffled.results.push_back(b.results[i]);
    shuffled.found.push_back(b.found[i]);
  }
  return shuffled;
}

SLUICE_BENCH_CASE("slab_hash", "concurrent mixes", gpu) {
  auto& ctx = session.gpu();
  const std::size_t initial = session.quick() ? std::size_t{1} << 20 : std::size_t{1} << 24, ops = initial;
  const key_set set(ctx, initial);
  const mix mixes[] = {{"Γ0 (0.5, 0.5, 0, 0)", 0.5, 0.5, 0, 0},
                       {"Γ1 (0.2, 0.2, 0.3, 0.3)", 0.2, 0.2, 0.3, 0.3},
                       {"Γ2 (0.1, 0.1, 0.4, 0.4)", 0.1, 0.1, 0.4, 0.4}};
  const auto betas = session.quick() ? std::vector<double>{0.7} : std::vector<double>{0.35, 0.7, 1.0};
  for (double beta : betas) {
    table_type table(ctx, {.buckets = detail::slab_hash::buckets_for(initial, table_type::slots_per_slab, beta),
                           .grow = false});
    table.insert_or_assign(ctx, set.d_keys.span(), set.d_values.span());
    const double utilization = table.stats(ctx).memory_utilization;
    for (const mix& m : mixes) {
      const mixed_batch batch = make_mix(set, initial, ops, m, std::bit_cast<std::uint64_t>(beta));
      const device_buffer<slab_op> d_ops(ctx, std::span<const slab_op>(batch.ops));
      const device_buffer<std::uint32_t> d_keys(ctx, std::span<const std::uint32_t>(batch.keys));
      const device_buffer<std::uint32_t> d_values(ctx, std::span<const std::uint32_t>(batch.values));
      device_buffer<std::uint32_t> found(ctx, ops), results(ctx, ops);
      const std::string name = std::string("mix ") + m.name + ", " + power_name(initial) + " keys, β " + fixed(beta, 2) +
                               ", utilization " + fixed(utilization, 2);
      const bench::work_description work{"slab_hash", name, ops, (13 + sector) * static_cast<double>(ops)};
      if (!session.runs("sluice::slab_hash", bench::role::subject)) continue;
      const auto t = bench::time_device(
          ctx,
          [&] {
            table.clear(ctx);
            table.insert_or_assign(ctx, set.d_keys.span(), set.d_values.span());
            found.fill_bytes(0xA5);
            results.fill_bytes(0xA5);
          },
          [&] { table.apply(ctx, d_ops.span(), d_keys.span(), d_values.span(), found.span(), results.span(), absent_value); },
          session.policy());
      bench::record_verified(session, work, "sluice::slab_hash", bench::role::subject, true, t,
                             [&] { return results.to_host() == batch.results && found.to_host() == batch.found; });
    }
  }
}

// ---- SlabAlloc -----------------------------------------------------------------------------------------------------------

/// Every warp allocates `per_warp` units; addresses[warp · per_warp + j] = the j-th.
__global__ void allocate_kernel(slab_alloc::ref_type pool, std::uint32_t per_warp, std::uint32_t* addresses) {
  slab_alloc::warp_allocator alloc(pool);
  const std::size_t warp = (blockIdx.x * std::size_t{blockDim.x} + threadIdx.x) / 32;
  for (std::uint32_t j = 0; j < per_warp; ++j) {
    const std::uint32_t address = alloc.allocate();
    if (threadIdx.x % 32 == 0) addresses[warp * per_warp + j] = address;
  }
}

/// allocate_kernel's count with allocate_each: `per_warp` (a multiple of 32) units a warp, one a lane a call.
__global__ void allocate_each_kernel(slab_alloc::ref_type pool, std::uint32_t per_warp, std::uint32_t* addresses) {
  slab_alloc::warp_allocator alloc(pool);
  const std::size_t warp = (blockIdx.x * std::size_t{blockDim.x} + threadIdx.x) / 32;
  for (std::uint32_t j = 0; j < per_warp; j += 32)
    addresses[warp * per_warp + j + threadIdx.x % 32] = alloc.allocate_each();
}

SLUICE_BENCH_CASE("slab_hash", "slab_alloc allocations", gpu) {
  auto& ctx = session.gpu();
  constexpr int threads = 256;
  constexpr std::uint32_t per_warp = 64;
  const unsigned blocks = static_cast<unsigned>(detail::one_wave_grid(ctx, allocate_kernel, threads, 1u << 20));
  const std::size_t allocations = std::size_t{blocks} * threads / 32 * per_warp;
  device_buffer<std::uint32_t> addresses(ctx, allocations);
  for (auto [variant, each] : {std::pair{slab_alloc_variant::light, false}, std::pair{slab_alloc_variant::regular, false},
                               std::pair{slab_alloc_variant::light, true}}) {
    // The seed's evaluation pool: 32 super blocks of 256 memory blocks (1 GiB of 128-byte units).
    slab_alloc pool(ctx, {.variant = variant, .blocks_per_super_block = 256, .super_blocks = 32});
    const std::string label = std::string("sluice::slab_alloc (") + std::string(to_string(variant)) +
                              (each ? ", allocate_each: a unit a lane)" : ")");
    const bench::work_description work{"slab_hash", "slab_alloc " + std::to_string(allocations) + " allocations, " +
                                                        std::to_string(per_warp) + " a warp, 1 GiB pool",
                                       allocations, 4.0 * static_cast<double>(allocations)};
    if (!session.runs(label, bench::role::subject)) continue;
    const auto t = bench::time_device(ctx, [&] { pool.reset(ctx); }, [&] {
      if (each) allocate_each_kernel<<<blocks, threads, 0, ctx.stream()>>>(pool.ref(), per_warp, addresses.data());
      else allocate_kernel<<<blocks, threads, 0, ctx.stream()>>>(pool.ref(), per_warp, addresses.data());
      SLUICE_CHECK_LAUNCH();
    }, session.policy());
    bench::record_verified(session, work, label, bench::role::subject, true, t, [&] {
      auto got = addresses.to_host();
      std::sort(got.begin(), got.end());
      return std::adjacent_find(got.begin(), got.end()) == got.end() && got.back() != slab_alloc::empty_address &&
             pool.units_in_use(ctx) == allocations;
    });
  }
}

// ---- group_by_reduce and unique ---------------------------------------------------------------------------------------

/// What automatic runs for u32 keys with V values (no_values: unique), n of them and `distinct` distinct.
template <class V>
group_by_algorithm resolved_for(std::size_t n, std::size_t distinct) {
  const auto asked = detail::group_by::choose<V, plus>("bench", group_by_algorithm::automatic);
  return detail::group_by::table_strategy(asked, n, static_cast<double>(distinct),
                                          sizeof(detail::group_by::slot<std::uint32_t, V>), detail::has_values<V>);
}

SLUICE_BENCH_CASE("slab_hash", "group_by_reduce and unique vs sorting", gpu) {
  auto& ctx = session.gpu();
  const std::size_t n = session.quick() ? std::size_t{1} << 24 : std::size_t{1} << 28;
  const std::size_t distinct = session.quick() ? std::size_t{1} << 16 : std::size_t{1} << 20;
  const auto pool = data::distinct_keys<std::uint32_t>(0, distinct);
  std::vector<std::uint32_t> keys(n), values(n);
  std::vector<std::uint32_t> sums(distinct, 0);
  std::vector<std::uint8_t> used(distinct, 0);
  std::mt19937_64 random(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t j = static_cast<std::size_t>(random() % distinct);
    keys[i] = pool[j];
    values[i] = static_cast<std::uint32_t>(i % 1000);
    sums[j] += values[i];
    used[j] = 1;
  }
  std::unordered_map<std::uint32_t, std::uint32_t> expected;
  for (std::size_t j = 0; j < distinct; ++j)
    if (used[j]) expected.emplace(pool[j], sums[j]);
  const device_buffer<std::uint32_t> d_keys(ctx, std::span<const std::uint32_t>(keys));
  const device_buffer<std::uint32_t> d_values(ctx, std::span<const std::uint32_t>(values));
  device_buffer<std::uint32_t> out_keys(ctx, distinct), out_values(ctx, distinct), sorted_keys(ctx, n), sorted_values(ctx, n);
  std::size_t groups = 0;
  const auto verify_groups = [&] {
    const auto k = out_keys.to_host(), v = out_values.to_host();
    if (groups != expected.size()) return false;
    for (std::size_t i = 0; i < groups; ++i) {
      const auto it = expected.find(k[i]);
      if (it == expected.end() || it->second != v[i]) return false;
    }
    return true;
  };
  const std::string tag = power_name(n) + " u32 pairs, " + power_name(distinct) + " distinct keys";
  const bench::work_description sum_work{"slab_hash", "group_by_reduce sum, " + tag, n,
                                         8.0 * static_cast<double>(n + expected.size())};
  const bench::work_description unique_work{"slab_hash", "unique, " + tag, n,
                                            4.0 * static_cast<double>(n + expected.size())};
  const auto policy = thrust::cuda::par.on(ctx.stream());
  // Baselines first: "vs base" is against them. The sort is in place, so it sorts copies.
  bench::measure(session, sum_work, "thrust sort_by_key + reduce_by_key", bench::role::baseline, true, [&] {
    SLUICE_CUDA_CHECK(cudaMemcpyAsync(sorted_keys.data(), d_keys.data(), n * 4, cudaMemcpyDeviceToDevice, ctx.stream()));
    SLUICE_CUDA_CHECK(cudaMemcpyAsync(sorted_values.data(), d_values.data(), n * 4, cudaMemcpyDeviceToDevice, ctx.stream()));
    thrust::sort_by_key(policy, sorted_keys.data(), sorted_keys.data() + n, sorted_values.data());
    const auto ends = thrust::reduce_by_key(policy, sorted_keys.data(), sorted_keys.data() + n, sorted_values.data(),
                                            out_keys.data(), out_values.data());
    groups = static_cast<std::size_t>(ends.first - out_keys.data());
  }, verify_groups);
  // Each strategy with the distinct count given and without (the sketch sizes open_addressing's table).
  const auto sweep = [&](const bench::work_description& work, bool hinted, auto resolved, auto run) {
    const std::string hint = hinted ? " (distinct given)" : "";
    for (auto algorithm : {group_by_algorithm::automatic, group_by_algorithm::open_addressing,
                           group_by_algorithm::partitioned, group_by_algorithm::slab_hash}) {
      const std::string tag = algorithm == group_by_algorithm::automatic ? "" : " [" + std::string(to_string(algorithm)) + "]";
      const group_by_options options{.distinct = hinted ? distinct : 0, .algorithm = algorithm};
      out_keys.fill_bytes(0xA5);
      run(work.runs(algorithm, resolved, work.name + hint), tag + hint, options);
    }
  };
  for (bool hinted : {true, false})
    sweep(sum_work, hinted, resolved_for<std::uint32_t>(n, distinct),
          [&](const bench::work_description& work, const std::string& tag, const group_by_options& options) {
            bench::measure(session, work, "sluice::group_by_reduce" + tag, bench::role::subject, true, [&] {
              groups = group_by_reduce(ctx, d_keys.span(), d_values.span(), out_keys.span(), out_values.span(), plus{},
                                       options);
            }, verify_groups);
          });
  const auto verify_unique = [&] {
    auto k = out_keys.to_host();
    if (groups != expected.size()) return false;
    for (std::size_t i = 0; i < groups; ++i)
      if (!expected.count(k[i])) return false;
    std::sort(k.begin(), k.begin() + static_cast<std::ptrdiff_t>(groups));
    return std::adjacent_find(k.begin(), k.begin() + static_cast<std::ptrdiff_t>(groups)) == k.begin() + static_cast<std::ptrdiff_t>(groups);
  };
  bench::measure(session, unique_work, "thrust sort + unique", bench::role::baseline, true, [&] {
    SLUICE_CUDA_CHECK(cudaMemcpyAsync(sorted_keys.data(), d_keys.data(), n * 4, cudaMemcpyDeviceToDevice, ctx.stream()));
    thrust::sort(policy, sorted_keys.data(), sorted_keys.data() + n);
    groups = static_cast<std::size_t>(thrust::unique_copy(policy, sorted_keys.data(), sorted_keys.data() + n, out_keys.data()) -
                                      out_keys.data());
  }, verify_unique);
  for (bool hinted : {true, false})
    sweep(unique_work, hinted, resolved_for<detail::no_values>(n, distinct),
          [&](const bench::work_description& work, const std::string& tag, const group_by_options& options) {
            bench::measure(session, work, "sluice::unique" + tag, bench::role::subject, true, [&] {
              groups = sluice::unique(ctx, d_keys.span(), out_keys.span(), options);
            }, verify_unique);
          });
}

// ---- stress: 10^9 mixed operations against a host model ------------------------------------------------------------------

SLUICE_BENCH_CASE("slab_hash_stress", "10^9 mixed operations checked against a model", gpu) {
  auto& ctx = session.gpu();
  const std::uint64_t total = session.quick() ? std::uint64_t{1} << 24 : 1000000000ull;
  const std::size_t universe = std::size_t{1} << 26, batch = std::size_t{1} << 22;
  const auto keys = data::distinct_keys<std::uint32_t>(0, universe);
  std::vector<std::uint32_t> value(universe, absent_value);  // the model: absent_value where absent
  std::vector<std::uint8_t> present(universe, 0);
  std::size_t size = 0;
  table_type table(ctx, {.capacity = universe / 2});
  std::mt19937_64 random(2026);
  std::vector<slab_op> ops(batch);
  std::vector<std::uint32_t> batch_keys(batch), batch_values(batch), expected_result(batch), expected_found(batch);
  device_buffer<slab_op> d_ops(ctx, batch);
  device_buffer<std::uint32_t> d_keys(ctx, batch), d_values(ctx, batch), found(ctx, batch), results(ctx, batch);
  double gpu_ms = 0;
  bool ok = true;
  std::uint64_t done = 0, batches = 0;
  cudaEvent_t start, stop;
  SLUICE_CUDA_CHECK(cudaEventCreate(&start));
  SLUICE_CUDA_CHECK(cudaEventCreate(&stop));
  while (done < total && ok) {
    // Distinct indices (an odd stride modulo the power-of-two universe is a permutation): every key at most
    // once a batch, so each result follows from the model whatever the order inside the batch.
    const std::uint64_t stride = random() | 1u, offset = random();
    for (std::size_t j = 0; j < batch; ++j) {
      const std::size_t i = static_cast<std::size_t>((offset + j * stride) % universe);
      const unsigned pick = static_cast<unsigned>(random() % 100);
      batch_keys[j] = keys[i];
      batch_values[j] = static_cast<std::uint32_t>(random());
      if (present[i]) {
        ops[j] = pick < 25 ? slab_op::erase : pick < 45 ? slab_op::insert_or_assign : pick < 55 ? slab_op::count : slab_op::find;
        expected_result[j] = ops[j] == slab_op::insert_or_assign ? 0 : 1;
        expected_found[j] = ops[j] == slab_op::find ? value[i] : absent_value;
        if (ops[j] == slab_op::erase) {
          present[i] = 0;
          value[i] = absent_value;
          --size;
        } else if (ops[j] == slab_op::insert_or_assign) {
          value[i] = batch_values[j];
        }
      } else {
        ops[j] = pick < 45 ? slab_op::insert_or_assign : pick < 50 ? slab_op::erase : pick < 60 ? slab_op::contains : slab_op::find;
        expected_result[j] = ops[j] == slab_op::insert_or_assign ? 1 : 0;
        expected_found[j] = absent_value;
        if (ops[j] == slab_op::insert_or_assign) {
          present[i] = 1;
          value[i] = batch_values[j];
          ++size;
        }
      }
    }
    d_ops.copy_from_host(ops);
    d_keys.copy_from_host(batch_keys);
    d_values.copy_from_host(batch_values);
    found.fill_bytes(0xA5);
    results.fill_bytes(0xA5);
    SLUICE_CUDA_CHECK(cudaEventRecord(start, ctx.stream()));
    table.apply(ctx, d_ops.span(), d_keys.span(), d_values.span(), found.span(), results.span(), absent_value);
    SLUICE_CUDA_CHECK(cudaEventRecord(stop, ctx.stream()));
    ok = results.to_host() == expected_result && found.to_host() == expected_found && table.size(ctx) == size;
    float ms = 0;
    SLUICE_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    gpu_ms += ms;
    done += batch;
    ++batches;
    if (batches % 16 == 0) table.flush(ctx);  // erased slots come back: a churning table should flush
  }
  // Nothing lost, nothing invented: the whole table against the model.
  if (ok) {
    device_buffer<std::uint32_t> all_keys(ctx, size), all_values(ctx, size);
    ok = table.retrieve_all(ctx, all_keys.span(), all_values.span()) == size;
    const auto k = all_keys.to_host(), v = all_values.to_host();
    std::vector<std::uint8_t> seen(universe, 0);
    std::unordered_map<std::uint32_t, std::size_t> index_of;
    index_of.reserve(size * 2);
    for (std::size_t i = 0; i < universe; ++i)
      if (present[i]) index_of.emplace(keys[i], i);
    for (std::size_t j = 0; ok && j < size; ++j) {
      const auto it = index_of.find(k[j]);
      ok = it != index_of.end() && !seen[it->second] && value[it->second] == v[j];
      if (ok) seen[it->second] = 1;
    }
  }
  (void)cudaEventDestroy(start);
  (void)cudaEventDestroy(stop);
  if (!ok) std::cerr << "bench: slab_hash stress: the table disagreed with the model after " << done << " operations\n";
  const bench::work_description work{"slab_hash_stress", std::to_string(done) + " mixed operations, 2^26-key universe, batches of 2^22",
                                     static_cast<std::size_t>(done), (13 + sector) * static_cast<double>(done)};
  bench::record_verified(session, work, "sluice::slab_hash", bench::role::subject, true,
                         bench::one_figure(gpu_ms, static_cast<int>(batches)), [&] { return ok; });
}

}  // namespace
