// sluice/detail/radix_sort/split.cuh: one pass of the 1-bit split radix sort (DTU course §5.7, Palik
// §5.3 "Binary Counting Sort (Split)"): a stable 2-way split of the keys (and values) by one bit of their
// radix word, zeros first. A teaching strategy: one pass per bit.
//
//   flags:    zero[i] = (digit(key_i) == 0)                                      read n keys, write n indices
//   scan:     zero ← exclusive +scan(zero), in place (sluice's single-pass scan)  read n, write n indices
//   scatter:  zeros = zero[n−1] + (digit(key_{n−1}) == 0), the scan's total;
//             key_i goes to zero[i] when its digit is 0 (Palik's I-down), else to zeros + i − zero[i]
//             (I-up: the ones before it, after all the zeros)      read n keys (+ values) and n indices,
//                                                                  write n keys (+ values)
// Traffic per bit: 3n·sizeof(K) + 4n·sizeof(Index) (+ 2n·sizeof(V)) bytes; a 32-bit sort of u32 keys with
// u32 indices moves 32 × 28 = 896 bytes per key, against 60 for five 7-bit multisplit passes. The DTU
// report spends two scans and a reduction per bit; one scan suffices because its total is the zero count.
// The scatter reads the total from device memory, so a pass never waits for the host.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/core/operators.hpp>
#include <sluice/core/radix_key.hpp>
#include <sluice/core/values.hpp>
#include <sluice/detail/radix_sort/tuning.hpp>
#include <sluice/detail/scan/dispatch.cuh>

#include <cuda/std/cstddef>
#include <cuda/std/type_traits>

namespace sluice::detail::radix_sort {

/// The element index of a grid-stride loop, and its stride, in 64 bits (n may exceed 2^32).
struct grid_stride {
  cuda::std::size_t first;
  cuda::std::size_t step;
  __device__ static grid_stride here() {
    return {static_cast<cuda::std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x,
            static_cast<cuda::std::size_t>(gridDim.x) * blockDim.x};
  }
};

template <class K, class I>
__global__ void __launch_bounds__(tuning::split_threads)
    split_flags_kernel(const K* __restrict__ keys, I* __restrict__ zero, cuda::std::size_t n, radix_digit<K> bit) {
  const auto walk = grid_stride::here();
  for (cuda::std::size_t i = walk.first; i < n; i += walk.step) zero[i] = bit(keys[i]) == 0 ? I{1} : I{0};
}

/// V = no_values: keys only.
template <class K, class V, class I>
__global__ void __launch_bounds__(tuning::split_threads)
    split_scatter_kernel(const K* __restrict__ keys, const V* __restrict__ values, K* __restrict__ out_keys,
                         V* __restrict__ out_values, const I* __restrict__ zeros_before, cuda::std::size_t n,
                         radix_digit<K> bit) {
  const cuda::std::size_t zeros = static_cast<cuda::std::size_t>(zeros_before[n - 1]) + (bit(keys[n - 1]) == 0 ? 1 : 0);
  const auto walk = grid_stride::here();
  for (cuda::std::size_t i = walk.first; i < n; i += walk.step) {
    const K key = keys[i];
    const auto before = static_cast<cuda::std::size_t>(zeros_before[i]);
    const cuda::std::size_t to = bit(key) == 0 ? before : zeros + (i - before);
    out_keys[to] = key;
    if constexpr (has_values<V>) out_values[to] = values[i];
  }
}

/// One stable split of n ≥ 1 elements by `bit` (a one-bit radix_digit); `zero` is scratch for n indices
/// of type I, wide enough to count n.
template <class K, class V, class I>
void split_pass(context& ctx, const K* keys, const V* values, K* out_keys, V* out_values, cuda::std::size_t n,
                radix_digit<K> bit, I* zero) {
  constexpr int threads = tuning::split_threads;
  auto flags = split_flags_kernel<K, I>;
  flags<<<static_cast<unsigned>(one_wave_grid(ctx, flags, threads, ceil_div(n, threads))), threads, 0, ctx.stream()>>>(
      keys, zero, n, bit);
  SLUICE_CHECK_LAUNCH();
  scan::run<scan::scan_kind::exclusive, true>(ctx, static_cast<const I*>(zero), zero, n, I{0}, plus{});
  auto scatter = split_scatter_kernel<K, V, I>;
  scatter<<<static_cast<unsigned>(one_wave_grid(ctx, scatter, threads, ceil_div(n, threads))), threads, 0,
            ctx.stream()>>>(keys, values, out_keys, out_values, zero, n, bit);
  SLUICE_CHECK_LAUNCH();
}

}  // namespace sluice::detail::radix_sort
