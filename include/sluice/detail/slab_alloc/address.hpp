// sluice/detail/slab_alloc/address.hpp: the SlabAlloc memory hierarchy as pure arithmetic (Ashkiani
// §5.5): 32-bit unit addresses, where a unit and its memory block's bitmap live in a super block, which
// memory block a warp makes resident after its i-th resident change, and the free units of a bitmap.
// Host and device; tests/host/slab_alloc_address_test.cpp checks every boundary exhaustively.
//
//   address (32 bits):  [ super block : 8 | memory block : 14 | unit : 10 ]        (§5.5, "Memory structure")
//   super block s:      N_M memory blocks of 1024 units of 128 bytes, then N_M bitmaps of 1024 bits (128 B);
//                       one contiguous array of (2^17 + 2^7)·N_M bytes (< 4 GB for N_M ≤ 2^14)
//   empty address:      0xFFFFFFFF, never a unit's: super blocks are numbered 0 … 254 (seed errata §10.12:
//                       the capacity is 255 · 2^14 · 2^10 · 128 B < 512 GiB, not "< 1 TB")
#pragma once

#include <sluice/core/config.hpp>

#include <bit>
#include <cstdint>

namespace sluice::detail::slab_alloc {

inline constexpr std::uint32_t unit_bytes = 128;                 ///< one slab (§5.4.2)
inline constexpr std::uint32_t unit_words = unit_bytes / 4;      ///< 32: one word a lane
inline constexpr std::uint32_t unit_bits = 10;
inline constexpr std::uint32_t units_per_block = 1u << unit_bits;  ///< N_U = 1024 (§5.5)
inline constexpr std::uint32_t block_bits = 14;
inline constexpr std::uint32_t max_blocks_per_super_block = 1u << block_bits;  ///< N_M ≤ 2^14
inline constexpr std::uint32_t max_super_blocks = 255;           ///< N_S; index 255 would allow 0xFFFFFFFF
inline constexpr std::uint32_t empty_address = 0xFFFFFFFFu;      ///< "no unit": a list's end, a failed allocation
inline constexpr std::uint32_t bitmap_bytes = units_per_block / 8;  ///< 128: one 32-bit word a lane
inline constexpr std::uint32_t bitmap_words = bitmap_bytes / 4;     ///< 32

/// The three fields of a unit address.
struct unit_location {
  std::uint32_t super_block;
  std::uint32_t block;  ///< memory block within its super block
  std::uint32_t unit;   ///< unit within its memory block
  friend constexpr bool operator==(const unit_location&, const unit_location&) = default;
};

[[nodiscard]] SLUICE_HOST_DEVICE constexpr std::uint32_t encode_address(unit_location where) {
  return (where.super_block << (block_bits + unit_bits)) | (where.block << unit_bits) | where.unit;
}

[[nodiscard]] SLUICE_HOST_DEVICE constexpr unit_location decode_address(std::uint32_t address) {
  return {address >> (block_bits + unit_bits), (address >> unit_bits) & (max_blocks_per_super_block - 1),
          address & (units_per_block - 1)};
}

/// Bytes of one super block of `blocks_per_super_block` memory blocks: the units, then the bitmaps.
[[nodiscard]] SLUICE_HOST_DEVICE constexpr std::uint64_t super_block_bytes(std::uint32_t blocks_per_super_block) {
  return std::uint64_t{blocks_per_super_block} * (std::uint64_t{units_per_block} * unit_bytes + bitmap_bytes);
}

/// Byte offset of a unit from the start of its super block.
[[nodiscard]] SLUICE_HOST_DEVICE constexpr std::uint64_t unit_offset(unit_location where) {
  return (std::uint64_t{where.block} * units_per_block + where.unit) * unit_bytes;
}

/// Byte offset of a memory block's bitmap from the start of its super block (after all its units).
[[nodiscard]] SLUICE_HOST_DEVICE constexpr std::uint64_t bitmap_offset(std::uint32_t blocks_per_super_block,
                                                                       std::uint32_t block) {
  return std::uint64_t{blocks_per_super_block} * units_per_block * unit_bytes + std::uint64_t{block} * bitmap_bytes;
}

/// Memory blocks are numbered across super blocks (super block s holds s·N_M … s·N_M + N_M − 1): the
/// sweep that follows the hashed resident changes walks this numbering.
[[nodiscard]] SLUICE_HOST_DEVICE constexpr std::uint32_t global_block(std::uint32_t super_block, std::uint32_t block,
                                                                      std::uint32_t blocks_per_super_block) {
  return super_block * blocks_per_super_block + block;
}

/// Whether an address names a unit of a pool of `super_blocks` super blocks of N_M memory blocks.
[[nodiscard]] SLUICE_HOST_DEVICE constexpr bool is_unit_of(std::uint32_t address, std::uint32_t super_blocks,
                                                           std::uint32_t blocks_per_super_block) {
  const unit_location where = decode_address(address);
  return address != empty_address && where.super_block < super_blocks && where.block < blocks_per_super_block;
}

/// murmur3's 32-bit finaliser: every input bit flips each output bit with probability about 1/2.
[[nodiscard]] SLUICE_HOST_DEVICE constexpr std::uint32_t mix32(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x85EBCA6Bu;
  x ^= x >> 13;
  x *= 0xC2B2AE35u;
  x ^= x >> 16;
  return x;
}

/// ⌊x · range / 2^32⌋: a 32-bit hash reduced to [0, range) without a division.
[[nodiscard]] SLUICE_HOST_DEVICE constexpr std::uint32_t reduce_to(std::uint32_t x, std::uint32_t range) {
  return static_cast<std::uint32_t>((std::uint64_t{x} * range) >> 32);
}

/// The memory block (global numbering) that warp `warp` makes resident at the `attempt`-th resident change
/// of one allocation, the warp having made `first_change` changes before it. Attempts 0 … hashed − 1 pick
/// the super block and the block by two hashes of (warp, change count), as the seed does (§5.5: "a probing
/// effect"; the count runs on across allocations, so each explores new blocks); later attempts sweep every
/// block once from the first hashed one, so that an allocation finds a free unit whenever the pool has one
/// and can report exhaustion exactly, after changes_to_exhaustion attempts.
[[nodiscard]] SLUICE_HOST_DEVICE constexpr std::uint32_t resident_block(std::uint32_t warp, std::uint64_t first_change,
                                                                        std::uint32_t attempt,
                                                                        std::uint32_t hashed_changes,
                                                                        std::uint32_t super_blocks,
                                                                        std::uint32_t blocks_per_super_block) {
  const auto hashed = [&](std::uint64_t change) {
    const auto c = static_cast<std::uint32_t>(change);
    const std::uint32_t s = reduce_to(mix32(warp * 0x9E3779B1u + c * 0x7FEB352Du + 0x165667B1u), super_blocks);
    const std::uint32_t b = reduce_to(mix32(warp * 0x846CA68Bu + c * 0xA2F0C5F5u + 0x27D4EB2Fu), blocks_per_super_block);
    return global_block(s, b, blocks_per_super_block);
  };
  if (attempt < hashed_changes) return hashed(first_change + attempt);
  const std::uint64_t blocks = std::uint64_t{super_blocks} * blocks_per_super_block;
  return static_cast<std::uint32_t>((hashed(first_change) + std::uint64_t{attempt - hashed_changes}) % blocks);
}

/// Resident changes of one allocation after which it has tried every block of the pool at least once.
[[nodiscard]] SLUICE_HOST_DEVICE constexpr std::uint64_t changes_to_exhaustion(std::uint32_t hashed_changes,
                                                                               std::uint32_t super_blocks,
                                                                               std::uint32_t blocks_per_super_block) {
  return std::uint64_t{hashed_changes} + std::uint64_t{super_blocks} * blocks_per_super_block;
}

/// The lowest free unit (clear bit) of a lane's 32-bit bitmap word, or 32 when the word is full: the
/// seed's priority order, "the least indexed unused memory unit".
[[nodiscard]] SLUICE_HOST_DEVICE constexpr std::uint32_t lowest_free_bit(std::uint32_t word) {
  const std::uint32_t free = ~word;
  if (free == 0) return 32;
#if defined(__CUDA_ARCH__)
  return static_cast<std::uint32_t>(__ffs(static_cast<int>(free)) - 1);
#else
  return static_cast<std::uint32_t>(std::countr_zero(free));
#endif
}

/// The unit a lane's bitmap word and bit stand for: lane l covers units 32·l … 32·l + 31 (§5.5).
[[nodiscard]] SLUICE_HOST_DEVICE constexpr std::uint32_t unit_of_bit(std::uint32_t lane, std::uint32_t bit) {
  return lane * 32 + bit;
}

/// The lane and bit of a unit within its memory block's bitmap: unit_of_bit's inverse.
[[nodiscard]] SLUICE_HOST_DEVICE constexpr std::uint32_t word_of_unit(std::uint32_t unit) { return unit / 32; }
[[nodiscard]] SLUICE_HOST_DEVICE constexpr std::uint32_t bit_of_unit(std::uint32_t unit) { return unit % 32; }

/// Units a pool of `super_blocks` super blocks of N_M memory blocks holds.
[[nodiscard]] SLUICE_HOST_DEVICE constexpr std::uint64_t pool_units(std::uint32_t super_blocks,
                                                                    std::uint32_t blocks_per_super_block) {
  return std::uint64_t{super_blocks} * blocks_per_super_block * units_per_block;
}

/// Super blocks needed for `units` units (at least one).
[[nodiscard]] SLUICE_HOST_DEVICE constexpr std::uint64_t super_blocks_for(std::uint64_t units,
                                                                          std::uint32_t blocks_per_super_block) {
  const std::uint64_t per = pool_units(1, blocks_per_super_block);
  const std::uint64_t needed = (units + per - 1) / per;
  return needed == 0 ? 1 : needed;
}

}  // namespace sluice::detail::slab_alloc
