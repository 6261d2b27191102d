// Tests of sluice::host::radix_sort_keys / radix_sort_pairs and multisplit / multisplit_pairs against
// reference/radix_sort.hpp and reference/multisplit.hpp: 8/16/32/64-bit unsigned and signed keys,
// float and double (with ±0, ±inf and NaNs of both signs), bit ranges and descending order (stability
// shown by the values), the size × distribution matrix, dropped buckets, bad arguments. Poisoned outputs.
#include <sluice/core/error.hpp>
#include <sluice/data/distributions.hpp>
#include <sluice/host/multisplit.hpp>
#include <sluice/host/radix_sort.hpp>
#include <sluice/reference/multisplit.hpp>
#include <sluice/reference/radix_sort.hpp>

#include "host/host_test_matrix.hpp"
#include "support/compare.hpp"
#include "support/errors.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

namespace {

namespace host = sluice::host;
namespace ref = sluice::reference;
namespace matrix = sluice::testing::host_matrix;
using sluice::testing::all_equal;
using sluice::testing::expect_invalid_argument;

/// Compares bit patterns, so that NaNs and −0.0 are checked exactly.
template <class K>
std::vector<std::uint64_t> bits_of(const std::vector<K>& keys) {
  std::vector<std::uint64_t> bits;
  for (const K& k : keys) bits.push_back(static_cast<std::uint64_t>(ref::radix_bits(k)));
  return bits;
}

template <class K>
void expect_sorts_match(const std::vector<K>& keys, const host::radix_sort_options& options, const std::string& context) {
  const int end_bit = options.end_bit.value_or(ref::radix_key_bits<K>);
  std::vector<std::uint32_t> values(keys.size());
  std::iota(values.begin(), values.end(), 0u);
  const auto expected = ref::radix_sort_pairs<K, std::uint32_t>(keys, values, options.begin_bit, end_bit, options.descending);
  std::vector<K> keys_out(keys.size());
  std::vector<std::uint32_t> values_out(keys.size());
  for (unsigned char pattern : matrix::poison_patterns) {
    matrix::poison(std::span<K>(keys_out), pattern);
    host::radix_sort_keys<K>(keys, keys_out, options);
    EXPECT_TRUE(all_equal(bits_of(keys_out), bits_of(expected.keys))) << context << ", keys";
    matrix::poison(std::span<K>(keys_out), pattern);
    matrix::poison(std::span<std::uint32_t>(values_out), pattern);
    host::radix_sort_pairs<K, std::uint32_t>(keys, values, keys_out, values_out, options);
    EXPECT_TRUE(all_equal(bits_of(keys_out), bits_of(expected.keys))) << context << ", pairs";
    EXPECT_TRUE(all_equal(values_out, expected.values)) << context << ", pairs (stability)";
  }
}

template <class K>
std::vector<K> draw_keys(std::size_t n, const matrix::labelled_distribution& d) {
  using U = std::make_unsigned_t<std::conditional_t<std::is_floating_point_v<K>,
                                                    std::conditional_t<sizeof(K) == 4, std::int32_t, std::int64_t>, K>>;
  // Zipf needs a table: at most 2^16 values (and no more than the type has); the others span the type.
  const std::uint64_t zipf_range = std::min<std::uint64_t>(std::uint64_t{1} << 16, std::uint64_t{1} << (8 * sizeof(U) - 1));
  const std::uint64_t range = d.kind == sluice::data::distribution::zipf ? zipf_range : 0;
  const auto words = sluice::data::generate_host<U>(n, {d.kind, range, d.parameter, 31});
  std::vector<K> keys(n);
  for (std::size_t i = 0; i < n; ++i) keys[i] = std::bit_cast<K>(words[i]);
  return keys;
}

TEST(HostRadixSort, EveryKeyTypeSizeAndDistribution) {
  for (std::size_t n : matrix::sizes())
    for (const auto& d : matrix::distributions()) {
      const std::string context = "n = " + std::to_string(n) + ", " + d.name;
      expect_sorts_match(draw_keys<std::uint32_t>(n, d), {}, context + ", u32");
      expect_sorts_match(draw_keys<std::int64_t>(n, d), {}, context + ", i64");
      expect_sorts_match(draw_keys<float>(n, d), {}, context + ", f32 bit patterns");
      if (n <= 100000) {
        expect_sorts_match(draw_keys<std::uint8_t>(n, d), {}, context + ", u8");
        expect_sorts_match(draw_keys<std::int16_t>(n, d), {}, context + ", i16");
        expect_sorts_match(draw_keys<std::int32_t>(n, d), {}, context + ", i32");
        expect_sorts_match(draw_keys<std::uint64_t>(n, d), {}, context + ", u64");
        expect_sorts_match(draw_keys<double>(n, d), {}, context + ", f64 bit patterns");
      }
    }
}

TEST(HostRadixSort, BitRangesAndDescending) {
  const auto keys = draw_keys<std::uint64_t>((std::size_t{1} << 17) + 9, matrix::distributions()[0]);
  for (auto [begin, end] : {std::pair{0, 0}, std::pair{0, 1}, std::pair{3, 17}, std::pair{8, 16}, std::pair{20, 64},
                            std::pair{63, 64}})
    for (bool descending : {false, true})
      expect_sorts_match(keys, {.begin_bit = begin, .end_bit = end, .descending = descending, .huge_pages = descending},
                         "bits [" + std::to_string(begin) + ", " + std::to_string(end) + ")" +
                             (descending ? " descending" : ""));
}

TEST(HostRadixSort, FloatEdgeValues) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> keys{1.5f, -0.0f, 0.0f, -inf, nan, -nan, inf, -2.0f, 0.0f, -0.0f, 3.0f, -nan};
  expect_sorts_match(keys, {}, "f32 edges");
  expect_sorts_match(keys, {.descending = true}, "f32 edges descending");
  const std::vector<double> wide{1.5, -0.0, 0.0, -1e300, std::numeric_limits<double>::quiet_NaN(), -1e-300};
  expect_sorts_match(wide, {}, "f64 edges");
}

TEST(HostRadixSort, BadArguments) {
  const std::vector<std::uint32_t> keys{3, 1, 2};
  std::vector<std::uint32_t> out(3), short_out(2);
  expect_invalid_argument([&] { host::radix_sort_keys<std::uint32_t>(keys, out, {.begin_bit = -1}); }, "begin_bit");
  expect_invalid_argument([&] { host::radix_sort_keys<std::uint32_t>(keys, out, {.begin_bit = 9, .end_bit = 8}); },
                          "begin_bit");
  expect_invalid_argument([&] { host::radix_sort_keys<std::uint32_t>(keys, out, {.end_bit = 33}); }, "end_bit");
  expect_invalid_argument([&] { host::radix_sort_keys<std::uint32_t>(keys, short_out, {}); }, "out");
  expect_invalid_argument(
      [&] { host::radix_sort_pairs<std::uint32_t, std::uint32_t>(keys, short_out, out, out, {}); }, "values");
  expect_invalid_argument(
      [&] { host::radix_sort_pairs<std::uint32_t, std::uint32_t>(keys, keys, out, short_out, {}); }, "values_out");
}

TEST(HostMultisplit, EveryBucketCountSizeAndDistribution) {
  for (std::size_t n : matrix::sizes())
    for (const auto& d : matrix::distributions())
      for (std::size_t m : matrix::bucket_counts()) {
        if (n > 100000 && m != 33 && m != 4096) continue;  // the large size: two bucket counts keep it short
        const auto keys = matrix::labels(n, 2 * m, d, 41);  // half the ids are ≥ m: dropped
        const auto bucket_of = [m](std::uint32_t key) { return key % (2 * m) < m ? key % m : key; };
        std::vector<std::uint32_t> values(n);
        std::iota(values.begin(), values.end(), 0u);
        const auto expected = ref::multisplit_pairs<std::uint32_t, std::uint32_t>(keys, values, m, bucket_of);
        std::vector<std::uint32_t> keys_out(n), values_out(n);
        const std::string context = "n = " + std::to_string(n) + ", " + d.name + ", m = " + std::to_string(m);
        for (unsigned char pattern : matrix::poison_patterns) {
          matrix::poison(std::span<std::uint32_t>(keys_out), pattern);
          matrix::poison(std::span<std::uint32_t>(values_out), pattern);
          const auto r = host::multisplit_pairs<std::uint32_t, std::uint32_t>(keys, values, keys_out, values_out, m,
                                                                             bucket_of);
          const std::size_t kept = n - r.dropped;
          EXPECT_EQ(r.dropped, expected.dropped) << context;
          EXPECT_TRUE(all_equal(r.offsets, expected.offsets)) << context;
          EXPECT_TRUE(all_equal(std::vector<std::uint32_t>(keys_out.begin(), keys_out.begin() + kept), expected.keys))
              << context;
          EXPECT_TRUE(all_equal(std::vector<std::uint32_t>(values_out.begin(), values_out.begin() + kept), expected.values))
              << context;
          matrix::poison(std::span<std::uint32_t>(keys_out), pattern);
          const auto k = host::multisplit<std::uint32_t>(keys, keys_out, m, bucket_of);
          EXPECT_TRUE(all_equal(std::vector<std::uint32_t>(keys_out.begin(), keys_out.begin() + kept), expected.keys))
              << context << ", keys only";
          EXPECT_EQ(k.dropped, expected.dropped) << context;
        }
      }
}

TEST(HostMultisplit, SignedBucketIdsAndBadArguments) {
  const std::vector<int> keys{5, -3, 8, 1, -7, 4};
  std::vector<int> out(keys.size());
  const auto r = host::multisplit<int>(keys, out, 2, [](int k) { return k % 2; });  // -1 for negative odd keys
  EXPECT_TRUE(all_equal(std::vector<int>(out.begin(), out.begin() + 4), {8, 4, 5, 1}));
  EXPECT_TRUE(all_equal(r.offsets, std::vector<std::size_t>{0, 2, 4}));
  EXPECT_EQ(r.dropped, 2u);
  std::vector<int> short_out(2);
  expect_invalid_argument([&] { (void)host::multisplit<int>(keys, out, 0, [](int k) { return k; }); }, "m");
  expect_invalid_argument([&] { (void)host::multisplit<int>(keys, short_out, 2, [](int k) { return k; }); }, "out");
}

}  // namespace
