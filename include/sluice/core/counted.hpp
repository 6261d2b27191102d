// sluice/core/counted.hpp: a segmented scan as an ordinary scan (Palik §4.6): each element is paired with
// its head count, and counted_op restarts the value at every head, so any scan of (head count, value)
// pairs under counted_op is the segmented scan, and the head count numbers the segments.
#pragma once

#include <sluice/core/config.hpp>

namespace sluice::detail {

template <class Count, class T>
struct counted {
  Count heads;  ///< heads so far (inclusive): the segment index is heads − 1
  T value;      ///< ⊕ of the segment from its head up to here
};

template <class Op>
struct counted_op {
  Op op;
  template <class Count, class T>
  SLUICE_HOST_DEVICE counted<Count, T> operator()(const counted<Count, T>& a, const counted<Count, T>& b) const {
    return {static_cast<Count>(a.heads + b.heads), b.heads > 0 ? b.value : op(a.value, b.value)};
  }
};

}  // namespace sluice::detail
