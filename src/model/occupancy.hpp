// src/model/occupancy.hpp: resident blocks per SM and the oversubscription M_o they give (Karsin §4.7).
// The seed bounds M_o by shared memory and registers only; here every limit of the CUDA occupancy
// calculator (cuda_occupancy.h, whose arithmetic this follows and the host test compares against)
// applies: threads and warps per SM, blocks per SM, registers allocated per warp in units and split over
// the SM's sub-partitions, shared memory rounded to its allocation unit plus the driver's reserve.
#pragma once

#include "model/profile.hpp"

#include <cstdint>
#include <string_view>

namespace sluice::model {

/// A kernel's launch: what its dispatch passes to <<<…>>> and what ptxas gave it.
struct launch_plan {
  std::uint64_t blocks = 0;       ///< grid size
  int block_threads = 0;
  std::size_t shared_bytes = 0;   ///< static + dynamic shared memory a block
  int registers_per_thread = 0;   ///< from the compiled kernel (cudaFuncGetAttributes, ptxas -v)
};

enum class occupancy_limit { warps, blocks, registers, shared_memory };
[[nodiscard]] std::string_view to_string(occupancy_limit limit);

struct occupancy {
  int blocks_per_sm = 0;
  occupancy_limit limit = occupancy_limit::blocks;  ///< the bound that gave blocks_per_sm (first of the ties)
};

/// Resident blocks per SM of `plan` on `limits`. Throws sluice::invalid_argument when the block cannot
/// run at all (too many threads, registers or shared bytes for one SM).
[[nodiscard]] occupancy resident_blocks(const device_limits& limits, const launch_plan& plan);

/// M_o (Def. in §3.1.3): threads resident on the device per core, at most the grid's threads:
/// min(grid, resident blocks × SMs) × block threads / P. Below 1 when the grid or the residency leaves
/// cores without a thread, which the latency term L/M then charges.
[[nodiscard]] double oversubscription(const device_limits& limits, const launch_plan& plan);

/// The grid of a kernel launched as one wave at most (detail::one_wave_grid, core/launch.hpp): the
/// smaller of `work_units` and the blocks resident on all SMs, at least one.
[[nodiscard]] std::uint64_t one_wave_blocks(const device_limits& limits, const launch_plan& plan, double work_units);

}  // namespace sluice::model
