// sluice/detail/reduce/dispatch.cuh: the reduce family's dispatch: the argument checks, then the chosen
// strategy (reduce.cuh's entry points call it).
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
#include <sluice/options/reduce.hpp>

#include <cuda/std/span>

namespace sluice::detail::reduce {

/// Writes init ⊕ input[0] ⊕ … ⊕ input[n−1] to *out by options.algorithm.
template <class T, class Op>
void dispatch(context& ctx, cuda::std::span<const T> input, T* out, T init, Op op, const reduce_options& options) {
  require_device_memory(ctx, input, "reduce", "in");
  require_device_memory(ctx, out, sizeof(T), "reduce", "out");
  if (requires_commutative_operator(options.algorithm) && !is_commutative_v<Op>)
    throw invalid_argument("reduce", "options.algorithm",
                           "names a strategy that reorders operands: the operator must be commutative "
                           "(sluice::is_commutative_v<Op>)");
  auto device = ctx.activate();
  switch (options.algorithm) {
    case reduce_algorithm::automatic:
    case reduce_algorithm::two_pass_tiles:
      two_pass_tiles(ctx, input, out, init, op, pass_through{});
      return;
    case reduce_algorithm::warp_shuffle:
      warp_shuffle(ctx, input, out, init, op, pass_through{});
      return;
    case reduce_algorithm::palik_interleaved: palik_interleaved(ctx, input, out, init, op); return;
    // The commutative-only strategies are not instantiated for other operators (rejected above).
    case reduce_algorithm::dtu_global_tree:
      if constexpr (is_commutative_v<Op>) dtu_global_tree(ctx, input, out, init, op);
      return;
    case reduce_algorithm::dtu_shared_tree:
      if constexpr (is_commutative_v<Op>) dtu_shared_tree(ctx, input, out, init, op);
      return;
    case reduce_algorithm::palik_sequential_addressing:
      if constexpr (is_commutative_v<Op>) palik_sequential_addressing(ctx, input, out, init, op);
      return;
  }
  throw invalid_argument("reduce", "options.algorithm", "is not a reduce_algorithm");
}

}  // namespace sluice::detail::reduce
