// src/model/fit.hpp: L_φ and B_φ from a microbenchmark sweep (Karsin §4.2.1–4.5.1). Each point ran
// `operations` operations at multiplicity M = M_o·M_I in `seconds`; its time per operation per core is
// t = P·clock·seconds / operations cycles. B is the best throughput reached (§4.2.1: "we measure B_g
// using the maximum throughput achieved"); L is the latency whose knee max(1/B, L/M) fits every point
// best in log space, which places the knee M* = L·B where the seed reads it off its plots, but from all
// points rather than by eye. Host code, tested on synthetic sweeps.
#pragma once

#include "model/profile.hpp"

#include <vector>

namespace sluice::model {

struct sweep_point {
  double multiplicity = 0;  ///< M = M_o·M_I the benchmark ran at
  double operations = 0;    ///< operations of the type measured, on the whole device
  double seconds = 0;       ///< median time of a run
};

struct op_fit {
  op_cost cost;
  double worst_error = 0;  ///< the largest |t_model / t_measured − 1| over the points
};

/// Fits L and B to a sweep measured on `cores` cores at `clock_hz`. Throws sluice::invalid_argument on
/// an empty sweep or a point that is not positive.
[[nodiscard]] op_fit fit_op_cost(const std::vector<sweep_point>& points, double cores, double clock_hz);

/// The per-boundary cost of a sequence of launches: the slope of seconds against the number of
/// launches, by least squares (the seed's Fig. 4.6 reads it as the asymptote of time per DEVICESYNC).
[[nodiscard]] double launch_slope_seconds(const std::vector<double>& launches, const std::vector<double>& seconds);

}  // namespace sluice::model
