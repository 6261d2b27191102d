// sluice/block/load.cuh: loading a tile into registers in blocked arrangement (thread t holds the
// Items consecutive elements starting at t·Items), with 16-byte vector loads where alignment allows.
//
// Blocked arrangement is what order-preserving (non-commutative) strategies need: a thread's
// registers are a contiguous run of the input. 16-byte loads keep the number of memory instructions
// at Items·sizeof(T)/16 per thread. Striped-vector arrangement (vector v of thread t at vector index
// v·threads + t) makes every load instruction of a warp one contiguous 512-byte run: the better
// access pattern when the order of a thread's elements does not matter (commutative operators).
#pragma once

#include <cuda/std/cstdint>
#include <cuda/std/cstring>

namespace sluice::block {

/// Loads a full tile (blockDim.x · Items elements at `tile`).
template <int Items, class T>
__device__ __forceinline__ void load_blocked_vectorized(const T* tile, int thread, T (&items)[Items]) {
  constexpr int bytes = Items * static_cast<int>(sizeof(T));
  if constexpr (bytes % 16 == 0 && (16 % sizeof(T) == 0 || sizeof(T) % 16 == 0)) {
    if (reinterpret_cast<cuda::std::uintptr_t>(tile) % 16 == 0) {
      const uint4* vectors = reinterpret_cast<const uint4*>(tile + thread * Items);
      uint4 words[bytes / 16];
#pragma unroll
      for (int i = 0; i < bytes / 16; ++i) words[i] = vectors[i];
      cuda::std::memcpy(items, words, bytes);  // reinterpretation, resolved in registers
      return;
    }
  }
#pragma unroll
  for (int i = 0; i < Items; ++i) items[i] = tile[thread * Items + i];
}

/// Loads a full tile of `threads` · Items elements in striped-vector arrangement (which element lands
/// in which register is unspecified beyond "each exactly once"). Falls back to a striped scalar
/// arrangement when the tile is not 16-byte aligned or T does not divide 16 bytes.
template <int Items, class T>
__device__ __forceinline__ void load_striped_vectorized(const T* tile, int thread, int threads, T (&items)[Items]) {
  constexpr int per_vector = 16 / static_cast<int>(sizeof(T));
  if constexpr (16 % sizeof(T) == 0 && Items % per_vector == 0) {
    if (reinterpret_cast<cuda::std::uintptr_t>(tile) % 16 == 0) {
      constexpr int vector_count = Items / per_vector;
      const uint4* vectors = reinterpret_cast<const uint4*>(tile);
      uint4 words[vector_count];
#pragma unroll
      for (int v = 0; v < vector_count; ++v) words[v] = vectors[v * threads + thread];
      cuda::std::memcpy(items, words, sizeof(words));
      return;
    }
  }
#pragma unroll
  for (int i = 0; i < Items; ++i) items[i] = tile[i * threads + thread];
}

/// Loads the first `valid` elements of a partial tile; returns how many of them this thread holds.
/// Registers past that count are left unassigned.
template <int Items, class T>
__device__ __forceinline__ int load_blocked_partial(const T* tile, int thread, int valid, T (&items)[Items]) {
  const int first = thread * Items;
#pragma unroll
  for (int i = 0; i < Items; ++i)
    if (first + i < valid) items[i] = tile[first + i];
  const int left = valid - first;
  return left <= 0 ? 0 : (left < Items ? left : Items);
}

/// Copies the `count` elements at `from` (global memory) to `to` (shared memory), the block's threads
/// striding over them. In 16-byte vectors when both ends are 16-byte aligned and the bytes make whole
/// vectors: a warp's load is then 512 consecutive bytes, one instruction per 16 bytes whatever T is (an
/// 8-byte T of 4-byte alignment, as affine<u32>, otherwise takes two 4-byte loads per element, which
/// wastes global sectors: docs/perf-notes.md). Element by element otherwise.
template <class T>
__device__ __forceinline__ void copy_to_shared(const T* from, T* to, int count) {
  const int bytes = count * static_cast<int>(sizeof(T));
  const auto addresses = reinterpret_cast<cuda::std::uintptr_t>(from) | reinterpret_cast<cuda::std::uintptr_t>(to);
  if (addresses % 16 == 0 && bytes % 16 == 0) {
    const uint4* source = reinterpret_cast<const uint4*>(from);
    uint4* target = reinterpret_cast<uint4*>(to);
#pragma unroll 4
    for (int v = static_cast<int>(threadIdx.x); v < bytes / 16; v += static_cast<int>(blockDim.x)) target[v] = source[v];
    return;
  }
  for (int i = static_cast<int>(threadIdx.x); i < count; i += static_cast<int>(blockDim.x)) to[i] = from[i];
}

}  // namespace sluice::block
