// src/model/report.cpp: printing of estimates and profiles (fmt, fixed-width columns).
#include "model/report.hpp"

#include <fmt/format.h>

#include <cstddef>
#include <string>
#include <vector>

namespace sluice::model {

namespace {

std::vector<int> used_ops(const estimate& e) {
  std::vector<int> used;
  for (int i = 0; i < op_count; ++i)
    if (e.per_op[static_cast<std::size_t>(i)] > 0) used.push_back(i);
  return used;
}

std::string row_name(const kernel_estimate& k) {
  return k.launches > 1 ? fmt::format("{} ×{}", k.name, k.launches) : k.name;
}

}  // namespace

void print_estimate(std::ostream& out, const device_profile& profile, const algorithm_model& algorithm,
                    const estimate& e) {
  const double us_per_cycle = 1e6 / profile.clock_hz;
  const auto us = [&](double cycles) { return cycles * us_per_cycle; };
  out << fmt::format("{}\npredicted {:.3f} ms ({:.4g} cycles at {:.3f} GHz, profile of {})\n", algorithm.name,
                     e.seconds * 1e3, e.cycles, profile.clock_hz / 1e9, profile.name);
  const std::vector<int> used = used_ops(e);

  // The matrix (µs).
  out << fmt::format("\n{:<28}", "T_{i,phi} (us)");
  for (int i : used) out << fmt::format("{:>10}", operations[static_cast<std::size_t>(i)].key);
  out << fmt::format("{:>11}\n", "T_i");
  for (const kernel_estimate& k : e.kernels) {
    out << fmt::format("{:<28}", row_name(k));
    for (int i : used) out << fmt::format("{:>10.2f}", us(k.cells[static_cast<std::size_t>(i)].cycles));
    out << fmt::format("{:>11.2f}\n", us(k.cycles));
  }
  out << fmt::format("{:<28}", fmt::format("|K|·L_sync ({} launches)", e.kernel_launches));
  for (std::size_t j = 0; j < used.size(); ++j) out << fmt::format("{:>10}", "");
  out << fmt::format("{:>11.2f}\n", us(e.sync_cycles));
  out << fmt::format("{:<28}", "T_phi");
  for (int i : used) out << fmt::format("{:>10.2f}", us(e.per_op[static_cast<std::size_t>(i)]));
  out << fmt::format("{:>11.2f}\n", us(e.cycles));
  out << fmt::format("{:<28}", "share");
  for (int i : used) out << fmt::format("{:>9.1f}%", 100 * e.per_op[static_cast<std::size_t>(i)] / e.cycles);
  out << fmt::format("{:>10.1f}%\n", 100 * e.sync_cycles / e.cycles);

  // Each kernel's plan and cells.
  for (std::size_t r = 0; r < e.kernels.size(); ++r) {
    const kernel_estimate& k = e.kernels[r];
    const kernel_model& m = algorithm.kernels[r];
    out << fmt::format("\n{}: ", row_name(k));
    if (k.residency)
      out << fmt::format("grid {} × {} threads, {} shared bytes, {} registers; {} blocks/SM (limit: {}); ",
                         m.plan.blocks, m.plan.block_threads, m.plan.shared_bytes, m.plan.registers_per_thread,
                         k.residency->blocks_per_sm, to_string(k.residency->limit));
    out << fmt::format("M_o = {:.3g}", k.oversubscription);
    if (m.beta > 1) out << fmt::format(", beta = {:.3g}", m.beta);
    out << "\n";
    for (int i : used) {
      const cell& c = k.cells[static_cast<std::size_t>(i)];
      if (c.cycles == 0) continue;
      out << fmt::format("  {:<3} A = {:<12.5g} M = {:<8.3g} t = {:<9.4g} cycles  T = {:<10.2f} us  {}-bound\n",
                         operations[static_cast<std::size_t>(i)].key, c.per_core, c.multiplicity,
                         c.cycles / c.per_core, us(c.cycles), c.latency_bound ? "latency" : "bandwidth");
    }
  }
}

void print_profile(std::ostream& out, const device_profile& p) {
  out << fmt::format("profile: {} (cc {}), {} SMs × {} cores = P {}, clock {:.3f} GHz, L2 {} MiB\n", p.name,
                     p.compute_capability, p.limits.sm_count, p.limits.cores_per_sm, p.limits.cores(),
                     p.clock_hz / 1e9, p.l2_bytes >> 20);
  out << fmt::format("{:<4} {:<24} {:>12} {:>14} {:>10} {:>10}\n", "op", "", "L (cycles)", "B (/clk/core)",
                     "1/B", "M* = L·B");
  for (int i = 0; i < op_count; ++i) {
    const auto& c = p.ops[static_cast<std::size_t>(i)];
    const op_info& o = operations[static_cast<std::size_t>(i)];
    if (!c) {
      out << fmt::format("{:<4} {:<24} {:>12}\n", o.key, o.name, "not measured");
      continue;
    }
    out << fmt::format("{:<4} {:<24} {:>12.4g} {:>14.4g} {:>10.4g} {:>10.4g}\n", o.key, o.name, c->latency_cycles,
                       c->bandwidth, 1 / c->bandwidth, c->saturation());
  }
  out << fmt::format("L_sync {:.4g} cycles ({:.2f} us); a random 4-byte read costs {:.3g} words of g, {:.3g} of l2\n",
                     p.sync_latency_cycles, p.sync_latency_cycles / p.clock_hz * 1e6, p.random_access_words,
                     p.l2_random_access_words);
}

}  // namespace sluice::model
