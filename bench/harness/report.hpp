// bench/harness/report.hpp: the outputs of `sluice bench`: an aligned table on the terminal, JSON and
// CSV files with every figure, and PNG plots of the sweeps (through scripts/plot_bench.py).
#pragma once

#include "harness/runner.hpp"

#include <iosfwd>
#include <string>

namespace sluice::bench {

/// The environment header and one line per row; subjects show the ratio to their group's baseline.
void print_table(std::ostream& out, const run_result& result);

/// Device, host and bandwidth facts, as `sluice info` prints them.
void print_environment(std::ostream& out, const environment& env);

void write_json(const std::string& path, const run_result& result);
void write_csv(const std::string& path, const run_result& result);

/// Plots every case measured at three or more sizes into `directory` (PNG). Returns false, with the
/// reason in `why`, when plotting is unavailable (no python3 or matplotlib).
bool write_plots(const std::string& directory, const run_result& result, std::string& why);

/// baseline median / subject median for a subject row; 0 when its group has no baseline.
double ratio_to_baseline(const run_result& result, const result_row& subject);

}  // namespace sluice::bench
