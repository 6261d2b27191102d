// The automatic strategy against the fastest of its sweep (see strategies.hpp).
#include "harness/strategies.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <ostream>

namespace sluice::bench {

std::vector<automatic_verdict> automatic_verdicts(const std::vector<result_row>& rows) {
  std::map<std::string, std::vector<const result_row*>> sweeps;
  std::vector<std::string> order;  // first appearance, so the summary reads like the table
  for (const result_row& row : rows) {
    if (row.kind != role::subject || row.strategy.empty()) continue;
    const std::string key = row.strategy_group();
    auto& sweep = sweeps[key];
    if (sweep.empty()) order.push_back(key);
    sweep.push_back(&row);
  }
  std::vector<automatic_verdict> verdicts;
  for (const auto& key : order) {
    const auto& sweep = sweeps[key];
    const auto automatic =
        std::find_if(sweep.begin(), sweep.end(), [](const result_row* r) { return r->strategy == "automatic"; });
    if (automatic == sweep.end() || sweep.size() < 2) continue;
    const result_row* fastest = *std::min_element(
        sweep.begin(), sweep.end(), [](const result_row* a, const result_row* b) { return a->median_ms < b->median_ms; });
    const result_row& a = **automatic;
    verdicts.push_back({a.family, a.work.empty() ? a.name : a.work, a.implementation, a.items, a.took, a.median_ms,
                        fastest->strategy, fastest->median_ms, static_cast<int>(sweep.size())});
  }
  return verdicts;
}

void print_automatic_summary(std::ostream& out, const std::vector<automatic_verdict>& verdicts, double tolerance) {
  if (verdicts.empty()) return;
  const auto misses = std::count_if(verdicts.begin(), verdicts.end(),
                                    [&](const automatic_verdict& v) { return v.slowdown() > 1 + tolerance; });
  out << fmt::format("automatic: {} of {} strategy sweeps within {:.0f}% of the fastest strategy; {} not\n",
                     static_cast<long>(verdicts.size()) - misses, verdicts.size(), 100 * tolerance, misses);
  for (const automatic_verdict& v : verdicts) {
    if (v.slowdown() <= 1 + tolerance) continue;
    out << fmt::format("automatic NOT within {:.0f}%: {} {} n={}: automatic{} {:.4f} ms, {} {:.4f} ms ({:.2f}x)\n",
                       100 * tolerance, v.family, v.work, v.items, v.took.empty() ? "" : " (took " + v.took + ")",
                       v.automatic_ms, v.fastest, v.fastest_ms, v.slowdown());
  }
}

}  // namespace sluice::bench
