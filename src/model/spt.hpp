// src/model/spt.hpp: the Synchronous Parallel Throughput model (Karsin ch. 3, instantiated for GPUs in
// ch. 4). An algorithm is a sequence of kernels separated by device-wide barriers; kernel i performs
// A_{i,φ} operations of type φ per core, each taking t_φ = max(1/B_φ, L_φ/M_i), M_i = M_{i,o}·M_{i,I}
// (oversubscription × ILP). Costs are summed, not overlapped (§3.1.2):
//   T = |K|·L_sync + Σ_i Σ_φ A_{i,φ}·max(1/B_φ, L_φ/M_i)
// with shared accesses multiplied by β ≥ 1 (bank conflicts, §4.3) and ILP never applied to
// __syncthreads (§4.5). The estimate is the |K| × |Φ| matrix of Fig. 3.1: rows are kernels, columns
// operation types.
#pragma once

#include "model/occupancy.hpp"
#include "model/profile.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sluice::model {

using op_counts = std::array<double, op_count>;

/// One kernel (or `launches` identical launches of it, as the seed lumps the merge rounds, §7.1.2).
struct kernel_model {
  std::string name;
  std::uint64_t launches = 1;  ///< each one is a kernel boundary: |K| counts them all
  launch_plan plan;            ///< gives M_o (occupancy.hpp) unless `oversubscription` is set
  std::optional<double> oversubscription;  ///< M_o given directly, as the seed's case studies do
  op_counts work{};            ///< operations on the whole device, summed over the launches (A_{i,φ}·P)
  op_counts ilp{1, 1, 1, 1, 1, 1, 1, 1, 1};  ///< M_{i,I} per operation type (ignored for y)
  double beta = 1;             ///< β: shared-memory wavefronts per conflict-free request, 1 ≤ β ≤ w

  [[nodiscard]] double& operator[](op o) { return work[static_cast<std::size_t>(o)]; }
  [[nodiscard]] double operator[](op o) const { return work[static_cast<std::size_t>(o)]; }
  void set_ilp(op o, double m) { ilp[static_cast<std::size_t>(o)] = m; }
  /// Adds a part of the kernel's φ operations with its own ILP (the seed's two-phase analysis gives each
  /// dominant region its own constant and ILP, §4.8). The kernel's M_I for φ becomes the average that
  /// keeps the latency term exact: Σ_j A_j·L/(M_o·I_j) = (Σ_j A_j)·L/(M_o·M_I). Not for s (add_shared).
  void add(op o, double count, double part_ilp = 1);
  /// Adds shared accesses of their own β and ILP (the seed's β₁, β₂ of one kernel, §7.1.2): β becomes
  /// the average weighted by accesses, so that β·A_s is the sum of the parts, and M_I as in add().
  void add_shared(double accesses, double part_beta, double part_ilp = 1);
};

struct algorithm_model {
  std::string name;
  std::vector<kernel_model> kernels;
};

struct evaluate_options {
  /// ⌈L_φ/M⌉ as in §3.1.3 (whole cycles) instead of L_φ/M as in §4.8 and the case studies.
  bool ceil_latency = false;
};

/// One cell of the matrix: T_{i,φ} and how t_φ was reached.
struct cell {
  double per_core = 0;      ///< A_{i,φ}, β applied for s
  double multiplicity = 0;  ///< M (M_o for y)
  double cycles = 0;        ///< T_{i,φ}
  bool latency_bound = false;
};

struct kernel_estimate {
  std::string name;
  std::uint64_t launches = 1;
  double oversubscription = 0;            ///< M_o
  std::optional<occupancy> residency;     ///< where M_o came from a launch plan
  std::array<cell, op_count> cells{};
  double cycles = 0;                      ///< T_i, the row sum (without L_sync)
};

struct estimate {
  std::vector<kernel_estimate> kernels;
  std::uint64_t kernel_launches = 0;  ///< |K|
  double sync_cycles = 0;             ///< |K|·L_sync
  op_counts per_op{};                 ///< column sums 𝒯_φ (Def. 3.1.8)
  double cycles = 0;                  ///< 𝒯
  double seconds = 0;                 ///< 𝒯 at the profile's clock
};

/// t_φ = max(1/B, L/M) for one operation (§3.1.3); `ceil` rounds L/M up to whole cycles.
[[nodiscard]] double time_per_op(const op_cost& cost, double multiplicity, bool ceil);

/// The model evaluated on a profile. Throws profile_error when a kernel uses an operation type the
/// profile has not measured, sluice::invalid_argument for a kernel that cannot run (occupancy.hpp) or
/// has a count, ILP or β out of range.
[[nodiscard]] estimate evaluate(const device_profile& profile, const algorithm_model& algorithm,
                                const evaluate_options& options = {});

}  // namespace sluice::model
