// The pieces every family's translation unit of libsluice_python_kernels shares: dtype dispatch over a
// family's own list of types, spans of the type-erased arrays, the context of a call (cached per device
// and stream), and the translation of sluice's exceptions into sluice::python::error.
#pragma once

#include "api.hpp"

#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/operators.hpp>

#include <cuda/std/span>

#include <cstdint>
#include <new>
#include <optional>
#include <tuple>
#include <span>
#include <string>
#include <type_traits>

namespace sluice::python {

template <class T>
struct type_tag {
  using type = T;
};

template <class T>
constexpr dtype dtype_of() {
  if constexpr (std::is_same_v<T, bool>) return dtype::bool_;
  else if constexpr (std::is_same_v<T, std::int8_t>) return dtype::int8;
  else if constexpr (std::is_same_v<T, std::int16_t>) return dtype::int16;
  else if constexpr (std::is_same_v<T, std::int32_t>) return dtype::int32;
  else if constexpr (std::is_same_v<T, std::int64_t>) return dtype::int64;
  else if constexpr (std::is_same_v<T, std::uint8_t>) return dtype::uint8;
  else if constexpr (std::is_same_v<T, std::uint16_t>) return dtype::uint16;
  else if constexpr (std::is_same_v<T, std::uint32_t>) return dtype::uint32;
  else if constexpr (std::is_same_v<T, std::uint64_t>) return dtype::uint64;
  else if constexpr (std::is_same_v<T, float>) return dtype::float32;
  else if constexpr (std::is_same_v<T, double>) return dtype::float64;
  else static_assert(sizeof(T) == 0, "no dtype for this type");
}

template <class... Ts>
struct types {};

/// The six numeric dtypes most families take.
using numeric_types = types<std::int32_t, std::uint32_t, std::int64_t, std::uint64_t, float, double>;
using integer_types = types<std::int32_t, std::uint32_t, std::int64_t, std::uint64_t>;
using signed_index_types = types<std::int32_t, std::int64_t>;

[[noreturn]] void throw_unsupported(const char* function, const char* parameter, dtype got, std::string supported);

template <class... Ts>
std::string names_of(types<Ts...>) {
  std::string text;
  ((text += (text.empty() ? "" : ", ") + std::string(name(dtype_of<Ts>()))), ...);
  return text;
}

template <class All, class T0, class... Ts, class F>
decltype(auto) visit_from(All all, types<T0, Ts...>, dtype type, const char* function, const char* parameter, F& f) {
  if (type == dtype_of<T0>()) return f(type_tag<T0>{});
  if constexpr (sizeof...(Ts) == 0) throw_unsupported(function, parameter, type, names_of(all));
  else return visit_from(all, types<Ts...>{}, type, function, parameter, f);
}

/// Calls f(type_tag<T>{}) for the T of `type` among Ts, else a type error naming the supported dtypes.
template <class... Ts, class F>
decltype(auto) visit(types<Ts...> list, dtype type, const char* function, const char* parameter, F&& f) {
  return visit_from(list, list, type, function, parameter, f);
}

/// The unsigned word of an itemsize: families that only move or compare bits run on it.
template <std::size_t Bytes>
using word_of = std::conditional_t<Bytes == 1, std::uint8_t,
                                   std::conditional_t<Bytes == 2, std::uint16_t,
                                                      std::conditional_t<Bytes == 4, std::uint32_t, std::uint64_t>>>;

template <class F>
decltype(auto) visit_width(dtype type, const char* function, const char* parameter, F&& f) {
  switch (itemsize(type)) {
    case 1: return f(type_tag<std::uint8_t>{});
    case 2: return f(type_tag<std::uint16_t>{});
    case 4: return f(type_tag<std::uint32_t>{});
    case 8: return f(type_tag<std::uint64_t>{});
  }
  throw_unsupported(function, parameter, type, "elements of 1, 2, 4 or 8 bytes");
}

/// Checks that `a` holds T (same itemsize for the bit-moving families) and returns its span.
void require_type(const array& a, dtype type, const char* function, const char* parameter);
void require_width(const array& a, std::size_t bytes, const char* function, const char* parameter);

template <class T>
cuda::std::span<T> device_span(const array& a) {
  return {static_cast<T*>(a.data), a.size};
}
template <class T>
std::span<T> host_span(const array& a) {
  return {static_cast<T*>(a.data), a.size};
}

/// The cached context of the call's device and stream (contexts live as long as the process: a context
/// on a caller's stream synchronises it when destroyed, which must never happen behind the caller).
context& context_for(const call& c);

/// Copies a device count (size_t) to the host after the stream's work: synchronises the call's stream.
std::size_t read_count(context& ctx, const std::size_t* device_count);

/// A count in device memory from the context's pool, freed stream-ordered.
class count_slot {
 public:
  explicit count_slot(context& ctx);
  ~count_slot();
  count_slot(const count_slot&) = delete;
  count_slot& operator=(const count_slot&) = delete;
  [[nodiscard]] std::size_t* get() const { return pointer_; }
  [[nodiscard]] std::size_t read() const { return read_count(ctx_, pointer_); }

 private:
  context& ctx_;
  std::size_t* pointer_;
};

/// Runs body(), turning sluice's exceptions (and std::bad_alloc) into sluice::python::error.
template <class Body>
decltype(auto) guarded(Body&& body) {
  try {
    return body();
  } catch (const error&) {
    throw;
  } catch (const invalid_argument& e) {
    throw error(error_kind::value, e.what());
  } catch (const out_of_memory& e) {
    throw error(error_kind::memory, e.what());
  } catch (const sluice::error& e) {
    throw error(error_kind::runtime, e.what());
  } catch (const std::bad_alloc&) {
    throw error(error_kind::memory, "sluice: host memory exhausted");
  }
}

/// The value of a scalar argument as T.
template <class T>
T scalar_as(const scalar& s) {
  if constexpr (std::is_floating_point_v<T>)
    return s.held == scalar::kind::floating ? static_cast<T>(s.floating) : static_cast<T>(s.integer);
  else
    return s.held == scalar::kind::integer ? static_cast<T>(s.integer) : static_cast<T>(s.floating);
}

/// The product, which sluice/core/operators.hpp does not declare (recurrence.cuh's multiplies has no
/// identity): commutative, identity 1.
struct product {
  static constexpr bool is_commutative = true;
  template <class T>
  SLUICE_HOST_DEVICE static constexpr T identity() { return T(1); }
  template <class T>
  SLUICE_HOST_DEVICE constexpr T operator()(const T& a, const T& b) const { return a * b; }
};

/// The operator sets of the families: the order is that of operator_kind.
enum operator_set : unsigned {
  arithmetic = 1u << 0 | 1u << 1 | 1u << 2 | 1u << 3,          ///< sum, prod, min, max
  ordered = 1u << 0 | 1u << 2 | 1u << 3,                     ///< sum, min, max
  with_bits = arithmetic | 1u << 4 | 1u << 5 | 1u << 6,      ///< and the bit operators (integers)
  sum_only = 1u << 0,
};

[[noreturn]] void throw_operator(const char* function, operator_kind op, unsigned allowed, dtype type);

/// Calls f(Op{}) for the operator, instantiating only the operators of Allowed (bit operators only for
/// integral T); mean is the caller's business (it is a sum and a count).
template <unsigned Allowed, class T, class F>
decltype(auto) visit_operator(operator_kind op, const char* function, dtype type, F&& f) {
  constexpr bool integral = std::is_integral_v<T>;
  constexpr auto has = [](operator_kind k) { return (Allowed & (1u << static_cast<unsigned>(k))) != 0; };
  switch (op) {
    case operator_kind::sum:
      if constexpr (has(operator_kind::sum)) return f(sluice::plus{});
      break;
    case operator_kind::prod:
      if constexpr (has(operator_kind::prod)) return f(product{});
      break;
    case operator_kind::min:
      if constexpr (has(operator_kind::min)) return f(sluice::min{});
      break;
    case operator_kind::max:
      if constexpr (has(operator_kind::max)) return f(sluice::max{});
      break;
    case operator_kind::bit_and:
      if constexpr (integral && has(operator_kind::bit_and)) return f(sluice::bit_and{});
      break;
    case operator_kind::bit_or:
      if constexpr (integral && has(operator_kind::bit_or)) return f(sluice::bit_or{});
      break;
    case operator_kind::bit_xor:
      if constexpr (integral && has(operator_kind::bit_xor)) return f(sluice::bit_xor{});
      break;
    default: break;
  }
  throw_operator(function, op, Allowed, type);
}

}  // namespace sluice::python
