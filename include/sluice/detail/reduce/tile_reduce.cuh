// sluice/detail/reduce/tile_reduce.cuh: the first, straightforward device-wide reduction (two passes).
//
// Pass 1: each block owns a contiguous run of tiles (Threads × Items elements) and writes one partial;
// pass 2 runs the same kernel, one block, over the partials and applies `init`.
//
// Order: for a non-commutative operator every tile is loaded in blocked arrangement (a thread holds
// consecutive elements), folded per thread, reduced by cub::BlockReduce (tiled warp reductions,
// order-preserving), and the block folds the tile totals left to right, so the result has the
// sequential oracle's bits. A commutative operator permits reordering (Palik §3.6): striped 16-byte
// vector loads (each warp instruction one contiguous 512-byte run), a per-thread fold across all the
// block's tiles, and one block reduction at the end.
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

/// Folds the tiles [first, last) in index order: every tile is reduced across the block (blocked
/// arrangement), and thread 0 folds the tile totals left to right. Valid in thread 0.
template <class Shape, class T, class Op, class BlockReduce>
__device__ T fold_tiles_in_order(const T* in, cuda::std::size_t n, cuda::std::size_t first, cuda::std::size_t last,
                                 Op op, typename BlockReduce::TempStorage& temp) {
  T acc{};
  for (cuda::std::size_t t = first; t < last; ++t) {
    const cuda::std::size_t offset = t * Shape::tile;
    const cuda::std::size_t valid = cuda::std::min<cuda::std::size_t>(Shape::tile, n - offset);
    T items[Shape::items];
    const int count = load_tile<Shape>(in, offset, valid, items);
    const T part = count > 0 ? fold_items(items, count, op) : T{};
    const int valid_threads = static_cast<int>((valid + Shape::items - 1) / Shape::items);
    const T tile_total = BlockReduce(temp).Reduce(part, op, valid_threads);
    __syncthreads();  // temp is reused by the next tile
    if (threadIdx.x == 0) acc = t == first ? tile_total : op(acc, tile_total);
  }
  return acc;
}

/// Folds the tiles [first, last) in any order (commutative operators): each thread folds every tile's
/// elements it loads (striped 16-byte vectors, fully coalesced), and the block reduces once. Valid in
/// thread 0.
template <class Shape, class T, class Op, class BlockReduce>
__device__ T fold_tiles_any_order(const T* in, cuda::std::size_t n, cuda::std::size_t first, cuda::std::size_t last,
                                  Op op, typename BlockReduce::TempStorage& temp) {
  const int thread = static_cast<int>(threadIdx.x);
  T acc{};
  bool have = false;
  for (cuda::std::size_t t = first; t < last; ++t) {
    const cuda::std::size_t offset = t * Shape::tile;
    const cuda::std::size_t valid = cuda::std::min<cuda::std::size_t>(Shape::tile, n - offset);
    if (valid == static_cast<cuda::std::size_t>(Shape::tile)) {
      T items[Shape::items];
      block::load_striped_vectorized(in + offset, thread, Shape::threads, items);
      const T part = fold_items(items, Shape::items, op);
      acc = have ? op(acc, part) : part;
      have = true;
    } else {
      for (cuda::std::size_t i = thread; i < valid; i += Shape::threads) {
        acc = have ? op(acc, in[offset + i]) : in[offset + i];
        have = true;
      }
    }
  }
  // Threads that saw data form a prefix: all of them unless the block holds less than one tile.
  const cuda::std::size_t elements = cuda::std::min(n, last * Shape::tile) - first * Shape::tile;
  const int threads_with_data = static_cast<int>(cuda::std::min<cuda::std::size_t>(Shape::threads, elements));
  return BlockReduce(temp).Reduce(acc, op, threads_with_data);
}

/// out[blockIdx.x] = fold of the block's run of tiles (pass 1); with ApplyInit, op(init, fold)
/// (the final pass).
template <class Shape, bool ApplyInit, class T, class Op>
__global__ void __launch_bounds__(Shape::threads)
    reduce_tiles_kernel(const T* __restrict__ in, cuda::std::size_t n, cuda::std::size_t tiles_per_block,
                        T* __restrict__ out, T init, Op op) {
  using block_reduce = cub::BlockReduce<T, Shape::threads>;
  __shared__ typename block_reduce::TempStorage temp;
  const cuda::std::size_t tile_count = (n + Shape::tile - 1) / Shape::tile;
  const cuda::std::size_t first = blockIdx.x * tiles_per_block;
  const cuda::std::size_t last = cuda::std::min(first + tiles_per_block, tile_count);
  T total;
  if constexpr (is_commutative_v<Op>) total = fold_tiles_any_order<Shape, T, Op, block_reduce>(in, n, first, last, op, temp);
  else total = fold_tiles_in_order<Shape, T, Op, block_reduce>(in, n, first, last, op, temp);
  if (threadIdx.x == 0) out[blockIdx.x] = ApplyInit ? op(init, total) : total;
}

template <class T>
__global__ void store_value_kernel(T* out, T value) {
  *out = value;
}

}  // namespace sluice::detail::reduce
