// Host test of sluice/reference/reference.hpp: the umbrella header compiles on its own in a second
// translation unit (so every non-template function in the oracles must be inline, or linking fails), and
// the oracles compose: a radix sort by multisplit passes equals radix_sort_keys.
#include <sluice/reference/reference.hpp>

#include "support/compare.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <span>
#include <vector>

namespace {

namespace ref = sluice::reference;

TEST(ReferenceUmbrella, LsdRadixSortByMultisplitPassesEqualsRadixSortKeys) {
  std::mt19937_64 rng(24);
  std::vector<std::int32_t> keys(65536);
  for (auto& k : keys) k = static_cast<std::int32_t>(rng());
  std::vector<std::int32_t> passes = keys;
  for (int shift = 0; shift < 32; shift += 8) {  // stable 8-bit digit passes, least significant first
    passes = ref::multisplit<std::int32_t>(passes, 256, [shift](std::int32_t k) {
               return (ref::radix_bits(k) >> shift) & 0xFFu;
             }).keys;
  }
  EXPECT_TRUE(sluice::testing::all_equal(passes, ref::radix_sort_keys<std::int32_t>(keys)));
  EXPECT_TRUE(ref::is_sorted<std::int32_t>(passes));
  EXPECT_EQ(ref::string_match(std::vector<std::uint8_t>{1, 2, 1, 2}, std::vector<std::uint8_t>{1, 2}).size(), 2u);
}

}  // namespace
