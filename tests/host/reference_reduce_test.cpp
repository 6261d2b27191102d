// Host tests of sluice/reference/reduce.hpp: the left fold in index order, init used once on the left,
// n = 0 and n = 1, non-commutative operators checked by applying the maps one at a time.
#include <sluice/core/operators.hpp>
#include <sluice/reference/reduce.hpp>

#include <gtest/gtest.h>

#include "support/random_operands.hpp"

#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace {

namespace ref = sluice::reference;
using sluice::testing::random_matrices;
using affine32 = sluice::affine<std::uint32_t>;

std::vector<affine32> random_maps(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<affine32> maps(n);
  for (auto& f : maps) f = {static_cast<std::uint32_t>(rng()) | 1u, static_cast<std::uint32_t>(rng())};
  return maps;
}

TEST(ReferenceReduce, EmptyInputGivesInit) {
  const std::vector<int> none;
  EXPECT_EQ(ref::reduce<int>(none, 42, sluice::plus{}), 42);
  EXPECT_EQ(ref::reduce<int>(none, 42, sluice::min{}), 42);
  EXPECT_EQ((ref::transform_reduce<long, int>(none, 5L, sluice::plus{}, [](int x) { return long{x} * x; })), 5L);
}

TEST(ReferenceReduce, SingleElementIsCombinedWithInit) {
  const std::vector<int> one{7};
  EXPECT_EQ(ref::reduce<int>(one, 0, sluice::plus{}), 7);
  EXPECT_EQ(ref::reduce<int>(one, 10, sluice::plus{}), 17);
  EXPECT_EQ(ref::reduce<int>(one, 3, sluice::max{}), 7);
}

TEST(ReferenceReduce, SmallIntegerExamples) {
  const std::vector<int> a{5, 1, 3, 4, 3, 9, 2, 6};
  EXPECT_EQ(ref::reduce<int>(a, 0, sluice::plus{}), 33);
  EXPECT_EQ(ref::reduce<int>(a, sluice::identity<sluice::max, int>(), sluice::max{}), 9);
  EXPECT_EQ(ref::reduce<int>(a, sluice::identity<sluice::min, int>(), sluice::min{}), 1);
  EXPECT_EQ(ref::reduce<int>(a, 0, sluice::bit_xor{}), 5 ^ 1 ^ 3 ^ 4 ^ 3 ^ 9 ^ 2 ^ 6);
}

TEST(ReferenceReduce, ConcatenationShowsIndexOrderAndInitOnTheLeftOnce) {
  const std::vector<std::string> words{"a", "b", "c", "d"};
  EXPECT_EQ(ref::reduce<std::string>(words, "x", std::plus<>{}), "xabcd");
  EXPECT_EQ((ref::transform_reduce<std::string, std::string>(words, ">", std::plus<>{},
                                                             [](const std::string& w) { return w + w; })),
            ">aabbccdd");
}

TEST(ReferenceReduce, FloatingPointFollowsTheSequentialRounding) {
  // (1e16 + 1) rounds back to 1e16, so the left fold gives 0 where the exact sum is 1.
  const std::vector<double> a{1e16, 1.0, -1e16};
  EXPECT_EQ(ref::reduce<double>(a, 0.0, sluice::plus{}), 0.0);
  const std::vector<double> b{1e16, -1e16, 1.0};
  EXPECT_EQ(ref::reduce<double>(b, 0.0, sluice::plus{}), 1.0);
}

TEST(ReferenceReduce, AffineCompositionEqualsApplyingTheMapsInOrder) {
  for (std::size_t n : {1u, 2u, 3u, 100u, 4097u}) {
    const std::vector<affine32> maps = random_maps(n, n);
    const affine32 composed = ref::reduce<affine32>(maps, sluice::identity<sluice::affine_compose, affine32>(),
                                                    sluice::affine_compose{});
    for (std::uint32_t x : {0u, 1u, 12345u, 0xFFFFFFFFu}) {
      std::uint32_t y = x;
      for (const affine32& f : maps) y = f(y);
      EXPECT_EQ(composed(x), y) << "n = " << n << ", x = " << x;
    }
  }
}

TEST(ReferenceReduce, MatrixProductEqualsMultiplyingARowVectorInOrder) {
  const sluice::mat2_multiply_mod op{};
  const std::vector<sluice::mat2> ms = random_matrices(300, 7, op.modulus());
  const sluice::mat2 product = ref::reduce<sluice::mat2>(ms, sluice::identity<sluice::mat2_multiply_mod, sluice::mat2>(), op);
  // Row vector v = (1, 0) times M0 · M1 · … is the first row of the product.
  const std::uint64_t p = op.modulus();
  std::uint64_t v0 = 1, v1 = 0;
  for (const sluice::mat2& m : ms) {
    const std::uint64_t w0 = (v0 * m.m00 % p + v1 * m.m10 % p) % p;
    const std::uint64_t w1 = (v0 * m.m01 % p + v1 * m.m11 % p) % p;
    v0 = w0;
    v1 = w1;
  }
  EXPECT_EQ(product.m00, v0);
  EXPECT_EQ(product.m01, v1);
}

TEST(ReferenceReduce, TransformReduceWidensBeforeCombining) {
  std::vector<std::uint8_t> bytes(1000);
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::uint8_t>(255 - i % 7);
  std::uint64_t expected = 0;
  for (std::uint8_t b : bytes) expected += std::uint64_t{b} * b;
  const auto got = ref::transform_reduce<std::uint64_t, std::uint8_t>(
      bytes, std::uint64_t{0}, sluice::plus{}, [](std::uint8_t b) { return std::uint64_t{b} * b; });
  EXPECT_EQ(got, expected);
}

}  // namespace
