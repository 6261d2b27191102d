// sluice/detail/search/merge_search.hpp: the index arithmetic of the sorted-queries search (merge path,
// Green, McColl & Bader; ModernGPU's sorted search), pure host + device so that the host tests run the
// kernel's tiles and threads on every size.
//
// Merging the n keys (a) with the Q sorted queries (b) so that a key comes first exactly when the bound's
// predicate holds for it (key < q for lower_bound, key ≤ q for upper_bound and predecessor), the number of
// keys merged before a query is its answer. A tile of the merge is cut from both inputs by two merge
// path searches; each thread then cuts its E items out of the tile the same way and walks them.
// Unsorted inputs make the cuts inconsistent: tile_split clamps them so that every index stays in range
// (the answers are then unspecified, and some queries may not be reached).
#pragma once

#include <sluice/core/config.hpp>
#include <sluice/core/merge_path.hpp>
#include <sluice/detail/search/layouts.hpp>

namespace sluice::detail::search {

/// The part of a and b a tile [d_begin, d_end) of the merge covers.
struct tile_split {
  index_t a_begin, a_end, b_begin, b_end;
};

/// The tile's split from the two merge path results (a_begin at d_begin, a_end at d_end), with a_end
/// clamped into [max(a_begin, d_end − nb), min(a_begin + d_end − d_begin, na)]: a no-op for sorted
/// inputs, and for any inputs the tile's pieces lie inside a and b and add up to d_end − d_begin.
SLUICE_HOST_DEVICE constexpr tile_split make_tile_split(index_t a_begin, index_t a_end, index_t d_begin, index_t d_end,
                                                        index_t na, index_t nb) {
  const index_t low = a_begin > d_end - min_index(d_end, nb) ? a_begin : d_end - min_index(d_end, nb);
  const index_t high = min_index(a_begin + (d_end - d_begin), na);
  a_end = a_end < low ? low : a_end > high ? high : a_end;
  return {a_begin, a_end, d_begin - a_begin, d_end - a_end};
}

/// One thread's walk over the merged items [diagonal, diagonal + items) of a (na) and b (nb): emit(j, i)
/// for every query b[j] met, i being the number of a's elements merged before it. key_first(key, query)
/// is the bound's predicate.
template <class AIt, class BIt, class KeyFirst, class Emit>
SLUICE_HOST_DEVICE SLUICE_FORCEINLINE void walk_merge(AIt a, index_t na, BIt b, index_t nb, index_t diagonal,
                                                      index_t items, KeyFirst key_first, Emit emit) {
  // merge_path takes a first unless comes_first(b, a): a query comes first unless its key does.
  auto query_first = [&](const auto& query, const auto& key) { return !key_first(key, query); };
  index_t i = merge_path(a, na, b, nb, diagonal, query_first);
  index_t j = diagonal - i;
  for (index_t step = 0; step < items && j < nb; ++step) {
    if (i < na && key_first(a[i], b[j])) {
      ++i;
    } else {
      emit(j, i);
      ++j;
    }
  }
}

}  // namespace sluice::detail::search
