// Host tests of cleanup's arithmetic (detail/lsm/cleanup_tile.hpp), the code the cleanup kernels run:
// the partition (samples sorted stably, every G-th a pivot, a run's split at a pivot) cuts the runs'
// merge at prefixes of it into tiles of at most the tile's capacity, for 1 … 32 runs of many sizes and
// repeated keys; a tile's merge rounds, run thread by thread as the block runs them (each thread writes only its
// own outputs and reads the previous round's buffer, so running the threads one after the other is
// exact), give the stable sort of the tile by key, the earlier (newer) piece first on equal keys, for
// 1 … 32 pieces with empty ones, repeated keys and thread stretches that cross pairs; piece_of finds a
// position's piece past empty ones; the tile's first key is compared with the key before the tile.
#include <sluice/detail/lsm/cleanup_tile.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace {

namespace lp = sluice::detail::lsm;

/// A tile of `pieces` sorted pieces side by side (some empty), keys drawn from [0, distinct).
struct tile_case {
  std::vector<unsigned> starts;  // pieces + 1
  std::vector<std::uint32_t> keys;
};

tile_case random_tile(std::mt19937& rng, int pieces, unsigned count, std::uint32_t distinct) {
  tile_case t;
  std::vector<unsigned> cuts(pieces - 1);
  std::uniform_int_distribution<unsigned> cut(0, count);
  for (auto& c : cuts) c = cut(rng);
  std::sort(cuts.begin(), cuts.end());
  t.starts.push_back(0);
  t.starts.insert(t.starts.end(), cuts.begin(), cuts.end());
  t.starts.push_back(count);
  std::uniform_int_distribution<std::uint32_t> key(0, distinct - 1);
  t.keys.resize(count);
  for (auto& k : t.keys) k = key(rng);
  for (int j = 0; j < pieces; ++j) std::sort(t.keys.begin() + t.starts[j], t.keys.begin() + t.starts[j + 1]);
  return t;
}

/// The tile's positions in merge order, run as the kernel runs it: `threads` threads of `items` outputs.
std::vector<std::uint16_t> merge_tile(const tile_case& t, int threads, int items) {
  const int pieces = static_cast<int>(t.starts.size()) - 1;
  const auto count = static_cast<unsigned>(t.keys.size());
  std::vector<std::uint32_t> keys[2] = {t.keys, std::vector<std::uint32_t>(count)};
  std::vector<std::uint16_t> from[2] = {std::vector<std::uint16_t>(count), std::vector<std::uint16_t>(count)};
  std::iota(from[0].begin(), from[0].end(), std::uint16_t{0});
  const int rounds = lp::cleanup_rounds(pieces);
  for (int r = 0; r < rounds; ++r) {
    for (int thread = 0; thread < threads; ++thread) {
      const unsigned first = std::min<unsigned>(thread * items, count), last = std::min<unsigned>(first + items, count);
      lp::merge_round(keys[r % 2].data(), from[r % 2].data(), keys[(r + 1) % 2].data(), from[(r + 1) % 2].data(),
                      t.starts.data(), pieces, r, first, last);
    }
  }
  for (unsigned i = 0; i < count; ++i) EXPECT_EQ(keys[rounds % 2][i], t.keys[from[rounds % 2][i]]) << "position " << i;
  return from[rounds % 2];
}

/// The stable merge's order: positions stably sorted by key (pieces lie in order, so an earlier piece's
/// equal key comes first).
std::vector<std::uint16_t> expected_order(const tile_case& t) {
  std::vector<std::uint16_t> order(t.keys.size());
  std::iota(order.begin(), order.end(), std::uint16_t{0});
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return t.keys[a] < t.keys[b]; });
  return order;
}

TEST(LsmCleanupTile, MergeRoundsGiveTheStableMergeOfThePieces) {
  std::mt19937 rng(20261207);
  // The kernel's shapes (256 × 7 and 256 × 5), 256 × 8, and 700 × 3, whose stretches start and stop inside
  // pairs; tiles from empty to full.
  for (const auto& [threads, items] : {std::pair{256, 7}, std::pair{256, 5}, std::pair{256, 8}, std::pair{700, 3}}) {
    const auto capacity = static_cast<unsigned>(threads * items);
    for (int pieces = 1; pieces <= lp::cleanup_ways; ++pieces) {
      for (const unsigned count : {0u, 1u, 31u, 257u, capacity - 1, capacity}) {
        for (const std::uint32_t distinct : {1u, 5u, 1u << 30}) {
          const tile_case t = random_tile(rng, pieces, count, distinct);
          ASSERT_EQ(merge_tile(t, threads, items), expected_order(t))
              << pieces << " pieces, " << count << " elements, " << distinct << " keys, " << threads << " × " << items;
        }
      }
    }
  }
}

/// The partition of `runs` (sorted) for tiles of `tile` elements, as keep_live and the split kernel run it:
/// splits[t][j] for t = 0 … tiles.
std::vector<std::vector<lp::index_t>> partition(const std::vector<std::vector<std::uint32_t>>& runs, lp::index_t tile) {
  const int count = static_cast<int>(runs.size());
  const lp::index_t stride = lp::cleanup_sample_stride(tile);
  std::vector<lp::index_t> starts{0};
  std::vector<std::pair<std::uint32_t, lp::index_t>> sample;  // (key, position in the sample)
  for (int j = 0; j < count; ++j) {
    for (lp::index_t i = 0; i < runs[j].size(); i += stride) sample.emplace_back(runs[j][i], sample.size());
    starts.push_back(sample.size());
    EXPECT_EQ(starts[j + 1] - starts[j], lp::cleanup_samples_of(runs[j].size(), stride));
  }
  std::stable_sort(sample.begin(), sample.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  const lp::index_t tile_samples = lp::cleanup_tile_samples(tile, count);
  const lp::index_t tiles = (sample.size() + tile_samples - 1) / tile_samples;
  std::vector<std::vector<lp::index_t>> splits(tiles + 1, std::vector<lp::index_t>(count));
  for (lp::index_t t = 1; t < tiles; ++t) {
    const auto [v, m] = sample[t * tile_samples];
    const int pivot_run = static_cast<int>(std::upper_bound(starts.begin(), starts.end(), m) - starts.begin()) - 1;
    for (int j = 0; j < count; ++j)
      splits[t][j] = lp::split_at_pivot(
          j, pivot_run, (m - starts[pivot_run]) * stride,
          [&](int run) { return std::lower_bound(runs[run].begin(), runs[run].end(), v) - runs[run].begin(); },
          [&](int run) { return std::upper_bound(runs[run].begin(), runs[run].end(), v) - runs[run].begin(); });
  }
  for (int j = 0; j < count; ++j) splits[tiles][j] = runs[j].size();
  return splits;
}

TEST(LsmCleanupTile, PartitionCutsTheMergeIntoTilesThatFit) {
  std::mt19937 rng(7);
  for (const lp::index_t tile : {lp::index_t{2048}, lp::index_t{1024}}) {
    for (int count = 1; count <= lp::cleanup_ways; count += (count < 8 ? 1 : 5)) {
      for (const std::uint32_t distinct : {1u, 3u, 1000u, 1u << 30}) {
        std::vector<std::vector<std::uint32_t>> runs(count);
        std::vector<std::tuple<std::uint32_t, int, lp::index_t>> merge;  // (key, run, position)
        for (int j = 0; j < count; ++j) {
          const std::size_t size = std::uniform_int_distribution<std::size_t>(0, 6000)(rng) * (j % 4 == 3 ? 0 : 1);
          std::uniform_int_distribution<std::uint32_t> key(0, distinct - 1);
          for (std::size_t i = 0; i < size; ++i) runs[j].push_back(key(rng));
          std::sort(runs[j].begin(), runs[j].end());
          for (std::size_t i = 0; i < size; ++i) merge.emplace_back(runs[j][i], j, i);
        }
        std::sort(merge.begin(), merge.end());
        const auto splits = partition(runs, tile);
        const std::string what = std::to_string(count) + " runs, " + std::to_string(distinct) + " keys, tile " +
                                 std::to_string(tile);
        for (std::size_t t = 0; t < splits.size(); ++t) {
          // A prefix of the merge: run j's split is its elements among the first Σ splits.
          lp::index_t rank = 0;
          for (lp::index_t s : splits[t]) rank += s;
          std::vector<lp::index_t> expected(count);
          for (lp::index_t i = 0; i < rank; ++i) ++expected[std::get<1>(merge[i])];
          ASSERT_EQ(splits[t], expected) << what << ", boundary " << t;
          if (t == 0) continue;
          lp::index_t size = 0;
          for (int j = 0; j < count; ++j) size += splits[t][j] - splits[t - 1][j];
          ASSERT_LE(size, tile) << what << ", tile " << t - 1;
          ASSERT_GT(size, 0u) << what << ", tile " << t - 1;
        }
      }
    }
  }
}

TEST(LsmCleanupTile, RoundsAreTheCeilingOfLog2) {
  EXPECT_EQ(lp::cleanup_rounds(1), 0);
  EXPECT_EQ(lp::cleanup_rounds(2), 1);
  EXPECT_EQ(lp::cleanup_rounds(3), 2);
  EXPECT_EQ(lp::cleanup_rounds(16), 4);
  EXPECT_EQ(lp::cleanup_rounds(17), 5);
  EXPECT_EQ(lp::cleanup_rounds(32), 5);
}

TEST(LsmCleanupTile, PieceOfSkipsEmptyPieces) {
  const std::vector<unsigned> starts = {0, 0, 3, 3, 3, 7, 8, 8};  // pieces 0, 2, 3, 6 empty
  const std::vector<int> owner = {1, 1, 1, 4, 4, 4, 4, 5};
  for (unsigned i = 0; i < owner.size(); ++i) EXPECT_EQ(lp::piece_of(starts.data(), 7, i), owner[i]) << "position " << i;
  const std::vector<unsigned> one = {0, 5};
  for (unsigned i = 0; i < 5; ++i) EXPECT_EQ(lp::piece_of(one.data(), 1, i), 0);
}

TEST(LsmCleanupTile, FirstKeyComparedWithTheKeyBeforeTheTile) {
  const std::vector<std::vector<std::uint32_t>> runs = {{1, 4, 9}, {2, 4, 4, 7}, {9}};
  const auto key = [&](int j, sluice::detail::lsm::index_t i) { return runs[j][i]; };
  const std::vector<sluice::detail::lsm::index_t> none = {0, 0, 0};
  EXPECT_FALSE(lp::repeats_key_before_tile(std::uint32_t{1}, none.data(), 3, key));  // the merge's first
  const std::vector<sluice::detail::lsm::index_t> after_fours = {2, 1, 0};          // 1 2 4 | 4 4 7 9 9
  EXPECT_TRUE(lp::repeats_key_before_tile(std::uint32_t{4}, after_fours.data(), 3, key));
  const std::vector<sluice::detail::lsm::index_t> before_seven = {2, 3, 0};  // 1 2 4 4 4 | 7 …
  EXPECT_FALSE(lp::repeats_key_before_tile(std::uint32_t{7}, before_seven.data(), 3, key));
  const std::vector<sluice::detail::lsm::index_t> between_nines = {3, 4, 0};  // … 7 9 | 9: run 0's 9 before
  EXPECT_TRUE(lp::repeats_key_before_tile(std::uint32_t{9}, between_nines.data(), 3, key));
}

}  // namespace
