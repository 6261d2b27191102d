// sluice/warp/bitonic.cuh: register bitonic sort and merge across the 32 lanes of a warp (Karsin §7.3.1:
// GPU-MMS merges heap nodes "in registers" with __shfl_xor; Batcher's network).
//
// Each lane holds element i of a 32-element sequence. A step is one shuffle of T (⌈sizeof(T)/4⌉
// __shfl_xor_sync with the full mask, warp/shuffle.cuh) and one comparison: the thesis's 3 register ops
// per swap for 4-byte keys. Sort: 15 steps; merge of a bitonic sequence: 5 steps. The functions take
// `Count` independent sequences at once (lane i holds element i of each) so that their steps interleave:
// the ILP of the pipelined heap path (§7.3.1, "independent merging"). All 32 lanes must call.
#pragma once

#include <sluice/warp/bitonic_network.hpp>
#include <sluice/warp/shuffle.cuh>

namespace sluice::warp {

/// One step of stride `stride` on every sequence; sequence k of a sort runs descending when bit k of
/// `descending` is set.
template <int Count, class T, class Before>
__device__ __forceinline__ void bitonic_step(T (&x)[Count], int stride, int block, unsigned descending,
                                             Before before) {
  const int lane = lane_id();
  T partner[Count];
#pragma unroll
  for (int k = 0; k < Count; ++k) partner[k] = shuffle_xor(x[k], stride, full_mask);
#pragma unroll
  for (int k = 0; k < Count; ++k) {
    const bool ascending = bitonic_pair_ascending(lane, block, ((descending >> k) & 1u) != 0);
    x[k] = bitonic_kept(lane, stride, ascending, x[k], partner[k], before);
  }
}

/// Sorts each of the Count sequences across the warp (ascending under `before`, or descending where
/// bit k of `descending` is set).
template <int Count, class T, class Before>
__device__ __forceinline__ void bitonic_sort(T (&x)[Count], unsigned descending, Before before) {
#pragma unroll
  for (int block = 2; block <= bitonic_lanes; block *= 2)
#pragma unroll
    for (int stride = block / 2; stride > 0; stride /= 2) bitonic_step(x, stride, block, descending, before);
}

/// Sorts each of the Count bitonic sequences ascending (the half-cleaners of a bitonic merge): a block of
/// 2·32 lanes makes every pair ascending.
template <int Count, class T, class Before>
__device__ __forceinline__ void bitonic_merge(T (&x)[Count], Before before) {
#pragma unroll
  for (int stride = bitonic_lanes / 2; stride > 0; stride /= 2) bitonic_step(x, stride, 2 * bitonic_lanes, 0u, before);
}

}  // namespace sluice::warp
