// sluice/detail/string_match/hrk.cuh: the hybrid matcher (Ashkiani §2.4, §2.6.3): each block runs CRK on
// its own subtext with block-wide scans (CUB's BlockScan) in shared memory.
//
// A block owns P = tile positions [bP, bP + P) and reads the P + m − 1 characters of their windows. It
// scans K(y) over the whole run in rounds of P characters, the running product carried from round to
// round, and keeps S'[c] = K(y_0')···K(y_c') only where a window ends (c ≥ m − 1: the last P of them, in
// shared memory); then one exclusive scan of the inverses over its P characters gives T'[r], and
// T'[r]·S'[r + m − 1] is the window's fingerprint, as in CRK but local to the subtext. The first m − 1
// characters of a run are scanned only to carry the product, which is the seed's overlap cost:
// (P + m − 1)/P scan steps a position, O(n + Lm) work (Table 2.1).
#pragma once

#include <sluice/core/operators.hpp>
#include <sluice/detail/string_match/crk.cuh>
#include <sluice/detail/string_match/drk.cuh>
#include <sluice/detail/string_match/fingerprint.hpp>

#include <cub/block/block_scan.cuh>

#include <cuda/std/cstddef>
#include <cuda/std/cstdint>

namespace sluice::detail::string_match {

/// BlockScan's prefix callback: the product of the rounds before (warp 0's lanes each keep a copy).
struct running_product {
  mat2 total;
  mat2_multiply_mod multiply;
  __device__ mat2 operator()(const mat2& round_aggregate) {
    const mat2 before = total;
    total = multiply(total, round_aggregate);
    return before;
  }
};

struct hrk_params {
  const unsigned char* text;
  size_t positions;  ///< n − m + 1
  size_t m;
  int sigma;
  uint32_t p;
  uint32_t* words;  ///< zeroed
};

template <class Shape>
__global__ void __launch_bounds__(Shape::threads) hrk_kernel(hrk_params prm, const pattern_summary* summary) {
  static_assert(32 % Shape::items == 0, "a thread's positions lie in one bitmap word");
  using block_scan = cub::BlockScan<mat2, Shape::threads, cub::BLOCK_SCAN_WARP_SCANS>;
  __shared__ typename block_scan::TempStorage temp;
  __shared__ mat2 window_ends[Shape::tile];
  constexpr mat2 identity{1, 0, 0, 1};
  const mat2_multiply_mod multiply(prm.p);
  const uint32_t mask = char_mask(prm.sigma);
  const size_t first_position = static_cast<size_t>(blockIdx.x) * Shape::tile;
  const size_t block_positions = cuda::std::min<size_t>(Shape::tile, prm.positions - first_position);
  const size_t run = block_positions + prm.m - 1;  // characters [first_position, first_position + run)
  const size_t thread_first = static_cast<size_t>(threadIdx.x) * Shape::items;
  const unsigned char* text = prm.text + first_position;

  // S' over the run, round by round; the window ends are kept.
  running_product carried{identity, multiply};
  for (size_t round = 0; round < run; round += Shape::tile) {
    mat2 items[Shape::items];
#pragma unroll
    for (int j = 0; j < Shape::items; ++j) {
      const size_t c = round + thread_first + static_cast<size_t>(j);
      items[j] = c < run ? char_matrix(text[c] & mask, prm.sigma) : identity;
    }
    block_scan(temp).InclusiveScan(items, items, multiply, carried);
    __syncthreads();  // temp is reused next round
#pragma unroll
    for (int j = 0; j < Shape::items; ++j) {
      const size_t c = round + thread_first + static_cast<size_t>(j);
      if (c < run && c + 1 >= prm.m) window_ends[c - (prm.m - 1)] = items[j];
    }
  }
  __syncthreads();

  // T' over the block's positions, and the fingerprints.
  mat2 inverses[Shape::items];
#pragma unroll
  for (int j = 0; j < Shape::items; ++j) {
    const size_t r = thread_first + static_cast<size_t>(j);
    inverses[j] = r < block_positions ? char_inverse(text[r] & mask, prm.sigma, prm.p) : identity;
  }
  block_scan(temp).ExclusiveScan(inverses, inverses, identity, reversed_product{multiply});
  const mat2 target = summary->matrix;
  uint32_t bits = 0;
#pragma unroll
  for (int j = 0; j < Shape::items; ++j) {
    const size_t r = thread_first + static_cast<size_t>(j);
    if (r < block_positions && multiply(inverses[j], window_ends[r]) == target) bits |= 1u << j;
  }
  or_bits(prm.words, first_position + thread_first, bits);
}

}  // namespace sluice::detail::string_match
