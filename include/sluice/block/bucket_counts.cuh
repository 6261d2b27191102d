// sluice/block/bucket_counts.cuh: combining the per-warp bucket counts of a thread block (Ashkiani
// §3.5.5.3 block-level histogram, §3.5.5.4 block-level local offsets).
//
// Warp-level privatization: each warp counts its own items per bucket (warp/bucket.cuh) into its own
// column of a bucket-major matrix in shared memory, counts[b · Warps + w]. Because Warps is a power of
// two dividing 32, a 32-entry run of that matrix holds 32/Warps whole buckets, and the per-bucket
// combination is a segmented operation within shuffle segments of width Warps:
//   reduce_warp_counts: totals[b] = Σ_w counts[b·Warps + w]               (log2 Warps __shfl_xor)
//   scan_warp_counts:   counts[b·Warps + w] ← Σ_{w' < w} counts[b·Warps + w'] (log2 Warps __shfl_up),
//                       and totals[b] as above
// Each warp takes every Warps-th run of 32 entries, so m buckets cost ⌈m·Warps/32⌉/Warps shuffle rounds
// per warp (the seed's register-friendly replacement of a block scan for m > 32, §3.5.7).
//
// All threads of the block call these between barriers: the counts must be complete before (the
// caller's __syncthreads) and the results are visible to other warps only after the next one.
#pragma once

#include <sluice/warp/shuffle.cuh>

namespace sluice::block {

namespace detail {
/// Calls visit(value, entry) for this lane's entry of every run of 32 that this warp owns; values past
/// the m·Warps entries read as 0 so that the whole warp always shuffles together.
template <int Warps, class Visit>
__device__ __forceinline__ void for_each_count_run(const unsigned* counts, unsigned m, Visit visit) {
  static_assert(Warps >= 1 && Warps <= 32 && (Warps & (Warps - 1)) == 0, "a power-of-two number of warps");
  const unsigned entries = m * Warps;
  const unsigned warp = threadIdx.x / warp::size;
  for (unsigned run = warp; run * warp::size < entries; run += Warps) {
    const unsigned entry = run * warp::size + static_cast<unsigned>(warp::lane_id());
    visit(entry < entries ? counts[entry] : 0u, entry, entries);
  }
}
}  // namespace detail

/// totals[b] = Σ_w counts[b·Warps + w], b < m.
template <int Warps>
__device__ __forceinline__ void reduce_warp_counts(const unsigned* counts, unsigned m, unsigned* totals) {
  detail::for_each_count_run<Warps>(counts, m, [&](unsigned value, unsigned entry, unsigned entries) {
#pragma unroll
    for (int offset = 1; offset < Warps; offset *= 2) value += __shfl_xor_sync(warp::full_mask, value, offset, Warps);
    if (entry < entries && entry % Warps == 0) totals[entry / Warps] = value;
  });
}

/// counts[b·Warps + w] ← the count of bucket b in warps before w; totals[b] = the block's count of b.
template <int Warps>
__device__ __forceinline__ void scan_warp_counts(unsigned* counts, unsigned m, unsigned* totals) {
  detail::for_each_count_run<Warps>(counts, m, [&](unsigned value, unsigned entry, unsigned entries) {
    const unsigned in_segment = entry % Warps;
    unsigned inclusive = value;
#pragma unroll
    for (int offset = 1; offset < Warps; offset *= 2) {
      const unsigned before = __shfl_up_sync(warp::full_mask, inclusive, offset, Warps);
      if (in_segment >= static_cast<unsigned>(offset)) inclusive += before;
    }
    const unsigned total = __shfl_sync(warp::full_mask, inclusive, Warps - 1, Warps);
    if (entry < entries) {
      counts[entry] = inclusive - value;
      if (in_segment == 0) totals[entry / Warps] = total;
    }
  });
}

}  // namespace sluice::block
