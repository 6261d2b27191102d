// Two `sluice bench` runs compared row by row (see compare.hpp).
#include "harness/compare.hpp"

#include <sluice/core/error.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <map>
#include <ostream>

namespace sluice::bench {
namespace {

struct side_row {
  std::string family, name, implementation, role;
  std::size_t n = 0;
  double median_ms = 0, noise = 0;
  bool verified = true;
};

/// The row's spread relative to its median: the quartiles where the file has them, else half the range.
double noise_of(const nlohmann::json& row, double median) {
  if (median <= 0) return 0;
  if (row.contains("q1_ms") && row.contains("q3_ms"))
    return (row.at("q3_ms").get<double>() - row.at("q1_ms").get<double>()) / median;
  return (row.value("max_ms", median) - row.value("min_ms", median)) / (2 * median);
}

/// The rows of one document, each under its key; the k-th repeat of a key gets "#k".
std::vector<std::pair<std::string, side_row>> rows_of(const nlohmann::json& document, const char* side) {
  if (!document.is_object() || !document.contains("rows") || !document.at("rows").is_array())
    throw invalid_argument("bench --compare", side, "is not a `sluice bench --json` document (no \"rows\" array)");
  std::vector<std::pair<std::string, side_row>> rows;
  std::map<std::string, int> seen;
  try {
    for (const auto& r : document.at("rows")) {
      side_row row{r.at("family").get<std::string>(), r.at("case").get<std::string>(),
                   r.at("implementation").get<std::string>(), r.value("role", std::string("subject")),
                   r.at("n").get<std::size_t>(), r.at("median_ms").get<double>(), 0, r.value("verified", true)};
      row.noise = noise_of(r, row.median_ms);
      std::string key = fmt::format("{} | {} | {} | {}", row.family, row.name, row.implementation, row.n);
      if (const int k = seen[key]++; k > 0) key += fmt::format(" #{}", k + 1);
      rows.emplace_back(std::move(key), std::move(row));
    }
  } catch (const nlohmann::json::exception& e) {
    throw invalid_argument("bench --compare", side, std::string("has a row without a needed field: ") + e.what());
  }
  return rows;
}

std::string describe(const nlohmann::json& document) {
  const auto env = document.value("environment", nlohmann::json::object());
  return fmt::format("{}, commit {}, {}", env.value("device", std::string("?")), env.value("commit", std::string("?")),
                     env.value("date", std::string("?")));
}

change judge(const side_row& before, const side_row& after, double threshold) {
  if (before.median_ms <= 0 || after.median_ms <= 0) return change::same;
  const double tolerance = std::max({threshold, before.noise, after.noise});
  const double moved = after.median_ms / before.median_ms - 1;
  if (moved > tolerance) return change::slower;
  if (moved < -tolerance / (1 + tolerance)) return change::faster;  // the same factor, the other way
  return change::same;
}

nlohmann::json read_json(const std::string& path, const char* side) {
  std::ifstream in(path);
  if (!in) throw invalid_argument("bench --compare", side, "'" + path + "' cannot be read");
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw invalid_argument("bench --compare", side, "'" + path + "' is not JSON: " + e.what());
  }
}

const char* verdict_name(const compared_row& r) {
  if (!r.after_verified) return "NOT VERIFIED";
  switch (r.verdict) {
    case change::faster: return "FASTER";
    case change::slower: return "SLOWER";
    case change::same: break;
  }
  return "same";
}

}  // namespace

std::size_t comparison::count(change c) const {
  return static_cast<std::size_t>(std::count_if(rows.begin(), rows.end(), [&](const compared_row& r) { return r.verdict == c; }));
}

std::size_t comparison::unverified() const {
  return static_cast<std::size_t>(std::count_if(rows.begin(), rows.end(), [](const compared_row& r) { return !r.after_verified; }));
}

comparison compare_runs(const nlohmann::json& before, const nlohmann::json& after, double threshold) {
  if (!(threshold >= 0)) throw invalid_argument("bench --compare", "threshold", "must be a fraction ≥ 0 (0.05 is 5%)");
  const auto before_rows = rows_of(before, "BEFORE");
  const auto after_rows = rows_of(after, "AFTER");
  comparison c;
  c.before = describe(before);
  c.after = describe(after);
  c.same_device = before.value("environment", nlohmann::json::object()).value("device", std::string()) ==
                  after.value("environment", nlohmann::json::object()).value("device", std::string());
  c.threshold = threshold;
  std::map<std::string, const side_row*> earlier;
  for (const auto& [key, row] : before_rows) earlier[key] = &row;
  for (const auto& [key, row] : after_rows) {
    const auto it = earlier.find(key);
    if (it == earlier.end()) {
      c.only_after.push_back(key);
      continue;
    }
    const side_row& b = *it->second;
    c.rows.push_back({row.family, row.name, row.implementation, row.role, row.n, b.median_ms, row.median_ms, b.noise,
                      row.noise, b.verified, row.verified, judge(b, row, threshold)});
    earlier.erase(it);
  }
  for (const auto& [key, row] : before_rows)
    if (earlier.contains(key)) c.only_before.push_back(key);
  return c;
}

comparison compare_files(const std::string& before_path, const std::string& after_path, double threshold) {
  const nlohmann::json before = read_json(before_path, "BEFORE");  // before AFTER: the first bad file is named
  return compare_runs(before, read_json(after_path, "AFTER"), threshold);
}

void print_comparison(std::ostream& out, const comparison& c) {
  out << "before: " << c.before << "\nafter:  " << c.after << "\n";
  if (!c.same_device) out << "warning: the two runs are on different devices\n";
  const auto line = "{:<12} {:<40} {:<36} {:>10} {:>10} {:>10} {:>8} {:>7} {:>7}  {}\n";
  out << fmt::format(fmt::runtime(line), "family", "case", "implementation", "n", "before ms", "after ms", "speed",
                     "noise b", "noise a", "verdict");
  for (const compared_row& r : c.rows)
    out << fmt::format(fmt::runtime(line), r.family, r.name, r.implementation, r.n, fmt::format("{:.4f}", r.before_ms),
                       fmt::format("{:.4f}", r.after_ms), fmt::format("{:.3f}x", r.speedup()),
                       fmt::format("{:.1f}%", 100 * r.before_noise), fmt::format("{:.1f}%", 100 * r.after_noise),
                       verdict_name(r));
  for (const auto& key : c.only_before) out << "only in before: " << key << "\n";
  for (const auto& key : c.only_after) out << "only in after:  " << key << "\n";
  out << fmt::format(
      "compare: {} rows matched (threshold {:.0f}% or the rows' noise): {} slower, {} faster, {} same; "
      "{} not verified after; {} only in before, {} only in after\n",
      c.rows.size(), 100 * c.threshold, c.count(change::slower), c.count(change::faster), c.count(change::same),
      c.unverified(), c.only_before.size(), c.only_after.size());
}

}  // namespace sluice::bench
