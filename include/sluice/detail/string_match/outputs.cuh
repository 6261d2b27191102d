// sluice/detail/string_match/outputs.cuh: from a match bitmap to the other outputs, and the alphabet
// check.
//
//   count_bitmap_kernel   the matches' count: popcounts, a warp sum, one atomic a warp (one wave)
//   positions_program     the sorted positions: one single-pass scan (detail/scan) of the words' popcounts,
//                         whose store phase writes each word's positions from its exclusive prefix; the
//                         compaction of select (detail/select) without its element array, since a
//                         word's set bits are its positions. Traffic: n/8 bytes read, 8 bytes a match.
//   first_outside_kernel  the first character with bits above σ (atomicMin of its index)
#pragma once

#include <sluice/detail/scan/tile_scan.cuh>
#include <sluice/warp/shuffle.cuh>

#include <cuda/std/cstddef>
#include <cuda/std/cstdint>

namespace sluice::detail::string_match {

using cuda::std::size_t;
using cuda::std::uint32_t;

/// *total += the bits set in words[0, count) (total zeroed before).
static __global__ void count_bitmap_kernel(const uint32_t* words, size_t count, unsigned long long* total) {
  unsigned long long mine = 0;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    mine += static_cast<unsigned long long>(__popc(words[i]));
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) mine += __shfl_xor_sync(warp::full_mask, mine, offset);
  if (warp::lane_id() == 0 && mine != 0) atomicAdd(total, mine);
}

/// The scan's tile program: element = the matches of a word; the words stay in registers for the store.
template <class Shape>
struct positions_program {
  using shape = Shape;
  using element = unsigned long long;
  struct loaded {
    uint32_t words[Shape::items];
  };
  union temp_storage {
    typename scan::block_load_t<Shape, uint32_t>::TempStorage load;
  };

  const uint32_t* words;
  size_t word_count;
  unsigned long long* positions;  ///< room for `capacity`; the rest are counted, not written
  size_t capacity;
  unsigned long long* count;

  __device__ void load(size_t offset, int valid, loaded& raw, element (&items)[Shape::items], temp_storage& temp) const {
    scan::load_tile<Shape>(words + offset, valid, raw.words, temp.load);
#pragma unroll
    for (int j = 0; j < Shape::items; ++j) items[j] = static_cast<element>(__popc(raw.words[j]));
  }
  __device__ void store(size_t offset, int valid, const loaded& raw, element (&before)[Shape::items], temp_storage&) const {
    const int first = static_cast<int>(threadIdx.x) * Shape::items;
#pragma unroll
    for (int j = 0; j < Shape::items; ++j) {
      if (first + j >= valid) break;
      const size_t word = offset + static_cast<size_t>(first + j);
      unsigned long long at = before[j];
      for (uint32_t bits = raw.words[j]; bits != 0; bits &= bits - 1, ++at)
        if (at < capacity) positions[at] = word * 32 + static_cast<unsigned long long>(__ffs(bits) - 1);
      if (word + 1 == word_count) *count = at;
    }
  }
};

/// *first = min(*first, the index of each element of s[0, count) with bits outside `mask`).
static __global__ void first_outside_kernel(const unsigned char* s, size_t count, uint32_t mask,
                                            unsigned long long* first) {
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    if ((s[i] & ~mask) != 0) {
      atomicMin(first, static_cast<unsigned long long>(i));
      return;  // later elements of this thread have larger indices
    }
  }
}

}  // namespace sluice::detail::string_match
