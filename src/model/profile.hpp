// src/model/profile.hpp: the device profile of the SPT model (Karsin ch. 4): the occupancy limits of the
// device and, per operation type φ, the latency L_φ (cycles) and the peak bandwidth B_φ (operations per
// clock per core) that `sluice model calibrate` measures, plus L_sync, the cost of one kernel boundary.
// Stored as JSON (format "sluice-spt-profile/1"); loading names the file, the field and what is wrong.
#pragma once

#include <sluice/core/error.hpp>

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace sluice::model {

/// A profile that cannot be read, is malformed, or belongs to another device.
class profile_error : public sluice::error {
 public:
  using sluice::error::error;
};

/// Φ for a Hopper GPU: the seed's four (§4.1: g, s, r, y) and what the seed's Kepler and Maxwell GPUs
/// could not show it (a 50 MB L2, atomics, warp exchanges), each measured by its own microbenchmark.
enum class op : int {
  g,   ///< global memory resident in DRAM: 4-byte words, coalesced (PEM with B = w, §4.2)
  l2,  ///< global memory resident in the L2: 4-byte words, coalesced
  s,   ///< shared memory: 4-byte words, conflict-free (CREW PRAM; bank conflicts through β, §4.3)
  r,   ///< register operations: 32-bit integer instructions per thread (§4.4)
  y,   ///< __syncthreads, per thread (§4.5); ILP never applies
  ag,  ///< global atomics (atomicAdd of a 32-bit word), per thread
  as,  ///< shared atomics (atomicAdd of a 32-bit word), per thread
  x,   ///< warp shuffles (__shfl_xor_sync of a 32-bit word), per thread
  v,   ///< warp votes (__ballot_sync), per thread
};
inline constexpr int op_count = 9;

struct op_info {
  std::string_view key;   ///< the JSON key and the matrix column
  std::string_view name;
  std::string_view unit;  ///< what one operation is
  bool ilp = true;        ///< whether instruction-level parallelism hides its latency (not for y, §4.5)
};

inline constexpr std::array<op_info, op_count> operations{{
    {"g", "global memory (DRAM)", "4-byte word moved, coalesced", true},
    {"l2", "global memory (L2 hit)", "4-byte word moved, coalesced", true},
    {"s", "shared memory", "4-byte word, conflict-free (times beta)", true},
    {"r", "register operation", "32-bit integer instruction of one thread", true},
    {"y", "__syncthreads", "barrier of one thread", false},
    {"ag", "global atomic", "atomicAdd of one thread", true},
    {"as", "shared atomic", "atomicAdd of one thread", true},
    {"x", "warp shuffle", "__shfl_xor_sync of one thread", true},
    {"v", "warp vote", "__ballot_sync of one thread", true},
}};

[[nodiscard]] constexpr const op_info& info(op o) { return operations[static_cast<std::size_t>(o)]; }
[[nodiscard]] std::optional<op> op_from_key(std::string_view key);

/// L_φ and B_φ (Defs 3.1.9, 3.1.10): the time of one operation alone, in SM clock cycles, and the most
/// operations the whole device completes per clock, divided by its P cores. L·B is the multiplicity at
/// which the operation becomes bandwidth-bound (the knee of §4.2.1).
struct op_cost {
  double latency_cycles = 0;
  double bandwidth = 0;
  [[nodiscard]] double saturation() const { return latency_cycles * bandwidth; }
};

/// What bounds the number of resident blocks: the CUDA occupancy calculator's inputs (cuda_occupancy.h),
/// read from cudaDeviceProp by `sluice model calibrate`. The seed's §4.7 has only the shared memory and
/// register terms; the thread, warp and block caps are what Hopper adds (digest §14).
struct device_limits {
  int sm_count = 0;
  int cores_per_sm = 0;  ///< 32-bit lanes per SM: P = sm_count × cores_per_sm
  int warp_size = 32;
  int max_threads_per_sm = 0;
  int max_threads_per_block = 0;
  int max_blocks_per_sm = 0;
  int registers_per_sm = 0;
  int registers_per_block = 0;
  int max_registers_per_thread = 0;
  int register_allocation_unit = 0;  ///< registers, per warp
  int register_sub_partitions = 0;   ///< the register file is split among them (4 since Volta)
  std::size_t shared_memory_per_sm = 0;
  std::size_t shared_memory_per_block_optin = 0;
  std::size_t shared_memory_reserved_per_block = 0;  ///< the driver's share of every block (1 KiB since Ampere)
  std::size_t shared_allocation_unit = 0;
  int shared_banks = 32;

  [[nodiscard]] double cores() const { return static_cast<double>(sm_count) * cores_per_sm; }
};

struct device_profile {
  std::string name;                ///< cudaDeviceProp::name: a profile is checked against the device it models
  std::string compute_capability;  ///< "9.0"
  std::string driver;              ///< driver and runtime versions at calibration ("13.0")
  std::string runtime;
  double clock_hz = 0;             ///< SM clock measured during calibration: cycles → seconds
  double memory_clock_hz = 0;
  int memory_bus_bits = 0;
  std::size_t l2_bytes = 0;
  device_limits limits;
  std::array<std::optional<op_cost>, op_count> ops;  ///< the operations measured
  double sync_latency_cycles = 0;  ///< L_sync: one kernel boundary, launch to the next kernel's start (§4.6)
  /// A random 4-byte read costs this many coalesced words of g's (l2's) bandwidth: the seed charges an
  /// uncoalesced access a whole block of w words (§6.1.1); calibrate measures it with a random gather.
  double random_access_words = 32;
  double l2_random_access_words = 32;
  std::string measured;  ///< when, at which commit, by which command

  [[nodiscard]] const op_cost& cost(op o) const;  ///< throws profile_error when φ was not measured
};

/// Parses a profile; `source` names the text in messages (a path). Throws profile_error.
[[nodiscard]] device_profile parse_profile(std::string_view json_text, std::string_view source);
/// Reads and parses a profile file. Throws profile_error.
[[nodiscard]] device_profile load_profile(const std::string& path);
/// The profile as JSON text (parse_profile's input).
[[nodiscard]] std::string profile_json(const device_profile& profile);
/// Throws profile_error when the profile was measured on another device than `device_name`.
void require_device(const device_profile& profile, std::string_view device_name, std::string_view source);

}  // namespace sluice::model
