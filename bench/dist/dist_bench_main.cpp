// sluice_dist_bench's command line: runs bench/dist/dist_bench.cu's measurements, prints the table and
// writes the JSON (every row, the device, driver, NCCL version, commit and date).
//   sluice_dist_bench [--gpus N] [--quick] [--repetitions R] [--only sort|pairs|multireduce|hash|alltoall]
//                     [--json FILE]
#include "dist/dist_bench.hpp"

#include <sluice/core/error.hpp>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <ctime>
#include <fstream>
#include <iostream>
#include <string>

namespace {

using sluice::dist_bench::result;
using sluice::dist_bench::row;

void print(const result& r, std::ostream& out) {
  out << fmt::format("sluice_dist_bench on {} x {} (driver {}, NCCL {}, commit {})\n", r.gpus, r.device, r.driver,
                     r.nccl, SLUICE_CONFIGURE_COMMIT);
  out << fmt::format("{:<22} {:<40} {:>4} {:>11} {:>10} {:>8} {:>9}  {}\n", "bench", "implementation", "gpus",
                     "items/gpu", "median ms", "scaling", "exch/NCCL", "phases (slowest rank, ms); verified");
  for (const row& x : r.rows) {
    std::string phases;
    for (std::size_t p = 0; p < x.phases.size(); ++p) phases += fmt::format("{} {:.2f}  ", x.phases[p], x.phase_ms[p]);
    out << fmt::format("{:<22} {:<40} {:>4} {:>11} {:>10.3f} {:>8} {:>9}  {}{}\n", x.bench, x.implementation, x.gpus,
                       x.per_gpu, x.median_ms, x.scaling > 0 ? fmt::format("{:.3f}", x.scaling) : "",
                       x.exchange_vs_nccl > 0 ? fmt::format("{:.2f}", x.exchange_vs_nccl) : "", phases,
                       x.verified ? "verified" : "NOT VERIFIED");
  }
}

void write_json(const result& r, bool quick, const std::string& path) {
  nlohmann::json rows = nlohmann::json::array();
  for (const row& x : r.rows) {
    nlohmann::json phases = nlohmann::json::object();
    for (std::size_t p = 0; p < x.phases.size(); ++p) phases[x.phases[p]] = x.phase_ms[p];
    rows.push_back({{"bench", x.bench}, {"implementation", x.implementation}, {"gpus", x.gpus}, {"per_gpu", x.per_gpu},
                    {"total", x.total}, {"median_ms", x.median_ms}, {"min_ms", x.min_ms}, {"max_ms", x.max_ms},
                    {"phases_ms", phases}, {"scaling", x.scaling}, {"exchange_vs_nccl", x.exchange_vs_nccl},
                    {"verified", x.verified}});
  }
  const std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  const nlohmann::json doc{{"device", r.device}, {"gpus", r.gpus},    {"driver", r.driver}, {"nccl", r.nccl},
                           {"commit", SLUICE_CONFIGURE_COMMIT}, {"date", date}, {"quick", quick}, {"rows", rows}};
  std::ofstream(path) << doc.dump(2) << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"sluice_dist_bench: the distributed sort, multireduce and hash table against one GPU and NCCL, verified"};
  sluice::dist_bench::options o;
  std::string json;
  app.add_option("--gpus", o.gpus, "GPUs of the largest world (default: every visible one)");
  app.add_flag("--quick", o.quick, "Small sizes (2^24 and 2^25 keys) and at most three repetitions");
  app.add_option("--repetitions", o.repetitions, "Timed repetitions per row (the median is reported)");
  app.add_option("--only", o.only, "One bench: sort, pairs, multireduce, hash or alltoall");
  app.add_option("--json", json, "Write every row to this JSON file");
  CLI11_PARSE(app, argc, argv);
  try {
    const result r = sluice::dist_bench::run(o);
    print(r, std::cout);
    if (!json.empty()) write_json(r, o.quick, json);
    for (const row& x : r.rows)
      if (!x.verified) return 1;
    return 0;
  } catch (const sluice::error& e) {
    std::cerr << e.what() << "\n";
    return 2;
  }
}
