// Host tests of the GPU LSM's index arithmetic (detail/lsm/plan.hpp, Ashkiani §4.3–4.4), exhaustively
// over small ranges against naive definitions: full levels are the bits of r and ffz(r) the first empty
// one; levels_for is the smallest L with b·(2^L − 1) ≥ capacity; largest_carry equals the largest ffz
// over the units inserted; a batch split cuts P + the batch into whole units and a tail, in order; the
// merge steps of a carry never write the buffer they read and the last writes the target level;
// redistribution slices partition the sorted array over P and the full levels; the candidate layout is a
// bijection in (query, run) order; the validation, live-delta, cleanup and option rules.
#include <sluice/detail/lsm/plan.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace {

namespace lp = sluice::detail::lsm;
using u64 = std::uint64_t;

TEST(LsmPlan, BitWidthAndFirstEmptyLevel) {
  for (u64 r = 0; r < (1u << 16); ++r) {
    int width = 0;
    while (width < 64 && (r >> width) != 0) ++width;
    EXPECT_EQ(lp::bit_width(r), width) << "r = " << r;
    int ffz = 0;
    while ((r >> ffz) & 1) ++ffz;
    ASSERT_EQ(lp::first_empty_level(r), ffz) << "r = " << r;
    for (int i = 0; i < 20; ++i) ASSERT_EQ(lp::level_full(r, i), ((r >> i) & 1) != 0) << "r = " << r << ", level " << i;
  }
  EXPECT_EQ(lp::first_empty_level(~u64{0}), 64);
  EXPECT_EQ(lp::bit_width(~u64{0}), 64);
  EXPECT_FALSE(lp::level_full(~u64{0}, 64));
}

TEST(LsmPlan, InsertingAUnitIsRPlusOneWithCarries) {
  // The levels after a carry into ffz(r): levels below it emptied, it filled, the rest unchanged.
  for (u64 r = 0; r < 4096; ++r) {
    const int k = lp::first_empty_level(r);
    for (int i = 0; i < 16; ++i) {
      const bool expected = i < k ? false : i == k ? true : lp::level_full(r, i);
      ASSERT_EQ(lp::level_full(r + 1, i), expected) << "r = " << r << ", level " << i;
    }
  }
}

TEST(LsmPlan, LevelSizesAndCapacity) {
  for (u64 b = 1; b <= 17; ++b) {
    for (int i = 0; i < 20; ++i) EXPECT_EQ(lp::level_size(b, i), b * (u64{1} << i));
    for (u64 capacity = 1; capacity <= 3000; ++capacity) {
      const int levels = lp::levels_for(capacity, b);
      ASSERT_GE(b * lp::max_units(levels), capacity) << "b = " << b << ", capacity " << capacity;
      if (levels > 1) {
        ASSERT_LT(b * lp::max_units(levels - 1), capacity) << "b = " << b << ", capacity " << capacity;
      }
      ASSERT_EQ(lp::max_elements(b, levels), b * ((u64{1} << levels) - 1) + b - 1);
    }
  }
  EXPECT_EQ(lp::levels_for(1, 1 << 20), 1);
  EXPECT_EQ(lp::levels_for(u64{1} << 27, 1 << 15), 13);  // 2^12 units need 13 levels (2^13 − 1 ≥ 2^12)
}

TEST(LsmPlan, UnitsFitIsOverflowSafe) {
  for (int levels = 1; levels <= 10; ++levels)
    for (u64 r = 0; r <= lp::max_units(levels); ++r)
      for (u64 units = 0; units < 2100; ++units)
        ASSERT_EQ(lp::units_fit(r, units, levels), r + units <= lp::max_units(levels))
            << "levels " << levels << ", r " << r << ", units " << units;
  EXPECT_FALSE(lp::units_fit(1, ~u64{0}, 40));
  EXPECT_FALSE(lp::units_fit(lp::max_units(40), 1, 40));
  EXPECT_TRUE(lp::units_fit(lp::max_units(40) - 1, 1, 40));
}

TEST(LsmPlan, LargestCarryIsTheLargestFfzOverTheInsertedUnits) {
  for (u64 r = 0; r < 600; ++r)
    for (u64 units = 1; units < 600; ++units) {
      int largest = 0;
      for (u64 t = r; t < r + units; ++t) largest = std::max(largest, lp::first_empty_level(t));
      ASSERT_EQ(lp::largest_carry(r, units), largest) << "r = " << r << ", units " << units;
    }
}

TEST(LsmPlan, BatchSplitCutsPAndTheBatchIntoUnitsInOrder) {
  for (u64 b = 1; b <= 9; ++b)
    for (u64 p = 0; p < b; ++p)
      for (u64 m = 0; m <= 60; ++m) {
        const lp::batch_split split{b, p, m};
        const std::string what = "b " + std::to_string(b) + ", p " + std::to_string(p) + ", m " + std::to_string(m);
        ASSERT_EQ(split.units(), (p + m) / b) << what;
        ASSERT_EQ(split.new_p(), (p + m) % b) << what;
        // The sequence P, then the batch, cut into units of b and a tail: each batch element once, in order.
        u64 next = 0;
        for (u64 u = 0; u < split.units(); ++u) {
          const lp::slice s = split.unit(u);
          ASSERT_EQ(s.first, next) << what << ", unit " << u;
          ASSERT_EQ(s.count + (u == 0 ? p : 0), b) << what << ", unit " << u;
          next += s.count;
        }
        const lp::slice tail = split.tail();
        ASSERT_EQ(tail.first, next) << what;
        ASSERT_EQ(tail.first + tail.count, m) << what;
        ASSERT_EQ(split.tail_joins_p(), split.units() == 0) << what;
        ASSERT_EQ(split.tail_joins_p() ? p + tail.count : tail.count, split.new_p()) << what;
        ASSERT_LT(split.new_p(), b) << what;
      }
}

TEST(LsmPlan, CarryStepsNeverWriteWhatTheyReadAndEndInTheLevel) {
  enum buffer { staging, level_k, temp };
  for (u64 b = 1; b <= 5; ++b)
    for (int k = 1; k <= 30; ++k) {
      buffer source = staging;
      for (int step = 0; step < k; ++step) {
        const buffer target = lp::step_writes_level(k, step) ? level_k : temp;
        ASSERT_NE(target, source) << "k = " << k << ", step " << step;
        if (target == temp) {
          ASSERT_LE(lp::level_size(b, step + 1), lp::carry_temp_size(b, k)) << "k " << k << ", step " << step;
        } else {
          ASSERT_LE(lp::level_size(b, step + 1), lp::level_size(b, k));
        }
        source = target;
      }
      ASSERT_EQ(source, level_k) << "k = " << k;
    }
  EXPECT_EQ(lp::carry_temp_size(8, 0), 0u);
  EXPECT_EQ(lp::carry_temp_size(8, 1), 0u);
  EXPECT_EQ(lp::carry_temp_size(8, 2), 16u);
}

TEST(LsmPlan, LargestMergeBoundsEveryMergeOfAnUpdate) {
  // Every merge an update makes (unit 0 with P, each unit's carry steps, the tail with P) writes at most
  // largest_merge(b, its deepest carry) outputs, and some merge writes exactly that where one completes
  // a carry of depth ≥ 1: the update buffers' splits are neither short nor oversized.
  for (u64 b : {1u, 2u, 3u, 8u})
    for (u64 r = 0; r < 64; ++r)
      for (u64 p = 0; p < b; ++p)
        for (u64 m = 1; m <= 5 * b; ++m) {
          const lp::batch_split split{b, p, m};
          const int carry = split.units() == 0 ? 0 : lp::largest_carry(r, split.units());
          const u64 bound = lp::largest_merge(b, carry);
          u64 largest = 0;
          const auto merge = [&](u64 outputs) { largest = outputs > largest ? outputs : largest; };
          for (u64 u = 0; u < split.units(); ++u) {
            if (u == 0 && p != 0) merge(b);
            for (int step = 0; step < lp::first_empty_level(r + u); ++step) merge(lp::level_size(b, step + 1));
          }
          if (split.tail_joins_p() && p != 0) merge(p + m);
          ASSERT_LE(largest, bound) << "b " << b << ", r " << r << ", p " << p << ", m " << m;
          if (carry >= 1) {
            ASSERT_EQ(largest, bound) << "b " << b << ", r " << r << ", p " << p << ", m " << m;
          }
        }
  EXPECT_EQ(lp::largest_merge(8, 0), 8u);
  EXPECT_EQ(lp::largest_merge(8, 3), 64u);
}

TEST(LsmPlan, UnitGoesStraightToAnEmptyLevel0) {
  for (u64 r = 0; r < 1024; ++r) EXPECT_EQ(lp::unit_goes_to_level0(r), (r & 1) == 0);
}

TEST(LsmPlan, RedistributionPartitionsTheSortedArray) {
  for (u64 b = 1; b <= 9; ++b)
    for (u64 n = 0; n <= 400; ++n) {
      const std::string what = "b " + std::to_string(b) + ", n " + std::to_string(n);
      const lp::slice p = lp::redistributed_p(n, b);
      ASSERT_EQ(p.first, 0u) << what;
      ASSERT_EQ(p.count, n % b) << what;
      u64 next = p.count;
      for (int level = 0; level < 12; ++level) {
        const lp::slice s = lp::redistributed_level(n, b, level);
        if (!lp::level_full(n / b, level)) {
          ASSERT_EQ(s.count, 0u) << what << ", level " << level;
          continue;
        }
        ASSERT_EQ(s.first, next) << what << ", level " << level;
        ASSERT_EQ(s.count, lp::level_size(b, level)) << what << ", level " << level;
        next += s.count;
      }
      ASSERT_EQ(next, n) << what;
    }
}

TEST(LsmPlan, CandidateLayoutIsQueryMajorAndRunsNewestFirst) {
  for (u64 runs = 1; runs <= 8; ++runs) {
    u64 expected = 0;
    for (u64 q = 0; q < 20; ++q)
      for (u64 j = 0; j < runs; ++j) ASSERT_EQ(lp::candidate_slot(q, runs, j), expected++);
  }
  EXPECT_EQ(lp::candidate_count(false, 3, 7), 4u);
  EXPECT_EQ(lp::candidate_count(false, 3, 3), 0u);
  EXPECT_EQ(lp::candidate_count(true, 3, 7), 0u);  // k1 > k2: an empty result
  EXPECT_EQ(lp::candidate_count(false, 7, 3), 0u); // never negative
}

TEST(LsmPlan, ValidationRules) {
  for (int first = 0; first < 2; ++first)
    for (int same = 0; same < 2; ++same)
      for (std::uint32_t status : {lp::tombstone, lp::regular})
        EXPECT_EQ(lp::live_candidate(first, same, status), status == lp::regular && (first || !same));
  EXPECT_EQ(lp::live_delta(false, lp::regular), 1);
  EXPECT_EQ(lp::live_delta(true, lp::regular), 0);
  EXPECT_EQ(lp::live_delta(false, lp::tombstone), 0);
  EXPECT_EQ(lp::live_delta(true, lp::tombstone), -1);
}

TEST(LsmPlan, LiveInPlaceIsTheMergedRuleUnbuilt) {
  for (bool newer : {false, true})
    for (bool same : {false, true})
      for (std::uint32_t status : {lp::tombstone, lp::regular})
        EXPECT_EQ(lp::live_in_place(newer, same, status), lp::live_candidate(false, newer || same, status));
}

// A warp takes more queries only while the warps left still fill the device once; 1 to 32, powers of two.
TEST(LsmPlan, CountQueriesPerWarp) {
  EXPECT_EQ(lp::count_queries_per_warp(u64{1} << 20, 8448), 32);
  EXPECT_EQ(lp::count_queries_per_warp(u64{1} << 14, 8448), 1);
  EXPECT_EQ(lp::count_queries_per_warp(0, 8448), 1);
  EXPECT_EQ(lp::count_queries_per_warp(16896, 8448), 2);
  EXPECT_EQ(lp::count_queries_per_warp(16895, 8448), 1);
  for (u64 q = 0; q < 5000; q += 7) {
    const int w = lp::count_queries_per_warp(q, 100);
    EXPECT_TRUE(w >= 1 && w <= 32 && (w & (w - 1)) == 0) << q;
    if (w > 1) {
      EXPECT_GE(q / static_cast<u64>(w), 100u) << q;
    }
    if (w < 32) {
      EXPECT_LT(q / (2 * static_cast<u64>(w)), 100u) << q;
    }
  }
}

TEST(LsmPlan, CleanupPolicy) {
  EXPECT_FALSE(lp::should_cleanup(0, 100, 0));       // off
  EXPECT_FALSE(lp::should_cleanup(0.5, 100, 50));    // exactly the fraction: not past it
  EXPECT_TRUE(lp::should_cleanup(0.5, 100, 49));
  EXPECT_FALSE(lp::should_cleanup(0.1, 0, 0));       // empty
  EXPECT_FALSE(lp::should_cleanup(0.1, 100, 100));   // nothing stale
  EXPECT_TRUE(lp::should_cleanup(0.01, 100, 98));
}

TEST(LsmPlan, OptionChecksNameTheBadOption) {
  EXPECT_EQ(lp::bad_option(1 << 20, 1 << 24, 0), nullptr);
  EXPECT_EQ(lp::bad_option(1, 1, 0.5), nullptr);
  EXPECT_STREQ(lp::bad_option(0, 100, 0), "options.batch_size");
  EXPECT_STREQ(lp::bad_option((u64{1} << 40) + 1, u64{1} << 45, 0), "options.batch_size");
  EXPECT_STREQ(lp::bad_option(16, 0, 0), "options.capacity");
  EXPECT_STREQ(lp::bad_option(1, u64{1} << 41, 0), "options.capacity");  // 41 levels
  EXPECT_EQ(lp::bad_option(1, (u64{1} << 40) - 1, 0), nullptr);          // exactly 40 levels
  EXPECT_STREQ(lp::bad_option(16, 100, -0.1), "options.cleanup_stale_fraction");
  EXPECT_STREQ(lp::bad_option(16, 100, 1.0), "options.cleanup_stale_fraction");
}

}  // namespace
