// sluice/detail/onesweep/pass_plan.hpp: how an LSD radix sort cuts the bits [begin_bit, end_bit) into
// passes (Ashkiani §3.7.1: ⌈32/r⌉ passes of an r-bit multisplit), and the one place where the pass width
// is chosen.
//
// The passes are balanced: bits = end_bit − begin_bit is cut into ⌈bits / r⌉ passes whose widths differ
// by at most one, the wider ones first (32 bits at r = 7: 7, 7, 6, 6, 6 rather than the seed's 7, 7, 7,
// 7, 4). The pass count is the same as the seed's; no pass is wider than it must be, and a narrower pass
// has fewer buckets (2^width), which the multisplit handles faster. Pure host code (host tests).
#pragma once

#include <sluice/detail/radix_sort/tuning.hpp>

#include <cstddef>

namespace sluice::detail::onesweep {

/// The widest pass a multisplit takes: 8 bits, 256 buckets (Ashkiani: "practical for m ≤ 256").
inline constexpr int max_pass_bits = 8;

/// The multisplit strategy's pass width when the options leave it to the sort (thresholds:
/// radix_sort/tuning.hpp, not measured). Wider digits mean fewer passes over memory but 2^r buckets of
/// ballots and counters per warp. The seed's best r was 7 for 32-bit keys and for 32-bit pairs on its
/// newest GPU (GTX 1080, Table 3.8; r = 5 on the K40c). Elements that move more bytes per key make each
/// pass dearer, so they take the widest pass (64-bit keys: 8 passes instead of 10).
[[nodiscard]] constexpr int automatic_pass_bits(std::size_t key_bytes, std::size_t value_bytes) {
  return key_bytes + value_bytes <= radix_sort::tuning::multisplit_narrow_element_bytes
             ? radix_sort::tuning::multisplit_pass_bits
             : max_pass_bits;
}

struct pass_plan {
  int begin_bit = 0;
  int bits = 0;    ///< end_bit − begin_bit
  int passes = 0;  ///< 0 when bits = 0

  /// Width of pass p (0 ≤ p < passes): the first bits % passes passes take one bit more.
  [[nodiscard]] constexpr int width(int pass) const { return bits / passes + (pass < bits % passes ? 1 : 0); }
  /// The lowest bit of pass p.
  [[nodiscard]] constexpr int shift(int pass) const {
    return begin_bit + pass * (bits / passes) + (pass < bits % passes ? pass : bits % passes);
  }
};

/// The passes over bits [begin_bit, end_bit) no wider than widest (1 ≤ widest ≤ max_pass_bits).
[[nodiscard]] constexpr pass_plan plan_passes(int begin_bit, int end_bit, int widest) {
  const int bits = end_bit - begin_bit;
  return {begin_bit, bits, (bits + widest - 1) / widest};
}

}  // namespace sluice::detail::onesweep
