// sluice/detail/slab_hash/hash.hpp: the slab hash's bucket function (Ashkiani §5.3.3): the universal
// family h(k; a, b) = ((a·k + b) mod p), here with the Mersenne prime p = 2^61 − 1 (one reduction
// step of shifts and adds instead of a division, for 32- and 64-bit keys alike), then a range reduction
// to the bucket count. Host and device; tests/host/slab_hash_layout_test.cpp checks it against 128-bit
// arithmetic.
//
// A hasher is any trivially copyable functor with `SLUICE_HOST_DEVICE std::uint32_t operator()(Key)`;
// its 32 bits are reduced to [0, buckets) by ⌊h · B / 2^32⌋ (bucket_of), so the hasher must spread its
// output over all 32 bits. Tests use a constant hasher to put every key in one bucket.
#pragma once

#include <sluice/core/config.hpp>
#include <sluice/core/mix.hpp>

#include <cstdint>

namespace sluice::detail::slab_hash {

inline constexpr std::uint64_t mersenne61 = (std::uint64_t{1} << 61) - 1;

/// x mod (2^61 − 1) for x < 2^122: x = hi·2^61 + lo ≡ hi + lo, twice, then one subtraction.
[[nodiscard]] SLUICE_HOST_DEVICE constexpr std::uint64_t mod_mersenne61(uint128_t x) {
  std::uint64_t folded = static_cast<std::uint64_t>(x & mersenne61) + static_cast<std::uint64_t>(x >> 61);
  folded = (folded & mersenne61) + (folded >> 61);
  return folded >= mersenne61 ? folded - mersenne61 : folded;
}

/// The bucket of a 32-bit hash among `buckets` (⌊h · B / 2^32⌋: uniform h gives uniform buckets).
[[nodiscard]] SLUICE_HOST_DEVICE constexpr std::uint32_t bucket_of(std::uint32_t hash, std::uint32_t buckets) {
  return static_cast<std::uint32_t>((std::uint64_t{hash} * buckets) >> 32);
}

/// One member of the universal family: 1 ≤ a < p, 0 ≤ b < p; the top 32 of the 61 bits come out.
struct universal_hash {
  std::uint64_t a = 0x1C8E3A5D0F2B4977ull % mersenne61;  ///< fixed default draws; from_seed() for others
  std::uint64_t b = 0x0B7E151628AED2A6ull % mersenne61;

  /// The member drawn from `seed` (splitmix64 of it, reduced into range).
  [[nodiscard]] static constexpr universal_hash from_seed(std::uint64_t seed) {
    const auto next = [&seed] {
      seed += 0x9E3779B97F4A7C15ull;
      return mix64(seed);
    };
    universal_hash h;
    h.a = 1 + next() % (mersenne61 - 1);
    h.b = next() % mersenne61;
    return h;
  }

  [[nodiscard]] SLUICE_HOST_DEVICE constexpr std::uint32_t operator()(std::uint64_t key) const {
    // key mod p first, so that a·key < 2^122 (mod_mersenne61's range); keys ≥ p (64-bit keys only)
    // share a residue with key − p.
    const std::uint64_t product = mod_mersenne61(static_cast<uint128_t>(a) * mod_mersenne61(key));
    const std::uint64_t h = mod_mersenne61(static_cast<uint128_t>(product) + b);
    return static_cast<std::uint32_t>(h >> 29);  // the top 32 of 61 bits
  }
};

}  // namespace sluice::detail::slab_hash
