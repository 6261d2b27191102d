// sluice/warp/bitonic_network.hpp: the schedule of a bitonic network over the 32 lanes of a warp
// (Batcher 1968; Karsin §7.3.1 "merging in registers"), host and device.
//
// Lane i holds one element; a step with stride s compares lane i with lane i ^ s (one __shfl_xor_sync on
// the device, warp/bitonic.cuh). Which of the two each lane keeps is a pure function of the lane, the
// stride and the block, written once here so that the host model (tests/host/gpu_mms_model_test.cpp)
// runs exactly the device's network. Both lanes of a pair evaluate the same comparison with the same
// argument order, so every step is a permutation even under a comparator that is not a strict weak
// order.
#pragma once

#include <sluice/core/config.hpp>

namespace sluice::warp {

inline constexpr int bitonic_lanes = 32;

/// Whether the pair (lane, lane ^ stride) of a bitonic sort's block is ordered ascending: blocks of
/// `block` lanes alternate direction, and `descending` flips the whole sort.
SLUICE_HOST_DEVICE constexpr bool bitonic_pair_ascending(int lane, int block, bool descending) {
  return ((lane & block) == 0) != descending;
}

/// The element `lane` keeps after the compare-exchange with `partner_value` (held by lane ^ stride):
/// the smaller in the lower lane of an ascending pair, the larger in its upper lane (and the reverse
/// for a descending pair). `before` is the strict order; equal elements stay where they are. Both lanes
/// ask before(upper-or-lower element, the other) in the same argument order: the pair is out of order
/// when the element that should come second comes before the one that should come first. Returned by
/// value and chosen by value, so that the registers are never addressed (no local memory).
template <class T, class Before>
SLUICE_HOST_DEVICE SLUICE_FORCEINLINE T bitonic_kept(int lane, int stride, bool ascending, const T& mine,
                                                    const T& partner_value, Before before) {
  const bool partner_should_follow = ((lane & stride) == 0) == ascending;
  const T should_follow = partner_should_follow ? partner_value : mine;
  const T should_lead = partner_should_follow ? mine : partner_value;
  return before(should_follow, should_lead) ? partner_value : mine;
}

}  // namespace sluice::warp
