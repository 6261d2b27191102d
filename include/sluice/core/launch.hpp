// sluice/core/launch.hpp: launch-shape helpers shared by the dispatchers.
//
// Grids are sized from the device (SM count, resident blocks per SM from the occupancy calculator),
// never from constants, so the same code fills an H100 and a smaller part.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>

#include <algorithm>
#include <cstddef>

namespace sluice::detail {

[[nodiscard]] constexpr std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

/// Blocks of `kernel` that can be resident on one SM with `threads` threads and `dynamic_smem` bytes.
template <class Kernel>
[[nodiscard]] int resident_blocks_per_sm(Kernel kernel, int threads, std::size_t dynamic_smem = 0) {
  int blocks = 0;
  SLUICE_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, dynamic_smem));
  return std::max(blocks, 1);
}

/// Grid for a kernel that loops over `work_units` units: one full wave of resident blocks at most,
/// and never more blocks than units.
template <class Kernel>
[[nodiscard]] std::size_t one_wave_grid(const context& ctx, Kernel kernel, int threads, std::size_t work_units,
                                        std::size_t dynamic_smem = 0) {
  const std::size_t wave =
      static_cast<std::size_t>(ctx.properties().sm_count) * resident_blocks_per_sm(kernel, threads, dynamic_smem);
  return std::max<std::size_t>(1, std::min(wave, work_units));
}

/// Grid of 256-thread blocks for a grid-stride kernel over n elements: one wave at most.
template <class Kernel>
[[nodiscard]] unsigned streaming_grid(const context& ctx, Kernel kernel, std::size_t n) {
  return static_cast<unsigned>(one_wave_grid(ctx, kernel, 256, ceil_div(n, 256)));
}

}  // namespace sluice::detail
