// sluice/core/device_properties.hpp: what the dispatchers need to know about a device, read once.
//
// Strategy choices and grid sizes depend on the SM count, shared memory and L2 of the device at hand;
// nothing in sluice hard-codes them (block shapes and thresholds are the tuning tables',
// detail/<family>/tuning.hpp, by architecture). Read through cudaDeviceGetAttribute because CUDA 13
// dropped the clock fields from cudaDeviceProp.
#pragma once

#include <sluice/core/error.hpp>

#include <cstddef>
#include <string>

namespace sluice {

struct device_properties {
  int device = 0;
  std::string name;
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
  int sm_count = 0;
  int warp_size = 32;
  int max_threads_per_block = 0;
  int max_threads_per_sm = 0;
  int max_blocks_per_sm = 0;
  int registers_per_sm = 0;
  std::size_t shared_memory_per_block = 0;        ///< without opting in (48 KiB)
  std::size_t shared_memory_per_block_optin = 0;  ///< after cudaFuncSetAttribute(MaxDynamicSharedMemorySize)
  std::size_t shared_memory_per_sm = 0;
  std::size_t l2_cache_bytes = 0;
  std::size_t global_memory_bytes = 0;
  int memory_clock_khz = 0;
  int memory_bus_width_bits = 0;

  /// Bytes per second the memory interface can move: clock × bus width × 2 (double data rate).
  [[nodiscard]] double theoretical_bandwidth() const {
    return 2.0 * static_cast<double>(memory_clock_khz) * 1e3 * static_cast<double>(memory_bus_width_bits) / 8.0;
  }

  [[nodiscard]] static device_properties query(int device) {
    device_properties p;
    p.device = device;
    cudaDeviceProp prop{};
    SLUICE_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    p.name = prop.name;
    p.global_memory_bytes = prop.totalGlobalMem;
    auto attribute = [device](cudaDeviceAttr what) {
      int value = 0;
      SLUICE_CUDA_CHECK(cudaDeviceGetAttribute(&value, what, device));
      return value;
    };
    p.compute_capability_major = attribute(cudaDevAttrComputeCapabilityMajor);
    p.compute_capability_minor = attribute(cudaDevAttrComputeCapabilityMinor);
    p.sm_count = attribute(cudaDevAttrMultiProcessorCount);
    p.warp_size = attribute(cudaDevAttrWarpSize);
    p.max_threads_per_block = attribute(cudaDevAttrMaxThreadsPerBlock);
    p.max_threads_per_sm = attribute(cudaDevAttrMaxThreadsPerMultiProcessor);
    p.max_blocks_per_sm = attribute(cudaDevAttrMaxBlocksPerMultiprocessor);
    p.registers_per_sm = attribute(cudaDevAttrMaxRegistersPerMultiprocessor);
    p.shared_memory_per_block = static_cast<std::size_t>(attribute(cudaDevAttrMaxSharedMemoryPerBlock));
    p.shared_memory_per_block_optin = static_cast<std::size_t>(attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin));
    p.shared_memory_per_sm = static_cast<std::size_t>(attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor));
    p.l2_cache_bytes = static_cast<std::size_t>(attribute(cudaDevAttrL2CacheSize));
    p.memory_clock_khz = attribute(cudaDevAttrMemoryClockRate);
    p.memory_bus_width_bits = attribute(cudaDevAttrGlobalMemoryBusWidth);
    return p;
  }
};

}  // namespace sluice
