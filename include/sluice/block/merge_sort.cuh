// sluice/block/merge_sort.cuh: the block-wide pieces of the pairwise merge sort (ModernGPU; Karsin §7.1):
// a tile of NT·E keys (and values) in shared memory, sorted by each thread's odd-even network in
// registers and log2(NT) merge rounds, and the merge of a tile's two sorted pieces that every global
// round runs.
//
// A merge of a set of `coop` threads: each thread finds the merge-path split of its first output
// (binary search in shared memory, core/merge_path.hpp), the splits are exchanged through shared memory
// so that each thread's pieces end where its neighbour's begin, and each thread merges its E outputs
// serially (block/serial_merge.hpp). Under a comparator that is not a strict weak order neighbouring
// splits may disagree; the barrier after the merge ORs "my pieces were inconsistent" over the threads
// (__syncthreads_or), and only then the set's first thread repairs the splits (core/merge_splits.hpp)
// and the set merges again, so the block writes a permutation of its tile whatever the comparator says.
// Shared traffic per round: E·log(coop·E) reads for the search and E + 2 for the merge per thread.
//
// The threads that share a tile are a *group*: the whole block (whole_block, __syncthreads), or Width
// consecutive lanes of a warp (lane_group, __syncwarp over their lanes), each group with its own tile
// in the block's shared memory: segmented_sort sorts a small segment per lane group, as CUB's
// WarpMergeSort does (docs/merge_sort.md, "segmented_sort").
#pragma once

#include <sluice/block/serial_merge.hpp>
#include <sluice/core/merge_path.hpp>
#include <sluice/core/merge_splits.hpp>
#include <sluice/core/values.hpp>
#include <sluice/warp/shuffle.cuh>

#include <cstddef>

namespace sluice::block {

/// Every thread of a block of Threads threads shares one tile.
template <int Threads>
struct whole_block {
  static constexpr int size = Threads;
  [[nodiscard]] __device__ static int rank() { return static_cast<int>(threadIdx.x); }
  __device__ static void sync() { __syncthreads(); }
  /// A barrier that returns whether `predicate` held in any thread of the group.
  [[nodiscard]] __device__ static bool sync_or(bool predicate) { return __syncthreads_or(predicate) != 0; }
};

/// Width consecutive lanes of a warp (Width a power of two ≤ 32) share one tile; the warp's other
/// lanes form other groups with other tiles, which may run a different number of rounds or segments.
template <int Width>
struct lane_group {
  static_assert(Width >= 1 && Width <= warp::size && (Width & (Width - 1)) == 0, "a power of two up to 32 lanes");
  static constexpr int size = Width;
  [[nodiscard]] __device__ static int rank() { return warp::lane_id() % Width; }
  /// The lanes of the calling thread's group.
  [[nodiscard]] __device__ static unsigned mask() {
    if constexpr (Width == warp::size) return warp::full_mask;
    else return ((1u << Width) - 1u) << (warp::lane_id() / Width * Width);
  }
  __device__ static void sync() { __syncwarp(mask()); }
  /// __any_sync orders no memory, so the group's shared accesses are ordered by __syncwarp first.
  [[nodiscard]] __device__ static bool sync_or(bool predicate) {
    __syncwarp(mask());
    return __any_sync(mask(), predicate) != 0;
  }
};

/// Bytes of shared memory the pieces below take for NT threads of E keys (and values): keys, values
/// (none for detail::no_values) and one split per thread, each 16-byte aligned.
template <class K, class V>
[[nodiscard]] constexpr std::size_t merge_sort_storage_bytes(int threads, int items) {
  const auto tile = static_cast<std::size_t>(threads) * static_cast<std::size_t>(items);
  const auto round_up = [](std::size_t bytes) { return (bytes + 15) / 16 * 16; };
  const std::size_t values = sluice::detail::has_values<V> ? round_up(tile * sizeof(V)) : 0;
  return round_up(tile * sizeof(K)) + values + round_up(static_cast<std::size_t>(threads) * sizeof(int));
}

/// The tile's arrays in a block's shared memory (laid out as merge_sort_storage_bytes counts them).
template <class K, class V>
struct merge_sort_storage {
  K* keys;
  V* values;  ///< null for detail::no_values
  int* splits;

  __device__ static merge_sort_storage carve(unsigned char* shared, int threads, int items) {
    const auto tile = static_cast<std::size_t>(threads) * static_cast<std::size_t>(items);
    const auto round_up = [](std::size_t bytes) { return (bytes + 15) / 16 * 16; };
    merge_sort_storage s{};
    s.keys = reinterpret_cast<K*>(shared);
    shared += round_up(tile * sizeof(K));
    if constexpr (sluice::detail::has_values<V>) {
      s.values = reinterpret_cast<V*>(shared);
      shared += round_up(tile * sizeof(V));
    }
    s.splits = reinterpret_cast<int*>(shared);
    return s;
  }
};

/// Thread t's keys (and values) to tile positions t·E … t·E + E − 1, those below count (blocked: with E
/// odd a warp's accesses of four-byte keys hit 32 distinct banks); t is the thread's rank in its group.
template <class Group, int Items, class K, class V>
__device__ SLUICE_FORCEINLINE void registers_to_shared(Group group, const merge_sort_storage<K, V>& s, int count,
                                                       const K (&keys)[Items], const V (&values)[Items]) {
  const int first = group.rank() * Items;
#pragma unroll
  for (int k = 0; k < Items; ++k) {
    if (first + k < count) {
      s.keys[first + k] = keys[k];
      if constexpr (sluice::detail::has_values<V>) s.values[first + k] = values[k];
    }
  }
}

/// The inverse of registers_to_shared; positions at or past count read the tile's last key (never used).
template <class Group, int Items, class K, class V>
__device__ SLUICE_FORCEINLINE void shared_to_registers(Group group, const merge_sort_storage<K, V>& s, int count,
                                                       K (&keys)[Items], V (&values)[Items]) {
  const int first = group.rank() * Items;
#pragma unroll
  for (int k = 0; k < Items; ++k) {
    const int i = first + k < count ? first + k : count - 1;
    keys[k] = s.keys[i];
    if constexpr (sluice::detail::has_values<V>) values[k] = s.values[i];
  }
}

/// Merges, in each set of `coop` consecutive threads of the group, the tile pieces a = [start, start +
/// a_count) and b = [start + a_count, start + a_count + b_count) (start, a_count, b_count: the calling
/// thread's set's) into keys (and values), thread `rank` of the set taking outputs [rank·E, rank·E + E)
/// of its set. Every thread of the group calls it; it ends with a barrier after the last shared read, so
/// the caller may overwrite the tile. `last` is the tile's last valid position.
template <class Group, int Items, class K, class V, class Less>
__device__ void merge_in_shared(Group group, const merge_sort_storage<K, V>& s, int last, int start, int a_count,
                                int b_count, int rank, int coop, K (&keys)[Items], V (&values)[Items], Less less) {
  const int total = a_count + b_count;
  const int diagonal = rank * Items < total ? rank * Items : total;
  const int diagonal_end = diagonal + Items < total ? diagonal + Items : total;
  const K* a = s.keys + start;
  const int me = group.rank();
  s.splits[me] = sluice::detail::merge_path(a, a_count, a + a_count, b_count, diagonal, less);
  group.sync();
  const auto cursor = [&] {
    const int split = s.splits[me];
    const int split_end = rank + 1 < coop ? s.splits[me + 1] : a_count;
    return merge_cursor{start + split, start + split_end, start + a_count + diagonal - split,
                        start + a_count + diagonal_end - split_end};
  };
  int index[Items];
  merge_cursor mine = cursor();
  const bool consistent = mine.a <= mine.a_end && mine.b <= mine.b_end;  // core/merge_splits.hpp's condition
  serial_merge(s.keys, last, mine, keys, index, less);
  if (group.sync_or(!consistent)) {  // only under a comparator that is not a strict weak order
    if (rank == 0)
      sluice::detail::repair_splits(s.splits + me, coop, a_count, [&](long long k) {
        return k * Items < total ? k * Items : static_cast<long long>(total);
      });
    group.sync();
    serial_merge(s.keys, last, cursor(), keys, index, less);
    group.sync();
  }
  if constexpr (sluice::detail::has_values<V>) {
#pragma unroll
    for (int k = 0; k < Items; ++k)
      if (k < diagonal_end - diagonal) values[k] = s.values[index[k]];
    group.sync();
  }
}

/// Sorts the group's tile of `count` ≥ 1 keys (and values) already in shared memory, stably by `less`:
/// each thread's E by the odd-even network, then rounds of merges of 2, 4, … group.size threads. The
/// result is in registers, the thread of rank t holding sorted positions t·E … t·E + E − 1 (those below
/// count).
template <class Group, int Items, class K, class V, class Less>
__device__ void sort_tile(Group group, const merge_sort_storage<K, V>& s, int count, K (&keys)[Items],
                          V (&values)[Items], Less less) {
  shared_to_registers(group, s, count, keys, values);
  const int me = group.rank();
  const int first = me * Items;
  const int valid = count - first < 0 ? 0 : count - first;
  odd_even_sort(keys, values, valid, less);
#pragma unroll 1
  for (int coop = 2; coop <= Group::size; coop *= 2) {
    group.sync();  // the previous round's (or the load's) readers are done
    registers_to_shared(group, s, count, keys, values);
    group.sync();
    const int rank = me % coop;
    const int start = (me - rank) * Items;
    const int half = coop / 2 * Items;
    const int left = count - start;
    const int a_count = left < 0 ? 0 : left < half ? left : half;
    const int b_rest = left - a_count;
    const int b_count = b_rest < 0 ? 0 : b_rest < half ? b_rest : half;
    merge_in_shared(group, s, count - 1, start, a_count, b_count, rank, coop, keys, values, less);
  }
}

}  // namespace sluice::block
