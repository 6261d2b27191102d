// src/model/calibrate/benchmarks.cu: the microbenchmark kernels and their timing (see benchmarks.hpp).
// Every kernel writes one word a thread derived from its chains, so that no chain is dead code.
#include "model/calibrate/benchmarks.hpp"

#include <sluice/core/context.hpp>
#include <sluice/core/device_buffer.hpp>
#include <sluice/core/error.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace sluice::model::calibration {

namespace {

constexpr unsigned full_mask = 0xFFFFFFFFu;
/// The shared-memory chase table: 32 rows of the 32 banks, next[i] = i + 32 (the same bank, next row).
constexpr int chase_words = 1024;

#define SLUICE_SPT_BOUNDS __launch_bounds__(block_threads, max_blocks_per_sm)

__device__ __forceinline__ std::size_t thread_id() { return std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; }
__device__ __forceinline__ std::size_t thread_count() { return std::size_t{gridDim.x} * blockDim.x; }

template <int ILP>
__device__ __forceinline__ unsigned sum(const unsigned (&x)[ILP]) {
  unsigned s = 0;
#pragma unroll
  for (int k = 0; k < ILP; ++k) s += x[k];
  return s;
}

/// Copies `words` (a multiple of gridDim·128·ILP) words `passes` times: each block takes chunks of
/// 128·ILP words, thread t its words t, t + 128, …: every load and store of a warp is coalesced.
template <int ILP>
__global__ void SLUICE_SPT_BOUNDS copy_kernel(const unsigned* __restrict__ in, unsigned* __restrict__ out,
                                              std::size_t words, int passes) {
  const std::size_t chunk = std::size_t{gridDim.x} * block_threads * ILP;
  for (int pass = 0; pass < passes; ++pass)
    for (std::size_t base = std::size_t{blockIdx.x} * block_threads * ILP + threadIdx.x; base < words; base += chunk) {
      unsigned v[ILP];
#pragma unroll
      for (int k = 0; k < ILP; ++k) v[k] = in[base + k * block_threads];
#pragma unroll
      for (int k = 0; k < ILP; ++k) out[base + k * block_threads] = v[k] + static_cast<unsigned>(pass);
    }
}

template <int ILP>
__global__ void SLUICE_SPT_BOUNDS shared_kernel(unsigned* out, int steps) {
  __shared__ unsigned next[chase_words];
  for (int i = static_cast<int>(threadIdx.x); i < chase_words; i += block_threads) next[i] = (i + 32) % chase_words;
  __syncthreads();
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  unsigned p[ILP];
#pragma unroll
  for (int k = 0; k < ILP; ++k) p[k] = lane + 32 * ((warp * ILP + k) % 32);  // lane l stays in bank l
#pragma unroll 8
  for (int s = 0; s < steps; ++s)
#pragma unroll
    for (int k = 0; k < ILP; ++k) p[k] = next[p[k]];
  out[thread_id()] = sum(p);
}

template <int ILP>
__global__ void SLUICE_SPT_BOUNDS register_kernel(unsigned* out, int steps, unsigned c) {
  unsigned x[ILP];
#pragma unroll
  for (int k = 0; k < ILP; ++k) x[k] = static_cast<unsigned>(thread_id()) + k;
#pragma unroll 8
  for (int s = 0; s < steps; ++s)
#pragma unroll
    for (int k = 0; k < ILP; ++k) x[k] = x[k] * x[k] + c;
  out[thread_id()] = sum(x);
}

__global__ void SLUICE_SPT_BOUNDS sync_kernel(unsigned* out, int steps, unsigned c) {
  unsigned x = threadIdx.x;
  for (int s = 0; s < steps; ++s) {
    x = x * x + c;
    __syncthreads();
  }
  out[thread_id()] = x;
}

/// Chain k of a thread alternates between its two words 2k and 2k + 1 (of a column of `threads` words
/// each) as the returned value's parity says: each atomic waits for the previous one of its chain.
template <int ILP>
__global__ void SLUICE_SPT_BOUNDS global_atomic_kernel(unsigned* slots, unsigned* out, int steps) {
  const std::size_t t = thread_id(), threads = thread_count();
  unsigned r[ILP];
#pragma unroll
  for (int k = 0; k < ILP; ++k) r[k] = 0;
  for (int s = 0; s < steps; ++s)
#pragma unroll
    for (int k = 0; k < ILP; ++k) r[k] = atomicAdd(slots + (std::size_t{2} * k + (r[k] & 1u)) * threads + t, 1u);
  out[t] = sum(r);
}

template <int ILP>
__global__ void SLUICE_SPT_BOUNDS shared_atomic_kernel(unsigned* out, int steps) {
  __shared__ unsigned slots[2 * max_ilp * block_threads];
  for (int i = static_cast<int>(threadIdx.x); i < 2 * max_ilp * block_threads; i += block_threads) slots[i] = 0;
  __syncthreads();
  unsigned r[ILP];
#pragma unroll
  for (int k = 0; k < ILP; ++k) r[k] = 0;
  for (int s = 0; s < steps; ++s)
#pragma unroll
    for (int k = 0; k < ILP; ++k) r[k] = atomicAdd(&slots[(2 * k + (r[k] & 1u)) * block_threads + threadIdx.x], 1u);
  out[thread_id()] = sum(r);
}

/// Five shuffles a step (lane masks 1, 2, 4, 8, 16).
template <int ILP>
__global__ void SLUICE_SPT_BOUNDS shuffle_kernel(unsigned* out, int steps) {
  unsigned x[ILP];
#pragma unroll
  for (int k = 0; k < ILP; ++k) x[k] = static_cast<unsigned>(thread_id()) * 2654435761u + k;
  for (int s = 0; s < steps; ++s)
#pragma unroll
    for (int mask = 1; mask < 32; mask *= 2)
#pragma unroll
      for (int k = 0; k < ILP; ++k) x[k] = __shfl_xor_sync(full_mask, x[k], mask);
  out[thread_id()] = sum(x);
}

/// A ballot of each lane's own bit of the chain's word (the ballot and its predicate: two instructions).
template <int ILP>
__global__ void SLUICE_SPT_BOUNDS ballot_kernel(unsigned* out, int steps) {
  const unsigned bit = 1u << (threadIdx.x % 32);
  unsigned x[ILP];
#pragma unroll
  for (int k = 0; k < ILP; ++k) x[k] = static_cast<unsigned>(thread_id()) * 2654435761u + k;
#pragma unroll 8
  for (int s = 0; s < steps; ++s)
#pragma unroll
    for (int k = 0; k < ILP; ++k) x[k] = __ballot_sync(full_mask, (x[k] & bit) != 0);
  out[thread_id()] = sum(x);
}

/// Independent 4-byte reads at hashed addresses of in[0, mask] (mask + 1 a power of two).
template <int ILP>
__global__ void SLUICE_SPT_BOUNDS gather_kernel(const unsigned* __restrict__ in, unsigned mask, unsigned* out,
                                                int steps) {
  unsigned h[ILP];
#pragma unroll
  for (int k = 0; k < ILP; ++k) h[k] = static_cast<unsigned>(thread_id()) * ILP + k;
  unsigned total = 0;
  for (int s = 0; s < steps; ++s)
#pragma unroll
    for (int k = 0; k < ILP; ++k) {
      h[k] = h[k] * 0x9E3779B1u + 0x7F4A7C15u;
      unsigned a = h[k] ^ (h[k] >> 16);
      a *= 0x7FEB352Du;
      a ^= a >> 15;
      total += in[a & mask];
    }
  out[thread_id()] = total;
}

__global__ void SLUICE_SPT_BOUNDS spin_kernel(long long cycles, unsigned* out) {
  const long long start = clock64();
  long long now = start;
  while (now - start < cycles) now = clock64();
  if (now == start) out[thread_id()] = 1;  // only when cycles ≤ 0: keeps the loop observable
}

__global__ void empty_kernel(unsigned* out, int write) {
  if (write != 0) out[0] = 1;
}

/// f.template operator()<ILP>() for ilp in {1, 2, 4, 8}.
template <class F>
void with_ilp(int ilp, F&& f) {
  switch (ilp) {
    case 1: return f.template operator()<1>();
    case 2: return f.template operator()<2>();
    case 4: return f.template operator()<4>();
    case 8: return f.template operator()<8>();
    default: throw invalid_argument("model calibrate", "ilp", "is " + std::to_string(ilp) + ": must be 1, 2, 4 or 8");
  }
}

class event {
 public:
  event() { SLUICE_CUDA_CHECK(cudaEventCreate(&e_)); }
  ~event() { (void)cudaEventDestroy(e_); }
  event(const event&) = delete;
  event& operator=(const event&) = delete;
  [[nodiscard]] cudaEvent_t get() const { return e_; }

 private:
  cudaEvent_t e_{};
};

/// The median time of `repetitions` runs of `launch` (each bracketed by events), after one warm-up run.
template <class Launch>
double median_seconds(cudaStream_t stream, int repetitions, Launch&& launch) {
  launch();
  SLUICE_CUDA_CHECK(cudaGetLastError());
  SLUICE_CUDA_CHECK(cudaStreamSynchronize(stream));
  const event start, stop;
  std::vector<float> ms;
  for (int r = 0; r < std::max(repetitions, 1); ++r) {
    SLUICE_CUDA_CHECK(cudaEventRecord(start.get(), stream));
    launch();
    SLUICE_CUDA_CHECK(cudaEventRecord(stop.get(), stream));
    SLUICE_CUDA_CHECK(cudaEventSynchronize(stop.get()));
    float elapsed = 0;
    SLUICE_CUDA_CHECK(cudaEventElapsedTime(&elapsed, start.get(), stop.get()));
    ms.push_back(elapsed);
  }
  std::nth_element(ms.begin(), ms.begin() + static_cast<std::ptrdiff_t>(ms.size() / 2), ms.end());
  return ms[ms.size() / 2] * 1e-3;
}

template <class Kernel>
bool resident(Kernel kernel, int blocks_per_sm) {
  int fit = 0;
  SLUICE_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, kernel, block_threads, 0));
  return fit >= blocks_per_sm;
}

}  // namespace

std::string_view to_string(benchmark b) {
  switch (b) {
    case benchmark::dram_copy: return "dram_copy";
    case benchmark::l2_copy: return "l2_copy";
    case benchmark::shared: return "shared";
    case benchmark::registers: return "registers";
    case benchmark::syncthreads: return "syncthreads";
    case benchmark::global_atomic: return "global_atomic";
    case benchmark::shared_atomic: return "shared_atomic";
    case benchmark::shuffle: return "shuffle";
    case benchmark::ballot: return "ballot";
    case benchmark::dram_gather: return "dram_gather";
    case benchmark::l2_gather: return "l2_gather";
  }
  return "?";
}

struct benchmarks::state {
  context ctx;
  sizes work;
  int sm_count = 0;
  device_buffer<unsigned> dram_in, dram_out, l2_in, l2_out, slots, out;

  state(int device, const sizes& w)
      : ctx(device),
        work(w),
        sm_count(ctx.properties().sm_count),
        dram_in(ctx, w.dram_words),
        dram_out(ctx, w.dram_words),
        l2_in(ctx, w.l2_words),
        l2_out(ctx, w.l2_words),
        slots(ctx, std::size_t{2} * max_ilp * max_threads()),
        out(ctx, max_threads()) {
    dram_in.fill_bytes(1);
    l2_in.fill_bytes(1);
    slots.fill_bytes(0);
    ctx.synchronize();
  }
  [[nodiscard]] std::size_t max_threads() const {
    return static_cast<std::size_t>(sm_count) * max_blocks_per_sm * block_threads;
  }
};

benchmarks::benchmarks(int device, const sizes& work) {
  if (work.dram_words == 0 || (work.dram_words & (work.dram_words - 1)) != 0 || work.dram_words > (std::size_t{1} << 32) ||
      work.l2_words == 0 || (work.l2_words & (work.l2_words - 1)) != 0)
    throw invalid_argument("model calibrate", "sizes", "the array sizes must be powers of two of at most 2^32 words");
  state_ = std::make_unique<state>(device, work);
}

benchmarks::~benchmarks() = default;

bool benchmarks::fits(benchmark which, int blocks_per_sm, int ilp) const {
  const state& s = *state_;
  const std::size_t chunk = copy_chunk_words(s.sm_count, blocks_per_sm, ilp);
  switch (which) {
    case benchmark::dram_copy: return chunk <= s.work.dram_words;
    case benchmark::l2_copy: return chunk <= s.work.l2_words;
    default: return true;
  }
}

std::optional<measurement> benchmarks::run(benchmark which, int blocks_per_sm, int ilp, int repetitions) {
  state& s = *state_;
  const cudaStream_t stream = s.ctx.stream();
  const unsigned grid = static_cast<unsigned>(s.sm_count * blocks_per_sm);
  const double threads = static_cast<double>(grid) * block_threads;
  unsigned* out = s.out.data();
  std::optional<measurement> result;
  // Times kernel<<<grid, 128>>>(args…) if it is resident; `operations` per run.
  const auto timed = [&](auto kernel, double operations, auto... args) {
    if (!resident(kernel, blocks_per_sm)) return;
    const double seconds =
        median_seconds(stream, repetitions, [&] { kernel<<<grid, block_threads, 0, stream>>>(args...); });
    result = measurement{operations, seconds};
  };
  const auto copy = [&](const unsigned* in, unsigned* to, std::size_t words, int passes) {
    with_ilp(ilp, [&]<int I>() {
      const std::size_t chunk = copy_chunk_words(s.sm_count, blocks_per_sm, I);
      const std::size_t used = words / chunk * chunk;
      if (used == 0)  // a caller that skipped fits()
        throw invalid_argument("model calibrate", "sizes", "the copy arrays are smaller than one grid chunk");
      timed(copy_kernel<I>, 2.0 * static_cast<double>(used) * passes, in, to, used, passes);
    });
  };
  const auto gather = [&](const unsigned* in, std::size_t words) {
    with_ilp(ilp, [&]<int I>() {
      timed(gather_kernel<I>, threads * s.work.gather_steps * I, in, static_cast<unsigned>(words - 1), out,
           s.work.gather_steps);
    });
  };
  const int steps = s.work.steps;
  const unsigned c = 12345u;
  switch (which) {
    case benchmark::dram_copy: copy(s.dram_in.data(), s.dram_out.data(), s.work.dram_words, 1); break;
    case benchmark::l2_copy: copy(s.l2_in.data(), s.l2_out.data(), s.work.l2_words, s.work.l2_passes); break;
    case benchmark::shared:
      with_ilp(ilp, [&]<int I>() { timed(shared_kernel<I>, threads * steps * I, out, steps); });
      break;
    case benchmark::registers:
      with_ilp(ilp, [&]<int I>() { timed(register_kernel<I>, threads * steps * I, out, steps, c); });
      break;
    case benchmark::syncthreads: timed(sync_kernel, threads * steps, out, steps, c); break;
    case benchmark::global_atomic:
      with_ilp(ilp, [&]<int I>() {
        timed(global_atomic_kernel<I>, threads * s.work.atomic_steps * I, s.slots.data(), out, s.work.atomic_steps);
      });
      break;
    case benchmark::shared_atomic:
      with_ilp(ilp, [&]<int I>() { timed(shared_atomic_kernel<I>, threads * steps * I, out, steps); });
      break;
    case benchmark::shuffle:
      with_ilp(ilp, [&]<int I>() { timed(shuffle_kernel<I>, threads * steps * 5.0 * I, out, steps); });
      break;
    case benchmark::ballot:
      with_ilp(ilp, [&]<int I>() { timed(ballot_kernel<I>, threads * steps * I, out, steps); });
      break;
    case benchmark::dram_gather: gather(s.dram_in.data(), s.work.dram_words); break;
    case benchmark::l2_gather: gather(s.l2_in.data(), s.work.l2_words); break;
  }
  return result;
}

double benchmarks::clock_hz(int repetitions) {
  state& s = *state_;
  constexpr long long cycles = 100'000'000;
  const unsigned grid = static_cast<unsigned>(s.sm_count * max_blocks_per_sm);
  const double seconds = median_seconds(s.ctx.stream(), repetitions, [&] {
    spin_kernel<<<grid, block_threads, 0, s.ctx.stream()>>>(cycles, s.out.data());
  });
  return static_cast<double>(cycles) / seconds;
}

double benchmarks::launch_sequence_seconds(int launches, int repetitions) {
  state& s = *state_;
  constexpr int total_steps = 1 << 16;
  if (launches < 1 || total_steps % launches != 0)
    throw invalid_argument("model calibrate", "launches", "must divide " + std::to_string(total_steps));
  const unsigned grid = static_cast<unsigned>(s.sm_count * max_blocks_per_sm);
  return median_seconds(s.ctx.stream(), repetitions, [&] {
    for (int l = 0; l < launches; ++l)
      register_kernel<1><<<grid, block_threads, 0, s.ctx.stream()>>>(s.out.data(), total_steps / launches, 12345u);
  });
}

double benchmarks::synchronized_launch_seconds(int launches) {
  state& s = *state_;
  const cudaStream_t stream = s.ctx.stream();
  empty_kernel<<<1, 32, 0, stream>>>(s.out.data(), 0);
  SLUICE_CUDA_CHECK(cudaStreamSynchronize(stream));
  const auto start = std::chrono::steady_clock::now();
  for (int l = 0; l < launches; ++l) {
    empty_kernel<<<1, 32, 0, stream>>>(s.out.data(), 0);
    SLUICE_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  SLUICE_CUDA_CHECK(cudaGetLastError());
  return elapsed.count() / launches;
}

}  // namespace sluice::model::calibration
