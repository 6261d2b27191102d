// sluice/detail/scan/decoupled_look_back.cuh: the single-pass scan (the default strategy).
//
// One block per tile. The tile is blockIdx.x by default, which relies, as CUB does, on blocks being
// dispatched in index order, so that every predecessor of a running tile has started. The tuning
// tile_order::atomic_counter removes that reliance (a block takes the next tile from a counter, so
// every predecessor has started whatever the dispatch order) at a small cost (tuning.hpp). Per tile:
// the tile program loads its inputs and makes the scan elements, the block scans them, warp 0
// publishes the tile aggregate and looks back for the exclusive prefix, then publishes the inclusive
// prefix; the prefix is applied and the tile program stores.
//
// Why one tile per block and not a persistent loop: while warp 0 looks back, the block's other warps
// wait at a barrier. With a persistent grid only the few resident blocks can cover that wait; with
// small one-tile blocks an SM holds a dozen blocks in different phases, and new blocks load while old
// ones wait (docs/perf-notes.md, "Why the scan is at 0.83× CUB").
//
// Traffic: what the tile program reads and writes, plus O(tiles) status words. Work O(n).
// In place (in == out) is safe: a tile reads all its input before writing its output.
#pragma once

#include <sluice/detail/scan/look_back.cuh>
#include <sluice/detail/scan/tile_scan.cuh>

#include <cuda/std/cstddef>

namespace sluice::detail::scan {

template <scan_kind Kind, bool HasInit, class Tuning, class Program, class Op, class Status>
__global__ void __launch_bounds__(Program::shape::threads)
    decoupled_look_back_kernel(Program program, cuda::std::size_t n, typename Program::element init, Op op,
                               Status status, unsigned long long* next_tile) {
  using shape = typename Program::shape;
  using T = typename Program::element;
  __shared__ union {
    typename Program::temp_storage program;
    typename block_scan_t<shape, T>::TempStorage scan;
  } temp;
  __shared__ cuda::std::size_t tile_shared;
  __shared__ T prefix_shared;

  cuda::std::size_t tile = blockIdx.x;
  if constexpr (Tuning::order == tile_order::atomic_counter) {
    if (threadIdx.x == 0) tile_shared = atomicAdd(next_tile, 1ull);
    __syncthreads();
    tile = tile_shared;
  }
  const cuda::std::size_t offset = tile * shape::tile;
  const int valid = static_cast<int>(cuda::std::min<cuda::std::size_t>(shape::tile, n - offset));

  typename Program::loaded raw;
  T items[shape::items];
  program.load(offset, valid, raw, items, temp.program);
  __syncthreads();  // the program's shared memory becomes the scan's
  T thread_prefix;
  const T tile_total = scan_tile_locally<shape>(items, thread_prefix, op, temp.scan);

  T tile_prefix = init;
  if (tile == 0) {
    if (threadIdx.x == 0) status.publish(0, tile_inclusive, HasInit ? op(init, tile_total) : tile_total);
  } else {
    if (threadIdx.x < warp::size) {
      if (threadIdx.x == 0) status.publish(tile, tile_aggregate, tile_total);
      const T exclusive = look_back<T, Tuning>(status, tile, op);
      if (threadIdx.x == 0) {
        status.publish(tile, tile_inclusive, op(exclusive, tile_total));
        prefix_shared = exclusive;
      }
    }
    __syncthreads();
    tile_prefix = prefix_shared;
  }
  const bool has_tile_prefix = HasInit || tile > 0;
  const T running = thread_running_prefix(tile_prefix, has_tile_prefix, thread_prefix, op);
  apply_prefix<Kind>(items, running, has_tile_prefix || threadIdx.x > 0, op);
  __syncthreads();  // the scan's shared memory becomes the program's
  program.store(offset, valid, raw, items, temp.program);
}

}  // namespace sluice::detail::scan
