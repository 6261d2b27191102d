// sluice/detail/transpose/tiled.cuh: the shared-memory tile transpose (DTU §4.7 and §3.6, report
// Listing 6.3), unpadded (`tiled`) and padded to Dim × (Dim + 1) (`tiled_padded`).
//
// A block reads a tile row by row (coalesced), stores it in shared memory, synchronises, and writes
// the tile's columns as output rows (coalesced): the shared memory turns the strided writes of the
// naive kernel into contiguous ones. Reading a column of tile[Dim][Dim] makes the 32 lanes of a warp
// hit addresses Dim words apart, all in one bank for 4-byte elements: a 32-way bank conflict that
// serialises the read (the seed's "tiled", 30% of the bus). One extra element per row,
// tile[Dim][Dim + 1], shifts each row by one bank, so a column falls in 32 different banks (the
// seed's "tiled+bank", 44%).
//
// Fixes to the report's kernels (which failed on non-square and non-multiple shapes): no thread
// returns before __syncthreads() (cells outside the matrix are skipped instead), the output index
// uses the tile's own coordinates instead of blockDim of the other axis, and writes are bounds-checked.
//
// Shapes: the seed strategies use 32 × 32 threads, one element each; `automatic` uses this kernel,
// padded, with 32 × 8 threads and four elements per thread (tuned_scalar_shape) where rows are not
// 16-byte aligned. Work O(rows·cols); traffic rows·cols·sizeof(T) read and written once, in full
// lines; shared memory Dim·(Dim + Pad)·sizeof(T) per block.
#pragma once

#include <sluice/detail/transpose/tiles.cuh>
#include <sluice/detail/transpose/tuning.hpp>

namespace sluice::detail::transpose {

/// The seed's 32 × 32 tile and threads (tuning.hpp).
using tiled_shape = square_tile<tuning::seed_tile_dim, tuning::seed_tile_dim>;
/// Several cells per thread: four loads in flight per thread before the block synchronises (tuning.hpp).
using tuned_scalar_shape = square_tile<tuning::scalar_tile_dim, tuning::scalar_block_rows>;

template <class Shape, int Pad, class E>
__global__ void __launch_bounds__(Shape::threads)
    tiled_kernel(const E* __restrict__ in_data, E* __restrict__ out_data, std::size_t rows, std::size_t cols) {
  __shared__ E buffer[Shape::dim][Shape::dim + Pad];
  const matrix_view<const E> in{in_data, rows, cols};
  const matrix_view<E> out{out_data, cols, rows};
  for_each_tile(typename Shape::grid(rows, cols), [&](const tile& t) {
    for_each_cell<Shape>(t.rows, t.cols, [&](int i, int j) { buffer[i][j] = in(t.row0 + i, t.col0 + j); });
    __syncthreads();  // the whole tile is in shared memory before any column of it is read
    // Output row i of the tile is input column i: lanes read down a column of the buffer.
    for_each_cell<Shape>(t.cols, t.rows, [&](int i, int j) { out(t.col0 + i, t.row0 + j) = buffer[j][i]; });
    __syncthreads();  // every column is read before the next tile overwrites the buffer
  });
}

template <class Shape, int Pad, class E>
void tiled(context& ctx, const E* in, E* out, std::size_t rows, std::size_t cols) {
  launch_over_tiles(ctx, tiled_kernel<Shape, Pad, E>, Shape::block(), typename Shape::grid(rows, cols).count, in, out,
                    rows, cols);
}

}  // namespace sluice::detail::transpose
