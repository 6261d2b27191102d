// sluice/detail/segmented/dispatch.cuh: the segmented family's plans: the flat scan over (head count,
// value) pairs with its head sources and outputs, the merge-path reduction, and the checks the entry
// points share. The run functions take no argument checks: other families call them directly.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/core/memory.hpp>
#include <sluice/core/scratch.hpp>
#include <sluice/core/span.hpp>
#include <sluice/detail/scan/dispatch.cuh>
#include <sluice/detail/segmented/flat.cuh>
#include <sluice/detail/segmented/merge_path.cuh>
#include <sluice/detail/segmented/tuning.hpp>
#include <sluice/options/segmented.hpp>

#include <cuda/std/span>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

namespace sluice::detail::segmented {

/// Runs the flat scan over n elements with the head-count type that cannot overflow for n:
/// `make_heads(shape)` gives the head source for the tile shape, `output` receives the scanned pairs.
template <bool Exclusive, class T, class Op, class MakeHeads, class Output>
void run_flat(context& ctx, std::size_t n, const T* values, T init, MakeHeads make_heads, Output output, Op op) {
  auto run = [&](auto count) {
    using C = decltype(count);
    using pair = counted<C, T>;
    using shape = tuning::flat_tile<T>;  // shaped by the value, not the pair (tuning.hpp)
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

/// Inclusive scan of values[0, n) within the segments that head flags mark.
template <class T, class Op>
void inclusive_scan_by_flags(context& ctx, const T* values, const std::uint8_t* flags, T* out, std::size_t n, Op op) {
  if (n == 0) return;
  run_flat<false>(ctx, n, values, T{}, heads_from_flags(flags), values_output<T>{out}, op);
}

/// Inclusive scan of values[0, n) within the runs of keys equal under eq.
template <class K, class V, class Op, class Eq>
void inclusive_scan_by_key(context& ctx, const K* keys, const V* values, V* out, std::size_t n, Op op, Eq eq) {
  if (n == 0) return;
  run_flat<false>(ctx, n, values, V{}, heads_from_keys(keys, eq), values_output<V>{out}, op);
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
  scratch<unsigned long long> first_bad(ctx, 1);
  SLUICE_CUDA_CHECK(cudaMemsetAsync(first_bad.get(), 0xFF, sizeof(unsigned long long), ctx.stream()));
  find_bad_offset_kernel<<<streaming_grid(ctx, find_bad_offset_kernel<std::size_t>, offsets.size()), 256, 0, ctx.stream()>>>(
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
    mark_offsets_kernel<<<streaming_grid(ctx, mark_offsets_kernel<std::size_t>, offsets.size()), 256, 0, ctx.stream()>>>(
        offsets.data(), offsets.size(), flags_.get(), n);
    SLUICE_CHECK_LAUNCH();
  }
  [[nodiscard]] const std::uint8_t* get() const { return flags_.get(); }

 private:
  scratch<cuda::std::uint8_t> flags_;
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
  scratch<std::size_t> splits(ctx, tiles + 1);
  scratch<carry> carries(ctx, tiles);
  scratch<mp::first_segment_fix> fixes(ctx, tiles);
  constexpr int threads = tuning::partition_threads;
  mp::partition_kernel<shape::tile><<<static_cast<unsigned>(ceil_div(tiles + 1, threads)), threads, 0, ctx.stream()>>>(
      offsets.data(), segments, n, tiles, splits.get());
  SLUICE_CHECK_LAUNCH();
  mp::reduce_tiles_kernel<shape><<<static_cast<unsigned>(tiles), shape::threads, 0, ctx.stream()>>>(
      values, n, offsets.data(), segments, splits.get(), out, init, op, carries.get(), fixes.get());
  SLUICE_CHECK_LAUNCH();
  if (tiles == 1) return;
  // Not the look-back scan: its grouping of a long segment's tile sums depends on timing.
  scan::brent_kung_inclusive(ctx, static_cast<const carry*>(carries.get()), carries.get(), tiles,
                             mp::carry_op<Op>{op});
  mp::fix_kernel<<<streaming_grid(ctx, mp::fix_kernel<T, Op>, tiles), 256, 0, ctx.stream()>>>(
      carries.get(), fixes.get(), tiles, out, op);
  SLUICE_CHECK_LAUNCH();
}

/// merge_path reduces by offsets only; anything else is the flat scan.
inline void require_flat(const char* function, const segmented_options& options) {
  require_known_algorithm(function, options.algorithm, "segmented_algorithm");
  if (options.algorithm == segmented_algorithm::merge_path)
    throw invalid_argument(function, "options.algorithm", "merge_path applies to segmented_reduce by offsets only");
}

/// Common checks of the offsets forms; returns false when there is nothing to do.
template <class T>
bool prepare_offsets(context& ctx, const char* function, cuda::std::span<const T> values,
                     cuda::std::span<const std::size_t> offsets, const segmented_options& options) {
  require_known_algorithm(function, options.algorithm, "segmented_algorithm");
  require_device_memory(ctx, values, function, "values");
  if (offsets.empty()) throw invalid_argument(function, "offsets", "must have segments + 1 entries (at least one)");
  require_device_memory(ctx, offsets, function, "offsets");
  if (options.validate_offsets) validate_offsets(ctx, function, offsets, values.size());
  return true;
}

}  // namespace sluice::detail::segmented
