// GPU tests of search.cuh (Karsin ch. 6) against std::lower_bound / std::upper_bound under the same Less
// (and sluice::reference::predecessor's NaN rule): the free functions in every strategy with random and
// sorted queries,
// search_index in every layout out of place and in place, its device view inside a user kernel, and
// pbs_predecessor in every variant on random and bank-conflict adversarial queries. Keys: random,
// duplicate-heavy, equal to the type's maximum; queries below the minimum, above the maximum, equal to
// keys; u32, i64, float (±0.0, NaN queries), a 16-byte struct under a one-field Less; sizes 0 … 2^20 + 7,
// the B ± 1 and w² ± 1 boundaries; outputs poisoned; bad arguments; and 2^31 + 5 keys (*Large*).
// sort_queries: every size and key shape of the sweeps (integral keys), Q = 0, 1, 1023 … 2^20 + 3, all-equal,
// all-below and all-above queries, u8 and i64 keys, its rejections, and automatic taking it beyond the L2.
#include <sluice/data/pbs_queries.hpp>
#include <sluice/reference/search.hpp>
#include <sluice/search.cuh>

#include "support/compare.hpp"
#include "support/errors.hpp"
#include "support/gpu_test.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using sluice::testing::all_equal;
using sluice::testing::gpu_test;

class Search : public gpu_test {};
class SearchIndex : public gpu_test {};
class PbsPredecessor : public gpu_test {};

/// A 16-byte key ordered by its first field only: equal `major`s are equivalent whatever `minor` holds.
struct pair_key {
  std::uint64_t major;
  std::uint64_t minor;
  bool operator==(const pair_key&) const = default;
};
struct by_major {
  __host__ __device__ bool operator()(const pair_key& a, const pair_key& b) const { return a.major < b.major; }
};

/// B ± 1 for every default node (4 u64, 8 u32, 2 for the 16-byte key) and the 16-key node; w² ± 1.
const std::size_t all_sizes[] = {0,  1,  2,  3,  4,    5,    7,    8,    9,      15,
                                 16, 17, 31, 32, 33, 1023, 1024, 1025, 100003, (std::size_t{1} << 20) + 7};
std::vector<std::size_t> sizes() { return sluice::testing::sweep_sizes(all_sizes); }

const sluice::search_layout all_layouts[] = {sluice::search_layout::sorted, sluice::search_layout::eytzinger,
                                             sluice::search_layout::btree};
std::string describe(sluice::search_layout layout) {
  return layout == sluice::search_layout::sorted ? "sorted" : layout == sluice::search_layout::eytzinger ? "eytzinger" : "btree";
}

/// Whether search_algorithm::sort_queries takes K under Less (integers under std::less), written out here
/// rather than read from the library.
template <class K, class Less>
constexpr bool sortable_queries = std::is_integral_v<K> && !std::is_same_v<K, bool> && std::is_same_v<Less, std::less<>>;

/// The free functions' strategies worth running on random or on sorted queries (merge_path needs sorted
/// ones); sort_queries where the keys allow it.
template <class K, class Less>
std::vector<sluice::search_algorithm> free_function_algos(bool sorted_queries) {
  using sluice::search_algorithm;
  std::vector<search_algorithm> algos = {search_algorithm::automatic, search_algorithm::binary_search};
  if (sorted_queries) algos.push_back(search_algorithm::merge_path);
  else algos.insert(algos.end(), {search_algorithm::eytzinger, search_algorithm::btree});
  if (sortable_queries<K, Less>) algos.push_back(search_algorithm::sort_queries);
  return algos;
}
std::string describe(sluice::search_algorithm a) {
  using sluice::search_algorithm;
  return a == search_algorithm::automatic       ? "automatic"
         : a == search_algorithm::binary_search ? "binary_search"
         : a == search_algorithm::merge_path    ? "merge_path"
         : a == search_algorithm::eytzinger     ? "temporary eytzinger"
         : a == search_algorithm::sort_queries  ? "sort_queries"
                                           : "temporary btree";
}

/// The three answers a query set expects, computed by the std algorithms under `less`.
struct expected_answers {
  std::vector<std::int64_t> lower, upper, predecessor;
};

template <class K, class Less>
bool is_nan_key(const K& q) {
  if constexpr (std::is_floating_point_v<K>) return std::isnan(q);
  else return false;
}

template <class K, class Less>
expected_answers expect(const std::vector<K>& keys, const std::vector<K>& queries, Less less) {
  expected_answers e;
  for (const K& q : queries) {
    const auto lo = std::lower_bound(keys.begin(), keys.end(), q, less) - keys.begin();
    const auto up = std::upper_bound(keys.begin(), keys.end(), q, less) - keys.begin();
    e.lower.push_back(lo);
    e.upper.push_back(up);
    e.predecessor.push_back(is_nan_key<K, Less>(q) ? -1 : up - 1);
  }
  return e;
}

template <class Out>
std::vector<std::int64_t> widened(const std::vector<Out>& v) {
  return {v.begin(), v.end()};
}

/// Runs `call(out)` on poisoned outputs and compares with `expected`.
template <class Out, class Call>
void check_call(sluice::context& ctx, std::size_t count, const std::vector<std::int64_t>& expected, const std::string& what,
                Call call) {
  sluice::device_buffer<Out> out(ctx, count);
  for (unsigned char poison : sluice::testing::poison_patterns) {
    out.fill_bytes(poison);
    call(out.span());
    ASSERT_TRUE(all_equal(widened(out.to_host()), expected)) << what;
  }
}

/// Every entry point on one key set: free functions (random and sorted queries), every layout out of
/// place and in place.
template <class K, class Out, class Less = std::less<>>
void check_everything(sluice::context& ctx, const std::vector<K>& keys, std::vector<K> queries, const std::string& label,
                      Less less = {}) {
  const std::string base = label + ", n = " + std::to_string(keys.size()) + ", " + std::to_string(sizeof(K)) + "-byte keys";
  const sluice::device_buffer<K> d_keys(ctx, std::span<const K>(keys));
  for (bool sorted_queries : {false, true}) {
    if (sorted_queries) {  // NaN is not ordered: the sorted pass leaves it out
      std::erase_if(queries, [](const K& q) { return is_nan_key<K, Less>(q); });
      std::stable_sort(queries.begin(), queries.end(), less);
    }
    const auto e = expect(keys, queries, less);
    const sluice::device_buffer<K> d_queries(ctx, std::span<const K>(queries));
    const std::string what = base + (sorted_queries ? ", sorted queries" : ", random queries");
    const sluice::search_options options{.queries_sorted = sorted_queries};
    const auto k = d_keys.span();
    const auto q = d_queries.span();
    for (sluice::search_algorithm algo : free_function_algos<K, Less>(sorted_queries)) {
      const sluice::search_options free_options{.queries_sorted = sorted_queries, .algorithm = algo};
      const std::string how = what + ", " + describe(algo);
      check_call<Out>(ctx, queries.size(), e.lower, how + ", lower_bound",
                      [&](auto out) { sluice::lower_bound(ctx, k, q, out, free_options, less); });
      check_call<Out>(ctx, queries.size(), e.upper, how + ", upper_bound",
                      [&](auto out) { sluice::upper_bound(ctx, k, q, out, free_options, less); });
      check_call<Out>(ctx, queries.size(), e.predecessor, how + ", predecessor",
                      [&](auto out) { sluice::predecessor(ctx, k, q, out, free_options, less); });
    }
    for (sluice::search_layout layout : all_layouts) {
      for (bool in_place : {false, true}) {
        sluice::device_buffer<K> own(ctx, std::span<const K>(keys));
        const std::string where = what + ", layout " + describe(layout) + (in_place ? " in place" : " out of place");
        const sluice::search_index_options index_options{};
        if (in_place && layout == sluice::search_layout::btree &&
            keys.size() % sluice::search_index<K, Less>(ctx, k, layout, index_options, less).keys_per_node() != 0)
          continue;  // a btree in place needs n a multiple of B (SearchIndex.BadArguments checks the error)
        const auto index = in_place ? sluice::search_index<K, Less>::in_place(ctx, own.span(), layout, index_options, less)
                                    : sluice::search_index<K, Less>(ctx, k, layout, index_options, less);
        check_call<Out>(ctx, queries.size(), e.lower, where + ", lower_bound",
                        [&](auto out) { index.lower_bound(ctx, q, out, options); });
        check_call<Out>(ctx, queries.size(), e.upper, where + ", upper_bound",
                        [&](auto out) { index.upper_bound(ctx, q, out, options); });
        check_call<Out>(ctx, queries.size(), e.predecessor, where + ", predecessor",
                        [&](auto out) { index.predecessor(ctx, q, out, options); });
      }
    }
  }
}

/// Queries: every kind of position: below the minimum, above the maximum, equal to keys, between keys,
/// and uniformly random; about max(64, n) of them (at most 2^18).
std::vector<std::uint32_t> u32_queries(const std::vector<std::uint32_t>& keys, std::mt19937_64& random) {
  std::vector<std::uint32_t> q = {0u, 1u, std::numeric_limits<std::uint32_t>::max()};
  const std::size_t count = std::min<std::size_t>(std::max<std::size_t>(64, keys.size()), std::size_t{1} << 18);
  while (q.size() < count) {
    const auto pick = random();
    if (keys.empty() || pick % 3 == 0) q.push_back(static_cast<std::uint32_t>(pick >> 20));
    else {
      const auto key = keys[(pick >> 8) % keys.size()];
      q.push_back(key + static_cast<std::uint32_t>(pick % 3) - 1u);  // key − 1, key, key + 1
    }
  }
  return q;
}

std::vector<std::uint32_t> u32_keys(std::size_t n, std::mt19937_64& random, std::uint64_t range, bool max_tail) {
  std::vector<std::uint32_t> keys(n);
  for (auto& k : keys) k = static_cast<std::uint32_t>(random() % range);
  if (max_tail)
    for (std::size_t i = 0; i < n / 4; ++i) keys[i] = std::numeric_limits<std::uint32_t>::max();
  std::sort(keys.begin(), keys.end());
  return keys;
}

TEST_F(SearchIndex, U32RandomDuplicateAndMaxValuedKeysEveryLayout) {
  std::mt19937_64 random(6);
  for (std::size_t n : sizes()) {
    {
      const auto keys = u32_keys(n, random, std::uint64_t{1} << 32, false);
      check_everything<std::uint32_t, std::int32_t>(ctx(), keys, u32_queries(keys, random), "random");
    }
    {
      const auto keys = u32_keys(n, random, n / 8 + 2, false);
      check_everything<std::uint32_t, std::int32_t>(ctx(), keys, u32_queries(keys, random), "duplicate-heavy");
    }
    {
      const auto keys = u32_keys(n, random, 1000, true);
      check_everything<std::uint32_t, std::int32_t>(ctx(), keys, u32_queries(keys, random), "max-valued");
    }
  }
}

TEST_F(SearchIndex, I64KeysWithNegativesAnd64BitOutputs) {
  std::mt19937_64 random(64);
  for (std::size_t n : sizes()) {
    std::vector<std::int64_t> keys(n);
    for (auto& k : keys) k = static_cast<std::int64_t>(random() % 20001) - 10000;
    std::sort(keys.begin(), keys.end());
    std::vector<std::int64_t> queries = {std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()};
    for (int i = 0; i < 2000; ++i) queries.push_back(static_cast<std::int64_t>(random() % 20011) - 10005);
    check_everything<std::int64_t, std::int64_t>(ctx(), keys, queries, "i64");
  }
}

TEST_F(SearchIndex, FloatSignedZerosAndNanQueries) {
  std::mt19937_64 random(32);
  for (std::size_t n : {std::size_t{1}, std::size_t{17}, std::size_t{1025}, std::size_t{100003}}) {
    std::vector<float> keys(n);
    for (auto& k : keys) k = static_cast<float>(static_cast<int>(random() % 201) - 100) / 4.0f;
    for (std::size_t i = 0; i < n; i += 3) keys[i] = (i % 2) ? -0.0f : 0.0f;
    std::sort(keys.begin(), keys.end());
    std::vector<float> queries = {-0.0f, 0.0f, -1e30f, 1e30f, std::numeric_limits<float>::infinity(),
                                  -std::numeric_limits<float>::infinity(), std::nanf("")};
    for (int i = 0; i < 500; ++i) queries.push_back(static_cast<float>(static_cast<int>(random() % 211) - 105) / 4.0f);
    check_everything<float, std::int32_t>(ctx(), keys, queries, "float");
  }
}

TEST_F(SearchIndex, SixteenByteKeysUnderAOneFieldLess) {
  std::mt19937_64 random(16);
  for (std::size_t n : sizes()) {
    std::vector<pair_key> keys(n);
    for (auto& k : keys) k = {random() % (n / 3 + 2), random()};
    std::stable_sort(keys.begin(), keys.end(), by_major{});
    std::vector<pair_key> queries;
    for (int i = 0; i < 1500; ++i) queries.push_back({random() % (n / 3 + 4), random()});
    check_everything<pair_key, std::int64_t>(ctx(), keys, queries, "pair_key by major", by_major{});
  }
}

TEST_F(Search, UnsignedAndNarrowOutputs) {
  std::mt19937_64 random(8);
  const auto keys = u32_keys(200, random, 1000, false);
  const auto queries = u32_queries(keys, random);
  const auto e = expect(keys, queries, std::less<>{});
  const sluice::device_buffer<std::uint32_t> d_keys(ctx(), std::span<const std::uint32_t>(keys));
  const sluice::device_buffer<std::uint32_t> d_queries(ctx(), std::span<const std::uint32_t>(queries));
  check_call<std::uint8_t>(ctx(), queries.size(), e.lower, "u8 lower_bound, n = 200",
                           [&](auto out) { sluice::lower_bound(ctx(), d_keys.span(), d_queries.span(), out); });
  check_call<std::uint64_t>(ctx(), queries.size(), e.upper, "u64 upper_bound, n = 200",
                            [&](auto out) { sluice::upper_bound(ctx(), d_keys.span(), d_queries.span(), out); });
}

template <class K>
__global__ void search_in_user_kernel(sluice::search_index_view<K> view, const K* queries, std::size_t count,
                                      std::int64_t* out) {
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (i < count) out[i] = view.predecessor(queries[i]);
}

TEST_F(SearchIndex, DeviceViewInsideAUserKernel) {
  std::mt19937_64 random(9);
  for (std::size_t n : {std::size_t{0}, std::size_t{33}, std::size_t{100003}}) {
    const auto keys = u32_keys(n, random, n / 2 + 3, false);
    const auto queries = u32_queries(keys, random);
    const auto e = expect(keys, queries, std::less<>{});
    const sluice::device_buffer<std::uint32_t> d_keys(ctx(), std::span<const std::uint32_t>(keys));
    const sluice::device_buffer<std::uint32_t> d_queries(ctx(), std::span<const std::uint32_t>(queries));
    for (sluice::search_layout layout : all_layouts) {
      const sluice::search_index<std::uint32_t> index(ctx(), d_keys.span(), layout);
      check_call<std::int64_t>(ctx(), queries.size(), e.predecessor, "view, layout " + describe(layout) + ", n = " + std::to_string(n),
                               [&](auto out) {
                                 const auto blocks = static_cast<unsigned>((queries.size() + 255) / 256);
                                 search_in_user_kernel<<<blocks, 256, 0, ctx().stream()>>>(
                                     index.view(), d_queries.data(), queries.size(), out.data());
                               });
    }
  }
}

TEST_F(SearchIndex, BtreeNodeSizesAndNoCache) {
  std::mt19937_64 random(10);
  const auto keys = u32_keys(100003, random, std::uint64_t{1} << 32, false);
  const auto queries = u32_queries(keys, random);
  const auto e = expect(keys, queries, std::less<>{});
  const sluice::device_buffer<std::uint32_t> d_keys(ctx(), std::span<const std::uint32_t>(keys));
  const sluice::device_buffer<std::uint32_t> d_queries(ctx(), std::span<const std::uint32_t>(queries));
  for (int b : {8, 16, 32}) {
    for (bool cache : {true, false}) {
      const sluice::search_index<std::uint32_t> index(ctx(), d_keys.span(), sluice::search_layout::btree,
                                                      {.btree_keys_per_node = b, .cache_top_levels = cache});
      ASSERT_EQ(index.keys_per_node(), static_cast<std::size_t>(b));
      check_call<std::int32_t>(ctx(), queries.size(), e.lower,
                               "btree B = " + std::to_string(b) + (cache ? ", cached" : ", no cache"),
                               [&](auto out) { index.lower_bound(ctx(), d_queries.span(), out); });
    }
  }
  // A cache of 1 KiB: the walk crosses from shared to global memory inside the third level.
  const sluice::search_index<std::uint32_t> small(ctx(), d_keys.span(), sluice::search_layout::eytzinger,
                                                  {.cache_bytes = 1024});
  check_call<std::int32_t>(ctx(), queries.size(), e.lower, "eytzinger, 1 KiB cache",
                           [&](auto out) { small.lower_bound(ctx(), d_queries.span(), out); });
}

TEST_F(Search, BadArguments) {
  sluice::device_buffer<std::uint32_t> keys(ctx(), 300), queries(ctx(), 10);
  sluice::device_buffer<std::int32_t> out(ctx(), 10), short_out(ctx(), 9);
  sluice::device_buffer<std::uint32_t> unsigned_out(ctx(), 10);
  sluice::device_buffer<std::uint8_t> narrow(ctx(), 10);
  std::vector<std::uint32_t> host(300);
  using sluice::testing::expect_invalid_argument;
  expect_invalid_argument([&] { sluice::lower_bound(ctx(), keys.span(), queries.span(), short_out.span()); }, "out");
  expect_invalid_argument([&] { sluice::lower_bound(ctx(), keys.span(), queries.span(), narrow.span()); }, "out");
  expect_invalid_argument([&] { sluice::predecessor(ctx(), keys.span(), queries.span(), unsigned_out.span()); }, "out");
  expect_invalid_argument(
      [&] { sluice::lower_bound(ctx(), cuda::std::span<const std::uint32_t>(host.data(), host.size()), queries.span(), out.span()); },
      "sorted_keys");
  expect_invalid_argument(
      [&] { sluice::lower_bound(ctx(), keys.span(), queries.span(), cuda::std::span<std::int32_t>(reinterpret_cast<std::int32_t*>(keys.data()), 10)); },
      "out");
}

TEST_F(SearchIndex, BadArguments) {
  sluice::device_buffer<std::uint32_t> keys(ctx(), 100), queries(ctx(), 10);
  sluice::device_buffer<std::int32_t> short_out(ctx(), 9);
  using sluice::testing::expect_invalid_argument;
  expect_invalid_argument([&] { (void)sluice::search_index<std::uint32_t>(ctx(), keys.span(), sluice::search_layout::btree, {.btree_keys_per_node = 5}); },
                          "options.btree_keys_per_node");
  expect_invalid_argument([&] { (void)sluice::search_index<std::uint32_t>::in_place(ctx(), keys.span(), sluice::search_layout::btree, {.btree_keys_per_node = 32}); },
                          "sorted_keys");
  expect_invalid_argument([&] { (void)sluice::search_index<std::uint32_t>(ctx(), keys.span(), sluice::search_layout::eytzinger, {.cache_bytes = std::size_t{1} << 30}); },
                          "options.cache_bytes");
  const sluice::search_index<std::uint32_t> index(ctx(), keys.span());
  expect_invalid_argument([&] { index.lower_bound(ctx(), queries.span(), short_out.span()); }, "out");
}

TEST_F(SearchIndex, UnsortedKeysStayInBounds) {
  // Unspecified answers, but in range and no stray access (compute-sanitizer's memcheck proves the latter).
  std::mt19937_64 random(13);
  for (std::size_t n : {std::size_t{33}, std::size_t{100003}}) {
    std::vector<std::uint32_t> keys(n);
    for (auto& k : keys) k = static_cast<std::uint32_t>(random());
    const auto queries = u32_queries(keys, random);
    const sluice::device_buffer<std::uint32_t> d_keys(ctx(), std::span<const std::uint32_t>(keys));
    const sluice::device_buffer<std::uint32_t> d_queries(ctx(), std::span<const std::uint32_t>(queries));
    sluice::device_buffer<std::int64_t> out(ctx(), queries.size());
    auto in_range = [&](const std::string& what, std::int64_t low) {
      for (std::int64_t r : out.to_host())
        ASSERT_TRUE(r >= low && r <= static_cast<std::int64_t>(n)) << what << ", n = " << n << ": " << r;
    };
    for (sluice::search_layout layout : all_layouts) {
      const sluice::search_index<std::uint32_t> index(ctx(), d_keys.span(), layout);
      index.lower_bound(ctx(), d_queries.span(), out.span());
      in_range("lower_bound, layout " + describe(layout), 0);
      index.predecessor(ctx(), d_queries.span(), out.span());
      in_range("predecessor, layout " + describe(layout), -1);
    }
    if (n <= 8192)
      for (sluice::pbs_algorithm algo : {sluice::pbs_algorithm::pbs, sluice::pbs_algorithm::pbs_cf, sluice::pbs_algorithm::pbs_cl}) {
        sluice::pbs_predecessor(ctx(), d_keys.span(), d_queries.span(), out.span(), {.algorithm = algo});
        in_range("pbs_predecessor, " + std::to_string(static_cast<int>(algo)), -1);
      }
    // sort_queries: a table from unsorted keys is arbitrary; its ranges are clamped, so answers stay in [0, n].
    sluice::lower_bound(ctx(), d_keys.span(), d_queries.span(), out.span(), {.algorithm = sluice::search_algorithm::sort_queries});
    in_range("lower_bound, sort_queries", 0);
    // Merge path over unsorted keys and queries: only memory safety is promised (outputs may stay unwritten).
    sluice::upper_bound(ctx(), d_keys.span(), d_queries.span(), out.span(), {.queries_sorted = true});
    ctx().synchronize();
  }
}

/// The three answers of every free function under `options` on poisoned outputs of type Out.
template <class Out, class K>
void check_free_functions(sluice::context& ctx, const std::vector<K>& keys, const std::vector<K>& queries,
                          const sluice::search_options& options, const std::string& what) {
  const auto e = expect(keys, queries, std::less<>{});
  const sluice::device_buffer<K> d_keys(ctx, std::span<const K>(keys));
  const sluice::device_buffer<K> d_queries(ctx, std::span<const K>(queries));
  const auto k = d_keys.span();
  const auto q = d_queries.span();
  const std::string label = what + ", n = " + std::to_string(keys.size()) + ", Q = " + std::to_string(queries.size()) +
                            ", " + std::to_string(sizeof(K)) + "-byte keys, " + std::to_string(sizeof(Out)) + "-byte out";
  check_call<Out>(ctx, queries.size(), e.lower, label + ", lower_bound", [&](auto out) { sluice::lower_bound(ctx, k, q, out, options); });
  check_call<Out>(ctx, queries.size(), e.upper, label + ", upper_bound", [&](auto out) { sluice::upper_bound(ctx, k, q, out, options); });
  if constexpr (std::is_signed_v<Out>)
    check_call<Out>(ctx, queries.size(), e.predecessor, label + ", predecessor",
                    [&](auto out) { sluice::predecessor(ctx, k, q, out, options); });
}

TEST_F(Search, SortQueriesQueryCountsAcrossWindowsAndEdgeQueries) {
  // Q = 0, 1, around the 2^10-query restore window, and beyond 2^20; queries all below, all above, all equal.
  std::mt19937_64 random(26);
  const sluice::search_options sort{.algorithm = sluice::search_algorithm::sort_queries};
  for (std::size_t n : {std::size_t{1}, std::size_t{1000}, std::size_t{100003}}) {
    const auto keys = u32_keys(n, random, n / 3 + 2, false);
    for (std::size_t q : {std::size_t{0}, std::size_t{1}, std::size_t{1023}, std::size_t{1024}, std::size_t{1025},
                          (std::size_t{1} << 20) + 3}) {
      std::vector<std::uint32_t> queries(q);
      for (auto& v : queries) v = static_cast<std::uint32_t>(random() % (n / 3 + 4));
      check_free_functions<std::int32_t>(ctx(), keys, queries, sort, "sort_queries, random");
    }
    const std::size_t q = 5000;
    check_free_functions<std::int32_t>(ctx(), keys, std::vector<std::uint32_t>(q, keys[n / 2]), sort, "sort_queries, all equal");
    check_free_functions<std::int64_t>(ctx(), keys, std::vector<std::uint32_t>(q, 0u), sort, "sort_queries, all below or equal the minimum");
    check_free_functions<std::uint32_t>(ctx(), keys, std::vector<std::uint32_t>(q, ~0u), sort, "sort_queries, all at the type's maximum");
  }
  // Keys narrower than the 16 bucket bits sort fully; 8-byte keys spread over the whole range.
  std::vector<std::uint8_t> bytes(3000);
  for (auto& b : bytes) b = static_cast<std::uint8_t>(random());
  std::sort(bytes.begin(), bytes.end());
  std::vector<std::uint8_t> byte_queries(70001);
  for (auto& b : byte_queries) b = static_cast<std::uint8_t>(random());
  check_free_functions<std::int32_t>(ctx(), bytes, byte_queries, sort, "sort_queries, u8");
  std::vector<std::int64_t> wide(200003);
  for (auto& w : wide) w = static_cast<std::int64_t>(random());
  std::sort(wide.begin(), wide.end());
  std::vector<std::int64_t> wide_queries(300007);
  for (std::size_t i = 0; i < wide_queries.size(); ++i)
    wide_queries[i] = i % 2 ? wide[random() % wide.size()] : static_cast<std::int64_t>(random());
  wide_queries[0] = std::numeric_limits<std::int64_t>::min();
  wide_queries[1] = std::numeric_limits<std::int64_t>::max();
  check_free_functions<std::int64_t>(ctx(), wide, wide_queries, sort, "sort_queries, i64 over the whole range");
}

TEST_F(Search, SortQueriesRejectsKeysWhoseRadixOrderIsNotTheSearchOrder) {
  sluice::device_buffer<float> keys(ctx(), 100), queries(ctx(), 10);
  sluice::device_buffer<std::uint32_t> u_keys(ctx(), 100), u_queries(ctx(), 10);
  sluice::device_buffer<std::int32_t> out(ctx(), 10);
  const sluice::search_options sort{.algorithm = sluice::search_algorithm::sort_queries};
  using sluice::testing::expect_invalid_argument;
  expect_invalid_argument([&] { sluice::lower_bound(ctx(), keys.span(), queries.span(), out.span(), sort); }, "options.algorithm");
  expect_invalid_argument([&] { sluice::lower_bound(ctx(), u_keys.span(), u_queries.span(), out.span(), sort, std::greater<>{}); },
                          "options.algorithm");
}

TEST_F(Search, AutomaticSortsLargeBatchesBeyondTheL2) {
  // The smallest power of two of u32 keys beyond the L2 (2^24 on an H100), Q = n/4 random queries.
  const std::size_t l2 = ctx().properties().l2_cache_bytes;
  const std::size_t n = std::bit_ceil(l2 / sizeof(std::uint32_t) + 1);
  const std::size_t q = std::max<std::size_t>(n / 4, std::size_t{1} << 20);
  namespace search = sluice::detail::search;
  auto automatic_picks = [&](auto key, std::size_t keys, std::size_t queries) {
    return search::chosen_algo<decltype(key), std::less<>>(ctx(), {}, keys, queries);
  };
  const auto sort_queries = sluice::search_algorithm::sort_queries;
  EXPECT_EQ(automatic_picks(std::uint32_t{}, n, q), sort_queries) << "u32, n = " << n << ", Q = " << q;
  EXPECT_EQ(automatic_picks(std::int64_t{}, n, q), sort_queries) << "i64, n = " << n << ", Q = " << q;
  EXPECT_NE(automatic_picks(float{}, n, q), sort_queries) << "float";
  EXPECT_NE(automatic_picks(std::uint32_t{}, n, n / 16), sort_queries) << "Q = n/16";
  EXPECT_NE(automatic_picks(std::uint32_t{}, std::size_t{1} << 16, q), sort_queries) << "keys in the L2";
  if (sluice::testing::under_sanitizer()) GTEST_SKIP() << "n = " << n << " keys: too slow instrumented";
  std::mt19937_64 random(24);
  std::vector<std::uint32_t> keys(n);
  std::uint32_t value = 0;
  for (auto& k : keys) k = value += static_cast<std::uint32_t>(random() % 256);  // sorted, some duplicates
  std::vector<std::uint32_t> queries(q);
  for (auto& v : queries) v = static_cast<std::uint32_t>(random() % (std::uint64_t{value} + 100));
  check_free_functions<std::int32_t>(ctx(), keys, queries, {}, "automatic (sort_queries) beyond the L2");
}

// --- PBS ---

const sluice::pbs_algorithm all_pbs[] = {sluice::pbs_algorithm::pbs, sluice::pbs_algorithm::pbs_cf, sluice::pbs_algorithm::pbs_cl,
                                    sluice::pbs_algorithm::automatic};
std::string describe(sluice::pbs_algorithm a) {
  return a == sluice::pbs_algorithm::pbs ? "pbs" : a == sluice::pbs_algorithm::pbs_cf ? "pbs_cf" : a == sluice::pbs_algorithm::pbs_cl ? "pbs_cl" : "automatic";
}

template <class K>
void check_pbs(sluice::context& ctx, const std::vector<K>& keys, const std::vector<K>& queries, const std::string& label) {
  const auto expected = sluice::reference::predecessor(std::span<const K>(keys), std::span<const K>(queries));
  const sluice::device_buffer<K> d_keys(ctx, std::span<const K>(keys));
  const sluice::device_buffer<K> d_queries(ctx, std::span<const K>(queries));
  for (sluice::pbs_algorithm algo : all_pbs)
    check_call<std::int32_t>(ctx, queries.size(), expected,
                             label + ", " + describe(algo) + ", n = " + std::to_string(keys.size()), [&](auto out) {
                               sluice::pbs_predecessor(ctx, d_keys.span(), d_queries.span(), out, {.algorithm = algo});
                             });
}

TEST_F(PbsPredecessor, RandomQueriesEveryVariant) {
  std::mt19937_64 random(62);
  for (std::size_t n : {0u, 1u, 2u, 31u, 32u, 33u, 1023u, 1024u, 1025u, 4096u, 8192u, 12345u}) {
    const auto keys = u32_keys(n, random, n % 2 ? n / 4 + 2 : std::uint64_t{1} << 32, n == 1025);
    check_pbs(ctx(), keys, u32_queries(keys, random), "u32 random");
  }
  std::vector<float> keys = {-2.0f, -0.0f, 0.0f, 0.0f, 1.0f, 3.5f};
  check_pbs(ctx(), keys, std::vector<float>{-3.0f, -0.0f, 0.0f, 0.5f, 3.5f, 9.0f, std::nanf("")}, "float");
}

TEST_F(PbsPredecessor, AdversarialQueriesEveryVariant) {
  std::mt19937_64 random(621);
  for (std::size_t n : {1024u, 3072u, 8192u}) {
    std::vector<std::uint32_t> keys(n);
    std::uint32_t value = 0;
    for (auto& k : keys) k = value += 1 + static_cast<std::uint32_t>(random() % 100);
    const auto queries = sluice::data::pbs_adversarial_queries(std::span<const std::uint32_t>(keys), std::size_t{1} << 18, n);
    check_pbs(ctx(), keys, queries, "u32 adversarial");
  }
}

TEST_F(PbsPredecessor, KeysBeyondSharedMemoryAreRejected) {
  const std::size_t n = ctx().properties().shared_memory_per_block_optin / sizeof(std::uint32_t) + 1;
  sluice::device_buffer<std::uint32_t> keys(ctx(), n), queries(ctx(), 4);
  sluice::device_buffer<std::int32_t> out(ctx(), 4);
  sluice::testing::expect_invalid_argument(
      [&] { sluice::pbs_predecessor(ctx(), keys.span(), queries.span(), out.span()); }, "sorted_keys");
}

// --- 2^31 + 5 keys ---

__global__ void halves(std::uint32_t* keys, std::uint64_t n) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < n; i += std::uint64_t{gridDim.x} * blockDim.x)
    keys[i] = static_cast<std::uint32_t>(i / 2);
}

TEST_F(SearchIndex, LargeTwoToThe31PlusFiveKeys) {
  if (sluice::testing::under_sanitizer()) GTEST_SKIP() << "2^31 + 5 keys: too slow instrumented";
  const std::uint64_t n = (std::uint64_t{1} << 31) + 5;
  std::size_t free = 0, total = 0;
  SLUICE_CUDA_CHECK(cudaMemGetInfo(&free, &total));
  if (free < 3 * n * sizeof(std::uint32_t) + (std::size_t{1} << 30)) GTEST_SKIP() << "needs about 27 GB of device memory";
  sluice::device_buffer<std::uint32_t> keys(ctx(), n);
  halves<<<1024, 256, 0, ctx().stream()>>>(keys.data(), n);  // keys[i] = i / 2: every value twice
  std::mt19937_64 random(31);
  std::vector<std::uint32_t> queries(std::size_t{1} << 20);
  for (auto& q : queries) q = static_cast<std::uint32_t>(random() % (n / 2 + 8));
  queries[0] = 0;
  queries[1] = static_cast<std::uint32_t>(n / 2);  // the largest key
  expected_answers e;
  for (std::uint32_t q : queries) {
    e.lower.push_back(static_cast<std::int64_t>(std::min<std::uint64_t>(2 * std::uint64_t{q}, n)));
    e.upper.push_back(static_cast<std::int64_t>(std::min<std::uint64_t>(2 * std::uint64_t{q} + 2, n)));
    e.predecessor.push_back(e.upper.back() - 1);
  }
  const sluice::device_buffer<std::uint32_t> d_queries(ctx(), std::span<const std::uint32_t>(queries));
  sluice::device_buffer<std::int32_t> narrow(ctx(), queries.size());
  sluice::testing::expect_invalid_argument(
      [&] { sluice::lower_bound(ctx(), keys.span(), d_queries.span(), narrow.span()); }, "out");
  for (sluice::search_layout layout : all_layouts) {
    const sluice::search_index<std::uint32_t> index(ctx(), keys.span(), layout);
    const std::string what = "n = 2^31 + 5, layout " + describe(layout);
    check_call<std::int64_t>(ctx(), queries.size(), e.lower, what + ", lower_bound",
                             [&](auto out) { index.lower_bound(ctx(), d_queries.span(), out); });
    check_call<std::int64_t>(ctx(), queries.size(), e.predecessor, what + ", predecessor",
                             [&](auto out) { index.predecessor(ctx(), d_queries.span(), out); });
  }
  check_call<std::int64_t>(ctx(), queries.size(), e.lower, "n = 2^31 + 5, sort_queries lower_bound", [&](auto out) {
    sluice::lower_bound(ctx(), keys.span(), d_queries.span(), out, {.algorithm = sluice::search_algorithm::sort_queries});
  });
  std::vector<std::uint32_t> sorted_queries = queries;
  std::sort(sorted_queries.begin(), sorted_queries.end());
  std::vector<std::int64_t> sorted_upper;
  for (std::uint32_t q : sorted_queries) sorted_upper.push_back(static_cast<std::int64_t>(std::min<std::uint64_t>(2 * std::uint64_t{q} + 2, n)));
  const sluice::device_buffer<std::uint32_t> d_sorted(ctx(), std::span<const std::uint32_t>(sorted_queries));
  check_call<std::int64_t>(ctx(), queries.size(), sorted_upper, "n = 2^31 + 5, merge-path upper_bound", [&](auto out) {
    sluice::upper_bound(ctx(), keys.span(), d_sorted.span(), out, {.queries_sorted = true});
  });
}

}  // namespace
