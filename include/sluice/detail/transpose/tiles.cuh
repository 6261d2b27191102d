// sluice/detail/transpose/tiles.cuh: what every transpose strategy shares (DTU §4.7 / report §6.1).
//
// - Elements as raw storage: a transpose moves bytes, never values, so kernels see an element as an
//   unsigned word of its size (one load and one store instruction, and a type that may live in
//   __shared__ whatever T's constructors are).
// - Row-major views with 64-bit indexing: input rows × cols, output cols × rows.
// - The tile loop: tiles are numbered row-major over the input, one block per tile on a 1-D grid
//   (block b takes tiles b, b + gridDim.x, … should there be more than the grid holds), so the report's
//   2-D grid limit (gridDim.y ≤ 65535) never applies, and a tile's edges are clipped to the matrix
//   instead of threads returning early (the report's tiled kernels returned before __syncthreads()).
// - staged_copy: a block moves a set of items with several loads in flight per thread; pack_vector,
//   unpack_vector and store_unit: 16-byte vectors in registers and in one store instruction.
//
// Nothing here moves data by itself; the strategy files (naive, tiled, vector_tiled, skinny) do.
#pragma once

#include <sluice/core/config.hpp>
#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/launch.hpp>

#include <cuda/std/cstddef>
#include <cuda/std/cstdint>
#include <cuda/std/cstring>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace sluice::detail::transpose {

// ---- elements as storage --------------------------------------------------------------------------------

template <std::size_t Bytes>
struct native_word_of;
template <>
struct native_word_of<1> { using type = cuda::std::uint8_t; };
template <>
struct native_word_of<2> { using type = cuda::std::uint16_t; };
template <>
struct native_word_of<4> { using type = cuda::std::uint32_t; };
template <>
struct native_word_of<8> { using type = unsigned long long; };
template <>
struct native_word_of<16> { using type = uint4; };

/// The unsigned word of `Bytes` bytes (uint4 for 16): the storage of naturally aligned elements.
template <std::size_t Bytes>
using native_word = typename native_word_of<Bytes>::type;

/// Storage of an element whose address is not a multiple of its size (a struct of bytes at an odd
/// offset): copied with its own alignment, never with wider instructions.
template <std::size_t Size, std::size_t Align>
struct alignas(Align) unaligned_element {
  unsigned char bytes[Size];
};

template <class E>
inline constexpr bool is_native_word_v = std::is_same_v<E, native_word<sizeof(E)>>;

/// A 16-byte vector: the widest global access a thread makes.
using vector = uint4;
inline constexpr int vector_bytes = 16;

/// The bytes of `parts` as one vector. Built from four 32-bit words: assembled from wider or narrower
/// pieces by a plain copy, the compiler may split the vector's global store into several.
template <class E, int N>
__device__ __forceinline__ vector pack_vector(const E (&parts)[N]) {
  static_assert(sizeof(E) * N == vector_bytes);
  unsigned int words[4];
  cuda::std::memcpy(words, parts, vector_bytes);
  return make_uint4(words[0], words[1], words[2], words[3]);
}

template <class E, int N>
__device__ __forceinline__ void unpack_vector(const vector& v, E (&parts)[N]) {
  static_assert(sizeof(E) * N == vector_bytes);
  const unsigned int words[4] = {v.x, v.y, v.z, v.w};
  cuda::std::memcpy(parts, words, vector_bytes);
}

/// *p = value, as one 16-byte store instruction when U is a vector. Written in PTX because a vector
/// assembled in registers inside the tile loop was otherwise stored as four 4-byte stores (the
/// compiler's own lowering, seen in the PTX of vector_tiled_kernel with 4-byte elements).
template <class U>
__device__ __forceinline__ void store_unit(void* p, const U& value) {
  if constexpr (std::is_same_v<U, vector>) {
    asm("st.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(__cvta_generic_to_global(p)), "r"(value.x), "r"(value.y),
        "r"(value.z), "r"(value.w));
  } else {
    *static_cast<U*>(p) = value;
  }
}

[[nodiscard]] inline bool is_aligned(const void* pointer, std::size_t bytes) {
  return reinterpret_cast<std::uintptr_t>(pointer) % bytes == 0;
}

// ---- the matrices ---------------------------------------------------------------------------------------

/// Row-major matrix with 64-bit indexing (2^31 elements and more).
template <class E>
struct matrix_view {
  E* data;
  std::size_t rows;
  std::size_t cols;

  __device__ __forceinline__ E* at(std::size_t row, std::size_t col) const { return data + row * cols + col; }
  __device__ __forceinline__ E& operator()(std::size_t row, std::size_t col) const { return *at(row, col); }
};

/// One tile: its first element in input coordinates and its extent inside the matrix (smaller than
/// the tile's shape only at the bottom and right edges).
struct tile {
  std::size_t row0;
  std::size_t col0;
  int rows;
  int cols;
};

/// Tiles of TileRows × TileCols over a rows × cols input, numbered row-major.
template <int TileRows, int TileCols>
struct tile_grid {
  std::size_t rows;
  std::size_t cols;
  std::size_t tiles_across;
  std::size_t count;

  SLUICE_HOST_DEVICE tile_grid(std::size_t rows_, std::size_t cols_)
      : rows(rows_), cols(cols_), tiles_across((cols_ + TileCols - 1) / TileCols),
        count(tiles_across * ((rows_ + TileRows - 1) / TileRows)) {}

  __device__ __forceinline__ tile at(std::size_t index) const {
    const std::size_t tile_row = index / tiles_across;
    const std::size_t row0 = tile_row * TileRows;
    const std::size_t col0 = (index - tile_row * tiles_across) * TileCols;
    return {row0, col0, static_cast<int>(rows - row0 < TileRows ? rows - row0 : TileRows),
            static_cast<int>(cols - col0 < TileCols ? cols - col0 : TileCols)};
  }
};

/// The tile loop: body(grid.at(t)) for t = blockIdx.x, blockIdx.x + gridDim.x, … < grid.count. Every
/// thread of a block runs the same iterations, so bodies may synchronise the block.
template <class Grid, class Body>
__device__ __forceinline__ void for_each_tile(const Grid& grid, Body&& body) {
  for (std::size_t t = blockIdx.x; t < grid.count; t += gridDim.x) body(grid.at(t));
}

/// The report's tile: Dim × Dim elements, a block of Dim × BlockRows threads (threadIdx.x along a
/// row), each thread taking Dim / BlockRows cells. The seed has BlockRows = Dim (one cell each).
template <int Dim, int BlockRows>
struct square_tile {
  static_assert(Dim % BlockRows == 0, "a thread's cells are whole passes over the tile");
  static constexpr int dim = Dim;
  static constexpr int block_rows = BlockRows;
  static constexpr int threads = Dim * BlockRows;
  static constexpr int passes = Dim / BlockRows;
  using grid = tile_grid<Dim, Dim>;
  [[nodiscard]] static dim3 block() { return dim3(Dim, BlockRows); }
};

/// f(i, j) for this thread's cells (i, j) = (threadIdx.y + pass · BlockRows, threadIdx.x) of a square
/// tile with i < extent_i and j < extent_j. Lanes take consecutive j: whatever f accesses at j is the
/// coalesced side.
template <class Shape, class F>
__device__ __forceinline__ void for_each_cell(int extent_i, int extent_j, F&& f) {
  const int j = static_cast<int>(threadIdx.x);
#pragma unroll
  for (int pass = 0; pass < Shape::passes; ++pass) {
    const int i = static_cast<int>(threadIdx.y) + pass * Shape::block_rows;
    if (i < extent_i && j < extent_j) f(i, j);
  }
}

/// Blocks of a grid's x dimension on every CUDA device (compute capability 3.0 and later).
inline constexpr std::size_t max_grid_blocks = 2147483647;

/// Launches `kernel` on ctx's stream with one block per tile (the tile loop covers any tiles beyond
/// the grid limit). Not a one-wave persistent grid: with fresh blocks the scheduler starts a tile's
/// loads as soon as any block retires, which measured faster (docs/perf-notes.md, transpose grid).
template <class... Params, class... Args>
void launch_over_tiles(context& ctx, void (*kernel)(Params...), dim3 block, std::size_t tiles, Args&&... args) {
  const std::size_t grid = std::min(tiles, max_grid_blocks);
  kernel<<<static_cast<unsigned>(grid), block, 0, ctx.stream()>>>(std::forward<Args>(args)...);
  SLUICE_CHECK_LAUNCH();
}

// ---- moving items through registers ---------------------------------------------------------------------

/// Moves items [0, count) that satisfy `valid`: item i belongs to thread i mod Threads of a 1-D block.
/// Items go in batches of Batch per thread, all loads of a batch issued before its stores, so each
/// thread keeps Batch loads in flight (the latency of one global load is hidden Batch times over).
template <int Threads, int Batch, class Valid, class Load, class Store>
__device__ __forceinline__ void staged_copy(int count, Valid&& valid, Load&& load, Store&& store) {
  using item = decltype(load(0));
  const int thread = static_cast<int>(threadIdx.x);
  for (int first = 0; first < count; first += Threads * Batch) {
    item staged[Batch];
#pragma unroll
    for (int b = 0; b < Batch; ++b) {
      const int i = first + b * Threads + thread;
      if (i < count && valid(i)) staged[b] = load(i);
    }
#pragma unroll
    for (int b = 0; b < Batch; ++b) {
      const int i = first + b * Threads + thread;
      if (i < count && valid(i)) store(i, staged[b]);
    }
  }
}

/// staged_copy of every item in [0, count).
template <int Threads, int Batch, class Load, class Store>
__device__ __forceinline__ void staged_copy(int count, Load&& load, Store&& store) {
  staged_copy<Threads, Batch>(count, [](int) { return true; }, load, store);
}

}  // namespace sluice::detail::transpose
