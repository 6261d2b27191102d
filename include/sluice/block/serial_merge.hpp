// sluice/block/serial_merge.hpp: the per-thread pieces of the pairwise merge sort (ModernGPU; Karsin
// §7.1): the odd-even transposition network over a thread's E keys in registers, and the serial merge of
// a thread's pieces of two sorted lists in a shared-memory tile. Host and device: the bank-conflict model
// (detail/merge_sort/bank_model.hpp) runs this very code on the host to count the reads.
//
// Both are stable and safe under any comparator: the network swaps neighbours only when
// less(right, left), so it permutes; the merge takes a key from b only while b has keys left and from a
// only while a has, and every read lands in the tile (positions clamped to `last`), so it writes each
// key of its pieces once whatever `less` answers. Network: E passes of ⌊E/2⌋ compare-swaps; merge: one
// comparison and one shared read per step, E steps (plus two reads to start).
#pragma once

#include <sluice/core/config.hpp>
#include <sluice/core/values.hpp>

// Unrolled on the device (the keys stay in registers); host compilers do not see it.
#ifndef SLUICE_UNROLL
#if defined(__CUDA_ARCH__)
#define SLUICE_UNROLL _Pragma("unroll")
#else
#define SLUICE_UNROLL
#endif
#endif

namespace sluice::block {

/// Sorts keys[0, valid) stably by `less`, moving values[i] with keys[i] (V = detail::no_values: keys
/// only); keys[valid, Items) stay where they are.
template <int Items, class K, class V, class Less>
SLUICE_HOST_DEVICE SLUICE_FORCEINLINE void odd_even_sort(K (&keys)[Items], V (&values)[Items], int valid, Less less) {
SLUICE_UNROLL
  for (int pass = 0; pass < Items; ++pass) {
SLUICE_UNROLL
    for (int i = pass & 1; i + 1 < Items; i += 2) {
      if (i + 1 < valid && less(keys[i + 1], keys[i])) {
        const K key = keys[i];
        keys[i] = keys[i + 1];
        keys[i + 1] = key;
        if constexpr (sluice::detail::has_values<V>) {
          const V value = values[i];
          values[i] = values[i + 1];
          values[i + 1] = value;
        }
      }
    }
  }
}

/// A thread's pieces a[a, a_end) and b[b, b_end) of a merge, as positions in the shared tile.
struct merge_cursor {
  int a;
  int a_end;
  int b;
  int b_end;

  /// Whether the next output comes from b: stable (ties from a), and only from a side with keys left.
  /// Evaluated without short-circuits (both keys are in-tile reads): a select per output, no branch.
  template <class K, class Less>
  [[nodiscard]] SLUICE_HOST_DEVICE SLUICE_FORCEINLINE bool takes_b(const K& a_key, const K& b_key, Less less) const {
    const bool a_done = a >= a_end;
    const bool b_first = less(b_key, a_key);
    return (b < b_end) & (a_done | b_first);
  }

  /// Consumes the head of the chosen side; the tile position to read next (its new head, clamped to the
  /// tile's last position: a value read past a piece's end is never taken).
  SLUICE_HOST_DEVICE SLUICE_FORCEINLINE int advance(bool from_b, int last) {
    const int next = from_b ? ++b : ++a;
    return next < last ? next : last;
  }
};

/// Merges the cursor's pieces into keys[0, count), count = the pieces' total (≤ Items), index[k] being
/// the tile position keys[k] came from; keys[count, Items) and index[count, Items) are unspecified. All
/// Items steps run unguarded, as CUB's SerialMerge does (a guard per step costs a branch per output): past
/// count both sides are spent, so each step takes a and reads its clamped, in-tile position. `tile` is
/// the shared tile (anything indexable by int: the host model passes a recorder), `last` its last valid
/// position.
template <int Items, class Tile, class K, class Less>
SLUICE_HOST_DEVICE SLUICE_FORCEINLINE void serial_merge(Tile tile, int last, merge_cursor cursor, K (&keys)[Items],
                                                        int (&index)[Items], Less less) {
  K a_key = tile[cursor.a < last ? cursor.a : last];
  K b_key = tile[cursor.b < last ? cursor.b : last];
SLUICE_UNROLL
  for (int k = 0; k < Items; ++k) {
    const bool from_b = cursor.takes_b(a_key, b_key, less);
    keys[k] = from_b ? b_key : a_key;
    index[k] = from_b ? cursor.b : cursor.a;
    const K next = tile[cursor.advance(from_b, last)];
    b_key = from_b ? next : b_key;
    a_key = from_b ? a_key : next;
  }
}

}  // namespace sluice::block
