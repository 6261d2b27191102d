// src/cli/model.hpp: `sluice model`, the SPT performance model (src/model, docs/model.md):
//   sluice model calibrate [--out FILE] [--quick]        measure this GPU's profile (needs a GPU)
//   sluice model show [--profile P]                      the profile's L, B, L·B per operation type
//   sluice model merge_sort --n N [--algorithm pairwise|gpu_mms] [--key-bytes B] [--value-bytes B]
//                           [--items E | --ways K | --choose] …
//   sluice model search --n N --m Q [--algorithm sorted|eytzinger|btree] [--node-bytes B]
//   sluice model copy|reduce|scan --n N [--bytes B]
//   sluice model registers                               the register table the model uses
// The prediction is printed as the |K| × |Φ| matrix with each kernel's plan and per-operation terms.
// P is a profile name (src/model/profiles/P.json) or a path; on a GPU it must be this GPU's profile.
#pragma once

#include <CLI/CLI.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace sluice::cli {

struct model_arguments {
  std::string profile = "h100";
  bool foreign_profile = false;  ///< allow a profile measured on another device
  bool ceil_latency = false;
  std::vector<std::string> registers;  ///< KEY=R overrides

  std::string out;  ///< calibrate: where to write the profile
  bool quick = false;
  int repetitions = 7;
  int device = 0;

  std::string sort_algorithm = "pairwise";
  std::string search_algorithm = "btree";
  std::string n, m;  ///< sizes: 16777216 or 2^24
  std::size_t key_bytes = 4;
  std::size_t key_align = 0;  ///< 0: the key's size up to 8
  std::size_t value_bytes = 0;
  bool tagged = false;        ///< GPU-MMS items carry their index (stability observable)
  int items = 0;
  int ways = 0;
  bool choose = false;
  double block_sort_beta = 0, merge_beta = 0;
  std::size_t out_bytes = 4;
  std::size_t node_bytes = 0;
  std::size_t element_bytes = 4;
  bool consecutive = false;  ///< gather: consecutive indices
  std::string segmented_algorithm = "merge_path";  ///< segmented: merge_path or flat
  std::string heads = "offsets";                   ///< segmented: offsets, flags or keys
  bool scan = false;  ///< segmented: the scan (every element stored) instead of the reduction
};

/// Registers `model` and its subcommands on `app`.
CLI::App* add_model_command(CLI::App& app, model_arguments& args);

/// Runs the subcommand of `model` that was parsed; returns the exit status.
int run_model(const CLI::App& model, const model_arguments& args);

}  // namespace sluice::cli
