// sluice/detail/reduce/tile_reduce.cuh: the first, straightforward device-wide reduction (two passes).
//
// Pass 1: each block owns a contiguous run of tiles (Threads × Items elements); each thread reduces
// its Items consecutive elements (blocked arrangement, vector loads), and cub::BlockReduce (tiled warp
// reductions, order-preserving) combines the threads. Pass 2 runs the same kernel, one block, over
// the per-block partials, and applies `init`.
//
// Order: for a non-commutative operator every tile is reduced on its own and the block folds the
// tile totals left to right, so the result has the sequential oracle's bits. A commutative operator
// lets each thread fold all its tiles first and reduce once per block (Palik §3.6: the reordering
// that commutativity permits).
//
// Traffic: n·sizeof(T) read once, grid·sizeof(T) written and read back. Work O(n), depth O(n/grid).
// This is the foundation's baseline; the tuned reduce family (strategies by seed name) replaces it.
#pragma once

#include <sluice/block/load.cuh>
#include <sluice/core/operators.hpp>

#include <cub/block/block_reduce.cuh>

#include <cuda/std/cstddef>

namespace sluice::detail::reduce {

template <int Threads, int Items>
struct tile_shape {
  static constexpr int threads = Threads;
  static constexpr int items = Items;
  static constexpr int tile = Threads * Items;
};

/// In-order fold of a thread's first `count` items (count ≥ 1).
template <int Items, class T, class Op>
__device__ __forceinline__ T fold_items(const T (&items)[Items], int count, Op op) {
  T acc = items[0];
#pragma unroll
  for (int i = 1; i < Items; ++i)
    if (i < count) acc = op(acc, items[i]);
  return acc;
}

/// Loads the tile at `offset` with `valid` elements in blocked arrangement; returns this thread's count.
template <class Shape, class T>
__device__ __forceinline__ int load_tile(const T* in, cuda::std::size_t offset, cuda::std::size_t valid,
                                         T (&items)[Shape::items]) {
  const int thread = static_cast<int>(threadIdx.x);
  if (valid == static_cast<cuda::std::size_t>(Shape::tile)) {
    block::load_blocked_vectorized(in + offset, thread, items);
    return Shape::items;
  }
  return block::load_blocked_partial(in + offset, thread, static_cast<int>(valid), items);
}

/// out[blockIdx.x] = fold of the block's tiles (pass 1); with ApplyInit, op(init, fold) (final pass).
template <class Shape, bool ApplyInit, class T, class Op>
__global__ void __launch_bounds__(Shape::threads)
    reduce_tiles_kernel(const T* __restrict__ in, cuda::std::size_t n, cuda::std::size_t tiles_per_block,
                        T* __restrict__ out, T init, Op op) {
  using block_reduce = cub::BlockReduce<T, Shape::threads>;
  __shared__ typename block_reduce::TempStorage temp;

  const cuda::std::size_t tile_count = (n + Shape::tile - 1) / Shape::tile;
  const cuda::std::size_t first = blockIdx.x * tiles_per_block;
  const cuda::std::size_t last = cuda::std::min(first + tiles_per_block, tile_count);
  const cuda::std::size_t block_elements = cuda::std::min(n, last * Shape::tile) - first * Shape::tile;
  // Threads that saw data form a prefix (blocked arrangement): all of them unless the block holds
  // less than one tile.
  const int threads_with_data =
      block_elements >= static_cast<cuda::std::size_t>(Shape::tile)
          ? Shape::threads
          : static_cast<int>((block_elements + Shape::items - 1) / Shape::items);

  T acc{};
  bool have = false;
  for (cuda::std::size_t t = first; t < last; ++t) {
    const cuda::std::size_t offset = t * Shape::tile;
    T items[Shape::items];
    const int count = load_tile<Shape>(in, offset, cuda::std::min<cuda::std::size_t>(Shape::tile, n - offset), items);
    if constexpr (is_commutative_v<Op>) {
      if (count > 0) {
        const T part = fold_items(items, count, op);
        acc = have ? op(acc, part) : part;
        have = true;
      }
    } else {
      const T part = count > 0 ? fold_items(items, count, op) : T{};
      const int valid_threads = static_cast<int>((cuda::std::min<cuda::std::size_t>(Shape::tile, n - offset) +
                                                  Shape::items - 1) / Shape::items);
      const T tile_total = block_reduce(temp).Reduce(part, op, valid_threads);
      __syncthreads();  // temp is reused by the next tile
      if (threadIdx.x == 0) acc = have ? op(acc, tile_total) : tile_total;
      have = true;
    }
  }

  T total = acc;
  if constexpr (is_commutative_v<Op>) total = block_reduce(temp).Reduce(acc, op, threads_with_data);
  if (threadIdx.x == 0) out[blockIdx.x] = ApplyInit ? op(init, total) : total;
}

template <class T>
__global__ void store_value_kernel(T* out, T value) {
  *out = value;
}

}  // namespace sluice::detail::reduce
