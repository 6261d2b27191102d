// sluice/detail/multiscan/common.cuh: what the multiscan strategies share: where the results go (the
// element outputs, converted to the output type, and the optional bucket totals), the value source of
// multitag (the exclusive multiscan of ones, Eilers §1.2), and the last two steps of the partitioning
// scheme (Alg. 5.2), with which every strategy that scans segments locally finishes:
//   2. each bucket's segment totals scanned exclusively across the segments IN SEGMENT ORDER, one thread
//      per bucket (the thesis used CUDPP's "multiscan", which is many independent scans); the last
//      running value is the bucket's total;
//   3. every element after the first segment gets its (segment, bucket) prefix folded in ON THE LEFT:
//      prefix ⊕ result, the order a non-commutative operator needs.
// The segment totals lie segment-major (block_sort_segmented, sheffler: a block's m buckets together)
// or bucket-major (sequential: a bucket's segments together, Alg. 4.8's layout); partial_layout says
// which. Traffic: step 2 reads and writes the segments · m partials once; step 3 reads the labels and
// out of every element past the first segment, one partial each, and writes out again.
#pragma once

#include <sluice/core/config.hpp>
#include <sluice/core/context.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/core/operators.hpp>
#include <sluice/core/scratch.hpp>
#include <sluice/detail/multireduce/common.cuh>
#include <sluice/detail/multiscan/tuning.hpp>

#include <cuda/std/cstddef>
#include <cuda/std/cstdint>

#include <cstddef>
#include <cstdint>

namespace sluice::detail::multiscan {

/// Where a multiscan writes: out[i] (as O: multitag scans 64-bit counts into 32-bit ranks), and, unless
/// totals is null, totals[k] = the bucket's whole reduction (which holds the identity beforehand).
template <class T, class O>
struct scan_outputs {
  O* out;
  T* totals;
  bool inclusive;
};

/// The values of multitag: 1 everywhere, without memory.
template <class T>
struct ones {
  SLUICE_HOST_DEVICE constexpr T operator[](cuda::std::size_t) const { return T{1}; }
};

/// Where the partial of (segment s, bucket k) lies: s · segment_stride + k · bucket_stride.
struct partial_layout {
  cuda::std::size_t segment_stride;
  cuda::std::size_t bucket_stride;

  SLUICE_HOST_DEVICE constexpr cuda::std::size_t operator()(cuda::std::size_t segment, std::uint32_t k) const {
    return segment * segment_stride + k * bucket_stride;
  }
  /// A segment's m buckets together.
  static constexpr partial_layout segment_major(std::uint32_t m) { return {m, 1}; }
  /// A bucket's segments together.
  static constexpr partial_layout bucket_major(std::size_t segments) { return {1, segments}; }
};

/// Step 2 on one bucket's `count` ≤ tuning::partial_batch segments from `first`: each slot becomes the
/// running prefix before it. The batch's loads are in flight at once instead of one latency per segment
/// (the stores in between keep the compiler from overlapping them itself); the order of the ⊕ is the same.
template <int Count, class T, class Op>
__device__ __forceinline__ void scan_partial_batch(T* partials, partial_layout layout, cuda::std::size_t first,
                                                   std::uint32_t k, T& prefix, Op op) {
  T batch[Count];
#pragma unroll
  for (int j = 0; j < Count; ++j) batch[j] = partials[layout(first + j, k)];
#pragma unroll
  for (int j = 0; j < Count; ++j) {
    partials[layout(first + j, k)] = prefix;
    prefix = op(prefix, batch[j]);
  }
}

/// Step 2: partials[(s, k)] ← the ⊕ of bucket k over segments 0 … s − 1 (the identity for segment 0);
/// totals[k] (unless null) ← its ⊕ over all segments.
template <class T, class Op>
__global__ void scan_segment_partials_kernel(T* partials, partial_layout layout, std::size_t segments, std::uint32_t m,
                                             T* totals, Op op) {
  for (cuda::std::size_t k = blockIdx.x * cuda::std::size_t{blockDim.x} + threadIdx.x; k < m;
       k += cuda::std::size_t{gridDim.x} * blockDim.x) {
    const auto bucket = static_cast<std::uint32_t>(k);
    T prefix = identity<Op, T>();
    std::size_t s = 0;
    constexpr int batch = tuning::partial_batch;
    for (; s + batch <= segments; s += batch) scan_partial_batch<batch>(partials, layout, s, bucket, prefix, op);
    for (; s < segments; ++s) scan_partial_batch<1>(partials, layout, s, bucket, prefix, op);
    if (totals) totals[k] = prefix;
  }
}

/// Step 3: out[i] = prefix of (i's segment, i's bucket) ⊕ out[i], for the elements after the first segment.
template <class L, class T, class O, class Op>
__global__ void fold_segment_prefixes_kernel(const L* __restrict__ labels, cuda::std::size_t n, std::uint32_t m,
                                             cuda::std::size_t segment_elements, partial_layout layout,
                                             const T* __restrict__ prefixes, O* out, Op op) {
  for (cuda::std::size_t i = segment_elements + blockIdx.x * cuda::std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += cuda::std::size_t{gridDim.x} * blockDim.x) {
    const std::uint32_t k = multireduce::bucket_of(labels[i], m);
    if (k < m) out[i] = static_cast<O>(op(prefixes[layout(i / segment_elements, k)], static_cast<T>(out[i])));
  }
}

/// Steps 2 and 3 for `segments` segments of segment_elements consecutive elements (the last may be
/// shorter) whose local multiscan is in outputs.out and whose bucket totals are in partials (left
/// holding the prefixes); writes outputs.totals unless it is null.
template <class L, class T, class O, class Op>
void scan_and_fold_segments(context& ctx, const L* labels, std::size_t n, std::uint32_t m, T* partials,
                            partial_layout layout, std::size_t segments, std::size_t segment_elements,
                            scan_outputs<T, O> outputs, Op op) {
  auto scan_partials = scan_segment_partials_kernel<T, Op>;
  scan_partials<<<streaming_grid(ctx, scan_partials, m), 256, 0, ctx.stream()>>>(partials, layout, segments, m,
                                                                                       outputs.totals, op);
  SLUICE_CHECK_LAUNCH();
  if (segments <= 1) return;  // the first segment's prefixes are the identity
  auto fold = fold_segment_prefixes_kernel<L, T, O, Op>;
  fold<<<streaming_grid(ctx, fold, n - segment_elements), 256, 0, ctx.stream()>>>(
      labels, n, m, segment_elements, layout, partials, outputs.out, op);
  SLUICE_CHECK_LAUNCH();
}

/// Global scratch that the sequential and sheffler strategies may take for their per-segment or per-block
/// bucket sets (they size their parallelism by it): an eighth of the device's memory (tuning.hpp).
inline std::size_t bucket_set_budget(const context& ctx) {
  return ctx.properties().global_memory_bytes / tuning::bucket_set_memory_divisor;
}

}  // namespace sluice::detail::multiscan
