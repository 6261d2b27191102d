// sluice/multisplit.cuh: stable multisplit of keys or key-value pairs into m buckets (Ashkiani ch. 3).
//
//   multisplit(keys, out_keys, m, bucket_of)                       keys of bucket 0, then bucket 1, …,
//   multisplit_pairs(keys, values, out_keys, out_values, m, bucket_of)   each bucket in input order
//
// bucket_of(key) is a __device__ (or __host__ __device__) functor returning an integer bucket id; it must
// be pure, since strategies call it more than once per key. A key whose id is ≥ m (or negative) is
// dropped and counted: out_keys receives the n − dropped kept keys at its front (entries past them are
// unspecified), *dropped (device) the count, and bucket_offsets (device, m + 1 entries, or empty) the
// start of every bucket and n − dropped at the end: bucket j is out_keys[offsets[j], offsets[j+1]).
// With options.strict such a key throws sluice::invalid_argument naming the first offending index
// instead (the check synchronises the stream). Asynchronous on ctx.stream() otherwise.
//
// Errors (sluice::invalid_argument): m = 0 ("m"); out_keys, values or out_values of another size than
// keys; bucket_offsets neither empty nor m + 1 long; outputs overlapping inputs; host memory; an
// explicit strategy that cannot run this input ("options": scan_split with m > 2, onesweep with m > 511
// or keys or values over 16 bytes, dms/wms/bms with key + value over 32 bytes). m = 1 is a stable compaction (a copy when nothing is dropped); n = 0 writes
// zero offsets and dropped = 0.
//
// Strategies (multisplit_algorithm; detail/multisplit/, one file each): DMS, WMS and BMS run the seed's
// prescan → scan → postscan with warp ballots (warp/bucket.cuh) and, for BMS, block-level segmented
// shuffles (block/bucket_counts.cuh); past 256 buckets they run as passes over base-255 digits of the
// id (digit_passes.cuh; any functor, no ordering required). RB-sort sorts (id, index) with CUB over
// ⌈log2(m + 1)⌉ bits and gathers; scan_split (m ≤ 2) is the single-pass stable 3-way partition;
// onesweep (m ≤ 511) is a histogram and one pass of the onesweep radix sort's kernel over bucket ids.
// automatic: detail/multisplit/plan.hpp, choose() (onesweep for 2 ≤ m ≤ 511 with keys and values of at
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
#include <sluice/detail/multisplit/bms.cuh>
#include <sluice/detail/multisplit/digit_passes.cuh>
#include <sluice/detail/multisplit/dms.cuh>
#include <sluice/detail/multisplit/onesweep.cuh>
#include <sluice/detail/multisplit/plan.hpp>
#include <sluice/detail/multisplit/rb_sort.cuh>
#include <sluice/detail/multisplit/scan_split.cuh>
#include <sluice/detail/multisplit/wms.cuh>

#include <cuda/std/span>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace sluice {

/// Bucket identifiers of the seed's experiments (§3.6): trivially copyable, usable on host and device.
namespace buckets {

/// Equal-width buckets: id = key / delta (Ashkiani's delta-buckets).
template <class K>
struct delta {
  K delta;
  __host__ __device__ K operator()(const K& key) const { return key / delta; }
};

/// id = key (identity buckets: the multisplit is a sort by the key's low ⌈log2 m⌉ bits).
struct identity {
  template <class K>
  __host__ __device__ K operator()(const K& key) const {
    return key;
  }
};

/// id = (key >> first_bit) & (2^bits − 1) for unsigned keys: one digit of a radix sort (§3.7.1).
struct bit_field {
  int first_bit;
  int bits;
  template <class K>
  __host__ __device__ std::uint64_t operator()(const K& key) const {
    const std::uint64_t mask = bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
    return (static_cast<std::uint64_t>(key) >> first_bit) & mask;
  }
};

/// id = the number of splitters ≤ key (upper bound by binary search), for sorted splitters in device
/// memory: m = count + 1.
template <class K>
struct splitters {
  const K* splitters;
  std::uint32_t count;
  __host__ __device__ std::uint32_t operator()(const K& key) const {
    std::uint32_t low = 0, high = count;
    while (low < high) {
      const std::uint32_t middle = low + (high - low) / 2;
      if (splitters[middle] <= key) low = middle + 1;
      else high = middle;
    }
    return low;
  }
};

}  // namespace buckets

namespace detail::multisplit {

/// Whether every id bucket_of can return for a key of type K is below m by construction, so that no key
/// can be dropped: onesweep then ranks m digits instead of m + 1 (at m = 32 and 256, a width of 5 and 8
/// bits instead of 6 and 9). Only the library's own functors are trusted with it; any other is false.
template <class K, class BucketOf>
bool ids_always_below(const BucketOf&, std::uint64_t) {
  return false;
}
template <class K>
bool ids_always_below(const buckets::bit_field& f, std::uint64_t m) {
  return f.bits >= 0 && f.bits < 64 && (std::uint64_t{1} << f.bits) <= m;
}
template <class K>
bool ids_always_below(const buckets::identity&, std::uint64_t m) {
  if constexpr (std::is_unsigned_v<K> && sizeof(K) < 8) return (std::uint64_t{1} << (8 * sizeof(K))) <= m;
  else return false;
}
template <class K>
bool ids_always_below(const buckets::splitters<K>& f, std::uint64_t m) {
  return std::uint64_t{f.count} + 1 <= m;
}
template <class K>
bool ids_always_below(const buckets::delta<K>& f, std::uint64_t m) {
  if constexpr (std::is_unsigned_v<K>)
    return f.delta > 0 && static_cast<std::uint64_t>(std::numeric_limits<K>::max() / f.delta) < m;
  else return false;
}

template <class K, class V>
void check_arguments(const context& ctx, const char* function, cuda::std::span<const K> keys,
                     cuda::std::span<const V> values, cuda::std::span<K> out_keys, cuda::std::span<V> out_values,
                     std::uint32_t m, cuda::std::span<std::size_t> offsets, std::size_t* dropped) {
  require_device_memory(ctx, keys, function, "keys");
  require_device_memory(ctx, out_keys, function, "out_keys");
  require_device_memory(ctx, offsets, function, "bucket_offsets");
  if (dropped) require_device_memory(ctx, dropped, sizeof(std::size_t), function, "dropped");
  if (m == 0) throw invalid_argument(function, "m", "must be at least 1");
  if (out_keys.size() != keys.size()) throw invalid_argument(function, "out_keys", "must have one element per key");
  if (!offsets.empty() && offsets.size() != std::size_t{m} + 1)
    throw invalid_argument(function, "bucket_offsets", "must be empty or have m + 1 entries");
  if (detail::overlaps(keys, out_keys)) throw invalid_argument(function, "out_keys", "overlaps keys");
  if constexpr (has_values<V>) {
    require_device_memory(ctx, values, function, "values");
    require_device_memory(ctx, out_values, function, "out_values");
    if (values.size() != keys.size()) throw invalid_argument(function, "values", "must have one value per key");
    if (out_values.size() != keys.size())
      throw invalid_argument(function, "out_values", "must have one element per key");
    if (detail::overlaps(values, out_values))
      throw invalid_argument(function, "out_values", "overlaps values");
  }
}

/// The strategy for this call: options.algorithm, or automatic's choice; rejects what cannot run.
template <class K, class V>
multisplit_algorithm resolve(const char* function, std::uint32_t m, const multisplit_options& options) {
  const std::size_t value_bytes = has_values<V> ? sizeof(V) : 0;
  const multisplit_algorithm algorithm = options.algorithm == multisplit_algorithm::automatic
                                             ? choose(m, sizeof(K), value_bytes)
                                             : options.algorithm;
  if (algorithm == multisplit_algorithm::scan_split && m > 2)
    throw invalid_argument(function, "options", "scan_split handles m <= 2 buckets");
  if (algorithm == multisplit_algorithm::onesweep) {
    if (m > max_onesweep_buckets) throw invalid_argument(function, "options", "onesweep handles m <= 511 buckets");
    if (sizeof(K) > max_onesweep_key_bytes || value_bytes > max_onesweep_value_bytes)
      throw invalid_argument(function, "options", "onesweep stages keys and values of at most 16 bytes each");
  }
  const bool direct = algorithm == multisplit_algorithm::dms || algorithm == multisplit_algorithm::wms ||
                      algorithm == multisplit_algorithm::bms;
  if (direct && sizeof(K) + value_bytes > max_direct_element_bytes)
    throw invalid_argument(function, "options", "dms, wms and bms stage at most 32 bytes of key and value per element");
  return algorithm;
}

template <class K, class V, class BucketOf>
void run(context& ctx, const char* function, const pass_io<K, V>& io, std::uint32_t m, BucketOf bucket_of,
         cuda::std::span<std::size_t> bucket_offsets, std::size_t* dropped, const multisplit_options& options) {
  const multisplit_algorithm algorithm = resolve<K, V>(function, m, options);
  auto device = ctx.activate();
  std::size_t* offsets = bucket_offsets.empty() ? nullptr : bucket_offsets.data();
  if (io.n == 0) {
    if (offsets) SLUICE_CUDA_CHECK(cudaMemsetAsync(offsets, 0, bucket_offsets.size_bytes(), ctx.stream()));
    if (dropped) SLUICE_CUDA_CHECK(cudaMemsetAsync(dropped, 0, sizeof(std::size_t), ctx.stream()));
    return;
  }
  if (options.strict) require_valid_ids(ctx, function, io.keys_in, io.n, bucket_of, m);
  constexpr bool direct_fits = sizeof(K) + (has_values<V> ? sizeof(V) : 0) <= max_direct_element_bytes;
  constexpr bool onesweep_fits =
      sizeof(K) <= max_onesweep_key_bytes && (has_values<V> ? sizeof(V) : 0) <= max_onesweep_value_bytes;
  switch (algorithm) {
    case multisplit_algorithm::scan_split: run_scan_split(ctx, io, bucket_of, m, offsets, dropped); return;
    case multisplit_algorithm::rb_sort: run_rb_sort(ctx, io, bucket_of, m, offsets, dropped); return;
    case multisplit_algorithm::dms:
      if constexpr (direct_fits) run_digit_passes<dms>(ctx, io, bucket_of, m, offsets, dropped);
      return;
    case multisplit_algorithm::wms:
      if constexpr (direct_fits) run_digit_passes<wms>(ctx, io, bucket_of, m, offsets, dropped);
      return;
    case multisplit_algorithm::bms:
      if constexpr (direct_fits) run_digit_passes<bms>(ctx, io, bucket_of, m, offsets, dropped);
      return;
    case multisplit_algorithm::onesweep:
      if constexpr (onesweep_fits)
        run_onesweep(ctx, io, bucket_of, m, !ids_always_below<K>(bucket_of, m), offsets, dropped);
      return;
    case multisplit_algorithm::automatic: break;  // resolved above
  }
}

}  // namespace detail::multisplit

/// Stable multisplit of keys into m buckets by bucket_of; see the header comment for the contract.
template <class K, class BucketOf>
void multisplit(context& ctx, cuda::std::span<const std::type_identity_t<K>> keys, cuda::std::span<K> out_keys,
                std::uint32_t m, BucketOf bucket_of, cuda::std::span<std::size_t> bucket_offsets = {},
                std::size_t* dropped = nullptr, const multisplit_options& options = {}) {
  namespace ms = detail::multisplit;
  const char* function = "multisplit";
  ms::check_arguments<K, ms::no_values>(ctx, function, keys, {}, out_keys, {}, m, bucket_offsets, dropped);
  ms::run(ctx, function, ms::pass_io<K, ms::no_values>{keys.data(), nullptr, out_keys.data(), nullptr, keys.size()}, m,
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
