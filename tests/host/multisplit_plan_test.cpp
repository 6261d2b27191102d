// Host tests of multisplit's host-side plan (detail/multisplit/plan.hpp): ⌈log2 m⌉, the base-255 digit
// passes past 256 buckets (simulated here on ids: applying the passes as stable sorts by digit, least
// significant first, must sort by the whole id and keep invalid ids for the last pass), the automatic
// choice, and the onesweep enumerator (added last; not chosen by automatic yet).
#include <sluice/detail/multisplit/plan.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <random>
#include <vector>

namespace {

namespace ms = sluice::detail::multisplit;
using sluice::multisplit_algorithm;

TEST(MultisplitPlan, IdBits) {
  EXPECT_EQ(ms::id_bits(1), 0);
  EXPECT_EQ(ms::id_bits(2), 1);
  EXPECT_EQ(ms::id_bits(3), 2);
  EXPECT_EQ(ms::id_bits(256), 8);
  EXPECT_EQ(ms::id_bits(257), 9);
  EXPECT_EQ(ms::id_bits(std::uint64_t{1} << 32), 32);
}

TEST(MultisplitPlan, OnePassUpTo256Buckets) {
  for (std::uint32_t m : {1u, 2u, 255u, 256u})
    EXPECT_EQ(ms::digit_passes(m), (std::vector<ms::digit_pass>{{1, 0, m}})) << "m = " << m;
}

TEST(MultisplitPlan, DigitPassCounts) {
  EXPECT_EQ(ms::digit_passes(257), (std::vector<ms::digit_pass>{{1, 255, 256}, {255, 0, 2}}));
  EXPECT_EQ(ms::digit_passes(65280).size(), 2u);
  EXPECT_EQ(ms::digit_passes(65281).size(), 3u);
  EXPECT_EQ(ms::digit_passes(65536).size(), 3u);
  EXPECT_EQ(ms::digit_passes(16646400).size(), 3u);
  EXPECT_EQ(ms::digit_passes(16646401).size(), 4u);
  EXPECT_EQ(ms::digit_passes(0xffffffffu).size(), 5u);
  for (std::uint32_t m : {257u, 1000u, 65536u, 0xffffffffu})
    for (const auto& pass : ms::digit_passes(m)) EXPECT_LE(pass.buckets, ms::max_direct_buckets) << "m = " << m;
}

/// The digit of an id (nullopt = invalid) in a pass, as pass_ids computes it on the device.
std::optional<std::uint32_t> digit(std::optional<std::uint32_t> id, const ms::digit_pass& pass) {
  if (!id) return pass.radix == 0 ? std::nullopt : std::optional<std::uint32_t>(pass.radix);
  const std::uint32_t d = *id / pass.divisor;
  return pass.radix == 0 ? d : d % pass.radix;
}

TEST(MultisplitPlan, DigitPassesSortStablyByTheWholeId) {
  std::mt19937 random(5);
  for (std::uint32_t m : {257u, 1000u, 65280u, 65536u, 20000000u}) {
    // (id, original index); about 1% invalid ids
    std::vector<std::pair<std::optional<std::uint32_t>, std::size_t>> items(5000);
    for (std::size_t i = 0; i < items.size(); ++i)
      items[i] = {random() % 100 == 0 ? std::nullopt : std::optional<std::uint32_t>(random() % m), i};
    auto expected = items;
    std::erase_if(expected, [](const auto& item) { return !item.first; });
    std::stable_sort(expected.begin(), expected.end(), [](const auto& a, const auto& b) { return *a.first < *b.first; });
    for (const auto& pass : ms::digit_passes(m)) {
      decltype(items) next;
      for (std::uint32_t b = 0; b < pass.buckets; ++b)
        for (const auto& item : items)
          if (digit(item.first, pass) == b) next.push_back(item);
      items = std::move(next);
    }
    EXPECT_EQ(items, expected) << "m = " << m;
  }
}

TEST(MultisplitPlan, AutomaticChoice) {
  EXPECT_EQ(ms::choose(2, 4, 0), multisplit_algorithm::scan_split);  // m = 2 keys: scan_split faster (0f00278)
  EXPECT_EQ(ms::choose(1, 4, 0), multisplit_algorithm::dms);
  EXPECT_EQ(ms::choose(2, 4, 4), multisplit_algorithm::onesweep);
  EXPECT_EQ(ms::choose(2, 8, 0), multisplit_algorithm::onesweep);
  EXPECT_EQ(ms::choose(3, 4, 0), multisplit_algorithm::onesweep);  // measured faster at m = 32
  EXPECT_EQ(ms::choose(255, 4, 4), multisplit_algorithm::onesweep);
  EXPECT_EQ(ms::choose(32, 16, 16), multisplit_algorithm::onesweep);
  EXPECT_EQ(ms::choose(32, 4, 20), multisplit_algorithm::bms);  // values over onesweep's 16 bytes
  EXPECT_EQ(ms::choose(256, 4, 4), multisplit_algorithm::onesweep);  // 512 ranked digits
  EXPECT_EQ(ms::choose(511, 4, 4), multisplit_algorithm::onesweep);
  EXPECT_EQ(ms::choose(512, 4, 4), multisplit_algorithm::bms);
  EXPECT_EQ(ms::choose(65280, 4, 4), multisplit_algorithm::bms);
  EXPECT_EQ(ms::choose(65281, 4, 4), multisplit_algorithm::rb_sort);
  EXPECT_EQ(ms::choose(8, 8, 24), multisplit_algorithm::bms);  // values over onesweep's 16 bytes
  EXPECT_EQ(ms::choose(8, 8, 32), multisplit_algorithm::rb_sort);
}

TEST(MultisplitPlan, OnesweepIsAddedLastAndChosenFromTwoTo511Buckets) {
  EXPECT_EQ(static_cast<int>(multisplit_algorithm::scan_split), 5);  // earlier enumerators keep their values
  EXPECT_EQ(static_cast<int>(multisplit_algorithm::onesweep), 6);
  EXPECT_EQ(sluice::to_string(multisplit_algorithm::onesweep), "onesweep");
  // from 2 buckets, but u32 keys alone into 2 buckets take scan_split
  for (std::uint32_t m = 1; m <= 600; ++m)
    for (std::size_t value_bytes : {std::size_t{0}, std::size_t{4}, std::size_t{16}}) {
      const bool scan_split_keys = m == 2 && value_bytes == 0;
      EXPECT_EQ(ms::choose(m, 4, value_bytes) == multisplit_algorithm::onesweep,
                m >= 2 && m <= 511 && !scan_split_keys) << m;
    }
}

TEST(MultisplitPlan, OnesweepRanksTheNarrowestWidthThatHoldsItsDigits) {
  // The drop digit m makes a width hold one bucket fewer.
  EXPECT_EQ(ms::onesweep_digit_bits(1, true), 5);
  EXPECT_EQ(ms::onesweep_digit_bits(31, true), 5);
  EXPECT_EQ(ms::onesweep_digit_bits(32, true), 6);
  EXPECT_EQ(ms::onesweep_digit_bits(63, true), 6);
  EXPECT_EQ(ms::onesweep_digit_bits(64, true), 8);
  EXPECT_EQ(ms::onesweep_digit_bits(255, true), 8);
  EXPECT_EQ(ms::onesweep_digit_bits(256, true), 9);
  EXPECT_EQ(ms::onesweep_digit_bits(511, true), 9);
  EXPECT_EQ(ms::onesweep_digit_bits(512, true), 0);
  // Without it, a power of two fills its width.
  EXPECT_EQ(ms::onesweep_digit_bits(2, false), 5);
  EXPECT_EQ(ms::onesweep_digit_bits(32, false), 5);
  EXPECT_EQ(ms::onesweep_digit_bits(33, false), 6);
  EXPECT_EQ(ms::onesweep_digit_bits(64, false), 6);
  EXPECT_EQ(ms::onesweep_digit_bits(65, false), 8);
  EXPECT_EQ(ms::onesweep_digit_bits(256, false), 8);
  EXPECT_EQ(ms::onesweep_digit_bits(257, false), 9);
  EXPECT_EQ(ms::onesweep_digit_bits(512, false), 9);
  EXPECT_EQ(ms::onesweep_digit_bits(513, false), 0);
  for (std::uint32_t m = 1; m <= ms::max_onesweep_buckets; ++m)
    for (bool may_drop : {false, true}) {
      const std::uint64_t digits = std::uint64_t{m} + (may_drop ? 1 : 0);
      const int bits = ms::onesweep_digit_bits(m, may_drop);
      EXPECT_GE(std::uint64_t{1} << bits, digits) << m;
      for (const int narrower : ms::tuning::onesweep_digit_widths)
        if (narrower < bits) {
          EXPECT_LT(std::uint64_t{1} << narrower, digits) << m;
        }
    }
}

}  // namespace
