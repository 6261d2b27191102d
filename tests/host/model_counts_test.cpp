// The SPT counts of sluice's kernels (src/model/families.hpp): launch plans as the dispatches choose them
// (grid, block, shared bytes from the tuning tables, registers from ptxas), kernel and launch counts,
// the coalesced traffic every strategy must move, where random reads are charged, and the E / K sweeps.
// The constants of the dominant regions are the code's, read off it; what they predict is checked on the
// H100 by `sluice model` against `sluice bench` (docs/model.md), not here.
#include "model/families.hpp"
#include "model_test_profiles.hpp"

#include <sluice/detail/merge_sort/gpu_mms_plan.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>

namespace {

using namespace sluice::model;
using namespace sluice::model::testing;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const sluice::error& e) {
    return e.what();
  }
  return "";
}

TEST(ModelCountsPairwise, PlansAndTrafficOfU32KeysAt2To24) {
  const device_profile p = synthetic_profile();
  merge_sort_problem q;
  q.n = std::uint64_t{1} << 24;
  const algorithm_model m = pairwise_merge_sort(p, q, ptxas_registers());
  // E = 17 (tuning), tile 256 × 17 = 4352, ⌈2^24 / 4352⌉ = 3856 tiles, ⌈log2 3856⌉ = 12 rounds.
  ASSERT_EQ(m.kernels.size(), 4u);
  const kernel_model& block = kernel(m, "block_sort");
  EXPECT_EQ(block.plan.blocks, 3856u);
  EXPECT_EQ(block.plan.block_threads, 256);
  EXPECT_EQ(block.plan.shared_bytes, 4352u * 4 + 256 * 4);
  EXPECT_EQ(block.plan.registers_per_thread, 79);
  const kernel_model& merge = kernel(m, "merge");
  EXPECT_EQ(merge.launches, 12u);
  EXPECT_EQ(merge.plan.registers_per_thread, 80);
  EXPECT_EQ(kernel(m, "partition").launches, 12u);
  EXPECT_EQ(kernel(m, "partition").plan.blocks, 16u);  // one thread a tile boundary
  EXPECT_EQ(launches(m), 1u + 1 + 12 + 12);
  // Every key read and written once by the block sort and once a round.
  const double n = std::ldexp(1.0, 24);
  EXPECT_DOUBLE_EQ(block[op::g], 2 * n);
  EXPECT_DOUBLE_EQ(merge[op::g], 12 * 2 * n);
  // The merges' β is the bank model's, between conflict-free and a warp on one bank.
  EXPECT_GT(merge.beta, 1);
  EXPECT_LT(merge.beta, 32);
  // The merge kernel: 3 blocks an SM (80 registers): M_o = 3 × 256 / 128.
  const estimate e = evaluate(p, m);
  EXPECT_DOUBLE_EQ(e.kernels[3].oversubscription, 6);
  EXPECT_EQ(e.kernels[3].residency->limit, occupancy_limit::registers);
}

TEST(ModelCountsPairwise, ValuesMoveWithTheirKeys) {
  const device_profile p = synthetic_profile();
  merge_sort_problem q;
  q.n = 1000000;
  q.value_bytes = 4;
  const algorithm_model m = pairwise_merge_sort(p, q, ptxas_registers());
  EXPECT_DOUBLE_EQ(kernel(m, "block_sort")[op::g], 2 * 1e6 * 2);
  EXPECT_EQ(kernel(m, "block_sort").plan.shared_bytes, 4352u * 8 + 256 * 4);
  EXPECT_EQ(kernel(m, "merge").plan.registers_per_thread, 80);  // pairwise/merge/k4v4/E17
}

TEST(ModelCountsPairwise, OneTileNeedsNoRounds) {
  merge_sort_problem q;
  q.n = 4352;
  const algorithm_model m = pairwise_merge_sort(synthetic_profile(), q, ptxas_registers());
  ASSERT_EQ(m.kernels.size(), 1u);
  EXPECT_EQ(m.kernels[0].name, "block_sort");
  q.n = 4353;
  EXPECT_EQ(launches(pairwise_merge_sort(synthetic_profile(), q, ptxas_registers())), 4u);
}

TEST(ModelCountsPairwise, BetaIsTheBankModelsAndDeterministic) {
  const double random_merge = pairwise_beta(17, 4, false);
  EXPECT_DOUBLE_EQ(pairwise_beta(17, 4, false), random_merge);
  EXPECT_GT(random_merge, 1.5);  // random keys conflict (docs/perf-notes.md: about 3.3 at E = 17)
  EXPECT_LT(random_merge, 8);
  EXPECT_GE(pairwise_beta(7, 16, true), 1);
}

TEST(ModelCountsPairwise, RejectsUncompiledItemsAndUnknownRegisters) {
  merge_sort_problem q;
  q.n = 1 << 20;
  q.items_per_thread = 15;
  EXPECT_NE(error_of([&] { (void)pairwise_merge_sort(synthetic_profile(), q, ptxas_registers()); }).find("7, 11, 17"),
            std::string::npos);
  q.items_per_thread = 0;
  q.key_bytes = 12;
  const std::string message = error_of([&] { (void)pairwise_merge_sort(synthetic_profile(), q, ptxas_registers()); });
  EXPECT_NE(message.find("pairwise/block_sort/k12v0/E7"), std::string::npos) << message;
  EXPECT_NE(message.find("--registers"), std::string::npos) << message;
  register_table extra = ptxas_registers();
  extra["pairwise/block_sort/k12v0/E7"] = 90;
  extra["pairwise/merge/k12v0/E7"] = 80;
  extra["pairwise/partition/k12v0"] = 40;
  EXPECT_NO_THROW((void)pairwise_merge_sort(synthetic_profile(), q, extra));
}

TEST(ModelCountsGpuMms, RoundsPlansAndTraffic) {
  const device_profile p = synthetic_profile();
  merge_sort_problem q;
  q.n = std::uint64_t{1} << 24;
  q.ways = 16;
  const algorithm_model m = gpu_mms_sort(p, q, ptxas_registers());
  const int rounds = sluice::detail::merge_sort::gpu_mms::merge_rounds(q.n, 16);
  EXPECT_EQ(rounds, 4);  // ⌈log_16(2^24 / 1024)⌉
  const kernel_model& base = kernel(m, "base_case");
  // Untagged u32 items: a 4 KiB tile a warp, 4 warps a block, 2^14 tiles.
  EXPECT_EQ(base.plan.shared_bytes, 4u * 4096);
  EXPECT_EQ(base.plan.block_threads, 128);
  EXPECT_EQ(base.plan.blocks, 4096u);
  EXPECT_EQ(base.plan.registers_per_thread, 99);
  const double n = std::ldexp(1.0, 24);
  EXPECT_DOUBLE_EQ(base[op::g], 2 * n);
  EXPECT_DOUBLE_EQ(base.beta, 1);  // the rotated tile: conflict-free (gpu_mms_model_test.cpp)
  int merges = 0;
  for (const kernel_model& k : m.kernels)
    if (k.name.rfind("merge", 0) == 0) {
      ++merges;
      EXPECT_DOUBLE_EQ(k[op::g], 2 * n) << k.name;
      EXPECT_EQ(k.plan.shared_bytes, 4u * 31 * 32 * 4) << k.name;  // 4 warps' heaps of 2K − 1 nodes
    }
  EXPECT_EQ(merges, rounds);
  EXPECT_EQ(launches(m), m.kernels.size());
}

TEST(ModelCountsGpuMms, PairsAreTaggedAndGatherTheirValues) {
  const device_profile p = synthetic_profile();
  merge_sort_problem q;
  q.n = std::uint64_t{1} << 22;
  q.value_bytes = 4;
  q.ways = 8;
  const algorithm_model m = gpu_mms_sort(p, q, ptxas_registers());
  const kernel_model& base = kernel(m, "base_case");
  EXPECT_EQ(base.plan.shared_bytes, 4u * 8 * 1024);  // (key, u32 index) items of 8 bytes
  EXPECT_EQ(base.plan.registers_per_thread, 48);
  const kernel_model& last = m.kernels.back();
  const double n = std::ldexp(1.0, 22);
  // The last round reads the items, writes the keys and values, and gathers each value by its tag
  // (16 MiB of values fit the 50 MiB L2 of the synthetic profile: 8 words a read, a sector).
  EXPECT_DOUBLE_EQ(last[op::g], n * 2 + n + n);
  EXPECT_DOUBLE_EQ(last[op::l2], n * 8);
}

TEST(ModelCountsGpuMms, RejectsBadWays) {
  merge_sort_problem q;
  q.n = 1 << 20;
  q.ways = 3;
  EXPECT_THROW((void)gpu_mms_sort(synthetic_profile(), q, ptxas_registers()), sluice::invalid_argument);
  q.ways = 64;
  EXPECT_THROW((void)gpu_mms_sort(synthetic_profile(), q, ptxas_registers()), sluice::invalid_argument);
}

TEST(ModelCountsSweeps, EveryCompiledItemsAndEveryWays) {
  const device_profile p = synthetic_profile();
  merge_sort_problem q;
  q.n = std::uint64_t{1} << 24;
  const std::vector<choice> items = pairwise_items_sweep(p, q, ptxas_registers());
  ASSERT_EQ(items.size(), 3u);
  EXPECT_EQ(items[0].value, 7);
  EXPECT_EQ(items[2].value, 17);
  for (const choice& c : items) EXPECT_GT(c.seconds, 0);
  const std::vector<choice> ways = gpu_mms_ways_sweep(p, q, ptxas_registers());
  ASSERT_EQ(ways.size(), 5u);
  EXPECT_EQ(ways[4].value, 32);
  // Without the registers of any K, the sweep says which are missing.
  q.key_bytes = 12;
  EXPECT_NE(error_of([&] { (void)gpu_mms_ways_sweep(p, q, ptxas_registers()); }).find("gpu_mms/base_case/k12"),
            std::string::npos);
}

TEST(ModelCountsSearch, TreeShapeCacheAndQueriesPerThread) {
  const device_profile p = synthetic_profile();
  search_problem q;
  q.keys = std::uint64_t{1} << 26;
  q.queries = std::uint64_t{1} << 26;
  const algorithm_model btree = batched_search(p, q, ptxas_registers());
  const kernel_model& k = btree.kernels.at(0);
  // 64-byte nodes of 16 u32 keys; a block caches half the SM's shared memory less 1 KiB: 1808 nodes.
  EXPECT_EQ(k.plan.shared_bytes, 1808u * 64);
  EXPECT_EQ(k.plan.block_threads, 512);
  EXPECT_EQ(k.plan.registers_per_thread, 38);
  EXPECT_EQ(k.plan.blocks, 132u * 2);  // one wave: two blocks an SM
  EXPECT_NE(btree.name.find("7 levels"), std::string::npos) << btree.name;
  EXPECT_NE(btree.name.find("1 queries a thread"), std::string::npos) << btree.name;
  q.layout = search_layout::eytzinger;
  const algorithm_model eytzinger = batched_search(p, q, ptxas_registers());
  EXPECT_NE(eytzinger.name.find("27 levels"), std::string::npos) << eytzinger.name;
  EXPECT_NE(eytzinger.name.find("4 queries a thread"), std::string::npos) << eytzinger.name;
}

TEST(ModelCountsSearch, SmallTreesStayInSharedMemoryAndSmallArraysInTheL2) {
  const device_profile p = synthetic_profile();
  search_problem q;
  q.keys = 1000;
  q.queries = 1 << 20;
  const kernel_model tree = batched_search(p, q, ptxas_registers()).kernels.at(0);
  // The whole tree is cached: global traffic is the queries in and the answers out, plus the cache fill.
  EXPECT_DOUBLE_EQ(tree[op::g], 2.0 * (1 << 20));
  EXPECT_GT(tree[op::s], 0);
  q.keys = 1 << 20;  // 4 MiB of keys, in the 50 MiB L2
  q.layout = search_layout::sorted;
  const kernel_model sorted = batched_search(p, q, ptxas_registers()).kernels.at(0);
  EXPECT_DOUBLE_EQ(sorted[op::g], 2.0 * (1 << 20));
  EXPECT_DOUBLE_EQ(sorted[op::l2], 21.0 * (1 << 20) * 8);  // ⌈log2(2^20 + 1)⌉ = 21 steps, a sector each
}

TEST(ModelCountsStreaming, OnePass) {
  const device_profile p = synthetic_profile();
  const double n = std::ldexp(1.0, 28);
  EXPECT_DOUBLE_EQ(streaming(p, streaming_kind::copy, std::uint64_t{1} << 28, 4).kernels[0][op::g], 2 * n);
  EXPECT_DOUBLE_EQ(streaming(p, streaming_kind::reduce, std::uint64_t{1} << 28, 8).kernels[0][op::g], 2 * n);
  const algorithm_model scan = streaming(p, streaming_kind::scan, std::uint64_t{1} << 28, 4);
  EXPECT_DOUBLE_EQ(scan.kernels[0][op::g], 2 * n);
  EXPECT_EQ(scan.kernels[0].launches, 2u);
  // The recurrence reads a and b and writes the state: 12 bytes an f32 element.
  const algorithm_model recurrence = streaming(p, streaming_kind::recurrence, std::uint64_t{1} << 28, 4);
  EXPECT_DOUBLE_EQ(recurrence.kernels[0][op::g], 3 * n);
  EXPECT_EQ(recurrence.kernels[0].launches, 2u);
}

}  // namespace
