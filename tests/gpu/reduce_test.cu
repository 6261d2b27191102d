// GPU tests of sluice::reduce against reference::reduce: sizes around every tile and block boundary,
// commutative and non-commutative operators (bit-exact), floats within a tolerance, bad arguments.
#include <sluice/data/generate.cuh>
#include <sluice/reduce.cuh>
#include <sluice/reference/reduce.hpp>

#include "support/compare.hpp"
#include "support/gpu_test.hpp"

#include <cstdint>
#include <vector>

namespace {

using sluice::testing::gpu_test;

class Reduce : public gpu_test {};

/// Sizes that straddle a thread's items, a tile, the one-wave grid and the two-pass switch.
std::vector<std::size_t> boundary_sizes(std::size_t tile) {
  return {0, 1, 2, 31, 32, 33, 255, 256, 257, tile - 1, tile, tile + 1, 3 * tile + 5, 1000 * tile - 1,
          (std::size_t{1} << 20) + 7};
}

/// Runs sluice::reduce on `host` (poisoned output, twice with different patterns) and checks it
/// equals `expected` exactly.
template <class T, class Op>
void expect_device_reduce(sluice::context& ctx, const std::vector<T>& host, T init, Op op, const T& expected) {
  sluice::device_buffer<T> in(ctx, std::span<const T>(host));
  sluice::device_buffer<T> out(ctx, 1);
  for (unsigned char poison : sluice::testing::poison_patterns) {
    out.fill_bytes(poison);
    sluice::reduce(ctx, in.span(), out.data(), init, op);
    const T got = out.to_host()[0];
    EXPECT_TRUE(got == expected) << "n = " << host.size() << ", poison " << int(poison);
  }
}

template <class T>
std::vector<T> generate(std::size_t n, std::uint64_t seed, std::uint64_t range = 0) {
  return sluice::data::generate_host<T>(n, {sluice::data::distribution::uniform, range, 0.0, seed});
}

TEST_F(Reduce, SumOfUnsignedAtEveryBoundary) {
  using shape = sluice::detail::reduce::default_shape<std::uint32_t>;
  for (std::size_t n : boundary_sizes(shape::tile)) {
    const auto host = generate<std::uint32_t>(n, n + 1);
    expect_device_reduce(ctx(), host, 7u, sluice::plus{}, sluice::reference::reduce<std::uint32_t>(host, 7u, sluice::plus{}));
  }
}

TEST_F(Reduce, MinMaxAndBitOpsOfSigned) {
  for (std::size_t n : {std::size_t{1}, std::size_t{33}, std::size_t{100000}, (std::size_t{1} << 22) + 3}) {
    auto host = generate<std::int64_t>(n, 3 * n);
    using R = std::int64_t;
    expect_device_reduce(ctx(), host, sluice::identity<sluice::min, R>(), sluice::min{},
                         sluice::reference::reduce<R>(host, sluice::identity<sluice::min, R>(), sluice::min{}));
    expect_device_reduce(ctx(), host, sluice::identity<sluice::max, R>(), sluice::max{},
                         sluice::reference::reduce<R>(host, sluice::identity<sluice::max, R>(), sluice::max{}));
    expect_device_reduce(ctx(), host, R{0}, sluice::bit_xor{}, sluice::reference::reduce<R>(host, R{0}, sluice::bit_xor{}));
  }
}

TEST_F(Reduce, AffineCompositionKeepsIndexOrder) {
  using A = sluice::affine<std::uint32_t>;
  using shape = sluice::detail::reduce::default_shape<A>;
  for (std::size_t n : boundary_sizes(shape::tile)) {
    const auto words = generate<std::uint32_t>(2 * n, n + 11);
    std::vector<A> host(n);
    for (std::size_t i = 0; i < n; ++i) host[i] = {words[2 * i] | 1u, words[2 * i + 1]};
    const A init{3u, 5u};
    expect_device_reduce(ctx(), host, init, sluice::affine_compose{},
                         sluice::reference::reduce<A>(host, init, sluice::affine_compose{}));
  }
}

TEST_F(Reduce, MatrixProductModPKeepsIndexOrder) {
  const sluice::mat2_multiply_mod op{};
  using shape = sluice::detail::reduce::default_shape<sluice::mat2>;
  for (std::size_t n : boundary_sizes(shape::tile)) {
    const auto words = generate<std::uint32_t>(4 * n, n + 5, op.modulus());
    std::vector<sluice::mat2> host(n);
    for (std::size_t i = 0; i < n; ++i) host[i] = {words[4 * i], words[4 * i + 1], words[4 * i + 2], words[4 * i + 3]};
    const auto init = sluice::identity<sluice::mat2_multiply_mod, sluice::mat2>();
    expect_device_reduce(ctx(), host, init, op, sluice::reference::reduce<sluice::mat2>(host, init, op));
  }
}

TEST_F(Reduce, FloatSumWithinRounding) {
  for (std::size_t n : {std::size_t{1}, std::size_t{4097}, std::size_t{1} << 24}) {
    const auto host = generate<float>(n, n);
    std::vector<double> as_double(host.begin(), host.end());
    const double exact = sluice::reference::reduce<double>(as_double, 0.0, sluice::plus{});
    sluice::device_buffer<float> in(ctx(), std::span<const float>(host));
    sluice::device_buffer<float> out(ctx(), 1);
    out.fill_bytes(0xFF);  // NaN
    sluice::reduce(ctx(), in.span(), out.data(), 0.0f, sluice::plus{});
    const std::vector<float> got = out.to_host();
    // Tree summation: error grows like log(n)·eps·Σ|x|; 1e-5 relative is generous for n ≤ 2^24.
    EXPECT_TRUE(sluice::testing::all_near(got, std::vector<float>{static_cast<float>(exact)}, 1e-5)) << "n = " << n;
  }
}

TEST_F(Reduce, InputGeneratedOnTheDevice) {
  const std::size_t n = (std::size_t{1} << 26) + 13;
  const sluice::data::distribution_spec spec{sluice::data::distribution::uniform, 0, 0.0, 42};
  sluice::device_buffer<std::uint32_t> in(ctx(), n);
  sluice::data::generate(ctx(), in.span(), spec);
  const auto host = sluice::data::generate_host<std::uint32_t>(n, spec);
  expect_device_reduce(ctx(), host, 0u, sluice::plus{}, sluice::reference::reduce<std::uint32_t>(host, 0u, sluice::plus{}));
}

TEST_F(Reduce, HostPointersAreRejected) {
  std::vector<int> host(10, 1);
  sluice::device_buffer<int> out(ctx(), 1);
  EXPECT_THROW(sluice::reduce(ctx(), cuda::std::span<const int>(host.data(), host.size()), out.data(), 0),
               sluice::invalid_argument);
  sluice::device_buffer<int> in(ctx(), std::span<const int>(host));
  int host_out = 0;
  EXPECT_THROW(sluice::reduce(ctx(), in.span(), &host_out, 0), sluice::invalid_argument);
}

// 2^31 + 5 elements: 64-bit indexing end to end (8 GiB of input).
TEST_F(Reduce, LargeBeyond32BitIndexing) {
  const std::size_t n = (std::size_t{1} << 31) + 5;
  if (ctx().properties().global_memory_bytes < 3 * n * sizeof(std::uint32_t))
    GTEST_SKIP() << "needs " << 3 * n * sizeof(std::uint32_t) << " bytes of device memory";
  const sluice::data::distribution_spec spec{sluice::data::distribution::uniform, 1000, 0.0, 9};
  sluice::device_buffer<std::uint32_t> in(ctx(), n);
  sluice::data::generate(ctx(), in.span(), spec);
  std::uint64_t expected = 0;
  {
    const auto host = sluice::data::generate_host<std::uint32_t>(n, spec);
    for (std::uint32_t x : host) expected += x;
  }
  // The wrapped 32-bit sum catches a lost or doubled element (values are in [0, 1000), rarely 0);
  // the maximum catches reads past the end (poisoned memory is larger than 999).
  sluice::device_buffer<std::uint32_t> out(ctx(), 1);
  sluice::reduce(ctx(), in.span(), out.data(), 0u);
  EXPECT_EQ(out.to_host()[0], static_cast<std::uint32_t>(expected));
  sluice::device_buffer<std::uint32_t> maximum(ctx(), 1);
  sluice::reduce(ctx(), in.span(), maximum.data(), 0u, sluice::max{});
  EXPECT_EQ(maximum.to_host()[0], 999u);
}

}  // namespace
