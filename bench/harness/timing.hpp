// bench/harness/timing.hpp: timing device work with CUDA events, and host work with a steady clock.
//
// Device: warm-up runs, then each repetition is bracketed by events on the context's stream, after
// an L2 flush (a read of twice the L2 size, outside the timed region) so that small inputs are
// measured from DRAM too; the median of the repetitions is the figure. Host: the same shape with
// std::chrono.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/device_buffer.hpp>

#include <functional>

namespace sluice::bench {

struct timing_policy {
  int warmup = 3;
  int repetitions = 20;
};

struct timing {
  double median_ms = 0, min_ms = 0, max_ms = 0;
  double q1_ms = 0, q3_ms = 0;  ///< the quartiles: their spread is the noise `sluice bench --compare` reads
  int repetitions = 0;
};

/// A figure a case derived itself (a total over batches, a mean over r): one value, no spread.
[[nodiscard]] inline timing one_figure(double ms, int repetitions = 1) { return {ms, ms, ms, ms, ms, repetitions}; }

/// Times `work` (which enqueues on ctx's stream) with events; evicts the L2 before every repetition.
timing time_device(context& ctx, const std::function<void()>& work, timing_policy policy);

/// The same, with `setup` run before every warm-up and every repetition, outside the timed region: for
/// work that changes its own input (a hash table's build starts from an empty table).
timing time_device(context& ctx, const std::function<void()>& setup, const std::function<void()>& work,
                   timing_policy policy);

/// Times `work` on the calling thread.
timing time_host(const std::function<void()>& work, timing_policy policy);

/// Device-to-device cudaMemcpy bandwidth in bytes/s (bytes read + written), on `bytes`-sized buffers.
double measure_device_copy_bandwidth(context& ctx, std::size_t bytes, timing_policy policy);

/// Host memcpy bandwidth in bytes/s (bytes read + written).
double measure_host_copy_bandwidth(std::size_t bytes, timing_policy policy);

}  // namespace sluice::bench
