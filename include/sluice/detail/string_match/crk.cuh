// sluice/detail/string_match/crk.cuh: the cooperative matchers, built on the single-pass scan
// (detail/scan) as tile programs (Ashkiani §2.3.2, §2.6.1).
//
// crk: two scans of 2x2 matrix fingerprints mod p (Eq. 2.4):
//   1. S = inclusive scan of K(y_i) under the product mod p, stored (16 bytes a character);
//   2. T = exclusive scan of A(y_r) = K(y_r)^{−1} under the reversed product, over the n − m + 1
//      positions; its store phase forms K(Y[r, r+m)) = T[r]·S[r + m − 1] and compares with K(X).
// The seed stored S and T (four 16-byte arrays with K and A); here T never leaves registers. Traffic:
// the text twice, S written and read (32n bytes), the bitmap (n/8).
//
// crk_recurrence: one scan of the recurrence steps c_i = [B, y_i − B^m y_{i−m}] (detail/recurrence's step
// and step operator, mod 2^61 − 1), whose b-components are the fingerprints of the windows ending at i
// (fingerprint.hpp). The seed's unexplored variant (§2.3.2). Traffic: the text twice (y_i coalesced,
// y_{i−m} through the cache), the bitmap.
//
// Both write candidates into a zeroed bitmap with atomic ORs (only words with a candidate are touched:
// matches are rare, and a tile's positions are not word-aligned for crk_recurrence).
#pragma once

#include <sluice/core/operators.hpp>
#include <sluice/detail/recurrence/dispatch.cuh>
#include <sluice/detail/scan/tile_scan.cuh>
#include <sluice/detail/string_match/drk.cuh>
#include <sluice/detail/string_match/fingerprint.hpp>
#include <sluice/detail/string_match/layout.hpp>

#include <cuda/std/cstddef>
#include <cuda/std/cstdint>

namespace sluice::detail::string_match {

/// ORs a thread's candidate bits for positions [first, first + 32) into the bitmap.
__device__ inline void or_bits(uint32_t* words, size_t first, uint32_t bits) {
  if (bits == 0) return;
  const bit_split s = split_bits(first, bits);
  if (s.low) atomicOr(words + s.word, s.low);
  if (s.high) atomicOr(words + s.word + 1, s.high);
}

/// Scan 1 of crk: S = K(y_0)···K(y_i), stored.
template <class Shape>
struct crk_prefix_program {
  using shape = Shape;
  using element = mat2;
  struct loaded {};
  union temp_storage {
    typename scan::block_load_t<Shape, unsigned char>::TempStorage load;
    typename scan::block_store_t<Shape, mat2>::TempStorage store;
  };

  const unsigned char* text;
  mat2* prefixes;
  int sigma;

  __device__ void load(size_t offset, int valid, loaded&, mat2 (&items)[Shape::items], temp_storage& temp) const {
    unsigned char chars[Shape::items];
    scan::load_tile<Shape>(text + offset, valid, chars, temp.load);
#pragma unroll
    for (int j = 0; j < Shape::items; ++j) items[j] = char_matrix(chars[j] & char_mask(sigma), sigma);
  }
  __device__ void store(size_t offset, int valid, const loaded&, mat2 (&items)[Shape::items], temp_storage& temp) const {
    scan::store_tile<Shape>(prefixes + offset, valid, items, temp.store);
  }
};

/// Scan 2 of crk over the positions: T[r] = A(y_{r−1})···A(y_0), then T[r]·S[r + m − 1] against K(X).
template <class Shape>
struct crk_match_program {
  static_assert(32 % Shape::items == 0, "a thread's positions lie in one bitmap word");
  using shape = Shape;
  using element = mat2;
  struct loaded {};
  union temp_storage {
    typename scan::block_load_t<Shape, unsigned char>::TempStorage load;
  };

  const unsigned char* text;
  const mat2* prefixes;
  size_t m;
  int sigma;
  mat2_multiply_mod multiply;
  const pattern_summary* summary;
  uint32_t* words;

  __device__ void load(size_t offset, int valid, loaded&, mat2 (&items)[Shape::items], temp_storage& temp) const {
    unsigned char chars[Shape::items];
    scan::load_tile<Shape>(text + offset, valid, chars, temp.load);
#pragma unroll
    for (int j = 0; j < Shape::items; ++j) items[j] = char_inverse(chars[j] & char_mask(sigma), sigma, multiply.modulus());
  }
  __device__ void store(size_t offset, int valid, const loaded&, mat2 (&items)[Shape::items], temp_storage&) const {
    const int first = static_cast<int>(threadIdx.x) * Shape::items;
    const mat2 target = summary->matrix;
    uint32_t bits = 0;
#pragma unroll
    for (int j = 0; j < Shape::items; ++j) {
      const size_t r = offset + static_cast<size_t>(first + j);
      if (first + j < valid && multiply(items[j], prefixes[r + m - 1]) == target) bits |= 1u << j;
    }
    or_bits(words, offset + static_cast<size_t>(first), bits);
  }
};

using step61 = recurrence::step<unsigned long long, unsigned long long>;
using step61_op = recurrence::step_op<add61, mul61, mul61>;

/// crk_recurrence: steps [B, y_i − B^m y_{i−m}]; the scanned b of step i is the window ending at i.
template <class Shape>
struct crk_recurrence_program {
  static_assert(Shape::items <= 32, "a thread's positions span at most two bitmap words");
  using shape = Shape;
  using element = step61;
  struct loaded {};
  union temp_storage {
    typename scan::block_load_t<Shape, unsigned char>::TempStorage load;
  };

  const unsigned char* text;
  size_t m;
  int sigma;
  unsigned long long base;    ///< B
  unsigned long long base_m;  ///< B^m
  const pattern_summary* summary;
  uint32_t* words;

  __device__ void load(size_t offset, int valid, loaded&, step61 (&items)[Shape::items], temp_storage& temp) const {
    unsigned char chars[Shape::items];
    scan::load_tile<Shape>(text + offset, valid, chars, temp.load);
    const uint32_t mask = char_mask(sigma);
    const size_t first = offset + threadIdx.x * static_cast<size_t>(Shape::items);
#pragma unroll
    for (int j = 0; j < Shape::items; ++j) {
      const size_t i = first + static_cast<size_t>(j);
      const uint32_t outgoing = i >= m && j < valid - static_cast<int>(threadIdx.x) * Shape::items ? text[i - m] & mask : 0u;
      items[j] = {base, recurrence_input(chars[j] & mask, outgoing, base_m)};
    }
  }
  __device__ void store(size_t offset, int valid, const loaded&, step61 (&items)[Shape::items], temp_storage&) const {
    const int first = static_cast<int>(threadIdx.x) * Shape::items;
    const unsigned long long target = summary->mersenne;
    const size_t i0 = offset + static_cast<size_t>(first);
    uint32_t bits = 0;
#pragma unroll
    for (int j = 0; j < Shape::items; ++j)
      if (first + j < valid && i0 + static_cast<size_t>(j) + 1 >= m && items[j].b == target) bits |= 1u << j;
    const window_ends ends = first_window_end(i0, m);  // items before m − 1 end no window and have no bit
    if (ends.skip < static_cast<size_t>(Shape::items)) or_bits(words, ends.first_position, bits >> ends.skip);
  }
};

}  // namespace sluice::detail::string_match
