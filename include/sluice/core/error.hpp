// sluice/core/error.hpp: the exception hierarchy and the check applied to every CUDA call.
//
//   sluice::error                  base of everything sluice throws
//   ├── sluice::cuda_error         a CUDA runtime call failed: CUDA's code and message, and the call site
//   │   └── sluice::out_of_memory  the failure was cudaErrorMemoryAllocation
//   └── sluice::invalid_argument   bad input: names the parameter and, where it applies, the index
//
// SLUICE_CUDA_CHECK(call) wraps every runtime call; SLUICE_CHECK_LAUNCH() follows every kernel launch.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <optional>
#include <source_location>
#include <stdexcept>
#include <string>
#include <string_view>

namespace sluice {

class error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class cuda_error : public error {
 public:
  cuda_error(cudaError_t code, std::string_view operation, const std::source_location& where)
      : error(describe(code, operation, where)), code_(code), call_site_(site(where)), operation_(operation) {}

  [[nodiscard]] cudaError_t code() const noexcept { return code_; }
  /// What failed, as the message names it ("cudaMallocFromPoolAsync of 4096 bytes").
  [[nodiscard]] const std::string& operation() const noexcept { return operation_; }
  /// "file:line (function)" of the sluice code that made the failing call.
  [[nodiscard]] const std::string& call_site() const noexcept { return call_site_; }

 private:
  static std::string site(const std::source_location& where) {
    return std::string(where.file_name()) + ":" + std::to_string(where.line()) + " (" + where.function_name() + ")";
  }
  static std::string describe(cudaError_t code, std::string_view operation, const std::source_location& where) {
    return std::string("sluice: ") + std::string(operation) + " failed: " + cudaGetErrorName(code) + " (" +
           cudaGetErrorString(code) + ") at " + site(where);
  }

  cudaError_t code_;
  std::string call_site_;
  std::string operation_;
};

class out_of_memory : public cuda_error {
 public:
  using cuda_error::cuda_error;
};

class invalid_argument : public error {
 public:
  invalid_argument(std::string_view function, std::string_view parameter, std::string_view problem,
                   std::optional<std::size_t> index = std::nullopt)
      : error(describe(function, parameter, problem, index)), parameter_(parameter), index_(index) {}

  [[nodiscard]] const std::string& parameter() const noexcept { return parameter_; }
  /// The first offending element, for errors about one element of an input.
  [[nodiscard]] std::optional<std::size_t> index() const noexcept { return index_; }

 private:
  static std::string describe(std::string_view function, std::string_view parameter, std::string_view problem,
                              std::optional<std::size_t> index) {
    std::string text = "sluice::" + std::string(function) + ": parameter '" + std::string(parameter) + "' " +
                       std::string(problem);
    if (index) text += " (first at index " + std::to_string(*index) + ")";
    return text;
  }

  std::string parameter_;
  std::optional<std::size_t> index_;
};

namespace detail {

[[noreturn]] inline void throw_cuda_error(cudaError_t code, std::string_view operation,
                                          const std::source_location& where) {
  if (code == cudaErrorMemoryAllocation) throw out_of_memory(code, operation, where);
  throw cuda_error(code, operation, where);
}

inline void check_cuda(cudaError_t code, std::string_view operation,
                       const std::source_location& where = std::source_location::current()) {
  if (code == cudaSuccess) return;
  // A failed runtime call also sets the thread's last-error state; reported here, it must not be
  // reported again by the next launch check (non-sticky errors clear; sticky ones persist anyway).
  (void)cudaGetLastError();
  throw_cuda_error(code, operation, where);
}

/// Runs body(); an out_of_memory from it is thrown again with "function (variant): " before the failed
/// call's own text (context::allocate_bytes names the bytes asked), so that the caller reads which
/// operation ran out of memory ("multireduce (global_atomic_sets)"), not only which allocation.
template <class Body>
void naming_out_of_memory(std::string_view function, std::string_view variant, Body&& body,
                          const std::source_location& where = std::source_location::current()) {
  try {
    body();
  } catch (const out_of_memory& e) {
    throw out_of_memory(e.code(), std::string(function) + " (" + std::string(variant) + "): " + e.operation(), where);
  }
}

/// Throws invalid_argument naming options.algorithm where `algorithm` is none of its enumeration's values
/// (a value cast from an out-of-range integer: to_string gives "?"), so that no family quietly runs
/// another strategy or returns without writing its outputs.
template <class Algorithm>
void require_known_algorithm(std::string_view function, Algorithm algorithm, std::string_view enumeration) {
  if (to_string(algorithm) == "?")
    throw invalid_argument(function, "options.algorithm", "is not a " + std::string(enumeration));
}

}  // namespace detail
}  // namespace sluice

/// Throws sluice::cuda_error (or out_of_memory) naming the call and where it was made.
#define SLUICE_CUDA_CHECK(call) ::sluice::detail::check_cuda((call), #call)

/// After a kernel launch: a bad configuration or a missing kernel image surfaces here, not later.
#define SLUICE_CHECK_LAUNCH() ::sluice::detail::check_cuda(cudaGetLastError(), "kernel launch")
