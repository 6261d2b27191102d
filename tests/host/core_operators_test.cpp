// Host tests of sluice/core/operators.hpp: identities, the commutativity trait, user-declared operators,
// and the non-commutative operators' algebra (associative, not commutative).
#include <sluice/core/operators.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

namespace {

template <class Op, class T>
void expect_identity_is_neutral(Op op, T x) {
  const T e = sluice::identity<Op, T>();
  EXPECT_EQ(op(e, x), x);
  EXPECT_EQ(op(x, e), x);
}

TEST(Operators, BuiltinIdentitiesAreNeutral) {
  for (std::int32_t x : {0, 1, -7, std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max()}) {
    expect_identity_is_neutral(sluice::plus{}, x);
    expect_identity_is_neutral(sluice::min{}, x);
    expect_identity_is_neutral(sluice::max{}, x);
    expect_identity_is_neutral(sluice::bit_and{}, x);
    expect_identity_is_neutral(sluice::bit_or{}, x);
    expect_identity_is_neutral(sluice::bit_xor{}, x);
  }
  for (std::uint64_t x : {0ull, 1ull, ~0ull}) {
    expect_identity_is_neutral(sluice::bit_and{}, x);
    expect_identity_is_neutral(sluice::min{}, x);
    expect_identity_is_neutral(sluice::max{}, x);
  }
  for (float x : {0.0f, -1.5f, 3e38f, -3e38f}) {
    expect_identity_is_neutral(sluice::min{}, x);
    expect_identity_is_neutral(sluice::max{}, x);
  }
}

TEST(Operators, FloatMinMaxIdentitiesAreInfinite) {
  EXPECT_EQ((sluice::identity<sluice::min, float>()), std::numeric_limits<float>::infinity());
  EXPECT_EQ((sluice::identity<sluice::max, double>()), -std::numeric_limits<double>::infinity());
  EXPECT_EQ((sluice::identity<sluice::max, int>()), std::numeric_limits<int>::lowest());
}

TEST(Operators, CommutativityTrait) {
  static_assert(sluice::is_commutative_v<sluice::plus>);
  static_assert(sluice::is_commutative_v<sluice::min>);
  static_assert(sluice::is_commutative_v<sluice::max>);
  static_assert(sluice::is_commutative_v<sluice::bit_and>);
  static_assert(sluice::is_commutative_v<sluice::bit_or>);
  static_assert(sluice::is_commutative_v<sluice::bit_xor>);
  static_assert(!sluice::is_commutative_v<sluice::affine_compose>);
  static_assert(!sluice::is_commutative_v<sluice::mat2_multiply_mod>);
  SUCCEED();
}

// The two documented ways of declaring a user operator's properties.
struct gcd_op {
  static constexpr bool is_commutative = true;
  template <class T>
  static constexpr T identity() { return T(0); }
  template <class T>
  T operator()(T a, T b) const { return b == 0 ? a : (*this)(b, a % b); }
};
struct concat_digits {  // a·10^k + b for a k-digit b: associative, not commutative, no members
  std::uint64_t operator()(std::uint64_t a, std::uint64_t b) const { return a * 10 + b; }
};
}  // namespace

template <>
struct sluice::identity_element<concat_digits, std::uint64_t> {
  static constexpr std::uint64_t value() { return 0; }
};

namespace {
TEST(Operators, UserDeclaredProperties) {
  static_assert(sluice::is_commutative_v<gcd_op>);
  static_assert(sluice::has_identity_v<gcd_op, int>);
  static_assert(!sluice::is_commutative_v<concat_digits>);
  static_assert(sluice::has_identity_v<concat_digits, std::uint64_t>);
  static_assert(!sluice::has_identity_v<concat_digits, int>);
  EXPECT_EQ(gcd_op{}(sluice::identity<gcd_op, int>(), 12), 12);
  EXPECT_EQ((sluice::identity<concat_digits, std::uint64_t>()), 0u);
}

TEST(Operators, AffineComposeIsAssociativeNotCommutative) {
  std::mt19937 rng(7);
  const sluice::affine_compose op;
  bool some_pair_does_not_commute = false;
  for (int trial = 0; trial < 1000; ++trial) {
    auto word = [&] { return static_cast<std::uint32_t>(rng()); };
    sluice::affine<std::uint32_t> f{word(), word()}, g{word(), word()}, h{word(), word()};
    EXPECT_EQ(op(op(f, g), h), op(f, op(g, h)));
    const std::uint32_t x = word();
    EXPECT_EQ(op(f, g)(x), g(f(x)));  // "f, then g"
    some_pair_does_not_commute |= !(op(f, g) == op(g, f));
  }
  EXPECT_TRUE(some_pair_does_not_commute);
  expect_identity_is_neutral(op, sluice::affine<std::uint32_t>{3, 4});
}

TEST(Operators, Mat2MultiplyModIsAssociativeNotCommutative) {
  std::mt19937 rng(11);
  const sluice::mat2_multiply_mod op{1000003u};
  auto residue = [&] { return static_cast<std::uint32_t>(rng() % op.modulus()); };
  auto random_mat = [&] { return sluice::mat2{residue(), residue(), residue(), residue()}; };
  bool some_pair_does_not_commute = false;
  for (int trial = 0; trial < 1000; ++trial) {
    const auto a = random_mat(), b = random_mat(), c = random_mat();
    EXPECT_EQ(op(op(a, b), c), op(a, op(b, c)));
    some_pair_does_not_commute |= !(op(a, b) == op(b, a));
  }
  EXPECT_TRUE(some_pair_does_not_commute);
  expect_identity_is_neutral(op, sluice::mat2{5, 6, 7, 8});
  // Residues near 2^31 must not overflow, and the Barrett reduction must agree with plain division
  // for every modulus size, including the smallest.
  for (std::uint32_t p : {2u, 3u, 65537u, 1000003u, 2147483629u, 2147483647u}) {
    const sluice::mat2_multiply_mod mod{p};
    auto plain = [p](const sluice::mat2& x, const sluice::mat2& y) {
      auto dot = [p](std::uint64_t a, std::uint64_t b, std::uint64_t c, std::uint64_t d) {
        return static_cast<std::uint32_t>((a * b % p + c * d % p) % p);
      };
      return sluice::mat2{dot(x.m00, y.m00, x.m01, y.m10), dot(x.m00, y.m01, x.m01, y.m11),
                          dot(x.m10, y.m00, x.m11, y.m10), dot(x.m10, y.m01, x.m11, y.m11)};
    };
    auto any_residue = [&] { return static_cast<std::uint32_t>(rng() % p); };
    const sluice::mat2 top{p - 1, p - 1, p - 1, p - 1};
    EXPECT_EQ(mod(top, top), plain(top, top)) << "p = " << p;
    for (int trial = 0; trial < 10000; ++trial) {
      const sluice::mat2 x{any_residue(), any_residue(), any_residue(), any_residue()};
      const sluice::mat2 y{any_residue(), any_residue(), any_residue(), any_residue()};
      ASSERT_EQ(mod(x, y), plain(x, y)) << "p = " << p;
    }
  }
}
}  // namespace
