// GPU tests of the commutative multireduce strategies (per_bank_shared, per_bank_multi_pass,
// global_atomic_sets) and of automatic for commutative operators, through the public sluice::multireduce,
// against reference::multireduce_into: plus on u32 (the full sweep: m 1 … 2^24, sizes around the
// per-bank and global steps, the seed's label distributions), plus on u64, float (tolerance) and double;
// min and max on integers (hardware atomics) and floating point (the CAS loop); a user commutative
// operator on u32 (gcd) and on an 8-byte struct (CAS loop); labels outside [0, m) in every input (dropped
// and counted), signed 64-bit labels, misaligned inputs (the one-pair-per-load path), explicit sets,
// accumulate mode, strict mode, bad arguments, 2^26 pairs, and 2^31 + 5 pairs (*Large*).
#include <sluice/data/generate.cuh>
#include <sluice/detail/multireduce/plan.hpp>
#include <sluice/multireduce.cuh>
#include <sluice/reference/multireduce.hpp>

#include "support/compare.hpp"
#include "support/errors.hpp"
#include "support/gpu_test.hpp"
#include "support/multireduce_cases.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace {

using sluice::multireduce_algorithm;
using sluice::data::distribution;
using sluice::testing::check_multireduce;
using sluice::testing::gpu_test;
using sluice::testing::multireduce_labels;
namespace mr = sluice::detail::multireduce;

class Multireduce : public gpu_test {};

/// gcd: commutative and associative, identity 0, no hardware atomic (the CAS loop on a 4-byte word).
struct gcd {
  static constexpr bool is_commutative = true;
  template <class T>
  __host__ __device__ static constexpr T identity() { return T(0); }
  template <class T>
  __host__ __device__ T operator()(T a, T b) const {
    while (b != 0) {
      const T r = a % b;
      a = b;
      b = r;
    }
    return a;
  }
};

/// An 8-byte struct under a commutative operator (sum, max): the CAS loop on an 8-byte word.
struct sum_max {
  std::uint32_t sum;
  std::uint32_t max;
  friend __host__ __device__ bool operator==(const sum_max& a, const sum_max& b) {
    return a.sum == b.sum && a.max == b.max;
  }
};
struct sum_max_op {
  static constexpr bool is_commutative = true;
  template <class T>
  __host__ __device__ static constexpr T identity() { return T{0, 0}; }
  __host__ __device__ sum_max operator()(const sum_max& a, const sum_max& b) const {
    return {a.sum + b.sum, a.max < b.max ? b.max : a.max};
  }
};

constexpr multireduce_algorithm atomic_strategies[] = {multireduce_algorithm::per_bank_shared,
                                                       multireduce_algorithm::per_bank_multi_pass,
                                                       multireduce_algorithm::global_atomic_sets};

/// The strategies that take m buckets of T here: automatic and global sets always, per-bank where one
/// block's shared memory holds them, multi-pass up to 2^20 (beyond, thousands of passes).
template <class T>
std::vector<multireduce_algorithm> strategies_for(sluice::context& ctx, std::uint32_t m) {
  std::vector<multireduce_algorithm> all{multireduce_algorithm::automatic, multireduce_algorithm::global_atomic_sets};
  if (m <= mr::per_bank_capacity(sizeof(T), mr::device_shared_budget(ctx, 0)))
    all.push_back(multireduce_algorithm::per_bank_shared);
  if (m <= (1u << 20)) all.push_back(multireduce_algorithm::per_bank_multi_pass);
  return all;
}

template <class T>
std::vector<T> values_of(std::size_t n, std::uint64_t seed) {
  if constexpr (std::is_same_v<T, sum_max>) {
    const auto w = sluice::data::generate_host<std::uint32_t>(2 * n, {distribution::uniform, 0, 0.0, seed});
    std::vector<sum_max> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = {w[2 * i], w[2 * i + 1]};
    return v;
  } else {
    return sluice::data::generate_host<T>(n, {distribution::uniform, 0, 0.0, seed});
  }
}

/// gcd over multiples of small numbers, so that bucket results are not all 1.
std::vector<std::uint32_t> gcd_values(std::size_t n, std::uint64_t seed) {
  auto v = sluice::data::generate_host<std::uint32_t>(n, {distribution::uniform, 64, 0.0, seed});
  for (std::size_t i = 0; i < n; ++i) v[i] = (v[i] + 1) * (i % 3 == 0 ? 6u : i % 3 == 1 ? 10u : 15u);
  return v;
}

constexpr distribution distributions[] = {distribution::uniform, distribution::all_equal, distribution::sorted,
                                          distribution::zipf, distribution::few_used};

/// 0, 1, 33, the global step (2 chunks · 4 pairs · 256 threads) and the per-bank step (· 512) ± 1, ~10^5.
std::vector<std::size_t> sizes() {
  return sluice::testing::sweep_sizes(std::vector<std::size_t>{0, 1, 33, 2047, 2049, 4095, 4097, 100003});
}

/// The full sweep: m from 1 to 2^24 × sizes × distributions × every strategy that takes m.
template <class T, class Op>
void full_sweep(sluice::context& ctx, Op op, double tolerance = -1.0) {
  constexpr std::uint32_t bucket_counts[] = {1, 2, 31, 32, 33, 256, 257, 4096, 1u << 16, 1u << 20, 1u << 24};
  for (std::uint32_t m : bucket_counts) {
    if (sluice::testing::under_sanitizer() && m > (1u << 16)) continue;
    for (std::size_t n : m >= (1u << 20) ? std::vector<std::size_t>{100003} : sizes())
      for (distribution d : distributions) {
        if (m >= (1u << 20) && d != distribution::uniform && d != distribution::all_equal) continue;
        const auto labels = multireduce_labels(n, m, d, n + m);
        const auto values = values_of<T>(n, n * 3 + m);
        SCOPED_TRACE(std::string(sluice::data::to_string(d)));
        for (multireduce_algorithm a : strategies_for<T>(ctx, m)) check_multireduce(ctx, {.algorithm = a}, labels, values, m, op, tolerance);
      }
  }
}

/// A shorter sweep for the other operators and types: m across the per-bank set counts and beyond.
template <class T, class Op>
void short_sweep(sluice::context& ctx, Op op, double tolerance = -1.0,
                 std::vector<T> (*make_values)(std::size_t, std::uint64_t) = values_of<T>) {
  for (std::uint32_t m : {1u, 33u, 257u, 4096u, 1u << 16})
    for (std::size_t n : sluice::testing::sweep_sizes(std::vector<std::size_t>{0, 33, 4097, 100003}))
      for (distribution d : {distribution::uniform, distribution::all_equal, distribution::sorted}) {
        const auto labels = multireduce_labels(n, m, d, n + 7 * m);
        const auto values = make_values(n, n + m);
        SCOPED_TRACE(std::string(sluice::data::to_string(d)));
        for (multireduce_algorithm a : strategies_for<T>(ctx, m)) check_multireduce(ctx, {.algorithm = a}, labels, values, m, op, tolerance);
      }
}

TEST_F(Multireduce, PlusU32FullSweep) { full_sweep<std::uint32_t>(ctx(), sluice::plus{}); }
TEST_F(Multireduce, PlusU64) { short_sweep<std::uint64_t>(ctx(), sluice::plus{}); }
TEST_F(Multireduce, PlusFloatWithinTolerance) { short_sweep<float>(ctx(), sluice::plus{}, 1e-4); }
TEST_F(Multireduce, PlusDoubleWithinTolerance) { short_sweep<double>(ctx(), sluice::plus{}, 1e-12); }
TEST_F(Multireduce, MinMaxIntegers) {
  short_sweep<std::int32_t>(ctx(), sluice::min{});
  short_sweep<std::uint32_t>(ctx(), sluice::max{});
  short_sweep<std::int64_t>(ctx(), sluice::max{});
}
TEST_F(Multireduce, MinMaxFloatingPointByCompareAndSwap) {
  short_sweep<float>(ctx(), sluice::max{});
  short_sweep<double>(ctx(), sluice::min{});
}
TEST_F(Multireduce, BitOperators) {
  short_sweep<std::uint32_t>(ctx(), sluice::bit_xor{});
  short_sweep<std::uint64_t>(ctx(), sluice::bit_or{});
}
TEST_F(Multireduce, UserOperatorByCompareAndSwap) { short_sweep<std::uint32_t>(ctx(), gcd{}, -1.0, gcd_values); }
TEST_F(Multireduce, EightByteStructByCompareAndSwap) { short_sweep<sum_max>(ctx(), sum_max_op{}); }

TEST_F(Multireduce, SignedLabelsOutsideRangeAreDropped) {
  const std::size_t n = sluice::testing::scaled_size(100003, 5003);
  for (std::uint32_t m : {1u, 300u, 70000u}) {
    auto labels = multireduce_labels<std::int64_t>(n, m, distribution::uniform, m);
    for (std::size_t i = 5; i < n; i += 31) labels[i] = -static_cast<std::int64_t>(i % 5) - 1;
    labels[0] = std::numeric_limits<std::int64_t>::min();
    labels[n - 1] = std::numeric_limits<std::int64_t>::max();
    const auto values = values_of<std::uint32_t>(n, 3);
    for (multireduce_algorithm a : strategies_for<std::uint32_t>(ctx(), m))
      check_multireduce(ctx(), {.algorithm = a}, labels, values, m, sluice::plus{});
  }
}

TEST_F(Multireduce, MisalignedInputsTakeTheGeneralPath) {
  const std::size_t n = sluice::testing::scaled_size(100003, 5003);
  const std::uint32_t m = 1000;
  const auto labels = multireduce_labels(n + 1, m, distribution::zipf, 5);
  const auto values = values_of<std::uint32_t>(n + 1, 6);
  const sluice::device_buffer<std::uint32_t> d_labels(ctx(), std::span<const std::uint32_t>(labels));
  const sluice::device_buffer<std::uint32_t> d_values(ctx(), std::span<const std::uint32_t>(values));
  std::vector<std::uint32_t> expected(m, 0);
  // labels from element 1 (4 bytes past a 16-byte boundary), values from element 0
  const std::size_t expected_dropped = sluice::reference::multireduce_into(
      std::span<const std::uint32_t>(labels).subspan(1), std::span<const std::uint32_t>(values).first(n),
      sluice::plus{}, std::span<std::uint32_t>(expected));
  sluice::device_buffer<std::uint32_t> out(ctx(), m);
  sluice::device_buffer<std::size_t> dropped(ctx(), 1);
  for (multireduce_algorithm a : strategies_for<std::uint32_t>(ctx(), m)) {
    out.fill_bytes(0xA5);
    sluice::multireduce(ctx(), d_labels.span().subspan(1), d_values.span().first(n), out.span(), sluice::plus{},
                        dropped.data(), {.algorithm = a});
    ASSERT_TRUE(sluice::testing::all_equal(out.to_host(), expected)) << sluice::to_string(a);
    ASSERT_EQ(dropped.to_host()[0], expected_dropped) << sluice::to_string(a);
  }
}

TEST_F(Multireduce, GlobalSetsExplicitSetCounts) {
  const std::size_t n = sluice::testing::scaled_size(100003, 5003);
  for (std::uint32_t m : {1u, 257u, 1u << 16})
    for (distribution d : {distribution::uniform, distribution::all_equal}) {
      const auto labels = multireduce_labels(n, m, d, m + 1);
      const auto values = values_of<std::uint32_t>(n, m + 2);
      for (unsigned sets : {1u, 2u, 8u, 32u})
        check_multireduce(ctx(), {.algorithm = multireduce_algorithm::global_atomic_sets, .sets = sets,
                                  .partial_sort_bits = 0},
                          labels, values, m, sluice::plus{});
    }
}

TEST_F(Multireduce, AccumulateFoldsOntoOut) {
  const std::size_t n = sluice::testing::scaled_size(100003, 5003);
  for (std::uint32_t m : {1u, 257u, 5000u, 1u << 20}) {
    const auto labels = multireduce_labels(n, m, distribution::uniform, m);
    const auto values = values_of<std::uint32_t>(n, m + 1);
    std::vector<std::uint32_t> start(m);
    for (std::uint32_t b = 0; b < m; ++b) start[b] = 1000u * b + 17u;
    for (multireduce_algorithm a : strategies_for<std::uint32_t>(ctx(), m))
      check_multireduce(ctx(), {.algorithm = a}, labels, values, m, sluice::plus{}, -1.0, &start);
    std::vector<std::uint32_t> low(m, 5);  // min onto contents that some values beat
    for (multireduce_algorithm a : strategies_for<std::uint32_t>(ctx(), m))
      check_multireduce(ctx(), {.algorithm = a}, labels, values, m, sluice::min{}, -1.0, &low);
  }
}

/// 2^26 pairs: all-equal labels over 32 buckets, uniform over 4096 and 2^20, every strategy that takes m.
TEST_F(Multireduce, SixtyFourMillionPairs) {
  if (sluice::testing::under_sanitizer()) GTEST_SKIP() << "2^26 pairs: too slow instrumented";
  const std::size_t n = std::size_t{1} << 26;
  const std::pair<std::uint32_t, distribution> cases[] = {
      {32u, distribution::all_equal}, {4096u, distribution::uniform}, {1u << 20, distribution::uniform}};
  for (const auto& [m, d] : cases) {
    const auto labels = multireduce_labels(n, m, d, m);
    const auto values = values_of<std::uint32_t>(n, m + 1);
    for (multireduce_algorithm a : strategies_for<std::uint32_t>(ctx(), m)) {
      if (a == multireduce_algorithm::per_bank_multi_pass && m > 4096) continue;
      check_multireduce(ctx(), {.algorithm = a}, labels, values, m, sluice::plus{});
    }
  }
}

TEST_F(Multireduce, StrictModeNamesTheFirstBadLabelAndLeavesOutUntouched) {
  const std::size_t n = 10000;
  std::vector<std::int32_t> labels(n, 3);
  labels[4321] = -1;
  labels[7000] = 100;
  const std::vector<std::uint32_t> values(n, 1);
  const sluice::device_buffer<std::int32_t> d_labels(ctx(), std::span<const std::int32_t>(labels));
  const sluice::device_buffer<std::uint32_t> d_values(ctx(), std::span<const std::uint32_t>(values));
  sluice::device_buffer<std::uint32_t> out(ctx(), 10);
  for (multireduce_algorithm a : atomic_strategies) {
    out.fill_bytes(0x5A);
    sluice::testing::expect_invalid_argument(
        [&] {
          sluice::multireduce(ctx(), d_labels.span(), d_values.span(), out.span(), sluice::plus{}, nullptr,
                              {.algorithm = a, .strict = true});
        },
        "labels", std::size_t{4321});
    ASSERT_TRUE(sluice::testing::all_equal(out.to_host(), std::vector<std::uint32_t>(10, 0x5A5A5A5Au)))
        << sluice::to_string(a);
  }
}

TEST_F(Multireduce, BadArgumentsAreRejected) {
  using sluice::testing::expect_invalid_argument;
  sluice::device_buffer<std::uint32_t> labels(ctx(), 100), values(ctx(), 100), out(ctx(), 10), none(ctx(), 0);
  sluice::device_buffer<std::uint32_t> huge(ctx(), std::size_t{1} << 20);
  sluice::device_buffer<sluice::affine<std::uint32_t>> maps(ctx(), 100), composed(ctx(), 10);
  std::vector<std::uint32_t> host(100);
  const cuda::std::span<std::uint32_t> host_labels(host.data(), host.size());
  auto run = [&](auto l, auto v, auto o, sluice::multireduce_options options = {}) {
    return [=] { sluice::multireduce(ctx(), l, v, o, sluice::plus{}, nullptr, options); };
  };
  expect_invalid_argument(run(labels.span(), values.span(), none.span()), "out");  // m = 0
  expect_invalid_argument(run(host_labels, values.span(), out.span()), "labels");
  expect_invalid_argument(run(labels.span(), values.span().first(99), out.span()), "values");
  expect_invalid_argument(run(labels.span(), values.span(), values.span().subspan(90)), "out");  // overlaps values
  expect_invalid_argument(run(labels.span(), values.span(), labels.span().first(10)), "out");   // overlaps labels
  for (multireduce_algorithm a : atomic_strategies) {
    expect_invalid_argument(
        [&] {
          sluice::multireduce(ctx(), labels.span(), maps.span(), composed.span(), sluice::affine_compose{}, nullptr,
                              {.algorithm = a});
        },
        "options");  // non-commutative
    expect_invalid_argument(run(labels.span(), values.span(), out.span(), {.algorithm = a, .deterministic = true}),
                            "options");
  }
  expect_invalid_argument(
      run(labels.span(), values.span(), huge.span(), {.algorithm = multireduce_algorithm::per_bank_shared}),
      "options");  // 2^20 four-byte buckets do not fit one block
  expect_invalid_argument(run(labels.span(), values.span(), out.span(),
                              {.algorithm = multireduce_algorithm::global_atomic_sets, .sets = 3}),
                          "options");
  expect_invalid_argument(run(labels.span(), values.span(), out.span(),
                              {.algorithm = multireduce_algorithm::global_atomic_sets, .partial_sort_bits = 5}),
                          "options");  // not supported yet
}

/// 2^31 + 5 pairs of u8 labels (the sorted staircase over 256 buckets, generated on the device) and u32
/// values 0x01010101: bucket k gets the length of its stair times 0x01010101 (mod 2^32).
TEST_F(Multireduce, LargeBeyond32BitIndexing) {
  if (sluice::testing::under_sanitizer()) GTEST_SKIP() << "10.7 GB of input: too slow instrumented";
  const std::size_t n = (std::size_t{1} << 31) + 5;
  const std::uint32_t m = 256;
  sluice::device_buffer<std::uint8_t> labels(ctx(), n);
  sluice::data::generate(ctx(), labels.span(), {distribution::sorted, m, 0.0, 1});
  sluice::device_buffer<std::uint32_t> values(ctx(), n);
  values.fill_bytes(0x01);
  // label(i) = ⌊i·256/n⌋, so bucket k starts at ⌈k·n/256⌉.
  auto start = [&](std::uint64_t k) { return (k * n + m - 1) / m; };
  std::vector<std::uint32_t> expected(m);
  for (std::uint32_t k = 0; k < m; ++k)
    expected[k] = static_cast<std::uint32_t>((start(k + 1) - start(k)) * 0x01010101ull);
  sluice::device_buffer<std::uint32_t> out(ctx(), m);
  sluice::device_buffer<std::size_t> dropped(ctx(), 1);
  for (multireduce_algorithm a : {multireduce_algorithm::automatic, multireduce_algorithm::per_bank_shared,
                                  multireduce_algorithm::global_atomic_sets}) {
    out.fill_bytes(0xA5);
    sluice::multireduce(ctx(), labels.span(), values.span(), out.span(), sluice::plus{}, dropped.data(),
                        {.algorithm = a});
    ASSERT_TRUE(sluice::testing::all_equal(out.to_host(), expected)) << sluice::to_string(a);
    ASSERT_EQ(dropped.to_host()[0], 0u) << sluice::to_string(a);
  }
}

}  // namespace
