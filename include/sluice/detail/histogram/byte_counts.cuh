// sluice/detail/histogram/byte_counts.cuh: the histogram of 1-byte samples by counting their values. A
// 1-byte sample has 256 values, so every binning (even, range or a bin function, any m) is a function of
// the value: the kernel counts the 256 values and bins those 256 counts once per block, so a sample costs
// one shared atomic whatever its binning costs.
//
//   counters: 256 values × 32 lanes of 32-bit counters in shared memory (32 KiB); value v of lane l at
//             v·32 + l, so lane l always lands in bank l (Eilers §4.4c: a counter set per bank) and a
//             warp's atomics never meet in a bank, on uniform bytes and on all-equal ones alike (an
//             image's flat regions, where one shared histogram serialises 32 lanes on one address).
//   loads:    16-byte vectors, `vectors` per thread in flight before any is counted, streamed past the
//             caches; block 0 counts the < 16 bytes before the first whole vector and the < 16 after the
//             last (any starting alignment).
//   finish:   thread v < 256 sums value v over the 32 lanes (lane (l + v) mod 32 at step l: no bank
//             conflicts), bins the value with the binning's lookup and adds the sum with one global atomic.
// Traffic: n bytes read once; one shared atomic per sample; at most 256 global atomics per block. A block
// counts fewer than 2^31 + one tile samples (the grid grows past one wave to keep it so): no counter wraps.
#pragma once

#include <sluice/core/binning.hpp>
#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/detail/histogram/tuning.hpp>
#include <sluice/detail/histogram/warp_ballot.cuh>
#include <sluice/warp/shuffle.cuh>

#include <cuda/std/bit>
#include <cuda/std/cstddef>
#include <cuda/std/cstdint>
#include <cuda/std/type_traits>

#include <algorithm>
#include <cstdint>

namespace sluice::detail::histogram {

/// Samples counted by value: 1 byte, not bool (whose other byte values are not values).
template <class T>
inline constexpr bool one_byte_values = sizeof(T) == 1 && !cuda::std::is_same_v<T, bool>;

inline constexpr int byte_counts_threads = tuning::byte_counts_threads;
inline constexpr int byte_counts_vectors = tuning::byte_counts_vectors;
inline constexpr unsigned byte_values = 256;
inline constexpr cuda::std::size_t byte_counts_vector_bytes = sizeof(uint4);
inline constexpr cuda::std::size_t byte_counts_tile_vectors =
    cuda::std::size_t{byte_counts_threads} * byte_counts_vectors;

/// A counter's byte offset, value·128 + lane·4: the value's bits (7 to 14) lie above the lane's (2 to 6).
inline constexpr unsigned byte_counts_value_bits = 0xffu << 7;

/// Adds one to the counter at byte offset `offset` of the counters.
__device__ __forceinline__ void count_at(unsigned offset, unsigned* counts) {
  atomicAdd(reinterpret_cast<unsigned*>(reinterpret_cast<char*>(counts) + offset), 1u);
}

/// Counts byte `Byte` of `word` in this lane's column: its offset from one shift and one three-input
/// logic operation (the value's bits masked into place, or'ed with the lane's).
template <int Byte>
__device__ __forceinline__ void count_byte_of(unsigned word, unsigned lane_offset, unsigned* counts) {
  constexpr int shift = 8 * Byte - 7;
  const unsigned moved = shift >= 0 ? word >> shift : word << -shift;
  count_at((moved & byte_counts_value_bits) | lane_offset, counts);
}

/// Counts the 16 bytes of a vector in this lane's column.
__device__ __forceinline__ void count_vector(const uint4& vector, unsigned lane_offset, unsigned* counts) {
  const unsigned words[4] = {vector.x, vector.y, vector.z, vector.w};
#pragma unroll
  for (int w = 0; w < 4; ++w) {
    count_byte_of<0>(words[w], lane_offset, counts);
    count_byte_of<1>(words[w], lane_offset, counts);
    count_byte_of<2>(words[w], lane_offset, counts);
    count_byte_of<3>(words[w], lane_offset, counts);
  }
}

/// Block 0 counts the bytes outside the whole vectors: [0, head) and [tail, n), fewer than 16 each.
__device__ __forceinline__ void count_edge_bytes(const unsigned char* bytes, cuda::std::size_t head,
                                                 cuda::std::size_t tail, cuda::std::size_t n, unsigned lane_offset,
                                                 unsigned* counts) {
  if (blockIdx.x != 0) return;
  if (threadIdx.x < head) count_byte_of<0>(bytes[threadIdx.x], lane_offset, counts);
  else if (threadIdx.x - head < n - tail) count_byte_of<0>(bytes[tail + (threadIdx.x - head)], lane_offset, counts);
}

/// Thread v < 256 adds the block's count of value v, summed over the lanes, to the bin of v.
template <class T, class Lookup, class Counter>
__device__ __forceinline__ void add_value_counts(const unsigned* counts, const Lookup& bin_of, cuda::std::uint32_t m,
                                                 Counter* bins) {
  const unsigned value = threadIdx.x;
  if (value >= byte_values) return;
  unsigned total = 0;
#pragma unroll 8
  for (unsigned l = 0; l < warp::size; ++l) total += counts[value * warp::size + (l + value) % warp::size];
  const cuda::std::uint32_t bin = bin_of(cuda::std::bit_cast<T>(static_cast<unsigned char>(value)));
  if (bin < m && total != 0) add_count(bins + bin, total);
}

template <class T, class Binning, class Counter>
__global__ void __launch_bounds__(byte_counts_threads)
    byte_counts_kernel(const T* __restrict__ samples, cuda::std::size_t n, cuda::std::size_t head, Binning binning,
                       cuda::std::uint32_t m, Counter* __restrict__ bins) {
  __shared__ typename Binning::shared staged;
  __shared__ unsigned counts[byte_values * warp::size];
  const auto bin_of = binning.stage(staged, threadIdx.x, byte_counts_threads);
  for (unsigned i = threadIdx.x; i < byte_values * warp::size; i += byte_counts_threads) counts[i] = 0;
  __syncthreads();

  const auto* bytes = reinterpret_cast<const unsigned char*>(samples);
  const auto* vectors = reinterpret_cast<const uint4*>(bytes + head);
  const cuda::std::size_t vector_count = (n - head) / byte_counts_vector_bytes;
  const unsigned lane_offset = static_cast<unsigned>(warp::lane_id()) * sizeof(unsigned);
  const cuda::std::size_t stride = static_cast<cuda::std::size_t>(gridDim.x) * byte_counts_tile_vectors;
  for (cuda::std::size_t first = blockIdx.x * byte_counts_tile_vectors + threadIdx.x; first < vector_count;
       first += stride) {
    uint4 vector[byte_counts_vectors];
#pragma unroll
    for (int u = 0; u < byte_counts_vectors; ++u) {
      const cuda::std::size_t i = first + static_cast<cuda::std::size_t>(u) * byte_counts_threads;
      if (i < vector_count) vector[u] = __ldcs(vectors + i);
    }
#pragma unroll
    for (int u = 0; u < byte_counts_vectors; ++u)
      if (first + static_cast<cuda::std::size_t>(u) * byte_counts_threads < vector_count)
        count_vector(vector[u], lane_offset, counts);
  }
  count_edge_bytes(bytes, head, head + vector_count * byte_counts_vector_bytes, n, lane_offset, counts);
  __syncthreads();
  add_value_counts<T>(counts, bin_of, m, bins);
}

/// Adds the histogram of the 1-byte samples[0, n) under `binning` (any m) to bins[0, m).
template <class T, class Binning, class Counter>
void byte_counts(context& ctx, const T* samples, cuda::std::size_t n, const Binning& binning, cuda::std::uint32_t m,
                 Counter* bins) {
  static_assert(one_byte_values<T>, "byte_counts counts the 256 values of 1-byte samples");
  const auto misalignment = reinterpret_cast<std::uintptr_t>(samples) % byte_counts_vector_bytes;
  const cuda::std::size_t head =
      std::min<cuda::std::size_t>(n, (byte_counts_vector_bytes - misalignment) % byte_counts_vector_bytes);
  const cuda::std::size_t tiles = ceil_div((n - head) / byte_counts_vector_bytes, byte_counts_tile_vectors);
  auto kernel = byte_counts_kernel<T, Binning, Counter>;
  const cuda::std::size_t grid =
      std::max(one_wave_grid(ctx, kernel, byte_counts_threads, tiles), ceil_div(n, samples_per_block_limit));
  kernel<<<static_cast<unsigned>(grid), byte_counts_threads, 0, ctx.stream()>>>(samples, n, head, binning, m, bins);
  SLUICE_CHECK_LAUNCH();
}

}  // namespace sluice::detail::histogram
