// Host tests of sluice/core/merge_splits.hpp: repair_splits leaves the splits of a strict weak order
// unchanged and turns the splits of any comparator (random answers, <=) into a partition of both inputs,
// so that the pieces merged by block::serial_merge form a permutation of the inputs; and of
// block::odd_even_sort (block/serial_merge.hpp): stable for every valid count, a permutation under any
// comparator.
#include <sluice/block/serial_merge.hpp>
#include <sluice/core/merge_path.hpp>
#include <sluice/core/merge_splits.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <random>
#include <utility>
#include <vector>

namespace {

using sluice::detail::consistent_split;
using sluice::detail::merge_path;
using sluice::detail::repair_splits;

/// A comparator that is no order at all: a hash of both keys decides.
struct hashed_answer {
  std::uint32_t salt;
  bool operator()(int x, int y) const {
    std::uint64_t h = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(x)) << 32 | static_cast<std::uint32_t>(y)) ^ salt;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return (h & 1) != 0;
  }
};

/// How many merges by workers needed a repair (the bad comparators must exercise it).
int repairs = 0;

/// Workers of `step` outputs over the merge of a and b: their splits, repaired; checks the partition
/// and returns the merged output (each worker merging its pieces serially).
template <class Less>
std::vector<int> merge_by_workers(const std::vector<int>& a, const std::vector<int>& b, int step, Less less) {
  const int na = static_cast<int>(a.size()), nb = static_cast<int>(b.size()), total = na + nb;
  const int workers = (total + step - 1) / step;
  const auto diagonal = [&](long long k) { return std::min<long long>(k * step, total); };
  std::vector<long long> splits(static_cast<std::size_t>(std::max(workers, 1)));
  for (int k = 0; k < workers; ++k)
    splits[static_cast<std::size_t>(k)] =
        merge_path(a.data(), na, b.data(), nb, static_cast<int>(diagonal(k)), less);
  std::vector<long long> before = splits;
  repair_splits(splits.data(), workers, na, diagonal);
  if (splits != before) ++repairs;
  std::vector<int> tile(a);
  tile.insert(tile.end(), b.begin(), b.end());
  std::vector<int> out;
  for (int k = 0; k < workers; ++k) {
    const long long s = splits[static_cast<std::size_t>(k)];
    const long long e = k + 1 < workers ? splits[static_cast<std::size_t>(k + 1)] : na;
    EXPECT_TRUE(consistent_split(s, e, diagonal(k), diagonal(k + 1))) << "worker " << k;
    EXPECT_GE(s, before[static_cast<std::size_t>(k)]);
    EXPECT_LE(s, std::min<long long>(diagonal(k), na));
    const sluice::block::merge_cursor cursor{static_cast<int>(s), static_cast<int>(e),
                                             na + static_cast<int>(diagonal(k) - s), na + static_cast<int>(diagonal(k + 1) - e)};
    int keys[32];
    int index[32];
    sluice::block::serial_merge(tile.data(), total - 1, cursor, keys, index, less);
    out.insert(out.end(), keys, keys + (diagonal(k + 1) - diagonal(k)));
  }
  return out;
}

std::vector<int> random_run(std::mt19937& random, int n, int distinct, bool sorted) {
  std::uniform_int_distribution<int> pick(0, distinct - 1);
  std::vector<int> run(static_cast<std::size_t>(n));
  for (int& x : run) x = pick(random);
  if (sorted) std::sort(run.begin(), run.end());
  return run;
}

TEST(CoreMergeSplits, AStrictWeakOrderNeedsNoRepairAndMergesStably) {
  std::mt19937 random(3);
  repairs = 0;
  for (int na : {0, 1, 17, 100, 255})
    for (int nb : {0, 1, 16, 99})
      for (int step : {1, 7, 17, 32}) {
        const auto a = random_run(random, na, 20, true), b = random_run(random, nb, 20, true);
        std::vector<int> expected;
        std::merge(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(expected));
        EXPECT_EQ(merge_by_workers(a, b, step, std::less<>{}), expected) << na << " " << nb << " " << step;
      }
  EXPECT_EQ(repairs, 0);
}

TEST(CoreMergeSplits, AnyComparatorGivesAPermutation) {
  std::mt19937 random(5);
  repairs = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const int na = static_cast<int>(random() % 200), nb = static_cast<int>(random() % 200);
    const int step = 1 + static_cast<int>(random() % 31);
    const auto a = random_run(random, na, 10, trial % 2 == 0), b = random_run(random, nb, 10, trial % 3 == 0);
    std::vector<int> expected(a);
    expected.insert(expected.end(), b.begin(), b.end());
    std::sort(expected.begin(), expected.end());
    auto hashed = merge_by_workers(a, b, step, hashed_answer{static_cast<std::uint32_t>(trial)});
    std::sort(hashed.begin(), hashed.end());
    EXPECT_EQ(hashed, expected) << "hashed comparator, trial " << trial;
    auto less_equal = merge_by_workers(a, b, step, std::less_equal<>{});
    std::sort(less_equal.begin(), less_equal.end());
    EXPECT_EQ(less_equal, expected) << "<=, trial " << trial;
  }
  EXPECT_GT(repairs, 100) << "the bad comparators should have needed repairs";
}

TEST(CoreMergeSplits, RepairOfArbitrarySplitsIsMonotoneAndInRange) {
  std::mt19937 random(9);
  for (int trial = 0; trial < 2000; ++trial) {
    const long long na = random() % 50, nb = random() % 50, step = 1 + random() % 9;
    const long long total = na + nb;
    const long long m = std::max<long long>(1, (total + step - 1) / step);
    const auto diagonal = [&](long long k) { return std::min(k * step, total); };
    std::vector<long long> s(static_cast<std::size_t>(m));
    for (long long k = 0; k < m; ++k) {
      const long long low = std::max(0ll, diagonal(k) - nb), high = std::min(diagonal(k), na);
      s[static_cast<std::size_t>(k)] = low + static_cast<long long>(random() % static_cast<unsigned>(high - low + 1));
    }
    repair_splits(s.data(), m, na, diagonal);
    for (long long k = 0; k < m; ++k) {
      const long long next = k + 1 < m ? s[static_cast<std::size_t>(k + 1)] : na;
      ASSERT_TRUE(consistent_split(s[static_cast<std::size_t>(k)], next, diagonal(k), diagonal(k + 1)))
          << "trial " << trial << ", k = " << k;
      ASSERT_GE(s[static_cast<std::size_t>(k)], std::max(0ll, diagonal(k) - nb));
      ASSERT_LE(s[static_cast<std::size_t>(k)], std::min(diagonal(k), na));
    }
  }
}

/// Every E compiled and every valid count: the network equals std::stable_sort on the valid prefix
/// (values = positions show stability), leaves the rest alone, and permutes under a bad comparator.
template <int Items>
void check_odd_even_sort(std::mt19937& random) {
  for (int valid = 0; valid <= Items; ++valid)
    for (int trial = 0; trial < 50; ++trial) {
      int keys[Items];
      int values[Items];
      for (int i = 0; i < Items; ++i) {
        keys[i] = static_cast<int>(random() % 4);
        values[i] = i;
      }
      std::vector<std::pair<int, int>> expected;
      for (int i = 0; i < valid; ++i) expected.push_back({keys[i], values[i]});
      std::stable_sort(expected.begin(), expected.end(), [](auto x, auto y) { return x.first < y.first; });
      for (int i = valid; i < Items; ++i) expected.push_back({keys[i], values[i]});
      sluice::block::odd_even_sort(keys, values, valid, std::less<>{});
      for (int i = 0; i < Items; ++i)
        ASSERT_EQ(std::make_pair(keys[i], values[i]), expected[static_cast<std::size_t>(i)])
            << "E = " << Items << ", valid = " << valid << ", i = " << i;
      sluice::block::odd_even_sort(keys, values, valid, hashed_answer{static_cast<std::uint32_t>(trial)});
      std::vector<int> moved(values, values + Items);
      std::sort(moved.begin(), moved.end());
      for (int i = 0; i < Items; ++i) ASSERT_EQ(moved[static_cast<std::size_t>(i)], i) << "E = " << Items;
    }
}

TEST(SerialMerge, OddEvenSortIsStableAndPermutes) {
  std::mt19937 random(13);
  check_odd_even_sort<7>(random);
  check_odd_even_sort<11>(random);
  check_odd_even_sort<15>(random);
  check_odd_even_sort<17>(random);
  check_odd_even_sort<23>(random);
}

}  // namespace
