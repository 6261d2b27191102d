// sluice/detail/multisplit/scan_split.cuh: the scan-based split for m ≤ 2 (Ashkiani §3.3, Table 3.3;
// Palik §6.2), on sluice's single-pass stable partition (detail/select): bucket 0, bucket 1 and the
// dropped keys are the three groups of stable_partition_3way, whose counts give the offsets. One
// counting pass and one single-pass scan whose tiles scatter each group as a contiguous run.
//
// Pairs travel as one (key, value) struct, since the partition moves one array: a zip pass before and an
// unzip pass after (each reading and writing n·(key + value) bytes more than keys-only; the seed's
// split scanned flags and moved keys and values separately). The dropped keys are written behind the
// kept ones (the contract leaves out_keys[n − dropped, n) unspecified).
//
// Traffic (keys only): keys read twice (count, partition), written once.
#pragma once

#include <sluice/detail/multisplit/common.cuh>
#include <sluice/detail/select/dispatch.cuh>
#include <sluice/options/select.hpp>

namespace sluice::detail::multisplit {

template <class K, class V>
struct zipped {
  K key;
  V value;
};

/// The group of a key (or a zipped pair's key): bucket 0 first, bucket 1 second, dropped last.
template <class BucketOf>
struct split_group {
  pass_ids<BucketOf> ids;
  template <class K>
  __device__ group3 operator()(const K& key) const {
    const std::uint32_t id = ids(key);
    return id == 0 ? group3::first : id == 1 ? group3::second : group3::third;
  }
  template <class K, class V>
  __device__ group3 operator()(const zipped<K, V>& pair) const {
    return (*this)(pair.key);
  }
};

/// offsets = {0, first, first + second} (m + 1 of them), dropped = n − first − second.
/// A template for the reason finish_counts_kernel (common.cuh) is.
template <class Size>
__global__ void split_counts_kernel(const Size* counts, std::uint32_t m, Size n, Size* offsets, Size* dropped) {
  const std::size_t kept = m == 1 ? counts[0] : counts[0] + counts[1];
  if (offsets) {
    offsets[0] = 0;
    offsets[1] = counts[0];
    if (m == 2) offsets[2] = kept;
  }
  if (dropped) *dropped = n - kept;
}

template <class K, class V>
__global__ void zip_kernel(pass_io<K, V> io, zipped<K, V>* pairs) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < io.n;
       i += std::size_t{gridDim.x} * blockDim.x)
    pairs[i] = {io.keys_in[i], io.values_in[i]};
}

template <class K, class V>
__global__ void unzip_kernel(const zipped<K, V>* pairs, pass_io<K, V> io) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < io.n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    io.keys_out[i] = pairs[i].key;
    io.values_out[i] = pairs[i].value;
  }
}

template <class Kernel, class... Args>
void stream_launch(context& ctx, Kernel kernel, std::size_t n, Args... args) {
  constexpr int threads = tuning::helper_threads;
  kernel<<<static_cast<unsigned>(one_wave_grid(ctx, kernel, threads, ceil_div(n, threads))), threads, 0,
           ctx.stream()>>>(args...);
  SLUICE_CHECK_LAUNCH();
}

template <class K, class V, class BucketOf>
void run_scan_split(context& ctx, const pass_io<K, V>& io, BucketOf bucket_of, std::uint32_t m, std::size_t* offsets,
                    std::size_t* dropped) {
  const std::size_t n = io.n;
  const split_group<BucketOf> group{whole_ids(bucket_of, m)};
  scratch<std::size_t> counts(ctx, 2);
  if constexpr (has_values<V>) {
    scratch<zipped<K, V>> in(ctx, n), out(ctx, n);
    stream_launch(ctx, zip_kernel<K, V>, n, io, in.get());
    select::partition_3way(ctx, static_cast<const zipped<K, V>*>(in.get()), out.get(), n, counts.get(), group);
    stream_launch(ctx, unzip_kernel<K, V>, n, static_cast<const zipped<K, V>*>(out.get()), io);
  } else {
    select::partition_3way(ctx, io.keys_in, io.keys_out, n, counts.get(), group);
  }
  split_counts_kernel<std::size_t><<<1, 1, 0, ctx.stream()>>>(counts.get(), m, n, offsets, dropped);
  SLUICE_CHECK_LAUNCH();
}

}  // namespace sluice::detail::multisplit
