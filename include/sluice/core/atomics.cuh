// sluice/core/atomics.cuh: *bucket = *bucket ⊕ value, atomically, for the commutative strategies of
// multireduce, histogram and the per-bank buckets (Eilers §4.4: "any thread may take any element in any
// order"; the atomics decide the order). Usable on shared and global memory (generic addresses).
//
//   hardware: plus on 4- and 8-byte integers (wrapping, signed through the unsigned atomic), float and
//             double; min and max on 4- and 8-byte integers; bit_and, bit_or, bit_xor on integers.
//   CAS loop: everything else of 4 or 8 bytes (user commutative operators, small structs, and float
//             min/max into a bucket that may already hold a NaN): read the word, combine,
//             compare-and-swap until no other thread came between.
//             A combination that leaves the word's bits unchanged returns without a write: the word
//             only ever grows by ⊕ (w' = w ⊕ x), so if w ⊕ v = w then w' ⊕ v = w' for every later w'
//             (commutativity and associativity), and skipping is exact. This makes min/max cheap on
//             inputs whose bucket settles early.
// atomic_combine_from_identity, for buckets that began at the identity and take only its values (the
// per-bank sets): float and double min/max as one integer atomic on the value's bits (below).
// Values of other sizes have no atomic form: the atomic strategies reject them (plan.hpp).
#pragma once

#include <sluice/core/error.hpp>
#include <sluice/core/operators.hpp>

#include <cuda/std/cstdint>
#include <cuda/std/cstring>
#include <cuda/std/type_traits>

#include <string>

namespace sluice::detail {

/// Values the atomic strategies take: 4 or 8 bytes (one atomic word).
template <class T>
inline constexpr bool atomic_value = sizeof(T) == 4 || sizeof(T) == 8;

/// Whether the atomic strategies can run Op on T at all (plan.hpp rejects the rest before any launch;
/// the dispatcher still names every strategy for every T and Op, so the others must not instantiate).
template <class T, class Op>
inline constexpr bool runs_atomically = atomic_value<T> && is_commutative_v<Op>;

/// What the dispatcher's atomic entry points do for an operator or value they cannot run (plan.hpp has
/// already refused it with the reason; this keeps such T and Op from instantiating the kernels).
[[noreturn]] inline void refuse_atomic(const char* strategy) {
  throw invalid_argument("multireduce", "options",
                         std::string(strategy) + " needs a commutative operator and a 4- or 8-byte value");
}

template <class T>
using atomic_word = cuda::std::conditional_t<sizeof(T) == 4, unsigned int, unsigned long long>;

template <class T>
[[nodiscard]] __device__ __forceinline__ atomic_word<T> to_word(const T& value) {
  atomic_word<T> word;
  cuda::std::memcpy(&word, &value, sizeof(T));
  return word;
}

template <class T>
[[nodiscard]] __device__ __forceinline__ T from_word(atomic_word<T> word) {
  T value;
  cuda::std::memcpy(&value, &word, sizeof(T));
  return value;
}

/// Bitwise equality (the identity test of the flushes: exact for every T, NaN payloads included).
template <class T>
[[nodiscard]] __device__ __forceinline__ bool same_bits(const T& a, const T& b) {
  return to_word(a) == to_word(b);
}

/// The compare-and-swap loop of any commutative ⊕ on a 4- or 8-byte T.
template <class Op, class T>
__device__ __forceinline__ void atomic_combine_cas(T* bucket, const T& value, Op op) {
  using word = atomic_word<T>;
  word* address = reinterpret_cast<word*>(bucket);
  word seen = *reinterpret_cast<volatile word*>(address);
  while (true) {
    const word combined = to_word(op(from_word<T>(seen), value));
    if (combined == seen) return;  // ⊕ v changes nothing now, nor later (header comment)
    const word before = atomicCAS(address, seen, combined);
    if (before == seen) return;
    seen = before;
  }
}

/// The integer word type of the hardware atomics for an integral T of 4 or 8 bytes: signed ones where
/// the comparison depends on the sign (min, max), unsigned otherwise (wrapping sums, bits).
template <class T, bool Signed>
using integer_atomic_word = cuda::std::conditional_t<
    Signed, cuda::std::conditional_t<sizeof(T) == 4, int, long long>, atomic_word<T>>;

/// *bucket = *bucket ⊕ value, atomically (T of 4 or 8 bytes; Op commutative).
template <class Op, class T>
__device__ __forceinline__ void atomic_combine(T* bucket, const T& value, Op op) {
  static_assert(atomic_value<T>, "the atomic multireduce strategies combine 4- or 8-byte values");
  constexpr bool integer = cuda::std::is_integral_v<T>;
  if constexpr (cuda::std::is_same_v<Op, sluice::plus> && (cuda::std::is_floating_point_v<T>)) {
    atomicAdd(bucket, value);
  } else if constexpr (cuda::std::is_same_v<Op, sluice::plus> && integer) {
    using word = atomic_word<T>;
    atomicAdd(reinterpret_cast<word*>(bucket), static_cast<word>(value));
  } else if constexpr ((cuda::std::is_same_v<Op, sluice::min> || cuda::std::is_same_v<Op, sluice::max>) && integer) {
    using word = integer_atomic_word<T, cuda::std::is_signed_v<T>>;
    if constexpr (cuda::std::is_same_v<Op, sluice::min>) atomicMin(reinterpret_cast<word*>(bucket), static_cast<word>(value));
    else atomicMax(reinterpret_cast<word*>(bucket), static_cast<word>(value));
  } else if constexpr (cuda::std::is_same_v<Op, sluice::bit_and> && integer) {
    atomicAnd(reinterpret_cast<atomic_word<T>*>(bucket), static_cast<atomic_word<T>>(value));
  } else if constexpr (cuda::std::is_same_v<Op, sluice::bit_or> && integer) {
    atomicOr(reinterpret_cast<atomic_word<T>*>(bucket), static_cast<atomic_word<T>>(value));
  } else if constexpr (cuda::std::is_same_v<Op, sluice::bit_xor> && integer) {
    atomicXor(reinterpret_cast<atomic_word<T>*>(bucket), static_cast<atomic_word<T>>(value));
  } else {
    atomic_combine_cas(bucket, value, op);
  }
}

/// min or max of a float or double as one integer atomic on its bits: a value with the sign bit clear
/// orders like its bits as a signed integer, one with the sign bit set like its bits as an unsigned
/// integer reversed. So max takes a signed integer max for a non-negative value and an unsigned integer
/// min for a negative one (min the reverse), against any non-NaN bucket. NaN values are skipped, as the
/// CAS loop's `a < b ? b : a` with the bucket first skips them; −0 orders below +0, so ties between
/// the zeros no longer depend on the atomics' order. A bucket that holds a NaN would not keep it: hence
/// only atomic_combine_from_identity takes this path.
template <class Op, class T>
__device__ __forceinline__ void atomic_float_extremum(T* bucket, T value) {
  using signed_word = cuda::std::conditional_t<sizeof(T) == 4, int, long long>;
  using unsigned_word = atomic_word<T>;
  if (value != value) return;
  const unsigned_word bits = to_word(value);
  const bool negative = (bits >> (8 * sizeof(T) - 1)) != 0;
  constexpr bool is_max = cuda::std::is_same_v<Op, sluice::max>;
  if (!negative) {
    if constexpr (is_max) atomicMax(reinterpret_cast<signed_word*>(bucket), static_cast<signed_word>(bits));
    else atomicMin(reinterpret_cast<signed_word*>(bucket), static_cast<signed_word>(bits));
  } else {
    if constexpr (is_max) atomicMin(reinterpret_cast<unsigned_word*>(bucket), bits);
    else atomicMax(reinterpret_cast<unsigned_word*>(bucket), bits);
  }
}

/// atomic_combine for a bucket that began at Op's identity and is combined into only by this function
/// (so never holds a NaN): float and double min/max by atomic_float_extremum, the rest as atomic_combine.
template <class Op, class T>
__device__ __forceinline__ void atomic_combine_from_identity(T* bucket, const T& value, Op op) {
  if constexpr (cuda::std::is_floating_point_v<T> &&
                (cuda::std::is_same_v<Op, sluice::min> || cuda::std::is_same_v<Op, sluice::max>))
    atomic_float_extremum<Op>(bucket, value);
  else atomic_combine(bucket, value, op);
}

}  // namespace sluice::detail
