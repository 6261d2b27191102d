// GPU tests of GPU-MMS (detail/merge_sort/gpu_mms.cuh, Karsin §7.3), called directly until the public
// merge_sort dispatches to it, against sluice::reference::stable_sort: every K in {2, 4, 8, 16, 32} at
// sizes around every tile, group and round boundary; u32 (untagged), u64, i64 under greater, float with
// signed zeros (tagged: stable), a 16-byte struct under a two-field comparator and a 32-byte struct;
// pairs with value = input index (stability); all-equal, sorted, reverse and few distinct keys; in
// place; a comparator that is not a strict weak order (a permutation, nothing out of bounds); 2^24 keys
// and 2^31 + 5 keys (*Large*). Outputs are poisoned before every run; failures name n, type and K.
#include <sluice/data/generate.cuh>
#include <sluice/detail/merge_sort/gpu_mms_plan.hpp>
#include <sluice/detail/merge_sort/tuning.hpp>
#include <sluice/merge_sort.cuh>
#include <sluice/host/radix_sort.hpp>
#include <sluice/reference/sort.hpp>

#include "support/compare.hpp"
#include "support/gpu_test.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace {

using sluice::testing::all_equal;
using sluice::testing::gpu_test;
namespace mms = sluice::detail::merge_sort::gpu_mms;

/// The public entry points' options for GPU-MMS with K = ways (0: the tuning table's).
sluice::merge_sort_options gpu_mms(int ways) {
  return {.algorithm = sluice::merge_sort_algorithm::gpu_mms, .ways = ways};
}

class GpuMms : public gpu_test {};

const int every_ways[] = {2, 4, 8, 16, 32};

/// 0, 1, around a warp and a tile, K·w² ± 1 and K²·w² ± 1 (one to three rounds), 100003 and 2^20 + 7.
std::vector<std::size_t> sizes_for(int ways) {
  const std::size_t k = static_cast<std::size_t>(ways), t = mms::tile_items;
  std::vector<std::size_t> all{0, 1, 2, 31, 32, 33, t - 1, t, t + 1, k * t - 1, k * t + 1, k * k * t - 1, k * k * t + 1, 100003,
                               (std::size_t{1} << 20) + 7};
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  return sluice::testing::sweep_sizes(all);
}

struct wide16 {  // 16 bytes, ordered by (major, minor); `payload` tells equal keys apart
  std::uint32_t major, minor;
  std::uint64_t payload;
  bool operator==(const wide16&) const = default;
};
struct by_major_minor {
  __host__ __device__ bool operator()(const wide16& a, const wide16& b) const {
    return a.major != b.major ? a.major < b.major : a.minor < b.minor;
  }
};
struct wide32 {  // 32 bytes, ordered by its first word only
  std::uint32_t word[8];
  bool operator==(const wide32&) const = default;
};
struct by_first_word {
  __host__ __device__ bool operator()(const wide32& a, const wide32& b) const { return a.word[0] < b.word[0]; }
};
/// Not a strict weak order: "a before b" for every pair, equal ones included.
struct always_before {
  template <class T>
  __host__ __device__ bool operator()(const T&, const T&) const { return true; }
};
struct u32_less {  // std::less's order, but a functor the trait does not know: the tagged path
  __host__ __device__ bool operator()(std::uint32_t a, std::uint32_t b) const { return a < b; }
};

std::string describe(const char* type, std::size_t n, int ways, const std::string& what = "") {
  return std::string(type) + ", n = " + std::to_string(n) + ", K = " + std::to_string(ways) + (what.empty() ? "" : ", " + what);
}

/// Sorts keys only, out of place (input checked unchanged) or in place, twice with two poisons.
template <class K, class Less = std::less<>>
void check_keys(sluice::context& ctx, const std::vector<K>& host, int ways, const std::string& what, Less less = {},
                bool in_place = false) {
  const std::span<const K> view(host);
  const auto expected = sluice::reference::stable_sort(view, less);
  for (unsigned char poison : sluice::testing::poison_patterns) {
    sluice::device_buffer<K> keys(ctx, view);
    sluice::device_buffer<K> out(ctx, host.size());
    out.fill_bytes(poison);
    cuda::std::span<K> target = in_place ? keys.span() : out.span();
    sluice::merge_sort(ctx, keys.span(), target, gpu_mms(ways), less);
    EXPECT_TRUE(all_equal(in_place ? keys.to_host() : out.to_host(), expected)) << what;
    if (!in_place) EXPECT_TRUE(all_equal(keys.to_host(), host)) << what << ": the input changed";
  }
}

/// Sorts pairs with value = input index: keys equal the stable sort's, values name the stable order.
template <class K, class Less = std::less<>>
void check_pairs(sluice::context& ctx, const std::vector<K>& host, int ways, const std::string& what, Less less = {},
                 bool in_place = false) {
  std::vector<std::uint32_t> order(host.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return less(host[a], host[b]); });
  std::vector<K> expected_keys;
  for (std::uint32_t i : order) expected_keys.push_back(host[i]);
  std::vector<std::uint32_t> index(host.size());
  std::iota(index.begin(), index.end(), 0u);
  for (unsigned char poison : sluice::testing::poison_patterns) {
    sluice::device_buffer<K> keys(ctx, std::span<const K>(host));
    sluice::device_buffer<std::uint32_t> values(ctx, std::span<const std::uint32_t>(index));
    sluice::device_buffer<K> out_keys(ctx, host.size());
    sluice::device_buffer<std::uint32_t> out_values(ctx, host.size());
    out_keys.fill_bytes(poison);
    out_values.fill_bytes(poison);
    sluice::merge_sort_pairs(ctx, keys.span(), values.span(), in_place ? keys.span() : out_keys.span(),
                             in_place ? values.span() : out_values.span(), gpu_mms(ways), less);
    EXPECT_TRUE(all_equal(in_place ? keys.to_host() : out_keys.to_host(), expected_keys)) << what << ": keys";
    EXPECT_TRUE(all_equal(in_place ? values.to_host() : out_values.to_host(), order)) << what << ": values (stability)";
  }
}

template <class T>
std::vector<T> uniform(std::size_t n, std::uint64_t range, std::uint64_t seed) {
  return sluice::data::generate_host<T>(n, {sluice::data::distribution::uniform, range, 0.0, seed});
}

TEST_F(GpuMms, U32EveryWaysAndSize) {
  for (int ways : every_ways)
    for (std::size_t n : sizes_for(ways)) {
      check_keys(ctx(), uniform<std::uint32_t>(n, 0, n + 1), ways, describe("u32 uniform", n, ways));
      check_keys(ctx(), uniform<std::uint32_t>(n, 3, n + 2), ways, describe("u32 3 distinct", n, ways));
    }
}

TEST_F(GpuMms, TaggedU32EveryWaysAndSize) {
  for (int ways : every_ways)
    for (std::size_t n : sizes_for(ways))
      check_keys(ctx(), uniform<std::uint32_t>(n, 1000, n + 3), ways, describe("u32 tagged", n, ways),
                 u32_less{});
}

TEST_F(GpuMms, InputOrders) {
  using dist = sluice::data::distribution;
  for (int ways : {2, 16})
    for (std::size_t n : sizes_for(ways))
      for (dist kind : {dist::all_equal, dist::sorted, dist::reverse}) {
        const auto keys = sluice::data::generate_host<std::uint32_t>(n, {kind, n, 0.0, 9});
        const std::string what(sluice::data::to_string(kind));
        check_keys(ctx(), keys, ways, describe("u32", n, ways, what));
        check_keys(ctx(), keys, ways, describe("u32 tagged", n, ways, what), u32_less{});
        if (kind == dist::all_equal) check_pairs(ctx(), keys, ways, describe("pairs", n, ways, what));
      }
}

TEST_F(GpuMms, KeysOfEveryWidth) {
  for (int ways : {4, 16})
    for (std::size_t n : sizes_for(ways)) {
      check_keys(ctx(), uniform<std::uint64_t>(n, 0, n + 4), ways, describe("u64", n, ways));
      check_keys(ctx(), uniform<std::int64_t>(n, 0, n + 5), ways, describe("i64 greater", n, ways),
                 std::greater<>{});
      auto floats = uniform<float>(n, 0, n + 6);
      for (std::size_t i = 0; i < n; i += 3) floats[i] = (i / 3) % 2 ? 0.0f : -0.0f;  // signed zeros keep their order
      check_keys(ctx(), floats, ways, describe("f32 with signed zeros", n, ways));
      std::vector<wide16> w16(n);
      std::vector<wide32> w32(n);
      const auto words = uniform<std::uint32_t>(n, 0, n + 7);
      for (std::size_t i = 0; i < n; ++i) {
        w16[i] = {words[i] % 7, words[i] % 5, i};
        for (int k = 0; k < 8; ++k) w32[i].word[k] = k == 0 ? words[i] % 100 : static_cast<std::uint32_t>(i * 8 + k);
      }
      check_keys(ctx(), w16, ways, describe("16-byte struct", n, ways), by_major_minor{});
      check_keys(ctx(), w32, ways, describe("32-byte struct", n, ways), by_first_word{});
    }
}

TEST_F(GpuMms, PairsAreStableForEveryWays) {
  for (int ways : every_ways)
    for (std::size_t n : sizes_for(ways)) {
      check_pairs(ctx(), uniform<std::uint32_t>(n, 4, n + 8), ways, describe("u32 pairs", n, ways));
      if (ways == 8) {
        std::vector<wide16> w16(n);
        const auto words = uniform<std::uint32_t>(n, 0, n + 9);
        for (std::size_t i = 0; i < n; ++i) w16[i] = {words[i] % 3, 0, 0};
        check_pairs(ctx(), w16, ways, describe("16-byte pairs", n, ways), by_major_minor{});
      }
    }
}

TEST_F(GpuMms, InPlace) {
  for (int ways : {2, 8, 32})
    for (std::size_t n : sizes_for(ways)) {
      check_keys(ctx(), uniform<std::uint32_t>(n, 0, n + 10), ways, describe("u32 in place", n, ways),
                 std::less<>{}, true);
      check_keys(ctx(), uniform<std::uint32_t>(n, 50, n + 11), ways,
                 describe("u32 tagged in place", n, ways), u32_less{}, true);
      check_pairs(ctx(), uniform<std::uint32_t>(n, 50, n + 12), ways, describe("pairs in place", n, ways),
                  std::less<>{}, true);
    }
}

TEST_F(GpuMms, DefaultWaysFromTheTuningTable) {
  for (std::size_t n : sizes_for(mms::tuning::ways))
    check_keys(ctx(), uniform<std::uint32_t>(n, 0, n + 13), 0, describe("u32", n, 0));
}

/// A comparator that is not a strict weak order: the output is some permutation of the input, the
/// values a permutation of the indices, and nothing outside the outputs is written (guards around them).
TEST_F(GpuMms, ComparatorThatIsNotAStrictWeakOrderGivesAPermutation) {
  for (int ways : {2, 32})
    for (std::size_t n : sizes_for(ways)) {
      const auto host = uniform<std::uint32_t>(n, 0, n + 14);
      std::vector<std::uint32_t> index(n);
      std::iota(index.begin(), index.end(), 0u);
      constexpr std::size_t guard = 64;
      sluice::device_buffer<std::uint32_t> keys(ctx(), std::span<const std::uint32_t>(host));
      sluice::device_buffer<std::uint32_t> values(ctx(), std::span<const std::uint32_t>(index));
      sluice::device_buffer<std::uint32_t> out_keys(ctx(), n + 2 * guard), out_values(ctx(), n + 2 * guard);
      out_keys.fill_bytes(0xA5);
      out_values.fill_bytes(0xA5);
      sluice::merge_sort_pairs(ctx(), keys.span(), values.span(), out_keys.span().subspan(guard, n),
                               out_values.span().subspan(guard, n), gpu_mms(ways), always_before{});
      auto got_keys = out_keys.to_host();
      auto got_values = out_values.to_host();
      const std::string what = describe("always_before pairs", n, ways);
      for (std::size_t i = 0; i < guard; ++i) {
        ASSERT_EQ(got_keys[i], 0xA5A5A5A5u) << what << ": written before the output";
        ASSERT_EQ(got_keys[guard + n + i], 0xA5A5A5A5u) << what << ": written after the output";
        ASSERT_EQ(got_values[guard + n + i], 0xA5A5A5A5u) << what << ": written after the values";
      }
      std::vector<std::uint32_t> sorted_keys(got_keys.begin() + guard, got_keys.begin() + static_cast<long>(guard + n));
      std::vector<std::uint32_t> sorted_values(got_values.begin() + guard, got_values.begin() + static_cast<long>(guard + n));
      for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(sorted_keys[i], host[sorted_values[i]]) << what << " at " << i;
      std::sort(sorted_values.begin(), sorted_values.end());
      EXPECT_TRUE(all_equal(sorted_values, index)) << what << ": values are not a permutation of the indices";
    }
}

TEST_F(GpuMms, SixteenMillionKeys) {
  const std::size_t n = sluice::testing::scaled_size(std::size_t{1} << 24, std::size_t{1} << 15);
  for (int ways : every_ways) check_keys(ctx(), uniform<std::uint32_t>(n, 0, 99), ways, describe("u32", n, ways));
  check_pairs(ctx(), uniform<std::uint32_t>(n, 1000, 98), 0, describe("u32 pairs", n, 0));
}

TEST_F(GpuMms, LargeBeyond32BitIndexing) {
  const std::size_t n = (std::size_t{1} << 31) + 5;
  if (sluice::testing::under_sanitizer()) GTEST_SKIP() << "too large under a sanitizer";
  const std::size_t needed = 3 * n * sizeof(std::uint32_t);  // keys, out and one buffer of untagged items
  if (ctx().properties().global_memory_bytes < needed) GTEST_SKIP() << "needs " << needed << " bytes of device memory";
  const sluice::data::distribution_spec spec{sluice::data::distribution::uniform, 0, 0.0, 31};
  sluice::device_buffer<std::uint32_t> keys(ctx(), n), out(ctx(), n);
  sluice::data::generate(ctx(), keys.span(), spec);
  out.fill_bytes(0xA5);
  sluice::merge_sort(ctx(), keys.span(), out.span(), gpu_mms(0));
  std::vector<std::uint32_t> expected(n);
  {
    const auto host = sluice::data::generate_host<std::uint32_t>(n, spec);
    sluice::host::radix_sort_keys<std::uint32_t>(host, expected);
  }
  EXPECT_TRUE(all_equal(out.to_host(), expected)) << "u32, n = 2^31 + 5, K = tuning";
}

}  // namespace
