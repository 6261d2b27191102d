// sluice/detail/scatter/chunks.cuh: what the gather, scatter and claim kernels share (Eilers §1.2, §3.3):
// exact index range checks, the chunk types that move V consecutive elements with one vector access,
// single-instruction element accesses, the grid-stride walk over chunks, and warp-aggregated counting
// of skipped indices.
//
// A thread handles `elements_per_thread` elements per step as Unroll chunks of V = 16 / sizeof(index)
// consecutive positions: each chunk's indices arrive in one 16-byte load, consecutive threads take
// consecutive chunks (a warp's index loads are one contiguous 512-byte run), and all of a step's loads
// are issued before any is used, so a thread keeps 16 independent memory accesses in flight.
//
// Two layouts: `fast` when the index array is 16-byte aligned and the value arrays are aligned to
// chunk_alignment (true of device_buffer and cudaMalloc memory), `general` (V = 1, plain element
// accesses) for any other alignment.
#pragma once

#include <sluice/core/config.hpp>
#include <sluice/core/labels.hpp>
#include <sluice/core/operators.hpp>
#include <sluice/detail/scatter/tuning.hpp>
#include <sluice/warp/reduce.cuh>

#include <cuda/std/cstddef>
#include <cuda/std/cstdint>
#include <cuda/std/cstring>
#include <cuda/std/type_traits>

namespace sluice::detail::scatter {

/// The kernels' shape (tuning.hpp): threads a block (multireduce's range check takes it too) and the
/// elements a thread has in flight per step.
inline constexpr int block_threads = tuning::block_threads;
inline constexpr int elements_per_thread = tuning::elements_per_thread;

/// index ∈ [0, size)? The labels' rule (core/labels.hpp): negative indices are out of range, compared exactly.
template <class I>
SLUICE_HOST_DEVICE constexpr bool in_range(I index, cuda::std::size_t size) {
  return valid_label(index, size);
}

/// Alignment that lets a chunk of V elements of T move as vector accesses: the chunk's size when that
/// is a power of two up to 16 bytes, 16 for larger power-of-two chunks; never less than T's own.
template <class T, int V>
inline constexpr cuda::std::size_t chunk_alignment = [] {
  constexpr cuda::std::size_t bytes = sizeof(T) * V;
  constexpr cuda::std::size_t vector = (sizeof(T) & (sizeof(T) - 1)) != 0 ? 1 : (bytes < 16 ? bytes : 16);
  return vector > alignof(T) ? vector : alignof(T);
}();

/// V consecutive elements, aligned for vector loads and stores.
template <class T, int V>
struct alignas(chunk_alignment<T, V>) chunk {
  T v[V];
};

/// Indices per chunk: 16 bytes of them in the fast layout, one in the general layout.
template <class I, bool Fast>
inline constexpr int chunk_width = Fast ? 16 / static_cast<int>(sizeof(I)) : 1;

/// The unsigned word of each size a single load or store instruction moves.
template <cuda::std::size_t Bytes>
struct word_of {};
template <>
struct word_of<1> { using type = cuda::std::uint8_t; };
template <>
struct word_of<2> { using type = cuda::std::uint16_t; };
template <>
struct word_of<4> { using type = cuda::std::uint32_t; };
template <>
struct word_of<8> { using type = unsigned long long; };
template <>
struct word_of<16> { using type = uint4; };

template <class T>
inline constexpr bool moves_as_word =
    sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16;

/// Loads *p with one instruction in the fast layout (p aligned to sizeof(T)) when T's size allows.
template <bool Fast, class T>
[[nodiscard]] __device__ __forceinline__ T load_element(const T* p) {
  if constexpr (Fast && moves_as_word<T>) {
    using word = typename word_of<sizeof(T)>::type;
    const word w = *reinterpret_cast<const word*>(p);
    T value;
    cuda::std::memcpy(&value, &w, sizeof(T));
    return value;
  } else {
    return *p;
  }
}

/// Stores with one instruction in the fast layout when T's size allows: rival stores to one slot then
/// never mix their bytes (any_writer's promise).
template <bool Fast, class T>
__device__ __forceinline__ void store_element(T* p, const T& value) {
  if constexpr (Fast && moves_as_word<T>) {
    using word = typename word_of<sizeof(T)>::type;
    word w;
    cuda::std::memcpy(&w, &value, sizeof(T));
    *reinterpret_cast<word*>(p) = w;
  } else {
    *p = value;
  }
}

/// The grid-stride walk over n elements in chunks of V. A thread's steps start at chunk `first` and
/// advance by Unroll·threads; slot u of the step at `base` is chunk base + u·threads. The n mod V
/// elements after the last full chunk are the tail: thread t takes tail element t.
template <int V, int Unroll>
struct chunk_walk {
  cuda::std::size_t n;
  cuda::std::size_t chunks;   ///< full chunks: n / V
  cuda::std::size_t threads;  ///< threads in the grid
  cuda::std::size_t first;    ///< this thread's first chunk

  __device__ static chunk_walk of(cuda::std::size_t n, int block_size) {
    const cuda::std::size_t threads = cuda::std::size_t{gridDim.x} * static_cast<cuda::std::size_t>(block_size);
    return {n, n / V, threads, blockIdx.x * static_cast<cuda::std::size_t>(block_size) + threadIdx.x};
  }
  [[nodiscard]] __device__ cuda::std::size_t step() const { return Unroll * threads; }
  [[nodiscard]] __device__ bool has(cuda::std::size_t base, int u) const { return base + u * threads < chunks; }
  [[nodiscard]] __device__ cuda::std::size_t chunk_of(cuda::std::size_t base, int u) const {
    return base + u * threads;
  }
  /// The tail element of this thread, if any (positions chunks·V … n − 1).
  [[nodiscard]] __device__ bool has_tail() const { return chunks * V + first < n; }
  [[nodiscard]] __device__ cuda::std::size_t tail() const { return chunks * V + first; }
};

/// Loads the step's index chunks (slots without a chunk are left unset).
template <int V, int Unroll, class I>
__device__ __forceinline__ void load_index_chunks(const I* __restrict__ indices, const chunk_walk<V, Unroll>& walk,
                                                  cuda::std::size_t base, chunk<I, V> (&index)[Unroll]) {
  const auto* chunks = reinterpret_cast<const chunk<I, V>*>(indices);
#pragma unroll
  for (int u = 0; u < Unroll; ++u)
    if (walk.has(base, u)) index[u] = chunks[walk.chunk_of(base, u)];
}

/// Adds every lane's `mine` into *total with one atomic per warp (none when the warp's sum is 0).
/// All lanes of the warp must call it (full mask); `total` may be null (nothing is counted).
__device__ __forceinline__ void add_warp_total(unsigned long long mine, unsigned long long* total) {
  if (total == nullptr) return;  // uniform: a kernel parameter
  const unsigned long long warp_total = warp::reduce(mine, plus{});
  if (warp::lane_id() == 0 && warp_total != 0) atomicAdd(total, warp_total);
}

}  // namespace sluice::detail::scatter
