// Device and host timing for the benchmark harness (see timing.hpp).
#include "harness/timing.hpp"

#include <sluice/core/error.hpp>
#include <sluice/core/launch.hpp>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

namespace sluice::bench {
namespace {

/// Reads `words` so that the L2 holds them (clean) instead of the next timed run's data. The store is
/// conditional on a value that never occurs, so the reads cannot be optimised away.
__global__ void evict_l2_kernel(const uint4* words, std::size_t count, unsigned* sink) {
  unsigned acc = 0;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const uint4 w = words[i];
    acc ^= w.x ^ w.y ^ w.z ^ w.w;
  }
  if (acc == 0x9e3779b9u) *sink = acc;
}

class l2_evictor {
 public:
  explicit l2_evictor(context& ctx)
      : ctx_(ctx), words_(ctx, 2 * ctx.properties().l2_cache_bytes / sizeof(uint4)), sink_(ctx, 1) {
    words_.fill_bytes(0);
  }
  void operator()() {
    const int threads = 512;
    const std::size_t grid = static_cast<std::size_t>(ctx_.properties().sm_count) * 4;
    evict_l2_kernel<<<static_cast<unsigned>(grid), threads, 0, ctx_.stream()>>>(words_.data(), words_.size(),
                                                                                  sink_.data());
    SLUICE_CHECK_LAUNCH();
  }

 private:
  context& ctx_;
  device_buffer<uint4> words_;
  device_buffer<unsigned> sink_;
};

/// The p-quantile of sorted samples, interpolated linearly between the two nearest.
double quantile(const std::vector<double>& sorted, double p) {
  const double position = p * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(position);
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  return sorted[below] + (position - static_cast<double>(below)) * (sorted[above] - sorted[below]);
}

timing summarise(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  return {.median_ms = quantile(ms, 0.5),
          .min_ms = ms.front(),
          .max_ms = ms.back(),
          .q1_ms = quantile(ms, 0.25),
          .q3_ms = quantile(ms, 0.75),
          .repetitions = static_cast<int>(ms.size())};
}

class event {
 public:
  event() { SLUICE_CUDA_CHECK(cudaEventCreate(&event_)); }
  event(const event&) = delete;
  event& operator=(const event&) = delete;
  ~event() { (void)cudaEventDestroy(event_); }
  [[nodiscard]] cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_{};
};

}  // namespace

timing time_device(context& ctx, const std::function<void()>& work, timing_policy policy) {
  return time_device(ctx, [] {}, work, policy);
}

timing time_device(context& ctx, const std::function<void()>& setup, const std::function<void()>& work,
                   timing_policy policy) {
  auto device = ctx.activate();
  l2_evictor evict(ctx);
  for (int i = 0; i < policy.warmup; ++i) {
    setup();
    work();
  }
  std::vector<event> starts(static_cast<std::size_t>(policy.repetitions));
  std::vector<event> stops(static_cast<std::size_t>(policy.repetitions));
  for (std::size_t r = 0; r < starts.size(); ++r) {
    setup();
    evict();
    SLUICE_CUDA_CHECK(cudaEventRecord(starts[r].get(), ctx.stream()));
    work();
    SLUICE_CUDA_CHECK(cudaEventRecord(stops[r].get(), ctx.stream()));
  }
  ctx.synchronize();
  std::vector<double> ms;
  for (std::size_t r = 0; r < starts.size(); ++r) {
    float elapsed = 0;
    SLUICE_CUDA_CHECK(cudaEventElapsedTime(&elapsed, starts[r].get(), stops[r].get()));
    ms.push_back(elapsed);
  }
  return summarise(std::move(ms));
}

timing time_host(const std::function<void()>& work, timing_policy policy) {
  for (int i = 0; i < policy.warmup; ++i) work();
  std::vector<double> ms;
  for (int r = 0; r < policy.repetitions; ++r) {
    const auto start = std::chrono::steady_clock::now();
    work();
    const auto stop = std::chrono::steady_clock::now();
    ms.push_back(std::chrono::duration<double, std::milli>(stop - start).count());
  }
  return summarise(std::move(ms));
}

double measure_device_copy_bandwidth(context& ctx, std::size_t bytes, timing_policy policy) {
  device_buffer<char> from(ctx, bytes), to(ctx, bytes);
  from.fill_bytes(0x5A);
  const timing t = time_device(
      ctx, [&] { SLUICE_CUDA_CHECK(cudaMemcpyAsync(to.data(), from.data(), bytes, cudaMemcpyDeviceToDevice, ctx.stream())); },
      policy);
  return 2.0 * static_cast<double>(bytes) / (t.median_ms * 1e-3);
}

double measure_host_copy_bandwidth(std::size_t bytes, timing_policy policy) {
  std::vector<char> from(bytes, 0x5A), to(bytes);
  const timing t = time_host([&] { std::memcpy(to.data(), from.data(), bytes); }, policy);
  return 2.0 * static_cast<double>(bytes) / (t.median_ms * 1e-3);
}

}  // namespace sluice::bench
