// sluice/core/merge_path.hpp: the merge path of two sorted sequences (Green, McColl & Bader 2012; the
// partitioning of ModernGPU's and Thrust's merge sort, Karsin §7.1), host and device.
//
// The stable merge of a (na elements) and b (nb elements) under `less` takes a[i] before b[j] unless
// less(b[j], a[i]): equal elements come from a first. Its first `diagonal` outputs hold a[0, i) and
// b[0, diagonal − i) for exactly one i, found by one binary search along the cross diagonal; splitting
// both inputs there lets any number of workers merge independent pieces. Sorted search is the same walk
// with the queries as b (detail/search/).
#pragma once

#include <sluice/core/config.hpp>

namespace sluice::detail {

/// The number of elements of a among the first `diagonal` outputs of the stable merge of a and b
/// (0 ≤ diagonal ≤ na + nb). O(log min(na, nb, diagonal)) comparisons; Index is any signed or unsigned integer.
template <class AIt, class BIt, class Index, class Less>
SLUICE_HOST_DEVICE SLUICE_FORCEINLINE Index merge_path(AIt a, Index na, BIt b, Index nb, Index diagonal, Less less) {
  Index low = diagonal > nb ? diagonal - nb : Index{0};
  Index high = diagonal < na ? diagonal : na;
  while (low < high) {
    const Index taken = low + (high - low) / 2;
    // a[taken] belongs to the prefix when b[diagonal − 1 − taken] does not come strictly before it.
    if (!less(b[diagonal - 1 - taken], a[taken])) low = taken + 1;
    else high = taken;
  }
  return low;
}

}  // namespace sluice::detail
