// sluice/detail/group_by/sketch.cuh: the HyperLogLog sketch of the keys that sizes group_by's table when
// the caller gives no distinct count (detail/group_by/sizing.hpp has its arithmetic): one read of the keys;
// a block's 4096 registers in shared memory, an atomic max only where a rank beats its register, merged
// into global registers; the host reads them back (one wait) and estimates.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/core/scratch.hpp>
#include <sluice/detail/group_by/sizing.hpp>
#include <sluice/detail/group_by/tuning.hpp>

#include <cuda/atomic>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace sluice::detail::group_by {

template <class W>
__global__ void __launch_bounds__(tuning::threads) sketch_kernel(const W* __restrict__ keys, std::size_t n,
                                                                 std::uint32_t* __restrict__ registers) {
  constexpr int bits = tuning::sketch_bits;
  __shared__ std::uint32_t local[1u << bits];
  for (unsigned j = threadIdx.x; j < (1u << bits); j += blockDim.x) local[j] = 0;
  __syncthreads();
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += stride) {
    const std::uint64_t h = mix64(static_cast<std::uint64_t>(keys[i]));
    const std::uint32_t j = sketch_register(h, bits);
    const std::uint32_t rank = sketch_rank(h, bits);
    // Registers only grow: a stale read costs one atomic more, never a lost rank.
    if (cuda::atomic_ref<std::uint32_t, cuda::thread_scope_block>(local[j]).load(cuda::std::memory_order_relaxed) < rank)
      atomicMax(&local[j], rank);
  }
  __syncthreads();
  for (unsigned j = threadIdx.x; j < (1u << bits); j += blockDim.x)
    if (local[j] != 0) atomicMax(&registers[j], local[j]);
}

/// The sketch's estimate of the distinct keys among keys[0, n) (one wait for the stream).
template <class W>
double estimate_distinct_keys(context& ctx, const W* keys, std::size_t n) {
  constexpr std::size_t registers = std::size_t{1} << tuning::sketch_bits;
  scratch<std::uint32_t> device_registers(ctx, registers);
  SLUICE_CUDA_CHECK(cudaMemsetAsync(device_registers.get(), 0, registers * sizeof(std::uint32_t), ctx.stream()));
  const auto kernel = sketch_kernel<W>;
  const auto grid = static_cast<unsigned>(one_wave_grid(ctx, kernel, tuning::threads, ceil_div(n, tuning::threads)));
  kernel<<<grid, tuning::threads, 0, ctx.stream()>>>(keys, n, device_registers.get());
  SLUICE_CHECK_LAUNCH();
  std::vector<std::uint32_t> host(registers);
  SLUICE_CUDA_CHECK(cudaMemcpyAsync(host.data(), device_registers.get(), registers * sizeof(std::uint32_t),
                                    cudaMemcpyDeviceToHost, ctx.stream()));
  SLUICE_CUDA_CHECK(cudaStreamSynchronize(ctx.stream()));
  return estimate_distinct(host);
}

}  // namespace sluice::detail::group_by
