// sluice/data/merge_conflicts.cuh: fills device memory with the conflict-heavy input of
// sluice/data/merge_conflicts.hpp; element i equals generate_merge_conflicts_host's. One pass,
// n·sizeof(T) written.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/core/memory.hpp>
#include <sluice/data/merge_conflicts.hpp>

#include <cuda/std/span>

#include <cstdint>

namespace sluice::data {

namespace detail {
template <class T>
__global__ void merge_conflicts_kernel(T* out, std::uint64_t n, std::uint64_t size, merge_conflict_shape shape) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::uint64_t{gridDim.x} * blockDim.x)
    out[i] = merge_conflict_element<T>(i, size, shape);
}
}  // namespace detail

template <class T>
void generate_merge_conflicts(context& ctx, cuda::std::span<T> out, merge_conflict_shape shape) {
  require_device_memory(ctx, out, "data::generate_merge_conflicts", "out");
  if (shape.items_per_thread < 1)
    throw invalid_argument("data::generate_merge_conflicts", "shape.items_per_thread", "must be at least 1");
  if (shape.bank_period < 1)
    throw invalid_argument("data::generate_merge_conflicts", "shape.bank_period", "must be at least 1");
  if (out.empty()) return;
  auto device = ctx.activate();
  constexpr int threads = 256;
  const std::size_t grid = sluice::detail::one_wave_grid(ctx, detail::merge_conflicts_kernel<T>, threads,
                                                         sluice::detail::ceil_div(out.size(), threads));
  detail::merge_conflicts_kernel<T><<<static_cast<unsigned>(grid), threads, 0, ctx.stream()>>>(
      out.data(), out.size(), merge_conflict_size(out.size(), shape), shape);
  SLUICE_CHECK_LAUNCH();
}

}  // namespace sluice::data
