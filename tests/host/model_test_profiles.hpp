// tests/host/model_test_profiles.hpp: device descriptions for the SPT model's host tests: the seed's
// three GPUs with Karsin's Table 4.2 parameters verbatim, and the sm_90 (H100 SXM) occupancy limits as
// cudaDeviceProp reports them. No H100 operation parameters: those come only from `sluice model
// calibrate` on the device. Also the lookups the counts tests share.
#pragma once

#include "model/profile.hpp"
#include "model/spt.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace sluice::model::testing {

/// One platform of Table 4.1/4.2: P cores in `sms` SMs, shared memory and registers as the table's
/// totals (4-byte elements), the clock of Table 4.1, and the measured L and B of g, s, r, y.
struct karsin_platform {
  const char* name;
  int sms;
  int cores_per_sm;
  double shared_elements;    ///< M (4-byte elements, whole GPU)
  double register_elements;  ///< R (whole GPU)
  double clock_hz;
  op_cost g, s, r, y;
  double l_sync;
};

// Table 4.2 (K = 1024 elements); P = 1664 = 13 × 128 (GM204), 1536 = 8 × 192 (GK104), 2880 = 15 × 192
// (GK110B). B_r is "~1" in the table; §4.4.1 uses 1.
inline constexpr karsin_platform algoparc{"ALGOPARC", 13, 128, 312 * 1024, 832 * 1024, 780e6,
                                          {269.5, 0.0301}, {85.84, 0.233}, {6, 1}, {234, 0.0493}, 7800};
inline constexpr karsin_platform gibson{"GIBSON", 8, 192, 128 * 1024, 512 * 1024, 1046e6,
                                        {267.6, 0.0279}, {123.1, 0.130}, {10, 1}, {304, 0.0364}, 10850};
inline constexpr karsin_platform uhhpc{"UHHPC", 15, 192, 240 * 1024, 960 * 1024, 745e6,
                                       {291.2, 0.0275}, {111.9, 0.131}, {10, 1}, {289, 0.0394}, 8640};

/// The sm_90 occupancy limits of an H100 SXM (132 SMs), as cudaDeviceProp and cuda_occupancy.h give them.
inline device_limits h100_limits() {
  device_limits l;
  l.sm_count = 132;
  l.cores_per_sm = 128;
  l.warp_size = 32;
  l.max_threads_per_sm = 2048;
  l.max_threads_per_block = 1024;
  l.max_blocks_per_sm = 32;
  l.registers_per_sm = 65536;
  l.registers_per_block = 65536;
  l.max_registers_per_thread = 255;
  l.register_allocation_unit = 256;
  l.register_sub_partitions = 4;
  l.shared_memory_per_sm = 233472;
  l.shared_memory_per_block_optin = 232448;
  l.shared_memory_reserved_per_block = 1024;
  l.shared_allocation_unit = 128;
  l.shared_banks = 32;
  return l;
}

/// A seed platform as a profile (no occupancy-limiting fields are used: the seed's case studies give M_o).
inline device_profile karsin_profile(const karsin_platform& k) {
  device_profile p;
  p.name = k.name;
  p.compute_capability = "seed";
  p.clock_hz = k.clock_hz;
  p.limits = h100_limits();
  p.limits.sm_count = k.sms;
  p.limits.cores_per_sm = k.cores_per_sm;
  p.ops[static_cast<std::size_t>(op::g)] = k.g;
  p.ops[static_cast<std::size_t>(op::s)] = k.s;
  p.ops[static_cast<std::size_t>(op::r)] = k.r;
  p.ops[static_cast<std::size_t>(op::y)] = k.y;
  p.sync_latency_cycles = k.l_sync;
  return p;
}

/// A complete profile with made-up operation parameters, for the loader and report tests only.
inline device_profile synthetic_profile() {
  device_profile p;
  p.name = "Synthetic Test GPU";
  p.compute_capability = "9.0";
  p.driver = "13.0";
  p.runtime = "13.0";
  p.clock_hz = 1.5e9;
  p.memory_clock_hz = 2.6e9;
  p.memory_bus_bits = 5120;
  p.l2_bytes = 50u << 20;
  p.limits = h100_limits();
  for (int i = 0; i < op_count; ++i) p.ops[static_cast<std::size_t>(i)] = op_cost{100.0 + i, 0.5 / (i + 1)};
  p.sync_latency_cycles = 4000;
  p.random_access_words = 16;
  p.l2_random_access_words = 8;
  p.measured = "synthetic";
  return p;
}

/// The kernel `name` of `m` (a test failure, and the first kernel, where there is none).
inline const kernel_model& kernel(const algorithm_model& m, const std::string& name) {
  for (const kernel_model& k : m.kernels)
    if (k.name == name) return k;
  ADD_FAILURE() << "no kernel " << name << " in " << m.name;
  return m.kernels.front();
}

/// Launches of every kernel of `m`.
inline std::uint64_t launches(const algorithm_model& m) {
  std::uint64_t total = 0;
  for (const kernel_model& k : m.kernels) total += k.launches;
  return total;
}

}  // namespace sluice::model::testing
