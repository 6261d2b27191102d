// sluice/data/merge_conflicts.hpp: permutations that maximise the shared-memory bank conflicts of the
// pairwise merge sort's merges (Karsin §7.1; the seed describes the effect, this derives the input;
// docs/merge_sort.md, "Conflict-heavy inputs"). Pure index arithmetic, host and device.
//
// The merge being attacked: lists of length L are merged pairwise into lists of 2L, each thread writing
// E consecutive outputs p ∈ [tE, tE + E) of its pair and reading, at every step, the next key of the list
// it just took from (one shared-memory read per step: detail/merge_sort/bank_model.hpp). At step s thread
// t reads a[i_t + s'] or b[j_t + s''], so the bank of its address is fixed by its split i_t (or j_t) modulo
// the bank period P (32 four-byte keys per row of 32 banks) as long as it stays on one list. Random input
// gives i_t ≈ tE/2, which spreads a warp's addresses over the banks (E is odd). To pile them onto a few
// banks the splits must advance by multiples of P across a few threads: in the first half of every merge
// the outputs come from a in the first P of every G = gE outputs and from b in the other G − P
// (g = ⌊P/E⌋ + 1, the fewest threads whose outputs exceed P), so i advances by exactly P every g threads
// and threads t, t + g, t + 2g … read the same bank at the same step (a g-th of the warp on one bank: 16-way
// for E = 17, 11-way for E = 15). The second half mirrors it with a and b exchanged, which balances the
// merge: each list gives exactly L outputs.
//
// The permutation is built from the sorted order downwards: the element of rank r goes, at the top
// merge, to a or b by that pattern, at its index within that list, and so on down to the runs of E
// that each thread sorts in registers (stored there in reverse, which the sorting network then undoes).
// Evaluated upwards (input index → rank) it is a pure function of the index: O(log(N / E)) each.
//
// The pattern is exact for sizes N = E·2^k (the sort's lists then pair up evenly at every level); other
// sizes take the first n elements of the permutation of the next such N (distinct values in [0, N)).
#pragma once

#include <sluice/core/config.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace sluice::data {

struct merge_conflict_shape {
  int items_per_thread = 17;  ///< E of the sort being attacked
  int bank_period = 32;       ///< keys per row of banks: 128 bytes / max(sizeof(key), 4)
};

/// One merge level of the pattern: lists of `length` merged pairwise.
struct merge_conflict_level {
  std::uint64_t length;  ///< L, each list's length
  std::uint64_t period;  ///< P
  std::uint64_t group;   ///< G = gE > P

  /// Outputs of a among the first x of the first half: the first P of every G.
  [[nodiscard]] SLUICE_HOST_DEVICE constexpr std::uint64_t heavy(std::uint64_t x) const {
    const std::uint64_t within = x % group;
    return period * (x / group) + (within < period ? within : period);
  }

  /// Whether output p ∈ [0, 2L) of a pair is taken from a.
  [[nodiscard]] SLUICE_HOST_DEVICE constexpr bool from_a(std::uint64_t p) const {
    return p < length ? p % group < period : (p - length) % group >= period;
  }

  /// Where the k-th element of a (k < L) lands in the merged pair.
  [[nodiscard]] SLUICE_HOST_DEVICE constexpr std::uint64_t place_of_a(std::uint64_t k) const {
    const std::uint64_t first_half = heavy(length);
    if (k < first_half) return (k / period) * group + k % period;
    k -= first_half;
    return length + (k / (group - period)) * group + period + k % (group - period);
  }

  /// Where the k-th element of b (k < L) lands in the merged pair (the mirror of place_of_a).
  [[nodiscard]] SLUICE_HOST_DEVICE constexpr std::uint64_t place_of_b(std::uint64_t k) const {
    const std::uint64_t first_half = length - heavy(length);
    if (k < first_half) return (k / (group - period)) * group + period + k % (group - period);
    k -= first_half;
    return length + (k / period) * group + k % period;
  }
};

/// The size the pattern is built for: the smallest E·2^k ≥ n.
[[nodiscard]] SLUICE_HOST_DEVICE constexpr std::uint64_t merge_conflict_size(std::uint64_t n,
                                                                             merge_conflict_shape shape) {
  std::uint64_t size = static_cast<std::uint64_t>(shape.items_per_thread);
  while (size < n) size *= 2;
  return size;
}

/// The rank in sorted order of input element `index` of the conflict-heavy permutation of `size`
/// elements (size from merge_conflict_size).
[[nodiscard]] SLUICE_HOST_DEVICE constexpr std::uint64_t merge_conflict_rank(std::uint64_t index, std::uint64_t size,
                                                                             merge_conflict_shape shape) {
  const auto e = static_cast<std::uint64_t>(shape.items_per_thread);
  const auto period = static_cast<std::uint64_t>(shape.bank_period);
  const std::uint64_t group = (period / e + 1) * e;
  std::uint64_t position = index - index % e + (e - 1 - index % e);  // each thread's run stored reversed
  for (std::uint64_t length = e; length < size; length *= 2) {
    const merge_conflict_level level{length, period, group};
    const std::uint64_t pair_start = position / (2 * length) * (2 * length);
    const std::uint64_t offset = position - pair_start;
    position = pair_start + (offset < length ? level.place_of_a(offset) : level.place_of_b(offset - length));
  }
  return position;
}

/// Element i of the conflict-heavy input of n keys of type T: its rank as a T (integers: the rank
/// itself, wrapping where T is narrower; floating point: rank / size, exact). Same bits as
/// generate_merge_conflicts (data/merge_conflicts.cuh) on a device.
template <class T>
[[nodiscard]] SLUICE_HOST_DEVICE T merge_conflict_element(std::uint64_t index, std::uint64_t size,
                                                          merge_conflict_shape shape) {
  const std::uint64_t rank = merge_conflict_rank(index, size, shape);
  if constexpr (static_cast<T>(0.5) != static_cast<T>(0)) return static_cast<T>(rank) / static_cast<T>(size);
  else return static_cast<T>(rank);
}

/// The conflict-heavy input of n keys on the host.
template <class T>
[[nodiscard]] std::vector<T> generate_merge_conflicts_host(std::size_t n, merge_conflict_shape shape) {
  const std::uint64_t size = merge_conflict_size(n, shape);
  std::vector<T> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = merge_conflict_element<T>(i, size, shape);
  return out;
}

}  // namespace sluice::data
