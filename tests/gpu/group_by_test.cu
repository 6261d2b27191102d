// GPU tests of containers/group_by.cuh (hash-based unique and group_by_reduce) against
// sluice::reference::group_by_reduce and distinct_keys, for every strategy and automatic: sizes 0, 1, 31,
// 32, 33, 1000, 2^19; distinct counts 1 … every key (511 parts of partitioned, the most); keys uniform
// over a pool, skewed (a few keys take most elements), sorted into runs, strided (sequential ids shifted),
// and the words the slab hash reserves (all ones, all ones − 1, zero), which the table strategies take
// like any key; operators +, max, min and xor, u32/i64 keys with u32/u64/double/float values; the distinct
// count given right, far too low (the table starts over, partitioned's shared tables overflow into it)
// and not at all (the sketch). Outputs are poisoned; elements past the count must stay so.
// Errors: short outputs, a value count that differs, an unknown algorithm, a table strategy with an
// operator without identity, reserved keys on the slab_hash strategy.
#include <sluice/containers/group_by.cuh>
#include <sluice/data/distinct_keys.hpp>
#include <sluice/reference/group_by.hpp>

#include "support/errors.hpp"
#include "support/gpu_test.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace {

using sluice::group_by_algorithm;
using sluice::testing::gpu_test;

class GroupBy : public gpu_test {};

enum class draw { uniform, skewed, sorted_runs, strided, reserved_words };

std::string to_string(draw d) {
  switch (d) {
    case draw::uniform: return "uniform";
    case draw::skewed: return "skewed";
    case draw::sorted_runs: return "sorted runs";
    case draw::strided: return "strided by 2^20";
    case draw::reserved_words: return "reserved words";
  }
  return "?";
}

/// n keys over `distinct` distinct ones, drawn as `d` says.
template <class K>
std::vector<K> draw_keys(draw d, std::size_t n, std::size_t distinct, std::uint64_t seed) {
  std::vector<K> pool = sluice::data::distinct_keys<K>(seed << 20, distinct);
  if (d == draw::strided)
    for (std::size_t j = 0; j < distinct; ++j) pool[j] = static_cast<K>(static_cast<std::uint64_t>(j) << (sizeof(K) == 4 ? 12 : 20));
  if (d == draw::reserved_words) {  // the two top words and zero among the keys
    pool[0] = static_cast<K>(~std::uint64_t{0});
    if (distinct > 1) pool[1] = static_cast<K>(~std::uint64_t{1});
    if (distinct > 2) pool[2] = K{0};
  }
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<K> keys(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t j = random() % distinct;
    if (d == draw::skewed) j = static_cast<std::size_t>(std::pow(unit(random), 6.0) * double(distinct)) % distinct;
    if (d == draw::sorted_runs) j = i * distinct / n;
    keys[i] = pool[j];
  }
  return keys;
}

template <class T>
sluice::device_buffer<T> to_device(sluice::context& ctx, const std::vector<T>& host) {
  return sluice::device_buffer<T>(ctx, std::span<const T>(host));
}

template <class T>
std::vector<unsigned char> bytes_of(const std::vector<T>& v, std::size_t from) {
  std::vector<unsigned char> out((v.size() - from) * sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), v.data() + from, out.size());
  return out;
}

/// group_by_reduce and unique of keys drawn as `d` (values i % 1000 as V), against the oracle.
template <class K, class V, class Op>
void check(sluice::context& ctx, group_by_algorithm algorithm, draw d, std::size_t n, std::size_t distinct,
           std::size_t hint, Op op, const std::string& what) {
  const std::string where = what + ", " + std::string(sluice::to_string(algorithm)) + ", " + to_string(d) +
                            ", n = " + std::to_string(n) + ", distinct " + std::to_string(distinct) + ", hint " +
                            std::to_string(hint);
  SCOPED_TRACE(where);
  if (std::getenv("SLUICE_TEST_TRACE") != nullptr) std::fprintf(stderr, "group_by case: %s\n", where.c_str());
  const std::vector<K> keys = draw_keys<K>(d, n, distinct, n * 7 + distinct);
  std::vector<V> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<V>(i % 1000);
  const auto expected = sluice::reference::group_by_reduce<K, V>(keys, values, op);
  const std::size_t groups = expected.keys.size();
  const auto d_keys = to_device(ctx, keys);
  const auto d_values = to_device(ctx, values);
  constexpr std::size_t spare = 3;  // poisoned elements past the groups, which must stay poisoned
  sluice::device_buffer<K> out_keys(ctx, groups + spare);
  sluice::device_buffer<V> out_values(ctx, groups + spare);
  out_keys.fill_bytes(0xA5);
  out_values.fill_bytes(0xA5);
  const sluice::group_by_options options{.distinct = hint, .algorithm = algorithm};
  ASSERT_EQ(sluice::group_by_reduce(ctx, d_keys.span(), d_values.span(), out_keys.span(), out_values.span(), op, options),
            groups);
  const auto k = out_keys.to_host();
  const auto v = out_values.to_host();
  std::vector<std::size_t> order(groups);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return k[a] < k[b]; });
  for (std::size_t g = 0; g < groups; ++g) {
    ASSERT_EQ(k[order[g]], expected.keys[g]) << "group " << g;
    ASSERT_EQ(v[order[g]], expected.values[g]) << "key " << expected.keys[g];
  }
  EXPECT_EQ(bytes_of(k, groups), std::vector<unsigned char>(spare * sizeof(K), 0xA5)) << "keys written past the groups";
  EXPECT_EQ(bytes_of(v, groups), std::vector<unsigned char>(spare * sizeof(V), 0xA5)) << "values written past the groups";

  out_keys.fill_bytes(0xA5);
  ASSERT_EQ(sluice::unique(ctx, d_keys.span(), out_keys.span(), options), groups) << "unique";
  auto u = out_keys.to_host();
  EXPECT_EQ(bytes_of(u, groups), std::vector<unsigned char>(spare * sizeof(K), 0xA5)) << "unique wrote past the keys";
  u.resize(groups);
  std::sort(u.begin(), u.end());
  EXPECT_EQ(u, expected.keys) << "unique";
}

constexpr group_by_algorithm every[] = {group_by_algorithm::automatic, group_by_algorithm::open_addressing,
                                        group_by_algorithm::partitioned, group_by_algorithm::slab_hash};
constexpr group_by_algorithm tables[] = {group_by_algorithm::open_addressing, group_by_algorithm::partitioned};

TEST_F(GroupBy, SmallSizesEveryDistinctCount) {
  for (const auto algorithm : every)
    for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{31}, std::size_t{32}, std::size_t{33}, std::size_t{1000}})
      for (const std::size_t distinct : {std::size_t{1}, std::size_t{7}, n == 0 ? std::size_t{1} : n})
        check<std::uint32_t, std::uint32_t>(ctx(), algorithm, draw::uniform, n, distinct, 0, sluice::plus{}, "sum u32");
}

TEST_F(GroupBy, EveryDrawAgainstTheOracle) {
  const std::size_t n = sluice::testing::scaled_size(std::size_t{1} << 19, std::size_t{1} << 14);
  for (const auto algorithm : every)
    for (const std::size_t distinct : {std::size_t{1}, std::size_t{4096}, n}) {  // one part, two, 511 (partitioned)
      check<std::uint32_t, std::uint32_t>(ctx(), algorithm, draw::uniform, n, distinct, 0, sluice::plus{}, "sum u32");
      check<std::uint32_t, std::uint32_t>(ctx(), algorithm, draw::uniform, n, distinct, distinct, sluice::max{}, "max u32");
    }
  for (const auto algorithm : {group_by_algorithm::automatic, group_by_algorithm::open_addressing, group_by_algorithm::partitioned})
    for (const draw d : {draw::skewed, draw::sorted_runs, draw::strided})
      for (const std::size_t distinct : {std::size_t{37}, n / 3})
        check<std::uint32_t, std::uint32_t>(ctx(), algorithm, d, n, distinct, 0, sluice::plus{}, "sum u32");
}

TEST_F(GroupBy, WideKeysAndValues) {
  const std::size_t n = sluice::testing::scaled_size(std::size_t{1} << 20, std::size_t{1} << 13);
  for (const auto algorithm : every) {
    check<std::int64_t, std::int64_t>(ctx(), algorithm, draw::uniform, n, 1 << 10, 0, sluice::min{}, "min i64");
    check<std::uint64_t, std::uint64_t>(ctx(), algorithm, draw::skewed, n, n / 2, 0, sluice::bit_xor{}, "xor u64");
  }
  // Values wider than keys, and floats (sums of small integers stay exact in any order).
  for (const auto algorithm : tables) {
    check<std::uint32_t, std::uint64_t>(ctx(), algorithm, draw::uniform, n, 5000, 0, sluice::plus{}, "sum u32 → u64");
    check<std::uint32_t, double>(ctx(), algorithm, draw::uniform, n, 5000, 0, sluice::plus{}, "sum u32 → double");
    check<std::int64_t, float>(ctx(), algorithm, draw::skewed, n, 300, 0, sluice::max{}, "max i64 → float");
  }
}

TEST_F(GroupBy, OpenAddressingTakesEveryKeyValue) {
  const std::size_t n = sluice::testing::scaled_size(std::size_t{1} << 18, std::size_t{1} << 12);
  for (const auto algorithm : tables)
    for (const std::size_t distinct : {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{1000}}) {
      check<std::uint32_t, std::uint32_t>(ctx(), algorithm, draw::reserved_words, n, distinct, 0, sluice::plus{},
                                          "sum u32");
      check<std::int64_t, std::int64_t>(ctx(), algorithm, draw::reserved_words, n, distinct, 0, sluice::max{},
                                        "max i64");
    }
  check<std::uint32_t, std::uint32_t>(ctx(), group_by_algorithm::automatic, draw::reserved_words, 1, 1, 0,
                                      sluice::plus{}, "one all-ones key");
}

TEST_F(GroupBy, DistinctCountGivenFarTooLow) {
  // 2^14 distinct keys in a table sized for 16: the walks overflow, the table starts over with twice the
  // slots until they fit; partitioned makes one part, whose shared table (8192 slots) fills and sends the
  // rest straight to the table. The result stays right.
  const std::size_t n = sluice::testing::scaled_size(std::size_t{1} << 20, std::size_t{1} << 15);
  for (const auto algorithm : every)
    check<std::uint32_t, std::uint32_t>(ctx(), algorithm, draw::uniform, n, 1 << 14, 16, sluice::plus{}, "sum u32");
}

/// Commutative, but without an identity: only the slab_hash strategy runs it.
struct add_without_identity {
  static constexpr bool is_commutative = true;
  __host__ __device__ std::uint32_t operator()(std::uint32_t a, std::uint32_t b) const { return a + b; }
};

TEST_F(GroupBy, AutomaticTakesTheSlabHashForAnOperatorWithoutIdentity) {
  check<std::uint32_t, std::uint32_t>(ctx(), group_by_algorithm::automatic, draw::uniform, 5000, 100, 0,
                                      add_without_identity{}, "sum without identity");
}

TEST_F(GroupBy, RejectsBadArguments) {
  using sluice::testing::expect_invalid_argument;
  const auto keys = to_device(ctx(), std::vector<std::uint32_t>{4, 4, 5, 0xFFFFFFFFu});
  const auto values = to_device(ctx(), std::vector<std::uint32_t>{1, 2, 3, 4});
  sluice::device_buffer<std::uint32_t> out_keys(ctx(), 4), out_values(ctx(), 4), one(ctx(), 1);
  const sluice::group_by_options slab{.algorithm = group_by_algorithm::slab_hash};
  // The slab hash reserves the all-ones word; open_addressing does not.
  expect_invalid_argument([&] { (void)sluice::group_by_reduce(ctx(), keys.span(), values.span(), out_keys.span(), out_values.span(), sluice::plus{}, slab); },
                          "keys", 3);
  expect_invalid_argument([&] { (void)sluice::unique(ctx(), keys.span(), out_keys.span(), slab); }, "keys", 3);
  EXPECT_EQ(sluice::group_by_reduce(ctx(), keys.span(), values.span(), out_keys.span(), out_values.span(), sluice::plus{}), 3u);
  const auto good = to_device(ctx(), std::vector<std::uint32_t>{4, 4, 5, 6});
  for (const auto algorithm : every) {
    const sluice::group_by_options options{.algorithm = algorithm};
    expect_invalid_argument([&] { (void)sluice::group_by_reduce(ctx(), good.span(), values.span(), one.span(), out_values.span(), sluice::plus{}, options); },
                            "out_keys");
    expect_invalid_argument([&] { (void)sluice::group_by_reduce(ctx(), good.span(), values.span(), out_keys.span(), one.span(), sluice::plus{}, options); },
                            "out_values");
    expect_invalid_argument([&] { (void)sluice::unique(ctx(), good.span(), one.span(), options); }, "out");
    expect_invalid_argument([&] { (void)sluice::group_by_reduce(ctx(), good.span(), values.span().first(3), out_keys.span(), out_values.span(), sluice::plus{}, options); },
                            "values");
  }
  const sluice::group_by_options unknown{.algorithm = static_cast<group_by_algorithm>(42)};
  expect_invalid_argument([&] { (void)sluice::unique(ctx(), keys.span(), out_keys.span(), unknown); }, "options.algorithm");
  expect_invalid_argument([&] { (void)sluice::group_by_reduce(ctx(), keys.span(), values.span(), out_keys.span(), out_values.span(), sluice::plus{}, unknown); },
                          "options.algorithm");
  const sluice::group_by_options open{.algorithm = group_by_algorithm::open_addressing};
  expect_invalid_argument([&] { (void)sluice::group_by_reduce(ctx(), keys.span(), values.span(), out_keys.span(), out_values.span(), add_without_identity{}, open); },
                          "options.algorithm");
  const sluice::group_by_options parts{.algorithm = group_by_algorithm::partitioned};
  expect_invalid_argument([&] { (void)sluice::group_by_reduce(ctx(), keys.span(), values.span(), out_keys.span(), out_values.span(), add_without_identity{}, parts); },
                          "options.algorithm");
  std::vector<std::uint32_t> host(4);
  expect_invalid_argument([&] { (void)sluice::unique(ctx(), cuda::std::span<const std::uint32_t>(host.data(), host.size()), out_keys.span()); },
                          "keys");
}

}  // namespace
