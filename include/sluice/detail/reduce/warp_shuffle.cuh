// sluice/detail/reduce/warp_shuffle.cuh: strategy warp_shuffle, Palik §3.5 (three-level reduction)
// with shuffles in place of the slides' warp-synchronous shared memory.
//
//   thread: a tile in blocked arrangement (16-byte vector loads), folded in order (tile_reduce.cuh);
//   warp:   warp::reduce, shuffles at offsets 1, 2, 4, 8, 16 (order-preserving, warp/reduce.cuh);
//   block:  lane 0 of each warp stores its warp's fold to shared memory, one barrier, warp 0 reduces
//           those partials with warp::reduce again (the slides' sum_reduce_b);
//   grid:   a second launch, one block over the blocks' partials.
//
// It is the tile kernel of two_pass_tiles with this block level instead of cub::BlockReduce: the
// loads, the in-order tile folding and the passes are shared, not copied.
//
// Operator: any associative one (non-commutative included); commutative operators take the tile
// kernel's striped-load path.
// Work O(n); depth O(n/(grid·Threads) + log Threads). Traffic: n·sizeof(T) read once, grid·sizeof(T)
// partials. Shared memory: one T per warp.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/detail/reduce/common.cuh>
#include <sluice/detail/reduce/tile_reduce.cuh>
#include <sluice/warp/reduce.cuh>

#include <cuda/std/span>

namespace sluice::detail::reduce {

/// Block-level reduction from warp reductions (Palik §3.5), with cub::BlockReduce's interface so that
/// the tile kernel takes either.
template <class T, int Threads>
class block_reduce_by_warp_shuffles {
  static_assert(Threads % warp::size == 0 && Threads / warp::size <= warp::size,
                "whole warps, and no more warps than lanes for the second level");
  static constexpr int warps = Threads / warp::size;

 public:
  struct TempStorage {
    uninitialized_array<T, warps> warp_totals;
  };

  __device__ explicit block_reduce_by_warp_shuffles(TempStorage& temp) : temp_(temp) {}

  /// Fold of the values of threads [0, valid_threads) in thread order (valid_threads ≥ 1); valid in
  /// thread 0. Every thread of the block calls it; temp may be reused after a barrier.
  template <class Op>
  __device__ T Reduce(T value, Op op, int valid_threads) {
    const int warp_index = static_cast<int>(threadIdx.x) / warp::size;
    int lanes = valid_threads - warp_index * warp::size;  // this warp's threads that hold a value
    lanes = lanes < 0 ? 0 : (lanes > warp::size ? warp::size : lanes);
    const T warp_total = warp::reduce(value, op, lanes);
    T* const totals = temp_.warp_totals.data();
    if (warp::lane_id() == 0 && lanes > 0) totals[warp_index] = warp_total;
    __syncthreads();
    if (warp_index != 0) return warp_total;
    const int used = (valid_threads + warp::size - 1) / warp::size;
    return warp::reduce(totals[warp::lane_id() < used ? warp::lane_id() : 0], op, used);
  }

 private:
  TempStorage& temp_;
};

template <class In, class T, class Op, class Transform>
void warp_shuffle(context& ctx, cuda::std::span<const In> in, T* out, T init, Op op, Transform transform) {
  reduce_tiles<block_reduce_by_warp_shuffles>(ctx, in, out, init, op, transform);
}

}  // namespace sluice::detail::reduce
