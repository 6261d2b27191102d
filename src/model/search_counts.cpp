// src/model/search_counts.cpp: the SPT counts of the batched searches (Karsin §6.1) as
// detail/search/kernels.cuh runs them: binary search on the sorted array (one query a thread, one wave),
// and the eytzinger (B = 1) or B-tree walk, each block caching the tree's top levels in shared memory.
// A walk's level is charged where its nodes live: shared memory for the cached levels (β from random
// node addresses through the bank model's wavefront count), else a random read of the node from the L2
// or DRAM, the L2 serving the levels whose touched nodes, with all the levels above, fit in it (the
// model of bench/cases/search.cu's bytes; caches beyond that are not modelled).
// Lower order, left out: the comparison of the final slot rank (one pass over the depth), layout builds.
#include "model/counts_support.hpp"
#include "model/families.hpp"
#include "model/occupancy.hpp"

#include <sluice/detail/merge_sort/bank_model.hpp>
#include <sluice/detail/search/layouts.hpp>
#include <sluice/detail/search/tuning.hpp>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace sluice::model {

namespace {

namespace se = sluice::detail::search;
using counts::words;

/// β of a warp whose lanes each read one random node of `node_words` words among `nodes` nodes starting
/// at node `first` (lanes on the same node are served by one broadcast).
double random_node_beta(double first, double nodes, double node_words) {
  std::mt19937_64 random(20261127);
  std::uniform_int_distribution<long long> pick(0, static_cast<long long>(nodes) - 1);
  const auto per_node = static_cast<int>(node_words);
  double wavefronts = 0;
  constexpr int requests = 256;
  for (int r = 0; r < requests; ++r) {
    std::vector<int> reads;
    for (int lane = 0; lane < 32; ++lane) reads.push_back(static_cast<int>(first) + static_cast<int>(pick(random)));
    wavefronts += static_cast<double>(sluice::detail::merge_sort::request_wavefronts(reads, per_node));
  }
  return wavefronts / requests;
}

void check_problem(const search_problem& q) {
  if (q.keys == 0) throw invalid_argument("model search", "--n", "must be at least 1 (keys)");
  if (q.queries == 0) throw invalid_argument("model search", "--m", "must be at least 1 (queries)");
  if (q.key_bytes == 0 || q.key_bytes > 32) throw invalid_argument("model search", "--key-bytes", "must be 1 to 32");
}

algorithm_model sorted_search(const device_profile& p, const search_problem& q, const register_table& regs) {
  const double queries = static_cast<double>(q.queries), n = static_cast<double>(q.keys);
  kernel_model k;
  k.name = "sorted_search";
  const int threads = se::tuning::sorted_block_threads;
  launch_plan plan{1, threads, 0, registers_of(regs, search_kernel_key("sorted", q.key_bytes, 0))};
  plan.blocks = one_wave_blocks(p.limits, plan, std::ceil(queries / threads));
  k.plan = plan;
  k.add(op::g, queries * (words(q.key_bytes) + words(q.out_bytes)));
  // Step d of every binary search reads one of 2^d keys (at most one a sector's worth of keys, one a
  // query); the L2 holds the steps whose sectors, with those of the steps above, fit in it.
  const int steps = counts::ceil_log2(n + 1);
  const double keys_per_sector = std::max(1.0, 32.0 / static_cast<double>(q.key_bytes));
  double footprint = 0;
  for (int d = 0; d < steps; ++d) {
    footprint += std::min({std::ldexp(1.0, d), n / keys_per_sector, queries}) * 32;
    counts::add_random_reads(k, p, queries, q.key_bytes, counts::l2_share(p, footprint), 1);
  }
  k.add(op::r, queries * steps * 8);  // a step: the midpoint, the address, the compare, two selects
  return {"binary search (sorted layout): " + std::to_string(q.keys) + " keys, " + std::to_string(q.queries) +
              " queries",
          {k}};
}

algorithm_model tree_search(const device_profile& p, const search_problem& q, const register_table& regs) {
  const double queries = static_cast<double>(q.queries);
  const bool btree = q.layout == search_layout::btree;
  const std::size_t node_bytes = btree ? (q.node_bytes != 0 ? q.node_bytes : se::tuning::btree_node_bytes) : q.key_bytes;
  if (node_bytes % q.key_bytes != 0) throw invalid_argument("model search", "--node-bytes", "must be a multiple of the key bytes");
  const auto b = static_cast<int>(node_bytes / q.key_bytes);
  const se::tree_shape t = se::make_tree_shape(q.keys, static_cast<se::index_t>(b));
  const int qpt = tree_queries_per_thread(b, q.key_bytes, se::tuning::node_words_in_flight, se::tuning::max_queries_per_thread);
  const int threads = se::tuning::tree_block_threads;
  // tree_cache_bytes: the SM's shared memory split among tree_blocks_per_sm blocks, less the reserve.
  const std::size_t share = p.limits.shared_memory_per_sm / se::tuning::tree_blocks_per_sm;
  const std::size_t cache_bytes = std::min(p.limits.shared_memory_per_block_optin,
                                           share > se::tuning::shared_reserve_bytes ? share - se::tuning::shared_reserve_bytes : 0);
  const double cached_nodes = std::min(static_cast<double>(t.nodes), std::floor(static_cast<double>(cache_bytes / node_bytes)));
  launch_plan plan{1, threads, static_cast<std::size_t>(cached_nodes) * node_bytes,
                   registers_of(regs, search_kernel_key("tree", q.key_bytes, b))};
  plan.blocks = one_wave_blocks(p.limits, plan, std::ceil(queries / (static_cast<double>(threads) * qpt)));
  kernel_model k;
  k.name = btree ? "btree_search (B = " + std::to_string(b) + ")" : "eytzinger_search";
  k.plan = plan;
  const double node_words = words(node_bytes);
  // Every block copies the cached prefix from global memory (the L2, after the first) to shared memory.
  const double cached_words = cached_nodes * node_words * static_cast<double>(plan.blocks);
  k.add(op::l2, cached_words, 4);  // a word a thread a step: four steps' loads in flight
  k.add_shared(cached_words, 1, 4);
  k.add(op::y, static_cast<double>(plan.blocks) * threads);
  k.add(op::g, queries * (words(q.key_bytes) + words(q.out_bytes)));
  // The walk: level d holds (B+1)^d nodes from node first_d on (level H only the L present ones); a query
  // visits one node a level, level H only where its path has a node there.
  double first = 0, width = 1, footprint = 0;
  for (se::index_t d = 0; d <= t.last_depth; ++d) {
    const bool last = d == t.last_depth;
    const double present = last ? static_cast<double>(t.last_level_nodes) : width;
    const double visits = queries * present / width;
    const double cached = std::clamp((cached_nodes - first) / present, 0.0, 1.0);
    if (cached > 0)
      k.add_shared(visits * cached * node_words, random_node_beta(first, std::min(present, cached_nodes - first), node_words),
                   qpt * node_words);
    if (cached < 1) {
      footprint += std::min(present, visits) * static_cast<double>(node_bytes);
      counts::add_random_reads(k, p, visits * (1 - cached), node_bytes, counts::l2_share(p, footprint), qpt);
    }
    k.add(op::r, visits * (b + 12), qpt);  // the node's B compares, the child's index, the answer's slot
    first += width;
    width *= static_cast<double>(t.fan_out());
  }
  return {std::string(btree ? "B-tree" : "eytzinger") + " search: " + std::to_string(q.keys) + " keys, " +
              std::to_string(q.queries) + " queries, " + std::to_string(t.last_depth + 1) + " levels, " +
              std::to_string(static_cast<long long>(cached_nodes)) + " nodes cached a block, " + std::to_string(qpt) +
              " queries a thread",
          {k}};
}

}  // namespace

algorithm_model batched_search(const device_profile& p, const search_problem& q, const register_table& regs) {
  check_problem(q);
  return q.layout == search_layout::sorted ? sorted_search(p, q, regs) : tree_search(p, q, regs);
}

}  // namespace sluice::model
