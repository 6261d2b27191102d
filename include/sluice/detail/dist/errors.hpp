// sluice/detail/dist/errors.hpp: what a distributed call throws when a rank fails, declared in the public
// namespace sluice::dist (the public header <sluice/dist.cuh> offers them; they live here so that the
// detail code that throws them can include them).
//
//   sluice::error
//   ├── dist::rank_failure          a rank failed its own part of a call (bad argument, memory exhausted,
//   │                               a CUDA error): thrown on EVERY rank, naming the failing rank, the kind
//   │                               of failure and its message, so that no rank waits for it in a
//   │                               collective
//   └── dist::communication_error   NCCL failed, or a collective did not finish within the timeout (a rank
//                                   stopped or died): the communicator is aborted (ncclCommAbort) and
//                                   unusable; names this rank and the operation
// A call's arguments that disagree between ranks (element types, operator, sizes every rank must share)
// are a sluice::invalid_argument on every rank instead, naming the parameter and the ranks.
#pragma once

#include <sluice/core/error.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace sluice::dist {

enum class failure_kind : std::int32_t {
  none = 0,
  invalid_argument = 1,  ///< a sluice::invalid_argument on that rank
  out_of_memory = 2,     ///< a sluice::out_of_memory on that rank
  cuda = 3,              ///< another sluice::cuda_error on that rank
  other = 4,             ///< any other exception
};

[[nodiscard]] constexpr std::string_view to_string(failure_kind kind) {
  switch (kind) {
    case failure_kind::none: return "none";
    case failure_kind::invalid_argument: return "invalid argument";
    case failure_kind::out_of_memory: return "out of memory";
    case failure_kind::cuda: return "CUDA error";
    case failure_kind::other: return "error";
  }
  return "?";
}

class rank_failure : public error {
 public:
  rank_failure(std::string_view operation, int failed_rank, failure_kind kind, std::string_view message)
      : error("sluice::" + std::string(operation) + ": rank " + std::to_string(failed_rank) + " failed (" +
              std::string(to_string(kind)) + "): " + std::string(message)),
        failed_rank_(failed_rank),
        kind_(kind),
        message_(message) {}

  /// The lowest rank that failed (the message names the others).
  [[nodiscard]] int failed_rank() const noexcept { return failed_rank_; }
  [[nodiscard]] failure_kind kind() const noexcept { return kind_; }
  /// The failing rank's own message.
  [[nodiscard]] const std::string& rank_message() const noexcept { return message_; }

 private:
  int failed_rank_;
  failure_kind kind_;
  std::string message_;
};

class communication_error : public error {
 public:
  communication_error(int rank, std::string_view operation, std::string_view problem)
      : error("sluice::dist: rank " + std::to_string(rank) + ": " + std::string(operation) + ": " +
              std::string(problem)),
        rank_(rank) {}

  /// The rank (of this process) that saw the failure.
  [[nodiscard]] int rank() const noexcept { return rank_; }

 private:
  int rank_;
};

}  // namespace sluice::dist
