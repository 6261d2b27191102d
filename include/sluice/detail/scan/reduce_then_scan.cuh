// sluice/detail/scan/reduce_then_scan.cuh: the three-phase scan (the classic multi-pass structure:
// Palik §4.3's partitioned scan, Merrill & Grimshaw's reduce-then-scan).
//
//   1. reduce:  each block reduces a contiguous run of the input to one partial (the reduce family's
//               tile kernel, so both share one implementation);
//   2. scan:    the partials are scanned (inclusive, by the single-pass kernel: they are few);
//   3. rescan:  each block rescans its run tile by tile, starting from its partial's prefix.
// Traffic: 2·n·sizeof(T) read + n·sizeof(T) written (the input is read twice). Work O(n).
#pragma once

#include <sluice/detail/reduce/tile_reduce.cuh>
#include <sluice/detail/scan/tile_scan.cuh>

#include <cuda/std/cstddef>

namespace sluice::detail::scan {

/// Phase 3: block b rescans elements [b·run, (b+1)·run) with the prefix init ⊕ partials[0..b−1]
/// (`scanned_partials` holds the inclusive scan of the partials).
template <class Shape, scan_kind Kind, bool HasInit, class T, class Op>
__global__ void __launch_bounds__(Shape::threads)
    rescan_runs_kernel(const T* in, T* out, cuda::std::size_t n, cuda::std::size_t run, const T* scanned_partials,
                       T init, Op op) {
  __shared__ tile_io_storage<Shape, T> temp;
  const cuda::std::size_t begin = blockIdx.x * run;
  const cuda::std::size_t end = cuda::std::min(n, begin + run);
  bool has_prefix = HasInit || blockIdx.x > 0;
  T prefix = init;
  if (blockIdx.x > 0) prefix = HasInit ? op(init, scanned_partials[blockIdx.x - 1]) : scanned_partials[blockIdx.x - 1];
  for (cuda::std::size_t offset = begin; offset < end; offset += Shape::tile) {
    const int valid = static_cast<int>(cuda::std::min<cuda::std::size_t>(Shape::tile, end - offset));
    T items[Shape::items];
    load_tile<Shape>(in + offset, valid, items, temp.load);
    __syncthreads();
    T thread_prefix;
    const T tile_total = scan_tile_locally<Shape>(items, thread_prefix, op, temp.scan);
    const T running = thread_running_prefix(prefix, has_prefix, thread_prefix, op);
    apply_prefix<Kind>(items, running, has_prefix || threadIdx.x > 0, op);
    __syncthreads();
    store_tile<Shape>(out + offset, valid, items, temp.store);
    __syncthreads();
    prefix = has_prefix ? op(prefix, tile_total) : tile_total;
    has_prefix = true;
  }
}

}  // namespace sluice::detail::scan
