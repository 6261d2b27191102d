// Host tests of cleanup's tile arithmetic (detail/lsm/cleanup_tile.hpp), the code the cleanup kernel
// runs: a tile's merge rounds, run thread by thread as the block runs them (each thread writes only its
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
  for (int pieces = 1; pieces <= lp::cleanup_ways; ++pieces) {
    for (const unsigned count : {0u, 1u, 31u, 257u, 2047u, 2048u}) {
      for (const std::uint32_t distinct : {1u, 5u, 1u << 30}) {
        const tile_case t = random_tile(rng, pieces, count, distinct);
        // 256 × 8 covers 2048; 700 × 3 gives stretches that start and stop inside pairs.
        for (const auto [threads, items] : {std::pair{256, 8}, std::pair{700, 3}}) {
          ASSERT_EQ(merge_tile(t, threads, items), expected_order(t))
              << pieces << " pieces, " << count << " elements, " << distinct << " keys, " << threads << " × " << items;
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
