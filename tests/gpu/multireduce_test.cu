// GPU tests of the commutative multireduce strategies (per_bank_shared, per_bank_multi_pass,
// global_atomic_sets) and of automatic for commutative operators, through the public sluice::multireduce,
// against reference::multireduce_into: plus on u32 (the full sweep: m 1 … 2^24, sizes around the
// per-bank and global steps, the seed's label distributions), plus on u64, float (tolerance) and double;
// min and max on integers (hardware atomics) and floating point of both signs with infinities and NaNs
// (integer atomics in the per-bank sets, the CAS loop in global memory); a user commutative
// operator on u32 (gcd) and on an 8-byte struct (CAS loop); labels outside [0, m) in every input (dropped
// and counted), signed 64-bit labels, misaligned inputs (the one-pair-per-load path), explicit sets,
// the partial radix sort of global_atomic_sets (explicit bits 1, 5 and ⌈log2 m⌉; the chosen bits run in
// the full sweep), accumulate mode, strict mode, bad arguments, working memory beyond the device's
// (*ApiError*: out_of_memory, then the context still works), 2^26 pairs, and 2^31 + 5 pairs (*Large*).
#include <sluice/data/generate.cuh>
#include <sluice/detail/multireduce/plan.hpp>
#include <sluice/multireduce.cuh>
#include <sluice/reference/multireduce.hpp>

#include "support/compare.hpp"
#include "support/errors.hpp"
#include "support/gpu_test.hpp"
#include "support/multireduce_cases.hpp"

#include <algorithm>
#include <bit>
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

/// Floats of both signs, with infinities and NaNs of both signs (which every strategy skips, as the
/// oracle's `a < b ? b : a` from the identity does), and no zeros (−0 and +0 tie in the oracle): the
/// per-bank sets order min and max by the values' bits as integers (core/atomics.cuh).
template <class T>
std::vector<T> signed_floats(std::size_t n, std::uint64_t seed) {
  auto v = sluice::data::generate_host<T>(n, {distribution::uniform, 0, 0.0, seed});
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t k = ((i + seed) * 0x9E3779B97F4A7C15ull) >> 59;  // 0 … 31
    const T magnitude = v[i] + T(0.5);
    v[i] = k == 0   ? std::numeric_limits<T>::quiet_NaN()
           : k == 1 ? -std::numeric_limits<T>::quiet_NaN()
           : k == 2 ? std::numeric_limits<T>::infinity()
           : k == 3 ? -std::numeric_limits<T>::infinity()
           : (k & 1) ? -magnitude
                     : magnitude;
  }
  return v;
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
  // Under a sanitizer: the m that switch strategy or set layout (1, 33, 257, 4096, 2^16), uniform and all-equal.
  const auto sanitizer_skips = [](std::uint32_t m, distribution d) {
    const bool path_m = m == 1 || m == 33 || m == 257 || m == 4096 || m == (1u << 16);
    return !path_m || (d != distribution::uniform && d != distribution::all_equal);
  };
  for (std::uint32_t m : bucket_counts) {
    for (std::size_t n : m >= (1u << 20) ? std::vector<std::size_t>{100003} : sizes())
      for (distribution d : distributions) {
        if (sluice::testing::under_sanitizer() && sanitizer_skips(m, d)) continue;
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
  for (std::uint32_t m : {1u, 33u, 257u, 4096u, 1u << 16, 1u << 17})
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
TEST_F(Multireduce, MinMaxFloatingPoint) {
  short_sweep<float>(ctx(), sluice::max{});
  short_sweep<double>(ctx(), sluice::min{});
  short_sweep<float>(ctx(), sluice::max{}, -1.0, signed_floats<float>);
  short_sweep<float>(ctx(), sluice::min{}, -1.0, signed_floats<float>);
  short_sweep<double>(ctx(), sluice::max{}, -1.0, signed_floats<double>);
  short_sweep<double>(ctx(), sluice::min{}, -1.0, signed_floats<double>);
}
TEST_F(Multireduce, BitOperators) {
  short_sweep<std::uint32_t>(ctx(), sluice::bit_xor{});
  short_sweep<std::uint64_t>(ctx(), sluice::bit_or{});
}
TEST_F(Multireduce, UserOperatorByCompareAndSwap) { short_sweep<std::uint32_t>(ctx(), gcd{}, -1.0, gcd_values); }
TEST_F(Multireduce, EightByteStructByCompareAndSwap) { short_sweep<sum_max>(ctx(), sum_max_op{}); }

/// Uniform signed labels in [0, m) with every 31st (from 5) negative and the type's two extremes at the
/// ends: labels to drop and count.
std::vector<std::int64_t> signed_labels_with_outsiders(std::size_t n, std::uint32_t m) {
  auto labels = multireduce_labels<std::int64_t>(n, m, distribution::uniform, m);
  for (std::size_t i = 5; i < n; i += 31) labels[i] = -static_cast<std::int64_t>(i % 5) - 1;
  labels[0] = std::numeric_limits<std::int64_t>::min();
  labels[n - 1] = std::numeric_limits<std::int64_t>::max();
  return labels;
}

TEST_F(Multireduce, SignedLabelsOutsideRangeAreDropped) {
  const std::size_t n = sluice::testing::scaled_size(100003, 5003);
  for (std::uint32_t m : {1u, 300u, 70000u}) {
    const auto labels = signed_labels_with_outsiders(n, m);
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

/// The partial sort bits the tests ask for at m: 1, 5 (below a whole digit) and ⌈log2 m⌉ (a full sort).
std::vector<int> partial_sort_bits_for_test(std::uint32_t m) {
  std::vector<int> bits;
  for (int b : {1, 5, mr::label_bits(m)})
    if (b <= mr::label_bits(m) && std::find(bits.begin(), bits.end(), b) == bits.end()) bits.push_back(b);
  return bits;
}

/// global_atomic_sets after the partial radix sort (Eilers Table 4.2): bits × sets ∈ {1, 4} × m from
/// below one digit to 2^20 × uniform, all-equal and few-used labels (every 97th dropped) × sizes 0, 1,
/// 33, 4097, 10^5 and 3·10^6; then accumulate onto known contents with the full sort. Under a sanitizer
/// (every sort is a radix sort's kernels, slow instrumented) the sizes up to 2^15, m up to 2^16 and
/// uniform and all-equal labels, as the other sweeps keep.
template <class T>
void partial_sort_sweep(sluice::context& ctx, double tolerance) {
  const std::vector<std::size_t> sizes =
      sluice::testing::sweep_sizes(std::vector<std::size_t>{0, 1, 33, 4097, 100003, 3000017});
  for (std::uint32_t m : {33u, 4096u, 1u << 16, 1u << 20}) {
    if (sluice::testing::under_sanitizer() && m > (1u << 16)) continue;
    for (std::size_t n : sizes)
      for (distribution d : {distribution::uniform, distribution::all_equal, distribution::few_used}) {
        if (sluice::testing::under_sanitizer() && d == distribution::few_used) continue;
        const auto labels = multireduce_labels(n, m, d, n + 5 * m);
        const auto values = values_of<T>(n, n + m + 1);
        SCOPED_TRACE(std::string(sluice::data::to_string(d)));
        for (int bits : partial_sort_bits_for_test(m))
          for (unsigned sets : {1u, 4u}) {
            SCOPED_TRACE("partial_sort_bits = " + std::to_string(bits) + ", sets = " + std::to_string(sets));
            check_multireduce(ctx, {.algorithm = multireduce_algorithm::global_atomic_sets, .sets = sets,
                                    .partial_sort_bits = bits},
                              labels, values, m, sluice::plus{}, tolerance);
          }
      }
    const std::size_t n = sluice::testing::scaled_size(100003, 4097);
    const auto labels = multireduce_labels(n, m, distribution::uniform, m + 3);
    const auto values = values_of<T>(n, m + 4);
    std::vector<T> start(m);
    for (std::uint32_t b = 0; b < m; ++b) start[b] = static_cast<T>(b % 1000 + 17);
    for (unsigned sets : {1u, 4u})
      check_multireduce(ctx, {.algorithm = multireduce_algorithm::global_atomic_sets, .sets = sets,
                              .partial_sort_bits = mr::label_bits(m)},
                        labels, values, m, sluice::plus{}, tolerance, &start);
  }
}

TEST_F(Multireduce, GlobalSetsPartialSortPlusU32) { partial_sort_sweep<std::uint32_t>(ctx(), -1.0); }
// 1e-3: all-equal labels put 3·10^6 values of [0, 1) in one float bucket, where the oracle's own
// sequential rounding drifts by about 4e-5 of the sum (one standard deviation).
TEST_F(Multireduce, GlobalSetsPartialSortPlusFloatWithinTolerance) { partial_sort_sweep<float>(ctx(), 1e-3); }

/// Labels outside [0, m) of a signed type (negative, the type's extremes) are dropped and counted once
/// through the sort too: the ids pass maps them to m and only the global sets kernel counts them.
TEST_F(Multireduce, GlobalSetsPartialSortDropsSignedLabelsOnce) {
  const std::size_t n = sluice::testing::scaled_size(100003, 5003);
  for (std::uint32_t m : {2u, 300u, 70000u}) {
    const auto labels = signed_labels_with_outsiders(n, m);
    const auto values = values_of<std::uint32_t>(n, 3);
    for (int bits : partial_sort_bits_for_test(m))
      check_multireduce(ctx(), {.algorithm = multireduce_algorithm::global_atomic_sets, .partial_sort_bits = bits},
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
  std::vector<sluice::multireduce_options> runs;
  for (multireduce_algorithm a : atomic_strategies) runs.push_back({.algorithm = a, .strict = true});
  runs.push_back({.algorithm = multireduce_algorithm::global_atomic_sets, .strict = true, .partial_sort_bits = 4});
  for (const sluice::multireduce_options& options : runs) {
    out.fill_bytes(0x5A);
    sluice::testing::expect_invalid_argument(
        [&] {
          sluice::multireduce(ctx(), d_labels.span(), d_values.span(), out.span(), sluice::plus{}, nullptr, options);
        },
        "labels", std::size_t{4321});
    ASSERT_TRUE(sluice::testing::all_equal(out.to_host(), std::vector<std::uint32_t>(10, 0x5A5A5A5Au)))
        << sluice::to_string(options.algorithm) << ", partial_sort_bits = " << options.partial_sort_bits;
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
  // A label below m = 10 has 4 bits: 5 is more than a full sort; below −1 means nothing.
  for (int bits : {5, 33, -2})
    expect_invalid_argument(run(labels.span(), values.span(), out.span(),
                                {.algorithm = multireduce_algorithm::global_atomic_sets, .partial_sort_bits = bits}),
                            "options");
}

/// Gives back to the driver what the suite's pool keeps (its release threshold keeps everything), so that
/// a test of working memory beyond the device's sees the device's free memory.
void trim_pool(sluice::context& ctx) {
  ctx.synchronize();
  SLUICE_CUDA_CHECK(cudaMemPoolTrimTo(ctx.memory_pool(), 0));
}

/// Runs `call`, which must throw sluice::out_of_memory naming multireduce, the strategy and `bytes`.
template <class Call>
void expect_out_of_memory(Call call, multireduce_algorithm strategy, std::uint64_t bytes) {
  try {
    call();
    FAIL() << "no out_of_memory from " << sluice::to_string(strategy);
  } catch (const sluice::out_of_memory& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.code(), cudaErrorMemoryAllocation);
    EXPECT_NE(what.find("multireduce (" + std::string(sluice::to_string(strategy)) + ")"), std::string::npos) << what;
    EXPECT_NE(what.find(" of " + std::to_string(bytes) + " bytes"), std::string::npos) << what;
  }
}

/// After an out_of_memory the context still works: a small multireduce with the same options is right.
void expect_context_still_works(sluice::context& ctx, const sluice::multireduce_options& options) {
  trim_pool(ctx);
  const std::uint32_t m = 1000;
  const auto labels = multireduce_labels(4097, m, distribution::uniform, 11);
  const auto values = values_of<std::uint32_t>(4097, 12);
  check_multireduce(ctx, options, labels, values, m, sluice::plus{});
}

// Tests named *ApiError* make runtime calls fail on purpose; the sanitizer runs leave them out.

/// global_atomic_sets with 32 sets of m u64 buckets: m is the smallest power of two whose sets exceed
/// the device's whole memory (2^29 on an 80 GB H100: 128 GiB of sets, out 4 GiB), so out itself fits.
TEST_F(Multireduce, ApiErrorGlobalSetsBeyondDeviceMemoryIsOutOfMemory) {
  constexpr unsigned sets = 32;
  const std::uint64_t m = std::bit_ceil(ctx().properties().global_memory_bytes / (sets * sizeof(std::uint64_t)) + 1);
  if (m > (std::uint64_t{1} << 31)) GTEST_SKIP() << "a device this large takes m ≥ 2^32 to exceed its memory";
  trim_pool(ctx());
  const std::size_t n = 1000;
  sluice::device_buffer<std::uint32_t> labels(ctx(), n);
  sluice::device_buffer<std::uint64_t> values(ctx(), n);
  labels.fill_bytes(0);
  values.fill_bytes(0);
  const sluice::multireduce_options options{.algorithm = multireduce_algorithm::global_atomic_sets, .sets = sets,
                                            .partial_sort_bits = 0};
  {
    sluice::device_buffer<std::uint64_t> out(ctx(), m);
    constexpr std::uint64_t quantum = mr::tuning::global_sets_stride_quantum;
    const std::uint64_t stride = (m + quantum - 1) / quantum * quantum;
    expect_out_of_memory(
        [&] {
          sluice::multireduce(ctx(), labels.span(), values.span(), out.span(), sluice::plus{}, nullptr, options);
          ctx().synchronize();
        },
        options.algorithm, sets * stride * sizeof(std::uint64_t));
  }
  expect_context_still_works(ctx(), options);
}

/// The sort-based paths with n pairs whose temporaries cannot fit: u32 labels and values take half the
/// free memory (8n bytes), and before its first kernel each path asks for at least three more arrays of
/// 4n bytes (sorted ids, sorted values, ids): 125% of what was free. Every one of those arrays is 4n
/// bytes, so the message names 4n whichever fails first. Cheap: two memsets, no kernel over the pairs.
TEST_F(Multireduce, ApiErrorSortTemporariesBeyondDeviceMemoryIsOutOfMemory) {
  trim_pool(ctx());
  std::size_t free_bytes = 0, total_bytes = 0;
  SLUICE_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::size_t n = free_bytes / 16;
  const std::uint32_t m = 1u << 20;
  const sluice::multireduce_options runs[] = {
      {.algorithm = multireduce_algorithm::global_sort_reduce_by_key},
      {.algorithm = multireduce_algorithm::global_atomic_sets, .sets = 4, .partial_sort_bits = 8}};
  for (const sluice::multireduce_options& options : runs) {
    {
      sluice::device_buffer<std::uint32_t> labels(ctx(), n), values(ctx(), n), out(ctx(), m);
      labels.fill_bytes(0);
      values.fill_bytes(0);
      expect_out_of_memory(
          [&] {
            sluice::multireduce(ctx(), labels.span(), values.span(), out.span(), sluice::plus{}, nullptr, options);
            ctx().synchronize();
          },
          options.algorithm, std::uint64_t{4} * n);
    }
    expect_context_still_works(ctx(), options);
  }
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
