// GPU tests of radix_sort and radix_sort_pairs against sluice::reference::radix_sort_keys / _pairs, bit
// for bit: every strategy (onesweep; multisplit at the automatic width and at 1 to 8 bits per pass, each
// pass strategy; the 1-bit split), keys u8 to u64, i32, i64, float, double; uniform / all-equal /
// sorted / reverse keys with 0 and the maximum planted; pairs whose values are their input index
// (stability), values of 1 to 24 bytes; bit ranges (partial, one bit, empty, ending at the top);
// descending; NaN, ±inf and ±0 placement; sizes around windows, multisplit, scan and onesweep tiles;
// more than one onesweep portion (2^31 + 5 keys, *Large*); poisoned outputs; bad arguments.
#include <sluice/data/generate.cuh>
#include <sluice/host/radix_sort.hpp>
#include <sluice/radix_sort.cuh>
#include <sluice/reference/radix_sort.hpp>

#include "support/compare.hpp"
#include "support/errors.hpp"
#include "support/gpu_test.hpp"
#include "support/tile_sizes.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using sluice::testing::all_equal;
using sluice::testing::gpu_test;
namespace ref = sluice::reference;
namespace dist = sluice::data;
using sluice::radix_sort_algorithm;
using sluice::radix_sort_options;

class RadixSort : public gpu_test {};

namespace rs = sluice::detail::onesweep;

/// The onesweep tiles of u32 keys, u32 pairs and u64 keys (32-bit offsets: every size below 2^32).
template <class K, class V>
constexpr std::size_t onesweep_tile = rs::onesweep_shape<K, V, std::uint32_t>::tile;
/// Several onesweep tiles of every key type and a partial one: the per-digit look-back.
constexpr std::size_t onesweep_tiles = 3 * onesweep_tile<std::uint32_t, sluice::detail::no_values> + 5;

/// tile − 1, tile, tile + 1 of the onesweep tiles, and several tiles.
std::vector<std::size_t> onesweep_tile_sizes() {
  std::vector<std::size_t> sizes;
  for (std::size_t tile : {onesweep_tile<std::uint32_t, sluice::detail::no_values>, onesweep_tile<std::uint32_t, std::uint32_t>,
                           onesweep_tile<std::uint64_t, sluice::detail::no_values>})
    for (std::size_t n : {tile - 1, tile, tile + 1}) sizes.push_back(n);
  sizes.push_back(onesweep_tiles);
  return sizes;
}

constexpr std::size_t large_size = (std::size_t{1} << 22) + 5;
/// Windows (32), BMS tiles (1024), the split strategy's scan tiles, and a large input.
const std::vector<std::size_t> all_sizes = sluice::testing::with_single_pass_tile_sizes(
    std::vector<std::size_t>{0, 1, 2, 31, 32, 33, 1023, 1024, 1025, 4097, 100003, large_size});
/// Under a sanitizer every pass is several instrumented launches, so the sweeps keep one size per path:
/// empty, one window, a partial tile, several tiles (and several onesweep tiles for onesweep); the split
/// sort (four or more launches per bit, up to 64 bits) keeps one size of several windows and scan tiles.
const std::vector<std::size_t> sanitizer_sizes{0, 1, 33, 1025, 4097};

/// automatic runs onesweep, so the explicit onesweep skips the large input (the multisplit strategy
/// keeps it) and both take the sizes around onesweep tiles; the split sort (one pass per bit) stops at
/// 2^17 keys.
std::vector<std::size_t> sizes(radix_sort_algorithm algorithm) {
  if (sluice::testing::under_sanitizer()) {
    if (algorithm == radix_sort_algorithm::split) return {1025};
    std::vector<std::size_t> kept = sanitizer_sizes;
    if (algorithm == radix_sort_algorithm::onesweep) kept.push_back(onesweep_tiles);
    return kept;
  }
  std::vector<std::size_t> kept;
  for (std::size_t n : all_sizes)
    if (n < large_size ? algorithm != radix_sort_algorithm::split || n <= (std::size_t{1} << 17)
                       : algorithm == radix_sort_algorithm::automatic || algorithm == radix_sort_algorithm::multisplit)
      kept.push_back(n);
  if (algorithm == radix_sort_algorithm::automatic || algorithm == radix_sort_algorithm::onesweep)
    for (std::size_t n : onesweep_tile_sizes()) kept.push_back(n);
  return kept;
}

std::string describe(const radix_sort_options& o) {
  return std::string(sluice::to_string(o.algorithm)) + " r=" + std::to_string(o.bits_per_pass) + " bits [" +
         std::to_string(o.begin_bit) + ", " + std::to_string(o.end_bit) + ")" + (o.descending ? " descending" : "");
}

/// Keys compare by bit pattern, so that NaNs and −0.0 must be exactly the oracle's.
template <class T>
std::vector<std::uint64_t> bit_patterns(const std::vector<T>& keys) {
  std::vector<std::uint64_t> bits(keys.size(), 0);
  for (std::size_t i = 0; i < keys.size(); ++i) std::memcpy(&bits[i], &keys[i], sizeof(T));
  return bits;
}

/// Generated keys with 0 and the largest key planted (for floats, the drawn [0, 1) values spread over
/// both signs and many magnitudes).
template <class K>
std::vector<K> keys_of(dist::distribution shape, std::size_t n, std::uint64_t seed) {
  auto keys = dist::generate_host<K>(n, {shape, 0, 0.0, seed});
  for (std::size_t i = 0; i < n; ++i) {
    if constexpr (std::is_floating_point_v<K>)
      keys[i] = (i % 2 ? -1 : 1) * std::ldexp(keys[i], static_cast<int>(i % 61) - 30);
    if (i % 97 == 5) keys[i] = std::numeric_limits<K>::max();
    if (i % 89 == 7) keys[i] = K(0);
  }
  return keys;
}

template <class K>
void check_keys(sluice::context& ctx, const std::vector<K>& host, const radix_sort_options& options,
                const std::string& what) {
  const int end_bit = options.end_bit == -1 ? ref::radix_key_bits<K> : options.end_bit;
  const auto expected =
      ref::radix_sort_keys(std::span<const K>(host), options.begin_bit, end_bit, options.descending);
  const sluice::device_buffer<K> keys(ctx, std::span<const K>(host));
  sluice::device_buffer<K> out(ctx, host.size());
  for (unsigned char poison : sluice::testing::poison_patterns) {
    out.fill_bytes(poison);
    sluice::radix_sort(ctx, keys.span(), out.span(), options);
    ASSERT_TRUE(all_equal(bit_patterns(out.to_host()), bit_patterns(expected)))
        << what << ", " << describe(options) << ", n = " << host.size();
  }
  ASSERT_TRUE(all_equal(bit_patterns(keys.to_host()), bit_patterns(host))) << what << ": the input changed";
}

/// A value of Bytes bytes (a multiple of 4): the input position, repeated.
template <int Bytes, int Alignment = 4>
struct alignas(Alignment) payload {
  std::uint32_t words[Bytes / 4];
  bool operator==(const payload&) const = default;
};

template <class V>
V value_at(std::size_t position) {
  if constexpr (std::is_integral_v<V>) {
    return static_cast<V>(position);
  } else {
    V value;
    for (std::uint32_t& word : value.words) word = static_cast<std::uint32_t>(position);
    return value;
  }
}

/// Values are input positions (for values of 4 bytes and more): any instability shows as a value out of
/// place.
template <class K, class V = std::uint32_t>
void check_pairs(sluice::context& ctx, const std::vector<K>& host, const radix_sort_options& options,
                 const std::string& what) {
  const int end_bit = options.end_bit == -1 ? ref::radix_key_bits<K> : options.end_bit;
  std::vector<V> positions(host.size());
  for (std::size_t i = 0; i < host.size(); ++i) positions[i] = value_at<V>(i);
  const auto expected = ref::radix_sort_pairs(std::span<const K>(host), std::span<const V>(positions),
                                              options.begin_bit, end_bit, options.descending);
  const sluice::device_buffer<K> keys(ctx, std::span<const K>(host));
  const sluice::device_buffer<V> values(ctx, std::span<const V>(positions));
  sluice::device_buffer<K> out_keys(ctx, host.size());
  sluice::device_buffer<V> out_values(ctx, host.size());
  for (unsigned char poison : sluice::testing::poison_patterns) {
    out_keys.fill_bytes(poison);
    out_values.fill_bytes(poison);
    sluice::radix_sort_pairs(ctx, keys.span(), values.span(), out_keys.span(), out_values.span(), options);
    ASSERT_TRUE(all_equal(bit_patterns(out_keys.to_host()), bit_patterns(expected.keys)))
        << what << " (keys), " << describe(options) << ", n = " << host.size();
    ASSERT_TRUE(all_equal(out_values.to_host(), expected.values))
        << what << " (values), " << describe(options) << ", n = " << host.size();
  }
}

const radix_sort_algorithm all_algorithms[] = {radix_sort_algorithm::automatic, radix_sort_algorithm::onesweep,
                                               radix_sort_algorithm::multisplit, radix_sort_algorithm::split};
const dist::distribution shapes[] = {dist::distribution::uniform, dist::distribution::all_equal,
                                     dist::distribution::sorted, dist::distribution::reverse};

template <class K>
void sweep_full_sorts(sluice::context& ctx, const char* type) {
  for (auto algorithm : all_algorithms)
    for (std::size_t n : sizes(algorithm))
      for (auto shape : shapes) {
        const auto host = keys_of<K>(shape, n, n + static_cast<std::uint64_t>(shape));
        const std::string what = std::string(type) + " " + std::string(dist::to_string(shape));
        check_keys(ctx, host, {.algorithm = algorithm}, what);
        check_keys(ctx, host, {.algorithm = algorithm, .descending = true}, what);
      }
}

TEST_F(RadixSort, FullSortsU32) { sweep_full_sorts<std::uint32_t>(ctx(), "u32"); }
TEST_F(RadixSort, FullSortsU64) { sweep_full_sorts<std::uint64_t>(ctx(), "u64"); }
TEST_F(RadixSort, FullSortsI32) { sweep_full_sorts<std::int32_t>(ctx(), "i32"); }
TEST_F(RadixSort, FullSortsI64) { sweep_full_sorts<std::int64_t>(ctx(), "i64"); }
TEST_F(RadixSort, FullSortsF32) { sweep_full_sorts<float>(ctx(), "f32"); }
TEST_F(RadixSort, FullSortsF64) { sweep_full_sorts<double>(ctx(), "f64"); }

TEST_F(RadixSort, NarrowKeys) {
  for (std::size_t n : sizes(radix_sort_algorithm::automatic)) {
    check_keys(ctx(), keys_of<std::uint8_t>(dist::distribution::uniform, n, n), {}, "u8");
    check_keys(ctx(), keys_of<std::int16_t>(dist::distribution::uniform, n, n + 1), {.descending = true}, "i16");
    check_pairs(ctx(), keys_of<std::int8_t>(dist::distribution::uniform, n, n + 2), {}, "i8 pairs");
  }
}

/// Every pass width and every pass strategy of the multisplit strategy that can take it; 64-bit keys give
/// the most passes (64 at r = 1). Under a sanitizer: one size, and the narrowest and widest passes that
/// split 64 bits unevenly.
TEST_F(RadixSort, EveryPassWidthAndPassStrategy) {
  using sluice::multisplit_algorithm;
  const bool instrumented = sluice::testing::under_sanitizer();
  for (std::size_t n : instrumented ? std::vector<std::size_t>{1025} : std::vector<std::size_t>{33, 1025, 100003})
    for (int r : instrumented ? std::vector<int>{3, 7} : std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8})
      for (auto pass : {multisplit_algorithm::automatic, multisplit_algorithm::dms, multisplit_algorithm::wms,
                        multisplit_algorithm::bms, multisplit_algorithm::rb_sort}) {
        const radix_sort_options options{
            .algorithm = radix_sort_algorithm::multisplit, .bits_per_pass = r, .pass_algorithm = pass};
        const std::string what = "pass strategy " + std::to_string(static_cast<int>(pass));
        check_keys(ctx(), keys_of<std::uint64_t>(dist::distribution::uniform, n, n + r), options, what + " u64");
        check_pairs(ctx(), keys_of<float>(dist::distribution::uniform, n, n + r), options, what + " f32 pairs");
      }
  // m = 2 passes may also run as the scan split.
  for (std::size_t n : instrumented ? std::vector<std::size_t>{1025} : std::vector<std::size_t>{1025, 100003})
    check_pairs(ctx(), keys_of<std::int32_t>(dist::distribution::uniform, n, n),
                {.algorithm = radix_sort_algorithm::multisplit,
                 .bits_per_pass = 1,
                 .pass_algorithm = sluice::multisplit_algorithm::scan_split},
                "scan_split i32 pairs");
}

/// Few distinct keys, so that most keys have equals whose order the values expose.
TEST_F(RadixSort, PairsAreStable) {
  for (auto algorithm : all_algorithms)
    for (std::size_t n : sizes(algorithm)) {
      auto few = dist::generate_host<std::uint32_t>(n, {dist::distribution::uniform, 16, 0.0, n + 3});
      check_pairs(ctx(), few, {.algorithm = algorithm}, "u32, 16 distinct");
      check_pairs(ctx(), few, {.algorithm = algorithm, .descending = true}, "u32, 16 distinct");
      check_pairs(ctx(), keys_of<double>(dist::distribution::all_equal, n, n + 4), {.algorithm = algorithm},
                  "f64 all equal");
      check_pairs(ctx(), keys_of<std::int64_t>(dist::distribution::uniform, n, n + 5), {.algorithm = algorithm},
                  "i64");
    }
}

/// Values of every width onesweep stages (1 to 16 bytes, its tile shapes differ by them), through onesweep
/// and automatic; wider values, which automatic sorts by multisplit.
TEST_F(RadixSort, ValuesOfEveryWidth) {
  for (std::size_t n : sluice::testing::under_sanitizer() ? std::vector<std::size_t>{1025}
                                                          : std::vector<std::size_t>{1025, onesweep_tiles, 100003}) {
    const auto keys = keys_of<std::uint32_t>(dist::distribution::uniform, n, n + 9);
    for (auto algorithm : {radix_sort_algorithm::automatic, radix_sort_algorithm::onesweep}) {
      const radix_sort_options options{.algorithm = algorithm};
      check_pairs<std::uint32_t, std::uint8_t>(ctx(), keys, options, "u32, 1-byte values");
      check_pairs<std::uint32_t, std::uint16_t>(ctx(), keys, options, "u32, 2-byte values");
      check_pairs<std::uint32_t, payload<4>>(ctx(), keys, options, "u32, 4-byte struct values (packed with the keys)");
      check_pairs<std::uint32_t, std::uint64_t>(ctx(), keys, options, "u32, 8-byte values");
      check_pairs<std::uint32_t, payload<12>>(ctx(), keys, options, "u32, 12-byte values");
      check_pairs<std::uint32_t, payload<16, 16>>(ctx(), keys, options, "u32, 16-byte values");
      check_pairs<std::uint8_t, payload<16>>(ctx(), keys_of<std::uint8_t>(dist::distribution::uniform, n, n), options,
                                             "u8, 16-byte values");
      check_pairs<std::int16_t, std::uint64_t>(ctx(), keys_of<std::int16_t>(dist::distribution::uniform, n, n),
                                               options, "i16, 8-byte values");
      check_pairs<double, payload<16, 8>>(ctx(), keys_of<double>(dist::distribution::uniform, n, n), options,
                                          "f64, 16-byte values");
    }
    check_pairs<std::uint32_t, payload<24>>(ctx(), keys, {}, "u32, 24-byte values (automatic: multisplit)");
  }
}

/// The sort scatter's partial_sort ran when a gpu test failed at ccc6711 (docs/scatter.md): one onesweep
/// pass over bits [9, 17) of 64-bit keys with 16-byte values, the keys a permutation of [0, 100003) (44
/// tiles of 2304), beside its two-pass and 32-bit-key neighbours.
TEST_F(RadixSort, OnePassOfWideKeysWithSixteenByteValues) {
  const std::size_t n = sluice::testing::scaled_size(100003, 10007);
  std::vector<std::uint64_t> keys(n);
  for (std::size_t i = 0; i < n; ++i) keys[i] = i;
  std::shuffle(keys.begin(), keys.end(), std::mt19937_64{n + 4});
  std::vector<std::uint32_t> narrow(keys.begin(), keys.end());
  for (auto [begin_bit, end_bit] : {std::pair{9, 17}, std::pair{8, 16}, std::pair{8, 17}}) {
    const radix_sort_options options{.algorithm = radix_sort_algorithm::onesweep, .begin_bit = begin_bit,
                                     .end_bit = end_bit};
    const std::string range = " over [" + std::to_string(begin_bit) + ", " + std::to_string(end_bit) + ")";
    check_pairs<std::uint64_t, payload<16, 16>>(ctx(), keys, options, "u64, 16-byte values" + range);
    check_pairs<std::uint64_t, std::uint8_t>(ctx(), keys, options, "u64, 1-byte values" + range);
    check_pairs<std::uint32_t, payload<16, 16>>(ctx(), narrow, options, "u32, 16-byte values" + range);
  }
}

/// Partial ranges leave equal fields in input order, so they test stability as well.
/// Nine ranges × both directions × two key types per size: under a sanitizer one size of several tiles
/// (racecheck took over five minutes on the full sanitizer sizes).
std::vector<std::size_t> bit_range_sizes(radix_sort_algorithm algorithm) {
  return sluice::testing::under_sanitizer() ? std::vector<std::size_t>{1025} : sizes(algorithm);
}

TEST_F(RadixSort, BitRanges) {
  struct range {
    int begin_bit, end_bit;
  };
  // Passes: 4, 2, 1, 1, 1, 0, 0, 0, 4 (29 bits), 3 (the packed pairs' passes alternate over the outputs).
  const range ranges[] = {{0, 32}, {4, 20}, {13, 14}, {31, 32}, {0, 1}, {7, 7}, {0, 0}, {32, 32}, {3, -1}, {2, 25}};
  for (auto algorithm : all_algorithms)
    for (std::size_t n : bit_range_sizes(algorithm))
      for (const range r : ranges)
        for (bool descending : {false, true}) {
          const radix_sort_options options{
              .algorithm = algorithm, .begin_bit = r.begin_bit, .end_bit = r.end_bit, .descending = descending};
          check_keys(ctx(), keys_of<std::int32_t>(dist::distribution::uniform, n, n + 6), options, "i32");
          check_pairs(ctx(), keys_of<float>(dist::distribution::uniform, n, n + 7), options, "f32 pairs");
        }
  const radix_sort_options top{.begin_bit = 40, .end_bit = 64};
  for (std::size_t n : bit_range_sizes(radix_sort_algorithm::automatic))
    check_pairs(ctx(), keys_of<std::uint64_t>(dist::distribution::uniform, n, n + 8), top, "u64 bits 40..64");
}

/// Floats with every special value, each many times: −NaN < −inf < … < −0 < +0 < … < +inf < +NaN.
template <class K>
std::vector<K> floats_with_specials(std::size_t n, std::uint64_t seed) {
  using L = std::numeric_limits<K>;
  auto keys = keys_of<K>(dist::distribution::uniform, n, seed);
  const K specials[] = {L::quiet_NaN(), -L::quiet_NaN(), L::infinity(), -L::infinity(), K(0), -K(0),
                        L::denorm_min(), -L::denorm_min(), L::max(), L::lowest()};
  for (std::size_t i = 0; i < n; i += 3) keys[i] = specials[(i / 3) % std::size(specials)];
  return keys;
}

TEST_F(RadixSort, NansInfinitiesAndSignedZerosTakeTheirBitOrder) {
  for (auto algorithm : all_algorithms)
    for (std::size_t n : sizes(algorithm))
      for (bool descending : {false, true}) {
        const radix_sort_options options{.algorithm = algorithm, .descending = descending};
        check_pairs(ctx(), floats_with_specials<float>(n, n), options, "f32 specials");
        check_keys(ctx(), floats_with_specials<double>(n, n + 1), options, "f64 specials");
      }
  // The order, spelled out on a small input.
  const std::vector<float> host{0.0f, std::nanf(""), -0.0f, -INFINITY, 1.0f, INFINITY, -std::nanf(""), -1.0f};
  const sluice::device_buffer<float> keys(ctx(), std::span<const float>(host));
  sluice::device_buffer<float> out(ctx(), host.size());
  sluice::radix_sort(ctx(), keys.span(), out.span());
  const auto got = out.to_host();
  EXPECT_TRUE(std::isnan(got[0]) && std::signbit(got[0]));
  EXPECT_EQ(got[1], -INFINITY);
  EXPECT_EQ(got[2], -1.0f);
  EXPECT_TRUE(got[3] == 0.0f && std::signbit(got[3]));
  EXPECT_TRUE(got[4] == 0.0f && !std::signbit(got[4]));
  EXPECT_EQ(got[5], 1.0f);
  EXPECT_EQ(got[6], INFINITY);
  EXPECT_TRUE(std::isnan(got[7]) && !std::signbit(got[7]));
}

TEST_F(RadixSort, BadArgumentsAreRejected) {
  sluice::device_buffer<std::uint32_t> keys(ctx(), 100), out(ctx(), 100), shorter(ctx(), 99), wide(ctx(), 200);
  sluice::device_buffer<std::uint16_t> values(ctx(), 100), out_values(ctx(), 100), few_values(ctx(), 99);
  std::vector<std::uint32_t> host(100);
  const cuda::std::span<std::uint32_t> host_span(host.data(), host.size());
  using sluice::testing::expect_invalid_argument;
  auto sort = [&](radix_sort_options o) { sluice::radix_sort(ctx(), keys.span(), out.span(), o); };
  expect_invalid_argument([&] { sort({.begin_bit = -1}); }, "options.begin_bit");
  expect_invalid_argument([&] { sort({.begin_bit = 10, .end_bit = 9}); }, "options.begin_bit");
  expect_invalid_argument([&] { sort({.begin_bit = 33}); }, "options.begin_bit");
  expect_invalid_argument([&] { sort({.end_bit = 33}); }, "options.end_bit");
  expect_invalid_argument([&] { sort({.end_bit = -2}); }, "options.end_bit");
  expect_invalid_argument([&] { sort({.bits_per_pass = 9}); }, "options.bits_per_pass");
  expect_invalid_argument([&] { sort({.bits_per_pass = -1}); }, "options.bits_per_pass");
  expect_invalid_argument([&] { sort({.algorithm = radix_sort_algorithm::split, .bits_per_pass = 2}); },
                          "options.bits_per_pass");
  expect_invalid_argument([&] { sort({.algorithm = radix_sort_algorithm::onesweep, .bits_per_pass = 7}); },
                          "options.bits_per_pass");
  expect_invalid_argument(
      [&] {
        sort({.algorithm = radix_sort_algorithm::onesweep, .pass_algorithm = sluice::multisplit_algorithm::bms});
      },
      "options.pass_algorithm");
  sluice::device_buffer<payload<24>> wide_values(ctx(), 100), wide_out_values(ctx(), 100);
  expect_invalid_argument(
      [&] {
        sluice::radix_sort_pairs(ctx(), keys.span(), wide_values.span(), out.span(), wide_out_values.span(),
                                 {.algorithm = radix_sort_algorithm::onesweep});
      },
      "options.algorithm");
  expect_invalid_argument([&] { sluice::radix_sort(ctx(), host_span, out.span()); }, "keys");
  expect_invalid_argument([&] { sluice::radix_sort(ctx(), keys.span(), host_span); }, "out_keys");
  expect_invalid_argument([&] { sluice::radix_sort(ctx(), keys.span(), shorter.span()); }, "out_keys");
  expect_invalid_argument([&] { sluice::radix_sort(ctx(), keys.span(), keys.span()); }, "out_keys");
  expect_invalid_argument(
      [&] { sluice::radix_sort(ctx(), wide.span().first(100), wide.span().subspan(50, 100)); }, "out_keys");
  expect_invalid_argument(
      [&] { sluice::radix_sort_pairs(ctx(), keys.span(), few_values.span(), out.span(), out_values.span()); },
      "values");
  expect_invalid_argument(
      [&] { sluice::radix_sort_pairs(ctx(), keys.span(), values.span(), out.span(), few_values.span()); },
      "out_values");
  expect_invalid_argument(
      [&] { sluice::radix_sort_pairs(ctx(), keys.span(), values.span(), out.span(), values.span()); }, "out_values");
}

/// 2^31 + 5 keys: nine onesweep portions of at most 2^28 keys, each with fresh status words, the digit
/// starts carried from one to the next; the last portion holds a few tiles and a partial one.
TEST_F(RadixSort, LargeOnesweepAcrossPortions) {
  const std::size_t n = (std::size_t{1} << 31) + 5;
  if (sluice::testing::under_sanitizer()) GTEST_SKIP() << "too large under a sanitizer";
  const std::size_t needed = 3 * n * sizeof(std::uint32_t);  // keys, out and the passes' temporary
  if (ctx().properties().global_memory_bytes < needed) GTEST_SKIP() << "needs " << needed << " bytes of device memory";
  const sluice::data::distribution_spec spec{dist::distribution::uniform, 0, 0.0, 31};
  sluice::device_buffer<std::uint32_t> keys(ctx(), n), out(ctx(), n);
  sluice::data::generate(ctx(), keys.span(), spec);
  out.fill_bytes(0xA5);
  sluice::radix_sort(ctx(), keys.span(), out.span(), {.algorithm = radix_sort_algorithm::onesweep});
  std::vector<std::uint32_t> expected(n);
  {
    const auto host = sluice::data::generate_host<std::uint32_t>(n, spec);
    sluice::host::radix_sort_keys<std::uint32_t>(host, expected);
  }
  EXPECT_TRUE(all_equal(out.to_host(), expected));
}

/// Outputs 4 bytes off an 8-byte boundary cannot hold packed pairs between passes: such a sort of u32
/// pairs takes the separate pairs passes (radix_sort.cuh, packs_pairs), still exactly the oracle's.
TEST_F(RadixSort, PairsIntoOutputsOffEightByteBoundaries) {
  for (std::size_t n : sluice::testing::under_sanitizer() ? std::vector<std::size_t>{1025}
                                                          : std::vector<std::size_t>{1, 33, 1025, onesweep_tiles, 100003}) {
    const auto host = keys_of<std::uint32_t>(dist::distribution::uniform, n, n + 10);
    std::vector<std::uint32_t> positions(n);
    for (std::size_t i = 0; i < n; ++i) positions[i] = static_cast<std::uint32_t>(i);
    const auto expected = ref::radix_sort_pairs(std::span<const std::uint32_t>(host),
                                                std::span<const std::uint32_t>(positions), 0, 32, false);
    const sluice::device_buffer<std::uint32_t> keys(ctx(), std::span<const std::uint32_t>(host));
    const sluice::device_buffer<std::uint32_t> values(ctx(), std::span<const std::uint32_t>(positions));
    sluice::device_buffer<std::uint32_t> out_keys(ctx(), n + 1), out_values(ctx(), n + 1);
    for (const bool keys_off : {true, false}) {
      out_keys.fill_bytes(0xA5);
      out_values.fill_bytes(0x5A);
      const auto keys_to = out_keys.span().subspan(keys_off ? 1 : 0, n);
      const auto values_to = out_values.span().subspan(keys_off ? 0 : 1, n);
      sluice::radix_sort_pairs(ctx(), keys.span(), values.span(), keys_to, values_to);
      const auto got_keys = out_keys.to_host(), got_values = out_values.to_host();
      const std::size_t k = keys_off ? 1 : 0, v = keys_off ? 0 : 1;
      ASSERT_TRUE(std::equal(expected.keys.begin(), expected.keys.end(), got_keys.begin() + k)) << "n = " << n;
      ASSERT_TRUE(std::equal(expected.values.begin(), expected.values.end(), got_values.begin() + v)) << "n = " << n;
      EXPECT_EQ(got_keys[keys_off ? 0 : n], 0xA5A5A5A5u) << "a key written outside out_keys, n = " << n;
      EXPECT_EQ(got_values[keys_off ? n : 0], 0x5A5A5A5Au) << "a value written outside out_values, n = " << n;
    }
  }
}

/// 2^31 + 5 u32 pairs: the packed passes over three portions, their words held in the outputs between
/// passes (an odd n: the last word in the temporary's spare one).
TEST_F(RadixSort, LargePackedPairsAcrossPortions) {
  const std::size_t n = (std::size_t{1} << 31) + 5;
  if (sluice::testing::under_sanitizer()) GTEST_SKIP() << "too large under a sanitizer";
  const std::size_t needed = 6 * n * sizeof(std::uint32_t);  // keys, values, the outputs and the temporary
  if (ctx().properties().global_memory_bytes < needed) GTEST_SKIP() << "needs " << needed << " bytes of device memory";
  const sluice::data::distribution_spec spec{dist::distribution::uniform, 0, 0.0, 33};
  std::vector<std::uint32_t> expected_keys(n), expected_values(n);
  sluice::device_buffer<std::uint32_t> keys(ctx(), n), out_keys(ctx(), n), out_values(ctx(), n);
  sluice::data::generate(ctx(), keys.span(), spec);
  {
    std::vector<std::uint32_t> positions(n);
    for (std::size_t i = 0; i < n; ++i) positions[i] = static_cast<std::uint32_t>(i);
    const sluice::device_buffer<std::uint32_t> values(ctx(), std::span<const std::uint32_t>(positions));
    out_keys.fill_bytes(0xA5);
    out_values.fill_bytes(0xA5);
    sluice::radix_sort_pairs(ctx(), keys.span(), values.span(), out_keys.span(), out_values.span());
    const auto host = sluice::data::generate_host<std::uint32_t>(n, spec);
    sluice::host::radix_sort_pairs<std::uint32_t, std::uint32_t>(host, positions, expected_keys, expected_values);
  }
  EXPECT_TRUE(all_equal(out_keys.to_host(), expected_keys));
  EXPECT_TRUE(all_equal(out_values.to_host(), expected_values));
}

/// 2^32 + 5 one-byte keys (one pass): the onesweep kernels with 64-bit output offsets, over 17 portions.
TEST_F(RadixSort, LargeOnesweepBeyond32BitOffsets) {
  const std::size_t n = (std::size_t{1} << 32) + 5;
  if (sluice::testing::under_sanitizer()) GTEST_SKIP() << "too large under a sanitizer";
  if (ctx().properties().global_memory_bytes < 3 * n) GTEST_SKIP() << "needs " << 3 * n << " bytes of device memory";
  const sluice::data::distribution_spec spec{dist::distribution::uniform, 0, 0.0, 32};
  sluice::device_buffer<std::uint8_t> keys(ctx(), n), out(ctx(), n);
  sluice::data::generate(ctx(), keys.span(), spec);
  out.fill_bytes(0xA5);
  sluice::radix_sort(ctx(), keys.span(), out.span(), {.algorithm = radix_sort_algorithm::onesweep});
  std::vector<std::size_t> count(256, 0);
  for (std::uint8_t k : sluice::data::generate_host<std::uint8_t>(n, spec)) ++count[k];
  const auto got = out.to_host();
  std::size_t i = 0;
  for (std::size_t k = 0; k < 256; ++k)
    for (const std::size_t end = i + count[k]; i < end; ++i)
      if (got[i] != k) FAIL() << "out[" << i << "] = " << int{got[i]} << ", expected " << k;
}

}  // namespace
