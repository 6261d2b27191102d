// sluice/detail/lsm/cleanup_tile.hpp: the arithmetic of cleanup's pass (Ashkiani §4.4.5 in one pass;
// docs/lsm.md "Cleanup"), host and device, so that the host test (tests/host/lsm_cleanup_tile_test.cpp)
// runs exactly what the kernels (cleanup.cuh) run.
//
// The partition: every S-th element of each run is a sample; the samples, sorted stably by key in run
// order, are in the runs' merge order (key, then run: newest first, then position), and every G-th of
// them is a pivot. A tile is the stretch of the merge between two pivots: each run's piece is the run's
// elements that merge before the next pivot and not before this one, found by one binary search a run.
// A tile spans G samples, and each run adds fewer than S elements beside its samples' stretches, so it
// holds at most G·S + K·(S − 1) elements (K runs): G is the most that keeps that within the tile.
//
// A tile is made of one piece of each run, laid side by side in run order. ⌈log2 K⌉ rounds merge
// neighbouring groups of pieces by merge path (round r merges groups of 2^r pieces pairwise, the newer
// group first on ties), each thread writing its own stretch of outputs; then each element is judged
// against the one before it.
#pragma once

#include <sluice/core/config.hpp>
#include <sluice/core/merge_path.hpp>
#include <sluice/detail/lsm/plan.hpp>

namespace sluice::detail::lsm {

/// Runs one cleanup pass merges (a tile's pieces are scanned by a warp, a lane a run). More runs are
/// first merged down to this many (lsm.cuh).
inline constexpr int cleanup_ways = 32;

/// S, one sample every S elements of a run: a 64th of a tile, so that 32 runs still leave a tile room
/// for half its capacity's samples.
SLUICE_HOST_DEVICE constexpr index_t cleanup_sample_stride(index_t tile) { return tile / 64; }

/// G, the samples a tile spans with `runs` runs: the most with G·S + runs·(S − 1) ≤ tile (at least 1:
/// S − 1 < tile / 64 and runs ≤ 32).
SLUICE_HOST_DEVICE constexpr index_t cleanup_tile_samples(index_t tile, int runs) {
  const index_t stride = cleanup_sample_stride(tile);
  return (tile - static_cast<index_t>(runs) * (stride - 1)) / stride;
}

/// Samples of a run of `size` elements: positions 0, S, 2S, … below size.
SLUICE_HOST_DEVICE constexpr index_t cleanup_samples_of(index_t size, index_t stride) {
  return (size + stride - 1) / stride;
}

/// Run `run`'s elements that merge before the pivot, element `pivot_index` of run `pivot_run` with key v
/// (the merge: by key, then newer run first, then position). lower(run) and upper(run) are v's
/// lower_bound and upper_bound there; only the one needed is called.
template <class Lower, class Upper>
SLUICE_HOST_DEVICE index_t split_at_pivot(int run, int pivot_run, index_t pivot_index, Lower lower, Upper upper) {
  if (run == pivot_run) return pivot_index;
  return run < pivot_run ? upper(run) : lower(run);
}

/// Merge rounds of a tile of `pieces` pieces: ⌈log2 pieces⌉.
SLUICE_HOST_DEVICE constexpr int cleanup_rounds(int pieces) {
  int rounds = 0;
  while ((1 << rounds) < pieces) ++rounds;
  return rounds;
}

/// The piece holding tile position i < starts[pieces]: the last piece whose start is ≤ i (an empty
/// piece shares its start with the next one, so the last is the one that holds i).
SLUICE_HOST_DEVICE constexpr int piece_of(const unsigned* starts, int pieces, unsigned i) {
  int low = 0, high = pieces - 1;
  while (low < high) {
    const int mid = (low + high + 1) / 2;
    if (starts[mid] <= i) low = mid;
    else high = mid - 1;
  }
  return low;
}

/// One thread's part of merge round `round`: outputs [first, last) of the tile, each the stable merge of
/// groups 2q and 2q + 1 of 2^round pieces (group 2q, newer, first on equal keys) where its pair of
/// groups lies. keys_in/index_in hold the previous round's groups, keys_out/index_out get this round's;
/// `starts` has pieces + 1 entries. A thread's outputs may cross from one pair to the next: each pair
/// it meets costs one merge-path search, then one comparison an output.
template <class K, class Index>
SLUICE_HOST_DEVICE void merge_round(const K* keys_in, const Index* index_in, K* keys_out, Index* index_out,
                                    const unsigned* starts, int pieces, int round, unsigned first, unsigned last) {
  const int pair_pieces = 2 << round;
  unsigned pos = first;
  while (pos < last) {
    const int pair = piece_of(starts, pieces, pos) / pair_pieces * pair_pieces;
    const int middle = pair + pair_pieces / 2 < pieces ? pair + pair_pieces / 2 : pieces;
    const int end = pair + pair_pieces < pieces ? pair + pair_pieces : pieces;
    const unsigned a_first = starts[pair], a_last = starts[middle], b_last = starts[end];
    const unsigned diagonal = pos - a_first;
    const unsigned taken = merge_path(keys_in + a_first, a_last - a_first, keys_in + a_last, b_last - a_last, diagonal,
                                      [](const K& x, const K& y) { return x < y; });
    unsigned a = a_first + taken, b = a_last + (diagonal - taken);
    const unsigned stop = last < b_last ? last : b_last;
    for (; pos < stop; ++pos) {
      const bool from_b = b < b_last && (a >= a_last || keys_in[b] < keys_in[a]);
      const unsigned from = from_b ? b++ : a++;
      keys_out[pos] = keys_in[from];
      index_out[pos] = index_in[from];
    }
  }
}

/// Whether the tile's first element repeats the key just before the tile in the merge: that element is
/// the last of some run's elements before the tile, and every such element's key is at most the tile's
/// first, so it is enough that one of them equals it. before[j] = run j's split at the tile's start,
/// run_key(j, i) its key i.
template <class K, class RunKey>
SLUICE_HOST_DEVICE bool repeats_key_before_tile(const K& first_key, const index_t* before, int runs,
                                                RunKey run_key) {
  bool repeats = false;
  for (int j = 0; j < runs; ++j) repeats = repeats || (before[j] > 0 && run_key(j, before[j] - 1) == first_key);
  return repeats;
}

}  // namespace sluice::detail::lsm
