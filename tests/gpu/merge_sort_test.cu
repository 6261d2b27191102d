// GPU tests of merge_sort.cuh (Karsin ch. 7) against sluice::reference (std::stable_sort, the stable
// merge): every strategy, every compiled E, sizes around the tile and round boundaries, distributions
// from all-equal to the conflict-heavy permutation, 1- to 32-byte keys, pairs checked for stability
// (value = input index), custom comparators (descending, struct fields, a lambda), in place, bad
// arguments, comparators that are not strict weak orders (a permutation, never a crash), NaN keys, and
// 2^31 + 5 keys (*Large*).
#include <sluice/data/generate.cuh>
#include <sluice/data/merge_conflicts.cuh>
#include <sluice/detail/merge_sort/tuning.hpp>
#include <sluice/merge_sort.cuh>
#include <sluice/reference/merge.hpp>
#include <sluice/reference/sort.hpp>

#include "support/compare.hpp"
#include "support/errors.hpp"
#include "support/gpu_test.hpp"
#include "support/sort_keys.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

namespace {

using sluice::merge_sort_algorithm;
using sluice::testing::all_equal;
using sluice::testing::gpu_test;
using tuning = sluice::detail::merge_sort::tuning;
namespace data = sluice::data;

class MergeSort : public gpu_test {};
class Merge : public gpu_test {};

/// The tile of the pairwise strategy for K at the tuned E.
template <class K>
std::size_t tile_of() {
  return static_cast<std::size_t>(tuning::block_threads) * static_cast<std::size_t>(tuning::items_per_thread(sizeof(K)));
}

/// 0, 1, 2, 31, 32, 33, tile ± 1, 2·tile ± 1, 4·tile + 1 (three rounds), non-powers of two, 100003,
/// 2^20 + 7; without those above the sanitizer cap when instrumented.
template <class K>
std::vector<std::size_t> sizes() {
  const std::size_t tile = tile_of<K>();
  const std::size_t all[] = {0,        1,        2,        31,        32,     33,     tile - 1, tile, tile + 1,
                             2 * tile - 1, 2 * tile + 1, 4 * tile + 1, 3000, 77777, 100003, (std::size_t{1} << 20) + 7};
  return sluice::testing::sweep_sizes(all);
}

enum class input { all_equal, sorted, reverse, few_distinct, uniform, conflict_heavy };
const input every_input[] = {input::all_equal,    input::sorted,  input::reverse,
                             input::few_distinct, input::uniform, input::conflict_heavy};

std::string to_string(input kind) {
  switch (kind) {
    case input::all_equal: return "all equal";
    case input::sorted: return "sorted";
    case input::reverse: return "reverse";
    case input::few_distinct: return "few distinct";
    case input::uniform: return "uniform";
    case input::conflict_heavy: return "conflict-heavy";
  }
  return "?";
}

/// n 64-bit draws of `kind` (conflict-heavy: the permutation attacking the tuned E of `key_bytes` keys).
std::vector<std::uint64_t> draws(input kind, std::size_t n, std::size_t key_bytes, std::uint64_t seed) {
  const auto spec = [&](data::distribution d, double parameter = 0.0) {
    return data::distribution_spec{d, 0, parameter, seed};
  };
  switch (kind) {
    case input::all_equal: return data::generate_host<std::uint64_t>(n, spec(data::distribution::all_equal));
    case input::sorted: return data::generate_host<std::uint64_t>(n, spec(data::distribution::sorted));
    case input::reverse: return data::generate_host<std::uint64_t>(n, spec(data::distribution::reverse));
    case input::few_distinct: return data::generate_host<std::uint64_t>(n, spec(data::distribution::few_used, 5));
    case input::uniform: return data::generate_host<std::uint64_t>(n, spec(data::distribution::uniform));
    case input::conflict_heavy: {
      const int period = static_cast<int>(128 / std::max<std::size_t>(key_bytes, 4));
      return data::generate_merge_conflicts_host<std::uint64_t>(n, {tuning::items_per_thread(key_bytes), period});
    }
  }
  return {};
}

// ---- key types (tests/support/sort_keys.hpp) ---------------------------------------------------------------

using sluice::testing::by_a_then_b;
using sluice::testing::by_first_and_last;
using sluice::testing::make_key;
using sluice::testing::pair16;
using sluice::testing::wide32;

/// Draws that keep their order as keys: conflict-heavy ranks and staircases must stay distinct
/// after make_key's shifts, so small draws are spread over the key's significant bits.
template <class K>
std::vector<K> keys_of(input kind, std::size_t n, std::uint64_t seed) {
  std::vector<std::uint64_t> d = draws(kind, n, sizeof(K), seed);
  if (kind == input::conflict_heavy) {
    const std::uint64_t size = std::max<std::uint64_t>(data::merge_conflict_size(n, {tuning::items_per_thread(sizeof(K)), 32}), 1);
    for (auto& x : d) x = static_cast<std::uint64_t>((static_cast<sluice::uint128_t>(x) << 64) / size);
  }
  std::vector<K> keys(n);
  for (std::size_t i = 0; i < n; ++i) keys[i] = make_key<K>(d[i], i);
  return keys;
}

// ---- checks ---------------------------------------------------------------------------------------------------

std::string describe(merge_sort_algorithm algorithm, int items) {
  return std::string(sluice::to_string(algorithm)) + (items ? ", E = " + std::to_string(items) : std::string());
}

/// Sorts `host` (out of place, the input checked unchanged, and in place) against std::stable_sort.
template <class K, class Less = std::less<>>
void check_sort(sluice::context& ctx, const std::vector<K>& host, sluice::merge_sort_options options,
                const std::string& what, Less less = {}) {
  const std::span<const K> view(host);
  const sluice::device_buffer<K> keys(ctx, view);
  sluice::device_buffer<K> out(ctx, host.size());
  const auto expected = sluice::reference::stable_sort(view, less);
  const std::string where = what + ", " + describe(options.algorithm, options.items_per_thread) + ", " +
                            std::to_string(sizeof(K)) + "-byte keys, n = " + std::to_string(host.size());
  for (unsigned char poison : sluice::testing::poison_patterns) {
    out.fill_bytes(poison);
    sluice::merge_sort(ctx, keys.span(), out.span(), options, less);
    ASSERT_TRUE(all_equal(out.to_host(), expected)) << where;
  }
  ASSERT_TRUE(all_equal(keys.to_host(), host)) << where << ": the input changed";
  sluice::device_buffer<K> in_place(ctx, view);
  sluice::merge_sort(ctx, in_place.span(), in_place.span(), options, less);
  ASSERT_TRUE(all_equal(in_place.to_host(), expected)) << where << ", in place";
}

/// Sorts (keys, input index) pairs: the values prove stability (equal keys keep ascending indices).
template <class K, class Less = std::less<>>
void check_sort_pairs(sluice::context& ctx, const std::vector<K>& host, sluice::merge_sort_options options,
                      const std::string& what, Less less = {}) {
  std::vector<std::uint32_t> index(host.size());
  std::iota(index.begin(), index.end(), 0u);
  const sluice::device_buffer<K> keys(ctx, std::span<const K>(host));
  const sluice::device_buffer<std::uint32_t> values(ctx, std::span<const std::uint32_t>(index));
  sluice::device_buffer<K> out(ctx, host.size());
  sluice::device_buffer<std::uint32_t> out_values(ctx, host.size());
  const auto expected = sluice::reference::merge_sort_pairs(std::span<const K>(host), std::span<const std::uint32_t>(index), less);
  const std::string where = what + ", pairs, " + describe(options.algorithm, options.items_per_thread) + ", " +
                            std::to_string(sizeof(K)) + "-byte keys, n = " + std::to_string(host.size());
  for (unsigned char poison : sluice::testing::poison_patterns) {
    out.fill_bytes(poison);
    out_values.fill_bytes(poison);
    sluice::merge_sort_pairs(ctx, keys.span(), values.span(), out.span(), out_values.span(), options, less);
    ASSERT_TRUE(all_equal(out.to_host(), expected.keys)) << where << ": keys";
    ASSERT_TRUE(all_equal(out_values.to_host(), expected.values)) << where << ": values (stability)";
  }
  sluice::device_buffer<K> keys_in_place(ctx, std::span<const K>(host));
  sluice::device_buffer<std::uint32_t> values_in_place(ctx, std::span<const std::uint32_t>(index));
  sluice::merge_sort_pairs(ctx, keys_in_place.span(), values_in_place.span(), keys_in_place.span(),
                           values_in_place.span(), options, less);
  ASSERT_TRUE(all_equal(keys_in_place.to_host(), expected.keys)) << where << ", in place: keys";
  ASSERT_TRUE(all_equal(values_in_place.to_host(), expected.values)) << where << ", in place: values";
}

template <class K, class Less = std::less<>>
void sweep(sluice::context& ctx, sluice::merge_sort_options options, Less less = {}) {
  for (std::size_t n : sizes<K>())
    for (input kind : every_input) {
      const auto keys = keys_of<K>(kind, n, n + 3);
      check_sort(ctx, keys, options, to_string(kind), less);
      check_sort_pairs(ctx, keys, options, to_string(kind), less);
    }
}

const sluice::merge_sort_options pairwise{.algorithm = merge_sort_algorithm::pairwise};

// ---- merge_sort ------------------------------------------------------------------------------------------------

TEST_F(MergeSort, PairwiseOneByteKeys) { sweep<std::uint8_t>(ctx(), pairwise); }
TEST_F(MergeSort, PairwiseFourByteKeys) { sweep<std::uint32_t>(ctx(), pairwise); }
TEST_F(MergeSort, PairwiseEightByteKeys) { sweep<std::uint64_t>(ctx(), pairwise); }
TEST_F(MergeSort, PairwiseSixteenByteStructByTwoFields) { sweep<pair16>(ctx(), pairwise, by_a_then_b{}); }
TEST_F(MergeSort, PairwiseThirtyTwoByteStructByTwoFields) { sweep<wide32>(ctx(), pairwise, by_first_and_last{}); }

TEST_F(MergeSort, AutomaticAndRadixOnIntegralKeys) {
  for (auto algorithm : {merge_sort_algorithm::automatic, merge_sort_algorithm::radix}) {
    sweep<std::uint32_t>(ctx(), {.algorithm = algorithm});
    sweep<std::uint64_t>(ctx(), {.algorithm = algorithm}, std::greater<>{});
    sweep<std::uint8_t>(ctx(), {.algorithm = algorithm}, std::less<std::uint8_t>{});
  }
}

TEST_F(MergeSort, AutomaticOnStructsIsPairwise) { sweep<pair16>(ctx(), {}, by_a_then_b{}); }

TEST_F(MergeSort, EveryCompiledItemsPerThread) {
  for (int e : tuning::compiled_items)
    for (std::size_t n : sluice::testing::sweep_sizes(std::vector<std::size_t>{1, 33, 256u * static_cast<unsigned>(e) + 1, 100003}))
      for (input kind : {input::uniform, input::few_distinct, input::conflict_heavy}) {
        const sluice::merge_sort_options options{.algorithm = merge_sort_algorithm::pairwise, .items_per_thread = e};
        const auto keys = keys_of<std::uint32_t>(kind, n, n + 11);
        check_sort(ctx(), keys, options, to_string(kind));
        check_sort_pairs(ctx(), keys, options, to_string(kind));
      }
}

TEST_F(MergeSort, DescendingPairwise) {
  for (std::size_t n : sizes<std::uint32_t>()) {
    const auto keys = keys_of<std::uint32_t>(input::few_distinct, n, n);
    check_sort_pairs(ctx(), keys, pairwise, "few distinct, greater", std::greater<>{});
  }
}

/// Signed keys and doubles: automatic sorts the doubles by merging (never radix), signed zeros in
/// input order as std::stable_sort keeps them.
TEST_F(MergeSort, SignedKeysAndDoubles) {
  for (std::size_t n : sizes<double>()) {
    auto ints = data::generate_host<std::int32_t>(n, {data::distribution::uniform, 0, 0.0, n + 4});
    check_sort(ctx(), ints, {}, "i32");
    std::vector<double> doubles = data::generate_host<double>(n, {data::distribution::uniform, 16, 0.0, n + 5});
    for (std::size_t i = 0; i < n; ++i) {
      if (i % 3 == 0) doubles[i] = i % 2 ? -0.0 : 0.0;
      else if (i % 3 == 1) doubles[i] = -doubles[i];
    }
    const sluice::device_buffer<double> keys(ctx(), std::span<const double>(doubles));
    sluice::device_buffer<double> out(ctx(), n);
    sluice::merge_sort(ctx(), keys.span(), out.span());
    const auto expected = sluice::reference::stable_sort(std::span<const double>(doubles));
    const auto got = out.to_host();
    ASSERT_EQ(std::memcmp(got.data(), expected.data(), n * sizeof(double)), 0) << "signed zeros, n = " << n;
  }
}

struct by_key_field {
  __host__ __device__ bool operator()(const pair16& x, const pair16& y) const { return x.b % 1000 < y.b % 1000; }
};

/// An extended lambda needs a public enclosing function (a test body is private).
void sort_by_a_lambda(sluice::context& ctx, std::size_t n) {
  const auto low_byte = [] __host__ __device__(std::uint32_t x, std::uint32_t y) { return (x & 0xff) < (y & 0xff); };
  check_sort_pairs(ctx, keys_of<std::uint32_t>(input::uniform, n, n + 8), {}, "lambda: low byte", low_byte);
}

TEST_F(MergeSort, CustomComparators) {
  for (std::size_t n : sizes<pair16>()) {
    check_sort_pairs(ctx(), keys_of<pair16>(input::uniform, n, n + 7), {}, "struct field b % 1000", by_key_field{});
    sort_by_a_lambda(ctx(), n);
  }
}

/// A comparator that is no order: a hash of both keys decides.
struct hashed_answer {
  __host__ __device__ bool operator()(std::uint32_t x, std::uint32_t y) const {
    std::uint64_t h = (std::uint64_t{x} << 32 | y) * 0x9e3779b97f4a7c15ull;
    h ^= h >> 29;
    return (h & 1) != 0;
  }
};

/// The output must be a permutation of the input, and (for a given input) the same every time.
template <class K, class Less>
void expect_permutation(sluice::context& ctx, const std::vector<K>& host, Less less, const std::string& what) {
  const sluice::device_buffer<K> keys(ctx, std::span<const K>(host));
  sluice::device_buffer<K> out(ctx, host.size()), again(ctx, host.size());
  std::vector<std::uint32_t> index(host.size());
  std::iota(index.begin(), index.end(), 0u);
  const sluice::device_buffer<std::uint32_t> values(ctx, std::span<const std::uint32_t>(index));
  sluice::device_buffer<std::uint32_t> out_values(ctx, host.size());
  out.fill_bytes(0xA5);
  sluice::merge_sort(ctx, keys.span(), out.span(), pairwise, less);
  sluice::merge_sort(ctx, keys.span(), again.span(), pairwise, less);
  sluice::merge_sort_pairs(ctx, keys.span(), values.span(), again.span(), out_values.span(), pairwise, less);
  auto got = out.to_host();
  EXPECT_EQ(std::memcmp(got.data(), again.to_host().data(), host.size() * sizeof(K)), 0)
      << what << ": not deterministic, n = " << host.size();
  auto moved = out_values.to_host();
  std::sort(moved.begin(), moved.end());
  ASSERT_TRUE(all_equal(moved, index)) << what << ": the values are not a permutation, n = " << host.size();
  auto sorted_got = got;
  auto sorted_host = host;
  const auto bits_less = [](const K& x, const K& y) { return std::memcmp(&x, &y, sizeof(K)) < 0; };
  std::sort(sorted_got.begin(), sorted_got.end(), bits_less);
  std::sort(sorted_host.begin(), sorted_host.end(), bits_less);
  ASSERT_EQ(std::memcmp(sorted_got.data(), sorted_host.data(), host.size() * sizeof(K)), 0)
      << what << ": not a permutation of the input, n = " << host.size();
}

TEST_F(MergeSort, NonStrictWeakOrdersGiveAPermutation) {
  for (std::size_t n : sizes<std::uint32_t>())
    for (input kind : {input::uniform, input::few_distinct, input::sorted}) {
      const auto keys = keys_of<std::uint32_t>(kind, n, n + 9);
      expect_permutation(ctx(), keys, hashed_answer{}, "hashed answers, " + to_string(kind));
      expect_permutation(ctx(), keys, std::less_equal<>{}, "<=, " + to_string(kind));
    }
}

/// NaN under <: equal to everything, so no order; documented as a deterministic permutation.
TEST_F(MergeSort, NanKeysGiveADeterministicPermutation) {
  for (std::size_t n : sizes<float>()) {
    auto keys = data::generate_host<float>(n, {data::distribution::uniform, 0, 0.0, n + 10});
    for (std::size_t i = 0; i < n; i += 7) keys[i] = std::numeric_limits<float>::quiet_NaN();
    expect_permutation(ctx(), keys, std::less<>{}, "NaN floats");
  }
}

TEST_F(MergeSort, BadArguments) {
  auto& c = ctx();
  sluice::device_buffer<std::uint32_t> keys(c, 1000), out(c, 999), values(c, 1000), out_values(c, 1000);
  sluice::device_buffer<float> floats(c, 1000);
  using sluice::testing::expect_invalid_argument;
  expect_invalid_argument([&] { sluice::merge_sort(c, keys.span(), out.span()); }, "out_keys");
  expect_invalid_argument([&] { sluice::merge_sort(c, keys.span().subspan(1), keys.span().first(999)); }, "out_keys");
  std::vector<std::uint32_t> host(1000);
  expect_invalid_argument([&] { sluice::merge_sort(c, cuda::std::span<std::uint32_t>(host), keys.span()); }, "keys");
  expect_invalid_argument(
      [&] { sluice::merge_sort(c, floats.span(), floats.span(), {.algorithm = merge_sort_algorithm::radix}); },
      "options.algorithm");
  expect_invalid_argument(
      [&] {
        sluice::merge_sort(c, keys.span(), keys.span(), {.algorithm = merge_sort_algorithm::radix}, hashed_answer{});
      },
      "options.algorithm");
  expect_invalid_argument(
      [&] { sluice::merge_sort(c, keys.span(), keys.span(), {.algorithm = merge_sort_algorithm::pairwise, .items_per_thread = 13}); },
      "options.items_per_thread");
  expect_invalid_argument(
      [&] { sluice::merge_sort_pairs(c, keys.span(), values.span(), keys.span(), values.span().first(999)); },
      "out_values");
  expect_invalid_argument(
      [&] { sluice::merge_sort_pairs(c, keys.span(), values.span(), values.span(), out_values.span()); }, "out_keys");
  sluice::device_buffer<std::uint32_t> shared_values(c, 2000);
  expect_invalid_argument(
      [&] {
        sluice::merge_sort_pairs(c, keys.span(), shared_values.span().first(1000), keys.span(),
                                 shared_values.span().subspan(1, 1000));
      },
      "out_values");
}

// ---- merge -----------------------------------------------------------------------------------------------------

/// A key tagged with its side and position, ordered by key only: the merge's tie rule shows.
struct tagged {
  std::uint32_t key;
  std::uint32_t tag;
  friend bool operator==(const tagged&, const tagged&) = default;
};
struct by_key {
  __host__ __device__ bool operator()(const tagged& x, const tagged& y) const { return x.key < y.key; }
};

std::vector<tagged> sorted_tagged(std::size_t n, std::uint64_t range, std::uint64_t seed, std::uint32_t side) {
  const auto keys = data::generate_host<std::uint32_t>(n, {data::distribution::uniform, range, 0.0, seed});
  std::vector<tagged> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = {keys[i], 0};
  std::stable_sort(out.begin(), out.end(), by_key{});
  for (std::size_t i = 0; i < n; ++i) out[i].tag = side << 31 | static_cast<std::uint32_t>(i);
  return out;
}

TEST_F(Merge, StableAgainstTheReference) {
  const std::size_t tile = tile_of<tagged>();
  const std::size_t lengths[] = {0, 1, 2, 31, 33, tile - 1, tile + 1, 3 * tile, 100003};
  for (std::size_t na : sluice::testing::sweep_sizes(lengths))
    for (std::size_t nb : sluice::testing::sweep_sizes(lengths))
      for (std::uint64_t range : {std::uint64_t{1}, std::uint64_t{7}, std::uint64_t{0}}) {
        const auto a = sorted_tagged(na, range, na + 1, 0), b = sorted_tagged(nb, range, nb + 2, 1);
        const auto expected = sluice::reference::merge(std::span<const tagged>(a), std::span<const tagged>(b), by_key{});
        const sluice::device_buffer<tagged> d_a(ctx(), std::span<const tagged>(a)), d_b(ctx(), std::span<const tagged>(b));
        sluice::device_buffer<tagged> out(ctx(), na + nb);
        const std::string where = "na = " + std::to_string(na) + ", nb = " + std::to_string(nb) +
                                  ", range = " + std::to_string(range);
        for (unsigned char poison : sluice::testing::poison_patterns) {
          out.fill_bytes(poison);
          sluice::merge(ctx(), d_a.span(), d_b.span(), out.span(), by_key{});
          ASSERT_TRUE(all_equal(out.to_host(), expected)) << where;
        }
        // The same merge with the tags as values beside u32 keys.
        std::vector<std::uint32_t> ka(na), va(na), kb(nb), vb(nb);
        for (std::size_t i = 0; i < na; ++i) ka[i] = a[i].key, va[i] = a[i].tag;
        for (std::size_t i = 0; i < nb; ++i) kb[i] = b[i].key, vb[i] = b[i].tag;
        const sluice::device_buffer<std::uint32_t> dka(ctx(), std::span<const std::uint32_t>(ka)),
            dva(ctx(), std::span<const std::uint32_t>(va)), dkb(ctx(), std::span<const std::uint32_t>(kb)),
            dvb(ctx(), std::span<const std::uint32_t>(vb));
        sluice::device_buffer<std::uint32_t> ok(ctx(), na + nb), ov(ctx(), na + nb);
        ok.fill_bytes(0xA5);
        ov.fill_bytes(0xA5);
        sluice::merge_pairs(ctx(), dka.span(), dva.span(), dkb.span(), dvb.span(), ok.span(), ov.span());
        const auto keys = ok.to_host(), tags = ov.to_host();
        for (std::size_t i = 0; i < na + nb; ++i) {
          ASSERT_EQ(keys[i], expected[i].key) << where << ", pairs, i = " << i;
          ASSERT_EQ(tags[i], expected[i].tag) << where << ", pairs, i = " << i;
        }
      }
}

TEST_F(Merge, NonStrictWeakOrderGivesAPermutation) {
  const auto a = keys_of<std::uint32_t>(input::uniform, 50001, 1), b = keys_of<std::uint32_t>(input::uniform, 30011, 2);
  const sluice::device_buffer<std::uint32_t> d_a(ctx(), std::span<const std::uint32_t>(a)),
      d_b(ctx(), std::span<const std::uint32_t>(b));
  sluice::device_buffer<std::uint32_t> out(ctx(), a.size() + b.size());
  sluice::merge(ctx(), d_a.span(), d_b.span(), out.span(), hashed_answer{});
  auto got = out.to_host();
  std::vector<std::uint32_t> expected(a);
  expected.insert(expected.end(), b.begin(), b.end());
  std::sort(got.begin(), got.end());
  std::sort(expected.begin(), expected.end());
  ASSERT_TRUE(all_equal(got, expected));
}

TEST_F(Merge, BadArguments) {
  auto& c = ctx();
  sluice::device_buffer<std::uint32_t> a(c, 100), b(c, 50), out(c, 150), values(c, 150);
  using sluice::testing::expect_invalid_argument;
  expect_invalid_argument([&] { sluice::merge(c, a.span(), b.span(), out.span().first(149)); }, "out");
  expect_invalid_argument([&] { sluice::merge(c, out.span().first(100), b.span(), out.span()); }, "out");
  expect_invalid_argument(
      [&] {
        sluice::merge_pairs(c, a.span(), values.span().first(99), b.span(), values.span().subspan(100),
                            out.span(), values.span());
      },
      "a_values");
}

// ---- 2^31 + 5 keys ------------------------------------------------------------------------------------------------

/// counts[0]: neighbours out of order; counts[1 + j]: keys equal to probe[j]; counts[4]: the keys' sum.
__global__ void audit_kernel(const std::uint32_t* keys, std::uint64_t n, bool check_order, std::uint32_t p0,
                             std::uint32_t p1, std::uint32_t p2, unsigned long long* counts) {
  unsigned long long unsorted = 0, c0 = 0, c1 = 0, c2 = 0, sum = 0;
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    const std::uint32_t k = keys[i];
    if (check_order && i + 1 < n && keys[i + 1] < k) ++unsorted;
    c0 += k == p0;
    c1 += k == p1;
    c2 += k == p2;
    sum += k;
  }
  atomicAdd(counts + 0, unsorted);
  atomicAdd(counts + 1, c0);
  atomicAdd(counts + 2, c1);
  atomicAdd(counts + 3, c2);
  atomicAdd(counts + 4, sum);
}

std::vector<unsigned long long> audit(sluice::context& ctx, const sluice::device_buffer<std::uint32_t>& keys,
                                      bool check_order) {
  sluice::device_buffer<unsigned long long> counts(ctx, 5);
  counts.fill_bytes(0);
  audit_kernel<<<1024, 256, 0, ctx.stream()>>>(keys.data(), keys.size(), check_order, 7, 123456, 1u << 19, counts.data());
  SLUICE_CHECK_LAUNCH();
  return counts.to_host();
}

TEST_F(MergeSort, LargePairwiseTwoToThe31PlusFive) {
  if (sluice::testing::under_sanitizer()) GTEST_SKIP() << "2^31 + 5 keys: too slow instrumented";
  const std::size_t n = (std::size_t{1} << 31) + 5;
  std::size_t free = 0, total = 0;
  SLUICE_CUDA_CHECK(cudaMemGetInfo(&free, &total));
  if (free < 3 * n * sizeof(std::uint32_t) + (std::size_t{1} << 30))
    GTEST_SKIP() << "needs " << 3 * n * 4 / (1u << 20) << " MiB (keys, out, temporary); " << free / (1u << 20) << " free";
  auto& c = ctx();
  sluice::device_buffer<std::uint32_t> keys(c, n), out(c, n);
  data::generate(c, keys.span(), {data::distribution::uniform, std::uint64_t{1} << 20, 0.0, 31});
  const auto before = audit(c, keys, false);
  sluice::merge_sort(c, keys.span(), out.span(), pairwise);
  const auto after = audit(c, out, true);
  EXPECT_EQ(after[0], 0u) << "neighbours out of order";
  for (int j = 1; j < 5; ++j) EXPECT_EQ(after[static_cast<std::size_t>(j)], before[static_cast<std::size_t>(j)]) << "audit " << j;
  EXPECT_GT(before[1], 0u);
}

}  // namespace
