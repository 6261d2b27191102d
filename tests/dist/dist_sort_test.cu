// Dist* gpu tests of dist::radix_sort and dist::radix_sort_pairs (sluice/dist.cuh) with however many GPUs
// are visible: u32, u64, i32 and float keys over every distribution and deal (even, empty ranks, one rank
// holding everything, uneven), bit for bit against the oracle and the one-GPU radix_sort; bit ranges,
// descending, few candidate words; pairs with their index as value (stability), 4-, 8- and 24-byte
// values; the stated balance; phase timings; bad arguments on one rank reported on every rank; a
// *Large* sort of 2^31 + 5 keys.
#include "dist/dist_sort_checks.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace {

using namespace sluice::testing;
namespace dist = sluice::dist;
using sluice::data::distribution;

class DistSort : public dist_test {};

TEST_F(DistSort, KeysU32EveryDistributionAndDeal) { sort_matrix<std::uint32_t>("u32"); }
TEST_F(DistSort, KeysU64EveryDistributionAndDeal) { sort_matrix<std::uint64_t>("u64"); }
TEST_F(DistSort, KeysI32EveryDistributionAndDeal) { sort_matrix<std::int32_t>("i32"); }
TEST_F(DistSort, KeysFloatEveryDistributionAndDeal) { sort_matrix<float>("float"); }

TEST_F(DistSort, FloatEdgeValuesKeepTheirPlaces) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> keys;
  for (int i = 0; i < 5000; ++i) keys.insert(keys.end(), {0.0f, -0.0f, inf, -inf, nan, -nan, 1.5f, -1.5f});
  for (deal_layout l : all_deals) check_sort_keys(keys, l, {}, "float edges", false);
}

TEST_F(DistSort, BitRangesAndDescending) {
  const auto keys = sort_keys<std::uint32_t>(distribution::uniform, 200003, 7);
  for (deal_layout l : {deal_layout::even, deal_layout::one_rank_all}) {
    for (auto [begin, end] : {std::pair{0, -1}, std::pair{8, 24}, std::pair{31, 32}, std::pair{5, 5}})
      for (bool descending : {false, true}) {
        dist::sort_options o;
        o.local.begin_bit = begin;
        o.local.end_bit = end;
        o.local.descending = descending;
        check_sort_keys(keys, l, o, "u32 bit range", false);
      }
  }
}

TEST_F(DistSort, FewCandidateWordsStaySortedAndStable) {
  const auto keys = sort_keys<std::uint32_t>(distribution::uniform, 300001, 11);
  for (unsigned words : {1u, 2u, 16u, 255u}) {
    dist::sort_options o;
    o.splitter_words = words;
    check_sort_keys(keys, deal_layout::even, o, "u32 splitter words", false);
    check_sort_pairs<std::uint32_t, std::uint32_t>(keys, deal_layout::uneven, o, "u32 pairs splitter words");
  }
}

struct wide_value {
  std::uint64_t index;
  std::uint64_t pad[2];
};

TEST_F(DistSort, PairsKeepInputOrderOfEqualKeys) {
  for (distribution shape : {distribution::uniform, distribution::all_equal, distribution::few_used, distribution::zipf})
    for (deal_layout l : all_deals)
      for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{1025}, std::size_t{300007}}) {
        const std::string what = "pairs " + std::string(sluice::data::to_string(shape));
        check_sort_pairs<std::uint32_t, std::uint32_t>(sort_keys<std::uint32_t>(shape, n, 5), l, {}, what);
        check_sort_pairs<std::uint64_t, std::uint64_t>(sort_keys<std::uint64_t>(shape, n, 6), l, {}, what);
      }
  dist::sort_options descending;
  descending.local.descending = true;
  check_sort_pairs<float, wide_value>(sort_keys<float>(distribution::uniform, 100003, 9), deal_layout::even, descending,
                                      "float keys, 24-byte values");
}

TEST_F(DistSort, AllEqualKeysAreSplitExactlyByPosition) {
  const std::size_t n = (std::size_t{1} << 20) + 3;
  const std::vector<std::uint32_t> keys(n, 42u);
  for (deal_layout l : all_deals) {
    const auto parts = scatter_to_ranks(comm(), keys, deal(n, world(), l));
    const auto sorted = dist::radix_sort(comm(), view(parts));
    for (int r = 0; r <= world(); ++r)
      EXPECT_EQ(sorted.offsets()[static_cast<std::size_t>(r)], n * static_cast<std::size_t>(r) / static_cast<std::size_t>(world()))
          << "deal " << name(l) << " rank " << r;
  }
}

TEST_F(DistSort, ReportsItsPhases) {
  const auto keys = sort_keys<std::uint32_t>(distribution::uniform, 1 << 20, 3);
  const auto parts = scatter_to_ranks(comm(), keys, deal(keys.size(), world(), deal_layout::even));
  dist::timings report;
  dist::sort_options o;
  o.report = &report;
  (void)dist::radix_sort(comm(), view(parts), o);
  ASSERT_EQ(report.phases, (std::vector<std::string>{"sample", "local_sort", "exchange", "merge"}));
  ASSERT_EQ(report.ms.size(), static_cast<std::size_t>(world()));
  EXPECT_GT(report.slowest("local_sort"), 0.0);
  EXPECT_GT(report.slowest_wall(), 0.0);
  if (world() > 1) EXPECT_GT(report.slowest("merge"), 0.0);
}

TEST_F(DistSort, BadArgumentsOnOneRankFailOnEveryRank) {
  const auto keys = sort_keys<std::uint32_t>(distribution::uniform, 4096, 1);
  const auto parts = scatter_to_ranks(comm(), keys, deal(keys.size(), world(), deal_layout::even));
  // The last rank passes host memory: every rank throws rank_failure naming it.
  std::vector<cuda::std::span<const std::uint32_t>> views;
  for (const auto& p : parts) views.push_back(p.span());
  views.back() = cuda::std::span<const std::uint32_t>(keys.data(), views.back().size() + 1);
  try {
    (void)dist::radix_sort(comm(), dist::distributed_span<const std::uint32_t>(views));
    FAIL() << "host memory on the last rank was accepted";
  } catch (const dist::rank_failure& e) {
    EXPECT_EQ(e.failed_rank(), comm().rank(comm().local_count() - 1)) << e.what();
    EXPECT_EQ(e.kind(), dist::failure_kind::invalid_argument) << e.what();
    EXPECT_NE(std::string(e.what()).find("'keys'"), std::string::npos) << e.what();
  }
  dist::sort_options bad;
  bad.splitter_words = 256;
  try {
    (void)dist::radix_sort(comm(), view(parts), bad);
    FAIL() << "splitter_words = 256 was accepted";
  } catch (const dist::rank_failure& e) {
    EXPECT_EQ(e.failed_rank(), 0) << e.what();
    EXPECT_NE(std::string(e.what()).find("options.splitter_words"), std::string::npos) << e.what();
  }
  bad = {};
  bad.local.begin_bit = 9;
  bad.local.end_bit = 8;
  EXPECT_THROW((void)dist::radix_sort(comm(), view(parts), bad), dist::rank_failure);
  // The communicator is still usable.
  check_sort_keys(keys, deal_layout::even, {}, "after failures", false);
}

TEST_F(DistSort, LargeKeysU32PastTwoToThe31) {
  if (under_sanitizer()) GTEST_SKIP() << "2^31 + 5 keys under a sanitizer";
  const std::size_t n = (std::size_t{1} << 31) + 5;
  std::vector<std::uint32_t> keys(n);
  for (std::size_t i = 0; i < n; ++i) keys[i] = static_cast<std::uint32_t>(sluice::data::mix64(i) >> 32);
  const auto parts = scatter_to_ranks(comm(), keys, deal(n, world(), deal_layout::even));
  const auto sorted = dist::radix_sort(comm(), view(parts));
  const std::vector<std::uint32_t> got = gather_to_host(sorted);
  ASSERT_EQ(got.size(), n);
  EXPECT_TRUE(std::is_sorted(got.begin(), got.end()));
  sluice::context& first = comm().ctx(0);  // the one-GPU sort of the whole input, bit for bit
  const sluice::device_buffer<std::uint32_t> whole(first, std::span<const std::uint32_t>(keys));
  sluice::device_buffer<std::uint32_t> one_gpu(first, n);
  sluice::radix_sort(first, whole.span(), one_gpu.span());
  EXPECT_TRUE(same_bytes(got, one_gpu.to_host()));
}

}  // namespace
