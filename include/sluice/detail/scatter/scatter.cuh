// sluice/detail/scatter/scatter.cuh: out[indices[i]] = values[i] (Eilers Alg 2.1 and 3.3) with the two
// answers to duplicate destinations, and the strict-mode index check.
//
//   any_writer:  one pass; indices and values read warp-striped (32 consecutive elements per load
//                instruction), each value stored at its index. With duplicates, whichever store lands
//                last wins (Eilers §3.3: the GPU's natural, arbitrary winner). Traffic: n indices + n
//                values read, n scattered stores.
//   last_writer: Eilers' strict scatter (§1.2: the largest source position wins), in two passes:
//                claim:  claims[indices[i]] = max(claims[·], i + 1) by atomicMax (fire-and-forget
//                        reductions, claims zeroed first);
//                write:  out[d] = values[claims[d] − 1] wherever claims[d] ≠ 0 — a gather by destination
//                        (gather.cuh with claimed_source), whose stores are coalesced.
//                Traffic: m claim words zeroed, written by atomics and read once, n indices read, one
//                value read and one output written per claimed destination (m = out.size()).
//                Many sources on one destination serialise their atomics there (all-equal indices:
//                n atomics on one word).
#pragma once

#include <sluice/detail/scatter/chunks.cuh>

#include <cuda/std/cstddef>

namespace sluice::detail::scatter {

/// any_writer, warp-striped: a warp's step is elements_per_thread runs of 32 consecutive positions, lane l
/// taking position l of each run, so every load instruction of a warp reads 32 consecutive elements and,
/// where the indices are ordered, every store writes 32 consecutive slots. (In chunk order, lane l holding
/// positions 4l … 4l + 3, each store instruction touched every sector of 512 bytes for a quarter of it:
/// 0.90× thrust::scatter on identity indices, docs/perf-notes.md.) Fast: the fast layout (dispatch's
/// fast_layout), here used only for its alignment of out: each value is stored in one instruction
/// (chunks.cuh's store_element).
template <bool Fast, class T, class I>
__global__ void __launch_bounds__(block_threads)
    scatter_any_writer_kernel(const T* __restrict__ values, const I* __restrict__ indices, T* __restrict__ out,
                              cuda::std::size_t n, cuda::std::size_t out_size, unsigned long long* skipped) {
  constexpr int items = elements_per_thread;
  constexpr cuda::std::size_t step_elements = cuda::std::size_t{items} * warp::size;
  constexpr cuda::std::size_t block_warps = block_threads / warp::size;
  const cuda::std::size_t warps = cuda::std::size_t{gridDim.x} * block_warps;
  const cuda::std::size_t warp_index = blockIdx.x * block_warps + threadIdx.x / warp::size;
  unsigned long long invalid = 0;
  for (cuda::std::size_t first = warp_index * step_elements + static_cast<cuda::std::size_t>(warp::lane_id());
       first < n; first += warps * step_elements) {
    I index[items];
    T value[items];
#pragma unroll
    for (int k = 0; k < items; ++k) {
      const cuda::std::size_t i = first + static_cast<cuda::std::size_t>(k) * warp::size;
      if (i < n) {
        index[k] = indices[i];
        value[k] = values[i];
      }
    }
#pragma unroll
    for (int k = 0; k < items; ++k) {
      const cuda::std::size_t i = first + static_cast<cuda::std::size_t>(k) * warp::size;
      if (i >= n) continue;
      if (in_range(index[k], out_size)) store_element<Fast>(out + static_cast<cuda::std::size_t>(index[k]), value[k]);
      else ++invalid;
    }
  }
  add_warp_total(invalid, skipped);
}

/// The claim pass of last_writer: claims[d] ends as 1 + the largest source position whose index is d.
/// W is unsigned int (fewer than 2^32 sources) or unsigned long long: atomicMax's own types. Fast: the
/// indices are 16-byte aligned.
template <bool Fast, class I, class W>
__global__ void __launch_bounds__(block_threads)
    claim_last_writer_kernel(const I* __restrict__ indices, cuda::std::size_t n, cuda::std::size_t out_size,
                             W* __restrict__ claims, unsigned long long* skipped) {
  constexpr int V = chunk_width<I, Fast>;
  constexpr int unroll = elements_per_thread / V;
  const auto walk = chunk_walk<V, unroll>::of(n, block_threads);
  unsigned long long invalid = 0;
  for (cuda::std::size_t base = walk.first; base < walk.chunks; base += walk.step()) {
    chunk<I, V> index[unroll];
    load_index_chunks(indices, walk, base, index);
#pragma unroll
    for (int u = 0; u < unroll; ++u) {
      if (!walk.has(base, u)) continue;
#pragma unroll
      for (int j = 0; j < V; ++j) {
        const cuda::std::size_t source = walk.chunk_of(base, u) * V + j;
        if (in_range(index[u].v[j], out_size))
          atomicMax(claims + static_cast<cuda::std::size_t>(index[u].v[j]), static_cast<W>(source + 1));
        else ++invalid;
      }
    }
  }
  if (walk.has_tail()) {
    const cuda::std::size_t i = walk.tail();
    const I index = indices[i];
    if (in_range(index, out_size)) atomicMax(claims + static_cast<cuda::std::size_t>(index), static_cast<W>(i + 1));
    else ++invalid;
  }
  add_warp_total(invalid, skipped);
}

/// Strict mode: *first_invalid = min(*first_invalid, the first position whose index is outside
/// [0, size)). The caller sets *first_invalid to ~0 first. A thread stops at its first invalid index (its
/// later positions are larger); one atomicMin per warp that found any.
template <class I>
__global__ void __launch_bounds__(block_threads)
    find_first_invalid_kernel(const I* __restrict__ indices, cuda::std::size_t n, cuda::std::size_t size,
                              unsigned long long* first_invalid) {
  constexpr unsigned long long none = ~0ull;
  unsigned long long mine = none;
  const cuda::std::size_t threads = cuda::std::size_t{gridDim.x} * block_threads;
  for (cuda::std::size_t i = blockIdx.x * cuda::std::size_t{block_threads} + threadIdx.x; i < n; i += threads) {
    if (!in_range(indices[i], size)) {
      mine = i;
      break;
    }
  }
  const unsigned long long warp_first = warp::reduce(mine, min{});
  if (warp::lane_id() == 0 && warp_first != none) atomicMin(first_invalid, warp_first);
}

}  // namespace sluice::detail::scatter
