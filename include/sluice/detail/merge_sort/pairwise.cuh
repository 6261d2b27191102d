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
//
// The kernels see a round through a *round* object (which pair, diagonal and destination each tile
// has) and the block sort through a *tile source*, and their per-tile bodies (partition_tile,
// merge_tile, sort_block_tile) are device functions: segmented_sort (segmented.cuh) runs the same
// pieces over the tiles of many segments at once.
#pragma once

#include <sluice/block/merge_sort.cuh>
#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/core/merge_path.hpp>
#include <sluice/core/merge_splits.hpp>
#include <sluice/core/scratch.hpp>
#include <sluice/core/values.hpp>
#include <sluice/detail/merge_sort/rounds.hpp>
#include <sluice/detail/merge_sort/tuning.hpp>

#include <cuda/std/cstdint>

#include <cstddef>
#include <cstdint>

namespace sluice::detail::merge_sort {

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
    const pair_span p = pair_of(n, width, position);
    const V* a_values = nullptr;
    if constexpr (has_values<V>) a_values = values + p.start;
    return {keys + p.start, a_values, p.na, keys + p.start + p.na, a_values ? a_values + p.na : nullptr, p.nb, p.start};
  }
};

/// merge()'s input: one pair of separate arrays.
template <class K, class V>
struct two_runs {
  run_pair<K, V> pair;
  [[nodiscard]] SLUICE_HOST_DEVICE run_pair<K, V> pair_at(index_t) const { return pair; }
};

/// One tile of a merge round: outputs [diagonal, diagonal + count) of the merge of `pair`, stored at
/// out (out_values); count 0: the tile has nothing to do this round (segmented_sort's finished segments).
template <class K, class V>
struct round_tile {
  run_pair<K, V> pair;
  index_t diagonal;
  int count;
  K* out;
  V* out_values;

  /// Whether the tile holds its pair's last output (its pieces then end at the ends of a and b).
  [[nodiscard]] SLUICE_HOST_DEVICE bool ends_pair() const { return diagonal + count >= pair.na + pair.nb; }
};

/// A round over the contiguous outputs [0, n) of `out`: tile t writes outputs [t·tile, t·tile + tile)
/// from its pair in `runs` (runs_of_width for a sort round, two_runs for merge()). A round type gives
/// the kernels below `tile`, tiles() and tile_at(t); segmented_sort has its own (segmented.cuh).
template <class Runs, class K, class V>
struct contiguous_round {
  Runs runs;
  index_t n;
  index_t tile;
  K* out;
  V* out_values;

  [[nodiscard]] SLUICE_HOST_DEVICE index_t tiles() const { return (n + tile - 1) / tile; }
  [[nodiscard]] SLUICE_HOST_DEVICE round_tile<K, V> tile_at(index_t t) const {
    const index_t first = t * tile;
    const auto pair = runs.pair_at(first);
    V* values = nullptr;
    if constexpr (has_values<V>) values = out_values + first;
    return {pair, first - pair.start, static_cast<int>(n - first < tile ? n - first : tile), out + first, values};
  }
};

/// One tile of the block sort: `count` keys (values) at in, sorted into out; count 0: nothing to do.
template <class K, class V>
struct block_tile {
  const K* in;
  const V* in_values;
  int count;
  K* out;
  V* out_values;
};

/// The block sort of n contiguous keys: tile t holds keys [t·tile, t·tile + tile). A tile source gives
/// the block sort kernel tiles() and tile_at(t); segmented_sort has its own.
template <class K, class V>
struct contiguous_tiles {
  const K* keys;
  const V* values;
  index_t n;
  index_t tile;
  K* out;
  V* out_values;

  [[nodiscard]] SLUICE_HOST_DEVICE index_t tiles() const { return (n + tile - 1) / tile; }
  [[nodiscard]] SLUICE_HOST_DEVICE block_tile<K, V> tile_at(index_t t) const {
    const index_t first = t * tile;
    block_tile<K, V> job{keys + first, nullptr, static_cast<int>(n - first < tile ? n - first : tile), out + first,
                         nullptr};
    if constexpr (has_values<V>) {
      job.in_values = values + first;
      job.out_values = out_values + first;
    }
    return job;
  }
};

/// The merge-path split of output `diagonal` of the tile's pair.
template <class Tile, class Less>
__device__ index_t split_at(const Tile& tile, index_t diagonal, Less less) {
  const auto& p = tile.pair;
  return sluice::detail::merge_path(p.a, p.na, p.b, p.nb, diagonal, less);
}

/// Whether a tile's pieces are inconsistent (its split past `next`, the split at its end: a comparator
/// that is no order).
template <class Tile>
__device__ bool inconsistent_tile(const Tile& tile, index_t split, index_t next) {
  return !consistent_split(split, next, tile.diagonal, tile.diagonal + tile.count);
}

/// splits[t] = the merge-path split of tile t's first output within its pair; returns whether the
/// tile's pieces are inconsistent.
template <class Round, class Less>
__device__ bool partition_tile(const Round& round, index_t t, index_t* splits, Less less) {
  const auto tile = round.tile_at(t);
  if (tile.count == 0) return false;
  const index_t split = split_at(tile, tile.diagonal, less);
  splits[t] = split;
  const index_t next = tile.ends_pair() ? tile.pair.na : split_at(tile, tile.diagonal + tile.count, less);
  return inconsistent_tile(tile, split, next);
}

/// Repairs the splits of every pair of the round (only after some tile found its pieces inconsistent):
/// thread p mod blockDim of the calling block takes pair p, reading the other blocks' splits through
/// volatile loads. A pair's tiles are consecutive and its first tile starts it (diagonal 0); tiles with
/// nothing to do are stepped over. Sequential within a pair: O(tiles) in the last round, a cost only bad
/// comparators pay.
template <class Round>
__device__ void repair_round(const Round& round, index_t* splits, index_t tiles) {
  index_t pair_number = 0;
  for (index_t first = 0; first < tiles;) {
    const auto tile = round.tile_at(first);
    if (tile.count == 0) {
      ++first;
      continue;
    }
    const index_t length = tile.pair.na + tile.pair.nb;  // ≥ 1: the pair holds the tile's outputs
    const index_t count = (length + round.tile - 1) / round.tile;
    if (pair_number % blockDim.x == threadIdx.x)
      repair_splits(static_cast<volatile index_t*>(splits + first), count, tile.pair.na,
                    [&](index_t k) { return k * round.tile < length ? k * round.tile : length; });
    first += count;
    ++pair_number;
  }
}

/// One thread per tile: splits[t] = the merge-path split of tile t's first output within its pair.
/// state[0] counts finished blocks, state[1] is set where neighbouring splits disagree; the last block
/// repairs the round if so, and resets both for the next round.
template <class Round, class Less>
__global__ void partition_kernel(Round round, index_t* splits, unsigned* state, Less less) {
  const index_t tiles = round.tiles();
  const index_t t = blockIdx.x * index_t{blockDim.x} + threadIdx.x;
  __shared__ index_t block_splits[tuning::partition_threads];
  decltype(round.tile_at(0)) tile{};
  if (t < tiles) tile = round.tile_at(t);
  const index_t split = tile.count > 0 ? split_at(tile, tile.diagonal, less) : 0;
  block_splits[threadIdx.x] = split;
  __syncthreads();
  bool inconsistent = false;
  if (tile.count > 0) {
    splits[t] = split;
    // Within a pair, the split at the tile's end is tile t + 1's: a neighbour's in this block, searched
    // again only by a block's last thread.
    const bool ends_pair = tile.ends_pair();
    const bool neighbour_here = threadIdx.x + 1 < blockDim.x;
    const index_t next = ends_pair        ? tile.pair.na
                         : neighbour_here ? block_splits[threadIdx.x + 1]
                                          : split_at(tile, tile.diagonal + tile.count, less);
    inconsistent = inconsistent_tile(tile, split, next);
  }
  if (__syncthreads_or(inconsistent) && threadIdx.x == 0) atomicOr(state + 1, 1u);
  __threadfence();
  __shared__ bool last;
  __syncthreads();
  if (threadIdx.x == 0) last = atomicAdd(state, 1u) == gridDim.x - 1;
  __syncthreads();
  if (!last) return;
  __threadfence();
  if (*static_cast<volatile unsigned*>(state + 1) != 0) repair_round(round, splits, tiles);
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
  block::registers_to_shared(block::whole_block<Threads>{}, s, count, keys, values);
  __syncthreads();
  copy_tile<Threads, Items>(out, s.keys, count);
  if constexpr (has_values<V>) copy_tile<Threads, Items>(out_values, s.values, count);
}

/// The block sort of one tile (block::sort_tile), loaded and stored coalesced through shared memory.
/// Every thread of the block calls it; the caller separates two calls by a barrier.
template <int Threads, int Items, class K, class V, class Less>
__device__ void sort_block_tile(const block::merge_sort_storage<K, V>& s, const block_tile<K, V>& job, Less less) {
  if (job.count == 0) return;
  copy_tile<Threads, Items>(s.keys, job.in, job.count);
  if constexpr (has_values<V>) copy_tile<Threads, Items>(s.values, job.in_values, job.count);
  __syncthreads();
  K sorted[Items];
  V sorted_values[Items];
  block::sort_tile(block::whole_block<Threads>{}, s, job.count, sorted, sorted_values, less);
  store_tile<Threads>(s, job.count, sorted, sorted_values, job.out, job.out_values);
}

/// The merge of one tile of a round: its pieces between splits[t] and the next tile's split loaded into
/// shared memory, each thread's split found there and E outputs merged serially, the tile stored
/// coalesced. Every thread of the block calls it; the caller separates two calls by a barrier.
template <int Threads, int Items, class Round, class K, class V, class Less>
__device__ void merge_tile(const block::merge_sort_storage<K, V>& s, const Round& round, const index_t* splits,
                           index_t t, Less less) {
  const round_tile<K, V> tile = round.tile_at(t);
  if (tile.count == 0) return;
  const auto& pair = tile.pair;
  const index_t split = splits[t];
  const index_t split_end = tile.ends_pair() ? pair.na : splits[t + 1];
  const index_t b_first = tile.diagonal - split;
  const auto a_count = static_cast<int>(split_end - split);  // in [0, count]: the splits are consistent
  const V* a_values = nullptr;
  const V* b_values = nullptr;
  if constexpr (has_values<V>) {
    a_values = pair.a_values + split;
    b_values = pair.b_values + b_first;
  }
  load_pieces<Threads, Items>(s, pair.a + split, a_values, a_count, pair.b + b_first, b_values, tile.count);
  __syncthreads();
  K merged[Items];
  V merged_values[Items];
  block::merge_in_shared(block::whole_block<Threads>{}, s, tile.count - 1, 0, a_count, tile.count - a_count,
                         static_cast<int>(threadIdx.x), Threads, merged, merged_values, less);
  store_tile<Threads>(s, tile.count, merged, merged_values, tile.out, tile.out_values);
}

/// The blocks an SM the kernels of keys K, values V and E are compiled for (tuning.hpp; 0: no bound).
template <class K, class V, int Items>
inline constexpr int min_blocks = tuning::min_blocks_per_sm(sizeof(K), has_values<V> ? sizeof(V) : 0, Items);

/// The block sort: tile blockIdx.x of `tiles` (a tile source), one block a tile.
template <int Threads, int Items, class K, class V, class Tiles, class Less>
__global__ void __launch_bounds__(Threads, (min_blocks<K, V, Items>)) block_sort_kernel(Tiles tiles, Less less) {
  extern __shared__ __align__(16) unsigned char shared[];
  const auto s = block::merge_sort_storage<K, V>::carve(shared, Threads, Items);
  if (blockIdx.x < tiles.tiles()) sort_block_tile<Threads, Items>(s, tiles.tile_at(blockIdx.x), less);
}

/// The block sort of a tile source whose tile count only the device knows (segmented_sort): a grid of
/// one wave at most, each block taking tile blockIdx.x and every gridDim.x-th after it. Not the kernel
/// above with a loop: the loop's state costs 18 registers a thread there (110 against 92 for u32
/// pairs, ptxas sm_90), which would hold merge_sort's block sort to fewer resident blocks.
template <int Threads, int Items, class K, class V, class Tiles, class Less>
__global__ void __launch_bounds__(Threads) persistent_block_sort_kernel(Tiles tiles, Less less) {
  extern __shared__ __align__(16) unsigned char shared[];
  const auto s = block::merge_sort_storage<K, V>::carve(shared, Threads, Items);
  const index_t count = tiles.tiles();
  for (index_t t = blockIdx.x; t < count; t += gridDim.x) {
    sort_block_tile<Threads, Items>(s, tiles.tile_at(t), less);
    __syncthreads();  // the store's shared reads are done before the next tile's loads
  }
}

/// The merges of one round (splits from partition_kernel): tile blockIdx.x, one block a tile.
template <int Threads, int Items, class Round, class K, class V, class Less>
__global__ void __launch_bounds__(Threads, (min_blocks<K, V, Items>)) merge_kernel(Round round, const index_t* splits,
                                                                                  Less less) {
  extern __shared__ __align__(16) unsigned char shared[];
  const auto s = block::merge_sort_storage<K, V>::carve(shared, Threads, Items);
  if (blockIdx.x < round.tiles()) merge_tile<Threads, Items>(s, round, splits, blockIdx.x, less);
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
    using tiles_t = contiguous_tiles<K, V>;
    const tiles_t tiles{keys, values, n, tile, out, out_values};
    const auto kernel = block_sort_kernel<Threads, Items, K, V, tiles_t, Less>;
    allow_shared(kernel);
    kernel<<<static_cast<unsigned>(tiles.tiles()), Threads, shared_bytes(), ctx.stream()>>>(tiles, less);
    SLUICE_CHECK_LAUNCH();
  }

  /// The block sort of a tile source whose count the device holds (segmented_sort's slots), on a grid
  /// of one wave for at most `capacity` tiles.
  template <class Tiles>
  static void block_sort_persistent(context& ctx, const Tiles& tiles, std::size_t capacity, Less less) {
    const auto kernel = persistent_block_sort_kernel<Threads, Items, K, V, Tiles, Less>;
    allow_shared(kernel);
    const std::size_t blocks = one_wave_grid(ctx, kernel, Threads, capacity, shared_bytes());
    kernel<<<static_cast<unsigned>(blocks), Threads, shared_bytes(), ctx.stream()>>>(tiles, less);
    SLUICE_CHECK_LAUNCH();
  }

  /// One merge round: partition, then merge into (out, out_values). `splits` holds one entry per tile,
  /// `state` two zeroed words.
  template <class Runs>
  static void merge_round(context& ctx, const Runs& runs, index_t n, K* out, V* out_values, index_t* splits,
                          unsigned* state, Less less) {
    using round_t = contiguous_round<Runs, K, V>;
    const round_t round{runs, n, tile, out, out_values};
    const auto tiles = static_cast<std::size_t>(round.tiles());
    constexpr int partition_threads = tuning::partition_threads;
    const auto partition_blocks = static_cast<unsigned>(ceil_div(tiles, partition_threads));
    partition_kernel<<<partition_blocks, partition_threads, 0, ctx.stream()>>>(round, splits, state, less);
    SLUICE_CHECK_LAUNCH();
    const auto kernel = merge_kernel<Threads, Items, round_t, K, V, Less>;
    allow_shared(kernel);
    kernel<<<static_cast<unsigned>(tiles), Threads, shared_bytes(), ctx.stream()>>>(round, splits, less);
    SLUICE_CHECK_LAUNCH();
  }

  /// Sorts n ≥ 1 keys (and values) into out; keys may equal out (in place). Rounds alternate between out
  /// and a temporary, the block sort writing where an even number of rounds remains before out.
  static void sort(context& ctx, const K* keys, const V* values, K* out, V* out_values, index_t n, Less less) {
    const index_t tiles = static_cast<index_t>(ceil_div(static_cast<std::size_t>(n), tile));
    const int rounds = rounds_for(tiles);
    const bool temporary = rounds > 0;
    scratch<K> keys_temp(ctx, temporary ? static_cast<std::size_t>(n) : 0);
    scratch<V> values_temp(ctx, temporary && has_values<V> ? static_cast<std::size_t>(n) : 0);
    scratch<index_t> splits(ctx, temporary ? static_cast<std::size_t>(tiles) : 0);
    scratch<unsigned> state(ctx, temporary ? 2 : 0);
    const auto destination = [&](int remaining) { return writes_output(remaining) ? out : keys_temp.get(); };
    const auto destination_values = [&](int remaining) {
      V* to = nullptr;
      if constexpr (has_values<V>) to = writes_output(remaining) ? out_values : values_temp.get();
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

  /// Entries of `splits` a merge of n outputs takes: one a tile.
  [[nodiscard]] static constexpr std::size_t merge_splits(index_t n) {
    return ceil_div(static_cast<std::size_t>(n), static_cast<std::size_t>(tile));
  }

  /// The stable merge of a and b (na + nb ≥ 1) into out.
  static void merge(context& ctx, const run_pair<K, V>& pair, K* out, V* out_values, Less less) {
    scratch<index_t> splits(ctx, merge_splits(pair.na + pair.nb));
    scratch<unsigned> state(ctx, 2);
    SLUICE_CUDA_CHECK(cudaMemsetAsync(state.get(), 0, 2 * sizeof(unsigned), ctx.stream()));
    merge(ctx, pair, out, out_values, splits.get(), state.get(), less);
  }

  /// The merge in the caller's splits (merge_splits(na + nb) entries) and state (two words, zeroed once:
  /// the partition kernel leaves them zeroed, so a caller that merges often keeps one pair, as the LSM).
  static void merge(context& ctx, const run_pair<K, V>& pair, K* out, V* out_values, index_t* splits, unsigned* state,
                    Less less) {
    merge_round(ctx, two_runs<K, V>{pair}, pair.na + pair.nb, out, out_values, splits, state, less);
  }
};

}  // namespace sluice::detail::merge_sort
