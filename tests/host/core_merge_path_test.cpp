// Host tests of sluice/core/merge_path.hpp: on every diagonal of random and duplicate-heavy sequences the
// split equals the one read off std::merge's stable output (ties from a first), and the pieces merged on
// their own concatenate to it; empty sides, a custom order and signed indices.
#include <sluice/core/merge_path.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <random>
#include <utility>
#include <vector>

namespace {

using sluice::detail::merge_path;

/// Elements tagged with their side and position, so that the stable merge's split can be read off.
struct tagged {
  int key;
  int side;  // 0: a, 1: b
  int index;
};
const auto by_key = [](const tagged& x, const tagged& y) { return x.key < y.key; };

std::vector<tagged> sorted_run(std::mt19937& random, int n, int side, int distinct) {
  std::uniform_int_distribution<int> pick(0, distinct - 1);
  std::vector<int> keys(static_cast<std::size_t>(n));
  for (int& key : keys) key = pick(random);
  std::sort(keys.begin(), keys.end());
  std::vector<tagged> run;
  for (int i = 0; i < n; ++i) run.push_back({keys[static_cast<std::size_t>(i)], side, i});
  return run;
}

void check_every_diagonal(const std::vector<tagged>& a, const std::vector<tagged>& b) {
  std::vector<tagged> merged;
  std::merge(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(merged), by_key);
  const long na = static_cast<long>(a.size()), nb = static_cast<long>(b.size());
  long from_a = 0;
  for (long diagonal = 0; diagonal <= na + nb; ++diagonal) {
    if (diagonal > 0 && merged[static_cast<std::size_t>(diagonal - 1)].side == 0) ++from_a;
    ASSERT_EQ(merge_path(a.data(), na, b.data(), nb, diagonal, by_key), from_a)
        << "na = " << na << ", nb = " << nb << ", diagonal = " << diagonal;
  }
}

TEST(CoreMergePath, EveryDiagonalMatchesTheStableMerge) {
  std::mt19937 random(7);
  for (int na : {0, 1, 2, 5, 31, 32, 33, 100})
    for (int nb : {0, 1, 3, 32, 77})
      for (int distinct : {1, 3, 1000}) check_every_diagonal(sorted_run(random, na, 0, distinct), sorted_run(random, nb, 1, distinct));
}

TEST(CoreMergePath, PiecesMergedAloneConcatenateToTheMerge) {
  std::mt19937 random(11);
  const auto a = sorted_run(random, 1000, 0, 50), b = sorted_run(random, 700, 1, 50);
  std::vector<tagged> whole, pieces;
  std::merge(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(whole), by_key);
  const std::size_t total = a.size() + b.size(), piece = 97;
  std::size_t a_begin = 0, b_begin = 0;
  for (std::size_t end = std::min(piece, total);; end = std::min(end + piece, total)) {
    const std::size_t a_end = merge_path(a.data(), a.size(), b.data(), b.size(), end, by_key);
    const std::size_t b_end = end - a_end;
    std::merge(a.begin() + static_cast<long>(a_begin), a.begin() + static_cast<long>(a_end),
               b.begin() + static_cast<long>(b_begin), b.begin() + static_cast<long>(b_end), std::back_inserter(pieces),
               by_key);
    a_begin = a_end, b_begin = b_end;
    if (end == total) break;
  }
  ASSERT_EQ(pieces.size(), whole.size());
  for (std::size_t i = 0; i < whole.size(); ++i)
    EXPECT_TRUE(pieces[i].side == whole[i].side && pieces[i].index == whole[i].index) << "output " << i;
}

TEST(CoreMergePath, DescendingOrderAndSixtyFourBitIndices) {
  const std::vector<std::int64_t> a{9, 7, 7, 1}, b{8, 7, 0};
  // Descending merge: 9 8 7a 7a 7b 1 0; the first five outputs take 3 of a.
  EXPECT_EQ(merge_path(a.data(), std::int64_t{4}, b.data(), std::int64_t{3}, std::int64_t{5}, std::greater<>{}), 3);
  EXPECT_EQ(merge_path(a.data(), std::int64_t{4}, b.data(), std::int64_t{3}, std::int64_t{2}, std::greater<>{}), 1);
}

}  // namespace
