// bench/harness/result.hpp: one row of benchmark output and the figures derived from it.
#pragma once

#include "model/problem.hpp"

#include <cstddef>
#include <optional>
#include <string>

namespace sluice::bench {

enum class runs_on { host, gpu };

enum class role {
  subject,   ///< sluice's implementation: gets the ratio to the baseline
  baseline,  ///< CUB/Thrust (or cudaMemcpy) doing the same work in the same process
};

struct result_row {
  std::string family;          ///< "reduce"
  std::string name;            ///< "sum u32": the work, identical for a subject and its baseline
  std::string implementation;  ///< "sluice", "cub::DeviceReduce::Sum", ...
  role kind = role::subject;
  bool on_device = true;
  std::size_t items = 0;       ///< n
  double bytes = 0;            ///< minimum traffic: each input read once, each output written once
  double median_ms = 0, min_ms = 0, max_ms = 0;
  double q1_ms = 0, q3_ms = 0;  ///< quartiles of the repetitions
  int repetitions = 0;
  /// Rows of one work run by different strategies of the same call: `strategy` is what the row asked for
  /// ("automatic", "bms"; empty: the row is not one of a strategy sweep), `took` what automatic resolved
  /// to, `work` the work the strategies share (the name without the strategy; empty: `name`).
  std::string strategy{}, took{}, work{};
  bool verified = false;       ///< the result matched the oracle
  double copy_bandwidth = 0;   ///< bytes/s of a device (or host) copy measured in this process
  /// The model column (harness/model_column.hpp): what the case told the model about a sluice row, the
  /// prediction, or why there is none.
  std::optional<model::problem> model_problem;
  std::optional<double> predicted_ms;
  std::string model_note;

  [[nodiscard]] double bytes_per_second() const { return median_ms > 0 ? bytes / (median_ms * 1e-3) : 0; }
  [[nodiscard]] double items_per_second() const {
    return median_ms > 0 ? static_cast<double>(items) / (median_ms * 1e-3) : 0;
  }
  [[nodiscard]] double percent_of_copy() const {
    return copy_bandwidth > 0 ? 100.0 * bytes_per_second() / copy_bandwidth : 0;
  }
  /// (predicted − measured) / measured: positive where the model predicts a slower run than measured.
  [[nodiscard]] std::optional<double> model_error() const {
    if (!predicted_ms || median_ms <= 0) return std::nullopt;
    return (*predicted_ms - median_ms) / median_ms;
  }
  /// Rows of the same work: a subject is compared with the baseline of its group.
  [[nodiscard]] std::string group() const { return family + "|" + name + "|" + std::to_string(items); }
  /// Rows of the same work whatever the strategy: automatic is compared with the fastest of them.
  [[nodiscard]] std::string strategy_group() const {
    return family + "|" + (work.empty() ? name : work) + "|" + std::to_string(items);
  }
};

}  // namespace sluice::bench
