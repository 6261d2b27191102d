// sluice/options/slab_alloc.hpp: the public option types of containers/slab_alloc.cuh (Ashkiani §5.5),
// beside it so that the slab hash's options and detail/ can name them without the container.
#pragma once

#include <cstdint>
#include <string_view>

namespace sluice {

/// Where the super blocks live (§5.5): how a 32-bit unit address becomes a pointer.
enum class slab_alloc_variant {
  light,    ///< SlabAlloc-light: every super block in one array; decoding is arithmetic on one base pointer.
            ///< Growth reallocates the array and copies it (addresses stay valid: they are offsets).
  regular,  ///< one array per super block, their base pointers in a device table read at each decode;
            ///< growth adds an array and moves nothing.
};

[[nodiscard]] constexpr std::string_view to_string(slab_alloc_variant variant) {
  switch (variant) {
    case slab_alloc_variant::light: return "light";
    case slab_alloc_variant::regular: return "regular";
  }
  return "?";
}

struct slab_alloc_options {
  slab_alloc_variant variant = slab_alloc_variant::light;
  /// N_M, memory blocks of 1024 units (128 KiB) per super block: 1 … 16384; 0: 256 (32 MiB super blocks).
  std::uint32_t blocks_per_super_block = 0;
  /// Super blocks allocated at construction: 1 … max_super_blocks.
  std::uint32_t super_blocks = 1;
  /// Growth stops here (1 … 255, the 8 bits of the address): a call that would need more throws
  /// sluice::out_of_memory before it changes anything.
  std::uint32_t max_super_blocks = 255;
};

}  // namespace sluice
