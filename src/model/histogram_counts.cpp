// src/model/histogram_counts.cpp: the SPT counts of the 1-byte histogram by value counts
// (detail/histogram/byte_counts.cuh), automatic's kernel for unweighted 1-byte samples, any m: the bins'
// memset, then one kernel of 512 threads and 32 KiB of counters (256 values × 32 lanes, lane l's counters
// in bank l, so β = 1 on any data), a grid of one wave (or more, so that no block counts 2^31 samples).
// A thread loads `vectors` 16-byte vectors before counting any, then each byte costs a shift, a
// three-input logic operation and one shared atomic; the finish sums each value over the lanes and adds
// it to its bin with one global atomic. Lower order, left out: the edge bytes, the binning's staging.
#include "model/counts_support.hpp"
#include "model/families.hpp"
#include "model/occupancy.hpp"

#include <sluice/detail/histogram/tuning.hpp>

#include <algorithm>
#include <cmath>
#include <string>

namespace sluice::model {

namespace {

namespace hi = sluice::detail::histogram;

constexpr double values = 256;
constexpr double lanes = 32;
constexpr double vector_bytes = 16;
/// 2^31: the samples a block counts at most (warp_ballot.cuh's samples_per_block_limit).
constexpr double samples_per_block_limit = 2147483648.0;

}  // namespace

std::string histogram_kernel_key(const std::string& kernel) { return "histogram/" + kernel + "/k1"; }

algorithm_model byte_counts_histogram(const device_profile& p, const histogram_problem& q, const register_table& regs) {
  if (q.n == 0) throw invalid_argument("model histogram", "--n", "must be at least 1");
  if (q.sample_bytes != 1)
    throw invalid_argument("model histogram", "--bytes", "must be 1 (byte_counts counts byte values)");
  if (q.bins == 0) throw invalid_argument("model histogram", "--m", "must be at least 1");
  const int threads = hi::tuning::byte_counts_threads;
  const int vectors = hi::tuning::byte_counts_vectors;
  const double n = static_cast<double>(q.n);
  const double tile = static_cast<double>(threads) * vectors * vector_bytes;
  launch_plan plan{1, threads, static_cast<std::size_t>(values * lanes * 4),
                   registers_of(regs, histogram_kernel_key("byte_counts"))};
  plan.blocks = std::max(one_wave_blocks(p.limits, plan, std::ceil(n / tile)),
                         static_cast<std::uint64_t>(std::ceil(n / samples_per_block_limit)));
  const double blocks = static_cast<double>(plan.blocks);

  kernel_model memset;
  memset.name = "memset (bins)";
  memset.oversubscription = 1;

  kernel_model count;
  count.name = "byte_counts";
  count.plan = plan;
  count.add(op::g, n / 4, vectors * vector_bytes / 4);  // the samples, streamed, `vectors` in flight
  count.add(op::r, n * 2);                              // a byte's shift and logic operation
  count.add(op::as, n, vector_bytes);                   // a shared atomic a byte: a vector's 16 independent
  count.add_shared(blocks * values * lanes * 2, 1, 1);  // the counters zeroed, then read by the finish
  count.add(op::ag, blocks * values);                   // each value's sum to its bin (every value has one)
  count.add(op::y, blocks * threads * 2);
  return {"histogram [byte_counts]: n = " + std::to_string(q.n) + " bytes, m = " + std::to_string(q.bins),
          {memset, count}};
}

}  // namespace sluice::model
