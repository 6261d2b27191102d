// sluice/detail/scan/teaching.cuh: the textbook scans, kept selectable so the seeds' ladders can be
// rerun: Hillis–Steele (DTU §5.4, Palik §4.3) and Brent–Kung (Palik §4.4; Blelloch's work-efficient
// tree, in its identity-free inclusive form).
//
// Both produce the inclusive scan without init into a buffer, and a finishing pass applies init or
// turns it into an exclusive scan (out[i] = init ⊕ incl[i−1]): one extra pass, which these strategies
// can afford, being for study.
//   Hillis–Steele: ⌈log2 n⌉ passes over global memory, out[i] = in[i−s] ⊕ in[i]: work O(n log n),
//                  traffic 2·n·sizeof(T)·⌈log2 n⌉.
//   Brent–Kung:    per block, an up-sweep and a down-sweep over 2·Threads elements in shared memory
//                  (2·log2 tile steps, O(n) work), block totals scanned recursively, then added back.
// Order is kept in both (left operand always the earlier range), so non-commutative operators are exact.
#pragma once

#include <sluice/detail/scan/tile_scan.cuh>

#include <cuda/std/cstddef>

namespace sluice::detail::scan {

/// One Hillis–Steele step: to[i] = from[i − stride] ⊕ from[i] for i ≥ stride, from[i] otherwise.
template <class T, class Op>
__global__ void hillis_steele_step_kernel(const T* from, T* to, cuda::std::size_t n, cuda::std::size_t stride, Op op) {
  for (cuda::std::size_t i = blockIdx.x * cuda::std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += cuda::std::size_t{gridDim.x} * blockDim.x)
    to[i] = i >= stride ? op(from[i - stride], from[i]) : from[i];
}

/// Brent–Kung inclusive scan of each 2·Threads-element tile in shared memory; the tile's total goes to
/// totals[blockIdx.x].
template <int Threads, class T, class Op>
__global__ void __launch_bounds__(Threads)
    brent_kung_tiles_kernel(const T* in, T* out, T* totals, cuda::std::size_t n, Op op) {
  constexpr int tile = 2 * Threads;
  __shared__ T s[tile];
  const cuda::std::size_t base = blockIdx.x * cuda::std::size_t{tile};
  const int valid = static_cast<int>(cuda::std::min<cuda::std::size_t>(tile, n - base));
  const int t = static_cast<int>(threadIdx.x);
  // Padding past `valid` only ever flows to higher indices, never into valid outputs.
  for (int i = t; i < tile; i += Threads) s[i] = in[base + (i < valid ? i : 0)];
  __syncthreads();
  for (int stride = 1; stride < tile; stride *= 2) {  // up-sweep: partial sums at 2·stride−1, 4·stride−1, …
    const int index = (t + 1) * 2 * stride - 1;
    if (index < tile) s[index] = op(s[index - stride], s[index]);
    __syncthreads();
  }
  for (int stride = tile / 4; stride > 0; stride /= 2) {  // down-sweep: fill in the gaps rightwards
    const int index = (t + 1) * 2 * stride - 1;
    if (index + stride < tile) s[index + stride] = op(s[index], s[index + stride]);
    __syncthreads();
  }
  for (int i = t; i < valid; i += Threads) out[base + i] = s[i];
  if (t == 0) totals[blockIdx.x] = s[valid - 1];
}

/// out[i] = scanned_totals[b − 1] ⊕ out[i] for the elements of tile b > 0.
template <class T, class Op>
__global__ void add_tile_prefixes_kernel(T* out, cuda::std::size_t n, cuda::std::size_t tile, const T* scanned_totals,
                                         Op op) {
  for (cuda::std::size_t i = blockIdx.x * cuda::std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += cuda::std::size_t{gridDim.x} * blockDim.x) {
    const cuda::std::size_t b = i / tile;
    if (b > 0) out[i] = op(scanned_totals[b - 1], out[i]);
  }
}

/// From an inclusive scan without init to the requested scan: inclusive with init, or exclusive.
template <scan_kind Kind, bool HasInit, class T, class Op>
__global__ void finish_scan_kernel(const T* inclusive, T* out, cuda::std::size_t n, T init, Op op) {
  for (cuda::std::size_t i = blockIdx.x * cuda::std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += cuda::std::size_t{gridDim.x} * blockDim.x) {
    if constexpr (Kind == scan_kind::exclusive) out[i] = i == 0 ? init : op(init, inclusive[i - 1]);
    else out[i] = HasInit ? op(init, inclusive[i]) : inclusive[i];
  }
}

}  // namespace sluice::detail::scan
