// bench/harness/measure.hpp: the step every case repeats: time one implementation, verify its
// result against the oracle, record the row.
#pragma once

#include "harness/registry.hpp"

#include <sluice/core/error.hpp>

#include <cuda_runtime.h>

#include <bit>
#include <functional>
#include <iostream>
#include <optional>
#include <string>

namespace sluice::bench {

/// The work a row describes; the implementation-specific fields are filled per call of measure().
struct work_description {
  std::string family;
  std::string name;
  std::size_t items = 0;
  double bytes = 0;  ///< minimum traffic
  /// The problem as the performance model reads it (model/problem.hpp), given to the sluice rows on the
  /// device: the model column (harness/model_column.hpp). Empty: the family has no model.
  std::optional<model::problem> model = std::nullopt;
  /// One of a strategy sweep (result_row::strategy, took, work): set through runs_strategy.
  std::string strategy{}, took{}, work{};

  /// This work as one row of a sweep over the call's strategies: `asked` is the option ("automatic" or a
  /// strategy's name), `resolved` the strategy the dispatch runs for it; the rows of one sweep share
  /// `name` unless the case names each row after its strategy, when `shared_work` is the name without it.
  /// The model's problem is left as it is (running() tells it the strategy).
  [[nodiscard]] work_description runs_strategy(const std::string& asked, const std::string& resolved,
                                               const std::string& shared_work = {}) const {
    work_description w = *this;
    w.strategy = asked;
    w.took = asked == "automatic" ? resolved : std::string{};
    w.work = shared_work;
    return w;
  }

  /// runs_strategy with the enumerators' names.
  template <class Algorithm>
  [[nodiscard]] work_description runs(Algorithm asked, Algorithm resolved, const std::string& shared_work = {}) const {
    return runs_strategy(std::string(to_string(asked)), std::string(to_string(resolved)), shared_work);
  }

  /// This work with the model told which strategy the row runs (as the dispatch resolves it).
  [[nodiscard]] work_description running(const std::string& algorithm) const {
    work_description w = *this;
    if (w.model) w.model->algorithm = algorithm;
    return w;
  }
};

/// Calls `verify` on the output the timed runs left behind and records the row with its timing.
inline void record_verified(case_context& bench, const work_description& work, const std::string& implementation,
                            role kind, bool on_device, const timing& t, const std::function<bool()>& verify) {
  result_row row;
  row.family = work.family;
  row.name = work.name;
  row.implementation = implementation;
  row.kind = kind;
  row.on_device = on_device;
  row.items = work.items;
  row.bytes = work.bytes;
  row.median_ms = t.median_ms;
  row.min_ms = t.min_ms;
  row.max_ms = t.max_ms;
  row.q1_ms = t.q1_ms;
  row.q3_ms = t.q3_ms;
  row.repetitions = t.repetitions;
  row.strategy = work.strategy;
  row.took = work.took;
  row.work = work.work;
  row.verified = verify();
  if (kind == role::subject && on_device) row.model_problem = work.model;
  bench.record(std::move(row));
}

/// Times `run` (device work on the case's context, or host work when `on_device` is false) with the
/// session's policy, then verifies and records the row; a row --implementation leaves out is skipped. The
/// caller poisons outputs before calling, so an output the implementation never wrote fails verification.
inline void measure(case_context& bench, const work_description& work, const std::string& implementation, role kind,
                    bool on_device, const std::function<void()>& run, const std::function<bool()>& verify) {
  if (!bench.runs(implementation, kind)) return;
  const timing t = on_device ? time_device(bench.gpu(), run, bench.policy()) : time_host(run, bench.policy());
  record_verified(bench, work, implementation, kind, on_device, t, verify);
}

/// Whether a baseline's `bytes` of temporary storage fit in half the device's free memory; when they do
/// not, says on stderr that `what` is skipped and why (CUB's HistogramEven asks for gigabytes at 2^24
/// bins), and the row goes without its baseline.
inline bool baseline_fits(std::size_t bytes, const std::string& what) {
  std::size_t free = 0, total = 0;
  SLUICE_CUDA_CHECK(cudaMemGetInfo(&free, &total));
  if (bytes <= free / 2) return true;
  std::cerr << "bench: " << what << " skipped: it asks for " << static_cast<double>(bytes) / 1e9
            << " GB of temporary storage, " << static_cast<double>(free) / 1e9 << " GB free\n";
  return false;
}

/// Past this many bins CUB's DeviceHistogram is not run as a baseline: on the H100 (469babb) its
/// HistogramEven at 2^24 bins (26.6 GB of temporary storage, which fitted) ended in an illegal memory
/// access that took the rest of the run with it (the anchors skip 2^24 bins too). 2^20 bins ran.
inline constexpr std::size_t cub_histogram_max_bins = std::size_t{1} << 20;

/// Whether CUB's histogram over `bins` bins with `bytes` of temporary storage runs as a baseline; says
/// on stderr why not when it does not.
inline bool cub_histogram_runs(std::size_t bins, std::size_t bytes, const std::string& what) {
  if (bins > cub_histogram_max_bins) {
    std::cerr << "bench: " << what << " skipped: more than 2^20 bins (CUB crashed at 2^24 on the H100)\n";
    return false;
  }
  return baseline_fits(bytes, what);
}

/// "2^k" for n = 2^k (a case's name for a power-of-two size).
inline std::string power_name(std::size_t n) { return "2^" + std::to_string(std::bit_width(n) - 1); }

/// Sizes 2^first, 2^(first+step), … 2^last.
inline std::vector<std::size_t> powers_of_two(int first, int last, int step) {
  std::vector<std::size_t> sizes;
  for (int k = first; k <= last; k += step) sizes.push_back(std::size_t{1} << k);
  return sizes;
}

}  // namespace sluice::bench
