// sluice/reduce.cuh: device-wide reduction, out = init ⊕ in[0] ⊕ … ⊕ in[n−1], and transform_reduce,
// out = init ⊕ f(in[0]) ⊕ … ⊕ f(in[n−1]).
//
// Any associative operator. Operators not declared commutative (sluice/core/operators.hpp) are
// combined strictly in index order and give the sequential oracle's bits; commutative ones let the
// implementation reorder. n = 0 writes init. Asynchronous on the context's stream.
//
//   sluice::context ctx;
//   sluice::device_buffer<int> in(ctx, host_values), out(ctx, 1);
//   sluice::reduce(ctx, in.span(), out.data(), 0, sluice::plus{});   // any associative operator
//   int sum = out.to_host()[0];
//
//   sluice::reduce(ctx, in.span(), out.data(), 0, sluice::plus{},
//                  {.algorithm = sluice::reduce_algorithm::palik_interleaved});  // a seed strategy
//
//   struct square { __device__ std::uint64_t operator()(std::uint32_t x) const { return std::uint64_t{x} * x; } };
//   sluice::transform_reduce(ctx, in32.span(), sum64.data(), std::uint64_t{0}, sluice::plus{}, square{});
//
// Strategies (reduce_options::algorithm; docs/reduce.md): two_pass_tiles (automatic: the fastest
// measured, docs/reduce.md), and the seeds' strategies for study: dtu_global_tree, dtu_shared_tree
// (DTU §5.3), palik_interleaved, palik_sequential_addressing, warp_shuffle (Palik §3.3–3.6). Those
// that reorder operands reject a non-commutative operator with sluice::invalid_argument (parameter
// "options.algorithm").
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/memory.hpp>
#include <sluice/core/operators.hpp>
#include <sluice/detail/reduce/dispatch.cuh>
#include <sluice/options/reduce.hpp>

#include <cuda/std/span>

#include <concepts>
#include <cstddef>
#include <type_traits>

namespace sluice {

/// Writes init ⊕ in[0] ⊕ … ⊕ in[n−1] to *out (device memory), asynchronously on ctx's stream.
/// Throws invalid_argument for host memory, and (parameter "options.algorithm") for a strategy that
/// reorders operands given an operator that is not commutative.
template <class In, std::size_t Extent, class T, class Op>
  requires std::same_as<std::remove_const_t<In>, T>
void reduce(context& ctx, cuda::std::span<In, Extent> in, T* out, T init, Op op, const reduce_options& options = {}) {
  detail::reduce::dispatch(ctx, cuda::std::span<const T>(in.data(), in.size()), out, init, op, options);
}

/// The sum, starting from init.
template <class In, std::size_t Extent, class T>
  requires std::same_as<std::remove_const_t<In>, T>
void reduce(context& ctx, cuda::std::span<In, Extent> in, T* out, T init = T(0)) {
  reduce(ctx, in, out, init, plus{});
}

/// Writes init ⊕ transform(in[0]) ⊕ … ⊕ transform(in[n−1]) to *out (device memory), asynchronously
/// on ctx's stream. `transform` is a device-callable object taking an element of in and returning
/// something convertible to T; it is applied once per element as the element is loaded (no
/// intermediate array). The order guarantees are reduce's: a non-commutative op combines the
/// transformed elements in index order. Runs the automatic strategy (two_pass_tiles).
template <class In, std::size_t Extent, class T, class Op, class Transform>
void transform_reduce(context& ctx, cuda::std::span<In, Extent> in, T* out, T init, Op op, Transform transform) {
  using element = std::remove_const_t<In>;
  const cuda::std::span<const element> input(in.data(), in.size());
  require_device_memory(ctx, input, "transform_reduce", "in");
  require_device_memory(ctx, out, sizeof(T), "transform_reduce", "out");
  auto device = ctx.activate();
  detail::reduce::two_pass_tiles(ctx, input, out, init, op, transform);
}

}  // namespace sluice
