// sluice/multisplit.cuh: stable multisplit of keys or key-value pairs into m buckets (Ashkiani ch. 3).
//
//   multisplit(keys, out_keys, m, bucket_of)                       keys of bucket 0, then bucket 1, …,
//   multisplit_pairs(keys, values, out_keys, out_values, m, bucket_of)   each bucket in input order
//
// bucket_of(key) is a __device__ (or __host__ __device__) functor returning an integer bucket id; it must
// be pure, since strategies call it more than once per key. A key whose id is ≥ m (or negative) is
// dropped and counted: out_keys receives the n − dropped kept keys at its front (entries past them are
// unspecified), *dropped (device memory, may be null) the count, and bucket_offsets (device, m + 1
// entries, or empty) the start of every bucket and n − dropped at the end: bucket j is
// out_keys[offsets[j], offsets[j+1]).
// With options.strict such a key throws sluice::invalid_argument naming the first offending index
// instead (the check synchronises the stream). Asynchronous on ctx.stream() otherwise.
//
// Errors (sluice::invalid_argument): m = 0 ("m"); out_keys, values or out_values of another size than
// keys; bucket_offsets neither empty nor m + 1 long; out_keys overlapping keys or out_values overlapping
// values (out of place; no other overlap is checked, and none is supported); host memory; an explicit
// strategy that cannot run this input ("options": scan_split with m > 2, onesweep with m > 511 or keys
// or values over 16 bytes, dms/wms/bms with key + value over 32 bytes). m = 1 is a stable compaction (a
// copy when nothing is dropped); n = 0 writes zero offsets and dropped = 0.
//
// Strategies (multisplit_algorithm; detail/multisplit/, one file each): DMS, WMS and BMS run the seed's
// prescan → scan → postscan with warp ballots (warp/bucket.cuh) and, for BMS, block-level segmented
// shuffles (block/bucket_counts.cuh); past 256 buckets they run as passes over base-255 digits of the
// id (digit_passes.cuh; any functor, no ordering required). RB-sort sorts (id, index) with CUB over
// ⌈log2(m + 1)⌉ bits and gathers; scan_split (m ≤ 2) is the single-pass stable 3-way partition;
// onesweep (m ≤ 511) is a histogram and one pass of the onesweep radix sort's kernel over bucket ids.
// automatic: detail/multisplit/plan.hpp, choose(), its thresholds in tuning.hpp (scan_split for keys
// alone of at most 4 bytes into 2 buckets, onesweep for 2 ≤ m ≤ 511 otherwise with keys and values of at
// most 16 bytes).
//
//   sluice::device_buffer<std::uint32_t> keys(ctx, host_keys), out(ctx, host_keys.size());
//   sluice::device_buffer<std::size_t> offsets(ctx, 9), dropped(ctx, 1);
//   sluice::multisplit(ctx, keys.span(), out.span(), 8, sluice::buckets::delta<std::uint32_t>{1u << 29},
//                      offsets.span(), dropped.data());
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/memory.hpp>
#include <sluice/core/span.hpp>
#include <sluice/detail/multisplit/dispatch.cuh>
#include <sluice/options/multisplit.hpp>

#include <cuda/std/span>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace sluice {

/// Stable multisplit of keys into m buckets by bucket_of; see the header comment for the contract.
template <class K, class BucketOf>
void multisplit(context& ctx, cuda::std::span<const std::type_identity_t<K>> keys, cuda::std::span<K> out_keys,
                std::uint32_t m, BucketOf bucket_of, cuda::std::span<std::size_t> bucket_offsets = {},
                std::size_t* dropped = nullptr, const multisplit_options& options = {}) {
  namespace ms = detail::multisplit;
  const char* function = "multisplit";
  ms::check_arguments<K, detail::no_values>(ctx, function, keys, {}, out_keys, {}, m, bucket_offsets, dropped);
  ms::run(ctx, function, ms::pass_io<K, detail::no_values>{keys.data(), nullptr, out_keys.data(), nullptr, keys.size()}, m,
          bucket_of, bucket_offsets, dropped, options);
}

/// Stable multisplit of key-value pairs: values[i] moves with keys[i].
template <class K, class V, class BucketOf>
void multisplit_pairs(context& ctx, cuda::std::span<const std::type_identity_t<K>> keys,
                      cuda::std::span<const std::type_identity_t<V>> values, cuda::std::span<K> out_keys,
                      cuda::std::span<V> out_values, std::uint32_t m, BucketOf bucket_of,
                      cuda::std::span<std::size_t> bucket_offsets = {}, std::size_t* dropped = nullptr,
                      const multisplit_options& options = {}) {
  namespace ms = detail::multisplit;
  const char* function = "multisplit_pairs";
  ms::check_arguments<K, V>(ctx, function, keys, values, out_keys, out_values, m, bucket_offsets, dropped);
  ms::run(ctx, function, ms::pass_io<K, V>{keys.data(), values.data(), out_keys.data(), out_values.data(), keys.size()},
          m, bucket_of, bucket_offsets, dropped, options);
}

}  // namespace sluice
