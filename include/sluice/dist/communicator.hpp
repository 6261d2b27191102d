// sluice/dist/communicator.hpp: the ranks a distributed sluice call runs on, over NCCL.
//
// A communicator is made in one of two ways:
//   one process drives several GPUs     communicator::on_devices({0, 1}) or on_all_devices(): ranks 0 …
//                                       G − 1 in this process, each with its own sluice::context;
//   one process per GPU (any hosts)     communicator::from_environment(): the rank and world size from
//                                       the launcher (mpirun, torchrun or srun; detail/dist/environment.hpp),
//                                       the GPU from the local rank (or SLUICE_DIST_DEVICE), and NCCL's id
//                                       handed from rank 0 through the file SLUICE_DIST_ID_FILE names
//                                       (scripts/dist_run.sh sets it, and SLUICE_DIST_RUN_ID, per run);
//   or explicitly                       communicator(id, world_size, {{rank, device}, …}): any mix, with
//                                       an id the caller distributes (communicator::new_id()).
// Its NCCL communicators are non-blocking, with a timeout (communicator_options::timeout): a collective
// that does not finish in time, or fails, aborts the communicator and throws dist::communication_error
// (detail/dist/world.hpp); a rank's own failure in a call throws dist::rank_failure on every rank
// (detail/dist/errors.hpp). Move-only; the buffers a call returns live on its contexts, so the
// communicator must outlive them. NVLink multicast is left to NCCL's environment (NCCL_NVLS_ENABLE).
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/detail/dist/environment.hpp>
#include <sluice/detail/dist/errors.hpp>
#include <sluice/detail/dist/id_file.hpp>
#include <sluice/detail/dist/steps.hpp>
#include <sluice/detail/dist/world.hpp>

#include <nccl.h>

#include <chrono>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace sluice::dist {

/// NCCL's unique id of one world, as bytes (rank 0 makes it, every rank joins with it).
using unique_id = detail::dist::id_block;

/// A fault drill (docs/dist.md): rank `rank` reports a failure of kind `other` at the `step`-th gather of
/// every call (1-based: the first checks the arguments, the later ones follow the local steps), so that
/// every rank throws dist::rank_failure naming it. rank < 0: no drill.
using injected_failure = detail::dist::injected_failure;

struct communicator_options {
  /// How long any step may wait for the other ranks (creation, a collective, a stream) before the
  /// communicator is aborted and the call throws communication_error.
  std::chrono::milliseconds timeout = std::chrono::minutes(5);
  /// The options of each rank's sluice::context.
  context_options context{};
  /// from_environment: the id file's path (empty: SLUICE_DIST_ID_FILE).
  std::string id_file;
  /// A fault drill: this rank fails its own part of every call at that step, as a local error would.
  injected_failure inject_failure{};
};

/// A rank of this process and its GPU.
struct rank_on_device {
  int rank = 0;
  int device = 0;
};

class communicator {
 public:
  /// A fresh NCCL id (rank 0 of a world calls it and hands the bytes to the others).
  [[nodiscard]] static unique_id new_id() {
    ncclUniqueId id;
    const ncclResult_t result = ncclGetUniqueId(&id);
    if (result != ncclSuccess)
      throw communication_error(0, "ncclGetUniqueId", detail::dist::nccl_problem(result, nullptr));
    unique_id bytes{};
    std::memcpy(bytes.data(), id.internal, bytes.size());
    return bytes;
  }

  /// Joins the world of `world_size` ranks with id `id`, as the ranks `locals` of this process.
  communicator(const unique_id& id, int world_size, const std::vector<rank_on_device>& locals,
               const communicator_options& options = {}) {
    const char* function = "dist::communicator";
    if (world_size < 1) throw invalid_argument(function, "world_size", "must be at least 1");
    if (locals.empty()) throw invalid_argument(function, "locals", "must name at least one rank of this process");
    std::vector<std::pair<int, int>> pairs;
    const int devices = cuda_device_count();
    for (std::size_t i = 0; i < locals.size(); ++i) {
      const rank_on_device& l = locals[i];
      if (l.rank < 0 || l.rank >= world_size)
        throw invalid_argument(function, "locals", "names rank " + std::to_string(l.rank) + " outside [0, world_size)", i);
      if (l.device < 0 || l.device >= devices)
        throw invalid_argument(function, "locals",
                               "names device " + std::to_string(l.device) + " but " + std::to_string(devices) +
                                   " are visible",
                               i);
      for (std::size_t j = 0; j < i; ++j)
        if (locals[j].device == l.device || locals[j].rank == l.rank)
          throw invalid_argument(function, "locals", "names a rank or a device twice (NCCL takes one rank per GPU)", i);
      pairs.emplace_back(l.rank, l.device);
    }
    world_ = std::make_unique<detail::dist::world>(id, world_size, pairs, options.timeout, options.context,
                                                    options.inject_failure);
  }

  /// One process drives `devices`: ranks 0 … devices.size() − 1, in that order.
  [[nodiscard]] static communicator on_devices(const std::vector<int>& devices, const communicator_options& options = {}) {
    std::vector<rank_on_device> locals;
    for (std::size_t i = 0; i < devices.size(); ++i) locals.push_back({static_cast<int>(i), devices[i]});
    return communicator(new_id(), static_cast<int>(devices.size()), locals, options);
  }

  /// One process drives every visible GPU.
  [[nodiscard]] static communicator on_all_devices(const communicator_options& options = {}) {
    std::vector<int> devices;
    for (int d = 0; d < cuda_device_count(); ++d) devices.push_back(d);
    if (devices.empty())
      throw invalid_argument("dist::communicator::on_all_devices", "devices", "no CUDA device is visible");
    return on_devices(devices, options);
  }

  /// One process per GPU, placed by its launcher's environment (header comment).
  [[nodiscard]] static communicator from_environment(const communicator_options& options = {}) {
    namespace dd = detail::dist;
    const dd::environment_lookup lookup = dd::process_environment();
    const dd::launch_placement p = dd::placement_from(lookup);
    const int device = dd::device_for(p, cuda_device_count(), lookup);
    if (p.world_size == 1) return communicator(new_id(), 1, {{0, device}}, options);
    const std::string path = !options.id_file.empty() ? options.id_file : lookup(dd::id_file_variable).value_or("");
    if (path.empty())
      throw invalid_argument(dd::environment_function, dd::id_file_variable,
                             "is unset: a world of " + std::to_string(p.world_size) + " ranks (" + p.convention +
                                 ") needs a file every rank can read to pass NCCL's id (scripts/dist_run.sh sets it)");
    const std::string token = lookup(dd::run_token_variable).value_or("");
    unique_id id{};
    if (p.rank == 0) {
      id = new_id();
      dd::publish_id(path, id, p.world_size, token);
    } else {
      id = dd::await_id(path, p.world_size, token, options.timeout);
    }
    communicator joined(id, p.world_size, {{p.rank, device}}, options);
    if (p.rank == 0) {  // every rank has joined, so every rank has read it
      std::error_code ignored;
      std::filesystem::remove(path, ignored);
    }
    return joined;
  }

  communicator(communicator&&) noexcept = default;
  communicator& operator=(communicator&&) noexcept = default;

  [[nodiscard]] int world_size() const { return world_->size(); }
  /// Ranks driven by this process (1 with one process per GPU).
  [[nodiscard]] std::size_t local_count() const { return world_->locals().size(); }
  /// The global rank of local rank i.
  [[nodiscard]] int rank(std::size_t i = 0) const { return world_->locals()[i].rank; }
  [[nodiscard]] int device(std::size_t i = 0) const { return world_->locals()[i].device; }
  /// Local rank i's context: its device, stream and memory pool.
  [[nodiscard]] context& ctx(std::size_t i = 0) const { return *world_->locals()[i].ctx; }
  /// Whether a failure aborted it (every later call throws communication_error).
  [[nodiscard]] bool aborted() const { return world_->aborted(); }
  /// Aborts its NCCL communicators now (other ranks' next collective fails or times out).
  void abort() { world_->abort(); }

  /// Returns once every rank has called it (and every rank's earlier work on its stream has finished).
  void barrier() {
    detail::dist::call c(*world_, "dist::barrier", nullptr, {});
    c.vote();
  }

  [[nodiscard]] detail::dist::world& world() const { return *world_; }

 private:
  std::unique_ptr<detail::dist::world> world_;
};

}  // namespace sluice::dist
