// sluice/detail/multisplit/dispatch.cuh: multisplit's dispatch: the argument checks once, the strategy
// (the automatic choice or the caller's, checked against what it can run), then its passes; radix_sort's
// and histogram's strategies call run() directly.
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
#include <sluice/options/multisplit.hpp>

#include <cuda/std/span>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace sluice::detail::multisplit {

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
    require_values_per_key(ctx, function, keys.size(), values, out_values);
    if (detail::overlaps(values, out_values))
      throw invalid_argument(function, "out_values", "overlaps values");
  }
}

/// The strategy for this call: options.algorithm, or automatic's choice; rejects what cannot run.
template <class K, class V>
multisplit_algorithm resolve(const char* function, std::uint32_t m, const multisplit_options& options) {
  require_known_algorithm(function, options.algorithm, "multisplit_algorithm");
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

}  // namespace sluice::detail::multisplit
