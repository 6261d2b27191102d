// sluice/core/radix_key.hpp: the order-preserving map from a key to an unsigned word, and the radix
// digit of a pass (Ashkiani §3.7.1's bit-field bucket f_k(u) = (u >> kr) & (2^r − 1), applied to that
// word; Palik §5.4's note on signed and floating-point keys), for the GPU radix sort and host::radix_sort.
//
// radix_word(key) is an unsigned word of the key's width whose unsigned order is the key order:
//   unsigned integers   unchanged
//   signed integers     sign bit flipped (two's complement order kept, negatives first)
//   float, double       negative (sign bit set): every bit flipped; otherwise: the sign bit set
// so the floats come out as
//   −NaN (largest payload first) < −inf < negative finite < −0.0 < +0.0 < positive finite < +inf < +NaN,
// with −0.0 strictly before +0.0 and NaNs placed by their sign bit, exactly as the bit patterns order.
// The oracle (reference::radix_bits) keeps its own copy so that it does not share a bug with the code it
// checks; host tests compare the two on every edge value.
//
// Keys are never transformed in memory: every pass computes the digit from the key it loads (a few
// integer operations), so no extra pass writes or restores transformed keys.
#pragma once

#include <sluice/core/config.hpp>
#include <sluice/core/error.hpp>

#include <cuda/std/bit>
#include <cuda/std/cstdint>
#include <cuda/std/type_traits>

namespace sluice::detail {

template <class K>
concept radix_key = (cuda::std::is_integral_v<K> && !cuda::std::is_same_v<K, bool>) ||
                    cuda::std::is_same_v<K, float> || cuda::std::is_same_v<K, double>;

/// The unsigned word of K's width.
template <radix_key K>
using word_t = cuda::std::conditional_t<
    sizeof(K) == 1, cuda::std::uint8_t,
    cuda::std::conditional_t<sizeof(K) == 2, cuda::std::uint16_t,
                             cuda::std::conditional_t<sizeof(K) == 4, cuda::std::uint32_t, cuda::std::uint64_t>>>;

template <radix_key K>
inline constexpr int key_bits = static_cast<int>(8 * sizeof(K));

/// A bit range [begin_bit, end_bit) within K's bits, or invalid_argument("begin_bit" / "end_bit") from
/// `function` (host code: the CPU backend's check; the GPU radix sort checks its own options).
template <radix_key K>
void check_bit_range(int begin_bit, int end_bit, const char* function) {
  if (begin_bit < 0) throw invalid_argument(function, "begin_bit", "must not be negative");
  if (begin_bit > end_bit) throw invalid_argument(function, "begin_bit", "must not exceed end_bit");
  if (end_bit > key_bits<K>) throw invalid_argument(function, "end_bit", "exceeds the bits of the key type");
}

template <radix_key K>
SLUICE_HOST_DEVICE constexpr word_t<K> radix_word(K key) {
  using U = word_t<K>;
  constexpr U sign = static_cast<U>(U{1} << (key_bits<K> - 1));
  const U word = cuda::std::bit_cast<U>(key);
  if constexpr (cuda::std::is_floating_point_v<K>)
    return (word & sign) != 0 ? static_cast<U>(~word) : static_cast<U>(word | sign);
  else if constexpr (cuda::std::is_signed_v<K>) return static_cast<U>(word ^ sign);
  else return word;
}

/// The key whose radix_word is `word`: radix_word's inverse. The onesweep kernel pads a partial tile with
/// the key of the all-ones word (all-zeros when descending), whose digit is the largest of every pass.
template <radix_key K>
SLUICE_HOST_DEVICE constexpr K radix_key_of(word_t<K> word) {
  using U = word_t<K>;
  constexpr U sign = static_cast<U>(U{1} << (key_bits<K> - 1));
  if constexpr (cuda::std::is_floating_point_v<K>)  // a set sign bit marks a non-negative key
    return cuda::std::bit_cast<K>((word & sign) != 0 ? static_cast<U>(word ^ sign) : static_cast<U>(~word));
  else if constexpr (cuda::std::is_signed_v<K>) return cuda::std::bit_cast<K>(static_cast<U>(word ^ sign));
  else return cuda::std::bit_cast<K>(word);
}

/// The digit of one pass: bits [shift, shift + bits) of radix_word(key), 1 ≤ bits ≤ 8; descending
/// reverses the digit order (2^bits − 1 − digit), so ascending stable passes over reversed digits give
/// the stable descending sort. A multisplit bucket identifier with m = 2^bits buckets.
template <radix_key K>
struct radix_digit {
  int shift;
  int bits;
  bool descending;

  SLUICE_HOST_DEVICE constexpr cuda::std::uint32_t operator()(K key) const {
    const cuda::std::uint32_t mask = (1u << bits) - 1;
    const auto digit = static_cast<cuda::std::uint32_t>(radix_word(key) >> shift) & mask;
    return descending ? mask - digit : digit;
  }
};

/// A key whose digit is the largest of the pass, in every pass (a partial tile's padding in onesweep: it
/// ranks behind every real key): the key of the all-ones word, all zeros when descending.
template <radix_key K>
SLUICE_HOST_DEVICE constexpr K largest_digit_element(const radix_digit<K>& digit) {
  using U = word_t<K>;
  return radix_key_of<K>(digit.descending ? U{0} : static_cast<U>(~U{0}));
}

}  // namespace sluice::detail
