// sluice/detail/multisplit/rb_sort.cuh: reduced-bit sort (Ashkiani §3.3, §3.6.1): label every key with
// its bucket id, sort (label, index) pairs by cub::DeviceRadixSort over the ⌈log2(m + 1)⌉ bits a label
// can have, then gather keys and values through the sorted indices. The radix sort is stable, so the
// result is the stable multisplit; a key with an invalid id gets label m and sorts behind every bucket,
// where the gather skips it. Works for any m, any functor and any element size (the seed's choice for
// items over 32 bits: sort indices, then permute).
//
// Traffic: keys read once (labels) and once through the gather (scattered reads), values once through
// the gather, outputs written once, plus the sort of 8-byte (label, index) pairs (12 with 64-bit
// indices): ⌈bits/8⌉ onesweep passes each reading and writing them.
#pragma once

#include <sluice/detail/multisplit/common.cuh>

#include <cub/device/device_radix_sort.cuh>

namespace sluice::detail::multisplit {

template <class K, class Ids, class Index>
__global__ void label_kernel(const K* keys, std::size_t n, Ids ids, std::uint32_t m, std::uint32_t* labels,
                             Index* indices) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const std::uint32_t id = ids(keys[i]);
    labels[i] = id < m ? id : m;
    indices[i] = static_cast<Index>(i);
  }
}

/// out[i] = in[indices[i]] for the kept places (label < m); dropped places stay unwritten.
template <class K, class V, class Index>
__global__ void gather_kernel(pass_io<K, V> io, const std::uint32_t* labels, const Index* indices, std::uint32_t m) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < io.n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    if (labels[i] >= m) return;  // labels are sorted: the rest of this thread's places are dropped too
    const Index from = indices[i];
    io.keys_out[i] = io.keys_in[from];
    if constexpr (has_values<V>) io.values_out[i] = io.values_in[from];
  }
}

/// Label i of the sorted labels, for bucket_starts_kernel.
struct sorted_label {
  const std::uint32_t* labels;
  __device__ std::uint32_t operator()(std::size_t i) const { return labels[i]; }
};

template <class Index, class K, class V, class BucketOf>
void rb_sort_with(context& ctx, const pass_io<K, V>& io, BucketOf bucket_of, std::uint32_t m, std::size_t* offsets,
                  std::size_t* dropped) {
  constexpr int threads = tuning::helper_threads;
  const std::size_t n = io.n;
  scratch<std::uint32_t> labels(ctx, n), sorted_labels(ctx, n);
  scratch<Index> indices(ctx, n), sorted_indices(ctx, n);
  auto label = label_kernel<K, pass_ids<BucketOf>, Index>;
  label<<<static_cast<unsigned>(one_wave_grid(ctx, label, threads, ceil_div(n, threads))), threads, 0, ctx.stream()>>>(
      io.keys_in, n, whole_ids(bucket_of, m), m, labels.get(), indices.get());
  SLUICE_CHECK_LAUNCH();

  const int bits = id_bits(std::uint64_t{m} + 1);
  std::size_t bytes = 0;
  SLUICE_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, labels.get(), sorted_labels.get(), indices.get(),
                                                    sorted_indices.get(), n, 0, bits, ctx.stream()));
  scratch<unsigned char> temp(ctx, bytes);
  SLUICE_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.get(), bytes, labels.get(), sorted_labels.get(), indices.get(),
                                                    sorted_indices.get(), n, 0, bits, ctx.stream()));

  auto gather = gather_kernel<K, V, Index>;
  gather<<<static_cast<unsigned>(one_wave_grid(ctx, gather, threads, ceil_div(n, threads))), threads, 0,
           ctx.stream()>>>(io, sorted_labels.get(), sorted_indices.get(), m);
  SLUICE_CHECK_LAUNCH();

  if (!offsets && !dropped) return;
  // offsets[m] (or a scratch word when no offsets are asked for) is the number kept.
  scratch<std::size_t> kept_word(ctx, offsets ? 0 : 1);
  std::size_t* kept = offsets ? offsets + m : kept_word.get();
  write_bucket_starts(ctx, sorted_label{sorted_labels.get()}, n, m, offsets ? 0 : m, offsets ? offsets : kept);
  if (dropped) {
    dropped_from_kept_kernel<std::size_t><<<1, 1, 0, ctx.stream()>>>(kept, n, dropped);
    SLUICE_CHECK_LAUNCH();
  }
}

template <class K, class V, class BucketOf>
void run_rb_sort(context& ctx, const pass_io<K, V>& io, BucketOf bucket_of, std::uint32_t m, std::size_t* offsets,
                 std::size_t* dropped) {
  if (io.n <= (std::size_t{1} << 32)) rb_sort_with<std::uint32_t>(ctx, io, bucket_of, m, offsets, dropped);
  else rb_sort_with<std::uint64_t>(ctx, io, bucket_of, m, offsets, dropped);
}

}  // namespace sluice::detail::multisplit
