// _sluice: arrays in and out. An argument becomes a sluice::python::array (pointer, dtype, length, device)
// through the quickest route its type offers: torch tensors and CuPy arrays through their own attributes,
// NumPy (and any buffer) through the buffer protocol, everything else through __cuda_array_interface__ or
// __dlpack__. Outputs are allocated by the library of the call's first array (torch in → torch out, CuPy in
// → CuPy out, NumPy in → NumPy out; other device arrays → CuPy, else torch). The stream is the explicit
// `stream=`, else the current stream of that library (torch, CuPy), else the legacy default stream.
#pragma once

#include "api.hpp"

#include <nanobind/nanobind.h>

#include <cstdint>
#include <string>
#include <vector>

namespace sluice::python::module {

namespace nb = nanobind;

enum class library { numpy, torch, cupy, other };

using shape_t = std::vector<std::int64_t>;

/// One array argument of a call: the object (kept alive, possibly a contiguous copy, or the DLPack
/// capsule that owns the view) and its description.
struct argument {
  nb::object object;
  nb::object keep_alive;
  array view;
  library kind = library::other;
  shape_t shape;
};

/// The arrays of one call: the first fixes the library, device and stream; the others must agree.
class invocation {
 public:
  invocation(const char* function, nb::handle stream);

  /// An input: copied to contiguous memory by its library where it is not contiguous.
  argument input(nb::handle object, const char* parameter);
  /// An optional input (None → nullopt).
  std::optional<argument> optional_input(nb::handle object, const char* parameter);
  /// out= if given (contiguous, dtype and size checked), else a new array of the call's library.
  argument output(nb::handle out, const shape_t& shape, dtype type, const char* parameter);
  /// A new array of the call's library.
  argument allocate(const shape_t& shape, dtype type);
  /// 0, 1, …, n − 1 as int64, made by the call's library.
  argument arange(std::int64_t n);

  [[nodiscard]] const call& context() const { return call_; }
  [[nodiscard]] const char* function() const { return function_; }

 private:
  void adopt(const argument& first);
  /// The library that makes this call's new arrays: the first array's, else CuPy or torch (device) or
  /// NumPy (host).
  library allocating_library();

  const char* function_;
  nb::handle explicit_stream_;
  bool bound_ = false;
  library kind_ = library::other;
  nb::object device_object_;  ///< torch: the first tensor's .device, passed to torch.empty
  call call_;
};

/// x[:n] of a 1-D array of any of the libraries.
nb::object prefix(const argument& a, std::size_t n);
/// The array reshaped (a view: outputs are contiguous).
nb::object reshaped(const argument& a, const shape_t& shape);

[[noreturn]] void raise(error_kind kind, const std::string& message);
std::int64_t element_count(const shape_t& shape);

}  // namespace sluice::python::module
