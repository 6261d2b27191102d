// GPU tests of the order-preserving multireduce strategies (block_sort_segmented, global_sort_reduce_by_key,
// vector for m ≤ vector_max_buckets, warp_private_sets for m ≤ 1024) through the public sluice::multireduce with options.algorithm set, against reference::multireduce:
// plus on u32 (exact) and float (tolerance), min, max, and the non-commutative affine composition and
// 2x2 matrix product mod p (exact: a strategy that loses index order fails them); m from 1 to 2^24 (both
// of block_sort_segmented's forms: shared accumulators and records; every M of vector's), sizes around
// the sort tiles, vector's warp tiles, warp_private_sets' windows and the warp size, and with several tiles per block or warp, the seed's label distributions, labels outside [0, m) in every input
// (dropped and counted), signed 64-bit labels, accumulate mode, bit-identical float sums across runs,
// strict mode, m = 0, and 2^31 + 5 pairs (*Large*).
#include <sluice/data/generate.cuh>
#include <sluice/detail/multireduce/sorted_tile.cuh>
#include <sluice/detail/multireduce/vector.cuh>
#include <sluice/detail/multireduce/warp_private_sets.cuh>
#include <sluice/multireduce.cuh>
#include <sluice/reference/multireduce.hpp>

#include "support/compare.hpp"
#include "support/errors.hpp"
#include "support/gpu_test.hpp"
#include "support/multireduce_cases.hpp"
#include "support/random_operands.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using sluice::multireduce_algorithm;
using sluice::data::distribution;
using sluice::testing::all_equal;
using sluice::testing::all_near;
using sluice::testing::gpu_test;

class MultireduceOrdered : public gpu_test {};

constexpr multireduce_algorithm ordered[] = {multireduce_algorithm::block_sort_segmented,
                                             multireduce_algorithm::global_sort_reduce_by_key};
using mr_tuning = sluice::detail::multireduce::tuning;
constexpr std::uint32_t vector_max_buckets = mr_tuning::vector_max_buckets;

/// warp_private_sets is tested up to this m: its 8 sets of 1024 values of up to 16 bytes (128 KiB) fit
/// one block of an sm_90 device (227 KiB).
constexpr std::uint32_t warp_sets_tested_buckets = 1024;

/// The ordered strategies that take m buckets: vector only up to vector_max_buckets, warp_private_sets
/// up to warp_sets_tested_buckets.
std::vector<multireduce_algorithm> ordered_for(std::uint32_t m) {
  std::vector<multireduce_algorithm> strategies(std::begin(ordered), std::end(ordered));
  if (m <= vector_max_buckets) strategies.push_back(multireduce_algorithm::vector);
  if (m <= warp_sets_tested_buckets) strategies.push_back(multireduce_algorithm::warp_private_sets);
  return strategies;
}

using affine = sluice::affine<std::uint32_t>;
using sluice::testing::matrix_modulus;

/// Runs `algorithm` on the inputs and checks buckets and dropped count against the oracle
/// (support/multireduce_cases.hpp); tolerance < 0: exact; `start`: accumulate onto these contents.
template <class L, class T, class Op>
void check(sluice::context& ctx, multireduce_algorithm algorithm, const std::vector<L>& labels,
           const std::vector<T>& values, std::uint32_t m, Op op, double tolerance = -1.0,
           const std::vector<T>* start = nullptr) {
  sluice::testing::check_multireduce(ctx, {.algorithm = algorithm}, labels, values, m, op, tolerance, start);
}

constexpr std::uint32_t bucket_counts[] = {1, 2, 3, 4, 5, 8, 31, 32, 33, 256, 257, 4096, 1u << 16, 1u << 20, 1u << 24};

/// 0, 1, 33, one sort tile ± 1 and ~10^5 (33 tiles); m ≥ 2^20 only at 10^5 (its output dominates the time).
/// Where vector runs (m ≤ vector_max_buckets), also 31, 32 and one of its warp tiles ± 1.
template <class T>
std::vector<std::size_t> sizes_for(std::uint32_t m) {
  const std::size_t tile = mr_tuning::sort_tile_shape<T>::tile;
  if (m >= (1u << 20)) return {100003};
  std::vector<std::size_t> sizes{0, 1, 33, tile - 1, tile + 1, 100003};
  if (m <= vector_max_buckets) {
    const std::size_t warp_tile = 32 * mr_tuning::vector_items(sizeof(std::uint32_t), sizeof(T));
    sizes.insert(sizes.end(), {31, 32, warp_tile - 1, warp_tile, warp_tile + 1});
  }
  return sluice::testing::sweep_sizes(sizes);
}

/// Every ordered strategy × m × size × distribution for one operator.
template <class T, class Op>
void sweep(sluice::context& ctx, Op op, double tolerance = -1.0) {
  const auto run = [&](std::uint32_t m, std::size_t n, distribution d) {
    const auto labels = sluice::testing::multireduce_labels(n, m, d, n + m);
    const auto values = sluice::testing::ordered_values<T>(n, n * 3 + m);
    for (multireduce_algorithm algorithm : ordered_for(m)) {
      SCOPED_TRACE(std::string(sluice::data::to_string(d)));
      check(ctx, algorithm, labels, values, m, op, tolerance);
    }
  };
  sluice::testing::for_each_sweep_case(bucket_counts, sizes_for<T>, run);
}

TEST_F(MultireduceOrdered, PlusU32) { sweep<std::uint32_t>(ctx(), sluice::plus{}); }
TEST_F(MultireduceOrdered, PlusFloat) { sweep<float>(ctx(), sluice::plus{}, 1e-3); }
TEST_F(MultireduceOrdered, MinU32) { sweep<std::uint32_t>(ctx(), sluice::min{}); }
TEST_F(MultireduceOrdered, MaxU32) { sweep<std::uint32_t>(ctx(), sluice::max{}); }
TEST_F(MultireduceOrdered, AffineComposeIsExact) { sweep<affine>(ctx(), sluice::affine_compose{}); }
TEST_F(MultireduceOrdered, MatrixProductModPIsExact) {
  sweep<sluice::mat2>(ctx(), sluice::mat2_multiply_mod{matrix_modulus});
}

/// Enough tiles that each block of the accumulator form folds several in order, and a records-form m.
TEST_F(MultireduceOrdered, ManyTilesPerBlock) {
  const std::size_t n = sluice::testing::scaled_size((std::size_t{1} << 22) + 3, 40000);
  for (std::uint32_t m : {3u, 8u, 33u, 4096u, 1u << 16})
    for (distribution d : {distribution::uniform, distribution::all_equal}) {
      const auto labels = sluice::testing::multireduce_labels(n, m, d, m);
      for (multireduce_algorithm algorithm : ordered_for(m)) {
        check(ctx(), algorithm, labels, sluice::testing::ordered_values<affine>(n, 5), m, sluice::affine_compose{});
        check(ctx(), algorithm, labels, sluice::testing::ordered_values<std::uint32_t>(n, 6), m, sluice::plus{});
      }
    }
}

TEST_F(MultireduceOrdered, SixtyFourMillionPairs) {
  if (sluice::testing::under_sanitizer()) GTEST_SKIP() << "2^26 pairs: too slow under a sanitizer";
  const std::size_t n = std::size_t{1} << 26;
  for (std::uint32_t m : {8u, 256u, 1u << 20}) {
    const auto labels = sluice::testing::multireduce_labels(n, m, distribution::uniform, 77);
    for (multireduce_algorithm algorithm : ordered_for(m))
      check(ctx(), algorithm, labels, sluice::testing::ordered_values<affine>(n, 78), m, sluice::affine_compose{});
  }
}

/// Negative and too-large signed 64-bit labels are dropped and counted; labels at m − 1 are kept.
TEST_F(MultireduceOrdered, SignedLabelsOutsideRangeAreDropped) {
  const std::size_t n = 50001;
  const std::uint32_t m = 300;
  auto labels = sluice::testing::multireduce_labels<std::int64_t>(n, m, distribution::uniform, 3);
  for (std::size_t i = 0; i < n; i += 7) labels[i] = i % 2 ? -static_cast<std::int64_t>(i) : std::int64_t{1} << 40;
  for (std::size_t i = 3; i < n; i += 11) labels[i] = m - 1;
  for (multireduce_algorithm algorithm : ordered) {
    check(ctx(), algorithm, labels, sluice::testing::ordered_values<affine>(n, 4), m, sluice::affine_compose{});
    check(ctx(), algorithm, labels, sluice::testing::ordered_values<std::uint32_t>(n, 4), m, sluice::plus{});
  }
}

TEST_F(MultireduceOrdered, AccumulateFoldsOntoOut) {
  for (std::uint32_t m : {1u, 7u, 5000u, 1u << 16}) {
    const std::size_t n = 30011;
    const auto labels = sluice::testing::multireduce_labels(n, m, distribution::zipf, m);
    const auto start = sluice::testing::ordered_values<affine>(m, 9);
    const auto start_sums = sluice::testing::ordered_values<std::uint32_t>(m, 10);
    for (multireduce_algorithm algorithm : ordered_for(m)) {
      check(ctx(), algorithm, labels, sluice::testing::ordered_values<affine>(n, 11), m, sluice::affine_compose{}, -1.0, &start);
      check(ctx(), algorithm, labels, sluice::testing::ordered_values<std::uint32_t>(n, 12), m, sluice::plus{}, -1.0, &start_sums);
    }
  }
}

/// Float sums have the same bits on every run (the contract of options.deterministic), for every
/// order-preserving strategy and automatic with options.deterministic. The cases reach each combination
/// step: m = 1 with 2^22 + pairs (one run over thousands of tiles in the sorted finish's merge path),
/// few buckets used out of 2^16 (block_sort_segmented's records path, runs of many merge-path tiles),
/// uniform 2^16 and 20000 (records, many short runs), 100 (block_sort_segmented's accumulators), and
/// vector for m ≤ 8. Three runs each; the first also matches the oracle within the rounding tolerance.
TEST_F(MultireduceOrdered, FloatSumsAreBitIdenticalAcrossRuns) {
  struct float_case {
    std::size_t n;
    std::uint32_t m;
    distribution d;
  };
  const std::size_t large = sluice::testing::scaled_size((std::size_t{1} << 22) + 17, 30011);
  const std::size_t larger = sluice::testing::scaled_size((std::size_t{1} << 24) + 5, 30011);
  const std::size_t medium = sluice::testing::scaled_size(3000017, 30011);
  for (const float_case c : {float_case{large, 1u, distribution::uniform}, float_case{medium, 5u, distribution::uniform},
                             float_case{medium, 100u, distribution::uniform},
                             float_case{medium, 20000u, distribution::uniform},
                             float_case{larger, 1u << 16, distribution::few_used},
                             float_case{larger, 1u << 16, distribution::uniform}}) {
    const auto labels = sluice::testing::multireduce_labels(c.n, c.m, c.d, 21 + c.m);
    const auto values = sluice::testing::ordered_values<float>(c.n, 22 + c.m);
    // The oracle in double: its own rounding stays far below the tolerance at these sizes.
    const std::vector<double> wide(values.begin(), values.end());
    const auto exact = sluice::reference::multireduce(std::span<const std::uint32_t>(labels),
                                                      std::span<const double>(wide), c.m, sluice::plus{}, 0.0);
    const std::vector<float> expected(exact.buckets.begin(), exact.buckets.end());
    const sluice::device_buffer<std::uint32_t> d_labels(ctx(), std::span<const std::uint32_t>(labels));
    const sluice::device_buffer<float> d_values(ctx(), std::span<const float>(values));
    sluice::device_buffer<float> out(ctx(), c.m);
    std::vector<sluice::multireduce_options> runs;
    for (multireduce_algorithm algorithm : ordered_for(c.m)) runs.push_back({.algorithm = algorithm});
    runs.push_back({.deterministic = true});
    for (const sluice::multireduce_options& options : runs) {
      SCOPED_TRACE(std::string(sluice::to_string(options.algorithm)) + ", m = " + std::to_string(c.m) + ", n = " +
                   std::to_string(c.n) + ", " + std::string(sluice::data::to_string(c.d)));
      std::vector<float> first;
      for (int run = 0; run < 3; ++run) {
        out.fill_bytes(sluice::testing::poison_patterns[run % 2]);
        sluice::multireduce(ctx(), d_labels.span(), d_values.span(), out.span(), sluice::plus{}, nullptr, options);
        const auto got = out.to_host();
        if (run == 0) {
          EXPECT_TRUE(all_near(got, expected, 1e-3));
          first = got;
        } else {
          ASSERT_EQ(std::memcmp(got.data(), first.data(), c.m * sizeof(float)), 0) << "run " << run;
        }
      }
    }
  }
}

/// One strategy on its own: each m × sizes around the warp size, its step and `window` (vector's warp
/// tile, warp_private_sets' lookahead of windows) × uniform, all-equal and sorted labels, for one operator.
template <class T, class Op>
void strategy_sweep(sluice::context& ctx, multireduce_algorithm algorithm, const std::vector<std::uint32_t>& ms,
                    std::size_t window, Op op, double tolerance = -1.0) {
  for (std::uint32_t m : ms)
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{31}, std::size_t{32}, std::size_t{33},
                          window - 1, window + 1, std::size_t{100003}})
      for (distribution d : {distribution::uniform, distribution::all_equal, distribution::sorted}) {
        SCOPED_TRACE(std::string(sluice::to_string(algorithm)) + ", " + std::string(sluice::data::to_string(d)));
        check(ctx, algorithm, sluice::testing::multireduce_labels(n, m, d, n + 7 * m),
              sluice::testing::ordered_values<T>(n, n + m), m, op, tolerance);
      }
}

/// vector: every m up to vector_max_buckets (each compile-time M, and m below M), around its warp tile.
template <class T, class Op>
void vector_sweep(sluice::context& ctx, Op op, double tolerance = -1.0) {
  std::vector<std::uint32_t> ms;
  for (std::uint32_t m = 1; m <= vector_max_buckets; ++m) ms.push_back(m);
  const std::size_t warp_tile = 32 * mr_tuning::vector_items(sizeof(std::uint32_t), sizeof(T));
  strategy_sweep<T>(ctx, multireduce_algorithm::vector, ms, warp_tile, op, tolerance);
}

TEST_F(MultireduceOrdered, VectorPlusU32) { vector_sweep<std::uint32_t>(ctx(), sluice::plus{}); }
TEST_F(MultireduceOrdered, VectorPlusFloat) { vector_sweep<float>(ctx(), sluice::plus{}, 1e-3); }
TEST_F(MultireduceOrdered, VectorAffineComposeIsExact) { vector_sweep<affine>(ctx(), sluice::affine_compose{}); }
TEST_F(MultireduceOrdered, VectorMatrixProductModPIsExact) {
  vector_sweep<sluice::mat2>(ctx(), sluice::mat2_multiply_mod{matrix_modulus});
}

/// warp_private_sets: one bucket (every window takes the warp reduction), few (large peer groups: many
/// shuffle rounds), around the warp size, and its largest tested m; sizes around its lookahead step.
template <class T, class Op>
void warp_sets_sweep(sluice::context& ctx, Op op, double tolerance = -1.0) {
  const std::size_t step = std::size_t{32} * mr_tuning::warp_sets_lookahead;
  strategy_sweep<T>(ctx, multireduce_algorithm::warp_private_sets, {1, 2, 3, 31, 32, 33, 1000, warp_sets_tested_buckets},
                    step, op, tolerance);
}

TEST_F(MultireduceOrdered, WarpPrivateSetsPlusFloat) { warp_sets_sweep<float>(ctx(), sluice::plus{}, 1e-3); }
TEST_F(MultireduceOrdered, WarpPrivateSetsAffineComposeIsExact) {
  warp_sets_sweep<affine>(ctx(), sluice::affine_compose{});
}
TEST_F(MultireduceOrdered, WarpPrivateSetsMatrixProductModPIsExact) {
  warp_sets_sweep<sluice::mat2>(ctx(), sluice::mat2_multiply_mod{matrix_modulus});
}

/// Several windows or warp tiles per warp (each warp's fold in order, then warps, then blocks), with
/// signed 64-bit labels that are negative or far past m (dropped and counted), and accumulate mode.
void many_per_warp_signed_labels_and_accumulate(sluice::context& ctx, multireduce_algorithm algorithm,
                                                std::initializer_list<std::uint32_t> ms) {
  const std::size_t n = sluice::testing::scaled_size((std::size_t{1} << 22) + 3, 40000);
  for (std::uint32_t m : ms) {
    SCOPED_TRACE(std::string(sluice::to_string(algorithm)) + ", m = " + std::to_string(m));
    auto labels = sluice::testing::multireduce_labels<std::int64_t>(n, m, distribution::uniform, 41 + m);
    for (std::size_t i = 0; i < n; i += 7) labels[i] = i % 2 ? -static_cast<std::int64_t>(i) : std::int64_t{1} << 40;
    check(ctx, algorithm, labels, sluice::testing::ordered_values<affine>(n, 42), m, sluice::affine_compose{});
    check(ctx, algorithm, labels, sluice::testing::ordered_values<sluice::mat2>(n, 43), m,
          sluice::mat2_multiply_mod{matrix_modulus});
    const auto start = sluice::testing::ordered_values<affine>(m, 44);
    check(ctx, algorithm, labels, sluice::testing::ordered_values<affine>(n, 45), m, sluice::affine_compose{}, -1.0,
          &start);
  }
}

TEST_F(MultireduceOrdered, VectorManyTilesPerWarpSignedLabelsAndAccumulate) {
  many_per_warp_signed_labels_and_accumulate(ctx(), multireduce_algorithm::vector, {1u, 3u, 8u});
}

TEST_F(MultireduceOrdered, WarpPrivateSetsManyWindowsPerWarpSignedLabelsAndAccumulate) {
  many_per_warp_signed_labels_and_accumulate(ctx(), multireduce_algorithm::warp_private_sets, {1u, 3u, 100u, 1024u});
}

/// warp_private_sets keeps 8 sets of m values per block: an m whose sets exceed the device's shared
/// memory per block is an "options" error, raised before out is touched.
TEST_F(MultireduceOrdered, WarpPrivateSetsBeyondSharedMemoryIsAnOptionsError) {
  const std::uint32_t m = 1u << 16;  // 8 · 2^16 · 16 bytes = 8 MiB
  const sluice::device_buffer<std::uint32_t> labels(ctx(), 10);
  const sluice::device_buffer<sluice::mat2> values(ctx(), 10);
  sluice::device_buffer<sluice::mat2> out(ctx(), m);
  out.fill_bytes(0x5A);
  sluice::testing::expect_invalid_argument(
      [&] {
        sluice::multireduce(ctx(), labels.span(), values.span(), out.span(), sluice::mat2_multiply_mod{matrix_modulus},
                            nullptr, {.algorithm = multireduce_algorithm::warp_private_sets});
      },
      "options");
  const auto after = out.to_host();
  const auto* bytes = reinterpret_cast<const unsigned char*>(after.data());
  EXPECT_TRUE(std::all_of(bytes, bytes + after.size() * sizeof(sluice::mat2), [](unsigned char b) { return b == 0x5A; }));
}

/// vector keeps m accumulators per thread: more than vector_max_buckets is an "options" error.
TEST_F(MultireduceOrdered, VectorMoreThanMaxBucketsIsAnOptionsError) {
  const sluice::device_buffer<std::uint32_t> labels(ctx(), 10), values(ctx(), 10);
  sluice::device_buffer<std::uint32_t> out(ctx(), vector_max_buckets + 1);
  out.fill_bytes(0x5A);
  sluice::testing::expect_invalid_argument(
      [&] {
        sluice::multireduce(ctx(), labels.span(), values.span(), out.span(), sluice::plus{}, nullptr,
                            {.algorithm = multireduce_algorithm::vector});
      },
      "options");
  // resolve rejects it before out is touched (no identity fill).
  for (std::uint32_t word : out.to_host()) EXPECT_EQ(word, 0x5A5A5A5Au);
}

TEST_F(MultireduceOrdered, StrictModeNamesTheFirstBadLabel) {
  std::vector<std::int32_t> labels(10000, 3);
  labels[4321] = -1;
  labels[7000] = 64;
  const sluice::device_buffer<std::int32_t> d_labels(ctx(), std::span<const std::int32_t>(labels));
  const sluice::device_buffer<std::uint32_t> values(ctx(), labels.size());
  sluice::device_buffer<std::uint32_t> out(ctx(), 64);
  for (multireduce_algorithm algorithm : ordered)
    sluice::testing::expect_invalid_argument(
        [&] {
          sluice::multireduce(ctx(), d_labels.span(), values.span(), out.span(), sluice::plus{}, nullptr,
                              {.algorithm = algorithm, .strict = true});
        },
        "labels", 4321);
}

TEST_F(MultireduceOrdered, ZeroBucketsIsAnError) {
  const sluice::device_buffer<std::uint32_t> labels(ctx(), 10), values(ctx(), 10);
  sluice::device_buffer<std::uint32_t> out(ctx(), 1);
  for (multireduce_algorithm algorithm : ordered_for(1))
    sluice::testing::expect_invalid_argument(
        [&] {
          sluice::multireduce(ctx(), labels.span(), values.span(), out.span().first(0), sluice::plus{}, nullptr,
                              {.algorithm = algorithm});
        },
        "out");
}

/// 2^31 + 5 pairs: 64-bit tile offsets and counts; values all equal, so the oracle is a label count.
TEST_F(MultireduceOrdered, LargeBeyond32BitIndexing) {
  const std::size_t n = (std::size_t{1} << 31) + 5;
  if (sluice::testing::under_sanitizer()) GTEST_SKIP() << "too large under a sanitizer";
  const sluice::data::distribution_spec label_spec{distribution::uniform, 5, 0.0, 31};  // label 4 is dropped
  const sluice::data::distribution_spec value_spec{distribution::all_equal, 1000, 0.0, 32};
  const std::uint32_t value = sluice::data::generate_host<std::uint32_t>(1, value_spec)[0];
  const auto host = sluice::data::generate_host<std::uint8_t>(n, label_spec);
  std::vector<std::uint64_t> count(5, 0);
  for (std::uint8_t k : host) ++count[k];
  std::vector<std::uint32_t> expected(4);
  for (int k = 0; k < 4; ++k) expected[k] = static_cast<std::uint32_t>(count[k] * value);  // wraps as plus does
  // global_sort_reduce_by_key sorts 2n ids and 2n values beside the inputs: about 21 bytes per pair.
  const std::size_t memory = ctx().properties().global_memory_bytes;
  for (multireduce_algorithm algorithm : ordered_for(4)) {
    const std::size_t needed = algorithm == multireduce_algorithm::global_sort_reduce_by_key ? 22 * n : 6 * n;
    if (memory < needed) {
      std::printf("skipping %s: needs %zu bytes of device memory\n", std::string(sluice::to_string(algorithm)).c_str(), needed);
      continue;
    }
    sluice::device_buffer<std::uint8_t> labels(ctx(), n);
    sluice::device_buffer<std::uint32_t> values(ctx(), n), out(ctx(), 4);
    sluice::device_buffer<std::size_t> dropped(ctx(), 1);
    sluice::data::generate(ctx(), labels.span(), label_spec);
    sluice::data::generate(ctx(), values.span(), value_spec);
    out.fill_bytes(0xA5);
    sluice::multireduce(ctx(), labels.span(), values.span(), out.span(), sluice::plus{}, dropped.data(),
                        {.algorithm = algorithm});
    EXPECT_EQ(out.to_host(), expected) << sluice::to_string(algorithm);
    EXPECT_EQ(dropped.to_host()[0], count[4]) << sluice::to_string(algorithm);
  }
}

}  // namespace
