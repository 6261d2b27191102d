// bench/harness/compare.hpp: `sluice bench --compare BEFORE.json AFTER.json`: two runs' rows side by
// side, each with the ratio of the times and a verdict that takes the runs' own noise into account.
//
// Rows are matched by family, case, implementation and n (the k-th of equal keys with the k-th). A row's
// noise is the spread of its repetitions: (q3 − q1) / median, or (max − min) / (2 · median) for files
// written before the quartiles were. A row is slower or faster only when its time moved by more than
// max(threshold, the larger noise of the two rows); otherwise it is "same".
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

namespace sluice::bench {

enum class change { same, faster, slower };

struct compared_row {
  std::string family, name, implementation, role;
  std::size_t n = 0;
  double before_ms = 0, after_ms = 0;
  double before_noise = 0, after_noise = 0;  ///< relative: 0.01 is 1%
  bool before_verified = true, after_verified = true;
  change verdict = change::same;
  /// before / after: above 1 the after run is faster.
  [[nodiscard]] double speedup() const { return after_ms > 0 ? before_ms / after_ms : 0; }
};

struct comparison {
  std::string before, after;  ///< "device, commit, date" of each run
  bool same_device = true;
  double threshold = 0;
  std::vector<compared_row> rows;
  std::vector<std::string> only_before, only_after;  ///< "family | case | implementation | n"
  [[nodiscard]] std::size_t count(change c) const;
  [[nodiscard]] std::size_t unverified() const;  ///< rows whose after run failed its check
};

inline constexpr double default_compare_threshold = 0.05;

/// Compares two documents as write_json writes them; throws sluice::invalid_argument naming the side
/// whose document is not a `sluice bench` result.
[[nodiscard]] comparison compare_runs(const nlohmann::json& before, const nlohmann::json& after, double threshold);

/// Reads and compares two files; throws sluice::invalid_argument naming a file that cannot be read or
/// parsed.
[[nodiscard]] comparison compare_files(const std::string& before_path, const std::string& after_path,
                                       double threshold = default_compare_threshold);

/// One line per row (the two times, the speed-up, the noise, the verdict), then the summary: how many rows
/// are slower, faster and the same, and the rows found in one run only.
void print_comparison(std::ostream& out, const comparison& c);

}  // namespace sluice::bench
