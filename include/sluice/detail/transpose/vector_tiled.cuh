// sluice/detail/transpose/vector_tiled.cuh: the tuned tile transpose for 16-byte aligned rows (the
// general shape of `automatic`). DTU §4.7's tiled + padded transpose, taken the "standard further
// steps" the digest lists: several elements per thread, and 16-byte global accesses.
//
// Tile: 16 KiB, each tile row and each output row a whole number of 128-byte lines (tuning.hpp:
// 128 × 128 bytes, 128 × 64 halves, 64 × 64 words, 64 × 32 doubles, 32 × 32 16-byte elements).
// 256 threads.
//   Load phase:  the tile's rows as 16-byte vectors (V = 16 / sizeof(T) elements); each warp
//                instruction reads 4 rows × 128 contiguous bytes; 4 vectors in flight per thread.
//                Each vector is stored whole (one 16-byte shared store).
//   Store phase: a thread reads a V-row × 1-word strip of a tile column (a word is 4 bytes, or one
//                element if larger: k = 4 / sizeof(T) columns for small elements), transposes it in
//                registers into k output vectors of V elements, and writes them to k output rows.
//                Each warp instruction writes 4 output rows × 128 contiguous bytes.
// Bank conflicts: no padding (it would break the 16-byte alignment of the vector stores); instead the
// 16-byte chunk q of tile row r lives at chunk q ^ ((r / V) mod 8). The 8 lanes that store one row's
// consecutive chunks then permute 8 chunk slots (all 32 banks), and in the store phase the 8 lanes that
// read one word of 8 consecutive strips (rows V·rv + j for rv = 0..7) hit 8 different chunk slots, so
// every shared access of both phases is conflict-free (warps are arranged as 8 strips × 4 words).
//
// Requires 16-byte aligned in/out and rows, cols multiples of V (whole vectors in every row, so a
// vector is entirely inside or outside the matrix at the edges). Work O(rows·cols); traffic
// rows·cols·sizeof(T) read and written once, in full 128-byte lines (partial tiles at the edges read
// and write only their valid vectors).
#pragma once

#include <sluice/detail/transpose/tiles.cuh>
#include <sluice/detail/transpose/tuning.hpp>

#include <cuda/std/cstring>

namespace sluice::detail::transpose {

template <int ElementBytes, int TileRows, int TileCols>
struct vector_tile_shape {
  static constexpr int element_bytes = ElementBytes;
  static constexpr int rows = TileRows;
  static constexpr int cols = TileCols;
  static constexpr int threads = tuning::vector_tile_threads;
  static constexpr int load_batch = tuning::vector_tile_load_batch;    // global loads in flight per thread
  static constexpr int store_batch = tuning::vector_tile_store_batch;  // strips in flight per thread
  static constexpr int vector_elements = vector_bytes / ElementBytes;     // V
  static constexpr int word_bytes = ElementBytes < 4 ? 4 : ElementBytes;  // a shared read of the store phase
  static constexpr int word_elements = word_bytes / ElementBytes;         // k: output rows per strip
  static constexpr int row_vectors = cols / vector_elements;              // 16-byte chunks of a tile row
  static constexpr int column_vectors = rows / vector_elements;           // strips of a tile column
  static constexpr int row_words = cols / word_elements;
  static constexpr int loads = rows * row_vectors;                        // load-phase items
  static constexpr int strips = row_words * column_vectors;               // store-phase items
  static_assert(cols * ElementBytes % 128 == 0 && rows * ElementBytes % 128 == 0,
                "tile rows and output rows are whole 128-byte lines");
  static_assert(row_vectors % 8 == 0 && column_vectors % 8 == 0 && row_words % 4 == 0,
                "warps are 8 chunks × 4 rows (load) and 8 strips × 4 words (store)");
  static_assert(loads % threads == 0 && strips % threads == 0, "every thread has the same number of items");
  using grid = tile_grid<rows, cols>;

  /// Chunk slot of chunk q of tile row r (the XOR swizzle that replaces padding): rows V·g … V·g + V − 1
  /// share the permutation g mod 8.
  __device__ __forceinline__ static int swizzle(int row, int chunk) { return chunk ^ ((row / vector_elements) & 7); }
};

/// 16 KiB tiles per element size (tuning.hpp; 4 vectors per thread per phase with 256 threads).
template <std::size_t ElementBytes>
struct tuned_vector_tile {
  static constexpr int element_bytes = static_cast<int>(ElementBytes);
  static_assert(tuning::vector_tile_rows(element_bytes) > 0, "vector tiles hold elements of 1, 2, 4, 8 or 16 bytes");
  using type = vector_tile_shape<element_bytes, tuning::vector_tile_rows(element_bytes),
                                 tuning::vector_tile_cols(element_bytes)>;
};

template <class Shape>
using tile_buffer = vector[Shape::rows][Shape::row_vectors];

/// The k output vectors a strip becomes.
template <class Shape>
struct strip_vectors {
  vector v[Shape::word_elements];
};

/// Load phase: the tile's valid rows, vector by vector, into the swizzled buffer.
template <class Shape, class E>
__device__ __forceinline__ void load_tile(const matrix_view<const E>& in, const tile& t, tile_buffer<Shape>& buffer) {
  constexpr int V = Shape::vector_elements;
  auto row = [](int l) { return l / Shape::row_vectors; };
  auto chunk = [](int l) { return l % Shape::row_vectors; };
  staged_copy<Shape::threads, Shape::load_batch>(
      Shape::loads, [&](int l) { return row(l) < t.rows && chunk(l) * V < t.cols; },
      [&](int l) { return *reinterpret_cast<const vector*>(in.at(t.row0 + row(l), t.col0 + chunk(l) * V)); },
      [&](int l, const vector& v) { buffer[row(l)][Shape::swizzle(row(l), chunk(l))] = v; });
}

/// Strip s of the store phase: (word w of a tile row, strip rv of V tile rows), arranged so that a
/// warp covers 8 consecutive strips × 4 consecutive words (conflict-free reads, 128-byte writes).
template <class Shape>
struct strip {
  int word;
  int rv;
  __device__ __forceinline__ explicit strip(int s)
      : word((s / 8) % 4 + 4 * (s / 32 / (Shape::column_vectors / 8))),
        rv(s % 8 + 8 * (s / 32 % (Shape::column_vectors / 8))) {}
};

/// Reads strip s (V words down a column of the buffer) and transposes it in registers: output vector
/// i holds element i of each of the V words.
template <class Shape, class E>
__device__ __forceinline__ strip_vectors<Shape> read_strip(const tile_buffer<Shape>& buffer, strip<Shape> s) {
  constexpr int V = Shape::vector_elements;
  constexpr int k = Shape::word_elements;
  using word = native_word<Shape::word_bytes>;
  constexpr int words_per_chunk = vector_bytes / Shape::word_bytes;
  // The strip's V rows share one swizzle (rows V·rv + j): one chunk slot, V constant row offsets.
  const int slot = Shape::swizzle(V * s.rv, s.word / words_per_chunk);
  E cells[V][k];
#pragma unroll
  for (int j = 0; j < V; ++j) {
    const word w = reinterpret_cast<const word*>(&buffer[V * s.rv + j][slot])[s.word % words_per_chunk];
    cuda::std::memcpy(cells[j], &w, sizeof(word));
  }
  strip_vectors<Shape> out;
#pragma unroll
  for (int i = 0; i < k; ++i) {
    E column[V];
#pragma unroll
    for (int j = 0; j < V; ++j) column[j] = cells[j][i];
    out.v[i] = pack_vector(column);
  }
  return out;
}

/// Store phase: every valid strip of the buffer to its k output rows.
template <class Shape, class E>
__device__ __forceinline__ void store_tile_transposed(const tile_buffer<Shape>& buffer, const tile& t,
                                                      const matrix_view<E>& out) {
  constexpr int V = Shape::vector_elements;
  constexpr int k = Shape::word_elements;
  staged_copy<Shape::threads, Shape::store_batch>(
      Shape::strips,
      [&](int s) {
        const strip<Shape> p(s);
        return p.word * k < t.cols && p.rv * V < t.rows;
      },
      [&](int s) { return read_strip<Shape, E>(buffer, strip<Shape>(s)); },
      [&](int s, const strip_vectors<Shape>& vectors) {
        const strip<Shape> p(s);
#pragma unroll
        for (int i = 0; i < k; ++i)
          store_unit(out.at(t.col0 + p.word * k + i, t.row0 + p.rv * V), vectors.v[i]);
      });
}

template <class Shape, class E>
__global__ void __launch_bounds__(Shape::threads)
    vector_tiled_kernel(const E* __restrict__ in_data, E* __restrict__ out_data, std::size_t rows, std::size_t cols) {
  static_assert(sizeof(E) == Shape::element_bytes);
  __shared__ tile_buffer<Shape> buffer;
  const matrix_view<const E> in{in_data, rows, cols};
  const matrix_view<E> out{out_data, cols, rows};
  for_each_tile(typename Shape::grid(rows, cols), [&](const tile& t) {
    load_tile<Shape>(in, t, buffer);
    __syncthreads();  // the whole tile is in shared memory before any strip is read
    store_tile_transposed<Shape>(buffer, t, out);
    __syncthreads();  // every strip is read before the next tile overwrites the buffer
  });
}

/// True when the vector tile applies: both matrices' rows start on 16-byte boundaries.
template <class E>
[[nodiscard]] bool vector_tile_fits(const E* in, const E* out, std::size_t rows, std::size_t cols) {
  return is_native_word_v<E> && is_aligned(in, vector_bytes) && is_aligned(out, vector_bytes) &&
         rows * sizeof(E) % vector_bytes == 0 && cols * sizeof(E) % vector_bytes == 0;
}

template <class E>
void vector_tiled(context& ctx, const E* in, E* out, std::size_t rows, std::size_t cols) {
  using shape = typename tuned_vector_tile<sizeof(E)>::type;
  launch_over_tiles(ctx, vector_tiled_kernel<shape, E>, dim3(shape::threads), typename shape::grid(rows, cols).count,
                    in, out, rows, cols);
}

}  // namespace sluice::detail::transpose
