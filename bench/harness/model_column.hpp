// bench/harness/model_column.hpp: the "model" column of `sluice bench`: for every sluice row on the
// device whose case described its problem to the SPT model (work_description::model), the predicted time
// and the signed error against the measured median; the others say why they have none. The model reads
// the profile of this device (src/model/profiles/*.json whose device name is this GPU's: the loader's
// foreign-device check) and the registers of the kernels compiled into this binary (ptxas's table for
// kernels it does not hold). docs/model.md says how to read it.
#pragma once

#include "harness/result.hpp"

#include <optional>
#include <string>
#include <vector>

namespace sluice::bench {

struct model_summary {
  std::string profile;            ///< the profile's path, empty when there is none for this device
  std::string unavailable;        ///< why no row is modelled at all (no GPU, no profile), else empty
  std::string registers;          ///< where the kernels' registers came from
  int modelled = 0;               ///< rows with a prediction
  int subjects = 0;               ///< sluice rows on the device
  double mean_abs_error = 0;      ///< over the modelled rows
  double worst_error = 0;         ///< signed, the largest in magnitude
  std::string worst_row;          ///< "family/case [implementation] n"
};

struct run_result;

/// Fills every row's prediction or note and the summary (run_benchmarks calls it after the cases).
void add_model_column(run_result& result);

/// The summary of `rows` as it stands (predictions already filled).
void summarise_model(const std::vector<result_row>& rows, model_summary& summary);

}  // namespace sluice::bench
