// src/model/report.hpp: the SPT estimate printed as Karsin's Fig. 3.1 matrix: one row per kernel, one
// column per operation type (only those used), row sums T_i, column sums 𝒯_φ with their shares of the
// total (the format of Figs. 7.2, 7.5, 7.8), |K|·L_sync, then each kernel's launch plan, occupancy and
// per-operation A, β, M and whether t_φ is latency- or bandwidth-bound.
#pragma once

#include "model/spt.hpp"

#include <ostream>

namespace sluice::model {

void print_estimate(std::ostream& out, const device_profile& profile, const algorithm_model& algorithm,
                    const estimate& e);

/// The operation parameters of a profile: L, B, the saturation multiplicity L·B and 1/B per operation.
void print_profile(std::ostream& out, const device_profile& profile);

}  // namespace sluice::model
