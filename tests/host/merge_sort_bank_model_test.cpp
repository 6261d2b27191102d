// Host tests of the pairwise merge sort's conflict-heavy inputs (sluice/data/merge_conflicts.hpp) through
// its bank model (detail/merge_sort/bank_model.hpp, which runs block/serial_merge.hpp's code): the
// generator is a permutation, each merge level takes its outputs from a and b as the pattern says, and
// the block sort's and a global round's serial merges take far more wavefronts per request (β) on it
// than on random keys, for every E compiled.
#include <sluice/data/distributions.hpp>
#include <sluice/data/merge_conflicts.hpp>
#include <sluice/detail/merge_sort/bank_model.hpp>
#include <sluice/detail/merge_sort/tuning.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <numeric>
#include <vector>

namespace {

using sluice::data::merge_conflict_level;
using sluice::data::merge_conflict_shape;
using sluice::detail::merge_sort::bank_statistics;
using sluice::detail::merge_sort::tuning;

constexpr int threads = tuning::block_threads;

TEST(MergeConflicts, IsAPermutation) {
  for (int e : tuning::compiled_items)
    for (std::uint64_t size : {std::uint64_t(e), std::uint64_t(e) * 2, std::uint64_t(e) * 1024, std::uint64_t(e) * 8192}) {
      const merge_conflict_shape shape{e, 32};
      std::vector<std::uint64_t> ranks(size);
      for (std::uint64_t i = 0; i < size; ++i) ranks[i] = sluice::data::merge_conflict_rank(i, size, shape);
      std::sort(ranks.begin(), ranks.end());
      std::vector<std::uint64_t> expected(size);
      std::iota(expected.begin(), expected.end(), std::uint64_t{0});
      ASSERT_EQ(ranks, expected) << "E = " << e << ", size = " << size;
    }
}

TEST(MergeConflicts, PlacesFollowThePattern) {
  for (std::uint64_t e : {7u, 11u, 15u, 17u, 23u})
    for (std::uint64_t length : {e, 2 * e, 16 * e, 256 * e}) {
      const merge_conflict_level level{length, 32, (32 / e + 1) * e};
      std::uint64_t from_a = 0, from_b = 0;
      for (std::uint64_t p = 0; p < 2 * length; ++p) {
        if (level.from_a(p)) ASSERT_EQ(level.place_of_a(from_a++), p) << "E = " << e << ", L = " << length;
        else ASSERT_EQ(level.place_of_b(from_b++), p) << "E = " << e << ", L = " << length;
      }
      EXPECT_EQ(from_a, length);
      EXPECT_EQ(from_b, length);
    }
}

/// The bank period of K: keys per 128-byte row of the 32 banks.
template <class K>
constexpr int period_of = static_cast<int>(128 / (sizeof(K) < 4 ? 4 : sizeof(K)));

template <int Items, class K = std::uint32_t>
std::vector<K> conflict_heavy(std::size_t n) {
  return sluice::data::generate_merge_conflicts_host<K>(n, {Items, period_of<K>});
}

template <class K = std::uint32_t>
std::vector<K> random_keys(std::size_t n) {
  return sluice::data::generate_host<K>(n, {sluice::data::distribution::uniform, 0, 0.0, 1});
}

template <int Items, class K>
bank_statistics block_sort_beta(std::vector<K> keys) {
  keys.resize(static_cast<std::size_t>(threads) * Items);
  return sluice::detail::merge_sort::sort_tile_reads<Items>(keys, threads, std::less<>{});
}

/// The first tile of the first global round: the stable merge of two sorted tiles, cut at one tile.
template <int Items, class K>
bank_statistics global_round_beta(const std::vector<K>& keys) {
  const std::size_t tile = static_cast<std::size_t>(threads) * Items;
  std::vector<K> a(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(tile));
  std::vector<K> b(keys.begin() + static_cast<std::ptrdiff_t>(tile), keys.begin() + static_cast<std::ptrdiff_t>(2 * tile));
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  const auto n = static_cast<int>(tile);
  const int split = sluice::detail::merge_path(a.data(), n, b.data(), n, n, std::less<>{});
  std::vector<K> pieces(a.begin(), a.begin() + split);
  pieces.insert(pieces.end(), b.begin(), b.begin() + (n - split));
  return sluice::detail::merge_sort::merge_tile_reads<Items>(pieces, split, threads, std::less<>{});
}

template <int Items, class K = std::uint32_t>
void expect_more_conflicts(double block_factor, double global_factor) {
  const std::size_t n = 4 * static_cast<std::size_t>(threads) * Items;
  const bank_statistics heavy_block = block_sort_beta<Items>(conflict_heavy<Items, K>(n));
  const bank_statistics random_block = block_sort_beta<Items>(random_keys<K>(n));
  const bank_statistics heavy_global = global_round_beta<Items>(conflict_heavy<Items, K>(n));
  const bank_statistics random_global = global_round_beta<Items>(random_keys<K>(n));
  std::printf("%zu-byte keys, E = %2d: block sort beta %.2f (random %.2f); global round beta %.2f (random %.2f)\n",
              sizeof(K), Items, heavy_block.beta(), random_block.beta(), heavy_global.beta(), random_global.beta());
  EXPECT_GT(heavy_block.beta(), block_factor * random_block.beta()) << "E = " << Items;
  EXPECT_GT(heavy_global.beta(), global_factor * random_global.beta()) << "E = " << Items;
}

TEST(MergeConflicts, BetaFarAboveRandom) {
  // E = 7 spreads a warp over five threads a group (G = 35), so its block rounds gain least.
  expect_more_conflicts<7>(1.2, 1.8);
  expect_more_conflicts<11>(1.8, 2.8);
  expect_more_conflicts<15>(1.8, 2.8);
  expect_more_conflicts<17>(2.5, 4.0);
  expect_more_conflicts<23>(2.5, 4.0);
  // 8-byte keys: 16 a bank row, so the pattern's period is 16 (the tuned E = 11).
  expect_more_conflicts<11, std::uint64_t>(1.8, 2.0);
}

TEST(MergeConflictsBankModel, CountsWavefronts) {
  using sluice::detail::merge_sort::request_wavefronts;
  std::vector<int> distinct(32), same_bank(32), broadcast(32, 5);
  for (int t = 0; t < 32; ++t) {
    distinct[static_cast<std::size_t>(t)] = t;
    same_bank[static_cast<std::size_t>(t)] = 32 * t;
  }
  EXPECT_EQ(request_wavefronts(distinct, 1), 1u);
  EXPECT_EQ(request_wavefronts(same_bank, 1), 32u);
  EXPECT_EQ(request_wavefronts(broadcast, 1), 1u);
  EXPECT_EQ(request_wavefronts(distinct, 2), 1u);  // 64 words over 32 banks: the minimum for 8-byte keys
  EXPECT_EQ(request_wavefronts(same_bank, 2), 16u);  // 32 words on each of banks 0 and 1: 16 × the minimum
}

}  // namespace
