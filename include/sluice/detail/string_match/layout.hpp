// sluice/detail/string_match/layout.hpp: where the divide-and-conquer matchers (Ashkiani §2.4, §2.6.2)
// put their characters and their results, as pure index arithmetic the host tests check exhaustively.
//
// Work split. Thread t of the grid owns the 32 positions of bitmap word t, [32t, 32t + 32): g = 32
// exclusive characters (within the seed's best 12 ≤ g ≤ 44, §2.8), and one result word, written whole by
// its owner. A block of T threads owns P = 32T positions and stages the characters they read, P + w − 1
// from position P·b + o (w the window, o the subpattern's offset), in shared memory.
//
// Staging layout. Thread t reads character 32t + i of the staged run while its warp's other lanes read
// 32t' + i: stored contiguously those 32 bytes would fall in 4 banks (8-way conflicts). Character j is
// stored at padded(q) = q + 4⌊q/32⌋ with q = j + h, h the run's start address mod 16, so the lanes' bytes
// fall in banks 9t + c (mod 32), all different; aligned 16-byte groups of the source (q multiple of 16)
// never cross a padding point, so the copy moves them as four 32-bit stores.
#pragma once

#include <sluice/core/config.hpp>

#include <cuda/std/cstddef>
#include <cuda/std/cstdint>

namespace sluice::detail::string_match {

using cuda::std::size_t;
using cuda::std::uint32_t;

inline constexpr int positions_per_thread = 32;  ///< one bitmap word a thread

/// Where staged character q (q = j + h) lives in shared memory.
[[nodiscard]] SLUICE_HOST_DEVICE constexpr uint32_t padded(uint32_t q) { return q + 4u * (q >> 5); }

/// Shared-memory bytes for a staged run of `count` characters at any alignment (h ≤ 15).
[[nodiscard]] SLUICE_HOST_DEVICE constexpr size_t staged_bytes(size_t count) {
  return count == 0 ? 0 : ((padded(static_cast<uint32_t>(count + 15)) + 4) & ~size_t{3});
}

/// The copy of a run of `count` characters whose first lies h bytes past a 16-byte boundary, in q
/// coordinates: bytes [head_begin, vector_begin) and [vector_end, tail_end) one at a time, the aligned
/// 16-byte groups [vector_begin, vector_end) as vectors.
struct staging_plan {
  uint32_t head_begin, vector_begin, vector_end, tail_end;
};

[[nodiscard]] SLUICE_HOST_DEVICE constexpr staging_plan plan_staging(uint32_t h, uint32_t count) {
  const uint32_t begin = h, end = h + count;
  uint32_t vector_begin = (begin + 15) & ~15u, vector_end = end & ~15u;
  if (vector_begin >= vector_end) vector_begin = vector_end = end;  // too short for a whole group
  return {begin, vector_begin, vector_end, end};
}

/// The positions of word `word` that exist: min(32, positions − 32·word), or 0 past the end.
[[nodiscard]] SLUICE_HOST_DEVICE constexpr int word_positions(size_t word, size_t positions) {
  const size_t first = word * positions_per_thread;
  return first >= positions ? 0 : (positions - first >= 32 ? 32 : static_cast<int>(positions - first));
}

/// The bits of a word for positions [0, valid): valid ≤ 32.
[[nodiscard]] SLUICE_HOST_DEVICE constexpr uint32_t low_bits(int valid) {
  return valid >= 32 ? ~0u : (1u << valid) - 1u;
}

/// Bits for positions [first, first + 32) that a thread ORs into a bitmap: `low` into word first/32 and,
/// when the run crosses a word boundary, `high` into the next (the scan-based matchers' positions are
/// not word-aligned).
struct bit_split {
  size_t word;
  uint32_t low;
  uint32_t high;
};

[[nodiscard]] SLUICE_HOST_DEVICE constexpr bit_split split_bits(size_t first, uint32_t bits) {
  const unsigned shift = static_cast<unsigned>(first % 32);
  return {first / 32, bits << shift, shift == 0 ? 0u : bits >> (32 - shift)};
}

/// crk_recurrence's item i holds the window that ends at i, position i − (m − 1). For a thread's items
/// from i0: `skip` items end no window (i < m − 1), and the first that does is `first_position`.
struct window_ends {
  size_t skip;
  size_t first_position;
};

[[nodiscard]] SLUICE_HOST_DEVICE constexpr window_ends first_window_end(size_t i0, size_t m) {
  const size_t skip = i0 + 1 >= m ? 0 : m - 1 - i0;
  return {skip, i0 + skip - (m - 1)};
}

}  // namespace sluice::detail::string_match
