// Host tests of multireduce's host-side plan (detail/multireduce/plan.hpp): the automatic choice, the
// checks of explicit strategies and options, the per-bank shared-memory layout and multi-pass window,
// and the global sets and partial sort bits chosen from the L2 size. The budgets are an H100's (227 KiB
// per block after opting in, 113 KiB per block for two blocks per SM, 56 KiB for four, 50 MiB of L2).
#include <sluice/detail/multireduce/plan.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>

namespace {

namespace mr = sluice::detail::multireduce;
using sluice::multireduce_algorithm;

constexpr mr::shared_budget h100{232448, 115712, 57344};
constexpr std::size_t h100_l2 = 50u << 20;

mr::problem commutative(std::uint32_t m, std::size_t value_bytes = 4) {
  return {true, false, value_bytes, m, h100};
}

TEST(MultireducePlan, SetsWithinABudget) {
  EXPECT_EQ(mr::sets_within(256, 4, 32768), 32u);
  EXPECT_EQ(mr::sets_within(257, 4, 32768), 16u);
  EXPECT_EQ(mr::sets_within(8192, 4, 32768), 1u);
  EXPECT_EQ(mr::sets_within(8193, 4, 32768), 0u);
  EXPECT_EQ(mr::sets_within(1, 8, 8), 1u);
}

TEST(MultireducePlan, PerBankLayoutPutsFourBlocksFirst) {
  // 32 sets of 4-byte values leave four blocks up to 448 buckets (57344 / 128).
  EXPECT_EQ(mr::choose_per_bank_layout(256, 4, h100), (mr::per_bank_layout{32, 32 * 256 * 4}));
  EXPECT_EQ(mr::choose_per_bank_layout(448, 4, h100), (mr::per_bank_layout{32, 32 * 448 * 4}));
  EXPECT_EQ(mr::choose_per_bank_layout(449, 4, h100), (mr::per_bank_layout{16, 16 * 449 * 4}));
  EXPECT_EQ(mr::choose_per_bank_layout(2048, 4, h100), (mr::per_bank_layout{4, 4 * 2048 * 4}));
  EXPECT_EQ(mr::choose_per_bank_layout(4096, 4, h100), (mr::per_bank_layout{2, 2 * 4096 * 4}));
  EXPECT_EQ(mr::choose_per_bank_layout(4096, 8, h100), (mr::per_bank_layout{1, 4096 * 8}));
  // The last bucket count one set holds with four blocks; one more takes two blocks, with two sets.
  EXPECT_EQ(mr::choose_per_bank_layout(14336, 4, h100), (mr::per_bank_layout{1, 14336 * 4}));
  EXPECT_EQ(mr::choose_per_bank_layout(14337, 4, h100), (mr::per_bank_layout{2, 2 * 14337 * 4}));
  EXPECT_EQ(mr::choose_per_bank_layout(28928, 4, h100), (mr::per_bank_layout{1, 28928 * 4}));
  // Past two blocks' share: one block, as many sets as it holds.
  EXPECT_EQ(mr::choose_per_bank_layout(28929, 4, h100), (mr::per_bank_layout{2, 2 * 28929 * 4}));
  // The last bucket count one set holds, and one more.
  EXPECT_EQ(mr::choose_per_bank_layout(58112, 4, h100), (mr::per_bank_layout{1, 58112 * 4}));
  EXPECT_EQ(mr::choose_per_bank_layout(58113, 4, h100).sets, 0u);
  EXPECT_EQ(mr::per_bank_capacity(4, h100), 58112u);
  EXPECT_EQ(mr::per_bank_capacity(8, h100), 29056u);
  for (std::uint32_t m : {1u, 2u, 31u, 33u, 1000u, 5000u, 20000u, 58112u}) {
    const auto layout = mr::choose_per_bank_layout(m, 4, h100);
    EXPECT_LE(layout.shared_bytes, h100.per_block) << "m = " << m;
    EXPECT_EQ(layout.sets & (layout.sets - 1), 0u) << "m = " << m;
  }
}

TEST(MultireducePlan, MultiPassTakesTheFewestPassesOfOneSet) {
  EXPECT_EQ(mr::multi_pass_count(1, 4, h100), 1u);
  EXPECT_EQ(mr::multi_pass_count(58112, 4, h100), 1u);
  EXPECT_EQ(mr::multi_pass_count(58113, 4, h100), 2u);
  EXPECT_EQ(mr::multi_pass_count(1u << 16, 4, h100), 2u);
  EXPECT_EQ(mr::multi_pass_window(1u << 16, 4, h100), 32768u);
  EXPECT_EQ(mr::multi_pass_count(1u << 17, 4, h100), 3u);
  EXPECT_EQ(mr::multi_pass_window(1u << 17, 4, h100), 43691u);
  EXPECT_EQ(mr::multi_pass_count(1u << 20, 4, h100), 19u);
  EXPECT_EQ(mr::multi_pass_count(1u << 16, 8, h100), 3u);
  // A budget below one value: a bucket a pass.
  EXPECT_EQ(mr::multi_pass_count(5, 8, mr::shared_budget{4, 2, 1}), 5u);
  EXPECT_EQ(mr::multi_pass_window(5, 8, mr::shared_budget{4, 2, 1}), 1u);
  for (std::uint32_t m : {58113u, 1u << 16, 1u << 17, 1u << 20, 0xffffffffu}) {
    const std::uint32_t window = mr::multi_pass_window(m, 4, h100);
    EXPECT_GT(mr::choose_per_bank_layout(window, 4, h100).sets, 0u) << "m = " << m;
    EXPECT_GE(std::uint64_t{window} * mr::multi_pass_count(m, 4, h100), m) << "m = " << m;
  }
}

TEST(MultireducePlan, GlobalSetsFollowTheL2) {
  EXPECT_EQ(mr::choose_global_sets(1, 4, h100_l2), 8u);
  EXPECT_EQ(mr::choose_global_sets(1u << 20, 4, h100_l2), 4u);  // 4 × 4 MiB ≤ 25 MiB < 8 × 4 MiB
  EXPECT_EQ(mr::choose_global_sets(1u << 22, 4, h100_l2), 1u);
  EXPECT_EQ(mr::choose_global_sets(1u << 24, 8, h100_l2), 1u);
}

TEST(MultireducePlan, AutomaticChoice) {
  // Commutative, 4/8-byte values: per-bank while a block holds one set, multi-pass up to three passes,
  // global sets beyond.
  static_assert(mr::tuning::automatic_per_bank_min_sets == 1 && mr::tuning::automatic_multi_pass_max_passes == 3);
  EXPECT_EQ(mr::choose(commutative(1)), multireduce_algorithm::per_bank_shared);
  EXPECT_EQ(mr::choose(commutative(4096)), multireduce_algorithm::per_bank_shared);
  EXPECT_EQ(mr::choose(commutative(58112)), multireduce_algorithm::per_bank_shared);  // 58112 × 4 = 232448
  EXPECT_EQ(mr::choose(commutative(58113)), multireduce_algorithm::per_bank_multi_pass);
  EXPECT_EQ(mr::choose(commutative(3 * 58112)), multireduce_algorithm::per_bank_multi_pass);
  EXPECT_EQ(mr::choose(commutative(3 * 58112 + 1)), multireduce_algorithm::global_atomic_sets);
  EXPECT_EQ(mr::choose(commutative(1u << 20)), multireduce_algorithm::global_atomic_sets);
  EXPECT_EQ(mr::choose(commutative(29056, 8)), multireduce_algorithm::per_bank_shared);
  EXPECT_EQ(mr::choose(commutative(29057, 8)), multireduce_algorithm::per_bank_multi_pass);
  EXPECT_EQ(mr::choose(commutative(3 * 29056 + 1, 8)), multireduce_algorithm::global_atomic_sets);
  // Order required (non-commutative, deterministic) or no atomic word: the order-preserving ladder.
  for (const mr::problem base : {mr::problem{false, false, 4, 1, h100}, mr::problem{true, true, 4, 1, h100},
                                 mr::problem{true, false, 16, 1, h100}, mr::problem{true, false, 2, 1, h100}}) {
    mr::problem p = base;
    for (std::uint32_t m : {1u, 2u, mr::tuning::automatic_vector_max_buckets}) {
      p.m = m;
      EXPECT_EQ(mr::choose(p), multireduce_algorithm::vector) << "m = " << m;
    }
    for (std::uint32_t m : {mr::tuning::automatic_vector_max_buckets + 1, mr::tuning::vector_max_buckets, 256u, 904u}) {
      p.m = m;
      EXPECT_EQ(mr::choose(p), multireduce_algorithm::warp_private_sets) << "m = " << m;
    }
    // 1024 buckets: warp_private_sets while 8 sets of them leave two blocks per SM (115712 bytes each on
    // an H100: up to 904 sixteen-byte buckets).
    p.m = mr::tuning::automatic_warp_sets_max_buckets;
    EXPECT_EQ(mr::choose(p), p.value_bytes <= 8 ? multireduce_algorithm::warp_private_sets
                                                : multireduce_algorithm::block_sort_segmented);
    for (std::uint32_t m : {mr::tuning::automatic_warp_sets_max_buckets + 1, 4096u}) {
      p.m = m;
      EXPECT_EQ(mr::choose(p), multireduce_algorithm::block_sort_segmented) << "m = " << m;
    }
    for (std::uint32_t m : {4097u, 1u << 24}) {
      p.m = m;
      EXPECT_EQ(mr::choose(p), multireduce_algorithm::global_sort_reduce_by_key) << "m = " << m;
    }
  }
}

TEST(MultireducePlan, ExplicitAtomicStrategiesNeedCommutativeNondeterministicWords) {
  for (auto a : {multireduce_algorithm::per_bank_shared, multireduce_algorithm::per_bank_multi_pass,
                 multireduce_algorithm::global_atomic_sets}) {
    EXPECT_TRUE(mr::strategy_problem(a, commutative(256)).empty());
    EXPECT_TRUE(mr::strategy_problem(a, commutative(256, 8)).empty());
    EXPECT_NE(mr::strategy_problem(a, {false, false, 4, 256, h100}).find("commutative"), std::string::npos);
    EXPECT_NE(mr::strategy_problem(a, {true, true, 4, 256, h100}).find("deterministic"), std::string::npos);
    EXPECT_NE(mr::strategy_problem(a, commutative(256, 16)).find("16-byte"), std::string::npos);
    EXPECT_FALSE(mr::strategy_problem(a, commutative(256, 2)).empty());
  }
  for (auto a : {multireduce_algorithm::block_sort_segmented, multireduce_algorithm::global_sort_reduce_by_key}) {
    EXPECT_TRUE(mr::strategy_problem(a, {false, true, 16, 1u << 24, h100}).empty());
  }
}

TEST(MultireducePlan, ExplicitVectorTakesAtMostVectorMaxBuckets) {
  static_assert(mr::tuning::vector_max_buckets == 8);
  static_assert(mr::tuning::automatic_vector_max_buckets == 4);  // 5 … 8 run the M = 8 kernel: warp_private_sets
  for (std::uint32_t m : {1u, 5u, mr::tuning::vector_max_buckets}) {
    EXPECT_TRUE(mr::strategy_problem(multireduce_algorithm::vector, {false, true, 16, m, h100}).empty()) << m;
    EXPECT_TRUE(mr::strategy_problem(multireduce_algorithm::vector, commutative(m)).empty()) << m;
  }
  for (std::uint32_t m : {mr::tuning::vector_max_buckets + 1, 1u << 24}) {
    EXPECT_NE(mr::strategy_problem(multireduce_algorithm::vector, {false, true, 16, m, h100}).find("at most 8"),
              std::string::npos)
        << m;
    EXPECT_FALSE(mr::strategy_problem(multireduce_algorithm::vector, commutative(m)).empty()) << m;
  }
}

/// 8 sets of m values per block: 232448 bytes per block on an H100 hold 3632 eight-byte buckets, 1816 of 16.
TEST(MultireducePlan, ExplicitWarpPrivateSetsNeedsItsSetsToFit) {
  const auto warp_sets = multireduce_algorithm::warp_private_sets;
  EXPECT_EQ(mr::warp_sets_shared_bytes(1024, 16), std::size_t{131072});
  EXPECT_TRUE(mr::strategy_problem(warp_sets, {false, true, 8, 3632, h100}).empty());
  EXPECT_TRUE(mr::strategy_problem(warp_sets, {false, false, 16, 1816, h100}).empty());
  EXPECT_NE(mr::strategy_problem(warp_sets, {false, true, 8, 3633, h100}).find("at most 3632"), std::string::npos);
  EXPECT_NE(mr::strategy_problem(warp_sets, {false, false, 16, 1817, h100}).find("at most 1816"), std::string::npos);
  EXPECT_TRUE(mr::strategy_problem(warp_sets, commutative(256)).empty());  // any operator class
}

TEST(MultireducePlan, ExplicitPerBankSharedNeedsTheBucketsToFit) {
  EXPECT_TRUE(mr::strategy_problem(multireduce_algorithm::per_bank_shared, commutative(58112)).empty());
  EXPECT_NE(mr::strategy_problem(multireduce_algorithm::per_bank_shared, commutative(58113)).find("58112"),
            std::string::npos);
  EXPECT_FALSE(mr::strategy_problem(multireduce_algorithm::per_bank_shared, commutative(29057, 8)).empty());
  EXPECT_TRUE(mr::strategy_problem(multireduce_algorithm::per_bank_multi_pass, commutative(1u << 24)).empty());
  EXPECT_TRUE(mr::strategy_problem(multireduce_algorithm::global_atomic_sets, commutative(0xfffffffeu)).empty());
}

TEST(MultireducePlan, SetsAndPartialSortOptions) {
  sluice::multireduce_options options;
  EXPECT_TRUE(mr::options_problem(options, 1).empty());
  for (unsigned sets : {1u, 2u, 8u, 32u}) {
    options.sets = sets;
    EXPECT_TRUE(mr::options_problem(options, 1000).empty()) << sets;
  }
  for (unsigned sets : {3u, 12u, 64u}) {
    options.sets = sets;
    EXPECT_FALSE(mr::options_problem(options, 1000).empty()) << sets;
  }
  options.sets = 0;
  options.partial_sort_bits = 0;
  EXPECT_TRUE(mr::options_problem(options, 1).empty());
  options.partial_sort_bits = -2;
  EXPECT_FALSE(mr::options_problem(options, 1000).empty());
}

TEST(MultireducePlan, PartialSortBitsAtMostTheLabelBits) {
  EXPECT_EQ(mr::label_bits(1), 0);
  EXPECT_EQ(mr::label_bits(2), 1);
  EXPECT_EQ(mr::label_bits(33), 6);
  EXPECT_EQ(mr::label_bits(4096), 12);
  EXPECT_EQ(mr::label_bits(4097), 13);
  EXPECT_EQ(mr::label_bits(0xfffffffeu), 32);
  sluice::multireduce_options options;
  const std::pair<std::uint32_t, int> cases[] = {{1u, 0}, {33u, 6}, {4096u, 12}, {1u << 20, 20}, {0xfffffffeu, 32}};
  for (const auto& [m, bits] : cases) {
    for (int b : {-1, 0, bits}) {
      options.partial_sort_bits = b;
      EXPECT_TRUE(mr::options_problem(options, m).empty()) << "m = " << m << ", b = " << b;
    }
    options.partial_sort_bits = bits + 1;
    EXPECT_NE(mr::options_problem(options, m).find("at most " + std::to_string(bits)), std::string::npos)
        << "m = " << m;
  }
}

TEST(MultireducePlan, PartialSortChosenOnlyOnceTheSetsLeaveHalfTheL2) {
  // Sets that fit half the L2 (25 MiB on an H100): no sort (Table 4.1's fast side).
  for (std::uint32_t m : {1u, 33u, 1u << 16, 1u << 20, 1u << 22})
    EXPECT_EQ(mr::choose_partial_sort_bits(m, mr::choose_global_sets(m, 4, h100_l2), 4, h100_l2), 0) << m;
  EXPECT_EQ(mr::choose_partial_sort_bits(6553600, 1, 4, h100_l2), 0);  // exactly 25 MiB
  // Beyond: one onesweep digit (8 bits) brings a window under the budget up to 2^30 four-byte buckets.
  EXPECT_EQ(mr::choose_partial_sort_bits(6553601, 1, 4, h100_l2), 8);
  EXPECT_EQ(mr::choose_partial_sort_bits(1u << 23, 1, 4, h100_l2), 8);
  EXPECT_EQ(mr::choose_partial_sort_bits(1u << 24, 1, 4, h100_l2), 8);
  EXPECT_EQ(mr::choose_partial_sort_bits(1u << 24, 1, 8, h100_l2), 8);
  EXPECT_EQ(mr::choose_partial_sort_bits(1u << 30, 1, 4, h100_l2), 8);
  EXPECT_EQ(mr::choose_partial_sort_bits(1u << 31, 1, 4, h100_l2), 16);
  EXPECT_EQ(mr::choose_partial_sort_bits(0xfffffffeu, 1, 8, h100_l2), 16);
  // More sets: sets · m decides (2^21 buckets in 8 sets are 64 MiB).
  EXPECT_EQ(mr::choose_partial_sort_bits(1u << 21, 8, 4, h100_l2), 8);
  // The seed's 512 KiB L2: m = 2^20 in 4 sets wants 6 bits, a whole digit is 8.
  EXPECT_EQ(mr::choose_partial_sort_bits(1u << 20, 4, 4, 512u << 10), 8);
  // An L2 that holds no window (or none reported): a full sort, never more than the label's bits.
  EXPECT_EQ(mr::choose_partial_sort_bits(33, 1, 4, 0), 6);
  EXPECT_EQ(mr::choose_partial_sort_bits(1u << 20, 32, 8, 1024), 20);
  // Always a valid option value.
  for (std::uint32_t m : {1u, 2u, 33u, 4096u, 1u << 20, 1u << 24, 0xfffffffeu})
    for (std::size_t l2 : {std::size_t{0}, std::size_t{512} << 10, h100_l2}) {
      sluice::multireduce_options options;
      options.partial_sort_bits = mr::choose_partial_sort_bits(m, 8, 8, l2);
      EXPECT_TRUE(mr::options_problem(options, m).empty()) << "m = " << m << ", l2 = " << l2;
    }
}

TEST(MultireducePlan, Names) {
  EXPECT_EQ(sluice::to_string(multireduce_algorithm::per_bank_shared), "per_bank_shared");
  EXPECT_EQ(sluice::to_string(multireduce_algorithm::global_sort_reduce_by_key), "global_sort_reduce_by_key");
}

}  // namespace
