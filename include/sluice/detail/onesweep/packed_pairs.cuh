// sluice/detail/onesweep/packed_pairs.cuh: a 4-byte key and its 4-byte value moved as one 8-byte word,
// the key in the high half. The onesweep sort of such pairs (detail/radix_sort/dispatch.cuh,
// sort_packed_by_onesweep) runs its passes over packed words, reading the caller's separate arrays in
// its first pass (pair_reader) and writing them back in its last (pair_writer), so that each pass moves
// one stream of 8-byte elements instead of a key stream and a value stream.
//
// Why: a pass over 8-byte keys, the same bytes in and out as a pass over u32 pairs, was faster
// (docs/perf-notes.md, onesweep packed pairs): it writes each digit's run of a tile as one run of 8-byte
// words (one store a pair, the keys-only look-back reading several tiles at once) where the pairs pass
// writes the keys' run, then loads the values and writes theirs.
#pragma once

#include <sluice/core/radix_key.hpp>

#include <cuda/std/bit>
#include <cuda/std/cstddef>
#include <cuda/std/cstdint>
#include <cuda/std/type_traits>

namespace sluice::detail::onesweep {

/// A key and a value of 4 bytes each (the value trivially copyable): what packs into one packed_word.
template <class K, class V>
concept packable_pair = sizeof(K) == 4 && sizeof(V) == 4 && cuda::std::is_trivially_copyable_v<V>;

/// A pair as one word: the key's bits in the high half, the value's in the low half.
using packed_word = unsigned long long;

template <class K, class V>
__host__ __device__ __forceinline__ constexpr packed_word pack(K key, V value) {
  return (packed_word{cuda::std::bit_cast<cuda::std::uint32_t>(key)} << 32) | cuda::std::bit_cast<cuda::std::uint32_t>(value);
}
template <class K>
__host__ __device__ __forceinline__ constexpr K key_of(packed_word word) {
  return cuda::std::bit_cast<K>(static_cast<cuda::std::uint32_t>(word >> 32));
}
template <class V>
__host__ __device__ __forceinline__ constexpr V value_of(packed_word word) {
  return cuda::std::bit_cast<V>(static_cast<cuda::std::uint32_t>(word));
}

/// The radix digit of a packed pair: its key's.
template <class K>
struct packed_digit {
  radix_digit<K> key_digit;

  __host__ __device__ __forceinline__ constexpr cuda::std::uint32_t operator()(packed_word word) const {
    return key_digit(key_of<K>(word));
  }
};

/// A packed pair whose key's digit is the largest of the pass (core/radix_key.hpp's largest_digit_element).
template <class K>
__host__ __device__ __forceinline__ constexpr packed_word largest_digit_element(const packed_digit<K>& digit) {
  return pack(largest_digit_element(digit.key_digit), cuda::std::uint32_t{0});
}

/// Pair i of separate key and value arrays, read as one packed word: a pass's source (cub's warp-striped
/// loads index it, so a warp reads 32 consecutive keys and 32 consecutive values).
template <class K, class V>
struct pair_reader {
  const K* keys;
  const V* values;

  __device__ __forceinline__ packed_word operator[](cuda::std::size_t i) const { return pack(keys[i], values[i]); }
  __host__ __device__ pair_reader operator+(cuda::std::size_t offset) const { return {keys + offset, values + offset}; }
};

/// Pair i of separate key and value arrays, written from one packed word: a pass's sink.
template <class K, class V>
struct pair_writer {
  K* keys;
  V* values;

  struct reference {
    K* key;
    V* value;
    __device__ __forceinline__ void operator=(packed_word word) const {
      *key = key_of<K>(word);
      *value = value_of<V>(word);
    }
  };
  __device__ __forceinline__ reference operator[](cuda::std::size_t i) const { return {keys + i, values + i}; }
};

/// n packed words kept in the caller's output arrays while the passes run (detail/radix_sort/
/// dispatch.cuh): words [0, h) in out_keys, [h, 2h) in out_values (h = n / 2: each array holds 4n bytes,
/// 8h of them), and for odd n the last word in a spare one. Both arrays 8-byte aligned. A pass's source or sink, as a pointer to
/// packed words would be.
struct packed_in_outputs {
  packed_word* low;
  packed_word* high;
  packed_word* spare;
  cuda::std::size_t half;
  cuda::std::size_t first = 0;  ///< word 0 of this view

  __device__ __forceinline__ packed_word& operator[](cuda::std::size_t i) const {
    const cuda::std::size_t word = first + i;
    return word < half ? low[word] : word < 2 * half ? high[word - half] : *spare;
  }
  __host__ __device__ packed_in_outputs operator+(cuda::std::size_t offset) const {
    packed_in_outputs view = *this;
    view.first += offset;
    return view;
  }
};

}  // namespace sluice::detail::onesweep
