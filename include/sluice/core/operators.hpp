// sluice/core/operators.hpp: binary operators, their identities, and the commutativity trait.
//
// Every reduction-like operation needs an associative operator. Commutativity is optional: it is a
// trait that unlocks strategies which reorder operands (atomics, sequential addressing). Operators that
// are not declared commutative are always combined in index order, so they give the sequential
// oracle's exact bits.
//
// Giving your own operator an identity and declaring it commutative, either with members
//
//   struct gcd_op {
//     static constexpr bool is_commutative = true;
//     template <class T> SLUICE_HOST_DEVICE static constexpr T identity() { return T(0); }
//     template <class T> SLUICE_HOST_DEVICE T operator()(T a, T b) const { ... }
//   };
//
// or, for an operator you cannot change, by specialising the traits:
//
//   template <> struct sluice::is_commutative<their_op> : std::true_type {};
//   template <> struct sluice::identity_element<their_op, int> {
//     SLUICE_HOST_DEVICE static constexpr int value() { return 0; }
//   };
#pragma once

#include <sluice/core/config.hpp>

#include <cuda/std/cstdint>
#include <cuda/std/limits>
#include <cuda/std/type_traits>

namespace sluice {

// ---- traits ----------------------------------------------------------------------------------------------

namespace detail {
template <class Op, class = void>
struct declares_commutative : cuda::std::false_type {};
template <class Op>
struct declares_commutative<Op, cuda::std::void_t<decltype(Op::is_commutative)>>
    : cuda::std::bool_constant<Op::is_commutative> {};

template <class Op, class T, class = void>
struct declares_identity : cuda::std::false_type {};
template <class Op, class T>
struct declares_identity<Op, T, cuda::std::void_t<decltype(Op::template identity<T>())>> : cuda::std::true_type {};
}  // namespace detail

/// True when `Op(a, b) == Op(b, a)` for all operands: strategies may then reorder them.
template <class Op>
struct is_commutative : detail::declares_commutative<Op> {};
template <class Op>
inline constexpr bool is_commutative_v = is_commutative<Op>::value;

/// The neutral element e of Op on T (Op(e, x) == Op(x, e) == x); defined when Op declares it.
template <class Op, class T, class = void>
struct identity_element {};
template <class Op, class T>
struct identity_element<Op, T, cuda::std::enable_if_t<detail::declares_identity<Op, T>::value>> {
  SLUICE_HOST_DEVICE static constexpr T value() { return Op::template identity<T>(); }
};

template <class Op, class T, class = void>
struct has_identity : cuda::std::false_type {};
template <class Op, class T>
struct has_identity<Op, T, cuda::std::void_t<decltype(identity_element<Op, T>::value())>> : cuda::std::true_type {};
template <class Op, class T>
inline constexpr bool has_identity_v = has_identity<Op, T>::value;

template <class Op, class T>
SLUICE_HOST_DEVICE constexpr T identity() {
  static_assert(has_identity_v<Op, T>, "this operator declares no identity for T: see sluice/core/operators.hpp");
  return identity_element<Op, T>::value();
}

// ---- built-in commutative operators ---------------------------------------------------------------------

struct plus {
  static constexpr bool is_commutative = true;
  template <class T>
  SLUICE_HOST_DEVICE static constexpr T identity() { return T(0); }
  template <class T>
  SLUICE_HOST_DEVICE constexpr T operator()(const T& a, const T& b) const { return a + b; }
};

/// The smaller operand; for floats the identity is +inf.
struct min {
  static constexpr bool is_commutative = true;
  template <class T>
  SLUICE_HOST_DEVICE static constexpr T identity() {
    if constexpr (cuda::std::numeric_limits<T>::has_infinity) return cuda::std::numeric_limits<T>::infinity();
    else return cuda::std::numeric_limits<T>::max();
  }
  template <class T>
  SLUICE_HOST_DEVICE constexpr T operator()(const T& a, const T& b) const { return b < a ? b : a; }
};

/// The larger operand; for floats the identity is -inf.
struct max {
  static constexpr bool is_commutative = true;
  template <class T>
  SLUICE_HOST_DEVICE static constexpr T identity() {
    if constexpr (cuda::std::numeric_limits<T>::has_infinity) return -cuda::std::numeric_limits<T>::infinity();
    else return cuda::std::numeric_limits<T>::lowest();
  }
  template <class T>
  SLUICE_HOST_DEVICE constexpr T operator()(const T& a, const T& b) const { return a < b ? b : a; }
};

struct bit_and {
  static constexpr bool is_commutative = true;
  template <class T>
  SLUICE_HOST_DEVICE static constexpr T identity() { return static_cast<T>(~T(0)); }
  template <class T>
  SLUICE_HOST_DEVICE constexpr T operator()(const T& a, const T& b) const { return a & b; }
};

struct bit_or {
  static constexpr bool is_commutative = true;
  template <class T>
  SLUICE_HOST_DEVICE static constexpr T identity() { return T(0); }
  template <class T>
  SLUICE_HOST_DEVICE constexpr T operator()(const T& a, const T& b) const { return a | b; }
};

struct bit_xor {
  static constexpr bool is_commutative = true;
  template <class T>
  SLUICE_HOST_DEVICE static constexpr T identity() { return T(0); }
  template <class T>
  SLUICE_HOST_DEVICE constexpr T operator()(const T& a, const T& b) const { return a ^ b; }
};

// ---- non-commutative operators --------------------------------------------------------------------------

/// The affine map x ↦ a·x + b. Composition is associative but not commutative: it is the operator of
/// first-order linear recurrences (Palik §4.5) and the standard test that a strategy keeps index order.
/// With unsigned integers the arithmetic wraps, so composition is exactly associative (bit-exact tests).
template <class T>
struct affine {
  T a;
  T b;
  SLUICE_HOST_DEVICE constexpr T operator()(const T& x) const { return a * x + b; }
  friend SLUICE_HOST_DEVICE constexpr bool operator==(const affine& l, const affine& r) {
    return l.a == r.a && l.b == r.b;
  }
};

/// compose(f, g) = "f, then g": x ↦ g(f(x)) = (f.a·g.a)·x + (g.a·f.b + g.b).
struct affine_compose {
  template <class A>
  SLUICE_HOST_DEVICE static constexpr A identity() { return A{1, 0}; }
  template <class T>
  SLUICE_HOST_DEVICE constexpr affine<T> operator()(const affine<T>& f, const affine<T>& g) const {
    return {f.a * g.a, g.a * f.b + g.b};
  }
};

/// A 2x2 matrix [[m00, m01], [m10, m11]] of residues modulo some p < 2^31.
struct mat2 {
  cuda::std::uint32_t m00, m01, m10, m11;
  friend SLUICE_HOST_DEVICE constexpr bool operator==(const mat2& l, const mat2& r) {
    return l.m00 == r.m00 && l.m01 == r.m01 && l.m10 == r.m10 && l.m11 == r.m11;
  }
};

/// Matrix product modulo p: associative, not commutative. The fingerprint algebra of Rabin–Karp
/// matching by scans (Ashkiani §2.2) and a non-commutative test operator.
class mat2_multiply_mod {
 public:
  /// p must lie in [2, 2^31): residue products then fit in 62 bits.
  SLUICE_HOST_DEVICE constexpr explicit mat2_multiply_mod(cuda::std::uint32_t p = 2147483629u)
      : p_(p), reciprocal_(~0ull / p) {}

  template <class M>
  SLUICE_HOST_DEVICE static constexpr M identity() { return M{1, 0, 0, 1}; }

  [[nodiscard]] SLUICE_HOST_DEVICE constexpr cuda::std::uint32_t modulus() const { return p_; }

  SLUICE_HOST_DEVICE mat2 operator()(const mat2& x, const mat2& y) const {
    return {dot(x.m00, y.m00, x.m01, y.m10), dot(x.m00, y.m01, x.m01, y.m11),
            dot(x.m10, y.m00, x.m11, y.m10), dot(x.m10, y.m01, x.m11, y.m11)};
  }

 private:
  /// x mod p for x < 2^62 by Barrett reduction: q = ⌊x·⌊(2^64−1)/p⌋ / 2^64⌋ undershoots ⌊x/p⌋ by at
  /// most one, so one conditional subtraction finishes (no 64-bit division in the inner loop).
  SLUICE_HOST_DEVICE cuda::std::uint32_t reduce(unsigned long long x) const {
    unsigned long long r = x - detail::multiply_high64(x, reciprocal_) * p_;
    if (r >= p_) r -= p_;
    return static_cast<cuda::std::uint32_t>(r);
  }
  SLUICE_HOST_DEVICE cuda::std::uint32_t dot(unsigned long long a, unsigned long long b, unsigned long long c,
                                             unsigned long long d) const {
    cuda::std::uint32_t sum = reduce(a * b) + reduce(c * d);  // < 2p < 2^32
    return sum >= p_ ? sum - p_ : sum;
  }

  cuda::std::uint32_t p_;
  unsigned long long reciprocal_;
};

}  // namespace sluice
