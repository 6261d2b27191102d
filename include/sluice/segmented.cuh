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
// reduce_by_key, *_scan_by_key are the oracles). Asynchronous on the context's stream.
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
#include <sluice/detail/segmented/flat.cuh>
#include <sluice/detail/segmented/merge_path.cuh>
#include <sluice/scan.cuh>

#include <cuda/std/span>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <type_traits>

namespace sluice {

enum class segmented_algorithm {
  automatic,   ///< merge_path for segmented_reduce by offsets, flat for everything else
  flat,        ///< one single-pass scan over (head count, value) pairs
  merge_path,  ///< segmented_reduce by offsets: ends merged with elements, equal work per tile
};

struct segmented_options {
  segmented_algorithm algorithm = segmented_algorithm::automatic;
  /// Offsets: check on the device that they are non-decreasing and ≤ n, and throw
  /// sluice::invalid_argument with the first bad index (synchronises). Unchecked bad offsets give
  /// unspecified results but never an access out of bounds.
  bool validate_offsets = false;
};

namespace detail::segmented {

/// Runs the flat scan over n elements with the head-count type that cannot overflow for n:
/// `make_heads(shape)` gives the head source for the tile shape, `output` receives the scanned pairs.
template <bool Exclusive, class T, class Op, class MakeHeads, class Output>
void run_flat(context& ctx, std::size_t n, const T* values, T init, MakeHeads make_heads, Output output, Op op) {
  auto run = [&](auto count) {
    using C = decltype(count);
    using pair = counted<C, T>;
    // Shaped by the value, not the pair: the single pass runs at a roughly fixed rate of tiles, so
    // 24 items of u32 (3072 per tile) beat the pair's 12 (docs/perf-notes.md).
    using shape = scan::single_pass_shape<T>;
    using heads_t = decltype(make_heads(shape{}));
    const segmented_program<shape, C, T, heads_t, Output, Exclusive> program{make_heads(shape{}), values, init, n,
                                                                              output};
    scan::run_decoupled_look_back<scan::scan_kind::inclusive, false>(ctx, program, n, pair{}, counted_op<Op>{op});
  };
  if (n < (std::size_t{1} << 32)) run(cuda::std::uint32_t{});
  else run(cuda::std::uint64_t{});
}

/// Head sources for a tile shape, as run_flat asks for them.
inline auto heads_from_flags(const std::uint8_t* flags) {
  return [flags](auto shape) { return flag_heads<decltype(shape)>{flags}; };
}
inline auto heads_from_offsets(const std::uint8_t* marked, cuda::std::span<const std::size_t> offsets) {
  return [marked, offsets](auto shape) {
    using S = decltype(shape);
    return offset_heads<S>{flag_heads<S>{marked}, offsets.data(), offsets.size() - 1};
  };
}
template <class K, class Eq>
auto heads_from_keys(const K* keys, Eq eq) {
  return [keys, eq](auto shape) { return key_heads<decltype(shape), K, Eq>{keys, eq}; };
}

inline void check_sizes(const char* function, const char* parameter, std::size_t got, std::size_t expected) {
  if (got != expected)
    throw invalid_argument(function, parameter,
                           "has " + std::to_string(got) + " elements; " + std::to_string(expected) + " expected");
}

template <class Offset>
__global__ void find_bad_offset_kernel(const Offset* offsets, std::size_t count, std::size_t n,
                                       unsigned long long* first_bad) {
  for (std::size_t s = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; s < count;
       s += std::size_t{gridDim.x} * blockDim.x)
    if (offsets[s] > n || (s > 0 && offsets[s] < offsets[s - 1])) atomicMin(first_bad, static_cast<unsigned long long>(s));
}

/// Throws invalid_argument at the first offset that is above n or below its predecessor.
inline void validate_offsets(context& ctx, const char* function, cuda::std::span<const std::size_t> offsets,
                             std::size_t n) {
  scan::scratch<unsigned long long> first_bad(ctx, 1);
  SLUICE_CUDA_CHECK(cudaMemsetAsync(first_bad.get(), 0xFF, sizeof(unsigned long long), ctx.stream()));
  find_bad_offset_kernel<<<scan::streaming_grid(ctx, find_bad_offset_kernel<std::size_t>, offsets.size()), 256, 0, ctx.stream()>>>(
      offsets.data(), offsets.size(), n, first_bad.get());
  SLUICE_CHECK_LAUNCH();
  unsigned long long bad = 0;
  SLUICE_CUDA_CHECK(cudaMemcpyAsync(&bad, first_bad.get(), sizeof bad, cudaMemcpyDeviceToHost, ctx.stream()));
  ctx.synchronize();
  if (bad != ~0ull) throw invalid_argument(function, "offsets", "is not non-decreasing with entries ≤ n", bad);
}

/// Head flags for the runs that offsets define (scratch memory, n bytes).
class offset_flags {
 public:
  offset_flags(context& ctx, cuda::std::span<const std::size_t> offsets, std::size_t n) : flags_(ctx, n) {
    SLUICE_CUDA_CHECK(cudaMemsetAsync(flags_.get(), 0, n, ctx.stream()));
    mark_offsets_kernel<<<scan::streaming_grid(ctx, mark_offsets_kernel<std::size_t>, offsets.size()), 256, 0, ctx.stream()>>>(
        offsets.data(), offsets.size(), flags_.get(), n);
    SLUICE_CHECK_LAUNCH();
  }
  [[nodiscard]] const std::uint8_t* get() const { return flags_.get(); }

 private:
  scan::scratch<cuda::std::uint8_t> flags_;
};

/// segmented_reduce by offsets by the merge path (merge_path.cuh): partition, reduce the tiles, scan the
/// tiles' carries in a fixed order (Brent–Kung, in place), fix each tile's first segment. The grid is
/// sized for every element in a segment (offsets[0] and offsets[S] stay on the device); tiles past the
/// merged list's end do nothing. Run-to-run deterministic, floats included (merge_path.cuh).
template <class T, class Op>
void run_merge_path_reduce(context& ctx, const T* values, std::size_t n, cuda::std::span<const std::size_t> offsets,
                           T* out, T init, Op op) {
  namespace mp = merge_path;
  using shape = mp::default_shape<T>;
  using carry = mp::carry<T>;
  const std::size_t segments = offsets.size() - 1;
  const std::size_t tiles = ceil_div(n + segments, shape::tile);
  if (tiles > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw invalid_argument("segmented_reduce", "values", "has more tiles than one grid can hold");
  scan::scratch<std::size_t> splits(ctx, tiles + 1);
  scan::scratch<carry> carries(ctx, tiles);
  scan::scratch<mp::first_segment_fix> fixes(ctx, tiles);
  mp::partition_kernel<shape::tile><<<static_cast<unsigned>(ceil_div(tiles + 1, 256)), 256, 0, ctx.stream()>>>(
      offsets.data(), segments, n, tiles, splits.get());
  SLUICE_CHECK_LAUNCH();
  mp::reduce_tiles_kernel<shape><<<static_cast<unsigned>(tiles), shape::threads, 0, ctx.stream()>>>(
      values, n, offsets.data(), segments, splits.get(), out, init, op, carries.get(), fixes.get());
  SLUICE_CHECK_LAUNCH();
  if (tiles == 1) return;
  // Not the look-back scan: its grouping of a long segment's tile sums depends on timing.
  scan::brent_kung_inclusive(ctx, static_cast<const carry*>(carries.get()), carries.get(), tiles,
                             mp::carry_op<Op>{op});
  mp::fix_kernel<<<scan::streaming_grid(ctx, mp::fix_kernel<T, Op>, tiles), 256, 0, ctx.stream()>>>(
      carries.get(), fixes.get(), tiles, out, op);
  SLUICE_CHECK_LAUNCH();
}

/// merge_path reduces by offsets only; anything else is the flat scan.
inline void require_flat(const char* function, const segmented_options& options) {
  if (options.algorithm == segmented_algorithm::merge_path)
    throw invalid_argument(function, "options.algorithm", "merge_path applies to segmented_reduce by offsets only");
}

/// Common checks of the offsets forms; returns false when there is nothing to do.
template <class T>
bool prepare_offsets(context& ctx, const char* function, cuda::std::span<const T> values,
                     cuda::std::span<const std::size_t> offsets, const segmented_options& options) {
  require_device_memory(ctx, values, function, "values");
  if (offsets.empty()) throw invalid_argument(function, "offsets", "must have segments + 1 entries (at least one)");
  require_device_memory(ctx, offsets, function, "offsets");
  if (options.validate_offsets) validate_offsets(ctx, function, offsets, values.size());
  return true;
}

}  // namespace detail::segmented

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
  seg::run_flat<false>(ctx, values.size(), values.data(), T{}, seg::heads_from_flags(flags.data()),
                       seg::values_output<T>{out.data()}, op);
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
  seg::fill_empty_segments_kernel<<<detail::scan::streaming_grid(ctx, seg::fill_empty_segments_kernel<T>, segments),
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
  seg::run_flat<false>(ctx, keys.size(), values.data(), V{}, seg::heads_from_keys(keys.data(), eq),
                       seg::values_output<V>{out.data()}, op);
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
