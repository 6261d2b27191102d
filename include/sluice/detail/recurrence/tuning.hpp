// sluice/detail/recurrence/tuning.hpp: the recurrence family's tile, by architecture. Tuning is data:
// the solver reads it; the measurements behind it are in docs/perf-notes.md.
#pragma once

#include <sluice/core/config.hpp>
#include <sluice/detail/scan/tuning.hpp>

namespace sluice::detail::recurrence {

/// sm_90 (H100).
struct sm90_tuning {
  /// The single pass over the steps [a_i, b_i]: the scan's single-pass tile of the step type (f32
  /// steps: 128 threads × 12) (not tuned on its own; 2026-11-22, d1ea81c, H100: the f32 first-order
  /// recurrence at 86.5% of copy).
  template <class Step>
  using tile = scan::sm90_tuning::single_pass_tile<Step>;
};

/// A table per architecture; those not measured take sm_90's.
template <int Arch>
struct tuning_for : sm90_tuning {};

using tuning = tuning_for<SLUICE_TUNING_ARCH>;

}  // namespace sluice::detail::recurrence
