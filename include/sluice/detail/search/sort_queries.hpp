// sluice/detail/search/sort_queries.hpp: the index arithmetic of search_algorithm::sort_queries, pure host +
// device functions so that the host tests run the whole strategy (tests/host/search_sort_queries_test.cpp).
//
// The strategy, for a large batch of unsorted queries into keys larger than the L2 (docs/search.md):
//   1. sort (query, original index) pairs stably by the query's top `bucket_bits` radix bits (LSD passes
//      over [key_bits − bucket_bits, key_bits): two 8-bit passes for 16 bits);
//   2. bucket_start[h] = the number of keys whose top bits are < h, for every bucket h (a binary search each);
//   3. each query searches only its bucket's keys [bucket_start[h], bucket_start[h + 1]): consecutive
//      queries now share buckets, so those keys come from the L2 / L1 instead of DRAM;
//   4. restore the order: sort (original index, count) pairs stably by the index's bits [window_log2,
//      bit_width(Q − 1)), which puts the indices of window w = [w·W, (w+1)·W) exactly at positions
//      [w·W, (w+1)·W) (the indices are a permutation); each block then scatters one window through shared
//      memory and writes it out whole.
// Step 3 is exact for ANY order of the queries: a key in an earlier bucket has a smaller radix word, hence
// (for integral keys under std::less, the only ones this strategy takes) is < q; one in a later bucket is
// > q. The sorts only buy locality. A random scatter of the answers instead of step 4 would cost ~60–75 ps
// a query (docs/scatter.md, random permutation, 2^24 and 2^28) against ~20 for two radix passes.
#pragma once

#include <sluice/core/comparators.hpp>
#include <sluice/core/config.hpp>
#include <sluice/core/radix_key.hpp>
#include <sluice/detail/search/layouts.hpp>

#include <cuda/std/bit>
#include <cuda/std/cstdint>
#include <cuda/std/type_traits>

#include <functional>

namespace sluice::detail::search {

/// Keys and orders whose radix-word order is the search's order: integers (not bool) under std::less.
/// Floats are left out: −0.0 and +0.0 are equal under <, but their words fall in different buckets.
template <class K, class Less>
inline constexpr bool sorts_by_radix_word =
    is_plain_integer<K> && is_std_less<Less, K>;

/// The bucket bits of K: `wanted`, or all of a narrower key's bits (8- and 16-bit keys sort fully).
template <class K>
SLUICE_HOST_DEVICE constexpr int bucket_bits_of(int wanted) {
  return wanted < key_bits<K> ? wanted : key_bits<K>;
}

/// The bucket of a key or query: the top `bits` bits of its radix word.
template <class K>
SLUICE_HOST_DEVICE constexpr cuda::std::uint32_t bucket_of(K key, int bits) {
  return static_cast<cuda::std::uint32_t>(radix_word(key) >> (key_bits<K> - bits));
}

/// The number of the n sorted keys whose bucket is < h (bucket_start[h]; h = 2^bits gives n).
template <class K>
SLUICE_HOST_DEVICE constexpr index_t bucket_start(const K* keys, index_t n, int bits, index_t h) {
  return sorted_count(n, [&](index_t j) { return bucket_of(keys[j], bits) < h; });
}

/// The keys a query's bucket h covers, [first, last), from the table, clamped into [0, n] and
/// first ≤ last (a no-op for sorted keys; unsorted keys make the table arbitrary, the reads stay in range).
template <class I>
struct index_range {
  I first, last;
};
using key_range = index_range<index_t>;
SLUICE_HOST_DEVICE constexpr key_range bucket_keys(const cuda::std::uint32_t* starts, cuda::std::uint32_t h, index_t n) {
  const index_t first = min_index(starts[h], n);
  const index_t last = min_index(starts[h + 1], n);
  return {first, last < first ? first : last};
}

/// `range` clamped into `span` (first ≤ last): the staged keys of a tile hold every range of its sorted
/// queries when the keys are sorted; the clamp keeps unsorted keys' arbitrary ranges in bounds.
SLUICE_HOST_DEVICE constexpr key_range within(key_range range, key_range span) {
  const index_t first = range.first < span.first ? span.first : range.first > span.last ? span.last : range.first;
  const index_t last = range.last < first ? first : range.last > span.last ? span.last : range.last;
  return {first, last};
}

/// The number of keys for which the bound's predicate `holds` is true, searching only [range.first,
/// range.last): every key before it holds, none after it does.
template <class Holds>
SLUICE_HOST_DEVICE constexpr index_t count_in_bucket(key_range range, Holds holds) {
  return range.first + sorted_count(range.last - range.first, [&](index_t j) { return holds(range.first + j); });
}

/// count_in_bucket for Items ranges at once, the searches' probes interleaved so that Items independent
/// loads are in flight: counts[k] = count_in_bucket(ranges[k], [&](I j) { return holds(k, j); }), the
/// same steps as sorted_count's a range. I: 32-bit where the ranges allow (shared-memory offsets), for
/// half the index arithmetic of 64 bits.
template <int Items, class I, class Holds>
SLUICE_HOST_DEVICE constexpr void count_in_buckets(const index_range<I> (&ranges)[Items], Holds holds,
                                                   I (&counts)[Items]) {
  I left[Items];
  for (int k = 0; k < Items; ++k) {
    counts[k] = ranges[k].first;
    left[k] = ranges[k].last - ranges[k].first;
  }
  for (bool any = true; any;) {
    any = false;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int k = 0; k < Items; ++k) {
      if (left[k] == 0) continue;
      any = true;
      const I half = left[k] / 2;
      if (holds(k, counts[k] + half)) {
        counts[k] += half + 1;
        left[k] -= half + 1;
      } else {
        left[k] = half;
      }
    }
  }
}

/// The bit range [begin, end) of the original indices 0 … count − 1 that step 4 sorts by: the bits above
/// the window's; empty (begin = end) when every index lies in the first window.
struct bit_range {
  int begin, end;
};
SLUICE_HOST_DEVICE constexpr bit_range restore_bits(index_t count, int window_log2) {
  const int end = count <= 1 ? 0 : static_cast<int>(cuda::std::bit_width(count - 1));
  return {end < window_log2 ? end : window_log2, end};
}

/// Whether automatic takes sort_queries: enough queries (Q ≥ n / keys_per_query and Q ≥ min_queries) and
/// keys beyond 1/l2_fraction of the L2 (below it a tree's misses mostly hit the L1 and no sort pays).
SLUICE_HOST_DEVICE constexpr bool sort_queries_pays(index_t n, index_t queries, index_t key_bytes, index_t l2_bytes,
                                                    index_t l2_fraction, index_t keys_per_query, index_t min_queries) {
  return queries >= min_queries && queries * keys_per_query >= n && n * key_bytes * l2_fraction > l2_bytes;
}

}  // namespace sluice::detail::search
