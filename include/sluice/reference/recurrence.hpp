// sluice/reference/recurrence.hpp: sequential oracle for first-order recurrences solvable by scan
// (Palik §4.5).
//
//   x_0 = b_0,   x_i = (x_{i-1} ⊗ a_i) ⊕ b_i   for 0 < i < n
//
// linear_recurrence(a, b, oplus, otimes) is this loop, run directly (not via a scan), so that tests can
// hold the scan formulation against it. a_0 never affects x (it only seeds the companion product). n = 0
// gives an empty vector; a.size() != b.size() throws invalid_argument("b"). otimes(x, a) takes the state
// first, as in the formula.
//
// The scan formulation: when ⊕ is associative, ⊗ is semi-associative with an associative companion ⊙
// ((x ⊗ a) ⊗ a' = x ⊗ (a ⊙ a')) and ⊗ right-distributes over ⊕, the pairs c_i = [a_i, b_i] under
//
//   c_i * c_j = [ a_i ⊙ a_j,  (b_i ⊗ a_j) ⊕ b_j ]          (recurrence_pair_op; associative, not commutative)
//
// have an inclusive scan whose b components are x_0..x_{n-1}. Examples: x·a + b over integers or reals
// (⊗ = ·, ⊕ = +, ⊙ = ·), max-plus max(x + a, b) (⊗ = +, ⊕ = max, ⊙ = +), and the segmented scan as a
// recurrence over (flag, value) (x ⊗ f = f ? identity : x, ⊙ = OR). Floating-point results of the scan
// differ from the loop by rounding (more so for |a| > 1): compare within a tolerance.
#pragma once

#include <sluice/core/error.hpp>

#include <cstddef>
#include <span>
#include <vector>

namespace sluice::reference {

template <class A, class B, class OPlus, class OTimes>
[[nodiscard]] std::vector<B> linear_recurrence(std::span<const A> a, std::span<const B> b, OPlus oplus,
                                               OTimes otimes) {
  if (a.size() != b.size())
    throw invalid_argument("reference::linear_recurrence", "b", "must have the same size as a");
  std::vector<B> x;
  x.reserve(b.size());
  for (std::size_t i = 0; i < b.size(); ++i) x.push_back(i == 0 ? b[0] : oplus(otimes(x[i - 1], a[i]), b[i]));
  return x;
}

/// c = [a, b]: the companion-product part and the value part of one recurrence step.
template <class A, class B>
struct recurrence_pair {
  A a;
  B b;
  friend constexpr bool operator==(const recurrence_pair&, const recurrence_pair&) = default;
};

/// c_i * c_j = [a_i ⊙ a_j, (b_i ⊗ a_j) ⊕ b_j]; combine in index order (i before j).
template <class OPlus, class OTimes, class OCompanion>
struct recurrence_pair_op {
  OPlus oplus;
  OTimes otimes;
  OCompanion companion;

  template <class A, class B>
  constexpr recurrence_pair<A, B> operator()(const recurrence_pair<A, B>& ci, const recurrence_pair<A, B>& cj) const {
    return {companion(ci.a, cj.a), oplus(otimes(ci.b, cj.a), cj.b)};
  }
};

}  // namespace sluice::reference
