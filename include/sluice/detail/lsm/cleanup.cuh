// sluice/detail/lsm/cleanup.cuh: cleanup in one pass (Ashkiani §4.4.5's merge, marking and compaction
// fused; docs/lsm.md "Cleanup"). The runs' stable merge (newest run first on equal keys) is cut into
// tiles at pivots drawn from a sorted sample of the runs (cleanup_tile.hpp); a block merges its tile's
// pieces in shared memory, keeps the live elements (each key's first copy in the merge, if not a
// tombstone) and learns where they go by a decoupled look-back over the tiles (scan/look_back.cuh).
// Global traffic: the runs read once (and one key in S again, the sample), the live elements written
// once.
//
//   cleanup_sample_kernel  every S-th element of each run, with its place in the sample, runs in order
//   cleanup_split_kernel   a thread a (tile boundary, run): the run's elements merged before the pivot
//   cleanup_tile_kernel    a block a tile: load the pieces, merge, judge, scan, look back, store (Write);
//                          without Write only the live count (size())
#pragma once

#include <sluice/core/config.hpp>
#include <sluice/detail/lsm/cleanup_tile.hpp>
#include <sluice/detail/lsm/kernels.cuh>
#include <sluice/detail/scan/look_back.cuh>
#include <sluice/detail/search/layouts.hpp>

#include <cub/block/block_scan.cuh>

#include <cuda/std/cstdint>

namespace sluice::detail::lsm {

/// A tile's status in the look-back: its live count, then its inclusive prefix.
using cleanup_status = scan::tile_status<index_t>;
/// Tiles by block index (as the scan's), polled at once: a tile reaches its look-back only after its
/// loads and merge rounds, so a first delay would only add to the wait (docs/perf-notes.md, issue 27).
using cleanup_look_back = scan::look_back_tuning<scan::tile_order::block_index, 0, 300>;

/// Where each run's samples start in the sample (runs in order), and the stride S.
struct sample_layout {
  index_t starts[cleanup_ways + 1];
  index_t stride;
  int runs;

  /// The run whose samples hold sample m: the last run starting at or before it.
  [[nodiscard]] SLUICE_HOST_DEVICE int run_of(index_t m) const {
    return static_cast<int>(search::sorted_count(static_cast<index_t>(runs), [&](index_t j) { return starts[j] <= m; })) - 1;
  }
};

/// keys[m] = sample m's key (element (m − starts[j])·S of run j), positions[m] = m.
template <class K, class V>
__global__ void cleanup_sample_kernel(run_list<K, V> runs, sample_layout layout, K* keys, index_t* positions) {
  const index_t total = layout.starts[layout.runs];
  for (index_t m = blockIdx.x * index_t{blockDim.x} + threadIdx.x; m < total; m += index_t{gridDim.x} * blockDim.x) {
    const int j = layout.run_of(m);
    keys[m] = runs.keys[j][(m - layout.starts[j]) * layout.stride];
    positions[m] = m;
  }
}

/// splits[t·runs + j] = run j's elements merged before tile t's first (t ≤ tiles): none for t = 0, all
/// for t = tiles, else those before the pivot, sample t·G of the sorted sample (split_at_pivot).
template <class K, class V>
__global__ void cleanup_split_kernel(run_list<K, V> runs, sample_layout layout, const K* sorted_keys,
                                     const index_t* sorted_positions, index_t tile_samples, index_t tiles,
                                     index_t* splits) {
  const auto count = static_cast<index_t>(runs.count);
  for (index_t s = blockIdx.x * index_t{blockDim.x} + threadIdx.x; s < (tiles + 1) * count;
       s += index_t{gridDim.x} * blockDim.x) {
    const index_t t = s / count;
    const int j = static_cast<int>(s % count);
    if (t == 0 || t == tiles) {
      splits[s] = t == 0 ? 0 : runs.sizes[j];
      continue;
    }
    const K v = sorted_keys[t * tile_samples];
    const index_t m = sorted_positions[t * tile_samples];
    const int pivot_run = layout.run_of(m);
    splits[s] = split_at_pivot(
        j, pivot_run, (m - layout.starts[pivot_run]) * layout.stride,
        [&](int run) { return lower_bound_of(runs.keys[run], runs.sizes[run], v); },
        [&](int run) { return upper_bound_of(runs.keys[run], runs.sizes[run], v); });
  }
}

/// A block a tile (tile t = blockIdx.x, its pieces between splits t and t + 1): the pieces loaded side by
/// side, merged in ⌈log2 runs⌉ rounds, each element judged against the one before it (the tile's first
/// against the key before the tile), the live ones counted (BlockScan). Write: staged compacted in the
/// buffer the last round read, placed by the look-back (warp 0, while the others stage) and stored
/// coalesced; entries move once, gathered by their tile position. *live_total += the tile's live count.
template <bool Write, int Threads, int Items, class K, class V>
__global__ void __launch_bounds__(Threads)
    cleanup_tile_kernel(run_list<K, V> runs, const index_t* splits, cleanup_status status, K* out_keys,
                        entry<V>* out_entries, unsigned long long* live_total) {
  constexpr int tile = Threads * Items;
  using position = cuda::std::uint16_t;
  static_assert(tile <= 65536, "tile positions are 16-bit");
  using block_scan = cub::BlockScan<unsigned, Threads>;
  __shared__ K keys[2][tile];
  __shared__ position from[2][tile];
  __shared__ entry<V> entries[tile];
  __shared__ unsigned starts[cleanup_ways + 1];
  __shared__ index_t before[cleanup_ways];
  __shared__ typename block_scan::TempStorage scan_storage;
  __shared__ index_t tile_first_output;

  const index_t t = blockIdx.x;
  const int pieces = runs.count;
  if (threadIdx.x < 32) {  // the pieces' starts in the tile: a warp scan of their sizes (each ≤ tile)
    const int lane = static_cast<int>(threadIdx.x);
    const index_t* split = splits + t * static_cast<index_t>(pieces);
    const index_t first = lane < pieces ? split[lane] : 0;
    unsigned end = lane < pieces ? static_cast<unsigned>(split[pieces + lane] - first) : 0;
    for (int d = 1; d < 32; d *= 2) {
      const unsigned earlier = __shfl_up_sync(0xFFFFFFFFu, end, d);
      if (lane >= d) end += earlier;
    }
    if (lane == 0) starts[0] = 0;
    if (lane < pieces) {
      starts[lane + 1] = end;
      before[lane] = first;
    }
  }
  __syncthreads();
  const unsigned count = starts[pieces];
  K loaded_keys[Items];  // every load issued before the first shared store: Items loads in flight a thread
  entry<V> loaded_entries[Items];
#pragma unroll
  for (int k = 0; k < Items; ++k) {
    const unsigned i = threadIdx.x + k * Threads;
    if (i >= count) continue;
    const int j = piece_of(starts, pieces, i);
    const index_t at = before[j] + (i - starts[j]);
    loaded_keys[k] = runs.keys[j][at];
    loaded_entries[k] = runs.entries[j][at];
  }
#pragma unroll
  for (int k = 0; k < Items; ++k) {
    const unsigned i = threadIdx.x + k * Threads;
    if (i >= count) continue;
    keys[0][i] = loaded_keys[k];
    entries[i] = loaded_entries[k];
    from[0][i] = static_cast<position>(i);
  }
  __syncthreads();
  const unsigned first = threadIdx.x * Items < count ? threadIdx.x * Items : count;
  const unsigned last = first + Items < count ? first + Items : count;
  const int rounds = cleanup_rounds(pieces);
  for (int r = 0; r < rounds; ++r) {
    merge_round(keys[r % 2], from[r % 2], keys[(r + 1) % 2], from[(r + 1) % 2], starts, pieces, r, first, last);
    __syncthreads();
  }
  const K* merged = keys[rounds % 2];
  const position* merged_from = from[rounds % 2];
  const bool first_repeats = threadIdx.x == 0 && count > 0 &&
                             repeats_key_before_tile(merged[0], before, pieces,
                                                     [&](int j, index_t i) { return runs.keys[j][i]; });
  bool live[Items];
  unsigned mine = 0;
#pragma unroll
  for (int k = 0; k < Items; ++k) {
    const unsigned i = first + k;
    const bool real = i < last;
    const bool repeats = i == 0 ? first_repeats : real && merged[i - 1] == merged[i];
    live[k] = real && live_candidate(false, repeats, entries[merged_from[i]].status);
    mine += live[k] ? 1 : 0;
  }
  unsigned offset = 0, total = 0;
  block_scan(scan_storage).ExclusiveSum(mine, offset, total);
  if constexpr (!Write) {
    if (threadIdx.x == 0) atomicAdd(live_total, static_cast<unsigned long long>(total));
  } else {
    K* staged = keys[(rounds + 1) % 2];  // read by the last round, free after the scan's barrier
    position* staged_from = from[(rounds + 1) % 2];
#pragma unroll
    for (int k = 0; k < Items; ++k) {
      if (!live[k]) continue;
      staged[offset] = merged[first + k];
      staged_from[offset] = merged_from[first + k];
      ++offset;
    }
    if (threadIdx.x < 32) {
      const bool lane0 = threadIdx.x == 0;
      index_t prefix = 0;
      if (t != 0) {
        if (lane0) status.publish(t, scan::tile_aggregate, index_t{total});
        prefix = scan::look_back<index_t, cleanup_look_back>(status, t, [](index_t a, index_t b) { return a + b; });
      }
      if (lane0) {
        status.publish(t, scan::tile_inclusive, prefix + total);
        tile_first_output = prefix;
        atomicAdd(live_total, static_cast<unsigned long long>(total));
      }
    }
    __syncthreads();
    const index_t base = tile_first_output;
    for (unsigned s = threadIdx.x; s < total; s += Threads) {
      out_keys[base + s] = staged[s];
      out_entries[base + s] = entries[staged_from[s]];
    }
  }
}

}  // namespace sluice::detail::lsm
