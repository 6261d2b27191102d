// sluice/detail/onesweep/histogram.cuh: the onesweep engine's histograms: one read of the keys counts
// the digit of every pass at once in privatised shared-memory counters, added into passes × digits global
// counters; a small kernel turns each pass's counts into digit starts.
#pragma once

#include <sluice/block/load.cuh>
#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/core/radix_key.hpp>
#include <sluice/detail/onesweep/tuning.hpp>
#include <sluice/warp/shuffle.cuh>

#include <cub/block/block_load.cuh>
#include <cub/block/block_scan.cuh>

#include <cuda/std/cstddef>
#include <cuda/std/cstdint>

#include <cstddef>
#include <cstdint>

namespace sluice::detail::onesweep {

// ---- the histograms of every pass -----------------------------------------------------------------------

/// The digit functors of every pass of one sort (8-bit passes: at most one per key byte).
template <class K>
struct pass_digits {
  static constexpr int max_passes = static_cast<int>(sizeof(K));
  static constexpr int bins = onesweep_digits;  ///< digits per pass
  radix_digit<K> digit[sizeof(K)];
  int passes;
};

template <class K>
pass_digits<K> digits_of(const pass_plan& plan, bool descending) {
  pass_digits<K> digits{};
  digits.passes = plan.passes;
  for (int p = 0; p < plan.passes; ++p) digits.digit[p] = {plan.shift(p), plan.width(p), descending};
  return digits;
}

/// Keys a histogram block counts between flushes of its 32-bit shared counters into the 64-bit global
/// ones, so that no shared counter can overflow whatever n is.
inline constexpr std::size_t histogram_flush_keys = std::size_t{1} << 30;

/// Counts Items keys in every pass's counters, pass by pass: one check of the pass count per pass, the
/// keys' atomics of one pass together (key by key, every pass's atomic sat behind its own pass < passes
/// branch and address set-up). The pass loop is unrolled so that the pass's digit functor is not indexed
/// at run time, which copied the kernel's parameters to local memory (docs/perf-notes.md, onesweep
/// histogram by pass).
template <class Digits, int Copies, class K, int Items>
__device__ __forceinline__ void count_keys(std::uint32_t (&bins)[Digits::max_passes][Digits::bins][Copies],
                                           const Digits& digits, const K (&keys)[Items], int copy) {
#pragma unroll
  for (int p = 0; p < Digits::max_passes; ++p) {
    if (p >= digits.passes) break;
#pragma unroll
    for (int i = 0; i < Items; ++i) atomicAdd(&bins[p][digits.digit[p](keys[i])][copy], 1u);
  }
}

/// counts[p · Digits::bins + d] += the number of keys whose pass-p digit is d (counts zeroed beforehand). Digits:
/// pass_digits<K> for the radix sort, or any struct with max_passes, bins, passes and digit[p] functors
/// giving digits < bins (multisplit's one pass of bucket digits). Blocks
/// stride over tiles of the keys (order does not matter, so the loads are striped: shape::vector_loads);
/// lane l counts into copy l % Copies, so that lanes of one warp with equal digits mostly hit different
/// counters. The tiles are taken from the last to the first, so that the histogram's last wave reads
/// the front of the keys, which the first pass (tiles taken in order) reads first: those keys are
/// still in the L2.
template <class K, class Digits = pass_digits<K>>
__global__ void __launch_bounds__(onesweep_histogram_shape<K, Digits>::threads)
    onesweep_histogram_kernel(const K* __restrict__ keys, std::size_t n, Digits digits,
                              unsigned long long* __restrict__ counts) {
  using shape = onesweep_histogram_shape<K, Digits>;
  constexpr int threads = shape::threads;
  constexpr int items = shape::items;
  constexpr int copies = shape::copies;
  constexpr std::size_t tile = shape::tile;
  static_assert(histogram_flush_keys % tile == 0, "a tile never straddles a flush");
  __shared__ std::uint32_t bins[Digits::max_passes][Digits::bins][copies];
  const int copy = warp::lane_id() % copies;
  for (std::size_t c = ceil_div(n, histogram_flush_keys); c-- > 0;) {
    for (int i = static_cast<int>(threadIdx.x); i < static_cast<int>(sizeof(bins) / 4); i += threads)
      (&bins[0][0][0])[i] = 0;
    __syncthreads();
    const std::size_t chunk = c * histogram_flush_keys;
    const std::size_t end = cuda::std::min(n, chunk + histogram_flush_keys);
    const std::size_t tiles = ceil_div(end - chunk, tile);
    for (std::size_t back = blockIdx.x; back < tiles; back += gridDim.x) {
      const std::size_t first = chunk + (tiles - 1 - back) * tile;
      if (end - first >= tile) {
        K tile_keys[items];
        if constexpr (shape::vector_loads)
          block::load_striped_vectorized<items>(keys + first, static_cast<int>(threadIdx.x), threads, tile_keys);
        else cub::LoadDirectStriped<threads>(static_cast<int>(threadIdx.x), keys + first, tile_keys);
        count_keys<Digits>(bins, digits, tile_keys, copy);
      } else {
        for (std::size_t i = first + threadIdx.x; i < end; i += threads) count_keys<Digits>(bins, digits, {keys[i]}, copy);
      }
    }
    __syncthreads();
    for (int d = static_cast<int>(threadIdx.x); d < Digits::bins; d += threads)
      for (int p = 0; p < digits.passes; ++p) {
        std::uint32_t total = 0;
#pragma unroll
        for (int c = 0; c < copies; ++c) total += bins[p][d][c];
        if (total != 0) atomicAdd(&counts[p * Digits::bins + d], static_cast<unsigned long long>(total));
      }
    __syncthreads();  // the next chunk zeroes the counters only after they are added up
  }
}

/// One block per pass: counts[p · Bins + d] becomes the exclusive start of digit d in the sorted output.
template <int Bins>
__global__ void __launch_bounds__(Bins) digit_starts_kernel(unsigned long long* counts) {
  using block_scan = cub::BlockScan<unsigned long long, Bins>;
  __shared__ typename block_scan::TempStorage temp;
  unsigned long long* pass = counts + std::size_t{blockIdx.x} * Bins;
  unsigned long long start = 0;
  block_scan(temp).ExclusiveSum(pass[threadIdx.x], start);
  pass[threadIdx.x] = start;
}

/// starts[p · Digits::bins + d] = where the keys of pass-p digit d begin in the sorted output, for every pass;
/// starts must be zeroed.
template <class K, class Digits>
void count_digit_starts(context& ctx, const K* keys, std::size_t n, const Digits& digits,
                        unsigned long long* starts) {
  using shape = onesweep_histogram_shape<K, Digits>;
  auto histogram = onesweep_histogram_kernel<K, Digits>;
  const auto grid =
      static_cast<unsigned>(one_wave_grid(ctx, histogram, shape::threads, ceil_div(n, shape::tile)));
  histogram<<<grid, shape::threads, 0, ctx.stream()>>>(keys, n, digits, starts);
  SLUICE_CHECK_LAUNCH();
  digit_starts_kernel<Digits::bins><<<static_cast<unsigned>(digits.passes), Digits::bins, 0, ctx.stream()>>>(starts);
  SLUICE_CHECK_LAUNCH();
}

}  // namespace sluice::detail::onesweep
