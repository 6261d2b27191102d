// sluice/detail/transpose/skinny.cuh: transposing a tall-and-skinny (rows × K, K small) or short-and-
// wide (K × cols) matrix, the dedicated path of `automatic` (a DTU §4.7 tile would leave almost all
// of its threads idle on a 3·10^8 × 2 matrix).
//
// View both cases as one matrix in memory order: a long run of "positions" (tall: input rows; wide:
// output rows) of K elements each, contiguous, and its transpose: K "runs" (tall: output rows; wide:
// input rows) of L positions each. A block takes a chunk of B consecutive positions (B·K·sizeof(T) ≈
// 16 KiB, the whole chunk is one contiguous range of the contiguous side) and
//   tall:  copies the contiguous chunk into shared memory (16-byte loads, 4 in flight per thread),
//          then writes the K runs' slices [p0, p0 + B): each thread gathers V = 16 / sizeof(T)
//          positions of one run from shared memory and writes them as one 16-byte vector;
//   wide:  the mirror image: reads the K runs' slices as vectors, scatters them into shared memory,
//          and writes the chunk as one contiguous range of vectors.
// Every global access is a coalesced run of whole vectors: K runs of B·sizeof(T) bytes on one side,
// one range of B·K·sizeof(T) bytes on the other.
// Shared memory has 4 bytes of padding after every 128 (the padded_chunk), so the gathers and
// scatters, which step K elements at a time, spread over the banks (conflict-free for K = 1, 2, 4, 8).
// Where the runs are not 16-byte aligned (L·sizeof(T) not a multiple of 16, or a misaligned pointer)
// the run side moves single elements (lanes on consecutive positions: still coalesced); likewise the
// contiguous side, which also moves the elements past its last whole vector one by one.
//
// Work O(L·K); traffic L·K·sizeof(T) read and written once; one block per chunk of ≈16 KiB.
#pragma once

#include <sluice/detail/transpose/tiles.cuh>
#include <sluice/detail/transpose/tuning.hpp>

#include <cuda/std/cstring>

#include <cassert>

namespace sluice::detail::transpose {

template <int Threads, int ChunkBytes>
struct skinny_shape {
  static constexpr int threads = Threads;
  static constexpr int chunk_bytes = ChunkBytes;
  static constexpr int batch = tuning::skinny_batch;  // vectors in flight per thread
};
using tuned_skinny_shape = skinny_shape<tuning::skinny_threads, tuning::skinny_chunk_bytes>;

/// Shared staging of a chunk, with one 4-byte pad after every 128 bytes (one pass over the 32 banks):
/// accesses K elements apart then drift by one bank per 128 bytes instead of piling into a few banks.
template <int Bytes>
struct padded_chunk {
  static_assert(Bytes % 128 == 0);
  unsigned int words[(Bytes + Bytes / 32) / 4];

  __device__ __forceinline__ static int physical(int byte) { return byte + 4 * (byte / 128); }

  /// The U at logical byte offset `byte` (a multiple of sizeof(U) ≤ 16, so it never straddles a pad).
  template <class U>
  __device__ __forceinline__ U load(int byte) const {
    const int at = physical(byte);
    if constexpr (sizeof(U) < 4) {
      return *reinterpret_cast<const U*>(reinterpret_cast<const unsigned char*>(words) + at);
    } else {  // word by word: a pad leaves larger units only 4-byte aligned
      unsigned int parts[sizeof(U) / 4];
#pragma unroll
      for (int i = 0; i < static_cast<int>(sizeof(U) / 4); ++i) parts[i] = words[at / 4 + i];
      U value;
      cuda::std::memcpy(&value, parts, sizeof(U));
      return value;
    }
  }

  template <class U>
  __device__ __forceinline__ void store(int byte, const U& value) {
    const int at = physical(byte);
    if constexpr (sizeof(U) < 4) {
      *reinterpret_cast<U*>(reinterpret_cast<unsigned char*>(words) + at) = value;
    } else {
      unsigned int parts[sizeof(U) / 4];
      cuda::std::memcpy(parts, &value, sizeof(U));
#pragma unroll
      for (int i = 0; i < static_cast<int>(sizeof(U) / 4); ++i) words[at / 4 + i] = parts[i];
    }
  }
};

/// Positions [p0, p0 + positions) of every run.
struct chunk {
  std::size_t p0;
  int positions;
};

/// K runs of L positions cut into chunks of B positions; a grid for the tile loop.
struct skinny_geometry {
  std::size_t run_length;  // L
  int runs;                // K
  int chunk_positions;     // B: a multiple of V, so every chunk starts 16-byte aligned on both sides
  std::size_t count;       // chunks

  __device__ __forceinline__ chunk at(std::size_t index) const {
    const std::size_t p0 = index * chunk_positions;
    const std::size_t left = run_length - p0;
    return {p0, static_cast<int>(left < static_cast<std::size_t>(chunk_positions) ? left : chunk_positions)};
  }
};

// ---- the two sides, each in global and in shared memory; a unit U is one element or one vector --------

/// The contiguous side: unit i is elements [i·n, (i + 1)·n) after `first` (n = sizeof(U) / sizeof(E)).
template <class E>
struct contiguous_global {
  E* first;
  template <class U>
  __device__ __forceinline__ U load(int i) const { return reinterpret_cast<const U*>(first)[i]; }
  template <class U>
  __device__ __forceinline__ void store(int i, const U& value) const {
    store_unit(first + static_cast<std::size_t>(i) * (sizeof(U) / sizeof(E)), value);
  }
  [[nodiscard]] __device__ __forceinline__ contiguous_global skip(int elements) const { return {first + elements}; }
};

template <class E, class Staging>
struct contiguous_shared {
  Staging* staging;
  int first;  // elements
  template <class U>
  __device__ __forceinline__ U load(int i) const { return staging->template load<U>(byte(i, sizeof(U))); }
  template <class U>
  __device__ __forceinline__ void store(int i, const U& value) const {
    staging->template store<U>(byte(i, sizeof(U)), value);
  }
  [[nodiscard]] __device__ __forceinline__ contiguous_shared skip(int elements) const {
    return {staging, first + elements};
  }
  [[nodiscard]] __device__ __forceinline__ int byte(int i, std::size_t unit_bytes) const {
    return first * static_cast<int>(sizeof(E)) + i * static_cast<int>(unit_bytes);
  }
};

/// The run side: unit i is unit i mod per_run of run i / per_run within the chunk, so consecutive
/// lanes take consecutive units of one run.
struct run_unit {
  int run;
  int unit;
  __device__ __forceinline__ run_unit(int i, int positions, int elements_per_unit)
      : run(i / (positions / elements_per_unit)), unit(i % (positions / elements_per_unit)) {}
};

template <class E>
struct runs_global {
  E* data;  // the K × L matrix of runs
  std::size_t run_length;
  std::size_t p0;
  int positions;
  template <class U>
  __device__ __forceinline__ E* address(int i) const {
    constexpr int n = sizeof(U) / sizeof(E);
    const run_unit at(i, positions, n);
    return data + at.run * run_length + p0 + static_cast<std::size_t>(at.unit) * n;
  }
  template <class U>
  __device__ __forceinline__ U load(int i) const { return *reinterpret_cast<const U*>(address<U>(i)); }
  template <class U>
  __device__ __forceinline__ void store(int i, const U& value) const { store_unit(address<U>(i), value); }
};

/// In shared memory the chunk is positions × K (row-major): element (p, k) of run k at p·K + k.
template <class E, class Staging>
struct runs_shared {
  Staging* staging;
  int runs;
  int positions;
  [[nodiscard]] __device__ __forceinline__ int byte(int run, int position) const {
    return (position * runs + run) * static_cast<int>(sizeof(E));
  }
  template <class U>
  __device__ __forceinline__ U load(int i) const {
    constexpr int n = sizeof(U) / sizeof(E);
    const run_unit at(i, positions, n);
    E parts[n];
#pragma unroll
    for (int j = 0; j < n; ++j) parts[j] = staging->template load<E>(byte(at.run, at.unit * n + j));
    if constexpr (std::is_same_v<U, E>) return parts[0];
    else return pack_vector(parts);
  }
  template <class U>
  __device__ __forceinline__ void store(int i, const U& value) const {
    constexpr int n = sizeof(U) / sizeof(E);
    const run_unit at(i, positions, n);
    E parts[n];
    if constexpr (std::is_same_v<U, E>) parts[0] = value;
    else unpack_vector(value, parts);
#pragma unroll
    for (int j = 0; j < n; ++j) staging->template store<E>(byte(at.run, at.unit * n + j), parts[j]);
  }
};

template <class Shape, class U, class From, class To>
__device__ __forceinline__ void move_units(int count, const From& from, const To& to) {
  staged_copy<Shape::threads, Shape::batch>(
      count, [&](int i) { return from.template load<U>(i); }, [&](int i, const U& value) { to.template store<U>(i, value); });
}

/// The contiguous side of a chunk: whole vectors, then the elements after the last one.
template <class Shape, class E, class From, class To>
__device__ __forceinline__ void move_contiguous(const From& from, const To& to, int elements, bool vectors) {
  constexpr int V = vector_bytes / sizeof(E);
  const int vectorised = vectors ? elements / V * V : 0;
  if (vectors) move_units<Shape, vector>(elements / V, from, to);
  move_units<Shape, E>(elements - vectorised, from.skip(vectorised), to.skip(vectorised));
}

/// The run side of a chunk: vectors when every run's slice is whole aligned vectors, else elements.
template <class Shape, class E, class From, class To>
__device__ __forceinline__ void move_runs(const From& from, const To& to, int runs, int positions, bool vectors) {
  constexpr int V = vector_bytes / sizeof(E);
  if (vectors) move_units<Shape, vector>(runs * (positions / V), from, to);
  else move_units<Shape, E>(runs * positions, from, to);
}

template <class Shape, bool Tall, class E>
__global__ void __launch_bounds__(Shape::threads)
    skinny_kernel(const E* __restrict__ in, E* __restrict__ out, skinny_geometry g, bool vector_chunk,
                  bool vector_runs) {
  using staging_t = padded_chunk<Shape::chunk_bytes>;
  __shared__ staging_t staging;
  for_each_tile(g, [&](const chunk& c) {
    const int elements = c.positions * g.runs;
    const contiguous_shared<E, staging_t> contiguous_staged{&staging, 0};
    const runs_shared<E, staging_t> runs_staged{&staging, g.runs, c.positions};
    if constexpr (Tall) {
      move_contiguous<Shape, E>(contiguous_global<const E>{in + c.p0 * g.runs}, contiguous_staged, elements,
                                vector_chunk);
      __syncthreads();  // the chunk is complete before any run is gathered from it
      move_runs<Shape, E>(runs_staged, runs_global<E>{out, g.run_length, c.p0, c.positions}, g.runs, c.positions,
                          vector_runs);
    } else {
      move_runs<Shape, E>(runs_global<const E>{in, g.run_length, c.p0, c.positions}, runs_staged, g.runs, c.positions,
                          vector_runs);
      __syncthreads();  // every run is scattered before the chunk is written
      move_contiguous<Shape, E>(contiguous_staged, contiguous_global<E>{out + c.p0 * g.runs}, elements, vector_chunk);
    }
    __syncthreads();  // the staging is read before the next chunk overwrites it
  });
}

/// Transposes rows × cols along its smaller side K (tall when cols ≤ rows). Requires K·sizeof(E)·V ≤
/// the chunk's bytes, so that a chunk holds at least one vector per run; the dispatcher only comes here
/// with K·sizeof(T) ≤ 128 bytes (at least 128 positions per chunk).
template <class E>
void skinny(context& ctx, const E* in, E* out, std::size_t rows, std::size_t cols) {
  using shape = tuned_skinny_shape;
  constexpr std::size_t V = vector_bytes / sizeof(E);
  const bool tall = cols <= rows;
  const std::size_t runs = tall ? cols : rows;
  const std::size_t run_length = tall ? rows : cols;
  assert(runs * sizeof(E) * V <= shape::chunk_bytes);
  const std::size_t positions = shape::chunk_bytes / (runs * sizeof(E)) / V * V;
  const skinny_geometry g{run_length, static_cast<int>(runs), static_cast<int>(positions),
                          ceil_div(run_length, positions)};
  const E* contiguous = tall ? in : out;
  const E* run_side = tall ? out : in;
  const bool vector_chunk = is_aligned(contiguous, vector_bytes);
  const bool vector_runs = is_aligned(run_side, vector_bytes) && run_length * sizeof(E) % vector_bytes == 0;
  launch_over_tiles(ctx, tall ? skinny_kernel<shape, true, E> : skinny_kernel<shape, false, E>, dim3(shape::threads),
                    g.count, in, out, g, vector_chunk, vector_runs);
}

}  // namespace sluice::detail::transpose
