// src/cli/simulate.hpp: `sluice simulate`, the cache simulator (include/sluice/host/simulator) against
// the measured sequential multireduce, naive and partially sorted (Eilers §2.4, Fig. 2.7).
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace sluice::cli {

struct simulate_arguments {
  bool quick = false;
  int log2_n = 24;
  int log2_m_first = 4;
  int log2_m_last = 26;
  int log2_m_step = 2;
  int log2_sample = 21;  ///< iterations simulated per loop; 0: every one
  int rounds = 7;       ///< interleaved rounds: each calibrates once and times every m once (the median counts)
  int repetitions = 1;  ///< timed runs per loop and visit, after a warm-up run
  std::string csv;
};

/// Registers the subcommand and its options on `app`.
CLI::App* add_simulate_command(CLI::App& app, simulate_arguments& args);

/// Calibrates the machine description, then measures and simulates every m; returns the exit status.
int run_simulate(simulate_arguments args);

}  // namespace sluice::cli
