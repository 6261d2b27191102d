// sluice/detail/multireduce/block_sort_segmented.cuh: multireduce by a block-local sort and segmented
// reduce (Eilers Alg. 4.13, §4.5c). Order-preserving: any associative operator, non-commutative ones
// with the oracle's bits.
//
// Every tile of Threads · Items pairs is sorted by bucket in shared memory and its runs reduced in tile
// order (sorted_tile.cuh); each run's total is the tile's partial result for its bucket. The partials
// are then combined per bucket in tile order (the partitioning scheme of §4.2), in one of two ways:
//   accumulators  m · sizeof(T) ≤ accumulator_bytes: each block owns a contiguous range of tiles and
//                 folds its tiles' run totals, tile after tile, onto m accumulators in shared memory
//                 (a bucket has at most one run per tile, so no two threads touch one accumulator);
//                 the blocks' accumulators (blocks · m, block-major) are then folded onto out in block
//                 order, one thread per bucket. The thesis's bucket-major partials[label·nTiles + tile]
//                 shrink by the tiles per block, and no segmented reduce is needed.
//   records       larger m: every tile writes its runs as (bucket, total) records, compacted into
//                 min(m + 2, tile) slots per tile (so O(n) memory, never nTiles · m; unused slots say
//                 "dropped"); a stable sort of the records by bucket keeps tile order within a bucket,
//                 and the global strategy's finish folds each bucket's records in that order
//                 (fold_sorted_buckets in global_sort_reduce_by_key.cuh: offsets, merge-path segmented
//                 reduce, fold onto out).
// Deterministic: within a tile the sort is stable and the run totals come from a block scan of fixed
// shape; the accumulators fold tiles in tile order (a barrier between tiles, one thread per bucket),
// then blocks in block order (the number of blocks depends on the device, not on timing); the records'
// finish combines in an order fixed by the record count and m.
// Traffic: labels and values read once; accumulators: blocks · m partials written and read once;
// records: at most n + tile records through one sort.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/core/scratch.hpp>
#include <sluice/detail/multireduce/common.cuh>
#include <sluice/detail/multireduce/global_sort_reduce_by_key.cuh>
#include <sluice/detail/multireduce/sorted_tile.cuh>
#include <sluice/detail/radix_sort/dispatch.cuh>

#include <cuda/std/cstddef>
#include <cuda/std/cstdint>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace sluice::detail::multireduce {

/// The tiles [first, last) of this block in order: each tile's run totals folded onto the block's m
/// accumulators in shared memory, which are then written to partials[blockIdx.x · m + k].
template <class Shape, class L, class T, class Op>
__global__ void __launch_bounds__(Shape::threads)
    sorted_tiles_to_accumulators_kernel(const L* __restrict__ labels, const T* __restrict__ values,
                                        cuda::std::size_t n, std::uint32_t m, int bits, cuda::std::size_t tiles_per_block,
                                        T* __restrict__ partials, Op op, std::size_t* dropped) {
  using tile_t = sorted_tile<Shape, L, T>;
  __shared__ typename tile_t::TempStorage temp;
  T* accumulators = identity_accumulators<Op, T>(m);
  const block_tiles mine(n, Shape::tile, tiles_per_block);
  tile_t tile;
  for (cuda::std::size_t t = mine.first; t < mine.last; ++t) {
    const cuda::std::size_t offset = t * Shape::tile;
    const int valid = static_cast<int>(cuda::std::min<cuda::std::size_t>(Shape::tile, n - offset));
    tile.load_and_sort(temp, labels, values, offset, valid, m, bits);  // its barriers order the init too
    tile.scan(temp, op);
#pragma unroll
    for (int j = 0; j < Shape::items; ++j)
      if (tile.tail[j] && tile.bucket[j] < m) accumulators[tile.bucket[j]] = op(accumulators[tile.bucket[j]], tile.value[j]);
  }
  __syncthreads();
  for (std::uint32_t k = threadIdx.x; k < m; k += Shape::threads)
    partials[blockIdx.x * cuda::std::size_t{m} + k] = accumulators[k];
  add_dropped(tile.dropped, dropped);
}

/// out[k] = out[k] ⊕ partials[0 · m + k] ⊕ … ⊕ partials[(blocks − 1) · m + k]: block order is input order.
template <class T, class Op>
__global__ void fold_block_partials_kernel(const T* __restrict__ partials, std::size_t blocks, std::uint32_t m, T* out,
                                           Op op) {
  for (cuda::std::size_t k = blockIdx.x * cuda::std::size_t{blockDim.x} + threadIdx.x; k < m;
       k += cuda::std::size_t{gridDim.x} * blockDim.x) {
    T total = out[k];
    for (std::size_t b = 0; b < blocks; ++b) total = op(total, partials[b * m + k]);
    out[k] = total;
  }
}

/// One tile per block (grid-stride): the tile's runs as (bucket, total) records in slots
/// [t · slots, (t + 1) · slots); slots past the tile's runs are marked dropped (bucket m).
template <class Shape, class L, class T, class Op>
__global__ void __launch_bounds__(Shape::threads)
    sorted_tiles_to_records_kernel(const L* __restrict__ labels, const T* __restrict__ values, cuda::std::size_t n,
                                   std::uint32_t m, int bits, std::uint32_t slots, std::uint32_t* __restrict__ buckets,
                                   T* __restrict__ totals, Op op, std::size_t* dropped) {
  using tile_t = sorted_tile<Shape, L, T>;
  __shared__ typename tile_t::TempStorage temp;
  const cuda::std::size_t tiles = ceil_div(n, Shape::tile);
  tile_t tile;
  for (cuda::std::size_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const cuda::std::size_t offset = t * Shape::tile;
    const int valid = static_cast<int>(cuda::std::min<cuda::std::size_t>(Shape::tile, n - offset));
    tile.load_and_sort(temp, labels, values, offset, valid, m, bits);
    tile.scan(temp, op);
    const cuda::std::size_t base = t * slots;
#pragma unroll
    for (int j = 0; j < Shape::items; ++j)
      if (tile.tail[j]) {
        buckets[base + tile.run[j]] = tile.bucket[j];
        totals[base + tile.run[j]] = tile.value[j];
      }
    for (std::uint32_t s = tile.runs + threadIdx.x; s < slots; s += Shape::threads) {
      buckets[base + s] = m;
      totals[base + s] = T{};  // never folded: written so that no uninitialised memory is read
    }
  }
  add_dropped(tile.dropped, dropped);
}

template <class Shape, class L, class T, class Op>
void reduce_tiles_by_accumulators(context& ctx, const L* labels, const T* values, std::size_t n, T* out,
                                  std::uint32_t m, Op op, std::size_t* dropped) {
  auto kernel = sorted_tiles_to_accumulators_kernel<Shape, L, T, Op>;
  const auto launch = accumulator_launch::plan<Shape, T>(ctx, kernel, n, m);
  scratch<T> partials(ctx, launch.blocks * m);
  kernel<<<static_cast<unsigned>(launch.blocks), Shape::threads, launch.shared_bytes, ctx.stream()>>>(
      labels, values, n, m, tile_sort_bits(m), launch.tiles_per_block, partials.get(), op, dropped);
  SLUICE_CHECK_LAUNCH();
  fold_block_partials_kernel<<<streaming_grid(ctx, fold_block_partials_kernel<T, Op>, m), 256, 0, ctx.stream()>>>(
      partials.get(), launch.blocks, m, out, op);
  SLUICE_CHECK_LAUNCH();
}

template <class Shape, class L, class T, class Op>
void reduce_tiles_by_records(context& ctx, const L* labels, const T* values, std::size_t n, T* out, std::uint32_t m,
                             Op op, std::size_t* dropped) {
  auto kernel = sorted_tiles_to_records_kernel<Shape, L, T, Op>;
  const std::size_t tiles = ceil_div(n, Shape::tile);
  const auto slots = static_cast<std::uint32_t>(std::min<std::size_t>(std::size_t{m} + 2, Shape::tile));
  const std::size_t records = tiles * slots;
  scratch<std::uint32_t> buckets(ctx, records), sorted_buckets(ctx, records);
  scratch<T> totals(ctx, records), sorted_totals(ctx, records);
  kernel<<<static_cast<unsigned>(one_wave_grid(ctx, kernel, Shape::threads, tiles)), Shape::threads, 0, ctx.stream()>>>(
      labels, values, n, m, tile_sort_bits(m), slots, buckets.get(), totals.get(), op, dropped);
  SLUICE_CHECK_LAUNCH();
  radix_sort::sort_arrays(ctx, static_cast<const std::uint32_t*>(buckets.get()), static_cast<const T*>(totals.get()),
                          sorted_buckets.get(), sorted_totals.get(), records, {.end_bit = tile_sort_bits(m)});
  fold_sorted_buckets(ctx, sorted_buckets.get(), sorted_totals.get(), records, out, m, op);
}

template <class L, class T, class Op>
void run_block_sort_segmented(context& ctx, const L* labels, const T* values, std::size_t n, T* out, std::uint32_t m,
                              Op op, std::size_t* dropped) {
  using shape = tuning::sort_tile_shape<T>;
  if (std::size_t{m} * sizeof(T) <= tuning::accumulator_bytes)
    reduce_tiles_by_accumulators<shape>(ctx, labels, values, n, out, m, op, dropped);
  else
    reduce_tiles_by_records<shape>(ctx, labels, values, n, out, m, op, dropped);
}

}  // namespace sluice::detail::multireduce
