// sluice/recurrence.cuh: first-order recurrences solved by a scan (Palik §4.5).
//
//   x_0 = b_0,   x_i = (x_{i−1} ⊗ a_i) ⊕ b_i
//
// Palik's theorem: if ⊕ is associative, ⊗ is semi-associative with an associative companion ⊙
// ((x ⊗ a) ⊗ a' = x ⊗ (a ⊙ a')) and ⊗ right-distributes over ⊕, then the pairs c_i = [a_i, b_i] under
//   c_i * c_j = [a_i ⊙ a_j, (b_i ⊗ a_j) ⊕ b_j]
// are associative and the b components of their inclusive scan are x. The solver runs that scan in one
// pass (the single-pass scan, reading a and b, writing x): an apparently sequential loop at memory speed.
//
//   // x_i = a_i·x_{i−1} + b_i (an IIR filter, compound interest)
//   sluice::first_order_linear_recurrence(ctx, a.span(), b.span(), x.span());
//
// Ready instances: first_order_linear_recurrence (⊗ = ·, ⊕ = +, ⊙ = ·), max_plus_recurrence
// (x_i = max(x_{i−1} + a_i, b_i): ⊗ = +, ⊕ = max, ⊙ = +), and segmented_scan_by_recurrence (the
// segmented scan written as a recurrence over head flags: x ⊗ f = f ? identity : x, ⊙ = OR).
// Floating-point results differ from the sequential loop by rounding, more so when |a| > 1.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/memory.hpp>
#include <sluice/core/operators.hpp>
#include <sluice/core/span.hpp>
#include <sluice/detail/recurrence/dispatch.cuh>

#include <cuda/std/span>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace sluice {

/// One step c_i = [a_i, b_i] of a recurrence.
template <class A, class B>
using recurrence_step = detail::recurrence::step<A, B>;

/// c_i * c_j = [a_i ⊙ a_j, (b_i ⊗ a_j) ⊕ b_j] (index order: i before j).
template <class OPlus, class OTimes, class Companion>
using recurrence_step_op = detail::recurrence::step_op<OPlus, OTimes, Companion>;

/// ⊗ of the linear recurrence: the state times the coefficient.
struct multiplies {
  template <class T>
  SLUICE_HOST_DEVICE constexpr T operator()(const T& x, const T& a) const { return x * a; }
};

/// x_0 = b_0, x_i = otimes(x_{i−1}, a_i) ⊕ b_i, for operators meeting Palik's three conditions (see
/// above; they are the caller's promise, as associativity is for a scan). x may be b itself (in place:
/// a tile reads its a and b before writing its x); no overlap is checked.
template <class AIn, std::size_t E1, class BIn, std::size_t E2, class B, std::size_t E3, class OPlus, class OTimes,
          class Companion>
  requires std::same_as<std::remove_const_t<BIn>, B>
void linear_recurrence(context& ctx, cuda::std::span<AIn, E1> a, cuda::std::span<BIn, E2> b, cuda::std::span<B, E3> x,
                       OPlus oplus, OTimes otimes, Companion companion) {
  using A = std::remove_const_t<AIn>;
  const char* function = "linear_recurrence";
  require_device_memory(ctx, detail::as_const_span(a), function, "a");
  require_device_memory(ctx, detail::as_const_span(b), function, "b");
  require_device_memory(ctx, x, function, "x");
  if (b.size() != a.size()) throw invalid_argument(function, "b", "must have as many elements as a");
  if (x.size() != a.size()) throw invalid_argument(function, "x", "must have as many elements as a");
  if (a.empty()) return;
  auto device = ctx.activate();
  detail::recurrence::run(ctx, a.data(), b.data(), x.data(), a.size(),
                          recurrence_step_op<OPlus, OTimes, Companion>{oplus, otimes, companion});
}

/// x_i = a_i·x_{i−1} + b_i, x_0 = b_0.
template <class AIn, std::size_t E1, class BIn, std::size_t E2, class T, std::size_t E3>
  requires std::same_as<std::remove_const_t<AIn>, T> && std::same_as<std::remove_const_t<BIn>, T>
void first_order_linear_recurrence(context& ctx, cuda::std::span<AIn, E1> a, cuda::std::span<BIn, E2> b,
                                   cuda::std::span<T, E3> x) {
  linear_recurrence(ctx, a, b, x, plus{}, multiplies{}, multiplies{});
}

/// x_i = max(x_{i−1} + a_i, b_i), x_0 = b_0 (the max-plus, or tropical, recurrence).
template <class AIn, std::size_t E1, class BIn, std::size_t E2, class T, std::size_t E3>
  requires std::same_as<std::remove_const_t<AIn>, T> && std::same_as<std::remove_const_t<BIn>, T>
void max_plus_recurrence(context& ctx, cuda::std::span<AIn, E1> a, cuda::std::span<BIn, E2> b,
                         cuda::std::span<T, E3> x) {
  linear_recurrence(ctx, a, b, x, max{}, plus{}, plus{});
}

/// The segmented inclusive scan (head flags; flags[0] is ignored, as in Palik's formulation) computed
/// as a recurrence: x_i = (x_{i−1} ⊗ f_i) ⊕ v_i with x ⊗ f = f ? e : x and ⊙ = OR. Needs an identity.
/// The same result as segmented_inclusive_scan; kept to demonstrate (and test) Palik's theorem.
template <class VIn, std::size_t E1, class T, std::size_t E3, class Op>
  requires std::same_as<std::remove_const_t<VIn>, T>
void segmented_scan_by_recurrence(context& ctx, cuda::std::span<VIn, E1> values,
                                  cuda::std::span<const std::uint8_t> flags, cuda::std::span<T, E3> out, Op op) {
  linear_recurrence(ctx, flags, values, out, op, detail::recurrence::reset_at_head<Op>{},
                    detail::recurrence::logical_or{});
}

}  // namespace sluice
