// sluice/detail/multisplit/common.cuh: what every multisplit strategy shares (Ashkiani §3.1, §3.4):
// the bucket ids of a pass, the layout of subproblems, loading windows of 32 elements, the global step
// (an exclusive scan of the bucket-major count matrix H), and the kernels that turn a bucket-sorted
// sequence of labels into bucket offsets.
//
// Notation of the seed: L subproblems (chunks of consecutive elements, one per warp or per block);
// H[b·L + c] = the count of bucket b in chunk c (bucket-major, Eq. 3.2); G = exclusive scan of H, so
// G[b·L + c] is where chunk c's first element of bucket b goes. The scan moves m·L entries, and L is
// one wave of warps or blocks, so it is small next to the n elements (m·L·12 bytes).
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/core/scratch.hpp>
#include <sluice/core/values.hpp>
#include <sluice/detail/multisplit/plan.hpp>
#include <sluice/warp/shuffle.cuh>

#include <cub/device/device_scan.cuh>

#include <cuda/std/functional>
#include <cuda/std/type_traits>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace sluice::detail::multisplit {

/// Marks a key whose bucket id is outside [0, m) (never a valid id: m ≤ 2^32 − 1).
inline constexpr std::uint32_t invalid_id = 0xffffffffu;

/// The input and output of one pass. values are null for keys-only.
template <class K, class V>
struct pass_io {
  const K* keys_in;
  const V* values_in;
  K* keys_out;
  V* values_out;
  std::size_t n;
};

/// Whether bucket_of(key) is a valid id, in [0, m); if so, `id` is it. One compare of the id as an unsigned
/// 64-bit number: a negative id of a signed type converts (modulo 2^64) to one ≥ 2^63 > m.
template <class BucketOf, class K>
__device__ __forceinline__ bool checked_id(const BucketOf& bucket_of, const K& key, std::uint32_t m, std::uint32_t& id) {
  const auto raw = bucket_of(key);
  static_assert(cuda::std::is_integral_v<decltype(raw)>, "bucket_of returns an integer bucket id");
  id = static_cast<std::uint32_t>(raw);
  return static_cast<unsigned long long>(raw) < m;
}

/// The bucket id of a key for one digit pass (plan.hpp): the caller's id, checked against m, then the
/// pass's digit. An invalid id is `invalid_id` on the last pass (dropped) and `radix` on earlier ones
/// (a bucket of its own after the digits, kept for the last pass to drop).
template <class BucketOf>
struct pass_ids {
  BucketOf bucket_of;
  std::uint32_t m;
  digit_pass pass;

  template <class K>
  __device__ __forceinline__ std::uint32_t operator()(const K& key) const {
    std::uint32_t digit = 0;
    if (!checked_id(bucket_of, key, m, digit)) return pass.radix == 0 ? invalid_id : pass.radix;
    if (pass.divisor != 1) digit /= pass.divisor;
    return pass.radix == 0 ? digit : digit % pass.radix;
  }
};

/// The ids of a single pass over all m buckets (valid ids unchanged, invalid ones `invalid_id`).
template <class BucketOf>
pass_ids<BucketOf> whole_ids(BucketOf bucket_of, std::uint32_t m) {
  return {bucket_of, m, {1, 0, m}};
}

// ---- subproblems ---------------------------------------------------------------------------------------

/// n elements cut into `chunks` subproblems of `chunk` elements (the last may be shorter); `chunk` is a
/// multiple of the strategy's tile, so tiles never straddle two subproblems.
struct chunk_layout {
  std::size_t n = 0;
  std::size_t chunk = 0;
  std::uint32_t chunks = 0;

  __device__ std::size_t begin(std::uint32_t c) const { return c * chunk; }
  __device__ std::size_t end(std::uint32_t c) const { return cuda::std::min(n, (c + std::size_t{1}) * chunk); }
};

/// About one subproblem per resident group (warp or block) of one wave: enough to fill the device,
/// few enough that the global scan stays small. Counts per chunk stay below 2^31 (32-bit H).
inline chunk_layout make_layout(std::size_t n, std::size_t tile, std::size_t groups) {
  const std::size_t tiles = ceil_div(n, tile);
  const std::size_t max_tiles_per_chunk = (std::size_t{1} << 31) / tile;
  const std::size_t tiles_per_chunk = std::min(max_tiles_per_chunk, std::max<std::size_t>(1, ceil_div(tiles, groups)));
  chunk_layout layout;
  layout.n = n;
  layout.chunk = tiles_per_chunk * tile;
  layout.chunks = static_cast<std::uint32_t>(ceil_div(n, layout.chunk));
  return layout;
}

// ---- windows ---------------------------------------------------------------------------------------------

/// A warp's `Windows` consecutive windows of 32 elements: lane l holds element 32·j + l of window j.
/// valid: inside the range and with an id below the pass's bucket count.
template <int Windows, class K, class V>
struct window_items {
  K keys[Windows];
  V values[Windows];
  std::uint32_t ids[Windows];
  bool valid[Windows];
};

/// Loads the windows starting at element `first` (lane 0 of window 0), stopping at `end`. Every load is
/// issued before the first id is computed, so a warp has Windows coalesced 128-byte reads in flight.
template <bool WithValues, int Windows, class K, class V, class Ids>
__device__ __forceinline__ void load_windows(window_items<Windows, K, V>& items, const K* keys, const V* values,
                                             const Ids& ids, std::uint32_t buckets, std::size_t first,
                                             std::size_t end) {
  const std::size_t lane = static_cast<std::size_t>(warp::lane_id());
  bool inside[Windows];
#pragma unroll
  for (int j = 0; j < Windows; ++j) {
    const std::size_t i = first + 32 * static_cast<std::size_t>(j) + lane;
    inside[j] = i < end;
    if (inside[j]) {
      items.keys[j] = keys[i];
      if constexpr (WithValues) items.values[j] = values[i];
    }
  }
#pragma unroll
  for (int j = 0; j < Windows; ++j) {
    items.ids[j] = inside[j] ? ids(items.keys[j]) : invalid_id;
    items.valid[j] = inside[j] && items.ids[j] < buckets;
  }
}

/// __syncwarp for a group of one warp, __syncthreads for a group of the whole block.
template <int GroupWarps>
__device__ __forceinline__ void group_sync() {
  if constexpr (GroupWarps == 1) __syncwarp();
  else __syncthreads();
}

// ---- the global step -------------------------------------------------------------------------------------

/// G = exclusive scan of H (32-bit counts, 64-bit positions so that n ≥ 2^32 works).
inline void scan_counts(context& ctx, const std::uint32_t* H, unsigned long long* G, std::size_t entries) {
  std::size_t bytes = 0;
  SLUICE_CUDA_CHECK(cub::DeviceScan::ExclusiveScan(nullptr, bytes, H, G, cuda::std::plus<>{}, 0ull, entries,
                                                   ctx.stream()));
  scratch<unsigned char> temp(ctx, bytes);
  SLUICE_CUDA_CHECK(cub::DeviceScan::ExclusiveScan(temp.get(), bytes, H, G, cuda::std::plus<>{}, 0ull, entries,
                                                   ctx.stream()));
}

/// After the scan: offsets[b] = G[b·L] (b < m) and offsets[m] = kept = total of H; dropped = n − kept.
/// Each output may be null. A template (Count: H's entries) so that every translation unit may define it:
/// nvcc ignores `inline` on a kernel (warning 20050).
template <class Count>
__global__ void finish_counts_kernel(const Count* H, const unsigned long long* G, std::uint32_t m,
                                     std::uint32_t chunks, std::size_t n, std::size_t* offsets, std::size_t* kept,
                                     std::size_t* dropped) {
  const std::size_t last = std::size_t{m} * chunks - 1;
  const std::size_t total = G[last] + H[last];
  if (offsets)
    for (std::size_t b = threadIdx.x; b <= m; b += blockDim.x) offsets[b] = b < m ? G[b * chunks] : total;
  if (threadIdx.x == 0) {
    if (kept) *kept = total;
    if (dropped) *dropped = n - total;
  }
}

// ---- bucket offsets from labels in bucket order ----------------------------------------------------------

/// label(i) for i < n is non-decreasing in [0, m], m marking dropped elements (all at the end). Writes
/// offsets[b − first_bucket] = the first i with label(i) ≥ b, for b in [first_bucket, m]: each b is
/// written by the one i where the labels step over it (or n for the labels never reached).
template <class Label>
__global__ void bucket_starts_kernel(Label label, std::size_t n, std::uint32_t m, std::uint32_t first_bucket,
                                     std::size_t* offsets) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i <= n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const std::uint64_t before = i == 0 ? 0 : std::uint64_t{label(i - 1)} + 1;
    const std::uint64_t here = i == n ? m : label(i);
    for (std::uint64_t b = cuda::std::max<std::uint64_t>(before, first_bucket); b <= here; ++b)
      offsets[b - first_bucket] = i;
  }
}

template <class Label>
void write_bucket_starts(context& ctx, Label label, std::size_t n, std::uint32_t m, std::uint32_t first_bucket,
                         std::size_t* offsets) {
  constexpr int threads = tuning::helper_threads;
  auto kernel = bucket_starts_kernel<Label>;
  const auto grid = static_cast<unsigned>(one_wave_grid(ctx, kernel, threads, ceil_div(n + 1, threads)));
  kernel<<<grid, threads, 0, ctx.stream()>>>(label, n, m, first_bucket, offsets);
  SLUICE_CHECK_LAUNCH();
}

/// A template for the reason finish_counts_kernel is.
template <class Size>
__global__ void dropped_from_kept_kernel(const Size* kept, Size n, Size* dropped) {
  *dropped = n - *kept;
}

// ---- strict mode -------------------------------------------------------------------------------------------

template <class K, class Ids>
__global__ void first_invalid_kernel(const K* keys, std::size_t n, Ids ids, unsigned long long* first) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x)
    if (ids(keys[i]) == invalid_id) {
      atomicMin(first, static_cast<unsigned long long>(i));
      return;  // later indices of this thread are larger
    }
}

/// Throws invalid_argument naming the first key whose id is outside [0, m). Synchronises.
template <class K, class BucketOf>
void require_valid_ids(context& ctx, const char* function, const K* keys, std::size_t n, BucketOf bucket_of,
                       std::uint32_t m) {
  constexpr int threads = tuning::helper_threads;
  scratch<unsigned long long> first(ctx, 1);
  SLUICE_CUDA_CHECK(cudaMemsetAsync(first.get(), 0xff, sizeof(unsigned long long), ctx.stream()));
  auto kernel = first_invalid_kernel<K, pass_ids<BucketOf>>;
  const auto grid = static_cast<unsigned>(one_wave_grid(ctx, kernel, threads, ceil_div(n, threads)));
  kernel<<<grid, threads, 0, ctx.stream()>>>(keys, n, whole_ids(bucket_of, m), first.get());
  SLUICE_CHECK_LAUNCH();
  unsigned long long index = 0;
  SLUICE_CUDA_CHECK(cudaMemcpyAsync(&index, first.get(), sizeof index, cudaMemcpyDeviceToHost, ctx.stream()));
  ctx.synchronize();
  if (index != ~0ull)
    throw invalid_argument(function, "keys", "has a key whose bucket id is outside [0, m) (strict mode)",
                           static_cast<std::size_t>(index));
}

}  // namespace sluice::detail::multisplit
