// src/model/occupancy.cpp: cuda_occupancy.h's cudaOccMaxActiveBlocksPerMultiprocessor for Volta and
// later (default shared-memory carveout: the whole per-SM shared memory), without the partitioned
// global caching and block-barrier cases, which sluice's kernels do not use.
#include "model/occupancy.hpp"

#include <algorithm>
#include <string>

namespace sluice::model {

namespace {

long long round_up(long long x, long long unit) { return (x + unit - 1) / unit * unit; }

[[noreturn]] void cannot_run(const launch_plan& plan, const std::string& why) {
  throw invalid_argument("model", "launch plan",
                         "(" + std::to_string(plan.block_threads) + " threads, " + std::to_string(plan.registers_per_thread) +
                             " registers, " + std::to_string(plan.shared_bytes) + " shared bytes a block) cannot run: " +
                             why);
}

}  // namespace

std::string_view to_string(occupancy_limit limit) {
  switch (limit) {
    case occupancy_limit::warps: return "threads per SM";
    case occupancy_limit::blocks: return "blocks per SM";
    case occupancy_limit::registers: return "registers";
    case occupancy_limit::shared_memory: return "shared memory";
  }
  return "?";
}

occupancy resident_blocks(const device_limits& l, const launch_plan& plan) {
  if (plan.block_threads <= 0 || plan.block_threads > l.max_threads_per_block)
    cannot_run(plan, "a block has 1 to " + std::to_string(l.max_threads_per_block) + " threads");
  if (plan.registers_per_thread < 0 || plan.registers_per_thread > l.max_registers_per_thread)
    cannot_run(plan, "a thread has at most " + std::to_string(l.max_registers_per_thread) + " registers");
  const long long warps_per_block = (plan.block_threads + l.warp_size - 1) / l.warp_size;

  // Warps: the SM's warp slots.
  const long long by_warps = (l.max_threads_per_sm / l.warp_size) / warps_per_block;

  // Registers: allocated per warp in units; each sub-partition holds whole warps.
  long long by_registers = l.max_blocks_per_sm;
  if (plan.registers_per_thread > 0) {
    const long long per_warp = round_up(static_cast<long long>(plan.registers_per_thread) * l.warp_size,
                                        l.register_allocation_unit);
    // The hardware's per-block check assumes the block's warps spread over every sub-partition.
    if (per_warp * round_up(warps_per_block, l.register_sub_partitions) > l.registers_per_block ||
        per_warp * warps_per_block > l.registers_per_block)
      cannot_run(plan, "the block needs more than the " + std::to_string(l.registers_per_block) + " registers of a block");
    const long long warps_per_partition = (l.registers_per_sm / l.register_sub_partitions) / per_warp;
    by_registers = warps_per_partition * l.register_sub_partitions / warps_per_block;
  }

  // Shared memory: the block's bytes plus the driver's reserve, in allocation units.
  const long long allocated = round_up(static_cast<long long>(plan.shared_bytes + l.shared_memory_reserved_per_block),
                                       static_cast<long long>(l.shared_allocation_unit));
  if (plan.shared_bytes > l.shared_memory_per_block_optin)
    cannot_run(plan, "a block has at most " + std::to_string(l.shared_memory_per_block_optin) + " shared bytes");
  const long long by_shared =
      allocated > 0 ? static_cast<long long>(l.shared_memory_per_sm) / allocated : static_cast<long long>(l.max_blocks_per_sm);

  occupancy o{static_cast<int>(std::min<long long>(by_warps, l.max_blocks_per_sm)),
              by_warps < l.max_blocks_per_sm ? occupancy_limit::warps : occupancy_limit::blocks};
  if (by_registers < o.blocks_per_sm) o = {static_cast<int>(by_registers), occupancy_limit::registers};
  if (by_shared < o.blocks_per_sm) o = {static_cast<int>(by_shared), occupancy_limit::shared_memory};
  if (o.blocks_per_sm == 0) cannot_run(plan, "no block fits an SM (" + std::string(to_string(o.limit)) + ")");
  return o;
}

std::uint64_t one_wave_blocks(const device_limits& l, const launch_plan& plan, double work_units) {
  const double wave = static_cast<double>(resident_blocks(l, plan).blocks_per_sm) * l.sm_count;
  return static_cast<std::uint64_t>(std::max(1.0, std::min(work_units, wave)));
}

double oversubscription(const device_limits& l, const launch_plan& plan) {
  const occupancy o = resident_blocks(l, plan);
  const double resident = static_cast<double>(o.blocks_per_sm) * l.sm_count;
  const double blocks = std::min(static_cast<double>(plan.blocks), resident);
  return blocks * plan.block_threads / l.cores();
}

}  // namespace sluice::model
