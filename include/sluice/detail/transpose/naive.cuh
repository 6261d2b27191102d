// sluice/detail/transpose/naive.cuh: the element-wise transpose (DTU §4.7, report Listing 6.2).
//
// Each thread copies in(r, c) to out(c, r) directly. Lanes take consecutive columns c, so a warp
// reads one contiguous run of an input row (coalesced) and writes 32 elements that lie `rows`
// elements apart (one per output row): every store instruction touches 32 sectors for 32·sizeof(T)
// useful bytes. That write amplification is why the seed measured it at 22% of the bus (Table 6.2).
//
// Blocks of 32 × 32 threads, one element each (the seed's shape), over 32 × 32 tiles with the shared
// tile loop (1-D tile index, any rows × cols, 64-bit indices).
// Work O(rows·cols); traffic rows·cols·sizeof(T) read, the same written, in up to 32-byte sectors.
#pragma once

#include <sluice/detail/transpose/tiles.cuh>
#include <sluice/detail/transpose/tuning.hpp>

namespace sluice::detail::transpose {

using naive_shape = square_tile<tuning::seed_tile_dim, tuning::seed_tile_dim>;  // the seed's (tuning.hpp)

template <class Shape, class E>
__global__ void __launch_bounds__(Shape::threads)
    naive_kernel(const E* __restrict__ in_data, E* __restrict__ out_data, std::size_t rows, std::size_t cols) {
  const matrix_view<const E> in{in_data, rows, cols};
  const matrix_view<E> out{out_data, cols, rows};
  for_each_tile(typename Shape::grid(rows, cols), [&](const tile& t) {
    for_each_cell<Shape>(t.rows, t.cols, [&](int i, int j) { out(t.col0 + j, t.row0 + i) = in(t.row0 + i, t.col0 + j); });
  });
}

template <class E>
void naive(context& ctx, const E* in, E* out, std::size_t rows, std::size_t cols) {
  using shape = naive_shape;
  launch_over_tiles(ctx, naive_kernel<shape, E>, shape::block(), typename shape::grid(rows, cols).count, in, out, rows,
                    cols);
}

}  // namespace sluice::detail::transpose
