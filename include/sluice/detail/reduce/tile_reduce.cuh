// sluice/detail/reduce/tile_reduce.cuh: the two-pass tile reduction (strategy two_pass_tiles, the
// automatic choice), also the kernel of transform_reduce and of warp_shuffle.
//
// Pass 1: each block owns a contiguous run of tiles (Threads × Items elements) and writes one partial;
// pass 2 runs the same kernel, one block, over the partials and applies `init`. Elements pass through
// `transform` right after they are loaded (reduce passes pass_through), so transform_reduce is this
// kernel, not a copy of it.
//
// Order: for a non-commutative operator every tile is loaded in blocked arrangement (a thread holds
// consecutive elements), folded per thread, reduced across the block by an order-preserving block
// reduction (cub::BlockReduce here, warp shuffles in warp_shuffle.cuh), and the block folds the tile
// totals left to right, so the result has the sequential oracle's bits. A commutative operator permits
// reordering (Palik §3.6): striped 16-byte vector loads (each warp instruction one contiguous 512-byte
// run), a per-thread fold across all the block's tiles, and one block reduction at the end.
//
// Traffic: n·sizeof(In) read once, grid·sizeof(T) written and read back. Work O(n), depth
// O(n/grid + log Threads).
#pragma once

#include <sluice/block/load.cuh>
#include <sluice/block/tile_shape.hpp>
#include <sluice/core/context.hpp>
#include <sluice/core/device_buffer.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/core/operators.hpp>
#include <sluice/detail/reduce/common.cuh>
#include <sluice/detail/reduce/tuning.hpp>

#include <cub/block/block_reduce.cuh>

#include <cuda/std/cstddef>
#include <cuda/std/span>

namespace sluice::detail::reduce {

using block::tile_shape;
/// The tile of two_pass_tiles (tuning.hpp).
template <class T>
using default_shape = tuning::tile<T>;

/// The block-level reduction of two_pass_tiles (tiled warp reductions, order-preserving).
template <class T, int Threads>
using cub_block_reduce = cub::BlockReduce<T, Threads>;

/// In-order fold of the transforms of a thread's first `count` items (count ≥ 1).
template <class T, int Items, class In, class Op, class Transform>
__device__ __forceinline__ T fold_items(const In (&items)[Items], int count, Op op, Transform transform) {
  T acc = static_cast<T>(transform(items[0]));
#pragma unroll
  for (int i = 1; i < Items; ++i)
    if (i < count) acc = op(acc, static_cast<T>(transform(items[i])));
  return acc;
}

/// Loads the tile at `offset` with `valid` elements in blocked arrangement; returns this thread's count.
template <class Shape, class In>
__device__ __forceinline__ int load_tile(const In* in, cuda::std::size_t offset, cuda::std::size_t valid,
                                         In (&items)[Shape::items]) {
  const int thread = static_cast<int>(threadIdx.x);
  if (valid == static_cast<cuda::std::size_t>(Shape::tile)) {
    block::load_blocked_vectorized(in + offset, thread, items);
    return Shape::items;
  }
  return block::load_blocked_partial(in + offset, thread, static_cast<int>(valid), items);
}

/// Folds the tiles [first, last) in index order: every tile is reduced across the block (blocked
/// arrangement), and thread 0 folds the tile totals left to right. Valid in thread 0.
template <class Shape, class BlockReduce, class T, class In, class Op, class Transform>
__device__ T fold_tiles_in_order(const In* in, cuda::std::size_t n, cuda::std::size_t first, cuda::std::size_t last,
                                 Op op, Transform transform, typename BlockReduce::TempStorage& temp) {
  T acc{};
  for (cuda::std::size_t t = first; t < last; ++t) {
    const cuda::std::size_t offset = t * Shape::tile;
    const cuda::std::size_t valid = cuda::std::min<cuda::std::size_t>(Shape::tile, n - offset);
    In items[Shape::items];
    const int count = load_tile<Shape>(in, offset, valid, items);
    const T part = count > 0 ? fold_items<T>(items, count, op, transform) : T{};
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
template <class Shape, class BlockReduce, class T, class In, class Op, class Transform>
__device__ T fold_tiles_any_order(const In* in, cuda::std::size_t n, cuda::std::size_t first, cuda::std::size_t last,
                                  Op op, Transform transform, typename BlockReduce::TempStorage& temp) {
  const int thread = static_cast<int>(threadIdx.x);
  T acc{};
  bool have = false;
  for (cuda::std::size_t t = first; t < last; ++t) {
    const cuda::std::size_t offset = t * Shape::tile;
    const cuda::std::size_t valid = cuda::std::min<cuda::std::size_t>(Shape::tile, n - offset);
    if (valid == static_cast<cuda::std::size_t>(Shape::tile)) {
      In items[Shape::items];
      block::load_striped_vectorized(in + offset, thread, Shape::threads, items);
      const T part = fold_items<T>(items, Shape::items, op, transform);
      acc = have ? op(acc, part) : part;
      have = true;
    } else {
      for (cuda::std::size_t i = thread; i < valid; i += Shape::threads) {
        const T x = static_cast<T>(transform(in[offset + i]));
        acc = have ? op(acc, x) : x;
        have = true;
      }
    }
  }
  // Threads that saw data form a prefix: all of them unless the block holds less than one tile.
  const cuda::std::size_t elements = cuda::std::min(n, last * Shape::tile) - first * Shape::tile;
  const int threads_with_data = static_cast<int>(cuda::std::min<cuda::std::size_t>(Shape::threads, elements));
  return BlockReduce(temp).Reduce(acc, op, threads_with_data);
}

/// out[blockIdx.x] = fold of transform over the block's run of tiles (pass 1); with ApplyInit,
/// op(init, fold) (the final pass). BlockReduce<T, Threads> is the block-level reduction: a class
/// with cub::BlockReduce's TempStorage and Reduce(value, op, valid_threads), order-preserving.
template <class Shape, template <class, int> class BlockReduce, bool ApplyInit, class In, class T, class Op,
          class Transform>
__device__ __forceinline__ void reduce_run_of_tiles(const In* __restrict__ in, cuda::std::size_t n,
                                                    cuda::std::size_t tiles_per_block, T* __restrict__ out, T init,
                                                    Op op, Transform transform) {
  using block_reduce = BlockReduce<T, Shape::threads>;
  __shared__ typename block_reduce::TempStorage temp;
  const cuda::std::size_t tile_count = (n + Shape::tile - 1) / Shape::tile;
  const cuda::std::size_t first = blockIdx.x * tiles_per_block;
  const cuda::std::size_t last = cuda::std::min(first + tiles_per_block, tile_count);
  T total;
  if constexpr (is_commutative_v<Op>)
    total = fold_tiles_any_order<Shape, block_reduce, T>(in, n, first, last, op, transform, temp);
  else
    total = fold_tiles_in_order<Shape, block_reduce, T>(in, n, first, last, op, transform, temp);
  if (threadIdx.x == 0) out[blockIdx.x] = ApplyInit ? op(init, total) : total;
}

/// The tile kernel of every tile strategy: reduce, transform_reduce, warp_shuffle.
template <class Shape, template <class, int> class BlockReduce, bool ApplyInit, class In, class T, class Op,
          class Transform>
__global__ void __launch_bounds__(Shape::threads)
    transform_reduce_tiles_kernel(const In* __restrict__ in, cuda::std::size_t n, cuda::std::size_t tiles_per_block,
                                  T* __restrict__ out, T init, Op op, Transform transform) {
  reduce_run_of_tiles<Shape, BlockReduce, ApplyInit>(in, n, tiles_per_block, out, init, op, transform);
}

/// The plain-reduce form with cub::BlockReduce, for other families that launch the tile pass
/// themselves (scan's reduce_then_scan).
template <class Shape, bool ApplyInit, class T, class Op>
__global__ void __launch_bounds__(Shape::threads)
    reduce_tiles_kernel(const T* __restrict__ in, cuda::std::size_t n, cuda::std::size_t tiles_per_block,
                        T* __restrict__ out, T init, Op op) {
  reduce_run_of_tiles<Shape, cub_block_reduce, ApplyInit>(in, n, tiles_per_block, out, init, op, pass_through{});
}

/// One launch of the tile kernel over `blocks` blocks, each folding `tiles_per_block` tiles of in.
template <class Shape, template <class, int> class BlockReduce, bool ApplyInit, class In, class T, class Op,
          class Transform>
void launch_tiles(context& ctx, const In* in, std::size_t n, std::size_t blocks, std::size_t tiles_per_block, T* out,
                  T init, Op op, Transform transform) {
  const auto kernel = transform_reduce_tiles_kernel<Shape, BlockReduce, ApplyInit, In, T, Op, Transform>;
  kernel<<<static_cast<unsigned>(blocks), Shape::threads, 0, ctx.stream()>>>(in, n, tiles_per_block, out, init, op,
                                                                             transform);
  SLUICE_CHECK_LAUNCH();
}

/// The two passes: one wave of blocks over contiguous runs of tiles of `in` (transformed), then one
/// block over their partials. A single pass when one block suffices.
template <template <class, int> class BlockReduce, class In, class T, class Op, class Transform>
void reduce_tiles(context& ctx, cuda::std::span<const In> in, T* out, T init, Op op, Transform transform) {
  using shape = default_shape<In>;
  if (in.empty()) {
    store_init(ctx, out, init);
    return;
  }
  const std::size_t tiles = ceil_div(in.size(), shape::tile);
  const auto first_pass = transform_reduce_tiles_kernel<shape, BlockReduce, false, In, T, Op, Transform>;
  const std::size_t grid = one_wave_grid(ctx, first_pass, shape::threads, tiles);
  const std::size_t tiles_per_block = ceil_div(tiles, grid);
  const std::size_t blocks = ceil_div(tiles, tiles_per_block);  // no block without a tile
  if (blocks == 1) {
    launch_tiles<shape, BlockReduce, true>(ctx, in.data(), in.size(), 1, tiles, out, init, op, transform);
    return;
  }
  using partial_shape = default_shape<T>;
  device_buffer<T> partials(ctx, blocks);  // stream-ordered from the context's pool
  launch_tiles<shape, BlockReduce, false>(ctx, in.data(), in.size(), blocks, tiles_per_block, partials.data(), init,
                                          op, transform);
  launch_tiles<partial_shape, BlockReduce, true>(ctx, partials.data(), blocks, 1,
                                                 ceil_div(blocks, partial_shape::tile), out, init, op, pass_through{});
}

/// Strategy two_pass_tiles: the tile kernel with cub::BlockReduce at the block level.
template <class In, class T, class Op, class Transform>
void two_pass_tiles(context& ctx, cuda::std::span<const In> in, T* out, T init, Op op, Transform transform) {
  reduce_tiles<cub_block_reduce>(ctx, in, out, init, op, transform);
}

}  // namespace sluice::detail::reduce
