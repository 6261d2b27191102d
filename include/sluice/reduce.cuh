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
// Strategies (reduce_options::algorithm; docs/reduce.md): two_pass_tiles (automatic: the fastest,
// 0.99x cub::DeviceReduce at 2^28 u32 on an H100, docs/perf-notes.md), and the seeds' strategies for
// study: dtu_global_tree, dtu_shared_tree (DTU §5.3), palik_interleaved, palik_sequential_addressing,
// warp_shuffle (Palik §3.3–3.6). Those that reorder operands reject a non-commutative operator with
// sluice::invalid_argument (parameter "options.algorithm").
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/memory.hpp>
#include <sluice/core/operators.hpp>
#include <sluice/detail/reduce/dtu_global_tree.cuh>
#include <sluice/detail/reduce/dtu_shared_tree.cuh>
#include <sluice/detail/reduce/palik_interleaved.cuh>
#include <sluice/detail/reduce/palik_sequential_addressing.cuh>
#include <sluice/detail/reduce/tile_reduce.cuh>
#include <sluice/detail/reduce/warp_shuffle.cuh>

#include <cuda/std/span>

#include <concepts>
#include <cstddef>
#include <string_view>
#include <type_traits>

namespace sluice {

enum class reduce_algorithm {
  automatic,                    ///< two_pass_tiles: measured fastest (docs/perf-notes.md)
  two_pass_tiles,               ///< one wave of blocks over runs of vector-loaded tiles, then one block
  dtu_global_tree,              ///< DTU Listing 5.4: tree in global memory (on a copy), multi-pass; commutative
  dtu_shared_tree,              ///< DTU Listing 5.6: shared-memory tree per block, multi-pass; commutative
  palik_interleaved,            ///< Palik §3.3–3.4: per-thread chunks, interleaved tree; order-preserving
  palik_sequential_addressing,  ///< Palik §3.6: i with i + len/2, warp-synchronous tail; commutative
  warp_shuffle,                 ///< Palik §3.5: warp shuffles, block over warp partials, grid; order-preserving
};

struct reduce_options {
  reduce_algorithm algorithm = reduce_algorithm::automatic;
};

/// The enumerator's name ("dtu_global_tree"), for reports and test names.
[[nodiscard]] constexpr std::string_view to_string(reduce_algorithm algorithm) {
  switch (algorithm) {
    case reduce_algorithm::automatic: return "automatic";
    case reduce_algorithm::two_pass_tiles: return "two_pass_tiles";
    case reduce_algorithm::dtu_global_tree: return "dtu_global_tree";
    case reduce_algorithm::dtu_shared_tree: return "dtu_shared_tree";
    case reduce_algorithm::palik_interleaved: return "palik_interleaved";
    case reduce_algorithm::palik_sequential_addressing: return "palik_sequential_addressing";
    case reduce_algorithm::warp_shuffle: return "warp_shuffle";
  }
  return "unknown";
}

/// True for the strategies that reorder operands: they accept only commutative operators.
[[nodiscard]] constexpr bool requires_commutative_operator(reduce_algorithm algorithm) {
  return algorithm == reduce_algorithm::dtu_global_tree || algorithm == reduce_algorithm::dtu_shared_tree ||
         algorithm == reduce_algorithm::palik_sequential_addressing;
}

/// Writes init ⊕ in[0] ⊕ … ⊕ in[n−1] to *out (device memory), asynchronously on ctx's stream.
/// Throws invalid_argument for host memory, and (parameter "options.algorithm") for a strategy that
/// reorders operands given an operator that is not commutative.
template <class In, std::size_t Extent, class T, class Op>
  requires std::same_as<std::remove_const_t<In>, T>
void reduce(context& ctx, cuda::std::span<In, Extent> in, T* out, T init, Op op, const reduce_options& options = {}) {
  const cuda::std::span<const T> input(in.data(), in.size());
  require_device_memory(ctx, input, "reduce", "in");
  require_device_memory(ctx, out, sizeof(T), "reduce", "out");
  if (requires_commutative_operator(options.algorithm) && !is_commutative_v<Op>)
    throw invalid_argument("reduce", "options.algorithm",
                           "names a strategy that reorders operands: the operator must be commutative "
                           "(sluice::is_commutative_v<Op>)");
  auto device = ctx.activate();
  namespace strategy = detail::reduce;
  switch (options.algorithm) {
    case reduce_algorithm::automatic:
    case reduce_algorithm::two_pass_tiles:
      strategy::two_pass_tiles(ctx, input, out, init, op, strategy::pass_through{});
      return;
    case reduce_algorithm::warp_shuffle:
      strategy::warp_shuffle(ctx, input, out, init, op, strategy::pass_through{});
      return;
    case reduce_algorithm::palik_interleaved: strategy::palik_interleaved(ctx, input, out, init, op); return;
    // The commutative-only strategies are not instantiated for other operators (rejected above).
    case reduce_algorithm::dtu_global_tree:
      if constexpr (is_commutative_v<Op>) strategy::dtu_global_tree(ctx, input, out, init, op);
      return;
    case reduce_algorithm::dtu_shared_tree:
      if constexpr (is_commutative_v<Op>) strategy::dtu_shared_tree(ctx, input, out, init, op);
      return;
    case reduce_algorithm::palik_sequential_addressing:
      if constexpr (is_commutative_v<Op>) strategy::palik_sequential_addressing(ctx, input, out, init, op);
      return;
  }
  throw invalid_argument("reduce", "options.algorithm", "is not a reduce_algorithm");
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
