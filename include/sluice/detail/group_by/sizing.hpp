// sluice/detail/group_by/sizing.hpp: how many slots the open-addressing group-by's table gets, and the
// pieces of the HyperLogLog sketch (Flajolet, Fusy, Gandouet, Meunier 2007) that estimates the distinct
// keys when the caller does not give them. Plain C++ for the host tests; the kernels call the same
// functions (detail/group_by/open_addressing.cuh).
//
//   hash    mix64(key bits) (core/mix.hpp): a 64-bit finalizer, so that keys differing in a few bits (sequential ids,
//           multiples of 2^k) spread over the whole word. The table's home slot is the hash's high bits
//           scaled to the slot count (multiply-high: any count, not only powers of two).
//   sketch  register j = the top `bits` bits of the hash; its value, the largest rank (1 + leading zeros
//           of the remaining bits) of any key that maps to it. The estimate is the harmonic mean form
//           α·m²/Σ2^−M[j], with linear counting m·ln(m/V) while it is below 2.5·m and V registers are 0.
//   parts   partitioned splits the pairs into parts of at most fold_max_load × (a fold block's slots)
//           distinct keys on average, as many as one multisplit pass takes (511); more distinct keys than
//           that, or fewer pairs than the sketch's threshold, and automatic takes open_addressing; unique
//           takes it also for up to 2^18 distinct keys.
#pragma once

#include <sluice/core/config.hpp>
#include <sluice/core/mix.hpp>
#include <sluice/detail/group_by/tuning.hpp>
#include <sluice/detail/multisplit/plan.hpp>
#include <sluice/options/group_by.hpp>

#include <cuda/std/bit>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>

namespace sluice::detail::group_by {

/// A 32-bit hash for the partitioned strategy's parts, independent of mix64 (a multiply-xorshift
/// finalizer of the key's 32-bit fold).
template <class W>
SLUICE_HOST_DEVICE constexpr std::uint32_t part_hash(W key) {
  auto x = static_cast<std::uint32_t>(key);
  if constexpr (sizeof(W) == 8) x ^= static_cast<std::uint32_t>(static_cast<std::uint64_t>(key) >> 32) * 0x9e3779b9u;
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  return x ^ (x >> 16);
}

/// The sketch register of hash h.
SLUICE_HOST_DEVICE constexpr std::uint32_t sketch_register(std::uint64_t h, int bits) {
  return static_cast<std::uint32_t>(h >> (64 - bits));
}

/// 1 + the leading zeros of h's bits after the register's, capped at 65 − bits (a guard bit).
SLUICE_HOST_DEVICE constexpr std::uint32_t sketch_rank(std::uint64_t h, int bits) {
  return static_cast<std::uint32_t>(cuda::std::countl_zero((h << bits) | (std::uint64_t{1} << (bits - 1)))) + 1;
}

/// The distinct keys a filled sketch estimates.
inline double estimate_distinct(std::span<const std::uint32_t> registers) {
  const double m = static_cast<double>(registers.size());
  double harmonic = 0;
  std::size_t zeros = 0;
  for (const std::uint32_t r : registers) {
    harmonic += std::ldexp(1.0, -static_cast<int>(r));
    zeros += r == 0;
  }
  const double raw = 0.7213 / (1.0 + 1.079 / m) * m * m / harmonic;
  if (raw <= 2.5 * m && zeros != 0) return m * std::log(m / static_cast<double>(zeros));
  return raw;
}

/// Slots for `distinct` keys at the tuned load (at least 32, one warp's worth).
inline std::size_t table_slots(double distinct) {
  return std::max<std::size_t>(32, static_cast<std::size_t>(std::ceil(distinct / tuning::max_load)));
}

/// The distinct keys to size for: the caller's count where given, all n keys below the sketch's
/// threshold, else the sketch's estimate with its margin; never more than n.
inline double distinct_to_size_for(std::size_t n, std::size_t given, double estimate) {
  if (given != 0) return static_cast<double>(std::min(given, n));
  if (n < tuning::sketch_min_keys) return static_cast<double>(n);
  return std::min(estimate * tuning::estimate_margin, static_cast<double>(n));
}

/// Slots of a fold block's shared table for slots of `slot_bytes`.
constexpr std::size_t fold_slots(std::size_t slot_bytes) { return tuning::fold_shared_bytes / slot_bytes; }

/// The most parts one multisplit pass makes (the onesweep strategy's bound).
inline constexpr std::uint32_t max_parts = multisplit::max_onesweep_buckets;

/// Parts for `distinct` keys folded in shared tables of slots of `slot_bytes`.
inline std::size_t fold_parts(double distinct, std::size_t slot_bytes) {
  const double per_part = tuning::fold_max_load * static_cast<double>(fold_slots(slot_bytes));
  return std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(distinct / per_part)));
}

/// What `asked` runs for n keys (pairs when `with_values`) with `distinct` keys to size for. automatic:
/// partitioned while one pass makes its parts and the sketch runs, open_addressing otherwise, and for
/// unique (keys alone: one L2 request a key, no atomic) also up to tuning::unique_single_pass_keys.
inline group_by_algorithm table_strategy(group_by_algorithm asked, std::size_t n, double distinct,
                                         std::size_t slot_bytes, bool with_values) {
  if (asked != group_by_algorithm::automatic) return asked;
  const bool single_pass_set = !with_values && distinct <= static_cast<double>(tuning::unique_single_pass_keys);
  const bool partitions = n >= tuning::sketch_min_keys && fold_parts(distinct, slot_bytes) <= max_parts;
  return partitions && !single_pass_set ? group_by_algorithm::partitioned : group_by_algorithm::open_addressing;
}

}  // namespace sluice::detail::group_by
