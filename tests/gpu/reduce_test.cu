// GPU tests of sluice::reduce and sluice::transform_reduce against reference::reduce and
// reference::transform_reduce: every strategy, sizes around every thread, warp, block, tile, wave and
// pass boundary, commutative and non-commutative operators (bit-exact), floats within a tolerance,
// outputs poisoned twice, the commutative-only strategies' rejection of other operators, bad arguments,
// and 2^31 + 5 elements.
#include <sluice/data/generate.cuh>
#include <sluice/reduce.cuh>
#include <sluice/reference/reduce.hpp>

#include "support/compare.hpp"
#include "support/gpu_test.hpp"

#include <cstdint>
#include <cstring>
#include <ostream>
#include <span>
#include <string>
#include <vector>

namespace sluice {
// gtest prints test parameters through a PrintTo found by argument-dependent lookup.
void PrintTo(reduce_algorithm algorithm, std::ostream* os) { *os << to_string(algorithm); }
}  // namespace sluice

namespace {

using sluice::reduce_algorithm;
using sluice::testing::gpu_test;

constexpr reduce_algorithm all_strategies[] = {
    reduce_algorithm::automatic,         reduce_algorithm::two_pass_tiles,
    reduce_algorithm::dtu_global_tree,   reduce_algorithm::dtu_shared_tree,
    reduce_algorithm::palik_interleaved, reduce_algorithm::palik_sequential_addressing,
    reduce_algorithm::warp_shuffle,
};

class Reduce : public gpu_test {};

class ReduceStrategy : public gpu_test, public ::testing::WithParamInterface<reduce_algorithm> {
 protected:
  [[nodiscard]] static sluice::reduce_options options() { return {GetParam()}; }
};

INSTANTIATE_TEST_SUITE_P(Strategies, ReduceStrategy, ::testing::ValuesIn(all_strategies),
                         [](const ::testing::TestParamInfo<reduce_algorithm>& info) {
                           return std::string(sluice::to_string(info.param));
                         });

/// Sizes that straddle a thread's items, a warp, a block (the seed strategies' segment and one element
/// per thread), a tile of T, a DTU pass (block², block² + 1 partials need a third pass), roughly a wave
/// of blocks (the Palik strategies switch to a single block below it) and several passes.
template <class T>
std::vector<std::size_t> boundary_sizes(const sluice::context& ctx) {
  constexpr std::size_t block = sluice::detail::reduce::default_shape<T>::threads;
  constexpr std::size_t tile = sluice::detail::reduce::default_shape<T>::tile;
  const auto& p = ctx.properties();
  const std::size_t wave =
      static_cast<std::size_t>(p.sm_count) * static_cast<std::size_t>(p.max_threads_per_sm) / block;
  return sluice::testing::sweep_sizes(std::vector<std::size_t>{
          0, 1, 2, 31, 32, 33,                                      // a warp
          block - 1, block, block + 1,                              // a segment of the seed strategies
          tile - 1, tile, tile + 1, 3 * tile + 5,                   // tiles of two_pass_tiles
          wave - 1, wave, wave + 1,                                 // Palik: one block or two levels
          block * block - 1, block * block, block * block + 1,      // DTU: two or three passes
          (std::size_t{1} << 20) + 7});
}

/// Runs sluice::reduce on `host` (output poisoned, twice with different patterns) and checks that it
/// equals `expected` exactly.
template <class T, class Op>
void expect_device_reduce(sluice::context& ctx, const std::vector<T>& host, T init, Op op, const T& expected,
                          sluice::reduce_options options = {}) {
  sluice::device_buffer<T> in(ctx, std::span<const T>(host));
  sluice::device_buffer<T> out(ctx, 1);
  for (unsigned char poison : sluice::testing::poison_patterns) {
    out.fill_bytes(poison);
    sluice::reduce(ctx, in.span(), out.data(), init, op, options);
    const T got = out.to_host()[0];
    EXPECT_TRUE(got == expected) << "n = " << host.size() << ", poison " << int(poison) << ", "
                                 << sluice::to_string(options.algorithm);
  }
}

/// expect_device_reduce against the oracle.
template <class T, class Op>
void expect_matches_oracle(sluice::context& ctx, const std::vector<T>& host, T init, Op op,
                           sluice::reduce_options options = {}) {
  expect_device_reduce(ctx, host, init, op, sluice::reference::reduce<T>(host, init, op), options);
}

template <class T>
std::vector<T> generate(std::size_t n, std::uint64_t seed, std::uint64_t range = 0,
                        sluice::data::distribution kind = sluice::data::distribution::uniform) {
  return sluice::data::generate_host<T>(n, {kind, range, 0.0, seed});
}

/// Affine maps x ↦ a·x + b with odd a, so that no prefix of the composition collapses to a constant
/// (an even product would forget the maps before it, and an order error with it).
std::vector<sluice::affine<std::uint32_t>> affine_maps(std::size_t n, std::uint64_t seed) {
  const auto words = generate<std::uint32_t>(2 * n, seed);
  std::vector<sluice::affine<std::uint32_t>> maps(n);
  for (std::size_t i = 0; i < n; ++i) maps[i] = {words[2 * i] | 1u, words[2 * i + 1]};
  return maps;
}

/// 2x2 matrices of residues modulo op's p.
std::vector<sluice::mat2> matrices(std::size_t n, std::uint64_t seed, const sluice::mat2_multiply_mod& op) {
  const auto words = generate<std::uint32_t>(4 * n, seed, op.modulus());
  std::vector<sluice::mat2> m(n);
  for (std::size_t i = 0; i < n; ++i) m[i] = {words[4 * i], words[4 * i + 1], words[4 * i + 2], words[4 * i + 3]};
  return m;
}

struct negate {
  SLUICE_HOST_DEVICE int operator()(int x) const { return -x; }
};

struct square_to_u64 {
  SLUICE_HOST_DEVICE std::uint64_t operator()(std::uint32_t x) const { return std::uint64_t{x} * x; }
};

/// x ↦ the affine map (2x + 1)·y + x: a transform whose results compose non-commutatively.
struct to_affine_map {
  SLUICE_HOST_DEVICE sluice::affine<std::uint32_t> operator()(std::uint32_t x) const { return {2u * x + 1u, x}; }
};

// ---- every strategy ------------------------------------------------------------------------------------

TEST_P(ReduceStrategy, SumOfUnsignedAtEveryBoundary) {
  for (std::size_t n : boundary_sizes<std::uint32_t>(ctx())) {
    const auto host = generate<std::uint32_t>(n, n + 1);
    expect_matches_oracle(ctx(), host, 7u, sluice::plus{}, options());
  }
}

TEST_P(ReduceStrategy, SumOfSigned64AtEveryBoundary) {
  for (std::size_t n : boundary_sizes<std::int64_t>(ctx())) {
    // Values in [−2^39, 2^39): sums of up to 2^24 of them cannot overflow (no undefined behaviour in
    // the oracle), and negative values are common.
    auto host = generate<std::int64_t>(n, n + 2, std::uint64_t{1} << 40);
    for (auto& x : host) x -= std::int64_t{1} << 39;
    expect_matches_oracle(ctx(), host, std::int64_t{-3}, sluice::plus{}, options());
  }
}

TEST_P(ReduceStrategy, MinMaxAndXorOfSigned64) {
  using R = std::int64_t;
  using sluice::data::distribution;
  for (distribution kind : {distribution::uniform, distribution::sorted, distribution::reverse}) {
    for (std::size_t n : boundary_sizes<R>(ctx())) {
      SCOPED_TRACE(std::string(sluice::data::to_string(kind)));
      const auto host = generate<R>(n, 3 * n + 1, 0, kind);
      expect_matches_oracle(ctx(), host, sluice::identity<sluice::min, R>(), sluice::min{}, options());
      expect_matches_oracle(ctx(), host, sluice::identity<sluice::max, R>(), sluice::max{}, options());
      expect_matches_oracle(ctx(), host, R{0x5a5a}, sluice::bit_xor{}, options());
    }
  }
}

TEST_P(ReduceStrategy, AffineCompositionKeepsIndexOrder) {
  if (sluice::requires_commutative_operator(GetParam()))
    GTEST_SKIP() << "reorders operands; its rejection of this operator is RejectsNonCommutativeOperators";
  using A = sluice::affine<std::uint32_t>;
  for (std::size_t n : boundary_sizes<A>(ctx()))
    expect_matches_oracle(ctx(), affine_maps(n, n + 11), A{3u, 5u}, sluice::affine_compose{}, options());
}

TEST_P(ReduceStrategy, MatrixProductModPKeepsIndexOrder) {
  if (sluice::requires_commutative_operator(GetParam()))
    GTEST_SKIP() << "reorders operands; its rejection of this operator is RejectsNonCommutativeOperators";
  const sluice::mat2_multiply_mod op{};
  const sluice::mat2 init{2u, 3u, 5u, 7u};  // not the identity: init must be folded in exactly once
  for (std::size_t n : boundary_sizes<sluice::mat2>(ctx()))
    expect_matches_oracle(ctx(), matrices(n, n + 5, op), init, op, options());
}

TEST_P(ReduceStrategy, RejectsNonCommutativeOperators) {
  if (!sluice::requires_commutative_operator(GetParam())) GTEST_SKIP() << "keeps index order";
  using A = sluice::affine<std::uint32_t>;
  const auto host = affine_maps(1000, 1);
  sluice::device_buffer<A> in(ctx(), std::span<const A>(host));
  sluice::device_buffer<A> out(ctx(), 1);
  out.fill_bytes(0xA5);
  const A init{1u, 0u};
  try {
    sluice::reduce(ctx(), in.span(), out.data(), init, sluice::affine_compose{}, options());
    ADD_FAILURE() << "a non-commutative operator was accepted";
  } catch (const sluice::invalid_argument& e) {
    EXPECT_EQ(e.parameter(), "options.algorithm");
    EXPECT_NE(std::string(e.what()).find("commutative"), std::string::npos) << e.what();
  }
  A poisoned;
  std::memset(&poisoned, 0xA5, sizeof(A));
  EXPECT_TRUE(out.to_host()[0] == poisoned) << "the rejected call wrote its output";
  // Also for an empty input, and for the matrix operator.
  EXPECT_THROW(sluice::reduce(ctx(), in.span().first(0), out.data(), init, sluice::affine_compose{}, options()),
               sluice::invalid_argument);
  const auto mats = matrices(10, 2, sluice::mat2_multiply_mod{});
  sluice::device_buffer<sluice::mat2> m(ctx(), std::span<const sluice::mat2>(mats));
  sluice::device_buffer<sluice::mat2> m_out(ctx(), 1);
  EXPECT_THROW(sluice::reduce(ctx(), m.span(), m_out.data(), mats[0], sluice::mat2_multiply_mod{}, options()),
               sluice::invalid_argument);
}

TEST_P(ReduceStrategy, FloatSumWithinRounding) {
  for (std::size_t n : sluice::testing::sweep_sizes(
           std::vector<std::size_t>{std::size_t{1}, std::size_t{257}, std::size_t{4097}, std::size_t{1} << 24})) {
    const auto host = generate<float>(n, n);
    std::vector<double> as_double(host.begin(), host.end());
    const double exact = sluice::reference::reduce<double>(as_double, 0.0, sluice::plus{});
    sluice::device_buffer<float> in(ctx(), std::span<const float>(host));
    sluice::device_buffer<float> out(ctx(), 1);
    out.fill_bytes(0xFF);  // NaN
    sluice::reduce(ctx(), in.span(), out.data(), 0.0f, sluice::plus{}, options());
    const std::vector<float> got = out.to_host();
    // Trees and per-thread runs of about n/(grid·256) elements (≈ 64 at 2^24 on an H100): the
    // relative error of summing values in [0, 1) stays far below 1e-5.
    EXPECT_TRUE(sluice::testing::all_near(got, std::vector<float>{static_cast<float>(exact)}, 1e-5)) << "n = " << n;
  }
}

TEST_P(ReduceStrategy, InputGeneratedOnTheDevice) {
  const std::size_t n = sluice::testing::scaled_size((std::size_t{1} << 26) + 13, 100003);
  const sluice::data::distribution_spec spec{sluice::data::distribution::uniform, 0, 0.0, 42};
  sluice::device_buffer<std::uint32_t> in(ctx(), n);
  sluice::data::generate(ctx(), in.span(), spec);
  const auto host = sluice::data::generate_host<std::uint32_t>(n, spec);
  const std::uint32_t expected = sluice::reference::reduce<std::uint32_t>(host, 0u, sluice::plus{});
  sluice::device_buffer<std::uint32_t> out(ctx(), 1);
  out.fill_bytes(0xA5);
  sluice::reduce(ctx(), in.span(), out.data(), 0u, sluice::plus{}, options());
  EXPECT_EQ(out.to_host()[0], expected);
}

TEST_P(ReduceStrategy, LeavesTheInputUnchanged) {
  const auto host = generate<std::uint32_t>((std::size_t{1} << 16) + 3, 77);
  sluice::device_buffer<std::uint32_t> in(ctx(), std::span<const std::uint32_t>(host));
  sluice::device_buffer<std::uint32_t> out(ctx(), 1);
  sluice::reduce(ctx(), in.span(), out.data(), 0u, sluice::plus{}, options());
  EXPECT_TRUE(sluice::testing::all_equal(in.to_host(), host));
}

// ---- the API -------------------------------------------------------------------------------------------

TEST_F(Reduce, HostPointersAreRejected) {
  std::vector<int> host(10, 1);
  sluice::device_buffer<int> out(ctx(), 1);
  EXPECT_THROW(sluice::reduce(ctx(), cuda::std::span<const int>(host.data(), host.size()), out.data(), 0),
               sluice::invalid_argument);
  sluice::device_buffer<int> in(ctx(), std::span<const int>(host));
  int host_out = 0;
  EXPECT_THROW(sluice::reduce(ctx(), in.span(), &host_out, 0), sluice::invalid_argument);
  EXPECT_THROW(sluice::transform_reduce(ctx(), cuda::std::span<const int>(host.data(), host.size()), out.data(), 0,
                                        sluice::plus{}, negate{}),
               sluice::invalid_argument);
  EXPECT_THROW(sluice::transform_reduce(ctx(), in.span(), &host_out, 0, sluice::plus{}, negate{}),
               sluice::invalid_argument);
}

TEST_F(Reduce, UnknownAlgorithmIsRejected) {
  sluice::device_buffer<int> in(ctx(), 4), out(ctx(), 1);
  const sluice::reduce_options bad{static_cast<reduce_algorithm>(99)};
  EXPECT_THROW(sluice::reduce(ctx(), in.span(), out.data(), 0, sluice::plus{}, bad), sluice::invalid_argument);
}

// ---- transform_reduce ----------------------------------------------------------------------------------

template <class T, class In, class Op, class Transform>
void expect_transform_reduce(sluice::context& ctx, const std::vector<In>& host, T init, Op op, Transform transform) {
  const T expected = sluice::reference::transform_reduce<T>(std::span<const In>(host), init, op, transform);
  sluice::device_buffer<In> in(ctx, std::span<const In>(host));
  sluice::device_buffer<T> out(ctx, 1);
  for (unsigned char poison : sluice::testing::poison_patterns) {
    out.fill_bytes(poison);
    sluice::transform_reduce(ctx, in.span(), out.data(), init, op, transform);
    EXPECT_TRUE(out.to_host()[0] == expected) << "n = " << host.size() << ", poison " << int(poison);
  }
}

TEST_F(Reduce, TransformReduceSumOfSquaresInU64) {
  for (std::size_t n : boundary_sizes<std::uint32_t>(ctx()))
    expect_transform_reduce(ctx(), generate<std::uint32_t>(n, n + 21), std::uint64_t{9}, sluice::plus{},
                            square_to_u64{});
}

TEST_F(Reduce, TransformReduceNonCommutativeKeepsIndexOrder) {
  using A = sluice::affine<std::uint32_t>;
  for (std::size_t n : boundary_sizes<std::uint32_t>(ctx()))
    expect_transform_reduce(ctx(), generate<std::uint32_t>(n, n + 31), A{3u, 1u}, sluice::affine_compose{},
                            to_affine_map{});
}

// ---- 2^31 + 5 elements: 64-bit indexing end to end (8 GiB of input) ------------------------------------

TEST_F(Reduce, LargeBeyond32BitIndexingEveryStrategy) {
  const std::size_t n = (std::size_t{1} << 31) + 5;
  // The input, dtu_global_tree's copy of it, and room for partials.
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
  for (reduce_algorithm algorithm : all_strategies) {
    SCOPED_TRACE(std::string(sluice::to_string(algorithm)));
    out.fill_bytes(0xA5);
    sluice::reduce(ctx(), in.span(), out.data(), 0u, sluice::plus{}, {algorithm});
    EXPECT_EQ(out.to_host()[0], static_cast<std::uint32_t>(expected));
    out.fill_bytes(0xA5);
    sluice::reduce(ctx(), in.span(), out.data(), 0u, sluice::max{}, {algorithm});
    EXPECT_EQ(out.to_host()[0], 999u);
  }
}

}  // namespace
