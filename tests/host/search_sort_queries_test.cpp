// Host tests of sluice/detail/search/sort_queries.hpp, search_algorithm::sort_queries: its four steps run here
// with the kernels' functions (the radix sorts as std::stable_sort by the same bits) against
// std::lower_bound / std::upper_bound, for u8, i16, u32 and i64 keys, random, duplicate-heavy, max-valued
// and all-equal keys, queries below, above, equal to and between keys, every n ≤ 300 and several Q, with
// 1, 4 and 16 bucket bits and restore windows of 2^0, 2^3 and 2^10; the restore's window property; the
// clamps on tables from unsorted keys; restore_bits, sort_queries_pays and sorts_by_radix_word.
#include <sluice/detail/search/sort_queries.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace {

namespace search = sluice::detail::search;
using search::index_t;

static_assert(search::sorts_by_radix_word<std::uint32_t, std::less<>>);
static_assert(search::sorts_by_radix_word<std::int64_t, std::less<std::int64_t>>);
static_assert(search::sorts_by_radix_word<std::uint8_t, std::less<>>);
static_assert(!search::sorts_by_radix_word<float, std::less<>>);
static_assert(!search::sorts_by_radix_word<double, std::less<double>>);
static_assert(!search::sorts_by_radix_word<bool, std::less<>>);
static_assert(!search::sorts_by_radix_word<std::uint32_t, std::greater<>>);
static_assert(!search::sorts_by_radix_word<std::int32_t, std::less<std::int64_t>>);
static_assert(search::bucket_bits_of<std::uint8_t>(16) == 8 && search::bucket_bits_of<std::int16_t>(16) == 16 &&
              search::bucket_bits_of<std::uint32_t>(16) == 16);

/// The whole strategy on the host; returns the counts in the queries' original order. `inclusive`:
/// the predicate key ≤ q (upper_bound), else key < q (lower_bound).
template <class K>
std::vector<index_t> sort_queries(const std::vector<K>& keys, const std::vector<K>& queries, int bits, int window_log2,
                                  bool inclusive, const std::string& what) {
  const index_t n = keys.size(), q = queries.size();
  // Step 1: (query, index) stably by the query's bucket.
  std::vector<std::uint32_t> order(q);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return search::bucket_of(queries[a], bits) < search::bucket_of(queries[b], bits);
  });
  // Step 2: the table, against a count.
  const index_t buckets = index_t{1} << bits;
  std::vector<std::uint32_t> starts(buckets + 1);
  for (index_t h = 0; h <= buckets; ++h) {
    starts[h] = static_cast<std::uint32_t>(search::bucket_start(keys.data(), n, bits, h));
    const auto below = std::count_if(keys.begin(), keys.end(), [&](K k) { return search::bucket_of(k, bits) < h; });
    EXPECT_EQ(starts[h], static_cast<std::uint32_t>(below)) << what << ", h = " << h;
  }
  // Step 3: each query in its bucket, in the sorted order.
  std::vector<std::uint32_t> counts(q);
  for (index_t p = 0; p < q; ++p) {
    const K query = queries[order[p]];
    const auto range = search::bucket_keys(starts.data(), search::bucket_of(query, bits), n);
    counts[p] = static_cast<std::uint32_t>(search::count_in_bucket(
        range, [&](index_t j) { return inclusive ? !(query < keys[j]) : keys[j] < query; }));
  }
  // Step 3's tiles: the buckets of a tile's first and last sorted query span every query's range between,
  // so the clamp into the staged span changes nothing for sorted keys (tiles of 1, 5 and 64 queries).
  for (const index_t tile : {index_t{1}, index_t{5}, index_t{64}})
    for (index_t first = 0; first < q; first += tile) {
      const index_t last = std::min(first + tile, q) - 1;
      const auto bucket_of = [&](index_t p) { return search::bucket_of(queries[order[p]], bits); };
      const search::key_range span{search::bucket_keys(starts.data(), bucket_of(first), n).first,
                                   search::bucket_keys(starts.data(), bucket_of(last), n).last};
      for (index_t p = first; p <= last; ++p) {
        const auto range = search::bucket_keys(starts.data(), bucket_of(p), n);
        const auto clamped = search::within(range, span);
        EXPECT_TRUE(clamped.first == range.first && clamped.last == range.last) << what << ": query " << order[p];
      }
    }
  // Step 4: (index, count) stably by the index's bits above the window, then window by window.
  const auto above = search::restore_bits(q, window_log2);
  EXPECT_LE(above.begin, above.end);
  auto field = [&](std::uint32_t i) { return (index_t{i} >> above.begin) & ((index_t{1} << (above.end - above.begin)) - 1); };
  std::vector<index_t> by_index(q);
  std::iota(by_index.begin(), by_index.end(), index_t{0});
  std::stable_sort(by_index.begin(), by_index.end(), [&](index_t a, index_t b) { return field(order[a]) < field(order[b]); });
  const index_t window = index_t{1} << window_log2;
  std::vector<index_t> out(q, ~index_t{0});
  for (index_t base = 0; base < q; base += window) {
    const index_t size = std::min(window, q - base);
    for (index_t t = 0; t < size; ++t) {
      const index_t slot = order[by_index[base + t]] - base;
      EXPECT_LT(slot, size) << what << ": index " << order[by_index[base + t]] << " outside window " << base / window;
      if (slot < size) out[base + slot] = counts[by_index[base + t]];
    }
  }
  return out;
}

template <class K>
void check(const std::vector<K>& keys, const std::vector<K>& queries, const std::string& label) {
  for (int wanted : {1, 4, 16}) {
    const int bits = search::bucket_bits_of<K>(wanted);
    for (int window_log2 : {0, 3, 10}) {
      for (bool inclusive : {false, true}) {
        const std::string what = label + ", n = " + std::to_string(keys.size()) + ", Q = " + std::to_string(queries.size()) +
                                 ", bits = " + std::to_string(bits) + ", window 2^" + std::to_string(window_log2) +
                                 (inclusive ? ", upper" : ", lower");
        const auto got = sort_queries(keys, queries, bits, window_log2, inclusive, what);
        for (std::size_t i = 0; i < queries.size(); ++i) {
          const auto expected = inclusive ? std::upper_bound(keys.begin(), keys.end(), queries[i]) - keys.begin()
                                          : std::lower_bound(keys.begin(), keys.end(), queries[i]) - keys.begin();
          ASSERT_EQ(got[i], static_cast<index_t>(expected)) << what << ", query " << i << " = " << +queries[i];
        }
      }
    }
  }
}

template <class K>
K random_key(std::mt19937_64& random, std::uint64_t range) {
  if (range == 0) return static_cast<K>(random());  // every bit pattern
  return static_cast<K>(static_cast<std::uint64_t>(std::numeric_limits<K>::min()) + random() % range);
}

/// Random, duplicate-heavy, max-valued and all-equal keys; queries: the type's min and max, keys ± 1, random.
template <class K>
void sweep(std::uint64_t seed) {
  std::mt19937_64 random(seed);
  for (std::size_t n = 0; n <= 300; n += n < 40 ? 1 : 13) {
    for (int shape = 0; shape < 4; ++shape) {
      std::vector<K> keys(n);
      for (auto& k : keys) k = shape == 1 ? random_key<K>(random, n / 4 + 2) : random_key<K>(random, 0);
      if (shape == 2)
        for (std::size_t i = 0; i < n / 3; ++i) keys[i] = std::numeric_limits<K>::max();
      if (shape == 3) std::fill(keys.begin(), keys.end(), random_key<K>(random, 0));
      std::sort(keys.begin(), keys.end());
      std::vector<K> queries = {std::numeric_limits<K>::min(), std::numeric_limits<K>::max()};
      const std::size_t count = n % 3 == 0 ? 1 : 50 + n % 23;  // Q = 1 and Q across window boundaries
      while (queries.size() < count + 2) {
        const auto pick = random();
        if (keys.empty() || pick % 3 == 0) queries.push_back(random_key<K>(random, shape == 1 ? n / 4 + 4 : 0));
        else queries.push_back(static_cast<K>(static_cast<std::uint64_t>(keys[(pick >> 8) % n]) + pick % 3 - 1));  // key − 1, key, key + 1
      }
      if (n % 3 == 0) queries.resize(1);
      check(keys, queries, "shape " + std::to_string(shape));
    }
  }
}

TEST(SearchSortQueries, U8KeysEveryShape) { sweep<std::uint8_t>(8); }
TEST(SearchSortQueries, I16KeysEveryShape) { sweep<std::int16_t>(16); }
TEST(SearchSortQueries, U32KeysEveryShape) { sweep<std::uint32_t>(32); }
TEST(SearchSortQueries, I64KeysEveryShape) { sweep<std::int64_t>(64); }

TEST(SearchSortQueries, AllEqualQueriesAndNoQueries) {
  const std::vector<std::uint32_t> keys = {1, 5, 5, 5, 9, 4000000000u};
  check(keys, std::vector<std::uint32_t>(3000, 5u), "all-equal queries");
  check(keys, std::vector<std::uint32_t>{}, "no queries");
}

TEST(SearchSortQueries, RestoreBits) {
  using search::restore_bits;
  auto same = [](search::bit_range r, int begin, int end) { return r.begin == begin && r.end == end; };
  EXPECT_TRUE(same(restore_bits(0, 10), 0, 0));
  EXPECT_TRUE(same(restore_bits(1, 10), 0, 0));
  EXPECT_TRUE(same(restore_bits(2, 10), 1, 1));
  EXPECT_TRUE(same(restore_bits(1024, 10), 10, 10));
  EXPECT_TRUE(same(restore_bits(1025, 10), 10, 11));
  EXPECT_TRUE(same(restore_bits(index_t{1} << 26, 10), 10, 26));  // two 8-bit passes
  EXPECT_TRUE(same(restore_bits((index_t{1} << 26) + 1, 10), 10, 27));
  EXPECT_TRUE(same(restore_bits(index_t{1} << 31, 10), 10, 31));
}

TEST(SearchSortQueries, TablesFromUnsortedKeysStayInRange) {
  std::mt19937_64 random(5);
  for (int trial = 0; trial < 2000; ++trial) {
    const index_t n = random() % 50;
    const std::uint32_t starts[2] = {static_cast<std::uint32_t>(random() % 80), static_cast<std::uint32_t>(random() % 80)};
    const auto range = search::bucket_keys(starts, 0, n);
    ASSERT_LE(range.first, range.last);
    ASSERT_LE(range.last, n);
    const index_t count = search::count_in_bucket(range, [&](index_t j) {
      EXPECT_TRUE(j >= range.first && j < range.last) << "read outside the bucket";
      return random() % 2 == 0;
    });
    ASSERT_TRUE(count >= range.first && count <= range.last);
    const index_t a = random() % 60, b = random() % 60;  // a staged span of a tile (first ≤ last)
    const search::key_range span{std::min(a, b), std::max(a, b)};
    const auto clamped = search::within(range, span);
    ASSERT_TRUE(span.first <= clamped.first && clamped.first <= clamped.last && clamped.last <= span.last);
  }
}

// The interleaved searches of the kernel equal one count_in_bucket a range: on sorted keys for every
// range, and in range for any predicate.
TEST(SearchSortQueries, InterleavedSearchesEqualOneAtATime) {
  std::mt19937_64 random(9);
  std::vector<std::uint32_t> keys(300);
  for (auto& k : keys) k = static_cast<std::uint32_t>(random() % 100);
  std::sort(keys.begin(), keys.end());
  for (int trial = 0; trial < 500; ++trial) {
    search::key_range ranges[8];
    std::uint32_t q[8];
    for (int k = 0; k < 8; ++k) {
      const index_t a = random() % 301, b = random() % 301;
      ranges[k] = {std::min(a, b), std::max(a, b)};
      q[k] = static_cast<std::uint32_t>(random() % 110);
    }
    index_t got[8];
    search::count_in_buckets(ranges, [&](int k, index_t j) { return keys[j] < q[k]; }, got);
    for (int k = 0; k < 8; ++k)
      ASSERT_EQ(got[k], search::count_in_bucket(ranges[k], [&](index_t j) { return keys[j] < q[k]; }))
          << trial << ", " << k;
    search::count_in_buckets(ranges, [&](int, index_t) { return random() % 2 == 0; }, got);
    for (int k = 0; k < 8; ++k) ASSERT_TRUE(got[k] >= ranges[k].first && got[k] <= ranges[k].last);
  }
}

TEST(SearchSortQueries, AutomaticTakesItForLargeBatchesBeyondTheL2) {
  const index_t l2 = index_t{60} << 20, q26 = index_t{1} << 26, min_queries = index_t{1} << 20;
  auto pays = [&](index_t n, index_t q, index_t key_bytes) {
    return search::sort_queries_pays(n, q, key_bytes, l2, 8, 8, min_queries);
  };
  EXPECT_TRUE(pays(q26, q26, 4));                     // the case: 256 MiB of keys
  EXPECT_TRUE(pays(q26, q26 / 8, 4));                 // Q = n/8
  EXPECT_FALSE(pays(q26, q26 / 8 - 1, 4));            // fewer: the temporary btree
  EXPECT_TRUE(pays(index_t{1} << 22, q26, 4));        // 16 MiB of keys: past an eighth of the L2
  EXPECT_FALSE(pays(index_t{1} << 20, q26, 4));       // 4 MiB: mostly L1 and L2 hits
  EXPECT_TRUE(pays(index_t{1} << 23, q26, 8));        // 64 MiB of 8-byte keys
  EXPECT_FALSE(pays(q26, min_queries - 1, 4));        // too few queries for the fixed cost
  EXPECT_FALSE(pays(q26 * 16, min_queries, 4));       // Q < n/8
}

}  // namespace
