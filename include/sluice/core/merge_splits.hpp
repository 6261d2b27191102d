// sluice/core/merge_splits.hpp: merge-path splits that stay a partition of both inputs whatever
// the comparator answers (host and device; tests/host/core_merge_splits_test.cpp).
//
// A merge is cut into workers (threads of a block, tiles of a round): worker k writes outputs
// [d_k, d_{k+1}) and takes a[s_k, s_{k+1}) and b[d_k − s_k, d_{k+1} − s_{k+1}), where s_k is the merge
// path split of diagonal d_k (core/merge_path.hpp). Under a strict weak order the splits are monotone:
// 0 ≤ s_{k+1} − s_k ≤ d_{k+1} − d_k, so the pieces tile both inputs exactly. Under a comparator that is
// not one, each binary search still lands in [max(0, d − nb), min(d, na)], but two neighbours may
// disagree, and a worker would then read a piece twice or never. repair_splits turns any such sequence
// into a monotone one (and leaves a monotone one unchanged): s'_k = max(p_k, s'_{k+1} − (d_{k+1} − d_k))
// with p_k = max(s_0 … s_k), s'_m = s_m. Then s' is non-decreasing (p is, and s'_{k+1} ≥ p_{k+1}),
// d − s' is non-decreasing (by the recurrence), and s'_k ∈ [s_k, min(d_k, na)], so every worker's
// pieces lie inside the inputs and together hold each input element once: the merge writes a
// permutation of its inputs. The repair is O(m) and sequential; the kernels run it only when a worker
// found its pieces inconsistent (never under a strict weak order).
#pragma once

#include <sluice/core/config.hpp>

#include <type_traits>

namespace sluice::detail {

/// Whether a worker's pieces are consistent: it takes 0 … (d_end − d) elements of a, the rest of b.
SLUICE_HOST_DEVICE constexpr bool consistent_split(long long split, long long next_split, long long diagonal,
                                                   long long next_diagonal) {
  return next_split >= split && next_diagonal - next_split >= diagonal - split;
}

/// Repairs splits s[0 … m−1] at diagonals diagonal(k) (non-decreasing, diagonal(0) = 0 so s[0] = 0)
/// against the end s_m = end_split at diagonal(m): afterwards consistent_split holds for every
/// neighbouring pair, s_m included. Splits is anything indexable with read-write elements (a pointer to
/// shared or global memory, volatile where other blocks wrote it).
template <class Splits, class Diagonal>
SLUICE_HOST_DEVICE void repair_splits(Splits s, long long m, long long end_split, Diagonal diagonal) {
  using index = std::remove_cvref_t<decltype(s[0])>;
  for (long long k = 1; k < m; ++k) {  // p_k: the running maximum
    const index previous = s[k - 1];
    const index current = s[k];
    if (current < previous) s[k] = previous;
  }
  auto next = static_cast<index>(end_split);
  for (long long k = m - 1; k >= 0; --k) {  // s'_k = max(p_k, s'_{k+1} − (d_{k+1} − d_k))
    const auto floor = static_cast<index>(next - static_cast<index>(diagonal(k + 1) - diagonal(k)));
    const index current = s[k];
    next = current < floor ? floor : current;
    s[k] = next;
  }
}

}  // namespace sluice::detail
