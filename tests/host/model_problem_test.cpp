// The counts of the onesweep radix sort, classify_scatter (select_if, unique, stable_partition), the
// tile transpose, the byte histogram, gather, the direct scatter and the segmented family
// (src/model/*_counts.cpp) and the
// problem descriptions `sluice bench` gives the model (src/model/problem.hpp):
// launch plans as the dispatches choose them from their tuning tables, kernel and launch counts, the
// traffic every pass must move, the residency the registers give. What the counts predict is checked on
// the H100 by the bench's model column (docs/model.md), not here.
#include "model/families.hpp"
#include "model/problem.hpp"
#include "model_test_profiles.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

namespace {

using namespace sluice::model;
using namespace sluice::model::testing;

constexpr std::uint64_t n28 = std::uint64_t{1} << 28;

TEST(ModelCountsOnesweep, PlansOfTheBenchsSorts) {
  // u32 keys: CUB's SM90 tile 384 × 20, four 8-bit passes.
  const onesweep_plan keys = onesweep_plan_for({n28, 4, 0});
  EXPECT_EQ(keys.passes, 4);
  EXPECT_FALSE(keys.packed);
  EXPECT_EQ(keys.threads, 384);
  EXPECT_EQ(keys.items, 20);
  EXPECT_EQ(keys.tile, 7680);
  EXPECT_EQ(keys.tiles, 34953u);  // ⌈2^28 / 7680⌉
  EXPECT_EQ(keys.digits, 256);
  EXPECT_EQ(keys.lookback_ahead, 4);
  EXPECT_EQ(keys.histogram_threads, 128);
  EXPECT_EQ(keys.histogram_tile, 2048u);
  EXPECT_EQ(keys.histogram_shared_bytes, 4096u);  // 4 passes × 256 counters × one copy (ptxas: 4096)
  // u64 keys: 384 × 30 scaled to 8-byte elements, 15; eight passes; the histogram's 8 KiB (ptxas: 8192).
  const onesweep_plan wide = onesweep_plan_for({n28, 8, 0});
  EXPECT_EQ(wide.passes, 8);
  EXPECT_EQ(wide.items, 15);
  EXPECT_EQ(wide.tile, 5760);
  EXPECT_EQ(wide.histogram_shared_bytes, 8192u);
  // u32 pairs: four passes, so packed 8-byte words (packed_pairs_min_passes = 3) in the u64 keys' tile.
  const onesweep_plan pairs = onesweep_plan_for({n28, 4, 4});
  EXPECT_TRUE(pairs.packed);
  EXPECT_EQ(pairs.tile, 5760);
  EXPECT_EQ(pairs.lookback_ahead, 4);  // packed words are keys without values
}

TEST(ModelCountsOnesweep, KernelsLaunchesAndTraffic) {
  const device_profile p = synthetic_profile();
  const algorithm_model m = onesweep_radix_sort(p, {n28, 4, 0}, ptxas_registers());
  // Two memsets, the histogram and the digit starts, then a status memset and a pass kernel a pass.
  EXPECT_EQ(launches(m), 2u + 1 + 1 + 4 + 4);
  const double n = static_cast<double>(n28);
  EXPECT_DOUBLE_EQ(kernel(m, "histogram")[op::g], n);        // the keys read once
  EXPECT_DOUBLE_EQ(kernel(m, "histogram")[op::as], 4 * n);   // a shared atomic a key a pass
  const kernel_model& pass = kernel(m, "pass");
  EXPECT_EQ(pass.launches, 4u);
  EXPECT_EQ(pass.plan.blocks, 34953u);
  EXPECT_EQ(pass.plan.registers_per_thread, 80);
  EXPECT_DOUBLE_EQ(pass[op::g], 4 * 2 * n);                  // read and written once a pass
  EXPECT_DOUBLE_EQ(pass[op::v], 4 * n);                      // a match_any a key a pass
  EXPECT_DOUBLE_EQ(pass[op::ag], 4 * 34953.0);               // a tile taken a block
  EXPECT_DOUBLE_EQ(kernel(m, "memset (status)")[op::g], 4 * 34953.0 * 256);
  // 80 registers × 384 threads: two blocks an SM, as the kernel's launch bounds ask.
  const estimate e = evaluate(p, m);
  for (const kernel_estimate& k : e.kernels)
    if (k.name == "pass") {
      ASSERT_TRUE(k.residency);
      EXPECT_EQ(k.residency->blocks_per_sm, 2);
      EXPECT_EQ(k.residency->limit, occupancy_limit::registers);
    }
  // Pairs as packed words move two words a key; u64 keys two words and eight passes.
  EXPECT_DOUBLE_EQ(kernel(onesweep_radix_sort(p, {n28, 4, 4}, ptxas_registers()), "pass")[op::g], 4 * 2 * 2 * n);
  EXPECT_DOUBLE_EQ(kernel(onesweep_radix_sort(p, {n28, 8, 0}, ptxas_registers()), "pass")[op::g], 8 * 2 * 2 * n);
}

TEST(ModelCountsOnesweep, StagingBetaOfRandomRanks) {
  // 32 random 4-byte positions: the most lanes on one bank, about 3.5 (balls in bins), never 1 or 32.
  const double beta = onesweep_staging_beta(1);
  EXPECT_GT(beta, 2.5);
  EXPECT_LT(beta, 5);
  EXPECT_THROW((void)onesweep_plan_for({n28, 2, 0}), sluice::invalid_argument);
}

TEST(ModelCountsSelect, SelectIfAndStablePartition) {
  const device_profile p = synthetic_profile();
  const double n = static_cast<double>(n28);
  const algorithm_model select = classify_scatter(p, {n28, 4, 0.5, false, 0}, ptxas_registers());
  // The look-back state's memset and one pass of 384 × 16 tiles.
  EXPECT_EQ(launches(select), 2u);
  const kernel_model& scatter = kernel(select, "scatter");
  EXPECT_EQ(scatter.plan.blocks, 43691u);  // ⌈2^28 / 6144⌉
  EXPECT_EQ(scatter.plan.block_threads, 384);
  EXPECT_EQ(scatter.plan.shared_bytes, 64u);  // ptxas: 64 bytes smem
  EXPECT_DOUBLE_EQ(scatter[op::g], 1.5 * n);   // everything read, half written
  EXPECT_DOUBLE_EQ(scatter[op::v], n);         // a ballot an element
  // unique: select_if's pass (runs of 4: a quarter written) and a shuffle of the neighbour lane's item
  // an element.
  const algorithm_model unique = classify_scatter(p, {n28, 4, 0.25, false, 0, true}, ptxas_registers());
  EXPECT_EQ(launches(unique), 2u);
  EXPECT_DOUBLE_EQ(kernel(unique, "scatter")[op::g], 1.25 * n);
  EXPECT_DOUBLE_EQ(kernel(unique, "scatter")[op::x], n);
  EXPECT_DOUBLE_EQ(scatter[op::x], 0);
  // stable_partition: the counting pass over the same 384 × 12 tiles (one 8-byte count a tile), CUB's
  // scan of the counts (two launches), then the scatter, which writes every element and looks nothing up.
  const algorithm_model partition = classify_scatter(p, {n28, 4, 0.5, true, 0}, ptxas_registers());
  EXPECT_EQ(launches(partition), 4u);
  const double tiles = 58255;  // ⌈2^28 / 4608⌉
  EXPECT_EQ(kernel(partition, "count").plan.blocks, 58255u);
  EXPECT_DOUBLE_EQ(kernel(partition, "count")[op::g], n + 2 * tiles);
  const kernel_model& split = kernel(partition, "partition_scatter");
  EXPECT_EQ(split.plan.blocks, 58255u);
  EXPECT_DOUBLE_EQ(split[op::g], 2 * n);
  EXPECT_DOUBLE_EQ(split[op::l2], 4 * tiles);  // its prefix and the totals, no look-back
  // 56 registers × 384 threads: three blocks an SM (tuning.hpp's comment, ptxas).
  const estimate e = evaluate(p, select);
  EXPECT_EQ(e.kernels[1].residency->blocks_per_sm, 3);
}

TEST(ModelCountsTranspose, VectorTiledPlanAndTraffic) {
  const device_profile p = synthetic_profile();
  // The bench's 16384² floats: 64 × 64 tiles of 16 KiB, 256 threads, 48 registers (ptxas).
  const transpose_problem square{16384, 16384, 4};
  const vector_tile_plan plan = vector_tile_plan_for(square);
  EXPECT_EQ(plan.tile_rows, 64);
  EXPECT_EQ(plan.tile_cols, 64);
  EXPECT_EQ(plan.threads, 256);
  EXPECT_EQ(plan.tiles, 65536u);  // 256 × 256 tiles
  EXPECT_EQ(plan.shared_bytes, 16384u);
  const algorithm_model m = vector_tiled_transpose(p, square, ptxas_registers());
  ASSERT_EQ(m.kernels.size(), 1u);
  const double n = 16384.0 * 16384.0;
  const kernel_model& k = m.kernels[0];
  EXPECT_DOUBLE_EQ(k[op::g], 2 * n);  // read once, written once, in words
  EXPECT_DOUBLE_EQ(k[op::s], 2 * n);  // through the tile once, conflict-free
  EXPECT_DOUBLE_EQ(k.beta, 1);
  EXPECT_DOUBLE_EQ(k[op::y], 65536.0 * 256 * 2);
  // 48 registers × 256 threads: five blocks an SM, bound by the registers.
  const estimate e = evaluate(p, m);
  ASSERT_TRUE(e.kernels[0].residency);
  EXPECT_EQ(e.kernels[0].residency->blocks_per_sm, 5);
  EXPECT_EQ(e.kernels[0].residency->limit, occupancy_limit::registers);
  // Partial tiles count whole; 8-byte elements move twice the words over 64 × 32 tiles.
  EXPECT_EQ(vector_tile_plan_for({100, 68, 4}).tiles, 4u);
  EXPECT_EQ(vector_tile_plan_for({64, 64, 8}).tile_cols, 32);
  EXPECT_THROW((void)vector_tile_plan_for({64, 64, 3}), sluice::invalid_argument);
  EXPECT_THROW((void)vector_tiled_transpose(p, {6, 6, 4}, ptxas_registers()), sluice::invalid_argument);
}

TEST(ModelCountsHistogram, ByteCountsOneWaveOneAtomicAByte) {
  const device_profile p = synthetic_profile();
  const algorithm_model m = byte_counts_histogram(p, {n28, 256, 1}, ptxas_registers());
  // The bins' memset, then one kernel: 512 threads, 32 KiB of counters, 32 registers: four blocks an SM.
  EXPECT_EQ(launches(m), 2u);
  const kernel_model& k = kernel(m, "byte_counts");
  EXPECT_EQ(k.plan.block_threads, 512);
  EXPECT_EQ(k.plan.shared_bytes, 32768u);
  EXPECT_EQ(k.plan.registers_per_thread, 32);
  const auto blocks_per_sm = static_cast<std::uint64_t>(resident_blocks(p.limits, k.plan).blocks_per_sm);
  EXPECT_EQ(k.plan.blocks, blocks_per_sm * static_cast<std::uint64_t>(p.limits.sm_count));  // one wave
  const double n = static_cast<double>(n28);
  EXPECT_DOUBLE_EQ(k[op::g], n / 4);  // every byte read once
  EXPECT_DOUBLE_EQ(k[op::as], n);     // one shared atomic a byte
  EXPECT_DOUBLE_EQ(k[op::ag], static_cast<double>(k.plan.blocks) * 256);
  // Past 2^31 samples a block, the grid grows: 2^40 bytes need 512 blocks at least.
  EXPECT_GE(kernel(byte_counts_histogram(p, {std::uint64_t{1} << 40, 256, 1}, ptxas_registers()), "byte_counts")
                .plan.blocks,
            512u);
  EXPECT_THROW((void)byte_counts_histogram(p, {n28, 256, 4}, ptxas_registers()), sluice::invalid_argument);
}

/// A gather or scatter of consecutive indices: one wave of 256-thread blocks at `registers` (four blocks an
/// SM), the indices, values and output each coalesced once.
void expect_copy_like(const device_profile& p, const algorithm_model& model, int registers, double n) {
  ASSERT_EQ(model.kernels.size(), 1u);
  const kernel_model& k = model.kernels[0];
  EXPECT_EQ(k.plan.block_threads, 256);
  EXPECT_EQ(k.plan.registers_per_thread, registers);
  EXPECT_EQ(resident_blocks(p.limits, k.plan).blocks_per_sm, 4);
  EXPECT_EQ(k.plan.blocks, 4u * static_cast<std::uint64_t>(p.limits.sm_count));
  EXPECT_DOUBLE_EQ(k[op::g], 3 * n);
  EXPECT_DOUBLE_EQ(k[op::l2], 0);
}

TEST(ModelCountsGather, ConsecutiveAndRandomIndices) {
  const device_profile p = synthetic_profile();
  const double n = static_cast<double>(n28);
  expect_copy_like(p, direct_gather(p, {n28, 4, 4, false}, ptxas_registers()), 61, n);  // 61 registers (ptxas)
  // Random indices into 1 GiB of values: a random read a value, the L2 holding its share of them.
  const kernel_model& random = direct_gather(p, {n28, 4, 4, true}, ptxas_registers()).kernels[0];
  const double l2_hit = static_cast<double>(p.l2_bytes) / (4 * n);
  EXPECT_NEAR(random[op::l2], n * l2_hit * std::max(p.l2_random_access_words, 8.0), 1e-6 * n);
  EXPECT_NEAR(random[op::g], 2 * n + n * (1 - l2_hit) * std::max(p.random_access_words, 8.0), 1e-6 * n);
  EXPECT_THROW((void)direct_gather(p, {n28, 4, 2, true}, ptxas_registers()), sluice::invalid_argument);
}

TEST(ModelCountsScatter, ConsecutiveAndRandomIndices) {
  const device_profile p = synthetic_profile();
  const double n = static_cast<double>(n28);
  expect_copy_like(p, direct_scatter(p, {n28, 4, 4, false}, ptxas_registers()), 64, n);  // 64 registers (ptxas)
  // Random stores into 1 GiB, past the L2: each a sector filled from DRAM and written back.
  const kernel_model& random = direct_scatter(p, {n28, 4, 4, true}, ptxas_registers()).kernels[0];
  EXPECT_DOUBLE_EQ(random[op::l2], 0);
  EXPECT_NEAR(random[op::g], 2 * n + 2 * n * std::max(p.random_access_words, 8.0), 1e-6 * n);
  // An output that fits the L2: every store a random L2 access, no DRAM beyond the coalesced reads.
  const std::uint64_t small = p.l2_bytes / 8;
  const kernel_model& absorbed = direct_scatter(p, {small, 4, 4, true}, ptxas_registers()).kernels[0];
  EXPECT_DOUBLE_EQ(absorbed[op::g], 2.0 * static_cast<double>(small));
  EXPECT_DOUBLE_EQ(absorbed[op::l2], static_cast<double>(small) * std::max(p.l2_random_access_words, 8.0));
  EXPECT_THROW((void)direct_scatter(p, {0, 4, 4, true}, ptxas_registers()), sluice::invalid_argument);
  EXPECT_THROW((void)direct_scatter(p, {n28, 32, 4, true}, ptxas_registers()), sluice::invalid_argument);
}

TEST(ModelCountsSegmented, FlatScanWithItsHeadsMadeFirst) {
  const device_profile p = synthetic_profile();
  const double n = static_cast<double>(n28), segments = n / 256;
  // By offsets: init into the empty segments, the flags cleared (n bytes) and marked (a sector each:
  // 256 flag bytes apart), then the scan: values, flag bytes, a value a segment, an offset a segment.
  const algorithm_model by_offsets = flat_segmented(p, {n28, n28 / 256, 4, segment_heads::offsets, 4, true}, {});
  ASSERT_EQ(by_offsets.kernels.size(), 4u);
  EXPECT_EQ(launches(by_offsets), 5u);
  EXPECT_DOUBLE_EQ(kernel(by_offsets, "memset (head flags)")[op::g], n / 4);
  EXPECT_DOUBLE_EQ(kernel(by_offsets, "mark offsets")[op::g], (segments + 1) * 2 + (segments + 1) * 8);
  EXPECT_DOUBLE_EQ(kernel(by_offsets, "flat scan (memset, look-back)")[op::g], n + n / 4 + segments + 2 * segments);
  // Marks closer than a sector apart move the flag array once.
  const algorithm_model dense = flat_segmented(p, {n28, n28 / 4, 4, segment_heads::offsets, 4, true}, {});
  EXPECT_DOUBLE_EQ(kernel(dense, "mark offsets")[op::g], (n / 4 + 1) * 2 + n / 4);
  // By keys: the scan alone, keys read beside the values; reduce_by_key stores a key and a value a run,
  // the scan every value.
  const algorithm_model by_key = flat_segmented(p, {n28, n28 / 16, 4, segment_heads::keys, 8, true}, {});
  ASSERT_EQ(by_key.kernels.size(), 1u);
  EXPECT_DOUBLE_EQ(by_key.kernels[0][op::g], n + 2 * n + (n / 16) * 3);
  const algorithm_model scan = flat_segmented(p, {n28, n28 / 16, 4, segment_heads::flags, 4, false}, {});
  EXPECT_DOUBLE_EQ(scan.kernels[0][op::g], 2 * n + n / 4);
  EXPECT_THROW((void)flat_segmented(p, {n28, 0, 4, segment_heads::flags, 4, true}, {}), sluice::invalid_argument);
  EXPECT_THROW((void)flat_segmented(p, {16, 17, 4, segment_heads::flags, 4, true}, {}), sluice::invalid_argument);
  EXPECT_THROW((void)flat_segmented(p, {n28, 1, 32, segment_heads::flags, 4, true}, {}), sluice::invalid_argument);
}

TEST(ModelCountsSegmented, MergePathPartitionTilesCarriesAndFix) {
  const device_profile p = synthetic_profile();
  const double n = static_cast<double>(n28), segments = n / 256;
  // u32: tiles of 128 × 23 = 2944 merged items; ⌈(2^28 + 2^20) / 2944⌉ = 91537 tiles.
  const algorithm_model m = merge_path_segmented_reduce(p, {n28, n28 / 256, 4, segment_heads::offsets, 4, true}, {});
  ASSERT_EQ(m.kernels.size(), 4u);
  const double tiles = 91537;
  // Values read once, the ends (8-byte offsets) once, a sum a segment, a tile's splits, carry and fix.
  EXPECT_DOUBLE_EQ(kernel(m, "reduce tiles")[op::g], n + 2 * segments + segments + tiles * (4 + 2 + 4));
  // The partition's searches: ⌈log2(2^20 + 1)⌉ = 21 reads of an offset a boundary.
  EXPECT_DOUBLE_EQ(kernel(m, "partition")[op::r], (tiles + 1) * 21 * 6);
  // The carries' Brent–Kung scan: 91537 → 179 → 1 carries, the tiles kernel at both levels and the
  // prefixes added below the top.
  EXPECT_EQ(kernel(m, "scan (tile carries)").launches, 3u);
  EXPECT_EQ(launches(m), 1u + 1 + 3 + 1);
  // One tile: no carries to scan, nothing to fix.
  EXPECT_EQ(merge_path_segmented_reduce(p, {1000, 10, 4, segment_heads::offsets, 4, true}, {}).kernels.size(), 2u);
  EXPECT_THROW((void)merge_path_segmented_reduce(p, {n28, 16, 4, segment_heads::keys, 4, true}, {}),
               sluice::invalid_argument);
  EXPECT_THROW((void)merge_path_segmented_reduce(p, {n28, 16, 4, segment_heads::offsets, 4, false}, {}),
               sluice::invalid_argument);
}

TEST(ModelProblem, MapsTheBenchsDescriptionsOntoTheCounts) {
  const device_profile p = synthetic_profile();
  const register_table regs = ptxas_registers();
  // merge_sort's radix strategy is the onesweep sort.
  const algorithm_model radix = model_of(p, {.family = "merge_sort", .algorithm = "radix", .n = n28}, regs);
  EXPECT_EQ(kernel(radix, "pass").launches, 4u);
  // pairwise at the row's E.
  const algorithm_model pairwise =
      model_of(p, {.family = "merge_sort", .algorithm = "pairwise", .n = 1 << 24, .items_per_thread = 11}, regs);
  EXPECT_EQ(kernel(pairwise, "block_sort").plan.registers_per_thread, 64);
  EXPECT_EQ(model_of(p, {.family = "search", .algorithm = "btree", .n = 1 << 20, .m = 1 << 20, .keys_per_node = 16}, regs)
                .kernels.size(),
            1u);
  EXPECT_EQ(model_of(p, {.family = "copy", .algorithm = "copy", .n = n28}, regs).kernels.size(), 1u);
  // transpose: n = rows × columns, m the columns; the histogram: n samples into m bins.
  const algorithm_model transposed =
      model_of(p, {.family = "transpose", .algorithm = "vector_tiled", .n = 8192 * 4096, .m = 4096}, regs);
  EXPECT_EQ(transposed.kernels[0].plan.blocks, 128u * 64u);
  EXPECT_EQ(launches(model_of(p, {.family = "histogram", .algorithm = "byte_counts", .n = n28, .m = 256, .key_bytes = 1},
                              regs)),
            2u);
  EXPECT_EQ(model_of(p, {.family = "gather", .algorithm = "direct", .n = n28, .value_bytes = 4, .random_indices = false},
                     regs)
                .kernels[0][op::l2],
            0);
  // scatter: the direct any_writer strategy only.
  EXPECT_EQ(model_of(p, {.family = "scatter", .algorithm = "direct", .n = n28, .value_bytes = 4}, regs).kernels.size(),
            1u);
  EXPECT_THROW((void)model_of(p, {.family = "scatter", .algorithm = "direct", .n = n28, .value_bytes = 4,
                                  .last_writer = true},
                              regs),
               not_modelled);
  EXPECT_THROW((void)model_of(p, {.family = "scatter", .algorithm = "partial_sort", .n = n28, .value_bytes = 4}, regs),
               not_modelled);
  // segmented: m segments given by `heads`, value_bytes the keys' bytes; the flat strategy only.
  EXPECT_EQ(launches(model_of(p, {.family = "segmented_reduce", .algorithm = "flat", .n = n28, .m = 1 << 20}, regs)),
            5u);
  const algorithm_model by_key = model_of(p,
                                          {.family = "segmented_scan", .algorithm = "flat", .n = n28, .m = 1 << 24,
                                           .value_bytes = 8, .heads = segment_heads::keys},
                                          regs);
  EXPECT_DOUBLE_EQ(by_key.kernels[0][op::g], 1.0 * n28 + 2.0 * n28 + n28);  // values, 8-byte keys, the scan
  EXPECT_EQ(model_of(p, {.family = "segmented_reduce", .algorithm = "merge_path", .n = n28, .m = 1 << 20}, regs)
                .kernels.size(),
            4u);
  EXPECT_THROW(
      (void)model_of(p, {.family = "segmented_reduce", .algorithm = "look_back", .n = n28, .m = 1 << 20}, regs),
      not_modelled);
}

TEST(ModelProblem, SaysWhatItDoesNotModel) {
  const device_profile p = synthetic_profile();
  const register_table regs = ptxas_registers();
  const auto message = [&](const problem& q) {
    try {
      (void)model_of(p, q, regs);
    } catch (const not_modelled& e) {
      return std::string(e.what());
    }
    return std::string("modelled");
  };
  EXPECT_NE(message({.family = "radix_sort", .algorithm = "multisplit", .n = n28}).find("radix_sort [multisplit]: only the onesweep"),
            std::string::npos);
  EXPECT_NE(message({.family = "scan", .algorithm = "brent_kung", .n = n28}).find("only the decoupled_look_back"),
            std::string::npos);
  EXPECT_NE(message({.family = "lsm", .algorithm = "", .n = 1}).find("lsm: the family has no counts"), std::string::npos);
  EXPECT_NE(message({.family = "select", .algorithm = "tile tuning", .n = n28}).find("select [tile tuning]"),
            std::string::npos);
  EXPECT_NE(message({.family = "transpose", .algorithm = "skinny", .n = n28, .m = 2}).find("only the vector_tiled"),
            std::string::npos);
  EXPECT_NE(message({.family = "histogram", .algorithm = "bank_trish", .n = n28, .m = 256, .key_bytes = 1})
                .find("only the byte_counts"),
            std::string::npos);
}

}  // namespace
