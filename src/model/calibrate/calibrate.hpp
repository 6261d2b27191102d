// src/model/calibrate/calibrate.hpp: `sluice model calibrate`: measures a device profile (profile.hpp)
// with the microbenchmarks of benchmarks.hpp. For every operation type it sweeps oversubscription
// (1, 2, 4, 8, 16 blocks of 128 threads an SM) and ILP (1, 2, 4, 8 chains a thread), prints each point
// as it is measured, and fits L and B (fit.hpp); then the cost of a random read against a coalesced word
// (DRAM and L2 gathers), L_sync from the slope of a fixed amount of work split over more launches, and
// the SM clock under load, before and after. The occupancy limits come from cudaDeviceProp and the
// allocation granularities of cuda_occupancy.h.
#pragma once

#include "model/profile.hpp"

#include <ostream>
#include <string>

namespace sluice::model {

struct calibrate_options {
  int device = 0;
  bool quick = false;     ///< fewer points (M_o 1, 4, 16; ILP 1, 4), smaller arrays, 3 repetitions
  int repetitions = 7;    ///< timed runs a point (the median counts); quick: 3
  std::string measured;   ///< recorded in the profile: when, at which commit, how
};

/// The current device's profile. Needs a GPU; throws sluice::error on any CUDA failure.
[[nodiscard]] device_profile calibrate(const calibrate_options& options, std::ostream& log);

}  // namespace sluice::model
