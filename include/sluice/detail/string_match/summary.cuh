// sluice/detail/string_match/summary.cuh: the pattern's fingerprints, computed on the device where the
// pattern lives (no copy to the host, no synchronisation): one block folds each fingerprint over the
// pattern in index order, 256 contiguous pieces by 256 threads, then thread 0 composes the pieces. The
// fingerprints compose associatively (Horner pieces, matrix products), so the fold gives the sequential
// value exactly. O(m/256 + 256) steps; the matching kernels read the result (pattern_summary, drk.cuh).
#pragma once

#include <sluice/core/operators.hpp>
#include <sluice/detail/string_match/drk.cuh>
#include <sluice/detail/string_match/fingerprint.hpp>

#include <cuda/std/cstddef>
#include <cuda/std/cstdint>

namespace sluice::detail::string_match {

/// Which fingerprints a plan needs, and their parameters.
struct summary_request {
  int sigma = 8;
  bool packed = false;  ///< pack pattern[packed_offset, packed_offset + packed_length) (≤ 64 bits)
  size_t packed_offset = 0;
  int packed_length = 0;
  uint32_t modular_prime = 0;  ///< 0: not needed
  uint32_t matrix_prime = 0;   ///< 0: not needed
  bool mersenne = false;
  unsigned long long base61 = 0;
};

inline constexpr int summary_threads = 256;

/// Horner pieces mod 2^61 − 1 (x ↦ x·scale + value), composed in index order.
struct mersenne_compose {
  __device__ horner_piece operator()(const horner_piece& a, const horner_piece& b) const {
    return {mul_mod61(a.scale, b.scale), add_mod61(mul_mod61(a.value, b.scale), b.value)};
  }
};

/// Folds element(i) for i in [0, m) in index order with op; the result is valid in thread 0.
template <class T, class Element, class Op>
__device__ T fold_in_order(size_t m, T identity, Element element, Op op, T* partials) {
  const size_t piece = (m + summary_threads - 1) / summary_threads;
  const size_t begin = cuda::std::min(m, threadIdx.x * piece), end = cuda::std::min(m, begin + piece);
  T mine = identity;
  for (size_t i = begin; i < end; ++i) mine = op(mine, element(i));
  partials[threadIdx.x] = mine;
  __syncthreads();
  T all = identity;
  if (threadIdx.x == 0)
    for (int t = 0; t < summary_threads; ++t) all = op(all, partials[t]);
  __syncthreads();  // partials may be reused
  return all;
}

static __global__ void __launch_bounds__(summary_threads)
    summarize_pattern_kernel(const unsigned char* pattern, size_t m, summary_request request, pattern_summary* out) {
  __shared__ union {
    horner_piece pieces[summary_threads];
    mat2 matrices[summary_threads];
  } partials;
  const uint32_t mask = char_mask(request.sigma);
  const int sigma = request.sigma;
  pattern_summary result{};
  if (request.modular_prime != 0) {
    const uint64_t p = request.modular_prime;
    const uint64_t shift = (uint64_t{1} << sigma) % p;
    const horner_piece f = fold_in_order(
        m, horner_piece{1, 0}, [&](size_t i) { return horner_piece{shift, (pattern[i] & mask) % p}; },
        horner_compose{p}, partials.pieces);
    result.modular = static_cast<uint32_t>(f.value);
  }
  if (request.mersenne) {
    const uint64_t base = request.base61;
    const horner_piece f = fold_in_order(
        m, horner_piece{1, 0}, [&](size_t i) { return horner_piece{base, pattern[i] & mask}; }, mersenne_compose{},
        partials.pieces);
    result.mersenne = f.value;
  }
  if (request.matrix_prime != 0) {
    result.matrix = fold_in_order(
        m, mat2{1, 0, 0, 1}, [&](size_t i) { return char_matrix(pattern[i] & mask, sigma); },
        mat2_multiply_mod(request.matrix_prime), partials.matrices);
  }
  if (threadIdx.x == 0) {
    if (request.packed) {
      const unsigned char* packed = pattern + request.packed_offset;
      result.packed = pack_chars<unsigned long long>(packed, request.packed_length, sigma);
      result.bytes = pack_bytes(packed, request.packed_length < byte_window_max ? request.packed_length : byte_window_max, sigma);
    }
    *out = result;
  }
}

}  // namespace sluice::detail::string_match
