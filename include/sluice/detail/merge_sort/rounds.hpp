// sluice/detail/merge_sort/rounds.hpp: the index arithmetic of the pairwise merge rounds (Karsin §7.1),
// shared by merge_sort's pairwise strategy (pairwise.cuh) and segmented_sort's large segments
// (segmented.cuh). Plain C++, host and device: tests/host/merge_sort_segmented_plan_test.cpp checks it.
//
// After the block sort, n keys are runs of `tile` sorted keys; round k merges runs of width tile·2^k
// pairwise, so ⌈log2(tiles)⌉ rounds leave one run. An output position's pair is the aligned block of
// 2·width outputs holding it: a = its first `width` keys, b = the rest (the last pair may be short or
// have no b).
#pragma once

#include <sluice/core/config.hpp>

namespace sluice::detail::merge_sort {

using index_t = long long;  // positions in the arrays: n may pass 2^31

/// The pair of one merge: outputs [start, start + na + nb), a = keys [start, start + na), b = the next nb.
struct pair_span {
  index_t start;
  index_t na;
  index_t nb;
};

/// The pair holding output `position` (0 ≤ position < n) when n keys are runs of `width` merged pairwise.
[[nodiscard]] SLUICE_HOST_DEVICE constexpr pair_span pair_of(index_t n, index_t width, index_t position) {
  const index_t start = position / (2 * width) * (2 * width);
  const index_t na = n - start < width ? n - start : width;
  const index_t rest = n - start - na;
  return {start, na, rest < width ? rest : width};
}

/// Merge rounds that leave one run of `tiles` sorted tiles: ⌈log2(tiles)⌉ (0 for one tile or none).
[[nodiscard]] SLUICE_HOST_DEVICE constexpr int rounds_for(index_t tiles) {
  int rounds = 0;
  while ((index_t{1} << rounds) < tiles) ++rounds;
  return rounds;
}

/// Whether the block sort (remaining = all rounds) or a round (remaining = rounds still to run after it,
/// plus one) writes to the final output rather than the temporary: the destinations alternate so that
/// the last round lands in the output.
[[nodiscard]] SLUICE_HOST_DEVICE constexpr bool writes_output(int remaining) { return remaining % 2 == 0; }

}  // namespace sluice::detail::merge_sort
