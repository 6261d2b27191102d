// bench/dist/dist_bench.hpp: what the distributed benchmark's measuring part (dist_bench.cu, CUDA) hands
// to its command line (dist_bench_main.cpp, which prints the table and the JSON with fmt and nlohmann-json,
// neither of which compiles under nvcc in C++20 mode).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sluice::dist_bench {

struct row {
  std::string bench;  ///< "sort weak", "sort strong", "pairs weak", "multireduce m = 4096", "alltoall"
  std::string implementation;
  int gpus = 1;
  std::uint64_t per_gpu = 0;
  std::uint64_t total = 0;
  double median_ms = 0, min_ms = 0, max_ms = 0;
  std::vector<std::string> phases;
  std::vector<double> phase_ms;  ///< the slowest rank's, per phase
  double scaling = 0;            ///< weak efficiency or strong speedup against the one-GPU row
  double exchange_vs_nccl = 0;   ///< NCCL all-to-all time / the exchange phase's, same bytes per rank
  bool verified = false;
};

struct options {
  int gpus = 0;  ///< 0: every visible GPU
  bool quick = false;
  int repetitions = 5;
  std::string only;  ///< empty: every bench
};

struct result {
  std::string device;
  int gpus = 0;
  int driver = 0;
  int nccl = 0;
  std::vector<row> rows;
};

/// Runs the benchmarks; throws sluice::error where there is no GPU or a call fails.
result run(const options& o);

}  // namespace sluice::dist_bench
