// tests/support/sort_keys.hpp: the key types of the comparison-sort tests (merge_sort, segmented_sort):
// 1-, 4- and 8-byte integers, a 16-byte struct ordered by two fields and a 32-byte struct ordered by two
// of its four words (the other two are a payload that exposes instability), made from 64-bit draws.
#pragma once

#include <cstddef>
#include <cstdint>

namespace sluice::testing {

/// 16 bytes ordered by (a, b).
struct pair16 {
  std::uint64_t a;
  std::uint64_t b;
  friend bool operator==(const pair16&, const pair16&) = default;
};
struct by_a_then_b {
  __host__ __device__ bool operator()(const pair16& x, const pair16& y) const {
    return x.a != y.a ? x.a < y.a : x.b < y.b;
  }
};

/// 32 bytes ordered by w[0] then w[3]; w[1] and w[2] are a payload that exposes instability.
struct wide32 {
  std::uint64_t w[4];
  friend bool operator==(const wide32&, const wide32&) = default;
};
struct by_first_and_last {
  __host__ __device__ bool operator()(const wide32& x, const wide32& y) const {
    return x.w[0] != y.w[0] ? x.w[0] < y.w[0] : x.w[3] < y.w[3];
  }
};

/// The key of K made from a 64-bit draw for position i: the integers take the draw's top bits, the
/// structs put few distinct values in their leading field so that ties are frequent.
template <class K>
K make_key(std::uint64_t draw, std::size_t i);

template <>
inline std::uint8_t make_key<std::uint8_t>(std::uint64_t draw, std::size_t) {
  return static_cast<std::uint8_t>(draw >> 56);
}
template <>
inline std::uint32_t make_key<std::uint32_t>(std::uint64_t draw, std::size_t) {
  return static_cast<std::uint32_t>(draw >> 32);
}
template <>
inline std::uint64_t make_key<std::uint64_t>(std::uint64_t draw, std::size_t) {
  return draw;
}
template <>
inline pair16 make_key<pair16>(std::uint64_t draw, std::size_t) {
  return {draw >> 60, draw};
}
template <>
inline wide32 make_key<wide32>(std::uint64_t draw, std::size_t i) {
  return {{draw >> 60, i, ~i, draw}};
}

}  // namespace sluice::testing
