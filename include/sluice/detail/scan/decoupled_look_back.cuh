// sluice/detail/scan/decoupled_look_back.cuh: the single-pass scan (the default strategy).
//
// A persistent grid (one wave of blocks) takes tiles in order from an atomic counter, so every
// predecessor of a tile has started before it: the look-back never waits on a tile that is not
// running (no reliance on block scheduling order). Per tile: load (coalesced, transposed to blocked
// order in shared memory), scan locally, publish the tile aggregate, look back for the exclusive
// prefix (warp 0), publish the inclusive prefix, apply, store.
//
// Traffic: n·sizeof(T) read + n·sizeof(T) written, plus O(tiles) status words. Work O(n).
// In place (in == out) is safe: a tile reads all its input before writing its output.
#pragma once

#include <sluice/detail/scan/look_back.cuh>
#include <sluice/detail/scan/tile_scan.cuh>

#include <cuda/std/cstddef>

namespace sluice::detail::scan {

/// `in`: a pointer or random-access iterator of T; `sink`: what to do with each scanned tile
/// (store_all for a plain scan; see tile_scan.cuh).
template <class Shape, scan_kind Kind, bool HasInit, class T, class Op, class Status, class Input, class Sink>
__global__ void __launch_bounds__(Shape::threads)
    decoupled_look_back_kernel(Input in, Sink sink, cuda::std::size_t n, T init, Op op, Status status,
                               unsigned long long* next_tile) {
  using io = tile_io<Shape, T>;
  __shared__ typename io::storage temp;
  __shared__ unsigned long long tile_shared;
  __shared__ T prefix_shared;
  const cuda::std::size_t tile_count = (n + Shape::tile - 1) / Shape::tile;

  while (true) {
    if (threadIdx.x == 0) tile_shared = atomicAdd(next_tile, 1ull);
    __syncthreads();
    const cuda::std::size_t tile = tile_shared;
    if (tile >= tile_count) return;
    const cuda::std::size_t offset = tile * Shape::tile;
    const int valid = static_cast<int>(cuda::std::min<cuda::std::size_t>(Shape::tile, n - offset));

    T items[Shape::items];
    load_tile<Shape, T>(in + offset, valid, items, temp);
    __syncthreads();
    T thread_prefix;
    const T tile_total = scan_tile_locally<Shape>(items, thread_prefix, op, temp);

    T tile_prefix = init;
    if (tile == 0) {
      if (threadIdx.x == 0) status.publish(0, tile_inclusive, HasInit ? op(init, tile_total) : tile_total);
    } else {
      if (threadIdx.x < warp::size) {
        if (threadIdx.x == 0) status.publish(tile, tile_aggregate, tile_total);
        const T exclusive = look_back<T>(status, tile, op);
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
    __syncthreads();  // the scan's shared storage becomes the store's
    sink.template operator()<Shape>(offset, valid, items, temp);
    __syncthreads();  // before the next tile reuses shared memory and tile_shared
  }
}

}  // namespace sluice::detail::scan
