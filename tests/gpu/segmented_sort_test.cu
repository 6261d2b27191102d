// GPU tests of segmented_sort and segmented_sort_pairs (merge_sort.cuh) against
// sluice::reference::segmented_stable_sort_offsets / _pairs_offsets: segment shapes from none at all to
// 10^5 tiny segments around a 2^20 one, every tier limit ± 1 in one call (segments needing 0 to 3 merge
// rounds side by side), offsets that leave keys outside the segments; 1- to 32-byte keys, two-field and
// descending comparators and a lambda; pairs checked for stability (value = input index); poisoned
// outputs, in place, bad arguments, unchecked bad offsets (no write outside the outputs), comparators
// that are no order (a permutation of each segment), and 2^31 + 5 one-byte keys (*Large*).
#include <sluice/data/generate.cuh>
#include <sluice/detail/merge_sort/tuning.hpp>
#include <sluice/merge_sort.cuh>
#include <sluice/reference/sort.hpp>

#include "support/compare.hpp"
#include "support/errors.hpp"
#include "support/gpu_test.hpp"
#include "support/sort_keys.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace {

using sluice::testing::all_equal;
using sluice::testing::gpu_test;
using sluice::testing::pair16;
using sluice::testing::wide32;
using tuning = sluice::detail::merge_sort::tuning;
using offset_vector = std::vector<std::size_t>;
namespace data = sluice::data;

class SegmentedSort : public gpu_test {};

/// The tier limits and the tile for K (detail/merge_sort/tuning.hpp).
template <class K>
struct shape {
  static constexpr std::size_t lanes =
      tuning::segment_lanes * static_cast<std::size_t>(tuning::segment_lanes_items(sizeof(K)));
  static constexpr std::size_t warp = 32 * static_cast<std::size_t>(tuning::segment_warp_items(sizeof(K)));
  static constexpr std::size_t tile =
      tuning::block_threads * static_cast<std::size_t>(tuning::items_per_thread(sizeof(K)));
};

// ---- segment shapes -------------------------------------------------------------------------------------------

/// A case: n keys and the offsets of its segments.
struct layout {
  std::string name;
  std::size_t n;
  offset_vector offsets;
};

/// Offsets of consecutive segments of the given sizes starting at `front` (n = front + Σ sizes + back).
layout consecutive(std::string name, const std::vector<std::size_t>& sizes, std::size_t front = 0,
                   std::size_t back = 0) {
  offset_vector offsets{front};
  for (std::size_t size : sizes) offsets.push_back(offsets.back() + size);
  return {std::move(name), offsets.back() + back, offsets};
}

std::vector<std::size_t> random_sizes(std::size_t count, std::size_t most, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::vector<std::size_t> sizes(count);
  for (auto& size : sizes) size = random() % (most + 1);
  return sizes;
}

std::vector<std::size_t> repeated(std::size_t size, std::size_t count) { return std::vector<std::size_t>(count, size); }

/// Every shape the tiers must handle, for keys K.
template <class K>
std::vector<layout> layouts() {
  using s = shape<K>;
  std::vector<layout> all{
      {"no segments", 1000, {300}},
      {"one empty segment", 1000, {300, 300}},
      {"all segments empty", 1000, {400, 400, 400, 400}},
      {"empty segments between", 1000, {0, 0, 500, 500, 500, 1000}},
      consecutive("many tiny (0..40)", random_sizes(5000, 40, 1)),
      consecutive("size 1", repeated(1, 700)),
      consecutive("size 31", repeated(31, 90)),
      consecutive("size 32", repeated(32, 90)),
      consecutive("size 33", repeated(33, 90)),
      consecutive("lanes limit", {s::lanes - 1, s::lanes, s::lanes + 1, s::lanes, s::lanes - 1}),
      consecutive("warp limit", {s::warp - 1, s::warp, s::warp + 1, s::warp, s::warp + 1}),
      consecutive("tile - 1, tile, tile + 1", {s::tile - 1, s::tile, s::tile + 1, s::tile + 1, s::tile}),
      // 0, 1, 2 and 3 merge rounds side by side: each segment's block sort writes where its last round will.
      consecutive("every tier and round count", {0, 3, s::lanes + 1, s::warp + 1, s::tile, 2 * s::tile - 1, s::tile + 1,
                                                 3 * s::tile, 4 * s::tile + 1, 7, s::warp, 8 * s::tile - 3, 1}),
      consecutive("one huge segment", {std::size_t{100003}}),
      consecutive("offsets inside (copy-through)", random_sizes(300, 3 * s::warp, 2), 77, 123),
      consecutive("offsets inside, few huge", {5 * s::tile + 3, 0, 2 * s::tile + 9}, 4000, 1),
  };
  if (!sluice::testing::under_sanitizer()) {
    all.push_back(consecutive("one segment of 2^20 + 7", {(std::size_t{1} << 20) + 7}));
    // A 2^20 segment among 10^5 tiny ones, at a random place.
    std::vector<std::size_t> mixed = random_sizes(100000, 40, 3);
    mixed[61803] = std::size_t{1} << 20;
    all.push_back(consecutive("2^20 among 10^5 tiny", mixed, 5, 6));
  }
  return all;
}

// ---- keys -----------------------------------------------------------------------------------------------------

/// n keys, uniform or from five values (ties everywhere: stability shows).
template <class K>
std::vector<K> keys_of(std::size_t n, bool few_distinct, std::uint64_t seed) {
  const data::distribution_spec spec = few_distinct
                                           ? data::distribution_spec{data::distribution::few_used, 0, 5, seed}
                                           : data::distribution_spec{data::distribution::uniform, 0, 0.0, seed};
  const auto draws = data::generate_host<std::uint64_t>(n, spec);
  std::vector<K> keys(n);
  for (std::size_t i = 0; i < n; ++i) keys[i] = sluice::testing::make_key<K>(draws[i], i);
  return keys;
}

std::string where(const layout& l, std::size_t key_bytes, const std::string& what) {
  return l.name + ", " + what + ", " + std::to_string(key_bytes) + "-byte keys, n = " + std::to_string(l.n) +
         ", segments = " + std::to_string(l.offsets.size() - 1);
}

// ---- checks ---------------------------------------------------------------------------------------------------

/// Keys out of place (outputs poisoned twice; the input unchanged) and in place, against the oracle.
template <class K, class Less>
void check_keys(sluice::context& ctx, const layout& l, const std::vector<K>& host, const std::string& what, Less less) {
  const sluice::device_buffer<K> keys(ctx, std::span<const K>(host));
  const sluice::device_buffer<std::size_t> offsets(ctx, std::span<const std::size_t>(l.offsets));
  sluice::device_buffer<K> out(ctx, l.n);
  const auto expected = sluice::reference::segmented_stable_sort_offsets(std::span<const K>(host),
                                                                         std::span<const std::size_t>(l.offsets), less);
  const std::string at = where(l, sizeof(K), what);
  for (unsigned char poison : sluice::testing::poison_patterns) {
    out.fill_bytes(poison);
    sluice::segmented_sort(ctx, keys.span(), offsets.span(), out.span(), {}, less);
    ASSERT_TRUE(all_equal(out.to_host(), expected)) << at;
  }
  ASSERT_TRUE(all_equal(keys.to_host(), host)) << at << ": the input changed";
  sluice::device_buffer<K> in_place(ctx, std::span<const K>(host));
  sluice::segmented_sort(ctx, in_place.span(), offsets.span(), in_place.span(), {}, less);
  ASSERT_TRUE(all_equal(in_place.to_host(), expected)) << at << ", in place";
}

/// Pairs with value = input index: equal keys must keep ascending indices within each segment.
template <class K, class Less>
void check_pairs(sluice::context& ctx, const layout& l, const std::vector<K>& host, const std::string& what,
                 Less less) {
  std::vector<std::uint32_t> index(l.n);
  std::iota(index.begin(), index.end(), 0u);
  const sluice::device_buffer<K> keys(ctx, std::span<const K>(host));
  const sluice::device_buffer<std::uint32_t> values(ctx, std::span<const std::uint32_t>(index));
  const sluice::device_buffer<std::size_t> offsets(ctx, std::span<const std::size_t>(l.offsets));
  sluice::device_buffer<K> out(ctx, l.n);
  sluice::device_buffer<std::uint32_t> out_values(ctx, l.n);
  const auto expected = sluice::reference::segmented_stable_sort_pairs_offsets(
      std::span<const K>(host), std::span<const std::uint32_t>(index), std::span<const std::size_t>(l.offsets), less);
  const std::string at = where(l, sizeof(K), what) + ", pairs";
  for (unsigned char poison : sluice::testing::poison_patterns) {
    out.fill_bytes(poison);
    out_values.fill_bytes(poison);
    sluice::segmented_sort_pairs(ctx, keys.span(), values.span(), offsets.span(), out.span(), out_values.span(), {},
                                 less);
    ASSERT_TRUE(all_equal(out.to_host(), expected.keys)) << at << ": keys";
    ASSERT_TRUE(all_equal(out_values.to_host(), expected.values)) << at << ": values (stability)";
  }
  sluice::device_buffer<K> keys_in_place(ctx, std::span<const K>(host));
  sluice::device_buffer<std::uint32_t> values_in_place(ctx, std::span<const std::uint32_t>(index));
  sluice::segmented_sort_pairs(ctx, keys_in_place.span(), values_in_place.span(), offsets.span(), keys_in_place.span(),
                               values_in_place.span(), {}, less);
  ASSERT_TRUE(all_equal(keys_in_place.to_host(), expected.keys)) << at << ", in place: keys";
  ASSERT_TRUE(all_equal(values_in_place.to_host(), expected.values)) << at << ", in place: values";
}

template <class K, class Less = std::less<>>
void sweep(sluice::context& ctx, Less less = {}) {
  for (const layout& l : layouts<K>())
    for (bool few_distinct : {false, true}) {
      const auto host = keys_of<K>(l.n, few_distinct, l.n + l.offsets.size());
      const std::string what = few_distinct ? "few distinct" : "uniform";
      check_keys(ctx, l, host, what, less);
      check_pairs(ctx, l, host, what, less);
    }
}

// ---- sorts ----------------------------------------------------------------------------------------------------

TEST_F(SegmentedSort, OneByteKeys) { sweep<std::uint8_t>(ctx()); }
TEST_F(SegmentedSort, FourByteKeys) { sweep<std::uint32_t>(ctx()); }
TEST_F(SegmentedSort, EightByteKeys) { sweep<std::uint64_t>(ctx()); }
TEST_F(SegmentedSort, SixteenByteStructByTwoFields) { sweep<pair16>(ctx(), sluice::testing::by_a_then_b{}); }
TEST_F(SegmentedSort, ThirtyTwoByteStructByTwoFields) { sweep<wide32>(ctx(), sluice::testing::by_first_and_last{}); }
TEST_F(SegmentedSort, DescendingFourByteKeys) { sweep<std::uint32_t>(ctx(), std::greater<>{}); }

/// An extended lambda needs a public enclosing function (a test body is private).
void sort_by_a_lambda(sluice::context& ctx) {
  const auto low_byte = [] __host__ __device__(std::uint32_t x, std::uint32_t y) { return (x & 0xff) < (y & 0xff); };
  for (const layout& l : layouts<std::uint32_t>())
    check_pairs(ctx, l, keys_of<std::uint32_t>(l.n, false, 9), "lambda: low byte", low_byte);
}

TEST_F(SegmentedSort, LambdaComparator) { sort_by_a_lambda(ctx()); }

TEST_F(SegmentedSort, EmptyKeys) {
  auto& c = ctx();
  sluice::device_buffer<std::uint32_t> keys(c, 0), out(c, 0);
  const offset_vector host_offsets{0, 0, 0};
  const sluice::device_buffer<std::size_t> offsets(c, std::span<const std::size_t>(host_offsets));
  sluice::segmented_sort(c, keys.span(), offsets.span(), out.span());
  sluice::segmented_sort(c, keys.span(), offsets.span(), out.span(), {.validate_offsets = true});
  c.synchronize();
}

// ---- bad input ------------------------------------------------------------------------------------------------

TEST_F(SegmentedSort, BadArguments) {
  auto& c = ctx();
  using sluice::testing::expect_invalid_argument;
  sluice::device_buffer<std::uint32_t> keys(c, 100), out(c, 100), values(c, 100), out_values(c, 100);
  const auto device_offsets = [&](const offset_vector& host) {
    return sluice::device_buffer<std::size_t>(c, std::span<const std::size_t>(host));
  };
  const auto good = device_offsets({0, 50, 100});
  expect_invalid_argument([&] { sluice::segmented_sort(c, keys.span(), good.span(), out.span().first(99)); },
                          "out_keys");
  std::vector<std::uint32_t> host_keys(100);
  expect_invalid_argument(
      [&] { sluice::segmented_sort(c, cuda::std::span<std::uint32_t>(host_keys), good.span(), out.span()); }, "keys");
  const offset_vector host_offsets{0, 100};
  expect_invalid_argument(
      [&] { sluice::segmented_sort(c, keys.span(), cuda::std::span<const std::size_t>(host_offsets), out.span()); },
      "offsets");
  expect_invalid_argument([&] { sluice::segmented_sort(c, keys.span(), good.span().first(0), out.span()); }, "offsets",
                          std::nullopt);
  expect_invalid_argument(
      [&] {
        sluice::segmented_sort_pairs(c, keys.span(), values.span().first(99), good.span(), out.span(),
                                     out_values.span());
      },
      "values");
  expect_invalid_argument(
      [&] {
        sluice::segmented_sort_pairs(c, keys.span(), values.span(), good.span(), out.span(),
                                     out_values.span().first(99));
      },
      "out_values");
  expect_invalid_argument(
      [&] { sluice::segmented_sort(c, keys.span().subspan(1), good.span(), keys.span().first(99)); }, "out_keys");
  // validate_offsets: the first entry that decreases or passes n.
  const sluice::segmented_sort_options validate{.validate_offsets = true};
  const auto decreasing = device_offsets({0, 60, 40, 100});
  expect_invalid_argument([&] { sluice::segmented_sort(c, keys.span(), decreasing.span(), out.span(), validate); },
                          "offsets", 2);
  const auto past_n = device_offsets({0, 50, 101});
  expect_invalid_argument([&] { sluice::segmented_sort(c, keys.span(), past_n.span(), out.span(), validate); },
                          "offsets", 2);
  expect_invalid_argument(
      [&] {
        sluice::segmented_sort_pairs(c, keys.span(), values.span(), decreasing.span(), out.span(), out_values.span(),
                                     validate);
      },
      "offsets", 2);
}

/// Unchecked bad offsets (decreasing, past n, overlapping) give an unspecified order, but nothing is
/// written outside the outputs: they sit inside larger poisoned buffers whose guards must survive.
TEST_F(SegmentedSort, UncheckedBadOffsetsStayInBounds) {
  auto& c = ctx();
  using s = shape<std::uint32_t>;
  const std::size_t n = 6 * s::tile + 11, guard = 4096;
  const std::vector<offset_vector> bad{{n, 0, n, 0, n},  // overlapping copies of the whole array
                                       {5, 3 * s::tile, 2, n + 700, 40, n - 1},  // decreasing and past n
                                       {n + 5, n + 9},                           // past n only
                                       {2 * s::tile, s::warp, 5 * s::tile, 5 * s::tile + 3 * s::lanes, 17}};
  const auto host = keys_of<std::uint32_t>(n, false, 77);
  const sluice::device_buffer<std::uint32_t> keys(c, std::span<const std::uint32_t>(host));
  std::vector<std::uint32_t> index(n);
  std::iota(index.begin(), index.end(), 0u);
  const sluice::device_buffer<std::uint32_t> values(c, std::span<const std::uint32_t>(index));
  for (const offset_vector& o : bad) {
    const sluice::device_buffer<std::size_t> offsets(c, std::span<const std::size_t>(o));
    sluice::device_buffer<std::uint32_t> out(c, n + 2 * guard), out_values(c, n + 2 * guard);
    out.fill_bytes(0xA5);
    out_values.fill_bytes(0xA5);
    sluice::segmented_sort_pairs(c, keys.span(), values.span(), offsets.span(), out.span().subspan(guard, n),
                                 out_values.span().subspan(guard, n));
    const auto got = out.to_host(), got_values = out_values.to_host();
    for (std::size_t i = 0; i < guard; ++i) {
      ASSERT_EQ(got[i], 0xA5A5A5A5u) << "a key written before the output, offsets[0] = " << o[0];
      ASSERT_EQ(got[guard + n + i], 0xA5A5A5A5u) << "a key written after the output, offsets[0] = " << o[0];
      ASSERT_EQ(got_values[i], 0xA5A5A5A5u) << "a value written before the output, offsets[0] = " << o[0];
      ASSERT_EQ(got_values[guard + n + i], 0xA5A5A5A5u) << "a value written after the output, offsets[0] = " << o[0];
    }
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

/// Each segment's output must be a permutation of its input, each value still beside its key, and the
/// keys outside the segments copied through.
TEST_F(SegmentedSort, NonStrictWeakOrdersPermuteEachSegment) {
  auto& c = ctx();
  for (const layout& l : layouts<std::uint32_t>()) {
    const auto host = keys_of<std::uint32_t>(l.n, true, 5);
    std::vector<std::uint32_t> index(l.n);
    std::iota(index.begin(), index.end(), 0u);
    const sluice::device_buffer<std::uint32_t> keys(c, std::span<const std::uint32_t>(host)),
        values(c, std::span<const std::uint32_t>(index));
    const sluice::device_buffer<std::size_t> offsets(c, std::span<const std::size_t>(l.offsets));
    sluice::device_buffer<std::uint32_t> out(c, l.n), out_values(c, l.n);
    out.fill_bytes(0xA5);
    out_values.fill_bytes(0xA5);
    sluice::segmented_sort_pairs(c, keys.span(), values.span(), offsets.span(), out.span(), out_values.span(), {},
                                 hashed_answer{});
    const auto got = out.to_host(), got_values = out_values.to_host();
    const std::string at = where(l, 4, "hashed answers");
    for (std::size_t i = 0; i < l.n; ++i) {
      ASSERT_LT(got_values[i], l.n) << at << ", i = " << i;
      ASSERT_EQ(got[i], host[got_values[i]]) << at << ": a value left its key, i = " << i;
    }
    for (std::size_t s = 0; s + 1 < l.offsets.size(); ++s) {
      std::vector<std::uint32_t> piece(got_values.begin() + static_cast<std::ptrdiff_t>(l.offsets[s]),
                                       got_values.begin() + static_cast<std::ptrdiff_t>(l.offsets[s + 1]));
      std::sort(piece.begin(), piece.end());
      for (std::size_t k = 0; k < piece.size(); ++k)
        ASSERT_EQ(piece[k], l.offsets[s] + k) << at << ": segment " << s << " is not a permutation of itself";
    }
    for (std::size_t i = 0; i < l.offsets.front(); ++i) ASSERT_EQ(got_values[i], i) << at << ": outside, i = " << i;
    for (std::size_t i = l.offsets.back(); i < l.n; ++i) ASSERT_EQ(got_values[i], i) << at << ": outside, i = " << i;
  }
}

// ---- 2^31 + 5 keys ------------------------------------------------------------------------------------------

/// counts[r·256 + k]: keys equal to k in region r (0: outside, 1 + s: segment s); unsorted[0]: neighbours
/// of one segment out of order. Regions by the bounds [b0, b1, b2, b3): outside before b0 and from b3.
/// Each block counts in shared memory and adds its counts once.
__global__ void audit_kernel(const std::uint8_t* keys, std::uint64_t n, std::uint64_t b0, std::uint64_t b1,
                             std::uint64_t b2, std::uint64_t b3, bool check_order, unsigned long long* counts,
                             unsigned long long* unsorted) {
  __shared__ unsigned long long block_counts[4 * 256];
  for (int k = static_cast<int>(threadIdx.x); k < 4 * 256; k += static_cast<int>(blockDim.x)) block_counts[k] = 0;
  __syncthreads();
  unsigned long long bad = 0;
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    const int region = i < b0 || i >= b3 ? 0 : i < b1 ? 1 : i < b2 ? 2 : 3;
    atomicAdd(block_counts + region * 256 + keys[i], 1ull);
    const bool same_segment = region != 0 && i + 1 < b3 && i + 1 != b1 && i + 1 != b2;
    if (check_order && same_segment && keys[i + 1] < keys[i]) ++bad;
  }
  __syncthreads();
  for (int k = static_cast<int>(threadIdx.x); k < 4 * 256; k += static_cast<int>(blockDim.x))
    if (block_counts[k] != 0) atomicAdd(counts + k, block_counts[k]);
  atomicAdd(unsorted, bad);
}

TEST_F(SegmentedSort, LargeTwoToThe31PlusFiveOneByteKeys) {
  if (sluice::testing::under_sanitizer()) GTEST_SKIP() << "2^31 + 5 keys: too slow instrumented";
  const std::size_t n = (std::size_t{1} << 31) + 5;
  std::size_t free = 0, total = 0;
  SLUICE_CUDA_CHECK(cudaMemGetInfo(&free, &total));
  if (free < 3 * n + (std::size_t{1} << 30))
    GTEST_SKIP() << "needs " << 3 * n / (1u << 20) << " MiB (keys, out, temporary); " << free / (1u << 20) << " free";
  auto& c = ctx();
  // Outside [3, n − 2): a segment past 2^30 keys, a small one, and one past 2^31 − 2^30 (64-bit offsets).
  const offset_vector host_offsets{3, (std::size_t{1} << 30) + 1, (std::size_t{1} << 30) + 1001, n - 2};
  const sluice::device_buffer<std::size_t> offsets(c, std::span<const std::size_t>(host_offsets));
  sluice::device_buffer<std::uint8_t> keys(c, n), out(c, n);
  data::generate(c, keys.span(), {data::distribution::uniform, 0, 0.0, 31});
  const auto audit = [&](const sluice::device_buffer<std::uint8_t>& of, bool check_order) {
    sluice::device_buffer<unsigned long long> counts(c, 4 * 256), unsorted(c, 1);
    counts.fill_bytes(0);
    unsorted.fill_bytes(0);
    audit_kernel<<<1024, 256, 0, c.stream()>>>(of.data(), n, host_offsets[0], host_offsets[1], host_offsets[2],
                                               host_offsets[3], check_order, counts.data(), unsorted.data());
    SLUICE_CHECK_LAUNCH();
    auto result = counts.to_host();
    result.push_back(unsorted.to_host()[0]);
    return result;
  };
  const auto before = audit(keys, false);
  out.fill_bytes(0xA5);
  sluice::segmented_sort(c, keys.span(), offsets.span(), out.span());
  const auto after = audit(out, true);
  EXPECT_EQ(after.back(), 0u) << "neighbours of one segment out of order";
  for (std::size_t k = 0; k < 4 * 256; ++k)
    ASSERT_EQ(after[k], before[k]) << "region " << k / 256 << ", key " << k % 256;
  // The keys outside, position by position: three before offsets.front(), two after offsets.back().
  c.synchronize();
  for (std::size_t at : {std::size_t{0}, std::size_t{1}, std::size_t{2}, n - 2, n - 1}) {
    std::uint8_t in = 0, got = 0;
    SLUICE_CUDA_CHECK(cudaMemcpy(&in, keys.data() + at, 1, cudaMemcpyDeviceToHost));
    SLUICE_CUDA_CHECK(cudaMemcpy(&got, out.data() + at, 1, cudaMemcpyDeviceToHost));
    EXPECT_EQ(got, in) << "position " << at << " (outside the segments) was not copied through";
  }
}

}  // namespace
