// sluice: the command-line tool.
//   sluice info                      the device (or that there is none) and its measured copy bandwidth
//   sluice bench [family...] [--quick] [--gpu-only] [--json F] [--csv F] [--plot DIR] [--list]
//                                    runs the benchmark registry; without a GPU, the host cases
//   sluice bench --compare BEFORE.json AFTER.json [--threshold F] [--fail-on-regression]
//                                    two runs row by row: times, ratio, a noise-aware verdict
//   sluice simulate [--quick] ...    the cache simulator against the measured CPU multireduce
//   sluice grep [-F] [-c] [-n] [-o] [-b] [-e PATTERN]... [-f FILE]... [PATTERN] [FILE...]
//                                    fixed-string grep on the GPU (string_match), the CPU without one
//   sluice model SUBCOMMAND ...      the SPT performance model: calibrate, predict (docs/model.md)
#include "grep.hpp"
#include "grep_gpu.hpp"
#include "model.hpp"
#include "simulate.hpp"

#include "harness/compare.hpp"
#include "harness/registry.hpp"
#include "harness/report.hpp"
#include "harness/runner.hpp"

#include <sluice/core/error.hpp>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <iostream>

namespace {

int run_info(bool quick) {
  const auto env = sluice::bench::describe_environment(quick);
  sluice::bench::print_environment(std::cout, env);
  if (env.device != "none") {
    sluice::context ctx(0);
    const auto& p = ctx.properties();
    std::cout << fmt::format(
        "compute capability {}.{}, shared memory {} KiB per block ({} KiB opt-in), {} KiB per SM, {} registers per SM\n",
        p.compute_capability_major, p.compute_capability_minor, p.shared_memory_per_block / 1024,
        p.shared_memory_per_block_optin / 1024, p.shared_memory_per_sm / 1024, p.registers_per_sm);
    std::cout << fmt::format("memory clock {} MHz, bus {} bits\n", p.memory_clock_khz / 1000, p.memory_bus_width_bits);
  }
  return 0;
}

struct bench_arguments {
  std::vector<std::string> families;
  bool quick = false;
  bool gpu_only = false;
  bool list = false;
  std::string case_filter;
  std::string implementation_filter;
  std::string json, csv, plot;
  std::vector<std::string> compare;  ///< BEFORE.json AFTER.json
  double threshold = sluice::bench::default_compare_threshold;
  bool fail_on_regression = false;
};

int run_compare(const bench_arguments& args) {
  const auto c = sluice::bench::compare_files(args.compare[0], args.compare[1], args.threshold);
  sluice::bench::print_comparison(std::cout, c);
  const bool regressed = c.count(sluice::bench::change::slower) > 0 || c.unverified() > 0;
  return args.fail_on_regression && regressed ? 1 : 0;
}

int run_bench(const bench_arguments& args) {
  if (!args.compare.empty()) return run_compare(args);
  if (args.list) {
    for (const auto& c : sluice::bench::registry())
      std::cout << fmt::format("{:<12} {:<32} {}\n", c.family, c.name, c.needs_gpu ? "gpu" : "host");
    return 0;
  }
  const auto result = sluice::bench::run_benchmarks(
      {args.quick, args.families, args.gpu_only, args.case_filter, args.implementation_filter}, std::cerr);
  sluice::bench::print_table(std::cout, result);
  if (!args.json.empty()) sluice::bench::write_json(args.json, result);
  if (!args.csv.empty()) sluice::bench::write_csv(args.csv, result);
  if (!args.plot.empty()) {
    std::string why;
    if (!sluice::bench::write_plots(args.plot, result, why)) std::cout << "plots skipped: " << why << "\n";
  }
  return result.failed.empty() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"sluice: data-parallel primitives and dynamic GPU data structures"};
  app.require_subcommand(1);

  bool info_quick = false;
  auto* info = app.add_subcommand("info", "Print the device (or say there is none) and its measured copy bandwidth");
  info->add_flag("--quick", info_quick, "Shorter bandwidth measurement");

  bench_arguments args;
  auto* bench = app.add_subcommand("bench", "Run the benchmark registry (sluice against CUB/Thrust, verified)");
  bench->add_option("family", args.families, "Families to run (default: all); see --list");
  bench->add_flag("--quick", args.quick, "Fewer sizes and repetitions");
  bench->add_flag("--gpu-only", args.gpu_only, "Skip the host (CPU) cases");
  bench->add_option("--case", args.case_filter,
                    "Only the cases whose family/name contains this text (e.g. \"bit-field buckets keys\")");
  bench->add_option("--implementation", args.implementation_filter,
                    "Only the rows whose implementation contains this text (e.g. \"[onesweep]\"), and the baselines");
  bench->add_flag("--list", args.list, "List the registered cases and exit");
  bench->add_option("--json", args.json, "Write every row to this JSON file");
  bench->add_option("--csv", args.csv, "Write every row to this CSV file");
  bench->add_option("--plot", args.plot, "Write PNG plots of the sweeps into this directory");
  auto* compare = bench->add_option("--compare", args.compare,
                                    "Compare two --json files (BEFORE AFTER) row by row instead of running")
                      ->expected(2);
  bench->add_option("--threshold", args.threshold,
                    "--compare: the least change that counts, as a fraction (default 0.05); a row's own noise "
                    "raises it")
      ->needs(compare)
      ->check(CLI::NonNegativeNumber);
  bench->add_flag("--fail-on-regression", args.fail_on_regression,
                  "--compare: exit with 1 when a row is slower or fails its check")
      ->needs(compare);

  sluice::cli::simulate_arguments simulate_args;
  auto* simulate = sluice::cli::add_simulate_command(app, simulate_args);

  sluice::cli::grep_arguments grep_args;
  auto* grep = sluice::cli::add_grep_command(app, grep_args);

  sluice::cli::model_arguments model_args;
  auto* model = sluice::cli::add_model_command(app, model_args);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int status = app.exit(e);
    return status != 0 && grep->parsed() ? 2 : status;  // grep's usage errors exit with 2, as grep's do
  }
  try {
    if (*info) return run_info(info_quick);
    if (*simulate) return sluice::cli::run_simulate(simulate_args);
    if (*grep) return sluice::cli::run_grep(grep_args, std::cout, std::cerr, sluice::cli::make_gpu_grep_scanner);
    if (*model) return sluice::cli::run_model(*model, model_args);
    return run_bench(args);
  } catch (const sluice::error& e) {
    std::cerr << e.what() << "\n";
    return 2;
  }
}
