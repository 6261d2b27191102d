// src/model/fit.cpp: the knee fit of a microbenchmark sweep and the launch-cost slope.
#include "model/fit.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace sluice::model {

op_fit fit_op_cost(const std::vector<sweep_point>& points, double cores, double clock_hz) {
  if (points.empty()) throw invalid_argument("model calibrate", "sweep", "is empty");
  std::vector<double> t(points.size());  // cycles per operation per core
  double best_throughput = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const sweep_point& p = points[i];
    if (!(p.multiplicity > 0 && p.operations > 0 && p.seconds > 0))
      throw invalid_argument("model calibrate", "sweep", "has a point that is not positive", i);
    t[i] = cores * clock_hz * p.seconds / p.operations;
    best_throughput = std::max(best_throughput, 1 / t[i]);
  }
  const auto worst_error = [&](const op_cost& c) {
    double worst = 0;
    for (std::size_t i = 0; i < points.size(); ++i)
      worst = std::max(worst, std::abs(std::max(1 / c.bandwidth, c.latency_cycles / points[i].multiplicity) / t[i] - 1));
    return worst;
  };
  const auto squared_log_error = [&](const op_cost& c) {
    double sum = 0;
    for (std::size_t i = 0; i < points.size(); ++i) {
      const double e = std::log(std::max(1 / c.bandwidth, c.latency_cycles / points[i].multiplicity) / t[i]);
      sum += e * e;
    }
    return sum;
  };
  // The best L passes through one point's t·M, or lies at or below the bandwidth floor (every point on
  // the flat part, L ≤ M_min/B): candidates t_i·M_i and 0.
  op_cost best{0, best_throughput};
  double best_error = squared_log_error(best);
  for (std::size_t i = 0; i < points.size(); ++i) {
    const op_cost candidate{t[i] * points[i].multiplicity, best_throughput};
    const double error = squared_log_error(candidate);
    if (error < best_error) {
      best_error = error;
      best = candidate;
    }
  }
  return {best, worst_error(best)};
}

double launch_slope_seconds(const std::vector<double>& launches, const std::vector<double>& seconds) {
  if (launches.size() != seconds.size() || launches.size() < 2)
    throw invalid_argument("model calibrate", "launch sweep", "needs two points or more");
  const auto n = static_cast<double>(launches.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < launches.size(); ++i) {
    sx += launches[i];
    sy += seconds[i];
    sxx += launches[i] * launches[i];
    sxy += launches[i] * seconds[i];
  }
  const double denominator = n * sxx - sx * sx;
  if (denominator == 0) throw invalid_argument("model calibrate", "launch sweep", "needs two different launch counts");
  return (n * sxy - sx * sy) / denominator;
}

}  // namespace sluice::model
