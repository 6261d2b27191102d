// Table, JSON, CSV and plot output of `sluice bench` (see report.hpp).
#include "harness/report.hpp"

#include "harness/strategies.hpp"

#include <sluice/core/error.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <utility>
#include <vector>

#ifndef SLUICE_PLOT_SCRIPT
#define SLUICE_PLOT_SCRIPT "scripts/plot_bench.py"
#endif

namespace sluice::bench {
namespace {

/// 2^28, 2^20+7 or a plain number: how the seeds and the issues write sizes.
std::string size_label(std::size_t n) {
  if (n == 0) return "0";
  const int log = static_cast<int>(std::bit_width(n)) - 1;
  const std::size_t power = std::size_t{1} << log;
  if (n == power && log >= 4) return fmt::format("2^{}", log);
  if (log >= 10 && n - power < 1000) return fmt::format("2^{}+{}", log, n - power);
  return std::to_string(n);
}

const char* role_name(role r) { return r == role::baseline ? "baseline" : "subject"; }

std::ofstream open_for_writing(const std::string& path) {
  if (const auto parent = std::filesystem::path(path).parent_path(); !parent.empty())
    std::filesystem::create_directories(parent);
  std::ofstream out(path);
  if (!out) throw invalid_argument("bench", "path", "'" + path + "' cannot be written");
  return out;
}

nlohmann::json to_json(const environment& env) {
  return {{"device", env.device},
          {"no_gpu_reason", env.no_gpu_reason},
          {"sm_count", env.sm_count},
          {"l2_bytes", env.l2_bytes},
          {"memory_bytes", env.memory_bytes},
          {"theoretical_bandwidth_bytes_per_s", env.theoretical_bandwidth},
          {"device_copy_bandwidth_bytes_per_s", env.device_copy_bandwidth},
          {"host_copy_bandwidth_bytes_per_s", env.host_copy_bandwidth},
          {"driver", env.driver},
          {"runtime", env.runtime},
          {"cccl", env.cccl},
          {"date", env.date},
          {"commit", env.commit},
          {"quick", env.quick}};
}

/// A row's model cell: {predicted_ms, error (a fraction, signed)} or {note}; null for baselines.
nlohmann::json model_json(const result_row& row) {
  if (row.kind != role::subject) return nullptr;
  if (!row.predicted_ms) return {{"predicted_ms", nullptr}, {"note", row.model_note}};
  const auto error = row.model_error();
  return {{"predicted_ms", *row.predicted_ms}, {"error", error ? nlohmann::json(*error) : nlohmann::json(nullptr)}};
}

nlohmann::json to_json(const model_summary& s) {
  return {{"profile", s.profile},         {"unavailable", s.unavailable},
          {"registers", s.registers},     {"modelled_rows", s.modelled},
          {"sluice_device_rows", s.subjects}, {"mean_abs_error", s.mean_abs_error},
          {"worst_error", s.worst_error}, {"worst_row", s.worst_row},
          {"error_definition", "(predicted - measured) / measured"}};
}

}  // namespace

double ratio_to_baseline(const run_result& result, const result_row& subject) {
  if (subject.kind != role::subject) return 0;
  for (const auto& row : result.rows)
    if (row.kind == role::baseline && row.group() == subject.group() && subject.median_ms > 0)
      return row.median_ms / subject.median_ms;
  return 0;
}

void print_environment(std::ostream& out, const environment& env) {
  if (env.device == "none") {
    out << fmt::format("device: none: no usable CUDA device ({})\n", env.no_gpu_reason);
  } else {
    out << fmt::format("device: {}, {} SMs, {:.1f} GB, L2 {:.0f} MB\n", env.device, env.sm_count, env.memory_bytes / 1e9,
                       env.l2_bytes / 1048576.0);
    out << fmt::format("bandwidth: theoretical {:.1f} GB/s, measured copy {:.1f} GB/s (cudaMemcpy D2D, read + write)\n",
                       env.theoretical_bandwidth / 1e9, env.device_copy_bandwidth / 1e9);
  }
  out << fmt::format("host copy: {:.1f} GB/s (memcpy, read + write)\n", env.host_copy_bandwidth / 1e9);
  out << fmt::format("driver {}, runtime {}, CCCL {}, {}, commit {}{}\n", env.driver, env.runtime, env.cccl, env.date,
                     env.commit, env.quick ? ", --quick" : "");
}

namespace {

/// The model column's two cells: predicted ms and the signed error, "—" where a sluice row has no
/// prediction, empty for baselines.
std::pair<std::string, std::string> model_cells(const result_row& row) {
  if (row.kind != role::subject) return {"", ""};
  if (!row.predicted_ms) return {"—", ""};
  const auto error = row.model_error();
  return {fmt::format("{:.4f}", *row.predicted_ms), error ? fmt::format("{:+.1f}%", 100 * *error) : ""};
}

/// "bms", or "automatic→bms" for the automatic row of a strategy sweep; empty outside sweeps.
std::string strategy_cell(const result_row& row) {
  if (row.took.empty()) return row.strategy;
  return row.strategy + "→" + row.took;
}

/// The summary under the table: the errors over the modelled rows, then why the others have no prediction
/// (one line a reason).
void print_model_summary(std::ostream& out, const run_result& result) {
  const model_summary& s = result.model;
  if (s.subjects == 0) return;
  if (!s.unavailable.empty()) {
    out << fmt::format("model: no predictions: {}\n", s.unavailable);
    return;
  }
  out << fmt::format("model ({}; registers: {}): {} of {} sluice rows on the device modelled", s.profile, s.registers,
                     s.modelled, s.subjects);
  if (s.modelled > 0)
    out << fmt::format(", mean |error| {:.1f}%, worst {:+.1f}% ({})", 100 * s.mean_abs_error, 100 * s.worst_error,
                       s.worst_row);
  out << "\n";
  std::vector<std::pair<std::string, int>> reasons;
  for (const auto& row : result.rows) {
    if (row.kind != role::subject || row.predicted_ms || row.model_note.empty()) continue;
    auto it = std::find_if(reasons.begin(), reasons.end(), [&](const auto& r) { return r.first == row.model_note; });
    if (it == reasons.end()) reasons.push_back({row.model_note, 1});
    else ++it->second;
  }
  for (const auto& [reason, count] : reasons) out << fmt::format("model —: {} row(s): {}\n", count, reason);
}

}  // namespace

void print_table(std::ostream& out, const run_result& result) {
  print_environment(out, result.env);
  const auto line = "{:<10} {:<30} {:<34} {:<22} {:>9} {:>10} {:>9} {:>7} {:>10} {:>8} {:>4} {:>10} {:>8}\n";
  out << fmt::format(fmt::runtime(line), "family", "case", "implementation", "strategy", "n", "ms", "GB/s", "%copy",
                     "Gitems/s", "vs base", "ok", "model ms", "error");
  for (const auto& row : result.rows) {
    const double ratio = ratio_to_baseline(result, row);
    const std::string versus = row.kind == role::baseline ? "base" : ratio > 0 ? fmt::format("{:.2f}x", ratio) : "-";
    const auto [predicted, error] = model_cells(row);
    out << fmt::format(fmt::runtime(line), row.family, row.name, row.implementation, strategy_cell(row),
                       size_label(row.items),
                       fmt::format("{:.4f}", row.median_ms), fmt::format("{:.1f}", row.bytes_per_second() / 1e9),
                       fmt::format("{:.1f}", row.percent_of_copy()), fmt::format("{:.2f}", row.items_per_second() / 1e9),
                       versus, row.verified ? "yes" : "NO", predicted, error);
  }
  print_model_summary(out, result);
  print_automatic_summary(out, automatic_verdicts(result.rows));
  if (!result.skipped.empty()) {
    out << fmt::format("skipped {} case(s){}:", result.skipped.size(),
                       result.env.no_gpu_reason.empty() ? "" : " (no GPU: " + result.env.no_gpu_reason + ")");
    for (const auto& s : result.skipped) out << " " << s;
    out << "\n";
  }
  for (const auto& f : result.failed) out << "FAILED " << f << "\n";
}

void write_json(const std::string& path, const run_result& result) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& row : result.rows) {
    rows.push_back({{"family", row.family},
                    {"case", row.name},
                    {"implementation", row.implementation},
                    {"role", role_name(row.kind)},
                    {"on_device", row.on_device},
                    {"n", row.items},
                    {"bytes", row.bytes},
                    {"median_ms", row.median_ms},
                    {"min_ms", row.min_ms},
                    {"max_ms", row.max_ms},
                    {"q1_ms", row.q1_ms},
                    {"q3_ms", row.q3_ms},
                    {"repetitions", row.repetitions},
                    {"strategy", row.strategy},
                    {"took", row.took},
                    {"work", row.work.empty() ? row.name : row.work},
                    {"gb_per_s", row.bytes_per_second() / 1e9},
                    {"percent_of_copy", row.percent_of_copy()},
                    {"items_per_s", row.items_per_second()},
                    {"ratio_to_baseline", ratio_to_baseline(result, row)},
                    {"verified", row.verified},
                    {"model", model_json(row)}});
  }
  nlohmann::json automatic = nlohmann::json::array();
  for (const automatic_verdict& v : automatic_verdicts(result.rows))
    automatic.push_back({{"family", v.family},
                         {"work", v.work},
                         {"implementation", v.implementation},
                         {"n", v.items},
                         {"took", v.took},
                         {"automatic_ms", v.automatic_ms},
                         {"fastest", v.fastest},
                         {"fastest_ms", v.fastest_ms},
                         {"strategies", v.strategies},
                         {"within_tolerance", v.slowdown() <= 1 + automatic_tolerance}});
  const nlohmann::json document = {{"environment", to_json(result.env)},
                                   {"rows", rows},
                                   {"automatic", automatic},
                                   {"model", to_json(result.model)},
                                   {"skipped", result.skipped},
                                   {"failed", result.failed}};
  open_for_writing(path) << document.dump(2) << "\n";
}

void write_csv(const std::string& path, const run_result& result) {
  auto out = open_for_writing(path);
  out << "family,case,implementation,role,on_device,n,bytes,median_ms,min_ms,max_ms,repetitions,gb_per_s,"
         "percent_of_copy,items_per_s,ratio_to_baseline,verified,device,commit,date,model_predicted_ms,model_error,"
         "strategy,took\n";
  for (const auto& row : result.rows) {
    const auto error = row.model_error();
    out << fmt::format("{},\"{}\",\"{}\",{},{},{},{},{},{},{},{},{},{},{},{},{},\"{}\",\"{}\",{},{},{},{},{}\n", row.family, row.name,
                       row.implementation, role_name(row.kind), row.on_device, row.items, row.bytes, row.median_ms,
                       row.min_ms, row.max_ms, row.repetitions, row.bytes_per_second() / 1e9, row.percent_of_copy(),
                       row.items_per_second(), ratio_to_baseline(result, row), row.verified, result.env.device,
                       result.env.commit, result.env.date, row.predicted_ms ? fmt::format("{}", *row.predicted_ms) : "",
                       error ? fmt::format("{}", *error) : "", row.strategy, row.took);
  }
}

bool write_plots(const std::string& directory, const run_result& result, std::string& why) {
  std::filesystem::create_directories(directory);
  const std::string json = (std::filesystem::path(directory) / "results.json").string();
  write_json(json, result);
  const std::string command = fmt::format("python3 '{}' '{}' '{}'", SLUICE_PLOT_SCRIPT, json, directory);
  const int status = std::system(command.c_str());
  if (status != 0) {
    why = fmt::format("'{}' exited with status {} (is matplotlib installed? scripts/setup.sh installs it)", command, status);
    return false;
  }
  return true;
}

}  // namespace sluice::bench
