// The model column of `sluice bench` (see model_column.hpp).
#include "harness/model_column.hpp"
#include "harness/runner.hpp"

#include "model/calibrate/kernel_registers.hpp"
#include "model/problem.hpp"
#include "model/profile.hpp"
#include "model/spt.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>
#include <cstdlib>
#include <string>
#include <vector>

#ifndef SLUICE_MODEL_PROFILE_DIR
#define SLUICE_MODEL_PROFILE_DIR "src/model/profiles"
#endif

namespace sluice::bench {

namespace {

/// The profiles' folder: $SLUICE_MODEL_PROFILES, else the source tree's that the build compiled in (a binary
/// moved to another machine finds its profiles through the variable).
std::string profile_folder() {
  const char* set = std::getenv("SLUICE_MODEL_PROFILES");
  return set != nullptr && *set != '\0' ? std::string(set) : std::string(SLUICE_MODEL_PROFILE_DIR);
}

/// The profile in profile_folder() measured on `device` (the first by file name), or why none.
std::optional<model::device_profile> profile_for(const std::string& device, std::string& path, std::string& why) {
  const std::string folder = profile_folder();
  std::vector<std::filesystem::path> files;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(folder, error))
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  std::string seen;
  for (const auto& file : files) {
    try {
      model::device_profile p = model::load_profile(file.string());
      model::require_device(p, device, file.string());
      path = file.string();
      return p;
    } catch (const model::profile_error& e) {
      seen += (seen.empty() ? "" : "; ") + file.filename().string();
    }
  }
  why = "no profile in " + folder + " was measured on '" + device + "' (" +
        (seen.empty() ? std::string("none there") : "there: " + seen) + "): run `sluice model calibrate --out " +
        folder + "/NAME.json` on it, or point SLUICE_MODEL_PROFILES at a folder that has one";
  return std::nullopt;
}

/// ptxas's table, with every kernel compiled into this binary as cudaFuncGetAttributes reports it.
model::register_table registers(std::string& source) {
  model::register_table table = model::ptxas_registers();
  for (const auto& [key, value] : model::compiled_registers()) table[key] = value;
  source = "cudaFuncGetAttributes of the kernels compiled into this binary (ptxas's table for the rest)";
  return table;
}

std::string row_id(const result_row& row) {
  return row.family + "/" + row.name + " [" + row.implementation + "] n = " + std::to_string(row.items);
}

}  // namespace

void summarise_model(const std::vector<result_row>& rows, model_summary& s) {
  s.modelled = 0;
  s.subjects = 0;
  s.mean_abs_error = 0;
  s.worst_error = 0;
  s.worst_row.clear();
  double sum = 0;
  for (const result_row& row : rows) {
    if (row.kind != role::subject || !row.on_device) continue;
    ++s.subjects;
    const auto error = row.model_error();
    if (!error) continue;
    ++s.modelled;
    sum += std::abs(*error);
    if (s.worst_row.empty() || std::abs(*error) > std::abs(s.worst_error)) {
      s.worst_error = *error;
      s.worst_row = row_id(row);
    }
  }
  if (s.modelled > 0) s.mean_abs_error = sum / s.modelled;
}

void add_model_column(run_result& result) {
  model_summary& s = result.model;
  std::optional<model::device_profile> profile;
  if (result.env.device == "none") s.unavailable = "no GPU: the model predicts the device's rows only";
  else profile = profile_for(result.env.device, s.profile, s.unavailable);
  model::register_table table;
  if (profile) {
    try {
      table = registers(s.registers);
    } catch (const std::exception& e) {
      s.unavailable = std::string("the kernels' registers could not be read: ") + e.what();
      profile.reset();
    }
  }
  for (result_row& row : result.rows) {
    if (row.kind != role::subject) continue;
    if (!row.on_device) {
      row.model_note = "a host row: the model describes GPU kernels";
    } else if (!row.model_problem) {
      row.model_note = row.family + ": no model for this family (docs/model.md)";
    } else if (!profile) {
      row.model_note = s.unavailable;
    } else {
      try {
        const model::estimate e = model::evaluate(*profile, model::model_of(*profile, *row.model_problem, table));
        row.predicted_ms = e.seconds * 1e3;
      } catch (const sluice::error& e) {
        row.model_note = e.what();
      }
    }
  }
  summarise_model(result.rows, s);
}

}  // namespace sluice::bench
