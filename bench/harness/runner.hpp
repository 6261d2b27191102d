// bench/harness/runner.hpp: runs the selected benchmark cases and collects their rows with the facts
// that make them reproducible (device, driver, date, commit, measured copy bandwidth).
#pragma once

#include "harness/model_column.hpp"
#include "harness/result.hpp"

#include <iosfwd>
#include <string>
#include <vector>

namespace sluice::bench {

struct environment {
  std::string device = "none";  ///< device name, or "none"
  std::string no_gpu_reason;    ///< why there is no device, when there is none
  int sm_count = 0;
  double l2_bytes = 0, memory_bytes = 0;
  double theoretical_bandwidth = 0;   ///< bytes/s from clock × bus width
  double device_copy_bandwidth = 0;   ///< bytes/s of cudaMemcpy D2D, read + write, measured in this run
  double host_copy_bandwidth = 0;     ///< bytes/s of memcpy on the host, read + write
  std::string driver, runtime, cccl;  ///< versions
  std::string date;                   ///< UTC, ISO 8601
  std::string commit;                 ///< SLUICE_COMMIT from the environment, else the configure-time commit
  bool quick = false;
};

struct run_options {
  bool quick = false;
  std::vector<std::string> families;  ///< empty: all
  bool gpu_only = false;              ///< skip the host (CPU) cases, e.g. on the GPU machine's budget
  std::string case_filter;            ///< non-empty: only the cases whose "family/name" contains it
  std::string implementation_filter;  ///< non-empty: only the rows whose implementation contains it, and baselines
};

struct run_result {
  environment env;
  std::vector<result_row> rows;
  std::vector<std::string> skipped;  ///< cases not run, each with why: no GPU, or --gpu-only
  std::vector<std::string> failed;   ///< "family/name: what went wrong"
  model_summary model;               ///< the model column's source and errors (harness/model_column.hpp)
};

/// The families known to the registry, in order of first registration.
std::vector<std::string> known_families();

/// Throws sluice::invalid_argument for a family nobody registered. Progress goes to `log`.
run_result run_benchmarks(const run_options& options, std::ostream& log);

/// The device and host facts alone (what `sluice info` prints); measures copy bandwidth if a GPU is there.
environment describe_environment(bool quick);

}  // namespace sluice::bench
