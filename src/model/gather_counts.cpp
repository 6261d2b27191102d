// src/model/gather_counts.cpp: the SPT counts of gather (detail/scatter/gather.cuh, Eilers Alg 3.3): one
// wave of 256-thread blocks walking the elements in 16-byte chunks, 16 elements a thread a step. A step
// loads its index chunks (coalesced), then its values, all before the first store: one vector load a
// chunk whose indices are consecutive (identity: the gather moves like a copy), else one load an element
// at a random address (a sector each, the L2 serving the share of the values it holds), then stores its
// chunks. Lower order, left out: the tail, the warps' count of invalid indices (one atomic a warp).
#include "model/counts_support.hpp"
#include "model/families.hpp"
#include "model/occupancy.hpp"

#include <sluice/detail/scatter/tuning.hpp>

#include <algorithm>
#include <cmath>
#include <string>

namespace sluice::model {

namespace {

namespace sc = sluice::detail::scatter;
using counts::words;

/// Integer instructions an element: its index's validity test, its address, and (identity) the chunk's
/// consecutiveness test.
constexpr double element_instructions = 4;

}  // namespace

std::string gather_kernel_key(std::size_t value_bytes, std::size_t index_bytes) {
  return "gather/direct/k" + std::to_string(value_bytes) + "i" + std::to_string(index_bytes);
}

algorithm_model direct_gather(const device_profile& p, const gather_problem& q, const register_table& regs) {
  if (q.n == 0) throw invalid_argument("model gather", "--n", "must be at least 1");
  if (q.value_bytes == 0 || q.value_bytes > 16) throw invalid_argument("model gather", "--bytes", "must be 1 to 16");
  if (q.index_bytes != 4 && q.index_bytes != 8) throw invalid_argument("model gather", "--index-bytes", "must be 4 or 8");
  const int threads = sc::tuning::block_threads;
  const int per_thread = sc::tuning::elements_per_thread;
  const double n = static_cast<double>(q.n);
  launch_plan plan{1, threads, 0, registers_of(regs, gather_kernel_key(q.value_bytes, q.index_bytes))};
  plan.blocks = one_wave_blocks(p.limits, plan, std::ceil(n / (threads * per_thread)));

  kernel_model k;
  k.name = "gather";
  k.plan = plan;
  const double index_words = words(q.index_bytes), value_words = words(q.value_bytes);
  k.add(op::g, n * index_words, per_thread * index_words);  // the indices, a step's chunks in flight
  if (q.random_indices)
    counts::add_random_reads(k, p, n, q.value_bytes, counts::l2_share(p, n * static_cast<double>(q.value_bytes)),
                             per_thread);
  else
    k.add(op::g, n * value_words, per_thread * value_words);  // consecutive indices: vector loads
  k.add(op::g, n * value_words, per_thread * value_words);    // the output
  k.add(op::r, n * element_instructions);
  return {"gather: n = " + std::to_string(q.n) + ", " + std::to_string(q.value_bytes) + "-byte values, " +
              std::to_string(q.index_bytes) + "-byte " + (q.random_indices ? "random" : "consecutive") + " indices",
          {k}};
}

}  // namespace sluice::model
