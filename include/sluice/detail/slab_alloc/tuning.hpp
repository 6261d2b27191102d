// sluice/detail/slab_alloc/tuning.hpp: SlabAlloc's constants by architecture (Ashkiani §5.5): how many
// resident changes are hashed before the sweep, the allocator kernels' block, the default super block.
#pragma once

#include <sluice/core/config.hpp>

#include <cstdint>

namespace sluice::detail::slab_alloc {

/// sm_90 (H100). Not measured yet: bench/cases/slab_hash.cu ("slab_alloc allocations") is the sweep.
struct sm90_tuning {
  /// Resident changes chosen by hashing before a warp sweeps the pool block by block (address.hpp). The
  /// seed hashes every change; the sweep only bounds the search once the pool is nearly full. 32 hashed
  /// misses at 90% full pool happen with probability 0.9^32 ≈ 3%; below that the sweep is never reached.
  static constexpr std::uint32_t hashed_changes = 32;
  /// N_M when the options leave it to the allocator: 256 memory blocks (32 MiB super blocks), the seed's
  /// evaluation shape (§5.6: 32 super blocks × 256 blocks × 1024 units); 254 of them address 8 GiB.
  static constexpr std::uint32_t blocks_per_super_block = 256;
  /// Threads of the allocator's own kernels (bitmap counts, the allocation benchmark).
  static constexpr int block_threads = 256;
};

/// A table per architecture; those not measured take sm_90's.
template <int Arch>
struct tuning_for : sm90_tuning {};

using tuning = tuning_for<SLUICE_TUNING_ARCH>;

}  // namespace sluice::detail::slab_alloc
