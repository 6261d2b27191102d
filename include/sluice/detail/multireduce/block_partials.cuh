// sluice/detail/multireduce/block_partials.cuh: the last step of the order-preserving strategies whose
// blocks each reduce a contiguous range of the input to m partials (vector.cuh, warp_private_sets.cuh):
// partials[block · m + k] folded in block order onto out[k]. Order-preserving and deterministic: the
// fold's shape depends only on the number of blocks.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/operators.hpp>
#include <sluice/detail/multireduce/tuning.hpp>
#include <sluice/detail/reduce/warp_shuffle.cuh>

#include <cuda/std/functional>  // cuda::std::min

#include <cstddef>
#include <cstdint>

namespace sluice::detail::multireduce {

/// Block k: out[k] = out[k] ⊕ partials[0 · m + k] ⊕ … ⊕ partials[(blocks − 1) · m + k], in block order
/// (thread t folds a contiguous run of blocks, then the threads are reduced in thread order).
template <class T, class Op>
__global__ void __launch_bounds__(tuning::fold_partials_threads)
    fold_partials_in_order_kernel(const T* __restrict__ partials, std::size_t blocks, std::uint32_t m, T* out, Op op) {
  using block_reduce = reduce::block_reduce_by_warp_shuffles<T, tuning::fold_partials_threads>;
  __shared__ typename block_reduce::TempStorage temp;
  const std::uint32_t k = blockIdx.x;
  const std::size_t per_thread = (blocks + tuning::fold_partials_threads - 1) / tuning::fold_partials_threads;
  const std::size_t begin = cuda::std::min(blocks, threadIdx.x * per_thread);
  const std::size_t end = cuda::std::min(blocks, begin + per_thread);
  T mine = identity<Op, T>();
  for (std::size_t b = begin; b < end; ++b) mine = op(mine, partials[b * m + k]);
  const int valid_threads = static_cast<int>((blocks + per_thread - 1) / per_thread);
  const T total = block_reduce(temp).Reduce(mine, op, valid_threads);
  if (threadIdx.x == 0) out[k] = op(out[k], total);
}

/// Launches the fold of `blocks` blocks' partials onto out, on the context's stream.
template <class T, class Op>
void fold_block_partials(context& ctx, const T* partials, std::size_t blocks, std::uint32_t m, T* out, Op op) {
  fold_partials_in_order_kernel<T, Op><<<m, tuning::fold_partials_threads, 0, ctx.stream()>>>(partials, blocks, m,
                                                                                            out, op);
  SLUICE_CHECK_LAUNCH();
}

}  // namespace sluice::detail::multireduce
