// sluice/segmented.cuh: segmented scans and reductions (segments given by head flags or by offsets) and
// their by-key forms (segments are runs of equal keys).
//
//   head flags: flags[i] != 0 marks the first element of a segment; element 0 always starts one.
//   offsets:    segment s is [offsets[s], offsets[s+1]); offsets has segments + 1 non-decreasing
//               entries ≤ n; empty segments are allowed; elements outside [offsets.front(),
//               offsets.back()) belong to no segment (scans copy them through, reductions ignore them).
//   by key:     a segment is a maximal run of consecutive keys equal under `eq`.
//
//   segmented_inclusive_scan: out[i] = head ⊕ … ⊕ values[i]           (within i's segment)
//   segmented_exclusive_scan: out[i] = init ⊕ head ⊕ … ⊕ values[i−1]  (init at every head)
//   segmented_reduce:         out[s] = init ⊕ (segment s)              (init for an empty segment)
//   reduce_by_key:            the first key of each run and the ⊕ of its values (no init), and the
//                             number of runs
//
// Operands combine in index order: non-commutative operators are exact (sluice::reference::segmented_*,
// reduce_by_key, *_scan_by_key are the oracles). Asynchronous on the context's stream. The exclusive
// scans throw invalid_argument (parameter "out") when out.data() == values.data(), since each output
// reads the previous value; no other aliasing is checked. The counts of segmented_reduce by flags
// (segment_count) and reduce_by_key (run_count) may be null.
//
//   sluice::segmented_reduce(ctx, values.span(), offsets.span(), sums.span(), 0.0f, sluice::plus{});
//
// Strategies:
//   flat:       one single-pass scan over (head count, value) pairs: the cost per element is the same
//               for one huge segment as for millions of tiny ones (detail/segmented/flat.cuh). Offsets
//               first become head flags (n bytes written and read back). The default for scans and for
//               flags and keys.
//   merge_path: segmented_reduce by offsets only: the segment ends merged with the elements, equal
//               work per tile, no flags and no look-back chain (detail/segmented/merge_path.cuh). The
//               default there, and deterministic: every combination happens in an order fixed by the
//               sizes, so float sums have the same bits on every run (the flat strategy's look-back
//               groups a segment that spans tiles by timing: its float results may differ in rounding
//               between runs, as may every scan and by-key form here).
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/core/memory.hpp>
#include <sluice/core/span.hpp>
#include <sluice/detail/segmented/dispatch.cuh>
#include <sluice/options/segmented.hpp>

#include <cuda/std/span>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <type_traits>

namespace sluice {

// ---- head flags --------------------------------------------------------------------------------------------

template <class In, std::size_t E1, class T, std::size_t E2, class Op>
  requires std::same_as<std::remove_const_t<In>, T>
void segmented_inclusive_scan(context& ctx, cuda::std::span<In, E1> values, cuda::std::span<const std::uint8_t> flags,
                              cuda::std::span<T, E2> out, Op op, const segmented_options& options = {}) {
  namespace seg = detail::segmented;
  const char* function = "segmented_inclusive_scan";
  seg::require_flat(function, options);
  require_device_memory(ctx, detail::as_const_span(values), function, "values");
  require_device_memory(ctx, flags, function, "flags");
  require_device_memory(ctx, out, function, "out");
  seg::check_sizes(function, "flags", flags.size(), values.size());
  seg::check_sizes(function, "out", out.size(), values.size());
  if (values.empty()) return;
  auto device = ctx.activate();
  seg::inclusive_scan_by_flags(ctx, values.data(), flags.data(), out.data(), values.size(), op);
}

template <class In, std::size_t E1, class T, std::size_t E2, class Op>
  requires std::same_as<std::remove_const_t<In>, T>
void segmented_exclusive_scan(context& ctx, cuda::std::span<In, E1> values, cuda::std::span<const std::uint8_t> flags,
                              cuda::std::span<T, E2> out, T init, Op op, const segmented_options& options = {}) {
  namespace seg = detail::segmented;
  const char* function = "segmented_exclusive_scan";
  seg::require_flat(function, options);
  require_device_memory(ctx, detail::as_const_span(values), function, "values");
  require_device_memory(ctx, flags, function, "flags");
  require_device_memory(ctx, out, function, "out");
  seg::check_sizes(function, "flags", flags.size(), values.size());
  seg::check_sizes(function, "out", out.size(), values.size());
  if (values.data() == out.data() && !values.empty())
    throw invalid_argument(function, "out", "may not alias values (each output reads the previous value)");
  if (values.empty()) return;
  auto device = ctx.activate();
  seg::run_flat<true>(ctx, values.size(), values.data(), init, seg::heads_from_flags(flags.data()),
                      seg::values_output<T>{out.data()}, op);
}

/// out[k] = init ⊕ (segment k); writes the number of segments to *segment_count (device memory; may be
/// null). Segments beyond out.size() are counted but not written.
template <class In, std::size_t E1, class T, std::size_t E2, class Op>
  requires std::same_as<std::remove_const_t<In>, T>
void segmented_reduce(context& ctx, cuda::std::span<In, E1> values, cuda::std::span<const std::uint8_t> flags,
                      cuda::std::span<T, E2> out, T init, Op op, std::size_t* segment_count = nullptr,
                      const segmented_options& options = {}) {
  namespace seg = detail::segmented;
  const char* function = "segmented_reduce";
  seg::require_flat(function, options);
  require_device_memory(ctx, detail::as_const_span(values), function, "values");
  require_device_memory(ctx, flags, function, "flags");
  require_device_memory(ctx, out, function, "out");
  if (segment_count) require_device_memory(ctx, segment_count, sizeof(std::size_t), function, "segment_count");
  seg::check_sizes(function, "flags", flags.size(), values.size());
  auto device = ctx.activate();
  if (values.empty()) {
    if (segment_count) SLUICE_CUDA_CHECK(cudaMemsetAsync(segment_count, 0, sizeof(std::size_t), ctx.stream()));
    return;
  }
  seg::segment_ends_output<T, Op> ends{out.data(), out.size(), init, true, op};
  ends.segment_count = segment_count;
  seg::run_flat<false>(ctx, values.size(), values.data(), T{}, seg::heads_from_flags(flags.data()), ends, op);
}

// ---- offsets -----------------------------------------------------------------------------------------------

template <class In, std::size_t E1, class T, std::size_t E2, class Op>
  requires std::same_as<std::remove_const_t<In>, T>
void segmented_inclusive_scan(context& ctx, cuda::std::span<In, E1> values, cuda::std::span<const std::size_t> offsets,
                              cuda::std::span<T, E2> out, Op op, const segmented_options& options = {}) {
  namespace seg = detail::segmented;
  const char* function = "segmented_inclusive_scan";
  seg::require_flat(function, options);
  seg::prepare_offsets(ctx, function, detail::as_const_span(values), offsets, options);
  require_device_memory(ctx, out, function, "out");
  seg::check_sizes(function, "out", out.size(), values.size());
  if (values.empty()) return;
  auto device = ctx.activate();
  const seg::offset_flags flags(ctx, offsets, values.size());
  seg::run_flat<false>(ctx, values.size(), values.data(), T{}, seg::heads_from_offsets(flags.get(), offsets),
                       seg::values_output<T>{out.data()}, op);
}

template <class In, std::size_t E1, class T, std::size_t E2, class Op>
  requires std::same_as<std::remove_const_t<In>, T>
void segmented_exclusive_scan(context& ctx, cuda::std::span<In, E1> values, cuda::std::span<const std::size_t> offsets,
                              cuda::std::span<T, E2> out, T init, Op op, const segmented_options& options = {}) {
  namespace seg = detail::segmented;
  const char* function = "segmented_exclusive_scan";
  seg::require_flat(function, options);
  seg::prepare_offsets(ctx, function, detail::as_const_span(values), offsets, options);
  require_device_memory(ctx, out, function, "out");
  seg::check_sizes(function, "out", out.size(), values.size());
  if (values.data() == out.data() && !values.empty())
    throw invalid_argument(function, "out", "may not alias values (each output reads the previous value)");
  if (values.empty()) return;
  auto device = ctx.activate();
  const seg::offset_flags flags(ctx, offsets, values.size());
  seg::run_flat<true>(ctx, values.size(), values.data(), init, seg::heads_from_offsets(flags.get(), offsets),
                      seg::values_output<T>{out.data()}, op);
}

/// out[s] = init ⊕ values[offsets[s]] ⊕ … ⊕ values[offsets[s+1] − 1]; out has one entry per segment.
/// With the merge_path strategy (automatic) the result does not depend on scheduling: the grouping of
/// the ⊕ is fixed by n, the offsets and the device-independent tile shape, so float sums are
/// bit-identical across runs (multireduce's order-preserving strategies rely on it).
template <class In, std::size_t E1, class T, std::size_t E2, class Op>
  requires std::same_as<std::remove_const_t<In>, T>
void segmented_reduce(context& ctx, cuda::std::span<In, E1> values, cuda::std::span<const std::size_t> offsets,
                      cuda::std::span<T, E2> out, T init, Op op, const segmented_options& options = {}) {
  namespace seg = detail::segmented;
  const char* function = "segmented_reduce";
  seg::prepare_offsets(ctx, function, detail::as_const_span(values), offsets, options);
  require_device_memory(ctx, out, function, "out");
  const std::size_t segments = offsets.size() - 1;
  seg::check_sizes(function, "out", out.size(), segments);
  if (segments == 0) return;
  auto device = ctx.activate();
  if (options.algorithm != segmented_algorithm::flat) {
    seg::run_merge_path_reduce(ctx, values.data(), values.size(), offsets, out.data(), init, op);
    return;
  }
  seg::fill_empty_segments_kernel<<<detail::streaming_grid(ctx, seg::fill_empty_segments_kernel<T>, segments),
                                            256, 0, ctx.stream()>>>(offsets.data(), segments, out.data(), init);
  SLUICE_CHECK_LAUNCH();
  if (values.empty()) return;
  const seg::offset_flags flags(ctx, offsets, values.size());
  const seg::segment_ends_output<T, Op, seg::segment_by_offsets> ends{
      out.data(), segments, init, true, op, {offsets.data(), segments}};
  // The runs are the marked offsets alone (elements outside every segment form one run at each end, which
  // locates to no segment): segment_by_offsets counts on it.
  seg::run_flat<false>(ctx, values.size(), values.data(), T{}, seg::heads_from_flags(flags.get()), ends, op);
}

// ---- by key ------------------------------------------------------------------------------------------------

/// For each run of equal keys: unique_keys[r] = the run's first key, aggregates[r] = ⊕ of its values;
/// *run_count (device memory, may be null) = number of runs. Runs beyond the outputs' size are counted
/// but not written.
template <class KIn, std::size_t E1, class VIn, std::size_t E2, class K, std::size_t E3, class V, std::size_t E4,
          class Op, class Eq = std::equal_to<>>
  requires std::same_as<std::remove_const_t<KIn>, K> && std::same_as<std::remove_const_t<VIn>, V>
void reduce_by_key(context& ctx, cuda::std::span<KIn, E1> keys, cuda::std::span<VIn, E2> values,
                   cuda::std::span<K, E3> unique_keys, cuda::std::span<V, E4> aggregates, std::size_t* run_count, Op op,
                   Eq eq = {}) {
  namespace seg = detail::segmented;
  const char* function = "reduce_by_key";
  require_device_memory(ctx, detail::as_const_span(keys), function, "keys");
  require_device_memory(ctx, detail::as_const_span(values), function, "values");
  require_device_memory(ctx, unique_keys, function, "unique_keys");
  require_device_memory(ctx, aggregates, function, "aggregates");
  if (run_count) require_device_memory(ctx, run_count, sizeof(std::size_t), function, "run_count");
  seg::check_sizes(function, "values", values.size(), keys.size());
  seg::check_sizes(function, "unique_keys", unique_keys.size(), aggregates.size());
  auto device = ctx.activate();
  if (keys.empty()) {
    if (run_count) SLUICE_CUDA_CHECK(cudaMemsetAsync(run_count, 0, sizeof(std::size_t), ctx.stream()));
    return;
  }
  const seg::segment_ends_output<V, Op, seg::segment_by_count, K> ends{
      aggregates.data(), aggregates.size(), V{}, false, op, {}, unique_keys.data(), run_count};
  seg::run_flat<false>(ctx, keys.size(), values.data(), V{}, seg::heads_from_keys(keys.data(), eq), ends, op);
}

template <class KIn, std::size_t E1, class VIn, std::size_t E2, class V, std::size_t E3, class Op,
          class Eq = std::equal_to<>>
  requires std::same_as<std::remove_const_t<VIn>, V>
void inclusive_scan_by_key(context& ctx, cuda::std::span<KIn, E1> keys, cuda::std::span<VIn, E2> values,
                           cuda::std::span<V, E3> out, Op op, Eq eq = {}) {
  namespace seg = detail::segmented;
  const char* function = "inclusive_scan_by_key";
  require_device_memory(ctx, detail::as_const_span(keys), function, "keys");
  require_device_memory(ctx, detail::as_const_span(values), function, "values");
  require_device_memory(ctx, out, function, "out");
  seg::check_sizes(function, "values", values.size(), keys.size());
  seg::check_sizes(function, "out", out.size(), keys.size());
  if (keys.empty()) return;
  auto device = ctx.activate();
  seg::inclusive_scan_by_key(ctx, keys.data(), values.data(), out.data(), keys.size(), op, eq);
}

template <class KIn, std::size_t E1, class VIn, std::size_t E2, class V, std::size_t E3, class Op,
          class Eq = std::equal_to<>>
  requires std::same_as<std::remove_const_t<VIn>, V>
void exclusive_scan_by_key(context& ctx, cuda::std::span<KIn, E1> keys, cuda::std::span<VIn, E2> values,
                           cuda::std::span<V, E3> out, V init, Op op, Eq eq = {}) {
  namespace seg = detail::segmented;
  const char* function = "exclusive_scan_by_key";
  require_device_memory(ctx, detail::as_const_span(keys), function, "keys");
  require_device_memory(ctx, detail::as_const_span(values), function, "values");
  require_device_memory(ctx, out, function, "out");
  seg::check_sizes(function, "values", values.size(), keys.size());
  seg::check_sizes(function, "out", out.size(), keys.size());
  if (values.data() == out.data() && !values.empty())
    throw invalid_argument(function, "out", "may not alias values (each output reads the previous value)");
  if (keys.empty()) return;
  auto device = ctx.activate();
  seg::run_flat<true>(ctx, keys.size(), values.data(), init, seg::heads_from_keys(keys.data(), eq),
                      seg::values_output<V>{out.data()}, op);
}

}  // namespace sluice
