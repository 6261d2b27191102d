// sluice/detail/histogram/warp_ballot.cuh: the warp-ballot histogram (Ashkiani §3.7.3): the prescan of
// BMS, whose subproblem histograms are added to the output by global atomics instead of being scanned.
//
//   per warp:  windows of 32 samples; each lane bins its sample (binning.hpp), and ⌈log2 m⌉ ballots give
//              every lane the window's count of its buckets lane + 32r (warp::ballot_histogram, the
//              seed's Algorithm 3), accumulated in registers: warp-level privatization, no shared-
//              memory atomics. Samples out of range and lanes past n vote "not valid" and count nowhere.
//   per block: each warp's counts go to a bucket-major matrix in shared memory, the block reduces it per
//              bucket with shuffles (block::reduce_warp_counts, the seed's block histogram), and one
//              thread per nonzero bucket adds the block's count to the output with one global atomic.
// Each warp takes `unroll` consecutive windows per step, loading all their samples before binning any,
// so that several loads per lane are in flight. Traffic: n samples read once, plus m atomics per block
// (a one-wave grid: a few hundred blocks). m ≤ 256: m·8 warps of 32-bit counters in shared memory and
// ⌈m/32⌉ count registers per lane.
//
// Counts are 32-bit inside a block. The grid has enough blocks that none sees 2^31 samples, so they
// cannot wrap; the output counters take the block sums modulo their own width.
#pragma once

#include <sluice/block/bucket_counts.cuh>
#include <sluice/core/binning.hpp>
#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/detail/histogram/tuning.hpp>
#include <sluice/warp/bucket.cuh>

#include <cuda/std/bit>
#include <cuda/std/cstddef>
#include <cuda/std/cstdint>

#include <algorithm>

namespace sluice::detail::histogram {

/// The most bins the strategy takes (counters per warp in shared memory, count registers per lane).
inline constexpr cuda::std::uint32_t warp_ballot_max_bins = 256;

/// Warps per block (tuning.hpp).
inline constexpr int warp_ballot_warps = tuning::warp_ballot_warps;
inline constexpr int warp_ballot_threads = warp_ballot_warps * warp::size;
/// Samples a block may count before its 32-bit counters could wrap.
inline constexpr cuda::std::size_t samples_per_block_limit = cuda::std::size_t{1} << 31;

/// Adds a block's count to an output counter of 4 or 8 bytes (modulo its width).
template <class Counter>
__device__ __forceinline__ void add_count(Counter* counter, cuda::std::uint32_t count) {
  if constexpr (sizeof(Counter) == 4) atomicAdd(reinterpret_cast<unsigned*>(counter), count);
  else atomicAdd(reinterpret_cast<unsigned long long*>(counter), static_cast<unsigned long long>(count));
}

/// Bits = ⌈log2 m⌉ (0 to 8): the ballots per window; the lanes hold ⌈2^Bits / 32⌉ count registers.
template <int Bits, class T, class Binning, class Counter>
__global__ void __launch_bounds__(warp_ballot_threads)
    warp_ballot_histogram_kernel(const T* __restrict__ samples, cuda::std::size_t n, Binning binning,
                                 cuda::std::uint32_t m, Counter* __restrict__ bins) {
  constexpr int registers = Bits <= 5 ? 1 : 1 << (Bits - 5);
  constexpr int unroll = tuning::warp_ballot_unroll(sizeof(T));
  constexpr cuda::std::size_t step_samples = cuda::std::size_t{warp::size} * unroll;
  __shared__ typename Binning::shared staged;
  __shared__ unsigned warp_counts[warp::size * registers * warp_ballot_warps];
  __shared__ unsigned block_counts[warp::size * registers];
  const auto bin_of = binning.stage(staged, threadIdx.x, warp_ballot_threads);
  __syncthreads();

  const int lane = warp::lane_id();
  const int warp_index = static_cast<int>(threadIdx.x) / warp::size;
  unsigned counts[registers] = {};
  const cuda::std::size_t warps = static_cast<cuda::std::size_t>(gridDim.x) * warp_ballot_warps;
  for (cuda::std::size_t base = (static_cast<cuda::std::size_t>(blockIdx.x) * warp_ballot_warps + warp_index) *
                                step_samples;
       base < n; base += warps * step_samples) {
    T sample[unroll];
#pragma unroll
    for (int u = 0; u < unroll; ++u) {
      const cuda::std::size_t i = base + static_cast<cuda::std::size_t>(u * warp::size + lane);
      if (i < n) sample[u] = samples[i];
    }
#pragma unroll
    for (int u = 0; u < unroll; ++u) {
      const cuda::std::size_t i = base + static_cast<cuda::std::size_t>(u * warp::size + lane);
      const cuda::std::uint32_t bin = i < n ? bin_of(sample[u]) : out_of_range;
      warp::ballot_histogram(warp::full_mask, bin < m, bin, Bits, counts);
    }
  }

#pragma unroll
  for (int r = 0; r < registers; ++r)
    warp_counts[(lane + warp::size * r) * warp_ballot_warps + warp_index] = counts[r];
  __syncthreads();
  block::reduce_warp_counts<warp_ballot_warps>(warp_counts, m, block_counts);
  __syncthreads();
  for (cuda::std::uint32_t b = threadIdx.x; b < m; b += warp_ballot_threads)
    if (block_counts[b] != 0) add_count(bins + b, block_counts[b]);
}

template <int Bits, class T, class Binning, class Counter>
void launch_warp_ballot(context& ctx, const T* samples, cuda::std::size_t n, const Binning& binning,
                        cuda::std::uint32_t m, Counter* bins) {
  auto kernel = warp_ballot_histogram_kernel<Bits, T, Binning, Counter>;
  constexpr int unroll = tuning::warp_ballot_unroll(sizeof(T));
  const cuda::std::size_t steps = ceil_div(n, cuda::std::size_t{warp::size} * unroll);
  const cuda::std::size_t grid = std::max(
      one_wave_grid(ctx, kernel, warp_ballot_threads, ceil_div(steps, warp_ballot_warps)),
      ceil_div(n, samples_per_block_limit));
  kernel<<<static_cast<unsigned>(grid), warp_ballot_threads, 0, ctx.stream()>>>(samples, n, binning, m, bins);
  SLUICE_CHECK_LAUNCH();
}

/// Adds the histogram of samples[0, n) under `binning` (m ≤ 256 bins) to bins[0, m).
template <class T, class Binning, class Counter>
void warp_ballot(context& ctx, const T* samples, cuda::std::size_t n, const Binning& binning, cuda::std::uint32_t m,
                 Counter* bins) {
  switch (cuda::std::bit_width(m - 1)) {  // ⌈log2 m⌉
    case 0: return launch_warp_ballot<0>(ctx, samples, n, binning, m, bins);
    case 1: return launch_warp_ballot<1>(ctx, samples, n, binning, m, bins);
    case 2: return launch_warp_ballot<2>(ctx, samples, n, binning, m, bins);
    case 3: return launch_warp_ballot<3>(ctx, samples, n, binning, m, bins);
    case 4: return launch_warp_ballot<4>(ctx, samples, n, binning, m, bins);
    case 5: return launch_warp_ballot<5>(ctx, samples, n, binning, m, bins);
    case 6: return launch_warp_ballot<6>(ctx, samples, n, binning, m, bins);
    case 7: return launch_warp_ballot<7>(ctx, samples, n, binning, m, bins);
    default: return launch_warp_ballot<8>(ctx, samples, n, binning, m, bins);
  }
}

}  // namespace sluice::detail::histogram
