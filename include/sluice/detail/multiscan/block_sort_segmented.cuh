// sluice/detail/multiscan/block_sort_segmented.cuh: multiscan by block-local sorts and segmented scans
// within the partitioning scheme (Eilers Alg. 5.4 inside Alg. 5.2). Order-preserving for any associative
// operator; m · sizeof(T) ≤ accumulator_bytes (the block's running bucket set lives in shared memory).
//
//   1. local multiscan: each block owns a contiguous range of tiles and keeps m running bucket results
//      in shared memory. Each tile is sorted by bucket and scanned run by run (multireduce/sorted_tile.cuh,
//      the same block piece as multireduce's Alg. 4.13), every element's result is the block's running
//      result of its bucket ⊕ its run's scan up to it (exclusive: up to its predecessor), staged by its
//      position in shared memory and written coalesced to out; then each run's total advances its bucket.
//      The block's final bucket set goes to partials[block · m + k].
//   2. the partials of each bucket scanned exclusively across blocks in block order (Alg. 5.2 step 2),
//      one thread per bucket; the last running result is the bucket's total.
//   3. every element of block b ≥ 1 gets its bucket's prefix from step 2 folded in ON THE LEFT
//      (Alg. 5.2 step 3: prefix ⊕ result, the order a non-commutative operator needs).
//   Steps 2 and 3 are common.cuh's scan_and_fold_segments, a block's range of tiles being its segment.
// Memory: blocks · m partials (blocks = one wave). A tile's values are staged before its results are
// written over the same positions, so out may be the values array itself.
// Traffic: labels and values read once, out written once; step 3 reads labels and out again and writes
// out again for all but the first block's range.
#pragma once

#include <sluice/block/neighbours.cuh>
#include <sluice/core/context.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/core/scratch.hpp>
#include <sluice/detail/multireduce/common.cuh>
#include <sluice/detail/multireduce/sorted_tile.cuh>
#include <sluice/detail/multiscan/common.cuh>

#include <cuda/std/functional>  // cuda::std::min (this CCCL has no <cuda/std/algorithm>)
#include <cuda/std/cstddef>
#include <cuda/std/cstdint>

#include <cstddef>
#include <cstdint>

namespace sluice::detail::multiscan {

/// Step 1 (header comment).
template <class Shape, class L, class Values, class T, class O, class Op>
__global__ void __launch_bounds__(Shape::threads)
    local_multiscan_kernel(const L* __restrict__ labels, Values values, cuda::std::size_t n, std::uint32_t m, int bits,
                           cuda::std::size_t tiles_per_block, scan_outputs<T, O> outputs, T* __restrict__ partials,
                           Op op, std::size_t* dropped) {
  using tile_t = multireduce::sorted_tile<Shape, L, T>;
  __shared__ typename tile_t::TempStorage temp;
  __shared__ block::neighbour_storage<Shape::threads, T> previous;
  T* running = multireduce::identity_accumulators<Op, T>(m);
  T* staged = reinterpret_cast<T*>(temp.staged);
  const multireduce::block_tiles mine(n, Shape::tile, tiles_per_block);
  tile_t tile;
  for (cuda::std::size_t t = mine.first; t < mine.last; ++t) {
    const cuda::std::size_t offset = t * Shape::tile;
    const int valid = static_cast<int>(cuda::std::min<cuda::std::size_t>(Shape::tile, n - offset));
    tile.load_and_sort(temp, labels, values, offset, valid, m, bits);
    tile.scan(temp, op);
    // The exclusive result of a thread's first item continues the previous thread's last inclusive one.
    T before = block::from_previous_thread(tile.value[Shape::items - 1], tile.value[Shape::items - 1], previous);
#pragma unroll
    for (int j = 0; j < Shape::items; ++j) {
      const std::uint32_t k = tile.bucket[j];
      T result = identity<Op, T>();  // dropped elements (and the padding, never written out)
      if (k < m) {
        if (outputs.inclusive) result = op(running[k], tile.value[j]);
        else result = tile.head[j] ? running[k] : op(running[k], before);
      }
      before = tile.value[j];
      staged[tile.position[j]] = result;
    }
    __syncthreads();  // every result has read its bucket's running value
#pragma unroll
    for (int j = 0; j < Shape::items; ++j)
      if (tile.tail[j] && tile.bucket[j] < m) running[tile.bucket[j]] = op(running[tile.bucket[j]], tile.value[j]);
    for (int i = threadIdx.x; i < valid; i += Shape::threads) outputs.out[offset + i] = static_cast<O>(staged[i]);
    __syncthreads();  // the next tile stages its values over these results
  }
  for (std::uint32_t k = threadIdx.x; k < m; k += Shape::threads)
    partials[blockIdx.x * cuda::std::size_t{m} + k] = running[k];
  multireduce::add_dropped(tile.dropped, dropped);
}

/// m buckets of T fit the block's shared accumulators.
template <class T>
constexpr bool block_sort_fits(std::uint32_t m) {
  return std::size_t{m} * sizeof(T) <= multireduce::tuning::accumulator_bytes;
}

template <class L, class Values, class T, class O, class Op>
void run_block_sort_segmented(context& ctx, const L* labels, Values values, std::size_t n, std::uint32_t m, Op op,
                              scan_outputs<T, O> outputs, std::size_t* dropped) {
  using shape = multireduce::tuning::sort_tile_shape<T>;
  auto kernel = local_multiscan_kernel<shape, L, Values, T, O, Op>;
  const auto launch = multireduce::accumulator_launch::plan<shape, T>(ctx, kernel, n, m);
  scratch<T> partials(ctx, launch.blocks * m);
  kernel<<<static_cast<unsigned>(launch.blocks), shape::threads, launch.shared_bytes, ctx.stream()>>>(
      labels, values, n, m, multireduce::tile_sort_bits(m), launch.tiles_per_block, outputs, partials.get(), op,
      dropped);
  SLUICE_CHECK_LAUNCH();
  scan_and_fold_segments(ctx, labels, n, m, partials.get(), partial_layout::segment_major(m), launch.blocks,
                         launch.tiles_per_block * shape::tile, outputs, op);
}

}  // namespace sluice::detail::multiscan
