// sluice/detail/multireduce/common.cuh: what every multireduce and multiscan strategy shares: argument
// checks, the label → bucket mapping with its drop rule, strict mode and the identity fill.
//
// A label is an index into the buckets, so the range test, the strict-mode search and the dropped
// counter are scatter's (detail/scatter/chunks.cuh, scatter.cuh): one definition of "outside [0, m)".
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/device_buffer.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/core/memory.hpp>
#include <sluice/core/operators.hpp>
#include <sluice/core/span.hpp>
#include <sluice/detail/multireduce/tuning.hpp>
#include <sluice/detail/scatter/chunks.cuh>
#include <sluice/detail/scatter/scatter.cuh>

#include <cuda/std/cstddef>
#include <cuda/std/cstdint>
#include <cuda/std/span>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

namespace sluice::detail::multireduce {

/// The bucket of a label: the label itself when 0 ≤ label < m, else m (the "dropped" bucket).
template <class L>
SLUICE_HOST_DEVICE constexpr std::uint32_t bucket_of(L label, std::uint32_t m) {
  return scatter::in_range(label, m) ? static_cast<std::uint32_t>(label) : m;
}

/// Adds each warp's count of dropped labels to *dropped with one atomic (dropped may be null).
__device__ __forceinline__ void add_dropped(unsigned long long mine, std::size_t* dropped) {
  static_assert(sizeof(std::size_t) == sizeof(unsigned long long));
  scatter::add_warp_total(mine, reinterpret_cast<unsigned long long*>(dropped));
}

template <class L, class V, class T>
void check_arguments(const context& ctx, const char* function, cuda::std::span<const L> labels,
                     cuda::std::span<const V> values, cuda::std::span<T> out, std::size_t* dropped) {
  require_device_memory(ctx, labels, function, "labels");
  require_device_memory(ctx, values, function, "values");
  require_device_memory(ctx, out, function, "out");
  if (dropped) require_device_memory(ctx, dropped, sizeof(std::size_t), function, "dropped");
  if (out.empty()) throw invalid_argument(function, "out", "must have at least one bucket (m = out.size() = 0)");
  if (out.size() > std::numeric_limits<std::uint32_t>::max() - 1)
    throw invalid_argument(function, "out", "has " + std::to_string(out.size()) + " buckets: at most 2^32 − 2");
  if (values.size() != labels.size())
    throw invalid_argument(function, "values",
                           "has " + std::to_string(values.size()) + " elements but labels has " +
                               std::to_string(labels.size()));
  if (overlaps(out, labels)) throw invalid_argument(function, "out", "overlaps labels");
  if (overlaps(out, values)) throw invalid_argument(function, "out", "overlaps values");
}

/// Strict mode: throws invalid_argument("labels") with the first position whose label is outside
/// [0, m). Reads the labels once and synchronises the stream.
template <class L>
void require_valid_labels(context& ctx, const char* function, const L* labels, std::size_t n, std::uint32_t m) {
  if (n == 0) return;
  device_buffer<unsigned long long> first(ctx, 1);
  first.fill_bytes(0xFF);
  auto kernel = scatter::find_first_invalid_kernel<L>;
  const std::size_t grid = one_wave_grid(ctx, kernel, scatter::block_threads, ceil_div(n, scatter::block_threads));
  kernel<<<static_cast<unsigned>(grid), scatter::block_threads, 0, ctx.stream()>>>(labels, n, m, first.data());
  SLUICE_CHECK_LAUNCH();
  const unsigned long long position = first.to_host()[0];
  if (position != ~0ull)
    throw invalid_argument(function, "labels",
                           "has a label outside [0, " + std::to_string(m) + ") (strict mode)",
                           static_cast<std::size_t>(position));
}

template <class T, class Op>
__global__ void fill_identity_kernel(T* out, std::size_t m) {
  for (std::size_t k = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; k < m;
       k += std::size_t{gridDim.x} * blockDim.x)
    out[k] = sluice::identity<Op, T>();
}

/// out[0, m) = the identity of Op on T (m may exceed 2^32: global_atomic_sets fills sets · m slots).
template <class Op, class T>
void fill_identity(context& ctx, T* out, std::size_t m) {
  constexpr int threads = tuning::fill_threads;
  auto kernel = fill_identity_kernel<T, Op>;
  const std::size_t grid = one_wave_grid(ctx, kernel, threads, ceil_div(m, threads));
  kernel<<<static_cast<unsigned>(grid), threads, 0, ctx.stream()>>>(out, m);
  SLUICE_CHECK_LAUNCH();
}

}  // namespace sluice::detail::multireduce
