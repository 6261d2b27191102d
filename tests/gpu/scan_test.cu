// GPU tests of sluice::inclusive_scan / exclusive_scan against the reference scans: every strategy,
// sizes around every tile boundary, commutative and non-commutative operators (bit-exact, including
// 8-byte elements (16-byte packed look-back status) and 16-byte ones (split status)), floats within a tolerance, in place,
// and bad arguments.
#include <sluice/data/generate.cuh>
#include <sluice/reference/scan.hpp>
#include <sluice/scan.cuh>

#include "support/compare.hpp"
#include "support/gpu_test.hpp"
#include "support/tile_sizes.hpp"

#include <cstdint>
#include <vector>

namespace {

using sluice::scan_algorithm;
using sluice::testing::gpu_test;

class Scan : public gpu_test {};

constexpr scan_algorithm all_algorithms[] = {scan_algorithm::automatic, scan_algorithm::decoupled_look_back,
                                             scan_algorithm::reduce_then_scan, scan_algorithm::brent_kung,
                                             scan_algorithm::hillis_steele};

const char* name(scan_algorithm a) {
  switch (a) {
    case scan_algorithm::automatic: return "automatic";
    case scan_algorithm::decoupled_look_back: return "decoupled_look_back";
    case scan_algorithm::reduce_then_scan: return "reduce_then_scan";
    case scan_algorithm::brent_kung: return "brent_kung";
    case scan_algorithm::hillis_steele: return "hillis_steele";
  }
  return "?";
}

template <class T>
std::vector<std::size_t> boundary_sizes() {
  const std::size_t tile = sluice::detail::scan::default_shape<T>::tile;  // reduce-then-scan's rescan
  const std::size_t single_pass_tile = sluice::detail::scan::single_pass_shape<T>::tile;
  return sluice::testing::with_single_pass_tile_sizes(std::vector<std::size_t>{
      0, 1, 2, 31, 32, 33, 511, 512, 513, tile - 1, tile, tile + 1, 3 * tile + 5, 40 * tile + 17,
      single_pass_tile - 1, single_pass_tile + 1, 40 * single_pass_tile + 17, (std::size_t{1} << 20) + 7});
}

enum class form { inclusive, inclusive_with_init, exclusive };

/// Runs one scan on the device into a poisoned output (twice, two poisons) and compares with `expected`.
template <class T, class Op>
void expect_scan(sluice::context& ctx, form f, scan_algorithm algorithm, const std::vector<T>& host, T init, Op op,
                 const std::vector<T>& expected) {
  sluice::device_buffer<T> in(ctx, std::span<const T>(host)), out(ctx, host.size());
  for (unsigned char poison : sluice::testing::poison_patterns) {
    out.fill_bytes(poison);
    switch (f) {
      case form::inclusive: sluice::inclusive_scan(ctx, in.span(), out.span(), op, {algorithm}); break;
      case form::inclusive_with_init: sluice::inclusive_scan(ctx, in.span(), out.span(), op, init, {algorithm}); break;
      case form::exclusive: sluice::exclusive_scan(ctx, in.span(), out.span(), init, op, {algorithm}); break;
    }
    ASSERT_TRUE(sluice::testing::all_equal(out.to_host(), expected))
        << name(algorithm) << ", n = " << host.size() << ", form " << int(f) << ", poison " << int(poison);
  }
}

/// All three forms of one operator for every strategy and boundary size.
template <class T, class Op, class Make>
void expect_all_forms(sluice::context& ctx, Op op, T init, Make make_input) {
  for (scan_algorithm algorithm : all_algorithms)
    for (std::size_t n : sluice::testing::sweep_sizes(boundary_sizes<T>())) {
      const std::vector<T> host = make_input(n);
      const std::span<const T> view(host);
      expect_scan(ctx, form::inclusive, algorithm, host, init, op, sluice::reference::inclusive_scan(view, op));
      expect_scan(ctx, form::inclusive_with_init, algorithm, host, init, op,
                  sluice::reference::inclusive_scan(view, op, init));
      expect_scan(ctx, form::exclusive, algorithm, host, init, op, sluice::reference::exclusive_scan(view, init, op));
    }
}

template <class T>
std::vector<T> uniform(std::size_t n, std::uint64_t seed, std::uint64_t range = 0) {
  return sluice::data::generate_host<T>(n, {sluice::data::distribution::uniform, range, 0.0, seed});
}

TEST_F(Scan, SumOfUnsigned) {
  expect_all_forms(ctx(), sluice::plus{}, 12345u, [](std::size_t n) { return uniform<std::uint32_t>(n, n + 1); });
}

TEST_F(Scan, MaxOfSigned64) {
  expect_all_forms(ctx(), sluice::max{}, std::int64_t{-5}, [](std::size_t n) { return uniform<std::int64_t>(n, n + 2); });
}

TEST_F(Scan, AffineCompositionKeepsOrder) {
  using A = sluice::affine<std::uint32_t>;
  expect_all_forms(ctx(), sluice::affine_compose{}, A{3, 7}, [](std::size_t n) {
    const auto w = uniform<std::uint32_t>(2 * n, n + 3);
    std::vector<A> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = {w[2 * i] | 1u, w[2 * i + 1]};
    return v;
  });
}

TEST_F(Scan, MatrixProductModPKeepsOrder) {
  const sluice::mat2_multiply_mod op{1000003u};
  expect_all_forms(ctx(), op, sluice::mat2{2, 1, 1, 1}, [&](std::size_t n) {
    const auto w = uniform<std::uint32_t>(4 * n, n + 4, op.modulus());
    std::vector<sluice::mat2> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = {w[4 * i], w[4 * i + 1], w[4 * i + 2], w[4 * i + 3]};
    return v;
  });
}

TEST_F(Scan, FloatSumWithinRounding) {
  for (scan_algorithm algorithm : all_algorithms) {
    const std::size_t n = sluice::testing::scaled_size((std::size_t{1} << 22) + 3, 100003);
    const auto host = uniform<float>(n, 99);
    std::vector<double> wide(host.begin(), host.end());
    const auto exact = sluice::reference::inclusive_scan(std::span<const double>(wide), sluice::plus{});
    sluice::device_buffer<float> in(ctx(), std::span<const float>(host)), out(ctx(), n);
    out.fill_bytes(0xFF);
    sluice::inclusive_scan(ctx(), in.span(), out.span(), sluice::plus{}, {algorithm});
    const auto got = out.to_host();
    // Each output is a sum of up to 2^22 values in [0, 1): relative error a few ulps times the depth.
    EXPECT_TRUE(sluice::testing::all_near(std::vector<double>(got.begin(), got.end()), exact, 2e-5)) << name(algorithm);
  }
}

TEST_F(Scan, InPlace) {
  for (scan_algorithm algorithm : all_algorithms) {
    const auto host = uniform<std::uint32_t>(100003, 5);
    sluice::device_buffer<std::uint32_t> data(ctx(), std::span<const std::uint32_t>(host));
    sluice::exclusive_scan(ctx(), data.span(), data.span(), 1u, sluice::plus{}, {algorithm});
    EXPECT_TRUE(sluice::testing::all_equal(
        data.to_host(), sluice::reference::exclusive_scan(std::span<const std::uint32_t>(host), 1u, sluice::plus{})))
        << name(algorithm);
  }
}

TEST_F(Scan, BadArgumentsAreRejected) {
  sluice::device_buffer<int> a(ctx(), 100), b(ctx(), 99);
  EXPECT_THROW(sluice::inclusive_scan(ctx(), a.span(), b.span(), sluice::plus{}), sluice::invalid_argument);
  // out starting inside in: a partial overlap.
  EXPECT_THROW(sluice::inclusive_scan(ctx(), a.span().subspan(0, 50), a.span().subspan(10, 50), sluice::plus{}),
               sluice::invalid_argument);
  std::vector<int> host(100);
  EXPECT_THROW(sluice::inclusive_scan(ctx(), cuda::std::span<int>(host.data(), host.size()), a.span(), sluice::plus{}),
               sluice::invalid_argument);
}

// 2^31 + 5 elements through the default strategy: 64-bit tile indices and offsets.
TEST_F(Scan, LargeBeyond32BitIndexing) {
  const std::size_t n = (std::size_t{1} << 31) + 5;
  if (ctx().properties().global_memory_bytes < 3 * n * sizeof(std::uint32_t))
    GTEST_SKIP() << "needs " << 3 * n * sizeof(std::uint32_t) << " bytes of device memory";
  const sluice::data::distribution_spec spec{sluice::data::distribution::uniform, 16, 0.0, 77};
  sluice::device_buffer<std::uint32_t> in(ctx(), n);
  sluice::data::generate(ctx(), in.span(), spec);
  std::vector<std::uint32_t> expected;
  {
    const auto host = sluice::data::generate_host<std::uint32_t>(n, spec);
    expected = sluice::reference::inclusive_scan(std::span<const std::uint32_t>(host), sluice::plus{});
  }
  sluice::device_buffer<std::uint32_t> out(ctx(), n);
  out.fill_bytes(0xA5);
  sluice::inclusive_scan(ctx(), in.span(), out.span(), sluice::plus{});
  EXPECT_TRUE(sluice::testing::all_equal(out.to_host(), expected));
}

}  // namespace
