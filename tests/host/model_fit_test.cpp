// The calibration's fits (src/model/fit.hpp) on synthetic sweeps: a sweep drawn from a known knee
// max(1/B, L/M) gives back its L and B, exactly without noise and within the noise with it; L_sync is
// the slope of time against launches; empty or non-positive sweeps are rejected.
#include "model/fit.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace {

using namespace sluice::model;

constexpr double cores = 16896, clock_hz = 1.5e9;

std::vector<sweep_point> sweep(const op_cost& truth, double noise) {
  std::mt19937 random(7);
  std::uniform_real_distribution<double> jitter(1 - noise, 1 + noise);
  std::vector<sweep_point> points;
  const double operations = 1e9;
  for (double m = 1; m <= 128; m *= 2) {
    const double t = std::max(1 / truth.bandwidth, truth.latency_cycles / m);  // cycles an operation a core
    points.push_back({m, operations, operations * t / (cores * clock_hz) * (noise > 0 ? jitter(random) : 1)});
  }
  return points;
}

TEST(ModelFit, RecoversTheKneeOfAnExactSweep) {
  const op_cost truth{600, 0.025};  // M* = 15
  const op_fit fit = fit_op_cost(sweep(truth, 0), cores, clock_hz);
  EXPECT_DOUBLE_EQ(fit.cost.bandwidth, 0.025);
  EXPECT_NEAR(fit.cost.latency_cycles, 600, 1e-9);
  EXPECT_NEAR(fit.worst_error, 0, 1e-12);
}

TEST(ModelFit, StaysWithinTheNoise) {
  const op_cost truth{30, 0.25};  // M* = 7.5
  const op_fit fit = fit_op_cost(sweep(truth, 0.03), cores, clock_hz);
  EXPECT_NEAR(fit.cost.bandwidth, 0.25, 0.25 * 0.031);
  EXPECT_NEAR(fit.cost.latency_cycles, 30, 30 * 0.08);
  EXPECT_LT(fit.worst_error, 0.08);
}

TEST(ModelFit, AllBandwidthBoundGivesNoLatencyAboveTheFloor) {
  // Every point at or past the knee: the fit may not invent a latency that would slow the first point.
  const op_cost truth{0.5, 0.5};
  const op_fit fit = fit_op_cost(sweep(truth, 0), cores, clock_hz);
  EXPECT_DOUBLE_EQ(fit.cost.bandwidth, 0.5);
  EXPECT_LE(fit.cost.latency_cycles, 2);  // L/M ≤ 1/B at M = 1
  EXPECT_NEAR(fit.worst_error, 0, 1e-12);
}

TEST(ModelFit, LaunchCostIsTheSlope) {
  const std::vector<double> launches{1, 4, 16, 64, 256};
  std::vector<double> seconds;
  for (double l : launches) seconds.push_back(1.2e-3 + 3.5e-6 * l);
  EXPECT_NEAR(launch_slope_seconds(launches, seconds), 3.5e-6, 1e-12);
}

TEST(ModelFit, RejectsEmptyAndNonPositiveSweeps) {
  EXPECT_THROW((void)fit_op_cost({}, cores, clock_hz), sluice::invalid_argument);
  EXPECT_THROW((void)fit_op_cost({{1, 1e9, 1e-3}, {2, 0, 1e-3}}, cores, clock_hz), sluice::invalid_argument);
  EXPECT_THROW((void)launch_slope_seconds({1}, {1e-3}), sluice::invalid_argument);
  EXPECT_THROW((void)launch_slope_seconds({4, 4}, {1e-3, 2e-3}), sluice::invalid_argument);
}

}  // namespace
