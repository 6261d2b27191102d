// sluice/reduce.cuh: device-wide reduction, out = init ⊕ in[0] ⊕ … ⊕ in[n−1].
//
// Any associative operator. Operators not declared commutative (sluice/core/operators.hpp) are
// combined strictly in index order and give the sequential oracle's bits; commutative ones let the
// implementation reorder. n = 0 writes init.
//
//   sluice::context ctx;
//   sluice::device_buffer<int> in(ctx, host_values), out(ctx, 1);
//   sluice::reduce(ctx, in.span(), out.data(), 0, sluice::plus{});   // any associative operator
//   int sum = out.to_host()[0];
//
// Status: this is the foundation's two-pass tile reduction (detail/reduce/tile_reduce.cuh). The seed
// strategies (DTU global/shared trees, Palik interleaved and sequential addressing, warp shuffle) and
// the tuned automatic choice are the scan-family issue's work; `reduce_algorithm` lists what exists.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/core/memory.hpp>
#include <sluice/core/operators.hpp>
#include <sluice/detail/reduce/tile_reduce.cuh>

#include <cuda/std/span>

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <type_traits>

namespace sluice {

enum class reduce_algorithm {
  automatic,  ///< the fastest available for the operator and size (today: two_pass_tiles)
  two_pass_tiles,
};

struct reduce_options {
  reduce_algorithm algorithm = reduce_algorithm::automatic;
};

namespace detail::reduce {

/// Tile shape by element size: 16 bytes per vector load, 4 loads in flight per thread.
template <class T>
using default_shape = tile_shape<256, (sizeof(T) >= 16 ? 4 : 64 / static_cast<int>(sizeof(T)))>;

template <class T, class Op>
void two_pass_tiles(context& ctx, cuda::std::span<const T> in, T* out, T init, Op op) {
  using shape = default_shape<T>;
  if (in.empty()) {
    store_value_kernel<<<1, 1, 0, ctx.stream()>>>(out, init);
    SLUICE_CHECK_LAUNCH();
    return;
  }
  const std::size_t tiles = ceil_div(in.size(), shape::tile);
  const std::size_t grid = one_wave_grid(ctx, reduce_tiles_kernel<shape, false, T, Op>, shape::threads, tiles);
  const std::size_t tiles_per_block = ceil_div(tiles, grid);
  const std::size_t blocks = ceil_div(tiles, tiles_per_block);  // no block without a tile
  if (blocks == 1) {
    reduce_tiles_kernel<shape, true><<<1, shape::threads, 0, ctx.stream()>>>(in.data(), in.size(), tiles, out, init, op);
    SLUICE_CHECK_LAUNCH();
    return;
  }
  T* partials = static_cast<T*>(ctx.allocate_bytes(blocks * sizeof(T)));
  reduce_tiles_kernel<shape, false><<<static_cast<unsigned>(blocks), shape::threads, 0, ctx.stream()>>>(
      in.data(), in.size(), tiles_per_block, partials, init, op);
  SLUICE_CHECK_LAUNCH();
  reduce_tiles_kernel<shape, true><<<1, shape::threads, 0, ctx.stream()>>>(
      partials, blocks, ceil_div(blocks, shape::tile), out, init, op);
  SLUICE_CHECK_LAUNCH();
  ctx.deallocate_bytes(partials);
}

}  // namespace detail::reduce

/// Writes init ⊕ in[0] ⊕ … ⊕ in[n−1] to *out (device memory), asynchronously on ctx's stream.
template <class In, std::size_t Extent, class T, class Op>
  requires std::same_as<std::remove_const_t<In>, T>
void reduce(context& ctx, cuda::std::span<In, Extent> in, T* out, T init, Op op, const reduce_options& options = {}) {
  const cuda::std::span<const T> input(in.data(), in.size());
  require_device_memory(ctx, input, "reduce", "in");
  require_device_memory(ctx, out, sizeof(T), "reduce", "out");
  auto device = ctx.activate();
  switch (options.algorithm) {
    case reduce_algorithm::automatic:
    case reduce_algorithm::two_pass_tiles: detail::reduce::two_pass_tiles(ctx, input, out, init, op); return;
  }
  throw invalid_argument("reduce", "options.algorithm", "is not a reduce_algorithm");
}

/// The sum, starting from init.
template <class In, std::size_t Extent, class T>
  requires std::same_as<std::remove_const_t<In>, T>
void reduce(context& ctx, cuda::std::span<In, Extent> in, T* out, T init = T(0)) {
  reduce(ctx, in, out, init, plus{});
}

}  // namespace sluice
