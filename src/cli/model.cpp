// src/cli/model.cpp: `sluice model` (see model.hpp).
#include "model.hpp"

#include "model/calibrate/calibrate.hpp"
#include "model/calibrate/kernel_registers.hpp"
#include "model/families.hpp"
#include "model/report.hpp"

#include <sluice/core/error.hpp>

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <optional>

#ifndef SLUICE_MODEL_PROFILE_DIR
#define SLUICE_MODEL_PROFILE_DIR "src/model/profiles"
#endif

namespace sluice::cli {

namespace {

using namespace sluice::model;

/// "16777216" or "2^24".
std::uint64_t parse_size(const std::string& text, const char* option) {
  try {
    std::size_t used = 0;
    const auto caret = text.find('^');
    if (caret != std::string::npos) {
      const unsigned long long base = std::stoull(text.substr(0, caret), &used);
      std::size_t exponent_used = 0;
      const unsigned long long exponent = std::stoull(text.substr(caret + 1), &exponent_used);
      if (used != caret || exponent_used != text.size() - caret - 1 || exponent > 63) throw std::invalid_argument(text);
      std::uint64_t value = 1;
      for (unsigned long long e = 0; e < exponent; ++e) value *= base;
      return value;
    }
    const unsigned long long value = std::stoull(text, &used);
    if (used != text.size()) throw std::invalid_argument(text);
    return value;
  } catch (const std::exception&) {
    throw invalid_argument("model", option, "is '" + text + "': give a count (16777216) or a power (2^24)");
  }
}

std::optional<std::string> device_name(int device) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count <= device) {
    (void)cudaGetLastError();
    return std::nullopt;
  }
  cudaDeviceProp prop{};
  SLUICE_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  return std::string(prop.name);
}

std::string profile_path(const std::string& profile) {
  const bool path = profile.find('/') != std::string::npos || profile.ends_with(".json");
  return path ? profile : std::string(SLUICE_MODEL_PROFILE_DIR) + "/" + profile + ".json";
}

device_profile load_checked_profile(const model_arguments& args) {
  const std::string path = profile_path(args.profile);
  device_profile p = load_profile(path);
  if (const auto name = device_name(args.device); name && !args.foreign_profile) require_device(p, *name, path);
  return p;
}

/// The compiled kernels' registers on a GPU, ptxas's table without one; then the --registers overrides.
register_table registers_for(const model_arguments& args, std::ostream& log) {
  register_table table;
  if (device_name(args.device)) {
    SLUICE_CUDA_CHECK(cudaSetDevice(args.device));
    table = compiled_registers();
    log << "registers: cudaFuncGetAttributes of the kernels compiled into this binary\n";
  } else {
    table = ptxas_registers();
    log << "registers: ptxas -v of the kernels (no GPU here to ask; see `sluice model registers`)\n";
  }
  for (const std::string& entry : args.registers) {
    const auto equals = entry.find('=');
    int value = 0;
    try {
      value = std::stoi(entry.substr(equals + 1));
    } catch (const std::exception&) {
      value = 0;
    }
    if (equals == std::string::npos || value <= 0)
      throw invalid_argument("model", "--registers", "is '" + entry + "': give KEY=R, e.g. pairwise/merge/k4v0/E17=80");
    table[entry.substr(0, equals)] = value;
  }
  return table;
}

std::string utc_date() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%d", &tm);
  return text;
}

int run_calibrate(const model_arguments& args) {
  const char* commit = std::getenv("SLUICE_COMMIT");
  calibrate_options options;
  options.device = args.device;
  options.quick = args.quick;
  options.repetitions = args.repetitions;
  options.measured = utc_date() + ", commit " + (commit != nullptr ? commit : "unknown (set SLUICE_COMMIT)") +
                     ", `sluice model calibrate" + (args.quick ? " --quick" : "") + "`";
  const device_profile p = calibrate(options, std::cout);
  const std::string text = profile_json(p);
  if (args.out.empty()) {
    std::cout << "\n" << text;
    return 0;
  }
  std::ofstream file(args.out);
  if (!file || !(file << text)) throw profile_error("sluice model calibrate: cannot write " + args.out);
  std::cout << "profile written to " << args.out << "\n";
  return 0;
}

void print(const device_profile& p, const algorithm_model& m, const model_arguments& args) {
  print_estimate(std::cout, p, m, evaluate(p, m, {.ceil_latency = args.ceil_latency}));
}

void print_choices(const std::vector<choice>& choices, const char* name) {
  const auto best = std::min_element(choices.begin(), choices.end(),
                                     [](const choice& a, const choice& b) { return a.seconds < b.seconds; });
  std::cout << fmt::format("{:>4}  predicted (ms)\n", name);
  for (const choice& c : choices)
    std::cout << fmt::format("{:>4}  {:>14.4f}{}\n", c.value, c.seconds * 1e3, &c == &*best ? "  <- the model's choice" : "");
  std::cout << "\n";
}

int run_merge_sort(const model_arguments& args) {
  const device_profile p = load_checked_profile(args);
  const register_table registers = registers_for(args, std::cout);
  merge_sort_problem q;
  q.n = parse_size(args.n, "--n");
  q.key_bytes = args.key_bytes;
  q.key_align = args.key_align != 0 ? args.key_align : std::min<std::size_t>(args.key_bytes & (~args.key_bytes + 1), 8);
  q.value_bytes = args.value_bytes;
  q.stability_observable = args.tagged;
  q.items_per_thread = args.items;
  q.ways = args.ways;
  q.block_sort_beta = args.block_sort_beta;
  q.merge_beta = args.merge_beta;
  const bool gpu_mms = args.sort_algorithm == "gpu_mms";
  if (!gpu_mms && args.sort_algorithm != "pairwise")
    throw invalid_argument("model merge_sort", "--algorithm", "is '" + args.sort_algorithm + "': pairwise or gpu_mms");
  if (args.choose) {
    const auto choices = gpu_mms ? gpu_mms_ways_sweep(p, q, registers) : pairwise_items_sweep(p, q, registers);
    print_choices(choices, gpu_mms ? "K" : "E");
    const auto best = std::min_element(choices.begin(), choices.end(),
                                       [](const choice& a, const choice& b) { return a.seconds < b.seconds; });
    (gpu_mms ? q.ways : q.items_per_thread) = best->value;
  }
  print(p, gpu_mms ? gpu_mms_sort(p, q, registers) : pairwise_merge_sort(p, q, registers), args);
  return 0;
}

int run_search(const model_arguments& args) {
  const device_profile p = load_checked_profile(args);
  const register_table registers = registers_for(args, std::cout);
  search_problem q;
  q.keys = parse_size(args.n, "--n");
  q.queries = parse_size(args.m, "--m");
  q.key_bytes = args.key_bytes;
  q.out_bytes = args.out_bytes;
  q.node_bytes = args.node_bytes;
  if (args.search_algorithm == "sorted") q.layout = search_layout::sorted;
  else if (args.search_algorithm == "eytzinger") q.layout = search_layout::eytzinger;
  else if (args.search_algorithm == "btree") q.layout = search_layout::btree;
  else
    throw invalid_argument("model search", "--algorithm",
                           "is '" + args.search_algorithm + "': sorted, eytzinger or btree");
  print(p, batched_search(p, q, registers), args);
  return 0;
}

int run_streaming(const model_arguments& args, streaming_kind kind) {
  const device_profile p = load_checked_profile(args);
  print(p, streaming(p, kind, parse_size(args.n, "--n"), args.element_bytes), args);
  return 0;
}

int run_transpose(const model_arguments& args) {
  const device_profile p = load_checked_profile(args);
  const register_table registers = registers_for(args, std::cout);
  print(p, vector_tiled_transpose(p, {parse_size(args.n, "--n"), parse_size(args.m, "--m"), args.element_bytes}, registers),
        args);
  return 0;
}

int run_histogram(const model_arguments& args) {
  const device_profile p = load_checked_profile(args);
  const register_table registers = registers_for(args, std::cout);
  print(p, byte_counts_histogram(p, {parse_size(args.n, "--n"), parse_size(args.m, "--m"), 1}, registers), args);
  return 0;
}

/// gather or the direct any_writer scatter by 32-bit indices.
int run_indexed(const model_arguments& args, bool scatter) {
  const device_profile p = load_checked_profile(args);
  const register_table registers = registers_for(args, std::cout);
  const indexed_problem q{parse_size(args.n, "--n"), args.element_bytes, 4, !args.consecutive};
  print(p, scatter ? direct_scatter(p, q, registers) : direct_gather(p, q, registers), args);
  return 0;
}

/// The segmented family: merge_path (reductions by offsets) or the flat strategy (segments given by
/// offsets, flags or keys).
int run_segmented(const model_arguments& args) {
  const device_profile p = load_checked_profile(args);
  const register_table registers = registers_for(args, std::cout);
  segmented_problem q;
  q.n = parse_size(args.n, "--n");
  q.segments = parse_size(args.m, "--m");
  q.value_bytes = args.element_bytes;
  q.key_bytes = args.key_bytes;
  q.reduce = !args.scan;
  if (args.heads == "offsets") q.heads = segment_heads::offsets;
  else if (args.heads == "flags") q.heads = segment_heads::flags;
  else if (args.heads == "keys") q.heads = segment_heads::keys;
  else throw invalid_argument("model segmented", "--heads", "is '" + args.heads + "': offsets, flags or keys");
  if (args.segmented_algorithm == "flat") print(p, flat_segmented(p, q, registers), args);
  else if (args.segmented_algorithm == "merge_path") print(p, merge_path_segmented_reduce(p, q, registers), args);
  else
    throw invalid_argument("model segmented", "--algorithm",
                           "is '" + args.segmented_algorithm + "': merge_path (reductions by offsets) or flat");
  return 0;
}

int run_registers(const model_arguments& args) {
  const register_table table = registers_for(args, std::cout);
  for (const auto& [key, value] : table) std::cout << fmt::format("{:<36} {}\n", key, value);
  return 0;
}

void add_profile_options(CLI::App* command, model_arguments& args) {
  command->add_option("--profile", args.profile, "Profile name (src/model/profiles/NAME.json) or path")
      ->capture_default_str();
  command->add_flag("--foreign-profile", args.foreign_profile, "Allow a profile measured on another device");
  command->add_flag("--ceil", args.ceil_latency, "Round L/M up to whole cycles (Karsin §3.1.3)");
  command->add_option("--device", args.device, "CUDA device")->capture_default_str();
}

void add_register_option(CLI::App* command, model_arguments& args) {
  command->add_option("--registers", args.registers, "KEY=R: registers of a kernel (see `sluice model registers`)");
}

/// A subcommand that predicts a family's kernels: the profile's and the registers' options.
CLI::App* add_prediction(CLI::App* model, const char* name, const std::string& description, model_arguments& args) {
  auto* command = model->add_subcommand(name, description);
  add_profile_options(command, args);
  add_register_option(command, args);
  return command;
}

}  // namespace

CLI::App* add_model_command(CLI::App& app, model_arguments& args) {
  auto* model = app.add_subcommand("model", "The SPT performance model (Karsin): calibrate a GPU, predict a kernel");
  model->require_subcommand(1);

  auto* calibrate = model->add_subcommand("calibrate", "Run the microbenchmarks and write this GPU's profile");
  calibrate->add_option("--out", args.out, "Write the profile here (default: print it)");
  calibrate->add_flag("--quick", args.quick, "Fewer points, smaller arrays, 3 repetitions");
  calibrate->add_option("--repetitions", args.repetitions, "Timed runs a point (the median counts)")->capture_default_str();
  calibrate->add_option("--device", args.device, "CUDA device")->capture_default_str();

  auto* show = model->add_subcommand("show", "Print a profile's parameters");
  show->add_option("--profile", args.profile, "Profile name or path")->capture_default_str();

  auto* registers = model->add_subcommand("registers", "Print the kernel register table the model uses");
  add_register_option(registers, args);
  registers->add_option("--device", args.device, "CUDA device")->capture_default_str();

  auto* merge_sort = add_prediction(model, "merge_sort", "Predict the pairwise merge sort or GPU-MMS", args);
  merge_sort->add_option("--algorithm", args.sort_algorithm, "pairwise or gpu_mms")->capture_default_str();
  merge_sort->add_option("--n", args.n, "Keys (16777216 or 2^24)")->required();
  merge_sort->add_option("--key-bytes", args.key_bytes, "Bytes a key")->capture_default_str();
  merge_sort->add_option("--key-align", args.key_align, "Alignment of a key (default: its size, at most 8)");
  merge_sort->add_option("--value-bytes", args.value_bytes, "Bytes a value (0: keys only)")->capture_default_str();
  merge_sort->add_flag("--tagged", args.tagged,
                       "GPU-MMS: (key, index) items (stability observable: not integral keys under less or greater)");
  merge_sort->add_option("--items", args.items, "Pairwise E (default: the tuning table's)");
  merge_sort->add_option("--ways", args.ways, "GPU-MMS K (default: the tuning table's)");
  merge_sort->add_flag("--choose", args.choose, "Predict every E (pairwise) or K (gpu_mms) and take the fastest");
  merge_sort->add_option("--block-sort-beta", args.block_sort_beta, "Pairwise: β of the block sort's merges (default: bank model)");
  merge_sort->add_option("--merge-beta", args.merge_beta, "Pairwise: β of a round's merges (default: bank model)");

  auto* search = add_prediction(model, "search", "Predict a batched search (sorted, eytzinger, btree layouts)", args);
  search->add_option("--algorithm", args.search_algorithm, "sorted, eytzinger or btree")->capture_default_str();
  search->add_option("--n", args.n, "Keys")->required();
  search->add_option("--m", args.m, "Queries")->required();
  search->add_option("--key-bytes", args.key_bytes, "Bytes a key")->capture_default_str();
  search->add_option("--out-bytes", args.out_bytes, "Bytes an answer")->capture_default_str();
  search->add_option("--node-bytes", args.node_bytes, "B-tree node bytes (default: the tuning table's)");

  auto* transpose = add_prediction(model, "transpose", "Predict the tile transpose (vector_tiled) of a rows × cols matrix", args);
  transpose->add_option("--n", args.n, "Rows")->required();
  transpose->add_option("--m", args.m, "Columns")->required();
  transpose->add_option("--bytes", args.element_bytes, "Bytes an element (1, 2, 4, 8 or 16)")->capture_default_str();

  auto* histogram = add_prediction(model, "histogram", "Predict the histogram of 1-byte samples (byte_counts)", args);
  histogram->add_option("--n", args.n, "Samples (bytes)")->required();
  histogram->add_option("--m", args.m, "Bins")->required();

  for (const char* name : {"gather", "scatter"}) {
    const std::string what = std::string("Predict ") + name + " by 32-bit indices (scatter: direct, any_writer)";
    auto* indexed = add_prediction(model, name, what, args);
    indexed->add_option("--n", args.n, "Indices")->required();
    indexed->add_option("--bytes", args.element_bytes, "Bytes a value")->capture_default_str();
    indexed->add_flag("--consecutive", args.consecutive, "Consecutive indices (identity) instead of random ones");
  }

  auto* segmented = add_prediction(model, "segmented", "Predict a segmented reduction or scan", args);
  segmented->add_option("--algorithm", args.segmented_algorithm, "merge_path (reductions by offsets) or flat")
      ->capture_default_str();
  segmented->add_option("--n", args.n, "Elements")->required();
  segmented->add_option("--m", args.m, "Segments (runs of equal keys with --heads keys)")->required();
  segmented->add_option("--heads", args.heads, "offsets, flags or keys")->capture_default_str();
  segmented->add_option("--bytes", args.element_bytes, "Bytes a value")->capture_default_str();
  segmented->add_option("--key-bytes", args.key_bytes, "Bytes a key (--heads keys)")->capture_default_str();
  segmented->add_flag("--scan", args.scan, "The scan (every element stored) instead of the reduction");

  for (const char* name : {"copy", "reduce", "scan", "recurrence"}) {
    auto* streaming_command = model->add_subcommand(name, std::string("Predict ") + name + " over n elements");
    add_profile_options(streaming_command, args);
    streaming_command->add_option("--n", args.n, "Elements")->required();
    streaming_command->add_option("--bytes", args.element_bytes, "Bytes an element")->capture_default_str();
  }
  return model;
}

int run_model(const CLI::App& model, const model_arguments& args) {
  const auto chosen = [&](const char* name) { return model.got_subcommand(name); };
  if (chosen("calibrate")) return run_calibrate(args);
  if (chosen("show")) {
    print_profile(std::cout, load_profile(profile_path(args.profile)));
    return 0;
  }
  if (chosen("registers")) return run_registers(args);
  if (chosen("merge_sort")) return run_merge_sort(args);
  if (chosen("search")) return run_search(args);
  if (chosen("transpose")) return run_transpose(args);
  if (chosen("segmented")) return run_segmented(args);
  if (chosen("histogram")) return run_histogram(args);
  if (chosen("gather")) return run_indexed(args, false);
  if (chosen("scatter")) return run_indexed(args, true);
  if (chosen("copy")) return run_streaming(args, streaming_kind::copy);
  if (chosen("reduce")) return run_streaming(args, streaming_kind::reduce);
  if (chosen("scan")) return run_streaming(args, streaming_kind::scan);
  if (chosen("recurrence")) return run_streaming(args, streaming_kind::recurrence);
  return 2;
}

}  // namespace sluice::cli
