// sluice/detail/scatter/gather.cuh: out[i] = values[position(indices[i])] for every valid index
// (Eilers Alg 3.3, grid-strided gather). Also the write pass of last-writer scatter, where the "indices"
// are the claims of the claim pass and position = claim − 1.
//
// Index loads and output stores are coalesced 16-byte vectors (chunks.cuh); only the value loads follow
// the indices. A step issues all 16 value loads of a thread before the first store, so random indices
// keep 16 DRAM requests in flight per thread. A chunk whose indices are consecutive (identity, sorted
// runs) fetches its values with one vector load, so such a gather moves like a copy. A chunk with an
// invalid index stores element by element, leaving that slot untouched.
//
// Traffic: indices read once, out written once, one value read per valid index (a 32-byte sector per
// value when the indices are random). Work O(n).
#pragma once

#include <sluice/detail/scatter/chunks.cuh>

#include <cuda/std/cstddef>

namespace sluice::detail::scatter {

/// A caller's index: valid when in [0, size); invalid ones are skipped and counted.
template <class I>
struct checked_index {
  cuda::std::size_t size;
  static constexpr bool counts_invalid = true;
  [[nodiscard]] __device__ bool valid(I index) const { return in_range(index, size); }
  [[nodiscard]] __device__ cuda::std::size_t position(I index) const { return static_cast<cuda::std::size_t>(index); }
};

/// A claim of the last-writer claim pass: the winning source position + 1, or 0 where no source named
/// the slot (left untouched and not counted: that is not an error).
template <class W>
struct claimed_source {
  static constexpr bool counts_invalid = false;
  [[nodiscard]] __device__ bool valid(W claim) const { return claim != 0; }
  [[nodiscard]] __device__ cuda::std::size_t position(W claim) const {
    return static_cast<cuda::std::size_t>(claim) - 1;
  }
};

/// The chunk's indices name V consecutive valid positions starting at a multiple of V, so one vector
/// load fetches its values. (Consecutive mod 2^64 with both ends in range means no wrap in between.)
template <int V, class I, class Lookup>
[[nodiscard]] __device__ __forceinline__ bool dense_chunk(const chunk<I, V>& index, const Lookup& lookup) {
  if constexpr (V == 1) {
    return false;
  } else {
    const auto first = static_cast<unsigned long long>(index.v[0]);
#pragma unroll
    for (int j = 1; j < V; ++j)
      if (static_cast<unsigned long long>(index.v[j]) - first != static_cast<unsigned long long>(j)) return false;
    return lookup.valid(index.v[0]) && lookup.valid(index.v[V - 1]) && lookup.position(index.v[0]) % V == 0;
  }
}

/// Stores a chunk whole (vector stores) when every slot is valid in the fast layout, else slot by slot.
template <bool Fast, int V, class T>
__device__ __forceinline__ void store_chunk(T* __restrict__ out, const chunk<T, V>& c, unsigned valid_slots) {
  constexpr unsigned all = (1u << V) - 1;
  if (Fast && valid_slots == all) {
    *reinterpret_cast<chunk<T, V>*>(out) = c;
    return;
  }
#pragma unroll
  for (int j = 0; j < V; ++j)
    if (valid_slots & (1u << j)) store_element<Fast>(out + j, c.v[j]);
}

/// Fast: indices 16-byte aligned, values and out aligned to chunk_alignment<T, V> (chunks.cuh).
/// `skipped` (may be null) receives the number of invalid indices (Lookup permitting).
template <bool Fast, class T, class I, class Lookup>
__global__ void __launch_bounds__(block_threads)
    gather_kernel(const T* __restrict__ values, const I* __restrict__ indices, T* __restrict__ out,
                  cuda::std::size_t n, Lookup lookup, unsigned long long* skipped) {
  constexpr int V = chunk_width<I, Fast>;
  constexpr int unroll = elements_per_thread / V;
  const auto walk = chunk_walk<V, unroll>::of(n, block_threads);
  unsigned long long invalid = 0;
  for (cuda::std::size_t base = walk.first; base < walk.chunks; base += walk.step()) {
    chunk<I, V> index[unroll];
    load_index_chunks(indices, walk, base, index);
    chunk<T, V> got[unroll];
    unsigned valid_slots[unroll];
#pragma unroll
    for (int u = 0; u < unroll; ++u) {
      valid_slots[u] = 0;
      if (!walk.has(base, u)) continue;
      if (Fast && dense_chunk(index[u], lookup)) {
        got[u] = *reinterpret_cast<const chunk<T, V>*>(values + lookup.position(index[u].v[0]));
        valid_slots[u] = (1u << V) - 1;
        continue;
      }
#pragma unroll
      for (int j = 0; j < V; ++j) {
        if (!lookup.valid(index[u].v[j])) continue;
        got[u].v[j] = load_element<Fast>(values + lookup.position(index[u].v[j]));
        valid_slots[u] |= 1u << j;
      }
    }
#pragma unroll
    for (int u = 0; u < unroll; ++u) {
      if (!walk.has(base, u)) continue;
      invalid += static_cast<unsigned>(V - __popc(valid_slots[u]));
      store_chunk<Fast>(out + walk.chunk_of(base, u) * V, got[u], valid_slots[u]);
    }
  }
  if (walk.has_tail()) {
    const cuda::std::size_t i = walk.tail();
    const I index = indices[i];
    if (lookup.valid(index)) store_element<Fast>(out + i, load_element<Fast>(values + lookup.position(index)));
    else ++invalid;
  }
  if constexpr (Lookup::counts_invalid) add_warp_total(invalid, skipped);
}

}  // namespace sluice::detail::scatter
