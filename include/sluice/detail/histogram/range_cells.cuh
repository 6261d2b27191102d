// sluice/detail/histogram/range_cells.cuh: builds the range cells of histogram_range's splitters
// (core/binning.hpp: range_cell_lookup) on the device, once per call, so that a sample's search runs over
// the splitters of its cell instead of all m + 1 of them.
//
//   cells:   2^c with c = bit_width(m) clamped to [range_cells_min_log2, range_cells_max_log2]
//            (tuning.hpp): one or two cells per bin, so spread-out splitters leave one or two per cell.
//   shift:   the fewest bits that bring the keys' span key(s_m) − key(s_0) below 2^c, computed on the
//            device (the splitters live there; reading them on the host would synchronise).
//   counts:  cell j's count is the number of splitters whose key is at most key(s_0) + (j << shift), one
//            thread per cell (binning.hpp's plan_range_cells and range_cell_count, which host tests run).
// Splitters that are not increasing give counts that are still in [0, m + 1], so every sample still lands
// in [0, m) or nowhere (binning.hpp). Memory: range_cell_words(c) words of scratch, at most 256 KiB.
#pragma once

#include <sluice/core/binning.hpp>
#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/detail/histogram/tuning.hpp>

#include <cuda/std/cstddef>
#include <cuda/std/cstdint>

#include <algorithm>
#include <bit>

namespace sluice::detail::histogram {

inline constexpr int range_cells_threads = 256;

/// log2 of the cells for `levels` splitters.
[[nodiscard]] inline unsigned range_cells_log2(cuda::std::uint32_t levels) {
  return std::clamp(static_cast<unsigned>(std::bit_width(levels - 1)), tuning::range_cells_min_log2,
                    tuning::range_cells_max_log2);
}

template <class T>
__global__ void __launch_bounds__(range_cells_threads)
    range_cells_kernel(const T* __restrict__ splitters, cuda::std::uint32_t levels, unsigned cells_log2,
                       cuda::std::uint32_t* __restrict__ words) {
  const range_cell_plan<T> plan = plan_range_cells(splitters, levels, cells_log2);
  const cuda::std::uint32_t cell = blockIdx.x * range_cells_threads + threadIdx.x;
  if (cell == 0) {
    auto* header = reinterpret_cast<cuda::std::uint64_t*>(words);
    header[0] = plan.first_key;
    header[1] = plan.shift;
  }
  if (cell <= (1u << cells_log2))
    words[range_cell_header_words + cell] = range_cell_count(splitters, levels, plan, cell, cells_log2);
}

/// Builds the range cells of splitters[0, levels) into words[0, range_cell_words(range_cells_log2(levels))).
template <class T>
void build_range_cells(context& ctx, const T* splitters, cuda::std::uint32_t levels, cuda::std::uint32_t* words) {
  const unsigned cells_log2 = range_cells_log2(levels);
  const auto grid = static_cast<unsigned>(ceil_div((std::size_t{1} << cells_log2) + 1, range_cells_threads));
  range_cells_kernel<<<grid, range_cells_threads, 0, ctx.stream()>>>(splitters, levels, cells_log2, words);
  SLUICE_CHECK_LAUNCH();
}

}  // namespace sluice::detail::histogram
