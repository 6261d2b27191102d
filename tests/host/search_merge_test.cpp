// Host tests of sluice/detail/search/merge_search.hpp, the sorted-queries search: the kernel's tiles and
// threads run here on the host with the same split and walk functions (tiles of 56 merged items, 8
// threads of 7 items, so that every size crosses many tiles), against reference::lower_bound_batch,
// upper_bound_batch and predecessor for random and duplicate-heavy keys and every n, Q ≤ 300; and
// unsorted inputs write only in range.
#include <sluice/detail/search/merge_search.hpp>
#include <sluice/reference/search.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <span>
#include <vector>

namespace {

namespace search = sluice::detail::search;
using search::index_t;

constexpr index_t threads = 8, items = 7, tile = threads * items;

/// The kernel's loop on the host: out[j] = the number of keys merged before query j (−7 where unwritten).
std::vector<std::int64_t> merge_search(const std::vector<std::uint32_t>& keys, const std::vector<std::uint32_t>& queries,
                                       bool inclusive) {
  auto key_first = [&](std::uint32_t key, std::uint32_t query) { return inclusive ? !(query < key) : key < query; };
  auto query_first = [&](std::uint32_t query, std::uint32_t key) { return !key_first(key, query); };
  const index_t n = keys.size(), count = queries.size(), total = n + count;
  std::vector<std::int64_t> out(queries.size(), -7);
  for (index_t d_begin = 0; d_begin < total; d_begin += tile) {
    const index_t d_end = std::min(d_begin + tile, total);
    const index_t a_begin = sluice::detail::merge_path(keys.data(), n, queries.data(), count, d_begin, query_first);
    const index_t a_end = sluice::detail::merge_path(keys.data(), n, queries.data(), count, d_end, query_first);
    const auto split = search::make_tile_split(a_begin, a_end, d_begin, d_end, n, count);
    EXPECT_LE(split.a_end, n);
    EXPECT_LE(split.b_end, count);
    EXPECT_EQ(split.a_end - split.a_begin + split.b_end - split.b_begin, d_end - d_begin);
    const index_t na = split.a_end - split.a_begin, nb = split.b_end - split.b_begin;
    std::vector<std::uint32_t> staged(keys.begin() + static_cast<std::ptrdiff_t>(split.a_begin),
                                      keys.begin() + static_cast<std::ptrdiff_t>(split.a_end));
    staged.insert(staged.end(), queries.begin() + static_cast<std::ptrdiff_t>(split.b_begin),
                  queries.begin() + static_cast<std::ptrdiff_t>(split.b_end));
    for (index_t t = 0; t < threads; ++t) {
      const index_t diagonal = t * items;
      if (diagonal >= na + nb) continue;
      search::walk_merge(staged.data(), na, staged.data() + na, nb, diagonal, items, key_first, [&](index_t j, index_t i) {
        EXPECT_LT(j, nb);
        EXPECT_LE(i, na);
        out.at(split.b_begin + j) = static_cast<std::int64_t>(split.a_begin + i);
      });
    }
  }
  return out;
}

std::vector<std::uint32_t> sorted_random(std::mt19937& random, std::size_t n, std::uint32_t range) {
  std::vector<std::uint32_t> v(n);
  for (auto& x : v) x = static_cast<std::uint32_t>(random() % range);
  std::sort(v.begin(), v.end());
  return v;
}

TEST(SearchMerge, TilesAndThreadsEqualTheOracles) {
  std::mt19937 random(7);
  for (std::size_t n = 0; n <= 300; n += (n < 70 ? 1 : 13)) {
    for (std::size_t q = 0; q <= 300; q += (q < 70 ? 1 : 17)) {
      for (std::uint32_t range : {4u, 1000u, 0xFFFFFFFFu}) {
        const auto keys = sorted_random(random, n, range);
        const auto queries = sorted_random(random, q, range == 4u ? 6u : range);
        const std::span<const std::uint32_t> k(keys), qs(queries);
        const auto lower = sluice::reference::lower_bound_batch(k, qs);
        const auto upper = sluice::reference::upper_bound_batch(k, qs);
        const auto pred = sluice::reference::predecessor(k, qs);
        const auto got_lower = merge_search(keys, queries, false);
        const auto got_upper = merge_search(keys, queries, true);
        for (std::size_t i = 0; i < q; ++i) {
          ASSERT_EQ(got_lower[i], static_cast<std::int64_t>(lower[i])) << "lower_bound, n = " << n << ", Q = " << q << ", i = " << i;
          ASSERT_EQ(got_upper[i], static_cast<std::int64_t>(upper[i])) << "upper_bound, n = " << n << ", Q = " << q;
          ASSERT_EQ(got_upper[i] - 1, pred[i]) << "predecessor, n = " << n << ", Q = " << q;
        }
      }
    }
  }
}

TEST(SearchMerge, UnsortedInputsStayInRange) {
  std::mt19937 random(8);
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<std::uint32_t> keys(random() % 200), queries(random() % 200);
    for (auto& k : keys) k = static_cast<std::uint32_t>(random() % 50);
    for (auto& q : queries) q = static_cast<std::uint32_t>(random() % 50);
    for (bool inclusive : {false, true})
      for (std::int64_t r : merge_search(keys, queries, inclusive))
        ASSERT_TRUE(r == -7 || (r >= 0 && r <= static_cast<std::int64_t>(keys.size())));
  }
}

}  // namespace
