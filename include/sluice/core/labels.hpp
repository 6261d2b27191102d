// sluice/core/labels.hpp: which labels name a bucket, the one rule behind every "dropped" count and
// strict-mode check of multireduce, multiscan, multitag, multisplit, scatter/gather and histogram bin
// functions, on the GPU and in the CPU backend: label l of m buckets is valid when 0 ≤ l < m.
//
// The oracle (reference/multireduce.hpp) keeps its own copy so that it does not share a bug with the
// code it checks.
#pragma once

#include <sluice/core/config.hpp>

#include <cuda/std/cstddef>
#include <cuda/std/type_traits>

namespace sluice::detail {

/// label ∈ [0, m)? Negative labels are not; the comparison is exact whatever the label's type (no narrowing).
template <class L>
SLUICE_HOST_DEVICE constexpr bool valid_label(L label, cuda::std::size_t m) {
  if constexpr (cuda::std::is_signed_v<L>) {
    if (label < 0) return false;
  }
  return static_cast<unsigned long long>(label) < m;
}

}  // namespace sluice::detail
