// sluice/detail/lsm/tuning.hpp: the GPU LSM's own kernels' shapes by architecture (staging, lookup,
// candidate gathering, validation, successor). Sorting, merging, searching, scanning and compaction
// are the project's primitives with their own tuning.
#pragma once

#include <sluice/core/config.hpp>

namespace sluice::detail::lsm {

/// sm_90 (H100). Not measured yet (bench/cases/lsm.cu measures the container, not these).
struct sm90_tuning {
  /// Threads of every LSM kernel's block (whole warps: validation gives a warp to a query).
  static constexpr int block_threads = 256;
};

/// A table per architecture; those not measured take sm_90's.
template <int Arch>
struct tuning_for : sm90_tuning {};

using tuning = tuning_for<SLUICE_TUNING_ARCH>;

}  // namespace sluice::detail::lsm
