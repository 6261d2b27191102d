// Benchmark: batched search (Karsin ch. 6). lower_bound of Q = 2^26 uniform u32 queries into N = 2^16 …
// 2^28 sorted u32 keys (step 4×; quick: 2^26) in every layout, random and sorted queries, against
// thrust::lower_bound (vectorised, the same queries and keys) in the same run; and PBS / PBS-CF / PBS-CL
// against each other (naive PBS is the rows' baseline) on random and adversarial (Cor. 6.2.1) queries,
// Q = 2^26, N = 2^10 … 2^13.
//
// Rows: thrust::lower_bound (baseline); sluice::lower_bound (automatic: merge path for sorted queries; for
// random ones sort_queries where the keys exceed the L2 (N ≥ 2^24 on an H100), else a temporary two-sector
// btree built and freed inside the call), its binary search and, for random queries, sort_queries named
// explicitly; search_index (built once, outside the timing) in eytzinger and btree B = 8, 16, 32.
//
// Verification: every row's output is compared with thrust's (thrust::lower_bound for the bounds,
// thrust::upper_bound − 1 for the predecessors), itself checked against std::lower_bound on a sample.
//
// Bytes (the GB/s column): a per-query ESTIMATE of DRAM traffic from the layout, not a floor: the query
// read (4 B) and the answer written (4 B), plus for every level of the search whose nodes do not fit in
// the L2 together with all the levels above it, the bytes one query reads there: one 32-byte sector for
// eytzinger, one node (B·4 bytes) for btree, one sector for each binary-search step of sorted / thrust
// whose probes span more than the L2 (the last three steps share a sector). A partial last level counts
// by the share of queries that reach it. docs/perf-notes.md compares this with the measured time. Rows
// of sorted queries are charged the merge's floor instead, 4·N + 8·Q bytes (keys and queries read once,
// answers written), since sorted queries share their paths through the caches. sort_queries is charged its
// streams, 88 bytes a query plus the keys read once (4·N): the indices written (4), two radix passes of
// (query, index) pairs (2 × 16), the queries read and counts written by the bucket search (8), two passes of
// (index, count) pairs (2 × 16), and the restore window reading (index, count) and writing the answer (12).
#include "harness/measure.hpp"

#include <sluice/data/generate.cuh>
#include <sluice/data/pbs_queries.hpp>
#include <sluice/search.cuh>

#include <thrust/binary_search.h>
#include <thrust/execution_policy.h>
#include <thrust/sort.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace {

using namespace sluice;

constexpr std::size_t query_count = std::size_t{1} << 26;
constexpr double sector = 32.0;

/// Bytes a query reads beyond the L2 when every query visits one node a level, level d holding
/// level_nodes(d) nodes of node_bytes (see the header).
template <class LevelNodes>
double missed_bytes(std::size_t total_nodes, double node_bytes, double access_bytes, double l2, double keys_per_node,
                    LevelNodes level_nodes) {
  double resident = 0, missed = 0;
  std::size_t placed = 0;
  for (int d = 0; placed < total_nodes; ++d) {
    const double full = level_nodes(d);
    const double present = std::min<double>(full, static_cast<double>(total_nodes - placed));
    placed += static_cast<std::size_t>(present);
    resident += present * node_bytes;
    // Every query visits each full level; the partial last one only for the share of the key gaps its
    // nodes own, (B + 1) a node.
    const double share = present < full ? std::min(1.0, present * (keys_per_node + 1) / (static_cast<double>(total_nodes) * keys_per_node + 1)) : 1.0;
    if (resident > l2) missed += access_bytes * share;
  }
  return missed;
}

double bytes_per_query(search_layout layout, std::size_t n, std::size_t keys_per_node, double l2) {
  const double io = 8.0;  // query + answer
  const auto nodes = (n + keys_per_node - 1) / keys_per_node;
  switch (layout) {
    case search_layout::eytzinger:
      return io + missed_bytes(n, 4.0, sector, l2, 1.0, [](int d) { return std::ldexp(1.0, d); });
    case search_layout::btree: {
      const double node = 4.0 * static_cast<double>(keys_per_node);
      return io + missed_bytes(nodes, node, node, l2, static_cast<double>(keys_per_node),
                               [&](int d) { return std::pow(static_cast<double>(keys_per_node + 1), d); });
    }
    case search_layout::sorted: break;
  }
  // Binary search: step d probes 2^d distinct positions, each in its own sector until they are 8 keys apart.
  const std::size_t sectors = (n + 7) / 8;
  return io + missed_bytes(sectors, sector, sector, l2, 8.0, [](int d) { return std::ldexp(1.0, d); });
}

/// sort_queries' DRAM bytes for the whole batch (see the header).
double sort_queries_bytes(std::size_t n, std::size_t queries) {
  return 88.0 * static_cast<double>(queries) + 4.0 * static_cast<double>(n);
}

std::vector<std::size_t> key_sizes(const bench::case_context& session) {
  return session.quick() ? std::vector<std::size_t>{std::size_t{1} << 26} : bench::powers_of_two(16, 28, 2);
}

using bench::power_name;

/// thrust's answers as the rows' oracle, after a sample of them is checked against std::lower_bound.
std::vector<std::int32_t> checked_thrust(const device_buffer<std::uint32_t>& keys, const device_buffer<std::uint32_t>& queries,
                                         device_buffer<std::int32_t>& out) {
  auto& ctx = keys.ctx();
  thrust::lower_bound(thrust::cuda::par.on(ctx.stream()), keys.data(), keys.data() + keys.size(), queries.data(),
                      queries.data() + queries.size(), out.data());
  auto expected = out.to_host();
  const auto host_keys = keys.to_host();
  const auto host_queries = queries.to_host();
  for (std::size_t i = 0; i < host_queries.size(); i += 4099) {
    const auto rank = std::lower_bound(host_keys.begin(), host_keys.end(), host_queries[i]) - host_keys.begin();
    if (rank != expected[i]) throw error("bench search: thrust::lower_bound disagrees with std::lower_bound");
  }
  return expected;
}

void lower_bound_rows(bench::case_context& session, bool sorted_queries) {
  auto& ctx = session.gpu();
  const double l2 = static_cast<double>(ctx.properties().l2_cache_bytes);
  const std::string kind = sorted_queries ? "sorted" : "random";
  for (std::size_t n : key_sizes(session)) {
    device_buffer<std::uint32_t> keys(ctx, n), queries(ctx, query_count);
    device_buffer<std::int32_t> out(ctx, query_count);
    data::generate(ctx, keys.span(), {data::distribution::sorted, 0, 0.0, n + 7});
    data::generate(ctx, queries.span(), {data::distribution::uniform, 0, 0.0, n + 8});
    if (sorted_queries) thrust::sort(thrust::cuda::par.on(ctx.stream()), queries.data(), queries.data() + query_count);
    const auto expected = checked_thrust(keys, queries, out);
    auto verify = [&] { return out.to_host() == expected; };
    const std::string name = "lower_bound u32, 2^26 " + kind + " queries, N = " + power_name(n);
    // Sorted queries: every row is charged the merge's floor (each key and query read, each answer written).
    const double merge_floor = 4.0 * static_cast<double>(n) + 8.0 * static_cast<double>(query_count);
    // The model's problem: the strategy the row runs (binary_search, eytzinger, btree walks of a built
    // index; what else runs is named so the model says it has no counts for it).
    auto work = [&](search_layout layout, std::size_t b, const std::string& algorithm = "") {
      const double bytes = sorted_queries ? merge_floor : static_cast<double>(query_count) * bytes_per_query(layout, n, b, l2);
      bench::work_description w{"search", name, query_count, bytes};
      w.model = model::problem{.family = "search", .algorithm = algorithm, .n = n, .m = query_count,
                               .key_bytes = sizeof(std::uint32_t), .keys_per_node = static_cast<int>(b)};
      return w;
    };
    out.fill_bytes(0xA5);
    bench::measure(session, work(search_layout::sorted, 1), "thrust::lower_bound", bench::role::baseline, true, [&] {
      thrust::lower_bound(thrust::cuda::par.on(ctx.stream()), keys.data(), keys.data() + n, queries.data(),
                          queries.data() + query_count, out.data());
    }, verify);
    // The free function: automatic (for random queries sort_queries or a temporary btree, its build timed
    // too: 8 bytes a key more), and the binary search on the array as given (thrust's algorithm).
    const search_algorithm automatic = detail::search::chosen_algo<std::uint32_t, std::less<>>(
        ctx, {.queries_sorted = sorted_queries}, n, query_count);
    const std::size_t default_b = static_cast<std::size_t>(detail::search::btree_keys_per_node<std::uint32_t>(0, "bench"));
    auto automatic_work = work(sorted_queries ? search_layout::sorted : search_layout::btree, default_b,
                               "automatic: merge_path, sort_queries or a btree with its build");
    if (automatic == search_algorithm::btree) automatic_work.bytes += 8.0 * static_cast<double>(n);
    if (automatic == search_algorithm::sort_queries) automatic_work.bytes = sort_queries_bytes(n, query_count);
    out.fill_bytes(0xA5);
    bench::measure(session, automatic_work.runs(search_algorithm::automatic, automatic), "sluice::lower_bound",
                   bench::role::subject, true, [&] {
      sluice::lower_bound(ctx, keys.span(), queries.span(), out.span(), {.queries_sorted = sorted_queries});
    }, verify);
    out.fill_bytes(0xA5);
    bench::measure(session,
                   work(search_layout::sorted, 1, "binary_search")
                       .runs(search_algorithm::binary_search, search_algorithm::binary_search),
                   "sluice::lower_bound [binary_search]", bench::role::subject, true,
                   [&] {
                     sluice::lower_bound(ctx, keys.span(), queries.span(), out.span(),
                                         {.algorithm = search_algorithm::binary_search});
                   }, verify);
    if (!sorted_queries) {
      auto sort_work = work(search_layout::sorted, 1, "sort_queries");
      sort_work.bytes = sort_queries_bytes(n, query_count);
      out.fill_bytes(0xA5);
      bench::measure(session, sort_work.runs(search_algorithm::sort_queries, search_algorithm::sort_queries),
                     "sluice::lower_bound [sort_queries]", bench::role::subject, true, [&] {
        sluice::lower_bound(ctx, keys.span(), queries.span(), out.span(), {.algorithm = search_algorithm::sort_queries});
      }, verify);
    }
    {
      const search_index<std::uint32_t> index(ctx, keys.span(), search_layout::eytzinger);
      out.fill_bytes(0xA5);
      bench::measure(session, work(search_layout::eytzinger, 1, "eytzinger"), "sluice::search_index [eytzinger]", bench::role::subject, true,
                     [&] { index.lower_bound(ctx, queries.span(), out.span()); }, verify);
    }
    for (int b : {8, 16, 32}) {
      const search_index<std::uint32_t> index(ctx, keys.span(), search_layout::btree, {.btree_keys_per_node = b});
      out.fill_bytes(0xA5);
      bench::measure(session, work(search_layout::btree, static_cast<std::size_t>(b), "btree"),
                     "sluice::search_index [btree B=" + std::to_string(b) + "]", bench::role::subject, true,
                     [&] { index.lower_bound(ctx, queries.span(), out.span()); }, verify);
    }
  }
}

}  // namespace

SLUICE_BENCH_CASE("search", "lower_bound u32 random queries", gpu) { lower_bound_rows(session, false); }

SLUICE_BENCH_CASE("search", "lower_bound u32 sorted queries", gpu) { lower_bound_rows(session, true); }

SLUICE_BENCH_CASE("search", "pbs_predecessor u32", gpu) {
  auto& ctx = session.gpu();
  const std::vector<std::size_t> sizes =
      session.quick() ? std::vector<std::size_t>{std::size_t{1} << 12} : bench::powers_of_two(10, 13, 1);
  for (std::size_t n : sizes) {
    // Distinct sorted keys (the adversarial construction needs them), made on the host.
    std::mt19937_64 random(n);
    std::vector<std::uint32_t> host_keys(n);
    std::uint32_t value = 0;
    for (auto& k : host_keys) k = value += 1 + static_cast<std::uint32_t>(random() % 100000);
    const device_buffer<std::uint32_t> keys(ctx, std::span<const std::uint32_t>(host_keys));
    device_buffer<std::int32_t> out(ctx, query_count);
    for (bool adversarial : {false, true}) {
      device_buffer<std::uint32_t> queries(ctx, query_count);
      if (adversarial) {
        queries.copy_from_host(data::pbs_adversarial_queries(std::span<const std::uint32_t>(host_keys), query_count, n));
      } else {
        data::generate(ctx, queries.span(), {data::distribution::uniform, std::uint64_t{value} + 1, 0.0, n + 3});
      }
      thrust::upper_bound(thrust::cuda::par.on(ctx.stream()), keys.data(), keys.data() + n, queries.data(),
                          queries.data() + query_count, out.data());
      auto expected = out.to_host();
      for (auto& e : expected) --e;  // predecessor = upper_bound − 1
      auto verify = [&] { return out.to_host() == expected; };
      const std::string name = std::string("pbs_predecessor u32, 2^26 ") + (adversarial ? "adversarial" : "random") +
                               " queries, N = " + power_name(n);
      // Bytes: the query read and the answer written; the keys are read once a block.
      const bench::work_description work{"search", name, query_count, 8.0 * static_cast<double>(query_count)};
      for (pbs_algorithm algo : {pbs_algorithm::pbs, pbs_algorithm::pbs_cf, pbs_algorithm::pbs_cl}) {
        const std::string label = algo == pbs_algorithm::pbs ? "pbs" : algo == pbs_algorithm::pbs_cf ? "pbs_cf" : "pbs_cl";
        out.fill_bytes(0xA5);
        bench::measure(session, work, "sluice::pbs_predecessor [" + label + "]",
                       algo == pbs_algorithm::pbs ? bench::role::baseline : bench::role::subject, true,
                       [&] { pbs_predecessor(ctx, keys.span(), queries.span(), out.span(), {.algorithm = algo}); }, verify);
      }
    }
  }
}
