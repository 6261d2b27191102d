// Host tests of the index arithmetic of segmented_sort (detail/merge_sort/segmented_plan.hpp) and of the
// pairwise rounds it shares with merge_sort (detail/merge_sort/rounds.hpp): the pairs of a round tile
// the outputs, the round counts, clamped segment bounds and the copied-through positions on every small
// case, the tiers and the host's capacity bounds on random offsets, the slot owners against a linear
// search, and a model of the tile tier (block sort, rounds within each segment, buffers alternating by
// writes_output) that sorts random segments with std::merge and must land every segment in the output.
#include <sluice/detail/merge_sort/rounds.hpp>
#include <sluice/detail/merge_sort/segmented_plan.hpp>
#include <sluice/detail/merge_sort/tuning.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {

namespace ms = sluice::detail::merge_sort;
namespace seg = sluice::detail::merge_sort::segmented_sort;
using ms::index_t;

TEST(MergeSortRounds, PairsTileEveryRound) {
  for (index_t n = 1; n <= 130; ++n)
    for (index_t width = 1; width <= 70; ++width) {
      index_t expected_start = 0;
      for (index_t position = 0; position < n; ++position) {
        const ms::pair_span p = ms::pair_of(n, width, position);
        const std::string where =
            "n " + std::to_string(n) + ", width " + std::to_string(width) + ", position " + std::to_string(position);
        if (position == expected_start + 2 * width) expected_start = position;
        ASSERT_EQ(p.start, expected_start) << where;
        ASSERT_LE(p.start, position) << where;
        ASSERT_LT(position, p.start + p.na + p.nb) << where;
        ASSERT_EQ(p.na, std::min(width, n - p.start)) << where;
        ASSERT_EQ(p.nb, std::min(width, n - p.start - p.na)) << where;
      }
    }
}

TEST(MergeSortRounds, RoundsAreTheCeilingOfLog2) {
  EXPECT_EQ(ms::rounds_for(0), 0);
  EXPECT_EQ(ms::rounds_for(1), 0);
  for (index_t tiles = 2; tiles <= 5000; ++tiles) {
    const int r = ms::rounds_for(tiles);
    ASSERT_GE(index_t{1} << r, tiles) << tiles;
    ASSERT_LT(index_t{1} << (r - 1), tiles) << tiles;
  }
  EXPECT_EQ(ms::rounds_for(index_t{1} << 40), 40);
  EXPECT_EQ(ms::rounds_for((index_t{1} << 40) + 1), 41);
  EXPECT_TRUE(ms::writes_output(0));
  EXPECT_FALSE(ms::writes_output(1));
  EXPECT_TRUE(ms::writes_output(2));
}

TEST(SegmentedSortPlan, ClampedSegmentsStayInside) {
  for (std::size_t n = 0; n <= 12; ++n)
    for (std::size_t first = 0; first <= 15; ++first)
      for (std::size_t last = 0; last <= 15; ++last) {
        const seg::segment_bounds s = seg::clamped_segment(first, last, n);
        const std::string where =
            "n " + std::to_string(n) + ", [" + std::to_string(first) + ", " + std::to_string(last) + ")";
        ASSERT_GE(s.begin, 0) << where;
        ASSERT_GE(s.size, 0) << where;
        ASSERT_LE(s.begin + s.size, static_cast<index_t>(n)) << where;
        if (first <= last && last <= n) {  // a valid segment is kept exactly
          ASSERT_EQ(s.begin, static_cast<index_t>(first)) << where;
          ASSERT_EQ(s.size, static_cast<index_t>(last - first)) << where;
        }
      }
}

TEST(SegmentedSortPlan, OutsidePositionsAreTheComplement) {
  for (std::size_t n = 0; n <= 12; ++n)
    for (std::size_t front = 0; front <= 14; ++front)
      for (std::size_t back = 0; back <= 14; ++back) {
        const seg::outside_span outside = seg::outside_of(front, back, n);
        const seg::segment_bounds inside = seg::clamped_segment(front, back, n);
        std::vector<int> seen(n, 0);
        for (index_t i = 0; i < outside.size(); ++i) {
          const index_t at = outside.position(i);
          ASSERT_GE(at, 0);
          ASSERT_LT(at, static_cast<index_t>(n));
          ++seen[static_cast<std::size_t>(at)];
        }
        for (std::size_t i = 0; i < n; ++i) {
          const bool in =
              static_cast<index_t>(i) >= inside.begin && static_cast<index_t>(i) < inside.begin + inside.size;
          ASSERT_EQ(seen[i], in ? 0 : 1) << "n " << n << ", front " << front << ", back " << back << ", i " << i;
        }
      }
}

TEST(SegmentedSortPlan, TiersByTheTuningLimits) {
  using tuning = ms::tuning;
  for (std::size_t bytes : {1, 2, 4, 8, 16, 32}) {
    const index_t lanes = index_t{tuning::segment_lanes} * tuning::segment_lanes_items(bytes);
    const index_t warp = index_t{32} * tuning::segment_warp_items(bytes);
    const index_t tile = index_t{tuning::block_threads} * tuning::items_per_thread(bytes);
    EXPECT_LT(lanes, warp) << bytes;
    EXPECT_LT(warp, tile) << bytes;
    EXPECT_EQ(tuning::segment_group_threads % 32, 0);
    const seg::tier_limits limits{lanes, warp};
    EXPECT_EQ(seg::tier_of(0, limits), seg::lanes_tier);
    EXPECT_EQ(seg::tier_of(lanes, limits), seg::lanes_tier);
    EXPECT_EQ(seg::tier_of(lanes + 1, limits), seg::warp_tier);
    EXPECT_EQ(seg::tier_of(warp, limits), seg::warp_tier);
    EXPECT_EQ(seg::tier_of(warp + 1, limits), seg::tiles_tier);
    EXPECT_EQ(seg::tier_of(index_t{1} << 40, limits), seg::tiles_tier);
  }
}

/// Random non-decreasing offsets over [0, n) (a few empty and huge segments), not starting at 0.
std::vector<std::size_t> random_offsets(std::mt19937_64& random, std::size_t n, std::size_t segments) {
  std::vector<std::size_t> offsets(segments + 1);
  for (auto& o : offsets) o = n == 0 ? 0 : random() % (n + 1);
  std::sort(offsets.begin(), offsets.end());
  return offsets;
}

TEST(SegmentedSortPlan, CapacityBoundsTheTileTier) {
  std::mt19937_64 random(11);
  const seg::tier_limits limits{36, 224};
  for (int trial = 0; trial < 3000; ++trial) {
    const std::size_t n = random() % 20000;
    const std::size_t segments = 1 + random() % (trial % 3 == 0 ? 4 : 300);
    const index_t tile = 1 + static_cast<index_t>(random() % 5000);
    const auto offsets = random_offsets(random, n, segments);
    index_t tier_segments = 0;
    index_t tiles = 0;
    for (std::size_t s = 0; s < segments; ++s) {
      const auto b = seg::clamped_segment(offsets[s], offsets[s + 1], n);
      if (seg::tier_of(b.size, limits) != seg::tiles_tier) continue;
      ++tier_segments;
      tiles += seg::tiles_of(b.size, tile);
    }
    const auto capacity = seg::capacity_of(n, segments, limits, tile);
    ASSERT_LE(tier_segments, capacity.segments) << "trial " << trial;
    ASSERT_LE(tiles, capacity.slots) << "trial " << trial;
    ASSERT_LE(capacity.segments, static_cast<index_t>(segments));
  }
  EXPECT_EQ(seg::capacity_of(224, 5, limits, 100).segments, 0);  // nothing can exceed the warp limit
  EXPECT_EQ(seg::capacity_of(225, 5, limits, 100).segments, 1);
  EXPECT_EQ(seg::capacity_of(225, 5, limits, 100).slots, 4);
  // 2^31 + 5 one-byte keys: the bounds need 64 bits.
  const std::size_t large = (std::size_t{1} << 31) + 5;
  const auto big = seg::capacity_of(large, 3, limits, 4352);
  EXPECT_EQ(big.segments, 3);
  EXPECT_EQ(big.slots, seg::tiles_of(static_cast<index_t>(large), 4352) + 3);
}

TEST(SegmentedSortPlan, OwnersByBinarySearch) {
  std::mt19937_64 random(5);
  for (int trial = 0; trial < 500; ++trial) {
    const std::size_t count = random() % 40;
    std::vector<index_t> ends(count);
    index_t total = 0;
    for (auto& e : ends) e = total += static_cast<index_t>(random() % 4);  // zero-tile entries too
    for (index_t t = 0; t <= total + 1; ++t) {
      index_t expected = static_cast<index_t>(count);
      for (std::size_t j = 0; j < count; ++j)
        if (ends[j] > t) {
          expected = static_cast<index_t>(j);
          break;
        }
      ASSERT_EQ(seg::owner_of(ends, static_cast<index_t>(count), t), expected) << "trial " << trial << ", t " << t;
    }
  }
}

TEST(SegmentedSortPlan, SlotsInUseHoldWholeSegments) {
  const std::vector<index_t> ends{2, 2, 5, 9, 9, 14};
  EXPECT_EQ(seg::slots_in_use(ends, 6, 14), 14);
  EXPECT_EQ(seg::slots_in_use(ends, 6, 100), 14);
  EXPECT_EQ(seg::slots_in_use(ends, 6, 13), 9);
  EXPECT_EQ(seg::slots_in_use(ends, 6, 9), 9);
  EXPECT_EQ(seg::slots_in_use(ends, 6, 8), 5);
  EXPECT_EQ(seg::slots_in_use(ends, 6, 1), 0);
  EXPECT_EQ(seg::slots_in_use(ends, 3, 100), 5);
  EXPECT_EQ(seg::slots_in_use(ends, 0, 100), 0);
}

/// The tile tier as segmented.cuh runs it, with std::stable_sort for the block sort and std::merge for
/// each tile's piece of its pair: slots from the scan and owner_of, the block sort writing where
/// writes_output(rounds) says, round k reading buffer (rounds − k) and writing (rounds − k − 1).
TEST(SegmentedSortPlan, TileTierModelSortsEverySegmentIntoTheOutput) {
  std::mt19937_64 random(3);
  for (int trial = 0; trial < 300; ++trial) {
    const index_t tile = 1 + static_cast<index_t>(random() % 9);
    const std::size_t n = random() % 400;
    const std::size_t segments = 1 + random() % 12;
    const auto offsets = random_offsets(random, n, segments);
    std::vector<int> keys(n);
    for (auto& k : keys) k = static_cast<int>(random() % 50);
    std::vector<int> out(n, -1), temp(n, -2);
    const auto buffer = [&](int remaining) -> std::vector<int>& { return ms::writes_output(remaining) ? out : temp; };

    // Slots: every segment is in the tier here (limits are the group tiers', not modelled).
    std::vector<index_t> tile_end(segments);
    index_t total = 0;
    for (std::size_t j = 0; j < segments; ++j)
      tile_end[j] = total += seg::tiles_of(seg::clamped_segment(offsets[j], offsets[j + 1], n).size, tile);
    std::vector<seg::slot> slots;
    for (index_t t = 0; t < total; ++t) {
      const index_t j = seg::owner_of(tile_end, static_cast<index_t>(segments), t);
      const auto b =
          seg::clamped_segment(offsets[static_cast<std::size_t>(j)], offsets[static_cast<std::size_t>(j) + 1], n);
      const index_t first_slot = tile_end[static_cast<std::size_t>(j)] - seg::tiles_of(b.size, tile);
      slots.push_back({b.begin, b.size, (t - first_slot) * tile});
    }

    // Block sort.
    int most_rounds = 0;
    for (const auto& s : slots) {
      const int rounds = seg::segment_rounds(s, tile);
      most_rounds = std::max(most_rounds, rounds);
      const auto first = keys.begin() + s.begin + s.local;
      const auto last = first + seg::tile_keys(s, tile);
      std::vector<int> sorted(first, last);
      std::stable_sort(sorted.begin(), sorted.end());
      std::copy(sorted.begin(), sorted.end(), buffer(rounds).begin() + s.begin + s.local);
    }
    // Rounds: each slot writes its own piece of its pair's merge.
    for (int k = 0; k < most_rounds; ++k) {
      std::vector<std::vector<int>> pieces(slots.size());
      for (std::size_t t = 0; t < slots.size(); ++t) {
        const auto& s = slots[t];
        const int rounds = seg::segment_rounds(s, tile);
        if (k >= rounds) continue;
        const ms::pair_span p = ms::pair_of(s.size, tile << k, s.local);
        const auto& from = buffer(rounds - k);
        const auto a = from.begin() + s.begin + p.start;
        std::vector<int> merged;
        std::merge(a, a + p.na, a + p.na, a + p.na + p.nb, std::back_inserter(merged));
        const index_t diagonal = s.local - p.start;
        ASSERT_EQ(diagonal % tile, 0);
        pieces[t].assign(merged.begin() + diagonal, merged.begin() + diagonal + seg::tile_keys(s, tile));
      }
      for (std::size_t t = 0; t < slots.size(); ++t) {
        const auto& s = slots[t];
        const int rounds = seg::segment_rounds(s, tile);
        if (k < rounds)
          std::copy(pieces[t].begin(), pieces[t].end(), buffer(rounds - k - 1).begin() + s.begin + s.local);
      }
    }
    for (std::size_t j = 0; j < segments; ++j) {
      const auto b = seg::clamped_segment(offsets[j], offsets[j + 1], n);
      std::vector<int> expected(keys.begin() + b.begin, keys.begin() + b.begin + b.size);
      std::stable_sort(expected.begin(), expected.end());
      ASSERT_TRUE(std::equal(expected.begin(), expected.end(), out.begin() + b.begin))
          << "trial " << trial << ", segment " << j << ", tile " << tile;
    }
  }
}

}  // namespace
