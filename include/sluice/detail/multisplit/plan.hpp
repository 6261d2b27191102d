// sluice/detail/multisplit/plan.hpp: the host-side decisions of multisplit (Ashkiani §3.6.3 "more than
// 256 buckets"): the options, the automatic choice of strategy, and the digit passes that extend the
// direct strategies past 256 buckets. Pure C++, no device code, so the host tests cover it.
//
// Digit passes. The direct strategies (DMS, WMS, BMS) keep m counters per warp and stage bucket ids as
// bytes, so one pass handles m ≤ 256. Past that, the bucket id is split into base-255 digits and each
// digit is one stable multisplit, least significant digit first (an LSD radix sort of the bucket ids,
// each pass a multisplit). A stable pass by a more significant digit keeps the order the earlier passes
// made inside equal digits, so the result is the stable multisplit by the whole id, for every bucket
// functor (the functor is called again on each pass). Earlier passes keep keys with an invalid id in
// a 256th bucket after the 255 digits; the last pass drops and counts them, so only the last pass
// changes the number of elements. m ≤ 65 280 takes 2 passes, m ≤ 16 646 400 takes 3.
#pragma once

#include <sluice/core/config.hpp>
#include <sluice/detail/multisplit/tuning.hpp>
#include <sluice/options/multisplit.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace sluice {

namespace detail::multisplit {

/// Buckets of one direct pass: ids are staged in shared memory as bytes, counters are kept per warp.
inline constexpr std::uint32_t max_direct_buckets = 256;
/// Key + value bytes a direct strategy stages per element (its tile fits 48 KiB of static shared memory).
inline constexpr std::size_t max_direct_element_bytes = 32;
/// Digits of the passes before the last one; their 256th bucket holds the keys with an invalid id.
inline constexpr std::uint32_t digit_radix = max_direct_buckets - 1;

/// onesweep takes m < 512 buckets: digit m may mark the dropped keys, and a digit is at most 9 bits.
inline constexpr std::uint32_t max_onesweep_buckets = 511;

/// The digit bits onesweep ranks for m buckets: digits 0 … m − 1, and digit m for the dropped keys unless
/// no key can be dropped (a bucket functor whose every id is below m by construction, dispatch.cuh's
/// ids_always_below): the narrowest of tuning::onesweep_digit_widths that holds them, since the block
/// rank's warp histograms, its ballots per key (one per digit bit), the look-back threads and the zeroed
/// status words all shrink with the digits. 0 past the widest width.
[[nodiscard]] constexpr int onesweep_digit_bits(std::uint32_t m, bool may_drop) {
  const std::uint64_t digits = std::uint64_t{m} + (may_drop ? 1 : 0);
  for (const int bits : tuning::onesweep_digit_widths)
    if ((std::uint64_t{1} << bits) >= digits) return bits;
  return 0;
}
/// Keys and values onesweep stages (its tile shapes are CUB's, for elements of at most 16 bytes).
inline constexpr std::size_t max_onesweep_key_bytes = 16;
inline constexpr std::size_t max_onesweep_value_bytes = 16;

/// ⌈log2 m⌉ (0 for m ≤ 1): the ballots of a window, the bits RB-sort sorts.
[[nodiscard]] SLUICE_HOST_DEVICE constexpr int id_bits(std::uint64_t m) {
  int bits = 0;
  while (bits < 64 && (std::uint64_t{1} << bits) < m) ++bits;
  return bits;
}

/// One pass over a digit of the bucket id: digit = (id / divisor) % radix, or id / divisor on the last
/// pass (radix 0). `buckets` is the m of the pass.
struct digit_pass {
  std::uint32_t divisor = 1;
  std::uint32_t radix = 0;
  std::uint32_t buckets = 0;
  friend bool operator==(const digit_pass&, const digit_pass&) = default;
};

/// The passes for m buckets, least significant digit first; one pass {1, 0, m} when m ≤ 256.
[[nodiscard]] inline std::vector<digit_pass> digit_passes(std::uint32_t m) {
  std::vector<digit_pass> passes;
  std::uint64_t divisor = 1;
  auto remaining = [&] { return (std::uint64_t{m} + divisor - 1) / divisor; };
  while (remaining() > max_direct_buckets) {
    passes.push_back({static_cast<std::uint32_t>(divisor), digit_radix, max_direct_buckets});
    divisor *= digit_radix;
  }
  passes.push_back({static_cast<std::uint32_t>(divisor), 0, static_cast<std::uint32_t>(remaining())});
  return passes;
}

/// The strategy `automatic` runs for m buckets of keys (and values) of these sizes (value_bytes 0: keys
/// only); its thresholds are tuning's (tuning.hpp).
[[nodiscard]] inline multisplit_algorithm choose(std::uint32_t m, std::size_t key_bytes, std::size_t value_bytes) {
  if (key_bytes + value_bytes > max_direct_element_bytes) return multisplit_algorithm::rb_sort;
  if (static_cast<int>(digit_passes(m).size()) > tuning::automatic_max_digit_passes)
    return multisplit_algorithm::rb_sort;
  if (value_bytes == 0 && key_bytes <= tuning::automatic_dms_max_key_bytes && m <= tuning::automatic_dms_max_buckets)
    return multisplit_algorithm::dms;
  if (value_bytes == 0 && key_bytes <= tuning::automatic_scan_split_max_key_bytes &&
      m <= tuning::automatic_scan_split_max_buckets)
    return multisplit_algorithm::scan_split;
  if (m >= tuning::automatic_onesweep_min_buckets && m <= max_onesweep_buckets &&
      key_bytes <= max_onesweep_key_bytes && value_bytes <= max_onesweep_value_bytes)
    return multisplit_algorithm::onesweep;
  return multisplit_algorithm::bms;
}

}  // namespace detail::multisplit
}  // namespace sluice
