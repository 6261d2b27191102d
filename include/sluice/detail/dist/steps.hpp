// sluice/detail/dist/steps.hpp: the steps every distributed call is made of, so that no rank is ever left
// waiting for another that failed:
//
//   run_local   local work on every rank of this process (kernels, allocations); a failure is kept, not
//               thrown, until the next gather reports it;
//   gather      one all-gather of fixed-size records (records.hpp): each rank's status and a payload
//               (counts, samples, signature) written on its stream; then every rank reads the same table
//               and throws dist::rank_failure for the lowest failed rank, or goes on. Every collective
//               of a call comes after a gather that follows the last local step able to fail, so a
//               failure on one rank is an exception on all of them, never a rank stuck in a collective;
//   exchange    one NCCL group of ncclSend/ncclRecv pieces between every pair of ranks (a rank's piece
//               to itself is a device copy);
//   finish      waits for the streams, gathers the phase times, wall times and one number per rank
//               (the multireduce's dropped labels), and fills the caller's dist::timings.
// A call is synchronous: it returns when every rank of this process has its result.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/device_buffer.hpp>
#include <sluice/core/error.hpp>
#include <sluice/detail/dist/records.hpp>
#include <sluice/detail/dist/world.hpp>
#include <sluice/options/dist.hpp>

#include <nccl.h>

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sluice::detail::dist {

/// The table of one gather: every rank's payload, the same on every rank.
class gathered {
 public:
  gathered(std::vector<unsigned char> bytes, std::size_t record, int ranks)
      : bytes_(std::move(bytes)), record_(record), ranks_(ranks) {}

  [[nodiscard]] int ranks() const { return ranks_; }

  template <class T>
  [[nodiscard]] T read(int rank, std::size_t offset = 0) const {
    T value;
    std::memcpy(&value, payload(rank) + offset, sizeof(T));
    return value;
  }
  template <class T>
  [[nodiscard]] std::vector<T> read_array(int rank, std::size_t offset, std::size_t count) const {
    std::vector<T> values(count);
    if (count != 0) std::memcpy(values.data(), payload(rank) + offset, count * sizeof(T));
    return values;
  }

 private:
  [[nodiscard]] const unsigned char* payload(int rank) const {
    return bytes_.data() + static_cast<std::size_t>(rank) * record_ + sizeof(status_block);
  }

  std::vector<unsigned char> bytes_;
  std::size_t record_;
  int ranks_;
};

/// One piece of an exchange between this rank and a peer: bytes this rank sends, bytes it receives.
struct piece {
  const void* send = nullptr;
  std::size_t send_bytes = 0;
  void* receive = nullptr;
  std::size_t receive_bytes = 0;
};

/// The piece of an array split by destination that `rank` exchanges with `peer` under `plan` (any plan
/// with send_offset, piece and receive_offset: splitters.hpp's cut_plan, routes.hpp's route_plan): it
/// sends [send_offset(rank, peer), + piece(rank, peer)) of `split` and receives peer's piece for it at
/// receive_offset(peer, rank) of `received`.
template <class Plan, class T>
piece routed_piece(const Plan& plan, int rank, int peer, const T* split, T* received) {
  return {split + plan.send_offset(rank, peer), plan.piece(rank, peer) * sizeof(T),
          received + plan.receive_offset(peer, rank), plan.piece(peer, rank) * sizeof(T)};
}

/// The same plan read backwards: the answers to what `rank` received (in `answers`, in its received
/// order) go back to `peer`, whose own answers land at its send offsets of `returned` (its split order).
template <class Plan, class T>
piece returned_piece(const Plan& plan, int rank, int peer, const T* answers, T* returned) {
  return {answers + plan.receive_offset(peer, rank), plan.piece(peer, rank) * sizeof(T),
          returned + plan.send_offset(rank, peer), plan.piece(rank, peer) * sizeof(T)};
}

/// The phases a call can time (options/dist.hpp's timings); a call names at most this many.
inline constexpr std::size_t max_phases = 8;

/// The last record of a call.
struct final_record {
  float phase_ms[max_phases] = {};
  double wall_ms = 0;
  std::uint64_t value = 0;
};

class call {
 public:
  call(world& w, const char* operation, sluice::dist::timings* report, std::vector<std::string> phases)
      : world_(w),
        operation_(operation),
        report_(report),
        phases_(std::move(phases)),
        start_(std::chrono::steady_clock::now()),
        pending_(w.locals().size()) {
    w.require_usable(operation);
    if (report_ == nullptr) return;
    events_.resize(w.locals().size());
    for (std::size_t i = 0; i < events_.size(); ++i) {
      auto device = w.locals()[i].ctx->activate();
      for (auto& pair : events_[i])
        for (cudaEvent_t& e : pair) SLUICE_CUDA_CHECK(cudaEventCreate(&e));
    }
  }
  call(const call&) = delete;
  call& operator=(const call&) = delete;
  ~call() {
    for (auto& rank : events_)
      for (auto& pair : rank)
        for (cudaEvent_t e : pair)
          if (e != nullptr) (void)cudaEventDestroy(e);
  }

  [[nodiscard]] world& w() { return world_; }
  [[nodiscard]] const char* operation() const { return operation_; }
  [[nodiscard]] int world_size() const { return world_.size(); }
  [[nodiscard]] std::size_t local_count() const { return world_.locals().size(); }

  /// step(i, local_rank) on every local rank, its device current; a failure waits for the next gather.
  template <class Step>
  void run_local(Step&& step) {
    for (std::size_t i = 0; i < local_count(); ++i) {
      local_rank& l = world_.locals()[i];
      if (failed(i)) continue;
      try {
        auto device = l.ctx->activate();
        step(i, l);
      } catch (...) {
        pending_[i] = status_of_current_exception(l.rank);
      }
    }
  }

  /// All-gathers every rank's status and the `payload_bytes` that fill(i, local_rank, device payload)
  /// writes on its stream (not called for a rank whose earlier local step failed); throws the lowest
  /// failure on every rank, else returns the table.
  template <class Fill>
  gathered gather(std::size_t payload_bytes, Fill&& fill) {
    ++gathers_;
    const std::size_t record = (sizeof(status_block) + payload_bytes + 15) / 16 * 16;
    const std::size_t table_bytes = record * static_cast<std::size_t>(world_size());
    std::vector<device_buffer<unsigned char>> tables;
    tables.reserve(local_count());
    for (std::size_t i = 0; i < local_count(); ++i) {
      local_rank& l = world_.locals()[i];
      auto device = l.ctx->activate();
      try {
        tables.emplace_back(*l.ctx, table_bytes);
      } catch (...) {  // without its table a rank cannot even report: the others must not wait for it
        world_.abort();
        throw;
      }
      unsigned char* mine = tables[i].data() + record * static_cast<std::size_t>(l.rank);
      if (!failed(i) && world_.drilled(l.rank, gathers_))
        pending_[i] = failed_status(failure_kind::other, l.rank,
                                    "injected failure at step " + std::to_string(gathers_) + " (a fault drill)");
      status_block status = pending_[i];
      if (!failed(i)) try {
          fill(i, l, mine + sizeof(status_block));
        } catch (...) {
          status = status_of_current_exception(l.rank);
        }
      pending_[i] = status_block{};
      status.rank = l.rank;
      SLUICE_CUDA_CHECK(cudaMemcpyAsync(mine, &status, sizeof(status), cudaMemcpyHostToDevice, l.ctx->stream()));
    }
    world_.group("all-gather of records", [&](std::size_t i, local_rank& l) {
      unsigned char* table = tables[i].data();
      world_.check(ncclAllGather(table + record * static_cast<std::size_t>(l.rank), table, record, ncclUint8, l.comm,
                                 l.ctx->stream()),
                   l, "ncclAllGather");
    });
    for (std::size_t i = 0; i < local_count(); ++i) {
      local_rank& l = world_.locals()[i];
      auto device = l.ctx->activate();
      SLUICE_CUDA_CHECK(cudaMemcpyAsync(l.download.reserve(table_bytes), tables[i].data(), table_bytes,
                                        cudaMemcpyDeviceToHost, l.ctx->stream()));
    }
    world_.wait(operation_);
    const unsigned char* host = world_.locals()[0].download.reserve(table_bytes);
    std::vector<unsigned char> bytes(host, host + table_bytes);
    std::vector<status_block> statuses(static_cast<std::size_t>(world_size()));
    for (std::size_t r = 0; r < statuses.size(); ++r) std::memcpy(&statuses[r], bytes.data() + r * record, sizeof(status_block));
    throw_first_failure(operation_, statuses);
    return gathered(std::move(bytes), record, world_size());
  }

  /// A gather without payload: every rank's local steps since the last one succeeded, or all throw.
  void vote() {
    (void)gather(0, [](std::size_t, local_rank&, unsigned char*) {});
  }

  /// pieces(i, local_rank, peer) → the pieces between local rank i and `peer` (a range of `piece`),
  /// moved in one NCCL group.
  template <class Pieces>
  void exchange(std::string_view what, Pieces&& pieces) {
    world_.group(what, [&](std::size_t i, local_rank& l) {
      for (int peer = 0; peer < world_size(); ++peer)
        for (const piece& p : pieces(i, l, peer)) {
          if (peer == l.rank) {
            if (p.send_bytes != 0)
              SLUICE_CUDA_CHECK(cudaMemcpyAsync(p.receive, p.send, p.send_bytes, cudaMemcpyDeviceToDevice, l.ctx->stream()));
            continue;
          }
          if (p.send_bytes != 0)
            world_.check(ncclSend(p.send, p.send_bytes, ncclUint8, peer, l.comm, l.ctx->stream()), l, "ncclSend");
          if (p.receive_bytes != 0)
            world_.check(ncclRecv(p.receive, p.receive_bytes, ncclUint8, peer, l.comm, l.ctx->stream()), l, "ncclRecv");
        }
    });
  }

  /// Marks the start and end of a phase on local rank i's stream (when the caller asked for timings).
  void begin(std::size_t i, int phase) { record(i, phase, 0); }
  void end(std::size_t i, int phase) { record(i, phase, 1); }

  /// The call's last step: waits for every stream, gathers each rank's phase times, wall time and the
  /// number at `value(i)` (device memory; null: 0), fills the report, and returns the numbers by rank.
  template <class Value>
  std::vector<std::uint64_t> finish(Value&& value) {
    world_.wait(operation_);
    const double wall = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count();
    const gathered table = gather(sizeof(final_record), [&](std::size_t i, local_rank& l, unsigned char* payload) {
      final_record mine;
      mine.wall_ms = wall;
      for (std::size_t p = 0; p < phases_.size() && !events_.empty(); ++p) mine.phase_ms[p] = elapsed(i, p);
      SLUICE_CUDA_CHECK(cudaMemcpyAsync(payload, &mine, sizeof(mine), cudaMemcpyHostToDevice, l.ctx->stream()));
      if (const std::uint64_t* device = value(i))
        SLUICE_CUDA_CHECK(cudaMemcpyAsync(payload + offsetof(final_record, value), device, sizeof(std::uint64_t),
                                          cudaMemcpyDeviceToDevice, l.ctx->stream()));
    });
    std::vector<std::uint64_t> values(static_cast<std::size_t>(world_size()));
    if (report_) {
      report_->phases = phases_;
      report_->ms.assign(values.size(), std::vector<double>(phases_.size(), 0.0));
      report_->wall_ms.assign(values.size(), 0.0);
    }
    for (int r = 0; r < world_size(); ++r) {
      const auto rec = table.read<final_record>(r);
      values[static_cast<std::size_t>(r)] = rec.value;
      if (!report_) continue;
      report_->wall_ms[static_cast<std::size_t>(r)] = rec.wall_ms;
      for (std::size_t p = 0; p < phases_.size(); ++p) report_->ms[static_cast<std::size_t>(r)][p] = rec.phase_ms[p];
    }
    return values;
  }

 private:
  [[nodiscard]] bool failed(std::size_t i) const { return pending_[i].kind != 0; }

  void record(std::size_t i, int phase, int which) {
    if (events_.empty() || failed(i)) return;
    local_rank& l = world_.locals()[i];
    auto device = l.ctx->activate();
    SLUICE_CUDA_CHECK(cudaEventRecord(events_[i][static_cast<std::size_t>(phase)][static_cast<std::size_t>(which)],
                                      l.ctx->stream()));
  }

  /// A phase's time on local rank i; 0 where it did not run (its events were never recorded).
  [[nodiscard]] float elapsed(std::size_t i, std::size_t phase) const {
    float ms = 0;
    if (cudaEventElapsedTime(&ms, events_[i][phase][0], events_[i][phase][1]) != cudaSuccess) {
      (void)cudaGetLastError();
      return 0;
    }
    return ms;
  }

  world& world_;
  const char* operation_;
  sluice::dist::timings* report_;
  std::vector<std::string> phases_;
  std::chrono::steady_clock::time_point start_;
  std::vector<status_block> pending_;
  int gathers_ = 0;  ///< the gathers of this call so far (a fault drill names one)
  std::vector<std::array<std::array<cudaEvent_t, 2>, max_phases>> events_;
};

}  // namespace sluice::detail::dist
