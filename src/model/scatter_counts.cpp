// src/model/scatter_counts.cpp: the SPT counts of gather and of the direct any_writer scatter
// (detail/scatter/gather.cuh, scatter.cuh; Eilers Alg 2.1, 3.3): one wave of 256-thread blocks, 16
// elements a thread a step, the indices read coalesced.
//   gather   a step loads its index chunks, then its values, all before the first store: one vector load
//            a chunk whose indices are consecutive (identity: the gather moves like a copy), else one load
//            an element at a random address (a sector each, the L2 serving the share of the values it
//            holds), then stores its output chunks.
//   scatter  the values read coalesced beside the indices; consecutive indices store like a copy, random
//            ones write a sector each. While the output fits the L2 it absorbs them; past that, a sector
//            is filled from DRAM before the partial write can go back, so every store costs a random read
//            and a random write, the L2's share of the output notwithstanding (abf4149, H100, random u32:
//            scatter took 2.58× gather at 2^24, whose 64 MB output is 1.3× the L2, and 2.16× at 2^28).
// Lower order, left out: the tail, the warps' count of invalid indices (one atomic a warp).
#include "model/counts_support.hpp"
#include "model/families.hpp"
#include "model/occupancy.hpp"

#include <sluice/detail/scatter/tuning.hpp>

#include <cmath>
#include <string>

namespace sluice::model {

namespace {

namespace sc = sluice::detail::scatter;
using counts::words;

/// Integer instructions an element: its index's validity test, its address, and (identity) the chunk's
/// consecutiveness test.
constexpr double element_instructions = 4;

void check(const char* command, const indexed_problem& q) {
  if (q.n == 0) throw invalid_argument(command, "--n", "must be at least 1");
  if (q.value_bytes == 0 || q.value_bytes > 16) throw invalid_argument(command, "--bytes", "must be 1 to 16");
  if (q.index_bytes != 4 && q.index_bytes != 8) throw invalid_argument(command, "--index-bytes", "must be 4 or 8");
}

/// The pass both share: one wave of 256-thread blocks, 16 elements a thread a step, the indices read
/// coalesced, the integer work; the values' traffic is the caller's.
kernel_model indexed_pass(const device_profile& p, const indexed_problem& q, const char* name, int registers) {
  const int threads = sc::tuning::block_threads;
  const int per_thread = sc::tuning::elements_per_thread;
  const double n = static_cast<double>(q.n);
  launch_plan plan{1, threads, 0, registers};
  plan.blocks = one_wave_blocks(p.limits, plan, std::ceil(n / (threads * per_thread)));
  kernel_model k;
  k.name = name;
  k.plan = plan;
  k.add(op::g, n * words(q.index_bytes), per_thread * words(q.index_bytes));  // a step's chunks in flight
  k.add(op::r, n * element_instructions);
  return k;
}

std::string describe(const char* family, const indexed_problem& q) {
  return std::string(family) + ": n = " + std::to_string(q.n) + ", " + std::to_string(q.value_bytes) +
         "-byte values, " + std::to_string(q.index_bytes) + "-byte " + (q.random_indices ? "random" : "consecutive") +
         " indices";
}

}  // namespace

std::string gather_kernel_key(std::size_t value_bytes, std::size_t index_bytes) {
  return "gather/direct/k" + std::to_string(value_bytes) + "i" + std::to_string(index_bytes);
}
std::string scatter_kernel_key(std::size_t value_bytes, std::size_t index_bytes) {
  return "scatter/direct/k" + std::to_string(value_bytes) + "i" + std::to_string(index_bytes);
}

algorithm_model direct_gather(const device_profile& p, const indexed_problem& q, const register_table& regs) {
  check("model gather", q);
  kernel_model k = indexed_pass(p, q, "gather", registers_of(regs, gather_kernel_key(q.value_bytes, q.index_bytes)));
  const int per_thread = sc::tuning::elements_per_thread;
  const double n = static_cast<double>(q.n), value_words = words(q.value_bytes);
  if (q.random_indices)
    counts::add_random_reads(k, p, n, q.value_bytes, counts::l2_share(p, n * static_cast<double>(q.value_bytes)),
                             per_thread);
  else
    k.add(op::g, n * value_words, per_thread * value_words);  // consecutive indices: vector loads
  k.add(op::g, n * value_words, per_thread * value_words);    // the output
  return {describe("gather", q), {k}};
}

algorithm_model direct_scatter(const device_profile& p, const indexed_problem& q, const register_table& regs) {
  check("model scatter", q);
  kernel_model k = indexed_pass(p, q, "scatter", registers_of(regs, scatter_kernel_key(q.value_bytes, q.index_bytes)));
  const int per_thread = sc::tuning::elements_per_thread;
  const double n = static_cast<double>(q.n), value_words = words(q.value_bytes);
  k.add(op::g, n * value_words, per_thread * value_words);  // the values
  if (q.random_indices) {
    // A sector each: the L2 absorbs the stores while the output fits it; past that, a store's sector is
    // filled from DRAM and written back, whatever share of the output the L2 holds.
    if (n * static_cast<double>(q.value_bytes) <= static_cast<double>(p.l2_bytes))
      counts::add_random_reads(k, p, n, q.value_bytes, 1, per_thread);
    else
      counts::add_random_reads(k, p, 2 * n, q.value_bytes, 0, per_thread);
  } else {
    k.add(op::g, n * value_words, per_thread * value_words);  // consecutive indices: stored like a copy
  }
  return {describe("scatter", q) + ", any_writer", {k}};
}

}  // namespace sluice::model
