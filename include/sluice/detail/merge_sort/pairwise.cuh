// sluice/detail/merge_sort/pairwise.cuh: the pairwise merge sort (ModernGPU 2.10 and CUB's
// DeviceMergeSort; Karsin §7.1) and the merge of two sorted arrays.
//
//   block sort   each block sorts a tile of NT·E keys (block/merge_sort.cuh: the odd-even network in
//                registers, log2 NT merge rounds in shared memory) and writes it back (n keys read and
//                written once)
//   rounds       ⌈log2(n / tile)⌉ global rounds, each merging sorted runs pairwise: a partition kernel
//                (one merge-path binary search in global memory per tile boundary, O(log n) reads each)
//                and a merge kernel (each block loads its tile's two pieces into shared memory, each
//                thread finds its split by merge path there and merges E keys serially, the tile is
//                stored coalesced): n keys (and values) read and written once per round
// The destinations ping-pong between out and one temporary from the context's pool so that the last
// round lands in out. Values move with their keys (2·sizeof(V) bytes per element and round) rather than
// as source indices gathered at the end: for values of up to 8 bytes that costs no more per round than
// an index and saves the final random gather (docs/merge_sort.md).
//
// Comparators that are not strict weak orders: every merge-path split is clamped to its diagonal's range
// (core/merge_path.hpp); the partition kernel checks that neighbouring tiles' splits agree and, if any
// do not, its last block repairs the round's splits (core/merge_splits.hpp) before the merge kernel runs;
// within a block merge_in_shared does the same. So every round writes a permutation of its input.
#pragma once

#include <sluice/block/merge_sort.cuh>
#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/core/merge_path.hpp>
#include <sluice/core/merge_splits.hpp>
#include <sluice/core/scratch.hpp>
#include <sluice/core/values.hpp>
#include <sluice/detail/merge_sort/tuning.hpp>

#include <cuda/std/cstdint>

#include <cstddef>
#include <cstdint>

namespace sluice::detail::merge_sort {

using index_t = long long;  // positions in the arrays: n may pass 2^31

/// The two sorted runs of one merge: a = keys[0, na), b = b_keys[0, nb); the merge writes outputs
/// [start, start + na + nb) of the round's destination.
template <class K, class V>
struct run_pair {
  const K* a;
  const V* a_values;
  index_t na;
  const K* b;
  const V* b_values;
  index_t nb;
  index_t start;
};

/// A sort round's input: runs of `width` sorted keys, merged pairwise (the last pair may be short or
/// lack its b).
template <class K, class V>
struct runs_of_width {
  const K* keys;
  const V* values;
  index_t n;
  index_t width;

  [[nodiscard]] SLUICE_HOST_DEVICE run_pair<K, V> pair_at(index_t position) const {
    const index_t start = position / (2 * width) * (2 * width);
    const index_t na = n - start < width ? n - start : width;
    const index_t rest = n - start - na;
    const index_t nb = rest < width ? rest : width;
    const V* a_values = nullptr;
    if constexpr (has_values<V>) a_values = values + start;
    return {keys + start, a_values, na, keys + start + na, a_values ? a_values + na : nullptr, nb, start};
  }
};

/// merge()'s input: one pair of separate arrays.
template <class K, class V>
struct two_runs {
  run_pair<K, V> pair;
  [[nodiscard]] SLUICE_HOST_DEVICE run_pair<K, V> pair_at(index_t) const { return pair; }
};

/// The merge-path split of output position `position` within its pair.
template <class Runs, class Less>
__device__ index_t boundary_split(const Runs& runs, index_t position, Less less) {
  const auto pair = runs.pair_at(position);
  return sluice::detail::merge_path(pair.a, pair.na, pair.b, pair.nb, position - pair.start, less);
}

/// The split where tile `t` ends: the next tile's, or na where the tile ends its pair.
template <class Runs>
__device__ index_t tile_end_split(const Runs& runs, const index_t* splits, index_t t, index_t tile, index_t n) {
  const auto pair = runs.pair_at(t * tile);
  const index_t end = (t + 1) * tile < n ? (t + 1) * tile : n;
  return end >= pair.start + pair.na + pair.nb ? pair.na : splits[t + 1];
}

/// Repairs the splits of every pair of the round (only after some tile found its pieces inconsistent):
/// thread p mod blockDim of the last block takes pair p, reading the other blocks' splits through
/// volatile loads. Sequential within a pair: O(tiles) in the last round, a cost only bad comparators pay.
template <class Runs>
__device__ void repair_round(const Runs& runs, index_t* splits, index_t tiles, index_t tile) {
  index_t pair_number = 0;
  for (index_t first = 0; first < tiles; ++pair_number) {
    const auto pair = runs.pair_at(first * tile);
    const index_t length = pair.na + pair.nb;  // ≥ 1: the pair holds output first·tile
    const index_t count = (length + tile - 1) / tile;
    if (pair_number % blockDim.x == threadIdx.x)
      repair_splits(static_cast<volatile index_t*>(splits + first), count, pair.na,
                    [&](index_t k) { return k * tile < length ? k * tile : length; });
    first += count;
  }
}

/// One thread per tile boundary: splits[t] = the merge-path split of output t·tile within its pair.
/// state[0] counts finished blocks, state[1] is set where neighbouring splits disagree; the last block
/// repairs the round if so, and resets both for the next round.
template <class Runs, class Less>
__global__ void partition_kernel(Runs runs, index_t n, index_t tile, index_t tiles, index_t* splits,
                                 unsigned* state, Less less) {
  const index_t t = blockIdx.x * index_t{blockDim.x} + threadIdx.x;
  __shared__ index_t block_splits[tuning::partition_threads];
  const index_t split = t < tiles ? boundary_split(runs, t * tile, less) : 0;
  block_splits[threadIdx.x] = split;
  __syncthreads();
  bool inconsistent = false;
  if (t < tiles) {
    splits[t] = split;
    const auto pair = runs.pair_at(t * tile);
    const index_t end = (t + 1) * tile < n ? (t + 1) * tile : n;
    const bool ends_pair = end >= pair.start + pair.na + pair.nb;
    // Within a pair, the split at `end` is tile t + 1's: a neighbour's in this block, searched again
    // only by a block's last thread.
    const bool neighbour_here = threadIdx.x + 1 < blockDim.x;
    const index_t next = ends_pair        ? pair.na
                         : neighbour_here ? block_splits[threadIdx.x + 1]
                                          : boundary_split(runs, end, less);
    inconsistent = !consistent_split(split, next, t * tile - pair.start, end - pair.start);
  }
  if (__syncthreads_or(inconsistent) && threadIdx.x == 0) atomicOr(state + 1, 1u);
  __threadfence();
  __shared__ bool last;
  __syncthreads();
  if (threadIdx.x == 0) last = atomicAdd(state, 1u) == gridDim.x - 1;
  __syncthreads();
  if (!last) return;
  __threadfence();
  if (*static_cast<volatile unsigned*>(state + 1) != 0) repair_round(runs, splits, tiles, tile);
  __syncthreads();
  if (threadIdx.x == 0) {
    state[0] = 0;
    state[1] = 0;
  }
}

/// dst[0, count) = read(i) for i in [0, count), striped over the block (consecutive threads read
/// consecutive elements: coalesced). All of a thread's reads are issued before its first store, so their
/// DRAM latencies overlap (a store between them makes each read wait for the one before).
template <int Threads, int Items, class T, class Read>
__device__ SLUICE_FORCEINLINE void copy_striped(T* dst, int count, Read read) {
  T staged[Items];
  SLUICE_UNROLL
  for (int k = 0; k < Items; ++k) {
    const int i = k * Threads + static_cast<int>(threadIdx.x);
    if (i < count) staged[k] = read(i);
  }
  SLUICE_UNROLL
  for (int k = 0; k < Items; ++k) {
    const int i = k * Threads + static_cast<int>(threadIdx.x);
    if (i < count) dst[i] = staged[k];
  }
}

/// Copies `count` keys (values) of the tile's pieces a[0, a_count) and b[…] into shared memory.
template <int Threads, int Items, class K, class V>
__device__ SLUICE_FORCEINLINE void load_pieces(const block::merge_sort_storage<K, V>& s, const K* a, const V* a_values,
                                               int a_count, const K* b, const V* b_values, int count) {
  copy_striped<Threads, Items>(s.keys, count, [&](int i) { return i < a_count ? a[i] : b[i - a_count]; });
  if constexpr (has_values<V>)
    copy_striped<Threads, Items>(s.values, count,
                                 [&](int i) { return i < a_count ? a_values[i] : b_values[i - a_count]; });
}

/// dst[0, count) = src[0, count) (global ↔ shared): 16-byte vectors where both ends are 16-byte aligned
/// and count fills whole vectors (every full tile of an aligned array: NT·E·sizeof(T) is a multiple of
/// 16), else element by element. Fewer memory instructions, same sectors.
template <int Threads, int Items, class T>
__device__ SLUICE_FORCEINLINE void copy_tile(T* dst, const T* src, int count) {
  if constexpr (sizeof(T) <= 16 && 16 % sizeof(T) == 0) {
    constexpr int per_vector = 16 / static_cast<int>(sizeof(T));
    const auto address = reinterpret_cast<cuda::std::uintptr_t>(dst) | reinterpret_cast<cuda::std::uintptr_t>(src);
    if (count % per_vector == 0 && address % 16 == 0) {
      const auto* vectors = reinterpret_cast<const uint4*>(src);
      copy_striped<Threads, (Items + per_vector - 1) / per_vector>(reinterpret_cast<uint4*>(dst), count / per_vector,
                                                                   [&](int i) { return vectors[i]; });
      return;
    }
  }
  copy_striped<Threads, Items>(dst, count, [&](int i) { return src[i]; });
}

/// Stores the sorted registers of the block (thread t: positions t·E …) to out[0, count) through shared
/// memory, so that the global stores are striped and coalesced.
template <int Threads, int Items, class K, class V>
__device__ SLUICE_FORCEINLINE void store_tile(const block::merge_sort_storage<K, V>& s, int count,
                                              const K (&keys)[Items], const V (&values)[Items], K* out, V* out_values) {
  block::registers_to_shared(s, count, keys, values);
  __syncthreads();
  copy_tile<Threads, Items>(out, s.keys, count);
  if constexpr (has_values<V>) copy_tile<Threads, Items>(out_values, s.values, count);
}

template <int Threads, int Items, class K, class V, class Less>
__global__ void __launch_bounds__(Threads) block_sort_kernel(const K* keys, const V* values, K* out, V* out_values,
                                                             index_t n, Less less) {
  extern __shared__ __align__(16) unsigned char shared[];
  const auto s = block::merge_sort_storage<K, V>::carve(shared, Threads, Items);
  constexpr index_t tile = index_t{Threads} * Items;
  const index_t first = blockIdx.x * tile;
  const int count = static_cast<int>(n - first < tile ? n - first : tile);
  const V* tile_values = nullptr;
  V* tile_out_values = nullptr;
  if constexpr (has_values<V>) {
    tile_values = values + first;
    tile_out_values = out_values + first;
  }
  copy_tile<Threads, Items>(s.keys, keys + first, count);
  if constexpr (has_values<V>) copy_tile<Threads, Items>(s.values, tile_values, count);
  __syncthreads();
  K sorted[Items];
  V sorted_values[Items];
  block::sort_tile<Threads>(s, count, sorted, sorted_values, less);
  store_tile<Threads>(s, count, sorted, sorted_values, out + first, tile_out_values);
}

template <int Threads, int Items, class Runs, class K, class V, class Less>
__global__ void __launch_bounds__(Threads) merge_kernel(Runs runs, const index_t* splits, index_t n, K* out,
                                                        V* out_values, Less less) {
  extern __shared__ __align__(16) unsigned char shared[];
  const auto s = block::merge_sort_storage<K, V>::carve(shared, Threads, Items);
  constexpr index_t tile = index_t{Threads} * Items;
  const index_t t = blockIdx.x;
  const index_t first = t * tile;
  const int count = static_cast<int>(n - first < tile ? n - first : tile);
  const auto pair = runs.pair_at(first);
  const index_t split = splits[t];
  const index_t split_end = tile_end_split(runs, splits, t, tile, n);
  const index_t b_first = first - pair.start - split;
  const auto a_count = static_cast<int>(split_end - split);  // in [0, count]: the splits are consistent
  const V* a_values = nullptr;
  const V* b_values = nullptr;
  V* tile_out_values = nullptr;
  if constexpr (has_values<V>) {
    a_values = pair.a_values + split;
    b_values = pair.b_values + b_first;
    tile_out_values = out_values + first;
  }
  load_pieces<Threads, Items>(s, pair.a + split, a_values, a_count, pair.b + b_first, b_values, count);
  __syncthreads();
  K merged[Items];
  V merged_values[Items];
  block::merge_in_shared(s, count - 1, 0, a_count, count - a_count, static_cast<int>(threadIdx.x), Threads, merged,
                         merged_values, less);
  store_tile<Threads>(s, count, merged, merged_values, out + first, tile_out_values);
}

/// The launches of one shape (NT, E) for keys K and values V (no_values: keys only).
template <int Threads, int Items, class K, class V, class Less>
struct pairwise {
  static constexpr index_t tile = index_t{Threads} * Items;

  [[nodiscard]] static std::size_t shared_bytes() { return block::merge_sort_storage_bytes<K, V>(Threads, Items); }

  template <class Kernel>
  static void allow_shared(Kernel kernel) {
    SLUICE_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(shared_bytes())));
  }

  static void block_sort(context& ctx, const K* keys, const V* values, K* out, V* out_values, index_t n, Less less) {
    const auto kernel = block_sort_kernel<Threads, Items, K, V, Less>;
    allow_shared(kernel);
    const auto tiles = static_cast<unsigned>(ceil_div(static_cast<std::size_t>(n), tile));
    kernel<<<tiles, Threads, shared_bytes(), ctx.stream()>>>(keys, values, out, out_values, n, less);
    SLUICE_CHECK_LAUNCH();
  }

  /// One merge round: partition, then merge into (out, out_values). `splits` holds one entry per tile,
  /// `state` two zeroed words.
  template <class Runs>
  static void merge_round(context& ctx, const Runs& runs, index_t n, K* out, V* out_values, index_t* splits,
                          unsigned* state, Less less) {
    const index_t tiles = static_cast<index_t>(ceil_div(static_cast<std::size_t>(n), tile));
    constexpr int partition_threads = tuning::partition_threads;
    const auto partition_blocks = static_cast<unsigned>(ceil_div(static_cast<std::size_t>(tiles), partition_threads));
    partition_kernel<<<partition_blocks, partition_threads, 0, ctx.stream()>>>(runs, n, tile, tiles, splits, state,
                                                                               less);
    SLUICE_CHECK_LAUNCH();
    const auto kernel = merge_kernel<Threads, Items, Runs, K, V, Less>;
    allow_shared(kernel);
    kernel<<<static_cast<unsigned>(tiles), Threads, shared_bytes(), ctx.stream()>>>(runs, splits, n, out, out_values,
                                                                                    less);
    SLUICE_CHECK_LAUNCH();
  }

  /// Sorts n ≥ 1 keys (and values) into out; keys may equal out (in place). Rounds alternate between out
  /// and a temporary, the block sort writing where an even number of rounds remains before out.
  static void sort(context& ctx, const K* keys, const V* values, K* out, V* out_values, index_t n, Less less) {
    const index_t tiles = static_cast<index_t>(ceil_div(static_cast<std::size_t>(n), tile));
    int rounds = 0;
    while ((index_t{1} << rounds) < tiles) ++rounds;
    const bool temporary = rounds > 0;
    scratch<K> keys_temp(ctx, temporary ? static_cast<std::size_t>(n) : 0);
    scratch<V> values_temp(ctx, temporary && has_values<V> ? static_cast<std::size_t>(n) : 0);
    scratch<index_t> splits(ctx, temporary ? static_cast<std::size_t>(tiles) : 0);
    scratch<unsigned> state(ctx, temporary ? 2 : 0);
    const auto destination = [&](int remaining) { return remaining % 2 == 0 ? out : keys_temp.get(); };
    const auto destination_values = [&](int remaining) {
      V* to = nullptr;
      if constexpr (has_values<V>) to = remaining % 2 == 0 ? out_values : values_temp.get();
      return to;
    };
    block_sort(ctx, keys, values, destination(rounds), destination_values(rounds), n, less);
    if (!temporary) return;
    SLUICE_CUDA_CHECK(cudaMemsetAsync(state.get(), 0, 2 * sizeof(unsigned), ctx.stream()));
    for (int round = 0; round < rounds; ++round) {
      const int remaining = rounds - round;
      const runs_of_width<K, V> runs{destination(remaining), destination_values(remaining), n, tile << round};
      merge_round(ctx, runs, n, destination(remaining - 1), destination_values(remaining - 1), splits.get(),
                  state.get(), less);
    }
  }

  /// The stable merge of a and b (na + nb ≥ 1) into out.
  static void merge(context& ctx, const run_pair<K, V>& pair, K* out, V* out_values, Less less) {
    const index_t n = pair.na + pair.nb;
    const index_t tiles = static_cast<index_t>(ceil_div(static_cast<std::size_t>(n), tile));
    scratch<index_t> splits(ctx, static_cast<std::size_t>(tiles));
    scratch<unsigned> state(ctx, 2);
    SLUICE_CUDA_CHECK(cudaMemsetAsync(state.get(), 0, 2 * sizeof(unsigned), ctx.stream()));
    merge_round(ctx, two_runs<K, V>{pair}, n, out, out_values, splits.get(), state.get(), less);
  }
};

}  // namespace sluice::detail::merge_sort
