// sluice/detail/scatter/plan.hpp: the host-side decisions of scatter: which strategy `automatic` runs,
// how many top bits of the index the partial_sort strategy sorts by, and the check of the options.
// Pure C++ over numbers read from the device, so the host tests (tests/host/scatter_plan_test.cpp)
// cover every rule.
//
// Why a sort can pay (Eilers §4.5.1, Table 4.3: on a GTX 690 it did not). A direct scatter with random
// indices into a destination larger than the L2 makes every store a partial-sector write that misses
// (the H100's figures: docs/perf-notes.md, scatter partial sort). Sorting (index, value) stably by the
// index's top b bits cuts the destination into 2^b windows that the scatter then visits in order, each
// small enough to stay in the L2 while its stores arrive, so each destination sector goes to DRAM about
// once, whole. On the seed's 512 KiB L2 the windows had to be 2^9 slots (log2 m − sortBits ≤ 9), so a
// scatter to 2^26 slots needed 17 bits of 5-bit SRTS passes at 0.4 ns each, more than the 1.06 ns per
// element the naive scatter took. On a 50 MiB L2 a window of 2^22 four-byte slots fits half of it, so
// one 8-bit onesweep pass covers destinations up to 2^30 slots.
//
// The window's share of the L2 (tuning.hpp) is not swept; measured with it, the sort pays at 2^24 but
// not at 2^28 (023e2ee, H100), hence automatic = direct (resolve).
#pragma once

#include <sluice/core/error.hpp>
#include <sluice/detail/onesweep/pass_plan.hpp>
#include <sluice/detail/partial_sort/plan.hpp>
#include <sluice/detail/scatter/tuning.hpp>
#include <sluice/options/scatter.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

namespace sluice::detail::scatter {

/// The destination slots an index of type I can name: min(size, max(I) + 1). The partial sort treats
/// an index as the unsigned word of its width; against this bound that word is in range exactly when
/// the index is in [0, size): a negative index's word is at least 2^(w − 1) = max(I) + 1.
template <class I>
[[nodiscard]] constexpr std::uint64_t reachable_slots(std::uint64_t size) {
  constexpr auto top = static_cast<std::uint64_t>(std::numeric_limits<I>::max());
  return size != 0 && size - 1 > top ? top + 1 : size;
}

/// The bits partial_sort sorts by when options.partial_sort_bits = 0, for `slots` reachable destination
/// slots of `value_bytes` on an L2 of `l2_bytes` (read from the device): the fewest top bits of the
/// index whose windows fit half the L2 (tuning::partial_sort_l2_divisor), in whole 8-bit onesweep
/// digits (detail/partial_sort/plan.hpp's window_sort_bits, the rule multireduce's global sets use with
/// their sets as the slot), but at least one digit, since a caller who asks for partial_sort on a
/// destination that fits gets a sort; at most the ⌈log2 slots⌉ bits an index in range has. Half, not
/// all, of the L2: the sorted keys and values stream through it too, and the grid's warps drift apart
/// along the sorted pairs. On an H100 (50 MiB) it gives 8 bits for 2^24 to 2^30 four-byte slots (windows
/// of 2^16 to 2^22 slots), 16 beyond.
[[nodiscard]] constexpr int choose_partial_sort_bits(std::uint64_t slots, std::size_t value_bytes,
                                                     std::size_t l2_bytes) {
  return std::min(key_bits_below(slots),
                  std::max(window_sort_bits(slots, value_bytes, l2_bytes / tuning::partial_sort_l2_divisor),
                           onesweep::max_pass_bits));
}

/// The bits a partial_sort call sorts by: options.partial_sort_bits (≥ 0, checked) clamped to the bits
/// an index in range has, or the choice above when it is 0. 0 only when there is nothing to sort by
/// (at most one reachable slot): the call then runs direct.
[[nodiscard]] constexpr int partial_sort_bits(int requested, std::uint64_t slots, std::size_t value_bytes,
                                              std::size_t l2_bytes) {
  return requested > 0 ? std::min(requested, key_bits_below(slots))
                       : choose_partial_sort_bits(slots, value_bytes, l2_bytes);
}

/// Throws invalid_argument naming the first option that is not valid (an enumerator outside its enum,
/// a negative partial_sort_bits).
inline void check_options(const char* function, const scatter_options& options) {
  switch (options.algorithm) {
    case scatter_algorithm::automatic:
    case scatter_algorithm::direct:
    case scatter_algorithm::partial_sort: break;
    default: throw invalid_argument(function, "options.algorithm", "is not a scatter_algorithm");
  }
  switch (options.semantics) {
    case scatter_semantics::any_writer:
    case scatter_semantics::last_writer: break;
    default: throw invalid_argument(function, "options.semantics", "is not a scatter_semantics");
  }
  if (options.partial_sort_bits < 0)
    throw invalid_argument(function, "options.partial_sort_bits",
                           "is " + std::to_string(options.partial_sort_bits) + ": must be 0 (chosen) or positive");
}

/// The strategy to run: options.algorithm, with automatic as direct (023e2ee, H100, u32: partial_sort
/// 1.62× direct on a random permutation at 2^24, none at 2^28, 2.8× slower on identity indices at 2^28).
/// automatic cannot see the order of the indices without reading them, so it never sorts;
/// partial_sort is for callers who know their indices are random.
[[nodiscard]] constexpr scatter_algorithm resolve(const scatter_options& options) {
  return options.algorithm == scatter_algorithm::automatic ? scatter_algorithm::direct : options.algorithm;
}

}  // namespace sluice::detail::scatter
