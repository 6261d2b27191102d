// sluice/detail/slab_alloc/kernels.cuh: the allocator's own kernels: the units in use (a popcount of
// every bitmap: exact, and no counter for the allocations to contend on), and a super block made new
// (units all 0xFF bytes, the empty slab; bitmaps all 0, every unit free). Traffic: 128 bytes read per
// memory block for the count; (2^17 + 2^7)·N_M bytes written per new super block.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/detail/slab_alloc/address.hpp>
#include <sluice/detail/slab_alloc/device.cuh>
#include <sluice/detail/slab_alloc/tuning.hpp>

#include <cstdint>

namespace sluice::detail::slab_alloc {

/// *out += the set bits of every bitmap word of the pool (a template only to live in a header).
template <class Pool>
__global__ void count_units_kernel(Pool pool, unsigned long long* out) {
  const std::uint64_t words = std::uint64_t{pool.super_blocks} * pool.blocks_per_super_block * bitmap_words;
  unsigned long long mine = 0;
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < words;
       i += std::uint64_t{gridDim.x} * blockDim.x)
    mine += __popc(pool.bitmap(static_cast<std::uint32_t>(i / bitmap_words))[i % bitmap_words]);
  for (int offset = 16; offset > 0; offset /= 2) mine += __shfl_down_sync(0xFFFFFFFFu, mine, offset);
  if (threadIdx.x % 32 == 0 && mine != 0) atomicAdd(out, mine);
}

/// Adds the pool's units in use to *out (device memory), stream-ordered.
inline void count_units(context& ctx, const pool_view& pool, unsigned long long* out) {
  const std::uint64_t words = std::uint64_t{pool.super_blocks} * pool.blocks_per_super_block * bitmap_words;
  const int threads = tuning::block_threads;
  const auto grid = static_cast<unsigned>(one_wave_grid(ctx, count_units_kernel<pool_view>, threads, ceil_div(words, threads)));
  count_units_kernel<pool_view><<<grid, threads, 0, ctx.stream()>>>(pool, out);
  SLUICE_CHECK_LAUNCH();
}

/// Makes the super block at `super_block` (its first byte) new: every unit an empty slab, every unit free.
inline void make_new_super_block(context& ctx, unsigned char* super_block, std::uint32_t blocks_per_super_block) {
  const std::uint64_t units = std::uint64_t{blocks_per_super_block} * units_per_block * unit_bytes;
  SLUICE_CUDA_CHECK(cudaMemsetAsync(super_block, 0xFF, units, ctx.stream()));
  SLUICE_CUDA_CHECK(
      cudaMemsetAsync(super_block + units, 0, std::uint64_t{blocks_per_super_block} * bitmap_bytes, ctx.stream()));
}

}  // namespace sluice::detail::slab_alloc
