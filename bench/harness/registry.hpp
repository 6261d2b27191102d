// bench/harness/registry.hpp: the benchmark registry.
//
// A case runs one piece of work with sluice and with its CUB/Thrust baseline in the same process,
// verifies every result against the oracle, and records one row per implementation. Cases register
// themselves at static-initialisation time with SLUICE_BENCH_CASE; `sluice bench` runs them.
#pragma once

#include "harness/result.hpp"
#include "harness/timing.hpp"

#include <sluice/core/context.hpp>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sluice::bench {

/// What a case gets to run with.
class case_context {
 public:
  case_context(bool quick, context* gpu, double device_copy_bandwidth, double host_copy_bandwidth,
               std::vector<result_row>& sink, std::string implementation_filter = {})
      : quick_(quick), gpu_(gpu), device_copy_(device_copy_bandwidth), host_copy_(host_copy_bandwidth), sink_(sink),
        implementation_filter_(std::move(implementation_filter)) {}

  /// --quick: fewer sizes and repetitions, the GPU check's budget.
  [[nodiscard]] bool quick() const { return quick_; }
  /// The device context; only GPU cases call it, and they only run where there is one.
  [[nodiscard]] context& gpu() const { return *gpu_; }
  [[nodiscard]] timing_policy policy() const { return quick_ ? timing_policy{3, 20} : timing_policy{5, 50}; }
  /// Whether a row is timed: every baseline, and the subjects whose implementation contains
  /// `--implementation` (all of them without it), so that a profiler sees only the kernels asked for.
  [[nodiscard]] bool runs(std::string_view implementation, role kind) const {
    return kind == role::baseline || implementation.find(implementation_filter_) != std::string_view::npos;
  }

  /// Completes the row's derived columns (% of copy bandwidth) and keeps it.
  void record(result_row row) {
    row.copy_bandwidth = row.on_device ? device_copy_ : host_copy_;
    sink_.push_back(std::move(row));
  }

 private:
  bool quick_;
  context* gpu_;
  double device_copy_;
  double host_copy_;
  std::vector<result_row>& sink_;
  std::string implementation_filter_;
};

using case_function = void (*)(case_context&);

struct bench_case {
  std::string family;
  std::string name;
  bool needs_gpu;
  case_function run;
};

/// All registered cases, in registration order within each family.
std::vector<bench_case>& registry();

struct registrar {
  registrar(std::string family, std::string name, bool needs_gpu, case_function run) {
    registry().push_back({std::move(family), std::move(name), needs_gpu, run});
  }
};

}  // namespace sluice::bench

#define SLUICE_BENCH_CONCAT_INNER(a, b) a##b
#define SLUICE_BENCH_CONCAT(a, b) SLUICE_BENCH_CONCAT_INNER(a, b)

/// SLUICE_BENCH_CASE("reduce", "sum u32", gpu) { ... uses `session` (a case_context&) ... }
#define SLUICE_BENCH_CASE(family, name, where)                                                              \
  static void SLUICE_BENCH_CONCAT(sluice_bench_case_, __LINE__)(::sluice::bench::case_context & session);    \
  static const ::sluice::bench::registrar SLUICE_BENCH_CONCAT(sluice_bench_registrar_, __LINE__){            \
      family, name, ::sluice::bench::runs_on::where == ::sluice::bench::runs_on::gpu,                            \
      &SLUICE_BENCH_CONCAT(sluice_bench_case_, __LINE__)};                                                 \
  static void SLUICE_BENCH_CONCAT(sluice_bench_case_, __LINE__)(::sluice::bench::case_context & session)
