// sluice/detail/partial_sort/tuning.hpp: the partial sort's tuning, by architecture: none of its own.
// It launches nothing but the radix sort (its shapes: detail/onesweep/tuning.hpp), its window budget is
// the caller's (scatter's share of the L2: detail/scatter/tuning.hpp; multireduce's global sets), and it
// rounds its bits to the sort's 8-bit digit, which is structural (onesweep::max_pass_bits).
#pragma once

#include <sluice/core/config.hpp>

namespace sluice::detail::partial_sort {

/// sm_90 (H100): nothing to tune here (header comment).
struct sm90_tuning {};

/// A table per architecture; those not measured take sm_90's.
template <int Arch>
struct tuning_for : sm90_tuning {};

using tuning = tuning_for<SLUICE_TUNING_ARCH>;

}  // namespace sluice::detail::partial_sort
