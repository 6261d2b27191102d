// sluice/core/mix.hpp: the 64-bit mixing finalizer of splitmix64: a bijection in which each input bit
// flips about half of the output bits. Hashes keys (group_by's tables) and draws counter-based random
// numbers (data/distributions.hpp, the slab hash's seeds, the cache simulator's shuffles).
#pragma once

#include <sluice/core/config.hpp>

#include <cstdint>

namespace sluice::detail {

SLUICE_HOST_DEVICE constexpr std::uint64_t mix64(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace sluice::detail
