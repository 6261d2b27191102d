// bench/harness/strategies.hpp: whether the automatic strategy keeps its promise in a run: in every sweep
// of a call's strategies over one work, the automatic row within a tolerance of the fastest strategy.
#pragma once

#include "harness/result.hpp"

#include <iosfwd>
#include <string>
#include <vector>

namespace sluice::bench {

/// One sweep: the automatic row of a work beside the fastest row of the same work.
struct automatic_verdict {
  std::string family, work, implementation;
  std::size_t items = 0;
  std::string took;           ///< the strategy automatic resolved to
  double automatic_ms = 0;
  std::string fastest;        ///< the fastest strategy measured ("automatic" when automatic itself)
  double fastest_ms = 0;
  int strategies = 0;         ///< rows in the sweep, automatic included
  [[nodiscard]] double slowdown() const { return fastest_ms > 0 ? automatic_ms / fastest_ms : 1; }
};

/// The sweeps among `rows`: sluice rows with a strategy, grouped by result_row::strategy_group() (a case
/// may name each strategy's row in its implementation or in its name), that hold an automatic row and at
/// least one other strategy.
[[nodiscard]] std::vector<automatic_verdict> automatic_verdicts(const std::vector<result_row>& rows);

/// Default tolerance of the promise: automatic within 5% of the fastest strategy.
inline constexpr double automatic_tolerance = 0.05;

/// The summary under the table: how many sweeps keep the promise, then one line per sweep that does not.
void print_automatic_summary(std::ostream& out, const std::vector<automatic_verdict>& verdicts,
                             double tolerance = automatic_tolerance);

}  // namespace sluice::bench
