// sluice/detail/string_match/verify.cuh: warp-cooperative verification of candidate positions (Ashkiani
// §2.5, Algorithm 1; the WCWS pattern of §1.1).
//
// Each lane holds a 32-bit word of candidates (bit k: position first + k). The warp ballots which lanes
// still have candidates, serves them in lane order, broadcasts one candidate r a round, and all 32 lanes
// compare Y[r, r + m) with the pattern, 32·L characters a step (L = 4 a lane: the 128-character chunks
// the seed suggests, §2.8.3), stopping at the first step that differs. A candidate that fails is cleared
// from its owner's word. Every lane of the warp must call (lanes without candidates pass 0), so the
// ballots are uniform; the loop runs once per candidate of the warp.
//
// Comparisons: exact_chunks compares bytes (the default, exact); fingerprint_chunks compares each step's
// fingerprint mod p, the sum of the lanes' shares (fingerprint.hpp), with the pattern's (the seed's
// verification: a false positive needs every chunk to collide). Traffic per candidate: up to m text
// bytes (L1/L2) and m pattern bytes (cached), stopping early on a mismatch.
#pragma once

#include <sluice/detail/string_match/fingerprint.hpp>
#include <sluice/detail/string_match/tuning.hpp>
#include <sluice/warp/shuffle.cuh>

#include <cuda/std/cstddef>
#include <cuda/std/cstdint>

namespace sluice::detail::string_match {

/// Characters a lane compares per step.
inline constexpr int verify_lane_chars = tuning::verify_chars_per_lane;
inline constexpr int verify_step_chars = warp::size * verify_lane_chars;

/// Y[r, r + m) == X byte by byte (low σ bits), by the whole warp.
struct exact_chunks {
  const unsigned char* text;
  const unsigned char* pattern;
  size_t m;
  uint32_t mask;  ///< char_mask(σ)

  __device__ bool equal_at(size_t r) const {
    const size_t lane_first = static_cast<size_t>(warp::lane_id()) * verify_lane_chars;
    for (size_t step = 0; step < m; step += verify_step_chars) {
      bool differ = false;
#pragma unroll
      for (int i = 0; i < verify_lane_chars; ++i) {
        const size_t k = step + lane_first + static_cast<size_t>(i);
        if (k < m) differ |= ((text[r + k] ^ pattern[k]) & mask) != 0;
      }
      if (__any_sync(warp::full_mask, differ)) return false;
    }
    return true;
  }
};

/// F_p(s[0, min(32L, available))) by the warp: each lane's share times its weight (lane_weight), summed
/// mod p. All lanes return the same value.
__device__ inline uint32_t warp_chunk_fingerprint(const unsigned char* s, size_t available, uint32_t weight, int sigma,
                                                  uint32_t p) {
  const size_t start = static_cast<size_t>(warp::lane_id()) * verify_lane_chars;
  const size_t left = available > start ? available - start : 0;
  uint32_t v =
      static_cast<uint32_t>(lane_share<verify_lane_chars>(s + (left ? start : 0), left, sigma, p) * weight % p);
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) {
    const uint32_t other = __shfl_xor_sync(warp::full_mask, v, offset);
    v = v + other >= p ? v + other - p : v + other;  // both < p < 2^31
  }
  return v;
}

/// Y[r, r + m) and X have equal chunk fingerprints, chunk by chunk (pattern_chunks[k]: chunk k of X;
/// weights[l]: lane l's weight; both written by pattern_chunks_kernel).
struct fingerprint_chunks {
  const unsigned char* text;
  size_t m;
  const uint32_t* pattern_chunks;
  const uint32_t* weights;
  int sigma;
  uint32_t p;

  __device__ bool equal_at(size_t r) const {
    const uint32_t weight = weights[warp::lane_id()];
    size_t k = 0;
    for (size_t step = 0; step < m; step += verify_step_chars, ++k)
      if (warp_chunk_fingerprint(text + r + step, m - step, weight, sigma, p) != pattern_chunks[k]) return false;
    return true;
  }
};

/// The lane's candidates that survive verification (Algorithm 1, one candidate of the warp a round).
template <class Chunks>
__device__ uint32_t verify_candidates(uint32_t candidates, size_t first_position, const Chunks& chunks) {
  const int lane = warp::lane_id();
  uint32_t kept = candidates;
  uint32_t todo = candidates;
  for (unsigned pending = __ballot_sync(warp::full_mask, todo != 0); pending;
       pending = __ballot_sync(warp::full_mask, todo != 0)) {
    const int owner = __ffs(pending) - 1;
    const uint32_t owner_todo = __shfl_sync(warp::full_mask, todo, owner);
    const int bit = __ffs(owner_todo) - 1;
    const size_t r = __shfl_sync(warp::full_mask, static_cast<unsigned long long>(first_position), owner) +
                     static_cast<size_t>(bit);
    const bool match = chunks.equal_at(r);
    if (lane == owner) {
      todo &= todo - 1;  // the lowest candidate, `bit`, is done
      if (!match) kept &= ~(1u << bit);
    }
  }
  return kept;
}

/// What the matchers call on each thread's candidate word.
struct no_verification {
  __device__ uint32_t operator()(uint32_t bits, size_t) const { return bits; }
};

template <class Chunks>
struct warp_verification {
  Chunks chunks;
  __device__ uint32_t operator()(uint32_t bits, size_t first_position) const {
    return verify_candidates(bits, first_position, chunks);
  }
};

/// Chunk k of the pattern's fingerprints, one warp a chunk (the verification's own function), and the
/// lanes' weights.
static __global__ void pattern_chunks_kernel(const unsigned char* pattern, size_t m, int sigma, uint32_t p,
                                             uint32_t* chunks, size_t count, uint32_t* weights) {
  const size_t chunk = (static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x) / warp::size;
  if (chunk >= count) return;  // whole warps leave together: blockDim is a multiple of 32
  const int lane = warp::lane_id();
  const uint32_t weight = lane_weight<verify_lane_chars>(lane, sigma, p);
  if (chunk == 0) weights[lane] = weight;
  const size_t step = chunk * verify_step_chars;
  const uint32_t f = warp_chunk_fingerprint(pattern + step, m - step, weight, sigma, p);
  if (lane == 0) chunks[chunk] = f;
}

/// Re-verifies the candidates of a bitmap in place (the scan-based strategies' exact mode): a thread a
/// word, grid-stride; every thread of a warp stays until the warp's last round.
template <class Chunks>
__global__ void verify_bitmap_kernel(uint32_t* words, size_t count, Chunks chunks) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  const size_t first = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const size_t rounds = (count + stride - 1) / stride;  // the same for every thread
  for (size_t round = 0; round < rounds; ++round) {
    const size_t word = first + round * stride;
    const uint32_t candidates = word < count ? words[word] : 0u;
    const uint32_t kept = verify_candidates(candidates, word * 32, chunks);
    if (kept != candidates) words[word] = kept;
  }
}

}  // namespace sluice::detail::string_match
