// src/model/merge_sort_counts.cpp: the SPT counts of the pairwise merge sort (Karsin §7.1) and GPU-MMS
// (§7.3) as sluice implements them. Counts are device-wide and per element n unless stated; "a thread"
// means one of the kernel's threads. Lower-order terms left out: the split-array reads of the merge
// kernel (8 bytes a tile), the cudaMemsetAsync of the partition state (counted as a launch only),
// and the repair paths taken only under comparators that are not strict weak orders.
#include "model/counts_support.hpp"
#include "model/families.hpp"
#include "model/occupancy.hpp"

#include <sluice/detail/merge_sort/bank_model.hpp>
#include <sluice/detail/merge_sort/gpu_mms_plan.hpp>
#include <sluice/detail/merge_sort/tuning.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace sluice::model {

namespace {

namespace ms = sluice::detail::merge_sort;
namespace mms = sluice::detail::merge_sort::gpu_mms;
using counts::ceil_log2;
using counts::words;

// ---- β from the bank model -------------------------------------------------------------------------

/// A key of `Words` random 32-bit words, ordered lexicographically: the bank model's stand-in for any key
/// of that width (it only needs the order and the width).
template <int Words>
struct word_key {
  std::array<std::uint32_t, Words> w;
};
template <int Words>
struct word_less {
  bool operator()(const word_key<Words>& a, const word_key<Words>& b) const { return a.w < b.w; }
};

/// β averaged over four tiles of uniform random keys (a fixed seed: the same β every run).
template <int Items, int Words>
double bank_model_beta(bool block_sort) {
  using key = word_key<Words>;
  constexpr int threads = ms::tuning::block_threads;
  constexpr int tile = threads * Items;
  std::mt19937_64 random(20261127);
  ms::bank_statistics statistics;
  for (int sample = 0; sample < 4; ++sample) {
    std::vector<key> keys(tile);
    for (key& k : keys)
      for (std::uint32_t& x : k.w) x = static_cast<std::uint32_t>(random());
    if (block_sort) {
      statistics.add(ms::sort_tile_reads<Items>(keys, threads, word_less<Words>{}));
    } else {
      std::sort(keys.begin(), keys.begin() + tile / 2, word_less<Words>{});
      std::sort(keys.begin() + tile / 2, keys.end(), word_less<Words>{});
      statistics.add(ms::merge_tile_reads<Items>(keys, tile / 2, threads, word_less<Words>{}));
    }
  }
  return statistics.beta();
}

template <int Items>
double beta_for_items(int key_words, bool block_sort) {
  if (key_words <= 1) return bank_model_beta<Items, 1>(block_sort);
  if (key_words <= 2) return bank_model_beta<Items, 2>(block_sort);
  if (key_words <= 4) return bank_model_beta<Items, 4>(block_sort);
  return bank_model_beta<Items, 8>(block_sort);
}

template <std::size_t... I>
double beta_compiled(int items, int key_words, bool block_sort, std::index_sequence<I...>) {
  double beta = 0;
  const bool found = ((items == ms::tuning::compiled_items[I]
                           ? (beta = beta_for_items<ms::tuning::compiled_items[I]>(key_words, block_sort), true)
                           : false) ||
                      ...);
  if (!found) throw invalid_argument("model merge_sort", "--items", "is " + std::to_string(items) + ": not a compiled E");
  return beta;
}

void require_compiled(int items) {
  for (int e : ms::tuning::compiled_items)
    if (e == items) return;
  std::string list;
  for (int e : ms::tuning::compiled_items) list += (list.empty() ? "" : ", ") + std::to_string(e);
  throw invalid_argument("model merge_sort", "--items", "is " + std::to_string(items) + ": must be one of the compiled " + list);
}

void check_problem(const merge_sort_problem& q) {
  if (q.n == 0) throw invalid_argument("model merge_sort", "--n", "must be at least 1");
  if (q.key_bytes == 0 || q.key_bytes > 32) throw invalid_argument("model merge_sort", "--key-bytes", "must be 1 to 32");
  if (q.value_bytes > 32) throw invalid_argument("model merge_sort", "--value-bytes", "must be 0 to 32");
  if (q.key_align == 0 || q.key_align > 16 || (q.key_align & (q.key_align - 1)) != 0 || q.key_bytes % q.key_align != 0)
    throw invalid_argument("model merge_sort", "--key-align", "must be a power of two up to 16 that divides the key bytes");
}

// ---- pairwise ---------------------------------------------------------------------------------------------

/// One merge of a tile's pieces by its threads (block::merge_in_shared, serial_merge.hpp): each thread's
/// merge-path search over `range` keys (two independent reads a step), its split written and the
/// neighbour's read, the E + 2 dependent reads of the serial merge (β from the bank model), the values
/// gathered by index, and the serial merge's integer work (a compare, three selects, advance and clamp).
void add_tile_merge(kernel_model& k, double elements, double items, double key_words, double value_words, double range,
                    double beta) {
  const double threads = elements / items;
  k.add_shared(threads * ceil_log2(range + 1) * 2 * key_words, 1, 2 * key_words);
  k.add_shared(threads * 3, 1, 1);
  k.add_shared(threads * (items + 2) * key_words, beta, key_words);
  if (value_words > 0) k.add_shared(elements * value_words, 1, items * value_words);
  k.add(op::r, elements * (3 * key_words + 6));
}

}  // namespace

double pairwise_beta(int items, std::size_t key_bytes, bool block_sort) {
  if (key_bytes == 0 || key_bytes > 32) throw invalid_argument("model merge_sort", "--key-bytes", "must be 1 to 32");
  return beta_compiled(items, static_cast<int>(words(key_bytes)), block_sort,
                       std::make_index_sequence<std::size(ms::tuning::compiled_items)>{});
}

algorithm_model pairwise_merge_sort(const device_profile& p, const merge_sort_problem& q, const register_table& regs) {
  check_problem(q);
  const int items = q.items_per_thread != 0 ? q.items_per_thread : ms::tuning::items_per_thread(q.key_bytes);
  require_compiled(items);
  const int threads = ms::tuning::block_threads;
  const double n = static_cast<double>(q.n);
  const double e = items;
  const double tile = static_cast<double>(threads) * items;
  const double tiles = std::ceil(n / tile);
  const int rounds = ceil_log2(tiles);
  const double kw = words(q.key_bytes), vw = words(q.value_bytes), ew = kw + vw;
  const std::size_t shared = pairwise_shared_bytes(threads, items, q.key_bytes, q.value_bytes);
  const double block_beta = q.block_sort_beta > 0 ? q.block_sort_beta : pairwise_beta(items, q.key_bytes, true);
  const double merge_beta = q.merge_beta > 0 ? q.merge_beta : pairwise_beta(items, q.key_bytes, false);
  const double launched = tiles * threads;
  const auto key = [&](const char* kernel) { return pairwise_kernel_key(kernel, q.key_bytes, q.value_bytes, items); };

  algorithm_model m;
  m.name = "pairwise merge sort: n = " + std::to_string(q.n) + ", " + std::to_string(q.key_bytes) + "-byte keys" +
           (q.value_bytes > 0 ? ", " + std::to_string(q.value_bytes) + "-byte values" : "") + ", NT = " +
           std::to_string(threads) + ", E = " + std::to_string(items) + ", " + std::to_string(rounds) + " rounds";

  // Block sort (block_sort_kernel): the tile to shared memory (E loads a thread before its stores) and to
  // registers, the odd-even network (E passes of ⌊E/2⌋ compare-swaps), log2 NT merge rounds in shared
  // memory (registers to shared, then the tile merge), and the sorted tile out through shared memory.
  kernel_model block;
  block.name = "block_sort";
  block.plan = {static_cast<std::uint64_t>(tiles), threads, shared, registers_of(regs, key("block_sort"))};
  block.add(op::g, 2 * n * ew, e * ew);
  block.add_shared(2 * n * ew, 1, e * ew);
  block.add(op::r, n * std::floor(e / 2) * (3 * kw + 2 * vw));
  double block_syncs = 2;
  for (int coop = 2; coop <= threads; coop *= 2) {
    block.add_shared(n * ew, 1, e * ew);
    add_tile_merge(block, n, e, kw, vw, coop / 2.0 * e, block_beta);
    block_syncs += vw > 0 ? 5 : 4;  // two around the store, the split, the consistency vote, the values
  }
  block.add_shared(2 * n * ew, 1, e * ew);
  block.add(op::y, launched * block_syncs);
  m.kernels.push_back(block);
  if (rounds == 0) return m;

  kernel_model state;
  state.name = "memset (partition state)";
  state.oversubscription = 1;
  m.kernels.push_back(state);

  // Partition (partition_kernel), one thread a tile boundary: a merge-path search in global memory over
  // the pair's runs of tile·2^r keys, two independent random reads a step (the block's last thread
  // searches its neighbour's boundary too). The runs were written by the previous kernel: the L2 holds
  // its share of them.
  kernel_model partition;
  partition.name = "partition";
  partition.launches = static_cast<std::uint64_t>(rounds);
  const int partition_threads = ms::tuning::partition_threads;
  const double partition_blocks = std::ceil(tiles / partition_threads);
  partition.plan = {static_cast<std::uint64_t>(partition_blocks), partition_threads,
                    static_cast<std::size_t>(partition_threads) * 8 + 16, registers_of(regs, key("partition"))};
  double reads = 0;
  for (int r = 0; r < rounds; ++r) {
    const double run = std::min(tile * std::ldexp(1.0, r), n);
    reads += tiles * (1 + 1.0 / partition_threads) * ceil_log2(run + 1) * 2;
  }
  counts::add_random_reads(partition, p, reads, q.key_bytes, counts::l2_share(p, n * ew * 4), 2);
  partition.add(op::r, reads / 2 * 12);  // a step: midpoint, two addresses, the compare, the bounds
  partition.add(op::g, rounds * tiles * 2);  // the splits stored
  partition.add(op::y, rounds * partition_blocks * partition_threads * 4);
  partition.add(op::ag, rounds * partition_blocks);  // the blocks' finish counter
  m.kernels.push_back(partition);

  // Merge (merge_kernel): the tile's two pieces loaded to shared memory (E loads a thread before its
  // stores), the tile merge over the whole tile, the tile out through shared memory.
  kernel_model merge;
  merge.name = "merge";
  merge.launches = static_cast<std::uint64_t>(rounds);
  merge.plan = {static_cast<std::uint64_t>(tiles), threads, shared, registers_of(regs, key("merge"))};
  const double all = rounds * n;
  merge.add(op::g, 2 * all * ew, e * ew);
  merge.add_shared(all * ew, 1, e * ew);
  add_tile_merge(merge, all, e, kw, vw, tile / 2, merge_beta);
  merge.add_shared(2 * all * ew, 1, e * ew);
  merge.add(op::y, rounds * launched * (vw > 0 ? 5 : 4));
  m.kernels.push_back(merge);
  return m;
}

// ---- GPU-MMS ---------------------------------------------------------------------------------------------

namespace {

struct warp_shape {
  int warps_per_block = 1;
  std::size_t shared_bytes = 0;
};

/// gpu_mms.cuh's shape_warp_launch: as many warps (up to the tuning's) as the opt-in shared memory holds.
warp_shape shape_warps(const device_profile& p, std::size_t per_warp_bytes) {
  const std::size_t fit = std::min<std::size_t>(p.limits.shared_memory_per_block_optin / per_warp_bytes,
                                                static_cast<std::size_t>(mms::tuning::warps_per_block));
  if (fit < 1)
    throw invalid_argument("model merge_sort", "--ways",
                           "needs " + std::to_string(per_warp_bytes) + " bytes of shared memory a warp; a block has " +
                               std::to_string(p.limits.shared_memory_per_block_optin));
  return {static_cast<int>(fit), per_warp_bytes * fit};
}

std::size_t round_up(std::size_t x, std::size_t unit) { return (x + unit - 1) / unit * unit; }

}  // namespace

algorithm_model gpu_mms_sort(const device_profile& p, const merge_sort_problem& q, const register_table& regs) {
  check_problem(q);
  const int ways = q.ways != 0 ? q.ways : mms::tuning::ways;
  if (ways < 2 || ways > 32 || (ways & (ways - 1)) != 0)
    throw invalid_argument("model merge_sort", "--ways", "is " + std::to_string(ways) + ": must be 2, 4, 8, 16 or 32");
  const double log_ways = ceil_log2(ways);
  const bool tagged = q.stability_observable || q.value_bytes > 0;
  const std::size_t tag_bytes = q.n < 0xFFFFFFFFu ? 4 : 8;
  const std::size_t item_bytes =
      tagged ? round_up(round_up(q.key_bytes, tag_bytes) + tag_bytes, std::max(q.key_align, tag_bytes)) : q.key_bytes;
  const double n = static_cast<double>(q.n);
  const double w = mms::w;
  const double kw = words(q.key_bytes), iw = words(item_bytes), vw = words(q.value_bytes);
  const double compare_words = kw + (tagged ? 1 : 0);
  const int rounds = mms::merge_rounds(q.n, ways);
  const auto key = [&](const char* kernel, int k) { return gpu_mms_kernel_key(kernel, item_bytes, tagged, k); };

  algorithm_model m;
  m.name = "GPU-MMS: n = " + std::to_string(q.n) + ", " + std::to_string(q.key_bytes) + "-byte keys" +
           (q.value_bytes > 0 ? ", " + std::to_string(q.value_bytes) + "-byte values" : "") + ", " +
           (tagged ? "(key, index) items of " + std::to_string(item_bytes) + " bytes" : "untagged") + ", K = " +
           std::to_string(ways) + ", " + std::to_string(rounds) + " merge rounds";

  // The last kernel writes keys, and values gathered by the items' tags (random reads).
  const auto add_final_output = [&](kernel_model& k, double ilp) {
    k.add(op::g, n * kw, ilp * kw);
    if (vw > 0) {
      counts::add_random_reads(k, p, n, q.value_bytes, counts::l2_share(p, n * vw * 4), ilp);
      k.add(op::g, n * vw, ilp * vw);
    }
  };

  // Base case (base_case_kernel): a warp fills its w×w tile row by row, runs 2·log w + 1 shearsort passes
  // (each row or column a warp bitonic sort in registers of log w(log w + 1)/2 steps, rows_in_flight at a
  // time), and drains it row by row. A bitonic step is a shuffle per word of the item, then the compare
  // and the keep-or-take select.
  const warp_shape base_shape = shape_warps(p, item_bytes * mms::tile_items);
  const double tiles = std::ceil(n / mms::tile_items);
  kernel_model base;
  base.name = "base_case";
  base.plan = {static_cast<std::uint64_t>(std::ceil(tiles / base_shape.warps_per_block)), base_shape.warps_per_block * mms::w,
               base_shape.shared_bytes, registers_of(regs, key("base_case", 0))};
  base.add(op::g, n * kw, kw);
  if (rounds == 0) add_final_output(base, 1);
  else base.add(op::g, n * iw, iw);
  const double passes = 2 * mms::shearsort_rounds + 1;
  const double steps = mms::log_w * (mms::log_w + 1) / 2.0;
  base.add_shared(2 * n * iw, 1, iw);
  base.add_shared(passes * 2 * n * iw, 1, gpu_mms_rows_in_flight * iw);
  base.add(op::x, passes * steps * n * iw, gpu_mms_rows_in_flight * iw);
  base.add(op::r, passes * steps * n * (compare_words + iw + 4), gpu_mms_rows_in_flight);
  m.kernels.push_back(base);

  // Merge rounds. The residency of the merge kernel sets the tasks a round is cut into (plan_round).
  const warp_shape heap_shape = shape_warps(p, item_bytes * static_cast<std::size_t>(mms::heap_nodes(ways)) * mms::w);
  const int merge_registers = registers_of(regs, key("merge", ways));
  const occupancy merge_occupancy =
      resident_blocks(p.limits, {1, heap_shape.warps_per_block * mms::w, heap_shape.shared_bytes, merge_registers});
  const auto resident_warps = static_cast<std::size_t>(p.limits.sm_count) *
                              static_cast<std::size_t>(merge_occupancy.blocks_per_sm) *
                              static_cast<std::size_t>(heap_shape.warps_per_block);
  // A refill (fillEmptyNode down the path, pipelined): per level the two children's last items (a
  // broadcast read each), the pair loaded and stored back (2 + 2 node reads and writes); the root read
  // and the fresh leaf written; 2·log K bitonic sequences merged in 5 shuffle steps each; a lane's
  // compares and selects; two 64-bit broadcasts of the leaf's cursor.
  const double refill_shared = iw * (6 * log_ways + 2);
  const double refill_shuffles = 10 * log_ways * iw + 4;
  const double refill_ops = log_ways * (compare_words + 4) + log_ways * (compare_words + 2 * iw) +
                            10 * log_ways * (compare_words + iw + 3);
  // Building a heap: K leaves loaded, then K − 1 refills over Σ levels below the internal nodes ≈ 2K.
  const double build_levels = 2.0 * ways - log_ways - 2;
  for (int r = 0; r < rounds; ++r) {
    const mms::round_plan plan =
        mms::plan_round(q.n, ways, r, resident_warps * mms::tuning::tasks_per_resident_warp,
                        mms::tuning::min_task_items_per_way * static_cast<std::size_t>(ways));
    const double tasks = static_cast<double>(plan.tasks());
    const std::string round = " (round " + std::to_string(r + 1) + ")";
    if (plan.split_count() > 0) {
      // split_kernel: a warp a task boundary, lane j < K searching list j. Each step sorts the proposals
      // across the warp (a bitonic sort of (item, list, index, weight)), takes two 64-bit warp sums and a
      // prefix sum, a ballot and a broadcast, and lane j binary-searches its undecided range (random
      // reads of items). Steps ≈ log2 of the K·run items; ranges about halve a step.
      const double boundaries = static_cast<double>(plan.groups * (plan.tasks_per_group - 1));
      const double run = static_cast<double>(plan.run);
      const double split_steps = ceil_log2(ways * run) + 1;
      const double proposal_words = iw + 5;
      kernel_model split;
      split.name = "split" + round;
      split.plan = {static_cast<std::uint64_t>(std::ceil(boundaries / 4)), 4 * mms::w, 0, registers_of(regs, key("split", 0))};
      split.add(op::x, boundaries * w * split_steps * (30 + 16 * proposal_words));
      split.add(op::v, boundaries * w * split_steps);
      split.add(op::r, boundaries * w * split_steps * (15 * (compare_words + 8) + 40));
      const double log_run = ceil_log2(run);
      counts::add_random_reads(split, p, boundaries * ways * log_run * (log_run + 1) / 2, item_bytes,
                               counts::l2_share(p, n * iw * 4), 1);
      split.add(op::g, boundaries * ways * 2);
      m.kernels.push_back(split);
      // splits_monotone_kernel: a warp a (group, list), a running maximum over the boundaries in chunks of
      // w (five 64-bit shuffle_ups and a broadcast a chunk, each chunk after the previous one); the
      // splits of one list are K·8 bytes apart, a sector each.
      const double pairs = static_cast<double>(plan.groups) * ways;
      const double chunks = std::ceil(static_cast<double>(plan.tasks_per_group - 1) / w);
      kernel_model monotone;
      monotone.name = "monotone" + round;
      monotone.plan = {static_cast<std::uint64_t>(std::ceil(pairs / 8)), 8 * mms::w, 0, registers_of(regs, gpu_mms_kernel_key("monotone", 0, false, 0))};
      counts::add_random_reads(monotone, p, 2 * static_cast<double>(plan.split_count()), 8, 1, 1);
      monotone.add(op::x, pairs * chunks * w * 12);
      monotone.add(op::r, pairs * chunks * w * 10);
      m.kernels.push_back(monotone);
    }
    // merge_kernel: a warp a task, its heap built, then a refill for every w outputs.
    kernel_model merge;
    merge.name = "merge" + round;
    merge.plan = {static_cast<std::uint64_t>(std::ceil(tasks / heap_shape.warps_per_block)),
                  heap_shape.warps_per_block * mms::w, heap_shape.shared_bytes, merge_registers};
    merge.add(op::g, n * iw, log_ways * iw);
    if (r + 1 == rounds) add_final_output(merge, 1);
    else merge.add(op::g, n * iw, iw);
    merge.add_shared(n * refill_shared + tasks * w * iw * (ways + 6 * build_levels), 1, log_ways * iw);
    merge.add(op::x, n * refill_shuffles + tasks * (ways - 1) * w * refill_shuffles, log_ways * iw);
    merge.add(op::r, n * refill_ops + tasks * (ways - 1) * w * refill_ops, log_ways);
    m.kernels.push_back(merge);
  }
  return m;
}

namespace {

template <class Model>
std::vector<choice> sweep_values(const std::vector<int>& values, Model model) {
  std::vector<choice> out;
  std::string skipped;
  for (int v : values) {
    try {
      out.push_back({v, model(v)});
    } catch (const invalid_argument& e) {
      if (e.parameter() != "registers") throw;
      skipped += std::string(skipped.empty() ? "" : "; ") + e.what();
    }
  }
  if (out.empty()) throw invalid_argument("model merge_sort", "registers", "are unknown for every value: " + skipped);
  return out;
}

}  // namespace

std::vector<choice> pairwise_items_sweep(const device_profile& p, merge_sort_problem q, const register_table& regs) {
  const std::vector<int> values(std::begin(ms::tuning::compiled_items), std::end(ms::tuning::compiled_items));
  return sweep_values(values, [&](int items) {
    q.items_per_thread = items;
    return evaluate(p, pairwise_merge_sort(p, q, regs)).seconds;
  });
}

std::vector<choice> gpu_mms_ways_sweep(const device_profile& p, merge_sort_problem q, const register_table& regs) {
  return sweep_values({2, 4, 8, 16, 32}, [&](int ways) {
    q.ways = ways;
    return evaluate(p, gpu_mms_sort(p, q, regs)).seconds;
  });
}

}  // namespace sluice::model
