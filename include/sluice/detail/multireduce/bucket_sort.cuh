// sluice/detail/multireduce/bucket_sort.cuh: the global stable sort by bucket that the no-partitioning
// sort-based strategies share (Eilers §4.5a for multireduce, §5.5 for multiscan).
//
// Every label becomes its bucket id (bucket_of: m for a dropped label, so dropped elements sort last and
// form one run that no strategy writes), counted into *dropped on the way; then one stable radix sort of
// (bucket id, payload) over the ⌈log2(m + 1)⌉ bits that the ids use, so the number of onesweep passes
// follows m as the thesis's SRTS with "minimal bits" did (Fig 4.18: steps at each digit). Stability keeps
// equal buckets in index order, which is all a non-commutative operator needs.
// Traffic: labels read once, ids written once, then the sort's passes over (id, payload).
//
// Run lengths (add_run_lengths): in sorted ids every bucket is one contiguous run, so its length comes
// from its two ends alone: the first element subtracts its index, the last adds its index + 1, integer
// atomics that are exact in any order (at most two per run: m + 2 boundaries). The offsets of
// fold_sorted_buckets (multireduce's sorted finish) and the counts of the histogram's sort_based
// strategy are these lengths.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/core/scratch.hpp>
#include <sluice/detail/multireduce/common.cuh>
#include <sluice/detail/radix_sort/dispatch.cuh>

#include <cuda/std/cstddef>
#include <cuda/std/cstdint>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace sluice::detail::multireduce {

/// buckets[i] = bucket_of(labels[i], m), and indices[i] = i unless indices is null; the number of dropped
/// labels is added to *dropped (may be null).
template <class L, class I>
__global__ void bucket_ids_kernel(const L* __restrict__ labels, cuda::std::size_t n, std::uint32_t m,
                                  std::uint32_t* __restrict__ buckets, I* __restrict__ indices, std::size_t* dropped) {
  unsigned long long mine = 0;
  for (cuda::std::size_t i = blockIdx.x * cuda::std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += cuda::std::size_t{gridDim.x} * blockDim.x) {
    const std::uint32_t bucket = bucket_of(labels[i], m);
    mine += bucket == m;
    buckets[i] = bucket;
    if (indices) indices[i] = static_cast<I>(i);
  }
  add_dropped(mine, dropped);  // every thread of the block reaches it: whole warps
}

/// The bits a bucket id in [0, m] occupies (the dropped bucket m included).
inline int bucket_bits(std::uint32_t m) { return std::bit_width(m); }

/// Writes the bucket ids of n labels to `buckets` (and i to indices[i] unless it is null).
template <class L, class I>
void write_bucket_ids(context& ctx, const L* labels, std::size_t n, std::uint32_t m, std::size_t* dropped,
                      std::uint32_t* buckets, I* indices) {
  auto kernel = bucket_ids_kernel<L, I>;
  kernel<<<streaming_grid(ctx, kernel, n), 256, 0, ctx.stream()>>>(labels, n, m, buckets, indices, dropped);
  SLUICE_CHECK_LAUNCH();
}

/// Stable sort of (bucket id, payload) pairs by the ids' bucket_bits(m) bits.
template <class P>
void sort_pairs_by_bucket(context& ctx, const std::uint32_t* buckets, const P* payload, std::size_t n, std::uint32_t m,
                          std::uint32_t* sorted_buckets, P* sorted_payload) {
  radix_sort::sort_arrays(ctx, buckets, payload, sorted_buckets, sorted_payload, n, {.end_bit = bucket_bits(m)});
}

/// Sort of n bucket ids alone (no payload: the histogram counts only their runs).
inline void sort_buckets(context& ctx, const std::uint32_t* buckets, std::size_t n, std::uint32_t m,
                         std::uint32_t* sorted_buckets) {
  radix_sort::sort_arrays(ctx, buckets, static_cast<const no_values*>(nullptr), sorted_buckets,
                          static_cast<no_values*>(nullptr), n, {.end_bit = bucket_bits(m)});
}

/// counts[k] += the length of bucket k's run in the sorted ids, for k < m (header comment), modulo the
/// width of the unsigned counter word C (4 or 8 bytes); ids ≥ m are skipped.
template <class C>
__global__ void bucket_run_lengths_kernel(const std::uint32_t* __restrict__ sorted_buckets, std::size_t n,
                                          std::uint32_t m, C* counts) {
  for (cuda::std::size_t i = blockIdx.x * cuda::std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += cuda::std::size_t{gridDim.x} * blockDim.x) {
    const std::uint32_t k = sorted_buckets[i];
    if (k >= m) continue;
    if (i == 0 || sorted_buckets[i - 1] != k) atomicAdd(counts + k, C{0} - static_cast<C>(i));
    if (i + 1 == n || sorted_buckets[i + 1] != k) atomicAdd(counts + k, static_cast<C>(i + 1));
  }
}

/// Adds each bucket's run length in n sorted ids to counts[bucket] (unsigned or unsigned long long).
template <class C>
void add_run_lengths(context& ctx, const std::uint32_t* sorted_buckets, std::size_t n, std::uint32_t m, C* counts) {
  static_assert(std::is_same_v<C, unsigned> || std::is_same_v<C, unsigned long long>);
  auto kernel = bucket_run_lengths_kernel<C>;
  kernel<<<streaming_grid(ctx, kernel, n), 256, 0, ctx.stream()>>>(sorted_buckets, n, m, counts);
  SLUICE_CHECK_LAUNCH();
}

/// Bucket ids of n labels, stably sorted together with a payload: `sorted_buckets` and `sorted_payload`
/// (n entries each, from the caller) receive (bucket_of(labels[i]), payload[i]) in bucket order, equal
/// buckets in index order.
template <class L, class P>
void sort_by_bucket(context& ctx, const L* labels, const P* payload, std::size_t n, std::uint32_t m,
                    std::size_t* dropped, std::uint32_t* sorted_buckets, P* sorted_payload) {
  scratch<std::uint32_t> buckets(ctx, n);
  write_bucket_ids(ctx, labels, n, m, dropped, buckets.get(), static_cast<std::uint32_t*>(nullptr));
  sort_pairs_by_bucket(ctx, buckets.get(), payload, n, m, sorted_buckets, sorted_payload);
}

/// The same with the indices 0 … n − 1 (of type I) as the payload: where each sorted element came from.
template <class L, class I>
void sort_indices_by_bucket(context& ctx, const L* labels, std::size_t n, std::uint32_t m, std::size_t* dropped,
                            std::uint32_t* sorted_buckets, I* sorted_indices) {
  scratch<std::uint32_t> buckets(ctx, n);
  scratch<I> indices(ctx, n);
  write_bucket_ids(ctx, labels, n, m, dropped, buckets.get(), indices.get());
  sort_pairs_by_bucket(ctx, buckets.get(), indices.get(), n, m, sorted_buckets, sorted_indices);
}

}  // namespace sluice::detail::multireduce
