// sluice/detail/dist/world.hpp: the ranks this process drives (one per GPU, each with its sluice::context
// and its NCCL communicator), and the three things every distributed step does with NCCL: enqueue a group
// of calls, wait for the streams, and abort when something fails.
//
// Communicators are non-blocking (ncclCommInitRankConfig with config.blocking = 0): no NCCL call blocks
// the host; a call that answers ncclInProgress is polled (ncclCommGetAsyncError) until it has been
// enqueued, and a stream is waited for by polling cudaStreamQuery and NCCL's asynchronous error together.
// Whatever does not finish within the timeout, and any NCCL error, aborts every communicator of the
// process (ncclCommAbort, which also ends the NCCL kernels still running) and throws
// dist::communication_error naming the rank and the step: never a hang. An aborted world refuses every
// later call. NVLink multicast (NVLS) is left as NCCL's environment sets it: nothing here touches it.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/detail/dist/errors.hpp>
#include <sluice/detail/dist/id_file.hpp>
#include <sluice/detail/dist/records.hpp>

#include <nccl.h>

#include <chrono>
#include <cstddef>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace sluice::detail::dist {

static_assert(NCCL_UNIQUE_ID_BYTES == unique_id_bytes, "id_file.hpp's id size must be NCCL's");

/// NCCL's name of a result, and the communicator's last error where it has one.
inline std::string nccl_problem(ncclResult_t result, ncclComm_t comm) {
  std::string text = std::string("NCCL: ") + ncclGetErrorString(result);
  if (comm != nullptr) {
    const char* last = ncclGetLastError(comm);
    if (last != nullptr && *last != '\0') text += " (" + std::string(last) + ")";
  }
  return text;
}

/// Pinned host memory: the device copies into it without the driver staging the copy, so that a copy
/// queued behind a collective never blocks the host (the wait, which can time out, does).
class pinned_bytes {
 public:
  pinned_bytes() = default;
  pinned_bytes(const pinned_bytes&) = delete;
  pinned_bytes& operator=(const pinned_bytes&) = delete;
  pinned_bytes(pinned_bytes&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  pinned_bytes& operator=(pinned_bytes&&) = delete;
  ~pinned_bytes() {
    if (data_) (void)cudaFreeHost(data_);
  }
  /// At least `bytes`; only between steps (no copy into it may be pending).
  unsigned char* reserve(std::size_t bytes) {
    if (bytes > size_) {
      if (data_) SLUICE_CUDA_CHECK(cudaFreeHost(data_));
      data_ = nullptr;
      size_ = 0;
      SLUICE_CUDA_CHECK(cudaMallocHost(&data_, bytes));
      size_ = bytes;
    }
    return static_cast<unsigned char*>(data_);
  }

 private:
  void* data_ = nullptr;
  std::size_t size_ = 0;
};

/// A fault drill (sluice::dist::injected_failure): `rank` fails at the `step`-th gather of every call
/// (rank < 0: none).
struct injected_failure {
  int rank = -1;
  int step = 0;
};

/// One rank driven by this process.
struct local_rank {
  int rank = 0;
  int device = 0;
  std::unique_ptr<context> ctx;
  ncclComm_t comm = nullptr;
  pinned_bytes download;
};

class world {
 public:
  using clock = std::chrono::steady_clock;

  /// Joins the world of `world_size` ranks with NCCL id `id`: one communicator per (rank, device) pair,
  /// all created in one group (the single process driving several GPUs creates them together).
  world(const id_block& id, int world_size, const std::vector<std::pair<int, int>>& rank_devices,
        std::chrono::milliseconds timeout, const context_options& context_options,
        injected_failure drill = {})
      : size_(world_size), timeout_(timeout), drill_(drill) {
    ncclUniqueId nccl_id;
    std::memcpy(nccl_id.internal, id.data(), unique_id_bytes);
    for (const auto& [rank, device] : rank_devices) {
      local_rank l;
      l.rank = rank;
      l.device = device;
      l.ctx = std::make_unique<context>(device, context_options);
      locals_.push_back(std::move(l));
    }
    int previous = 0;
    SLUICE_CUDA_CHECK(cudaGetDevice(&previous));
    try {
      check(ncclGroupStart(), locals_.front(), "ncclGroupStart (communicator creation)");
      for (local_rank& l : locals_) {
        SLUICE_CUDA_CHECK(cudaSetDevice(l.device));
        ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
        config.blocking = 0;
        check(ncclCommInitRankConfig(&l.comm, size_, nccl_id, l.rank, &config), l, "ncclCommInitRankConfig");
      }
      check(ncclGroupEnd(), locals_.front(), "ncclGroupEnd (communicator creation)");
      (void)cudaSetDevice(previous);
      await_enqueued("communicator creation (every rank must join within the timeout)");
    } catch (...) {
      (void)cudaSetDevice(previous);
      abort_quietly("communicator creation failed");
      throw;
    }
  }

  world(const world&) = delete;
  world& operator=(const world&) = delete;

  /// Finalises the communicators (a non-blocking ncclCommFinalize, polled within the timeout) and
  /// destroys them, or aborts them where that does not complete; an aborted world has nothing left to
  /// free. The contexts go last (their streams are the communicators').
  ~world() {
    if (!aborted_ && !finalize()) abort_quietly("finalisation did not complete");
    for (local_rank& l : locals_) l.ctx.reset();
  }

  [[nodiscard]] int size() const noexcept { return size_; }
  [[nodiscard]] std::span<local_rank> locals() noexcept { return locals_; }
  [[nodiscard]] std::span<const local_rank> locals() const noexcept { return locals_; }
  [[nodiscard]] std::chrono::milliseconds timeout() const noexcept { return timeout_; }
  [[nodiscard]] bool aborted() const noexcept { return aborted_; }
  /// Whether `rank` is drilled to fail at a call's `step`-th gather.
  [[nodiscard]] bool drilled(int rank, int step) const noexcept { return drill_.rank == rank && drill_.step == step; }

  /// Throws communication_error where an earlier failure aborted the world.
  void require_usable(std::string_view operation) const {
    if (aborted_)
      throw sluice::dist::communication_error(locals_.front().rank, operation,
                                              "the communicator was aborted after an earlier failure (" +
                                                  abort_reason_ + "); create a new one");
  }

  /// A failed NCCL call aborts the world and throws; ncclSuccess and ncclInProgress pass.
  void check(ncclResult_t result, const local_rank& l, std::string_view what) {
    if (result == ncclSuccess || result == ncclInProgress) return;
    fail(l, what, nccl_problem(result, l.comm));
  }

  /// Runs enqueue(local_index, local_rank) for every local rank (its device current) inside one NCCL
  /// group, then waits until NCCL has enqueued the group's work on the streams.
  template <class Enqueue>
  void group(std::string_view what, Enqueue&& enqueue) {
    require_usable(what);
    check(ncclGroupStart(), locals_.front(), what);
    for (std::size_t i = 0; i < locals_.size(); ++i) {
      auto device = locals_[i].ctx->activate();
      try {
        enqueue(i, locals_[i]);
      } catch (...) {
        (void)ncclGroupEnd();
        abort_quietly("an exception while enqueuing " + std::string(what));
        throw;
      }
    }
    check(ncclGroupEnd(), locals_.front(), what);
    await_enqueued(what);
  }

  /// Waits until every local stream has finished its work, within the timeout. A CUDA error on a stream
  /// is this rank's failure (dist::rank_failure naming it); an NCCL error or the timeout is a
  /// communication_error. Either aborts the world first, so that the other ranks stop waiting too.
  void wait(std::string_view what) {
    require_usable(what);
    const auto deadline = clock::now() + timeout_;
    for (local_rank& l : locals_) {
      for (;;) {
        const cudaError_t status = cudaStreamQuery(l.ctx->stream());
        if (status == cudaSuccess) break;
        if (status != cudaErrorNotReady) {
          (void)cudaGetLastError();
          abort_quietly("a CUDA error on rank " + std::to_string(l.rank));
          throw sluice::dist::rank_failure(what, l.rank, failure_kind::cuda,
                                           std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status));
        }
        poll(l, what, deadline);
      }
    }
  }

  /// Aborts every communicator of this process (idempotent); the reason goes into later errors.
  void abort() noexcept { abort_quietly("aborted by the caller"); }

 private:
  [[nodiscard]] bool finalize() noexcept {
    if (ncclGroupStart() != ncclSuccess) return false;
    bool started = true;
    for (local_rank& l : locals_) {
      const ncclResult_t r = ncclCommFinalize(l.comm);
      started = started && (r == ncclSuccess || r == ncclInProgress);
    }
    const ncclResult_t end = ncclGroupEnd();
    if (!started || (end != ncclSuccess && end != ncclInProgress)) return false;
    const auto deadline = clock::now() + timeout_;
    for (local_rank& l : locals_) {
      ncclResult_t state = ncclInProgress;
      while (ncclCommGetAsyncError(l.comm, &state) == ncclSuccess && state == ncclInProgress && clock::now() < deadline)
        std::this_thread::yield();
      if (state != ncclSuccess) return false;
    }
    for (local_rank& l : locals_) {
      (void)ncclCommDestroy(l.comm);
      l.comm = nullptr;
    }
    return true;
  }

  /// NCCL's asynchronous state of `l`: an error or the deadline aborts and throws.
  void poll(local_rank& l, std::string_view what, clock::time_point deadline) {
    ncclResult_t state = ncclSuccess;
    const ncclResult_t queried = ncclCommGetAsyncError(l.comm, &state);
    if (queried != ncclSuccess) fail(l, what, nccl_problem(queried, l.comm));
    if (state != ncclSuccess && state != ncclInProgress) fail(l, what, nccl_problem(state, l.comm));
    if (clock::now() >= deadline)
      fail(l, what,
           "did not finish within the timeout of " + std::to_string(timeout_.count()) +
               " ms: another rank failed, stopped or never made this call");
    std::this_thread::yield();
  }

  /// Until no communicator answers ncclInProgress (the group's calls are on the streams).
  void await_enqueued(std::string_view what) {
    const auto deadline = clock::now() + timeout_;
    for (local_rank& l : locals_) {
      for (;;) {
        ncclResult_t state = ncclInProgress;
        const ncclResult_t queried = ncclCommGetAsyncError(l.comm, &state);
        if (queried != ncclSuccess) fail(l, what, nccl_problem(queried, l.comm));
        if (state == ncclSuccess) break;
        poll(l, what, deadline);
      }
    }
  }

  [[noreturn]] void fail(const local_rank& l, std::string_view what, const std::string& problem) {
    abort_quietly(std::string(what) + ": " + problem);
    throw sluice::dist::communication_error(l.rank, what, problem + " (the communicator is aborted)");
  }

  void abort_quietly(std::string reason) noexcept {
    if (aborted_) return;
    aborted_ = true;
    abort_reason_ = std::move(reason);
    for (local_rank& l : locals_)
      if (l.comm != nullptr) {
        (void)ncclCommAbort(l.comm);
        l.comm = nullptr;
      }
  }

  int size_;
  std::chrono::milliseconds timeout_;
  injected_failure drill_;
  std::vector<local_rank> locals_;
  bool aborted_ = false;
  std::string abort_reason_;
};

}  // namespace sluice::detail::dist
