// Runs the registry (see runner.hpp).
#include "harness/registry.hpp"
#include "harness/runner.hpp"

#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>

#include <cuda/version>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <ostream>

#ifndef SLUICE_CONFIGURE_COMMIT
#define SLUICE_CONFIGURE_COMMIT "unknown"
#endif

namespace sluice::bench {
namespace {

std::string version_string(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

std::string utc_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char text[32];
  std::tm parts{};
  gmtime_r(&now, &parts);
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &parts);
  return text;
}

std::string commit() {
  if (const char* from_env = std::getenv("SLUICE_COMMIT"); from_env && *from_env) return from_env;
  return std::string(SLUICE_CONFIGURE_COMMIT) + " (at configure time)";
}

/// Large enough that a copy measures DRAM, not L2: 4× the L2 and at least 512 MiB per buffer.
std::size_t copy_probe_bytes(const context& ctx) {
  return std::max<std::size_t>(4 * ctx.properties().l2_cache_bytes, std::size_t{512} << 20);
}

environment base_environment(bool quick) {
  environment env;
  env.quick = quick;
  env.date = utc_now();
  env.commit = commit();
  env.cccl = std::to_string(CCCL_MAJOR_VERSION) + "." + std::to_string(CCCL_MINOR_VERSION) + "." +
             std::to_string(CCCL_PATCH_VERSION);
  int runtime = 0;
  if (cudaRuntimeGetVersion(&runtime) == cudaSuccess) env.runtime = version_string(runtime);
  int driver = 0;
  if (cudaDriverGetVersion(&driver) == cudaSuccess && driver > 0) env.driver = version_string(driver);
  else env.driver = "none";
  const timing_policy policy = quick ? timing_policy{2, 10} : timing_policy{3, 20};
  env.host_copy_bandwidth = measure_host_copy_bandwidth(std::size_t{256} << 20, policy);
  return env;
}

void describe_device(environment& env, context& ctx, bool quick) {
  const auto& p = ctx.properties();
  env.device = p.name;
  env.sm_count = p.sm_count;
  env.l2_bytes = static_cast<double>(p.l2_cache_bytes);
  env.memory_bytes = static_cast<double>(p.global_memory_bytes);
  env.theoretical_bandwidth = p.theoretical_bandwidth();
  env.device_copy_bandwidth =
      measure_device_copy_bandwidth(ctx, copy_probe_bytes(ctx), quick ? timing_policy{3, 20} : timing_policy{5, 50});
}

}  // namespace

std::vector<bench_case>& registry() {
  static std::vector<bench_case> cases;
  return cases;
}

std::vector<std::string> known_families() {
  std::vector<std::string> families;
  for (const auto& c : registry())
    if (std::find(families.begin(), families.end(), c.family) == families.end()) families.push_back(c.family);
  return families;
}

environment describe_environment(bool quick) {
  environment env = base_environment(quick);
  if (cuda_device_count(&env.no_gpu_reason) == 0) return env;
  context ctx(0);
  describe_device(env, ctx, quick);
  return env;
}

run_result run_benchmarks(const run_options& options, std::ostream& log) {
  const auto families = known_families();
  for (const auto& f : options.families)
    if (std::find(families.begin(), families.end(), f) == families.end()) {
      std::string list;
      for (const auto& k : families) list += (list.empty() ? "" : ", ") + k;
      throw invalid_argument("bench", "family", "'" + f + "' is not a benchmark family (known: " + list + ")");
    }
  auto selected = [&](const bench_case& c) {
    const bool in_family = options.families.empty() || std::find(options.families.begin(), options.families.end(),
                                                                 c.family) != options.families.end();
    return in_family && (c.family + "/" + c.name).find(options.case_filter) != std::string::npos;
  };

  run_result result;
  result.env = base_environment(options.quick);
  std::unique_ptr<context> gpu;
  if (cuda_device_count(&result.env.no_gpu_reason) > 0) {
    gpu = std::make_unique<context>(0);
    describe_device(result.env, *gpu, options.quick);
  }

  for (const auto& c : registry()) {
    if (!selected(c)) continue;
    const std::string id = c.family + "/" + c.name;
    if ((c.needs_gpu && !gpu) || (!c.needs_gpu && options.gpu_only)) {
      result.skipped.push_back(id + (c.needs_gpu ? " (no GPU)" : " (--gpu-only)"));
      continue;
    }
    log << "running " << id << " ..." << std::endl;
    case_context context(options.quick, gpu.get(), result.env.device_copy_bandwidth, result.env.host_copy_bandwidth,
                         result.rows, options.implementation_filter);
    try {
      c.run(context);
    } catch (const std::exception& e) {
      result.failed.push_back(id + ": " + e.what());
      log << "  FAILED: " << e.what() << std::endl;
      if (gpu) (void)cudaStreamSynchronize(gpu->stream());  // let a failed case's queued work drain
      (void)cudaGetLastError();
    }
  }
  add_model_column(result);
  for (const auto& row : result.rows)
    if (!row.verified) result.failed.push_back(row.family + "/" + row.name + " [" + row.implementation + "]: result does not match the oracle");
  return result;
}

}  // namespace sluice::bench
