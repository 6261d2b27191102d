// sluice/detail/lsm/plan.hpp: the GPU LSM's index arithmetic (Ashkiani §4.3.2, §4.4.1, §4.4.5): which
// levels are full after r batches, level sizes, how a batch of any size splits into whole units of b and
// a partial level-0 buffer, which buffer each merge of a carry writes, where a sorted array's slices go
// when it is redistributed into levels, the count/range candidate layout, the validation rules and the
// options' checks. Pure functions, host-tested exhaustively (tests/host/lsm_plan_test.cpp).
//
// Levels (§4.3.2): level i holds b·2^i elements, full or empty; with r resident units the full levels
// are the set bits of r, and inserting one unit is r + 1 with carries. Beside the levels a partial
// buffer P holds fewer than b elements, the newest of all (not in the seed: it replaces padding a short
// batch with copies, docs/lsm.md "partial batches").
#pragma once

#include <sluice/core/config.hpp>

#include <cuda/std/cstdint>

namespace sluice::detail::lsm {

using index_t = cuda::std::uint64_t;

/// The most levels an LSM may have (b·2^40 elements is far past any device's memory).
inline constexpr int max_levels = 40;
/// The sorted runs a query searches: P and every level.
inline constexpr int max_runs = max_levels + 1;

/// Status of an element, kept beside its value (not in a key bit as in §4.4.1, so every key bit is usable).
inline constexpr cuda::std::uint32_t tombstone = 0;
inline constexpr cuda::std::uint32_t regular = 1;

/// The number of bits needed to write x (0 for 0).
SLUICE_HOST_DEVICE constexpr int bit_width(index_t x) {
  int w = 0;
  while (x != 0) {
    ++w;
    x >>= 1;
  }
  return w;
}

/// The count of trailing one bits of r: ffz(r), the first empty level, where inserting a unit into r
/// resident units stops carrying (§4.5.2: T_ins(r) = T_sort + (2^ffz(r) − 1)·T_merge).
SLUICE_HOST_DEVICE constexpr int first_empty_level(index_t r) {
  int i = 0;
  while (i < 64 && ((r >> i) & 1u) != 0) ++i;
  return i;
}

/// Level i is full when bit i of r is set.
SLUICE_HOST_DEVICE constexpr bool level_full(index_t r, int level) { return level < 64 && ((r >> level) & 1u) != 0; }

/// Elements of level i: b·2^i.
SLUICE_HOST_DEVICE constexpr index_t level_size(index_t b, int level) { return b << level; }

/// Levels for at least `capacity` resident elements in units of b: the smallest L with b·(2^L − 1) ≥
/// capacity, at least 1.
SLUICE_HOST_DEVICE constexpr int levels_for(index_t capacity, index_t b) {
  const index_t units = (capacity + b - 1) / b;
  const int levels = bit_width(units);
  return levels < 1 ? 1 : levels;
}

/// The most units L levels hold: 2^L − 1 (every level full).
SLUICE_HOST_DEVICE constexpr index_t max_units(int levels) { return (index_t{1} << levels) - 1; }

/// The most elements an LSM of L levels holds, stale ones and tombstones included: the levels and a
/// partial buffer of b − 1.
SLUICE_HOST_DEVICE constexpr index_t max_elements(index_t b, int levels) { return b * max_units(levels) + (b - 1); }

/// Whether `units` more units fit into L levels holding r.
SLUICE_HOST_DEVICE constexpr bool units_fit(index_t r, index_t units, int levels) {
  return units <= max_units(levels) && r <= max_units(levels) - units;
}

/// The highest level a carry reaches while r grows to r + units (units ≥ 1): the largest ffz(t) over t
/// in [r, r + units), which is the highest bit where r and r + units differ (a multiple of 2^h lies in
/// (r, r + units] exactly when h is at most that bit).
SLUICE_HOST_DEVICE constexpr int largest_carry(index_t r, index_t units) { return bit_width(r ^ (r + units)) - 1; }

/// One slice of a batch: elements [first, first + count).
struct slice {
  index_t first = 0;
  index_t count = 0;
  friend constexpr bool operator==(const slice&, const slice&) = default;
};

/// How a batch of m elements joins an LSM whose partial buffer holds p < b (§4.4.1's padding replaced):
/// the elements, in batch order after P's, are cut into whole units of b, the rest staying in P.
///   units      whole units the call completes: ⌊(p + m) / b⌋
///   unit(u)    the batch's elements of unit u: unit 0 takes b − p of them (after P's p), later ones b
///   tail       the rest, newer than every unit: merged into P when no unit completes, else P's new content
///   new_p      P's size afterwards: (p + m) mod b
struct batch_split {
  index_t b = 1;
  index_t p = 0;
  index_t m = 0;

  [[nodiscard]] SLUICE_HOST_DEVICE constexpr index_t units() const { return (p + m) / b; }
  [[nodiscard]] SLUICE_HOST_DEVICE constexpr index_t new_p() const { return (p + m) % b; }
  [[nodiscard]] SLUICE_HOST_DEVICE constexpr slice unit(index_t u) const {
    return u == 0 ? slice{0, b - p} : slice{b - p + (u - 1) * b, b};
  }
  [[nodiscard]] SLUICE_HOST_DEVICE constexpr slice tail() const {
    const index_t first = units() == 0 ? 0 : b - p + (units() - 1) * b;
    return {first, m - first};
  }
  /// Whether the tail is merged into P's old content (no unit completed) or replaces it.
  [[nodiscard]] SLUICE_HOST_DEVICE constexpr bool tail_joins_p() const { return units() == 0; }
};

/// Where the sorted unit is written before its carry: straight into level 0 when level 0 is empty
/// (ffz(r) = 0, no merge), else into the staging buffer.
SLUICE_HOST_DEVICE constexpr bool unit_goes_to_level0(index_t r) { return first_empty_level(r) == 0; }

/// A carry into level k merges the unit with levels 0 … k−1 (newer first, §4.4.1). Merge step i (0 ≤ i <
/// k) writes b·2^(i+1) elements: into level k's storage when k − 1 − i is even (so the last step, i =
/// k − 1, lands there), else into the temporary; step i reads step i − 1's output (step 0: the unit), so
/// no step writes the buffer it reads.
SLUICE_HOST_DEVICE constexpr bool step_writes_level(int k, int step) { return ((k - 1 - step) % 2) == 0; }

/// Elements of the temporary a carry into level k needs: the largest step writing it is k − 2.
SLUICE_HOST_DEVICE constexpr index_t carry_temp_size(index_t b, int k) { return k >= 2 ? b << (k - 1) : 0; }

/// Outputs of the largest merge of an update whose deepest carry reaches level `carry` (0 when no unit
/// completes): carry step i writes b·2^(i+1) ≤ b·2^carry, unit 0's merge with P writes b, the tail's
/// merge with P fewer than b. The update buffers' merge splits are sized by it.
SLUICE_HOST_DEVICE constexpr index_t largest_merge(index_t b, int carry) { return level_size(b, carry); }

/// Redistribution of n sorted elements (bulk build, cleanup; §4.4.5 step 5 without placebos): P takes
/// the first n mod b, then each full level of r = ⌊n / b⌋ the next b·2^i, smallest level first.
/// Smaller keys go to newer runs; an equal-key run cut by a boundary keeps its newest copies (the first
/// ones) in the newer run, so the order of a key's copies over the runs is kept.
SLUICE_HOST_DEVICE constexpr slice redistributed_p(index_t n, index_t b) { return {0, n % b}; }
SLUICE_HOST_DEVICE constexpr slice redistributed_level(index_t n, index_t b, int level) {
  const index_t r = n / b;
  if (!level_full(r, level)) return {0, 0};
  const index_t below = r & ((index_t{1} << level) - 1);  // units in the full levels under `level`
  return {n % b + below * b, level_size(b, level)};
}

/// Count/range candidates (§4.4.3 step 1): query q's bound from run j sits at q·runs + j, so that one
/// scan gives every (query, run) its place, queries in order and each query's runs newest first.
SLUICE_HOST_DEVICE constexpr index_t candidate_slot(index_t q, index_t runs, index_t j) { return q * runs + j; }

/// Candidates of one (query, run): upper_bound(k2) − lower_bound(k1), none when k1 > k2 (documented:
/// an empty result).
SLUICE_HOST_DEVICE constexpr index_t candidate_count(bool k1_after_k2, index_t lower, index_t upper) {
  return k1_after_k2 || upper < lower ? 0 : upper - lower;
}

/// §4.4.3 step 5 (and cleanup's marking, §4.4.5 step 2): after a stable sort by key of runs laid out
/// newest first, a key's copies are adjacent and newest first, so an element is live exactly when it
/// opens its key's run (the first of its segment, or a key unlike the previous element's) and is not a
/// tombstone.
SLUICE_HOST_DEVICE constexpr bool live_candidate(bool first_of_segment, bool same_key_as_previous, cuda::std::uint32_t status) {
  return status == regular && (first_of_segment || !same_key_as_previous);
}

/// COUNT read in place (no gather, no sort): a candidate of a run is live exactly when no newer run's
/// candidates hold its key, it opens its key's copies in its own run (not the same key as the previous
/// candidate there), and it is not a tombstone: live_candidate's rule on the merged order, unbuilt.
SLUICE_HOST_DEVICE constexpr bool live_in_place(bool key_in_newer_run, bool same_key_as_previous,
                                                cuda::std::uint32_t status) {
  return status == regular && !key_in_newer_run && !same_key_as_previous;
}

/// COUNT's queries a warp: enough warps to fill the device's resident warps once, then up to 32 queries
/// a warp, whose candidates share its lanes (a query of few candidates would leave most lanes idle).
/// A power of two.
SLUICE_HOST_DEVICE constexpr int count_queries_per_warp(index_t queries, index_t resident_warps) {
  int per_warp = 1;
  while (per_warp < 32 && queries / (2 * static_cast<index_t>(per_warp)) >= resident_warps) per_warp *= 2;
  return per_warp;
}

/// The change of the live-key count when a batch's newest copy of a key lands: +1 for a key that becomes
/// live, −1 for one that dies, 0 otherwise (the automatic cleanup policy's bookkeeping).
SLUICE_HOST_DEVICE constexpr int live_delta(bool was_live, cuda::std::uint32_t new_status) {
  return (new_status == regular ? 1 : 0) - (was_live ? 1 : 0);
}

/// The automatic cleanup policy (off when fraction ≤ 0): clean when the stale elements (resident − live)
/// pass `fraction` of the resident ones.
SLUICE_HOST_DEVICE constexpr bool should_cleanup(double fraction, index_t resident, index_t live) {
  return fraction > 0 && resident > live && static_cast<double>(resident - live) > fraction * static_cast<double>(resident);
}

/// The options' checks: the name of the first bad option, or nullptr.
SLUICE_HOST_DEVICE constexpr const char* bad_option(index_t batch_size, index_t capacity, double stale_fraction) {
  if (batch_size == 0 || batch_size > (index_t{1} << 40)) return "options.batch_size";
  if (capacity == 0 || capacity > (index_t{1} << 50)) return "options.capacity";
  if (levels_for(capacity, batch_size) > max_levels) return "options.capacity";
  if (!(stale_fraction >= 0 && stale_fraction < 1)) return "options.cleanup_stale_fraction";
  return nullptr;
}

}  // namespace sluice::detail::lsm
