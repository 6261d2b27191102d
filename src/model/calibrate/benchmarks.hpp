// src/model/calibrate/benchmarks.hpp: the SPT microbenchmarks (Karsin §4.2–4.6, plus what Hopper adds)
// as host calls. Each kernel runs `blocks_per_sm` blocks of 128 threads on every SM, all resident at once
// (M_o = blocks_per_sm on 128-core SMs), every thread keeping `ilp` independent chains of the operation
// measured (M_I = ilp); a run is timed with CUDA events, the median of the repetitions after a warm-up.
//   dram_copy, l2_copy   coalesced copy (§4.2.1): 2 words moved per element, an array 8× the L2 or half of it
//   shared               dependent shared reads, each lane in its own bank (conflict-free, §4.3.1)
//   registers            dependent 32-bit multiply-adds, x = x·x + c (one IMAD, §4.4.1)
//   syncthreads          __syncthreads with one multiply-add between (§4.5.1); ilp is ignored
//   global_atomic        atomicAdd whose returned value picks the next of two words (a dependent chain);
//                        a warp's 32 lanes hit one 128-byte line, all resident in the L2
//   shared_atomic        the same on shared memory, each lane in its own bank
//   shuffle, ballot      __shfl_xor_sync chains (lane masks 1 … 16), __ballot_sync of one bit a lane
//   dram_gather, l2_gather  independent 4-byte reads at hashed random addresses of a DRAM-sized or an
//                        L2-sized array: the cost of an uncoalesced access against a coalesced word
// The kernels are small enough that 16 blocks of 128 threads fit an SM's registers; a shape that does not
// fit is reported as not resident instead of being timed at a lower M_o.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string_view>

namespace sluice::model::calibration {

inline constexpr int block_threads = 128;
inline constexpr int max_blocks_per_sm = 16;
inline constexpr int max_ilp = 8;

/// Words one copy run moves in a step: every thread of a grid of blocks_per_sm blocks an SM, ILP words each.
[[nodiscard]] constexpr std::size_t copy_chunk_words(int sm_count, int blocks_per_sm, int ilp) {
  return static_cast<std::size_t>(sm_count) * static_cast<std::size_t>(blocks_per_sm) * block_threads *
         static_cast<std::size_t>(ilp);
}

enum class benchmark {
  dram_copy,
  l2_copy,
  shared,
  registers,
  syncthreads,
  global_atomic,
  shared_atomic,
  shuffle,
  ballot,
  dram_gather,
  l2_gather,
};

[[nodiscard]] std::string_view to_string(benchmark b);

/// Work per run.
struct sizes {
  std::size_t dram_words = std::size_t{1} << 28;  ///< per array of the DRAM copy and gather (1 GiB)
  std::size_t l2_words = 0;                       ///< per array of the L2 copy and gather (at most a quarter of the L2)
  int l2_passes = 1;                              ///< passes over the L2 arrays a run
  int steps = 4096;                               ///< chain steps a thread (shared, registers, sync, warp, shared atomics)
  int atomic_steps = 256;                         ///< chain steps a thread of the global atomics
  int gather_steps = 256;                         ///< reads a chain of the gathers
};

/// What one run did: operations of the type measured on the whole device, and its median time.
struct measurement {
  double operations = 0;
  double seconds = 0;
};

class benchmarks {
 public:
  /// Allocates the arrays (on `device`, which it makes current) and fills them.
  benchmarks(int device, const sizes& work);
  ~benchmarks();
  benchmarks(const benchmarks&) = delete;
  benchmarks& operator=(const benchmarks&) = delete;

  /// Whether the point's arrays hold one grid chunk (copy_chunk_words): false for the copies of the
  /// largest grids over the L2 arrays, whose points are skipped; true for every other benchmark.
  [[nodiscard]] bool fits(benchmark which, int blocks_per_sm, int ilp) const;

  /// One point of a sweep (one that fits); nullopt when blocks_per_sm blocks of its kernel cannot be
  /// resident together.
  [[nodiscard]] std::optional<measurement> run(benchmark which, int blocks_per_sm, int ilp, int repetitions);

  /// The SM clock under load: every SM spins a known number of clock64() cycles, timed by events.
  [[nodiscard]] double clock_hz(int repetitions);

  /// A fixed amount of register work (the full device, 16 blocks an SM) split over `launches`
  /// back-to-back launches on one stream: the slope against `launches` is the cost of a kernel boundary
  /// (§4.6, measured as sluice runs its kernels: stream-ordered, no host synchronisation between them).
  [[nodiscard]] double launch_sequence_seconds(int launches, int repetitions);

  /// One empty one-block launch followed by cudaStreamSynchronize, timed on the host: the seed's
  /// DEVICESYNC cost, for reference (sluice never synchronises between its kernels).
  [[nodiscard]] double synchronized_launch_seconds(int launches);

 private:
  struct state;
  std::unique_ptr<state> state_;
};

}  // namespace sluice::model::calibration
