// Dist* gpu tests of dist::radix_sort for the remaining key types of radix_sort.cuh (u8, u16, i64,
// double: every distribution and deal, against the oracle and the one-GPU sort) and u16 / double pairs;
// a separate file so that the two sort files compile in parallel.
#include "dist/dist_sort_checks.hpp"

#include <cstdint>

namespace {

using namespace sluice::testing;
using sluice::data::distribution;

class DistSortTypes : public dist_test {};

TEST_F(DistSortTypes, KeysU8EveryDistributionAndDeal) { sort_matrix<std::uint8_t>("u8"); }
TEST_F(DistSortTypes, KeysU16EveryDistributionAndDeal) { sort_matrix<std::uint16_t>("u16"); }
TEST_F(DistSortTypes, KeysI64EveryDistributionAndDeal) { sort_matrix<std::int64_t>("i64"); }
TEST_F(DistSortTypes, KeysDoubleEveryDistributionAndDeal) { sort_matrix<double>("double"); }

TEST_F(DistSortTypes, PairsOfNarrowAndWideKeys) {
  for (deal_layout l : all_deals) {
    check_sort_pairs<std::uint16_t, std::uint32_t>(sort_keys<std::uint16_t>(distribution::uniform, 70001, 2), l, {},
                                                   "u16 pairs");
    check_sort_pairs<double, std::uint64_t>(sort_keys<double>(distribution::uniform, 70001, 3), l, {}, "double pairs");
  }
}

}  // namespace
