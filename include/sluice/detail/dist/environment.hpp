// sluice/detail/dist/environment.hpp: where a process stands in a job started by a launcher (mpirun,
// torchrun, srun): its rank, the world size, its rank among the processes of its host (which picks its
// GPU), read from the launcher's environment variables.
//
// Pure C++ over a lookup function, so that host tests cover every convention, their precedence and
// every malformed value without touching the process environment.
#pragma once

#include <sluice/core/error.hpp>

#include <charconv>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

namespace sluice::detail::dist {

/// One launcher's variables: the process's rank, the world size, the rank on its host.
struct launch_convention {
  std::string_view name;
  std::string_view rank;
  std::string_view size;
  std::string_view local_rank;
};

/// In order of precedence: sluice's own (to override any launcher), then the MPI launchers, then
/// torchrun, then Slurm last, since mpirun and torchrun started inside an allocation see Slurm's
/// variables too (with srun's one task per node, not theirs).
inline constexpr launch_convention launch_conventions[] = {
    {"sluice", "SLUICE_DIST_RANK", "SLUICE_DIST_WORLD_SIZE", "SLUICE_DIST_LOCAL_RANK"},
    {"Open MPI", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK"},
    {"MPICH / Hydra", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID"},
    {"torchrun", "RANK", "WORLD_SIZE", "LOCAL_RANK"},
    {"Slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"},
};

/// Overrides the GPU a process takes (otherwise its local rank modulo the visible devices).
inline constexpr std::string_view device_variable = "SLUICE_DIST_DEVICE";

/// Where this process stands: rank in [0, world_size), and its rank on its host.
struct launch_placement {
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;
  std::string convention = "none (one process, world of 1)";
};

/// The value of an environment variable, or nothing where it is unset.
using environment_lookup = std::function<std::optional<std::string>(std::string_view)>;

inline constexpr const char* environment_function = "dist::communicator::from_environment";

/// `text` as an integer in [low, high], or invalid_argument naming `variable` and what it held.
inline int parse_bounded(std::string_view variable, const std::string& text, long long low, long long high) {
  long long value = 0;
  const char* first = text.data();
  const char* last = text.data() + text.size();
  const auto [end, status] = std::from_chars(first, last, value);
  if (status != std::errc{} || end != last || text.empty() || value < low || value > high)
    throw invalid_argument(environment_function, variable,
                           "is '" + text + "': must be an integer in [" + std::to_string(low) + ", " +
                               std::to_string(high) + "]");
  return static_cast<int>(value);
}

inline constexpr long long max_world_size = 1 << 24;

/// The placement from the first convention whose rank variable is set; no convention set: a world of 1.
/// A convention with its rank but not its size (or the reverse) is an error naming the missing variable;
/// so is a rank outside [0, size). An unset local rank is 0 (one process per host).
inline launch_placement placement_from(const environment_lookup& lookup) {
  for (const launch_convention& c : launch_conventions) {
    const std::optional<std::string> rank = lookup(c.rank);
    const std::optional<std::string> size = lookup(c.size);
    if (!rank && !size) continue;
    if (!rank) throw invalid_argument(environment_function, c.rank, "is unset but " + std::string(c.size) + " is set");
    if (!size) throw invalid_argument(environment_function, c.size, "is unset but " + std::string(c.rank) + " is set");
    launch_placement p;
    p.world_size = parse_bounded(c.size, *size, 1, max_world_size);
    p.rank = parse_bounded(c.rank, *rank, 0, p.world_size - 1);
    const std::optional<std::string> local = lookup(c.local_rank);
    p.local_rank = local ? parse_bounded(c.local_rank, *local, 0, max_world_size - 1) : 0;
    p.convention = std::string(c.name);
    return p;
  }
  return {};
}

/// The GPU of a process: SLUICE_DIST_DEVICE where set (must be a visible device), else its local rank
/// modulo the visible devices (under CUDA_VISIBLE_DEVICES with one device per process: device 0).
inline int device_for(const launch_placement& placement, int device_count, const environment_lookup& lookup) {
  if (device_count < 1)
    throw invalid_argument(environment_function, "device", "no CUDA device is visible to this process");
  if (const std::optional<std::string> forced = lookup(device_variable))
    return parse_bounded(device_variable, *forced, 0, device_count - 1);
  return placement.local_rank % device_count;
}

/// The lookup of this process's environment (std::getenv).
inline environment_lookup process_environment() {
  return [](std::string_view name) -> std::optional<std::string> {
    const char* value = std::getenv(std::string(name).c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
}

}  // namespace sluice::detail::dist
