// sluice/detail/multiscan/sequential.cuh: the sequential multiscan adapted to the GPU (Eilers §5.3 and
// Appendix B: the non-commutative multireduce of §4.3.2, §4.3.5 and §4.3.6 with every element's result
// written out) inside the partitioning scheme of Alg. 5.2. Order-preserving for any associative
// operator; any m. A research strategy: automatic never picks it.
//
//   1. local multiscan: the input is cut into `segments` contiguous segments of segment_length elements,
//      one per thread, and every thread runs the sequential algorithm over its segment against its own
//      bucket set: an element's result is its bucket's value before it (exclusive) or after it
//      (inclusive). The elements come in rounds through shared memory (Alg. 4.7): a block stages `items`
//      consecutive elements of each of its threads' segments (coalesced runs of `items`), thread t's at
//      slot t · (items + 1) + j (the pad keeps a warp's slices in distinct banks); each thread scans its
//      slice, writing the results over the staged values, and the block writes them back with the same
//      mapping. The bucket sets lie bucket-major, bucket k of set s at k · stride + s: in shared memory
//      the 32 threads of a warp then use 32 distinct banks whatever their buckets (§4.3.6), in global
//      memory neighbouring threads that update one bucket coalesce (Alg. 4.8):
//        shared  m · sizeof(T) · threads ≤ accumulator_bytes for 128, 64 or 32 threads per block; at the
//                end the sets are copied to partials[k · segments + s];
//        global  otherwise: the sets are the partials themselves (set to the identity by their threads),
//                and there are only as many segments as sets fit the L2 (Table 4.1: sets spilling from
//                L2 lose most of their speed), at least one warp's worth, within bucket_set_budget.
//   2, 3. common.cuh: each bucket's segment totals scanned across the segments in segment order, and each
//      element's prefix folded in on the left.
// Memory: segments · m partials; per block threads · (items + 1) · (4 + sizeof(T)) bytes of staging in
// shared memory, plus the shared sets. Each round's elements are staged before any of their results is
// written over the same positions, so out may be the values array itself.
// Traffic: labels and values read once, out written once; the global sets a read and a write of one
// bucket per element; the segments · m partials through steps 2 and 3 (step 3 also reads the labels and
// out again and writes out again for all but the first segment). Work O(n + segments · m). A segment is a
// chain of dependent bucket updates, so the speed comes from the number of segments, which m · sizeof(T)
// limits; the thesis found the non-commutative multireduce this builds on never competitive (§4.3.5:
// > 2.5 ns per pair past 4096 buckets) and did not discuss the multiscan's figures (Fig. B.1, B.2).
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/core/operators.hpp>
#include <sluice/core/scratch.hpp>
#include <sluice/detail/multireduce/common.cuh>
#include <sluice/detail/multireduce/sorted_tile.cuh>
#include <sluice/detail/multiscan/common.cuh>
#include <sluice/detail/multiscan/tuning.hpp>

#include <cuda/std/cstddef>
#include <cuda/std/cstdint>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace sluice::detail::multiscan {

/// A thread's bucket set: bucket k at base[k · stride].
template <class T>
struct bucket_set {
  T* base;
  cuda::std::size_t stride;
  SLUICE_HOST_DEVICE T& operator[](std::uint32_t k) const { return base[k * stride]; }
};

/// The sequential multiscan (§2) over one thread's staged slice of `count` elements: each staged value is
/// replaced by its bucket's value before it (exclusive) or after it (inclusive); an element whose bucket
/// is m (dropped) gets the identity and is counted. Returns the count.
template <class T, class Op>
SLUICE_HOST_DEVICE unsigned scan_slice(const std::uint32_t* ids, T* staged, int count, std::uint32_t m,
                                       bucket_set<T> set, bool inclusive, Op op) {
  unsigned dropped = 0;
  for (int j = 0; j < count; ++j) {
    const std::uint32_t k = ids[j];
    if (k >= m) {
      staged[j] = identity<Op, T>();
      ++dropped;
      continue;
    }
    const T before = set[k];
    const T after = op(before, staged[j]);
    set[k] = after;
    staged[j] = inclusive ? after : before;
  }
  return dropped;
}

/// Where a block's segments lie: segment s (global index) holds elements [s · length, (s + 1) · length).
struct segment_geometry {
  cuda::std::size_t length;    ///< a multiple of tuning::sequential_items
  cuda::std::size_t segments;  ///< ⌈n / length⌉

  /// Element j of the slice of the block's t-th segment in the round starting at `round`.
  __device__ cuda::std::size_t element(unsigned t, cuda::std::size_t round, int j) const {
    return (blockIdx.x * cuda::std::size_t{blockDim.x} + t) * length + round + j;
  }
};

/// The block's staging area in dynamic shared memory: bucket ids, then values, then (shared sets only)
/// the threads' bucket sets. Offsets stay multiples of 16 bytes.
template <class T>
struct sequential_storage {
  static constexpr std::size_t pitch = tuning::sequential_items + 1;  // per thread, padded (Alg. 4.7)
  static constexpr std::size_t round_up(std::size_t bytes) { return (bytes + 15) / 16 * 16; }
  static constexpr std::size_t ids_bytes(unsigned threads) { return round_up(threads * pitch * sizeof(std::uint32_t)); }
  static constexpr std::size_t values_bytes(unsigned threads) { return round_up(threads * pitch * sizeof(T)); }
  /// All of it, with sets of m buckets per thread in shared memory (m = 0: global sets).
  static constexpr std::size_t bytes(unsigned threads, std::uint32_t shared_m) {
    return ids_bytes(threads) + values_bytes(threads) + std::size_t{threads} * shared_m * sizeof(T);
  }

  std::uint32_t* ids;
  T* values;
  T* sets;

  __device__ static sequential_storage carve() {
    extern __shared__ __align__(16) unsigned char dynamic_shared[];
    const unsigned threads = blockDim.x;
    unsigned char* values = dynamic_shared + ids_bytes(threads);
    return {reinterpret_cast<std::uint32_t*>(dynamic_shared), reinterpret_cast<T*>(values),
            reinterpret_cast<T*>(values + values_bytes(threads))};
  }
};

/// One round in (Alg. 4.7): `items` elements of each of the block's segments, from `round` on, as bucket
/// ids and values; positions past n are left alone.
template <class L, class Values, class T>
__device__ void stage_round(const L* labels, Values values, cuda::std::size_t n, std::uint32_t m,
                            segment_geometry geometry, cuda::std::size_t round, sequential_storage<T> storage) {
  constexpr int items = tuning::sequential_items;
  for (unsigned i = threadIdx.x; i < blockDim.x * items; i += blockDim.x) {
    const unsigned t = i / items;
    const int j = static_cast<int>(i % items);
    const cuda::std::size_t g = geometry.element(t, round, j);
    if (g >= n) continue;
    storage.ids[t * storage.pitch + j] = multireduce::bucket_of(labels[g], m);
    storage.values[t * storage.pitch + j] = values[g];
  }
}

/// The round's results out, with stage_round's mapping.
template <class T, class O>
__device__ void write_round(O* out, cuda::std::size_t n, segment_geometry geometry, cuda::std::size_t round,
                            sequential_storage<T> storage) {
  constexpr int items = tuning::sequential_items;
  for (unsigned i = threadIdx.x; i < blockDim.x * items; i += blockDim.x) {
    const unsigned t = i / items;
    const int j = static_cast<int>(i % items);
    const cuda::std::size_t g = geometry.element(t, round, j);
    if (g < n) out[g] = static_cast<O>(storage.values[t * storage.pitch + j]);
  }
}

/// The shared sets to partials[k · segments + s], the block's segments contiguous per bucket (coalesced
/// writes; conflict-free reads: consecutive threads read consecutive sets of one bucket).
template <class T>
__device__ void copy_out_sets(const T* sets, std::uint32_t m, segment_geometry geometry, T* partials) {
  const unsigned threads = blockDim.x;
  const cuda::std::size_t first = blockIdx.x * cuda::std::size_t{threads};
  for (cuda::std::size_t i = threadIdx.x; i < cuda::std::size_t{m} * threads; i += threads) {
    const cuda::std::size_t s = first + i % threads;
    if (s < geometry.segments) partials[(i / threads) * geometry.segments + s] = sets[i];
  }
}

/// Step 1 (header comment). One thread per segment; SharedSets: the sets in shared memory, else the
/// partials themselves.
template <bool SharedSets, class L, class Values, class T, class O, class Op>
__global__ void sequential_multiscan_kernel(const L* __restrict__ labels, Values values, cuda::std::size_t n,
                                            std::uint32_t m, segment_geometry geometry, T* __restrict__ partials,
                                            scan_outputs<T, O> outputs, Op op, std::size_t* dropped) {
  constexpr int items = tuning::sequential_items;
  const auto storage = sequential_storage<T>::carve();
  const cuda::std::size_t segment = blockIdx.x * cuda::std::size_t{blockDim.x} + threadIdx.x;
  const bucket_set<T> set = SharedSets ? bucket_set<T>{storage.sets + threadIdx.x, blockDim.x}
                                       : bucket_set<T>{partials + segment, geometry.segments};
  if (segment < geometry.segments)
    for (std::uint32_t k = 0; k < m; ++k) set[k] = identity<Op, T>();
  unsigned long long mine_dropped = 0;
  for (cuda::std::size_t round = 0; round < geometry.length; round += items) {
    stage_round(labels, values, n, m, geometry, round, storage);
    __syncthreads();  // the slices are staged
    const cuda::std::size_t first = segment * geometry.length + round;
    const int count = first < n ? static_cast<int>(cuda::std::min<cuda::std::size_t>(items, n - first)) : 0;
    const unsigned slot = threadIdx.x * storage.pitch;
    mine_dropped += scan_slice(storage.ids + slot, storage.values + slot, count, m, set, outputs.inclusive, op);
    __syncthreads();  // the results are staged
    write_round(outputs.out, n, geometry, round, storage);
    __syncthreads();  // written out before the next round stages over them (and before the copy-out)
  }
  if constexpr (SharedSets) copy_out_sets(storage.sets, m, geometry, partials);
  multireduce::add_dropped(mine_dropped, dropped);
}

/// Threads per block that hold m buckets of T each in shared memory: 128, 64 or 32; 0 if not even 32 do.
template <class T>
constexpr unsigned sequential_shared_threads(std::uint32_t m) {
  for (unsigned threads = tuning::sequential_max_threads; threads >= 32; threads /= 2)
    if (std::size_t{threads} * m * sizeof(T) <= multireduce::tuning::accumulator_bytes) return threads;
  return 0;
}

/// Global sets: as many as fit the L2, at least a warp's worth, within the budget; at least one.
template <class T>
std::size_t global_sets_within(const context& ctx, std::uint32_t m) {
  const std::size_t set_bytes = std::size_t{m} * sizeof(T);
  const std::size_t in_l2 = std::max<std::size_t>(ctx.properties().l2_cache_bytes / set_bytes, 32);
  return std::max<std::size_t>(1, std::min(in_l2, bucket_set_budget(ctx) / set_bytes));
}

/// At most max_segments segments of at least min_segment_length elements, a multiple of items each.
inline segment_geometry plan_segments(std::size_t n, std::size_t max_segments) {
  constexpr std::size_t items = tuning::sequential_items;
  const std::size_t wanted = std::max(ceil_div(n, max_segments), tuning::sequential_min_segment_length);
  const std::size_t length = ceil_div(wanted, items) * items;
  return {length, ceil_div(n, length)};
}

template <bool SharedSets, class L, class Values, class T, class O, class Op>
void run_sequential_with(context& ctx, const L* labels, Values values, std::size_t n, std::uint32_t m, Op op,
                         scan_outputs<T, O> outputs, std::size_t* dropped, unsigned threads) {
  auto kernel = sequential_multiscan_kernel<SharedSets, L, Values, T, O, Op>;
  const std::size_t shared_bytes = sequential_storage<T>::bytes(threads, SharedSets ? m : 0);
  SLUICE_CUDA_CHECK(
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared_bytes)));
  const std::size_t wave = one_wave_grid(ctx, kernel, static_cast<int>(threads), ceil_div(n, threads), shared_bytes);
  const std::size_t sms = static_cast<std::size_t>(ctx.properties().sm_count);
  std::size_t max_segments = std::min(wave * threads, sms * tuning::sequential_segments_per_sm);
  if (!SharedSets) max_segments = std::min(max_segments, global_sets_within<T>(ctx, m));
  const segment_geometry geometry = plan_segments(n, max_segments);
  scratch<T> partials(ctx, geometry.segments * m);
  kernel<<<static_cast<unsigned>(ceil_div(geometry.segments, threads)), threads, shared_bytes, ctx.stream()>>>(
      labels, values, n, m, geometry, partials.get(), outputs, op, dropped);
  SLUICE_CHECK_LAUNCH();
  scan_and_fold_segments(ctx, labels, n, m, partials.get(), partial_layout::bucket_major(geometry.segments),
                         geometry.segments, geometry.length, outputs, op);
}

/// The strategy: sets in shared memory where a block of at least 32 threads holds them, else global.
template <class L, class Values, class T, class O, class Op>
void run_sequential(context& ctx, const L* labels, Values values, std::size_t n, std::uint32_t m, Op op,
                    scan_outputs<T, O> outputs, std::size_t* dropped) {
  if (const unsigned threads = sequential_shared_threads<T>(m))
    run_sequential_with<true>(ctx, labels, values, n, m, op, outputs, dropped, threads);
  else
    run_sequential_with<false>(ctx, labels, values, n, m, op, outputs, dropped, tuning::sequential_max_threads);
}

}  // namespace sluice::detail::multiscan
