// sluice/detail/multiscan/common.cuh: what the multiscan strategies share: where the results go (the
// element outputs, converted to the output type, and the optional bucket totals), and the value source
// of multitag (the exclusive multiscan of ones, Eilers §1.2).
#pragma once

#include <sluice/core/config.hpp>
#include <sluice/core/operators.hpp>

#include <cuda/std/cstddef>

namespace sluice::detail::multiscan {

/// Where a multiscan writes: out[i] (as O: multitag scans 64-bit counts into 32-bit ranks), and, unless
/// totals is null, totals[k] = the bucket's whole reduction (which holds the identity beforehand).
template <class T, class O>
struct scan_outputs {
  O* out;
  T* totals;
  bool inclusive;
};

/// The values of multitag: 1 everywhere, without memory.
template <class T>
struct ones {
  SLUICE_HOST_DEVICE constexpr T operator[](cuda::std::size_t) const { return T{1}; }
};

}  // namespace sluice::detail::multiscan
