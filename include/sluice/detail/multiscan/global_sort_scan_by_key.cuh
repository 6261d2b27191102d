// sluice/detail/multiscan/global_sort_scan_by_key.cuh: multiscan by a global stable sort by bucket, a
// scan by key and a scatter back (Eilers §5.5, Alg. 5.3, "no partitioning": SRTS + Thrust
// scan_by_key). Order-preserving for any associative operator; any m.
//
// Steps: (bucket id, index) pairs stably sorted by id (multireduce/bucket_sort.cuh; the thesis's
// (index, value) pairs, with the value fetched after the sort instead of moved through every pass);
// the values gathered in sorted order; inclusive_scan_by_key over the sorted ids (segmented.cuh); each
// result scattered back to its element's index. Exclusive results are the predecessor's inclusive one
// within the run (the identity at a run's head), so one scan serves both forms; a run's last inclusive
// result is its bucket's total. Dropped elements (id m) get the identity.
// Memory: 2n ids, 2n indices, n gathered and n scanned values: O(n), never n·m. The values are all read
// (gathered) before any output is written, so out may be the values array itself.
// Traffic: labels read once, the sort's passes over (id, index), a random gather of the values, the
// scan, a random scatter of the results.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/core/scratch.hpp>
#include <sluice/detail/multireduce/bucket_sort.cuh>
#include <sluice/detail/multiscan/common.cuh>
#include <sluice/detail/segmented/dispatch.cuh>

#include <cuda/std/cstddef>
#include <cuda/std/cstdint>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>

namespace sluice::detail::multiscan {

/// gathered[i] = values[indices[i]].
template <class I, class Values, class T>
__global__ void gather_kernel(const I* __restrict__ indices, Values values, cuda::std::size_t n, T* __restrict__ gathered) {
  for (cuda::std::size_t i = blockIdx.x * cuda::std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += cuda::std::size_t{gridDim.x} * blockDim.x)
    gathered[i] = values[indices[i]];
}

/// out[indices[i]] = the inclusive or exclusive result of sorted element i (the identity for a dropped
/// one); totals[k] = the inclusive result at the end of bucket k's run.
template <class I, class T, class O, class Op>
__global__ void scatter_back_kernel(const std::uint32_t* __restrict__ buckets, const I* __restrict__ indices,
                                    const T* __restrict__ scanned, cuda::std::size_t n, std::uint32_t m,
                                    scan_outputs<T, O> outputs) {
  for (cuda::std::size_t i = blockIdx.x * cuda::std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += cuda::std::size_t{gridDim.x} * blockDim.x) {
    const std::uint32_t k = buckets[i];
    const bool head = i == 0 || buckets[i - 1] != k;
    T result = identity<Op, T>();
    if (k < m && (outputs.inclusive || !head)) result = scanned[outputs.inclusive ? i : i - 1];
    outputs.out[indices[i]] = static_cast<O>(result);
    if (outputs.totals && k < m && (i + 1 == n || buckets[i + 1] != k)) outputs.totals[k] = scanned[i];
  }
}

template <class I, class L, class Values, class T, class O, class Op>
void scan_sorted_by_bucket(context& ctx, const L* labels, Values values, std::size_t n, std::uint32_t m, Op op,
                           scan_outputs<T, O> outputs, std::size_t* dropped) {
  scratch<std::uint32_t> buckets(ctx, n);
  scratch<I> indices(ctx, n);
  multireduce::sort_indices_by_bucket(ctx, labels, n, m, dropped, buckets.get(), indices.get());
  scratch<T> gathered(ctx, n), scanned(ctx, n);
  gather_kernel<<<streaming_grid(ctx, gather_kernel<I, Values, T>, n), 256, 0, ctx.stream()>>>(
      indices.get(), values, n, gathered.get());
  SLUICE_CHECK_LAUNCH();
  segmented::inclusive_scan_by_key(ctx, static_cast<const std::uint32_t*>(buckets.get()),
                                   static_cast<const T*>(gathered.get()), scanned.get(), n, op, std::equal_to<>{});
  auto scatter = scatter_back_kernel<I, T, O, Op>;
  scatter<<<streaming_grid(ctx, scatter, n), 256, 0, ctx.stream()>>>(buckets.get(), indices.get(),
                                                                           scanned.get(), n, m, outputs);
  SLUICE_CHECK_LAUNCH();
}

/// The strategy, with 32-bit indices while n allows (half the sort's payload traffic).
template <class L, class Values, class T, class O, class Op>
void run_global_sort_scan_by_key(context& ctx, const L* labels, Values values, std::size_t n, std::uint32_t m, Op op,
                                 scan_outputs<T, O> outputs, std::size_t* dropped) {
  if (n <= std::numeric_limits<std::uint32_t>::max())
    scan_sorted_by_bucket<std::uint32_t>(ctx, labels, values, n, m, op, outputs, dropped);
  else
    scan_sorted_by_bucket<std::uint64_t>(ctx, labels, values, n, m, op, outputs, dropped);
}

}  // namespace sluice::detail::multiscan
