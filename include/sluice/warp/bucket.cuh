// sluice/warp/bucket.cuh: warp-wide bucket histograms and bucket ranks from ⌈log2 m⌉ ballots (Ashkiani
// §3.5.4–3.5.5, "ballot-based voting", Algorithms 3 and 4), and the __match_any_sync alternative.
//
// 32 lanes each hold one item with a bucket id in [0, m). Ballot k collects bit k of every lane's id;
// the ⌈log2 m⌉ ballots together tell every lane every other lane's id. A lane keeps the lanes whose
// bits agree with a bucket of interest:
//   peers (Algorithm 4): the bucket of the lane's own item → its rank among equal ids is
//            popc(peers & lanes_below), the count of its bucket in the window is popc(peers);
//   histogram (Algorithm 3): the buckets lane + 32r, r < Registers → the window's count of each, one
//            register per 32 buckets (m ≤ 32·Registers).
// Cost per window of 32 items: ⌈log2 m⌉ ballots plus one AND per ballot (peers) or per ballot and
// register (histogram). No shared memory.
//
// Partial warps: every function takes the mask of the lanes that call it (all of them must call it,
// `*_sync` semantics, no implicit lock-step) and a per-lane `valid` flag. Lanes outside the mask and
// lanes without a valid item are never counted, so a tail window of fewer than 32 items and a warp of
// which some lanes have exited both work. A valid id must be below 2^bits.
//
// match_peers() gives the same peers with one __match_any_sync (sm_70+) instead of ⌈log2 m⌉ ballots:
// its cost does not depend on m, and it accepts any 32-bit id.
//
//   const unsigned peers = sluice::warp::ballot_peers(mask, valid, id, bits);
//   const int rank = sluice::warp::rank_among(peers);     // earlier lanes with my bucket
//   unsigned counts[8] = {};                                // buckets lane, lane + 32, … (m ≤ 256)
//   sluice::warp::ballot_histogram(mask, valid, id, bits, counts);
#pragma once

#include <sluice/warp/shuffle.cuh>

namespace sluice::warp {

/// Bits of lanes below this one (the "lanemask_lt" of PTX).
[[nodiscard]] __device__ __forceinline__ unsigned lanes_below() { return (1u << lane_id()) - 1u; }

/// The lanes in `mask` whose valid item has this lane's bucket id (0 where this lane's item is not valid).
[[nodiscard]] __device__ __forceinline__ unsigned ballot_peers(unsigned mask, bool valid, unsigned id, int bits) {
  unsigned peers = __ballot_sync(mask, valid);
  for (int k = 0; k < bits; ++k) {
    const bool bit = (id >> k) & 1u;
    const unsigned voted = __ballot_sync(mask, bit);
    peers &= bit ? voted : ~voted;
  }
  return valid ? peers : 0u;
}

/// The same peers from one match: lanes with an invalid item vote for an id no valid item can have
/// after the mask of valid lanes removes them.
[[nodiscard]] __device__ __forceinline__ unsigned match_peers(unsigned mask, bool valid, unsigned id) {
  const unsigned valid_lanes = __ballot_sync(mask, valid);
  const unsigned peers = __match_any_sync(mask, valid ? id : 0xffffffffu) & valid_lanes;
  return valid ? peers : 0u;
}

/// Lanes before this one among `peers`: the item's offset within its bucket in this window.
[[nodiscard]] __device__ __forceinline__ int rank_among(unsigned peers) { return __popc(peers & lanes_below()); }

/// True for the last lane of `peers`: the one that publishes the bucket's window count.
[[nodiscard]] __device__ __forceinline__ bool last_among(unsigned peers) {
  return peers != 0u && (peers >> lane_id()) == 1u;
}

/// counts[r] += the number of valid items in bucket lane + 32r. Buckets at or past 2^bits count 0;
/// bits ≤ 5 + log2(Registers).
/// The ballot loop is unrolled up to the 5 + log2(Registers) bits the registers can tell apart, so that
/// for bits k ≥ 5 the bucket's bit is a constant per register and costs one AND (a runtime loop over
/// the registers costs several times that: docs/perf-notes.md).
template <int Registers>
__device__ __forceinline__ void ballot_histogram(unsigned mask, bool valid, unsigned id, int bits,
                                                 unsigned (&counts)[Registers]) {
  static_assert(Registers == 1 || Registers == 2 || Registers == 4 || Registers == 8, "32 to 256 buckets");
  constexpr int max_bits = Registers == 1 ? 5 : Registers == 2 ? 6 : Registers == 4 ? 7 : 8;
  unsigned owned[Registers];
  const unsigned valid_lanes = __ballot_sync(mask, valid);
#pragma unroll
  for (int r = 0; r < Registers; ++r) {
    const unsigned bucket = static_cast<unsigned>(lane_id() + 32 * r);
    owned[r] = (bits < 32 && (bucket >> bits) != 0u) ? 0u : valid_lanes;
  }
#pragma unroll
  for (int k = 0; k < max_bits; ++k) {
    if (k >= bits) break;
    const unsigned voted = __ballot_sync(mask, (id >> k) & 1u);
#pragma unroll
    for (int r = 0; r < Registers; ++r) {
      const unsigned bucket = static_cast<unsigned>(lane_id() + 32 * r);
      owned[r] &= ((bucket >> k) & 1u) ? voted : ~voted;
    }
  }
#pragma unroll
  for (int r = 0; r < Registers; ++r) counts[r] += static_cast<unsigned>(__popc(owned[r]));
}

/// starts[b] = counts[0] + … + counts[b − 1] for b < m (an exclusive scan of an array in shared
/// memory; in place is fine, since each lane reads and writes only its own run), by one whole warp; returns the sum of all m counts in every lane. Each lane
/// adds a run of ⌈m/32⌉ consecutive counts, then the 32 run sums are scanned with 5 shuffles.
__device__ __forceinline__ unsigned exclusive_scan_counts(const unsigned* counts, unsigned* starts, unsigned m) {
  const unsigned per_lane = (m + 31u) / 32u;
  const unsigned first = static_cast<unsigned>(lane_id()) * per_lane;
  unsigned run = 0;
  for (unsigned b = first; b < first + per_lane && b < m; ++b) run += counts[b];
  unsigned inclusive = run;
#pragma unroll
  for (int offset = 1; offset < size; offset *= 2) {
    const unsigned before = __shfl_up_sync(full_mask, inclusive, offset);
    if (lane_id() >= offset) inclusive += before;
  }
  const unsigned total = __shfl_sync(full_mask, inclusive, size - 1);
  unsigned next = inclusive - run;
  for (unsigned b = first; b < first + per_lane && b < m; ++b) {
    const unsigned count = counts[b];
    starts[b] = next;
    next += count;
  }
  return total;
}

}  // namespace sluice::warp
