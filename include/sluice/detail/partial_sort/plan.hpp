// sluice/detail/partial_sort/plan.hpp: how many top bits a partial radix sort for locality takes, the
// rule that multireduce's global sets (Eilers §4.4a, Table 4.2) and scatter's partial_sort strategy
// (§4.5.1, the sorted scatter) share. Pure C++ over numbers read from the device, so the host tests
// cover it (tests/host/multireduce_plan_test.cpp, tests/host/scatter_plan_test.cpp).
//
// The picture: `slots` destinations (buckets, output slots) of `slot_bytes` each, indexed by keys
// below `slots`. Sorting the work stably by the top b of the key's ⌈log2 slots⌉ bits cuts it into 2^b
// windows of 2^(⌈log2 slots⌉ − b) consecutive slots, visited in window order, so a kernel that walks
// the sorted work touches about one window's slots at a time. b is the fewest bits whose window fits
// the caller's budget (a share of the L2), rounded up to whole digits of the radix sort: sorting by
// fewer bits than a digit costs the same pass (the seed's "sortBits should be a multiple of five",
// SRTS's digit; onesweep's is 8), and the rounding leaves the windows well below the budget, the
// margin for warps that drift apart along the sorted work.
#pragma once

#include <sluice/detail/onesweep/pass_plan.hpp>
#include <sluice/detail/partial_sort/tuning.hpp>

#include <algorithm>
#include <bit>
#include <cstdint>

namespace sluice::detail {

/// ⌈log2 size⌉: the bits of a key below `size` (0 for size ≤ 1). A partial sort takes its top bits.
[[nodiscard]] constexpr int key_bits_below(std::uint64_t size) {
  return size <= 1 ? 0 : static_cast<int>(std::bit_width(size - 1));
}

/// The top bits of a key below `slots` to sort by so that one window of slots (header comment), at
/// `slot_bytes` (≥ 1) each, fits `budget` bytes: 0 when all the slots fit; otherwise the fewest that
/// make a window fit, rounded up to whole radix digits, at most key_bits_below(slots) (a full sort).
[[nodiscard]] constexpr int window_sort_bits(std::uint64_t slots, std::uint64_t slot_bytes, std::uint64_t budget) {
  if (slots <= budget / slot_bytes) return 0;
  const int bits = key_bits_below(slots);
  // The window holds 2^window_bits slots; slot_bytes · 2^w > budget ⇔ slot_bytes > ⌊budget / 2^w⌋, which
  // no shift past 63 bits or product can overflow.
  int window_bits = bits;
  while (window_bits > 0 && slot_bytes > (window_bits >= 64 ? 0 : budget >> window_bits)) --window_bits;
  constexpr int digit = onesweep::max_pass_bits;
  const int needed = bits - window_bits;
  return std::min(bits, (needed + digit - 1) / digit * digit);
}

}  // namespace sluice::detail
