// src/model/spt.cpp: the SPT model's arithmetic (Karsin §3.1.2–3.1.4, §4.8).
#include "model/spt.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace sluice::model {

namespace {

/// Merges a part of `weight` (operations × β) at ILP `part_ilp` into a count of weight `before` at ILP
/// `ilp`, keeping Σ weight / ILP (the latency term's numerator).
double merged_ilp(double before, double ilp, double weight, double part_ilp) {
  const double total = before + weight;
  const double latency = (before > 0 ? before / ilp : 0) + (weight > 0 ? weight / part_ilp : 0);
  return latency > 0 ? total / latency : ilp;
}

}  // namespace

void kernel_model::add(op o, double count, double part_ilp) {
  if (o == op::s) return add_shared(count, 1, part_ilp);
  const auto i = static_cast<std::size_t>(o);
  ilp[i] = merged_ilp(work[i], ilp[i], count, part_ilp);
  work[i] += count;
}

void kernel_model::add_shared(double accesses, double part_beta, double part_ilp) {
  const auto i = static_cast<std::size_t>(op::s);
  ilp[i] = merged_ilp(work[i] * beta, ilp[i], accesses * part_beta, part_ilp);
  const double total = work[i] + accesses;
  if (total > 0) beta = (beta * work[i] + part_beta * accesses) / total;
  work[i] = total;
}

double time_per_op(const op_cost& cost, double multiplicity, bool ceil) {
  const double latency = cost.latency_cycles / multiplicity;
  return std::max(1.0 / cost.bandwidth, ceil ? std::ceil(latency) : latency);
}

namespace {

void check_kernel(const kernel_model& k, const device_limits& limits) {
  const auto bad = [&](const std::string& parameter, const std::string& problem) {
    throw invalid_argument("model", "kernel '" + k.name + "' " + parameter, problem);
  };
  if (k.launches == 0) bad("launches", "must be at least 1");
  if (k.beta < 1 || k.beta > limits.shared_banks)
    bad("beta", "is " + std::to_string(k.beta) + ": must lie in [1, " + std::to_string(limits.shared_banks) + "]");
  if (k.oversubscription && !(*k.oversubscription > 0)) bad("oversubscription", "must be > 0");
  if (!k.oversubscription && k.plan.blocks == 0) bad("launch plan", "has an empty grid");
  for (int i = 0; i < op_count; ++i) {
    const auto o = static_cast<std::size_t>(i);
    if (!std::isfinite(k.work[o]) || k.work[o] < 0)
      bad(std::string("count of ") + std::string(operations[o].key), "must be a finite number >= 0");
    if (!(k.ilp[o] >= 1) || !std::isfinite(k.ilp[o])) bad(std::string("ILP of ") + std::string(operations[o].key), "must be >= 1");
  }
}

}  // namespace

estimate evaluate(const device_profile& profile, const algorithm_model& algorithm, const evaluate_options& options) {
  const device_limits& limits = profile.limits;
  const double cores = limits.cores();
  estimate e;
  for (const kernel_model& k : algorithm.kernels) {
    check_kernel(k, limits);
    kernel_estimate row;
    row.name = k.name;
    row.launches = k.launches;
    if (k.oversubscription) {
      row.oversubscription = *k.oversubscription;
    } else {
      row.residency = resident_blocks(limits, k.plan);
      row.oversubscription = oversubscription(limits, k.plan);
    }
    for (int i = 0; i < op_count; ++i) {
      const auto o = static_cast<std::size_t>(i);
      if (k.work[o] == 0) continue;
      const op_cost& cost = profile.cost(static_cast<op>(i));
      cell& c = row.cells[o];
      c.per_core = k.work[o] / cores * (static_cast<op>(i) == op::s ? k.beta : 1.0);
      c.multiplicity = row.oversubscription * (operations[o].ilp ? k.ilp[o] : 1.0);
      const double t = time_per_op(cost, c.multiplicity, options.ceil_latency);
      c.latency_bound = t > 1.0 / cost.bandwidth;
      c.cycles = c.per_core * t;
      row.cycles += c.cycles;
      e.per_op[o] += c.cycles;
    }
    e.kernel_launches += k.launches;
    e.cycles += row.cycles;
    e.kernels.push_back(std::move(row));
  }
  e.sync_cycles = static_cast<double>(e.kernel_launches) * profile.sync_latency_cycles;
  e.cycles += e.sync_cycles;
  e.seconds = e.cycles / profile.clock_hz;
  return e;
}

}  // namespace sluice::model
