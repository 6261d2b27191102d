// sluice/detail/lsm/cleanup.cuh: cleanup in one pass (Ashkiani §4.4.5's merge, marking and compaction
// fused; docs/lsm.md "cleanup"). The runs' stable merge (newest run first on equal keys) is cut into
// tiles by GPU-MMS's multiway partition (Karsin §7.2.1, merge_sort/gpu_mms.cuh); a block merges its
// tile's pieces in shared memory (cleanup_tile.hpp), keeps the live elements (each key's first copy in
// the merge, if not a tombstone) and learns where they go by a decoupled look-back over the tiles
// (scan/look_back.cuh). Global traffic: the runs read once, the live elements written once.
//
//   cleanup_split_kernel  a warp a tile boundary: each run's split of the merge's first t·tile outputs
//   cleanup_tile_kernel   a block a tile: load the pieces, merge, judge, scan, look back, store (Write);
//                         without Write only the live count (size())
#pragma once

#include <sluice/core/config.hpp>
#include <sluice/detail/lsm/cleanup_tile.hpp>
#include <sluice/detail/lsm/kernels.cuh>
#include <sluice/detail/merge_sort/gpu_mms.cuh>
#include <sluice/detail/scan/look_back.cuh>

#include <cub/block/block_scan.cuh>

#include <cuda/std/cstdint>

#include <functional>

namespace sluice::detail::lsm {

/// A tile's status in the look-back: its live count, then its inclusive prefix.
using cleanup_status = scan::tile_status<index_t>;
/// Tiles by block index (as the scan's), polled at once: a tile publishes only after its merge, by when
/// its predecessors, dispatched earlier, have mostly published too.
using cleanup_look_back = scan::look_back_tuning<scan::tile_order::block_index, 0, 300>;

/// One warp a tile boundary t ≤ tiles, lane j a run: splits[t·runs + j] = run j's elements among the
/// merge's first min(t·tile, n) outputs.
template <class K, class V>
__global__ void cleanup_split_kernel(run_list<K, V> runs, index_t tile, index_t tiles, index_t n, index_t* splits) {
  const index_t t = (blockIdx.x * index_t{blockDim.x} + threadIdx.x) / 32;
  if (t > tiles) return;  // the warp's lanes share t
  const int lane = static_cast<int>(threadIdx.x % 32);
  const bool owns_run = lane < runs.count;
  const index_t rank = t * tile < n ? t * tile : n;
  const merge_sort::gpu_mms::untagged_order<K, std::less<>> order{};
  const index_t split = merge_sort::gpu_mms::multiway_split(owns_run ? runs.keys[lane] : runs.keys[0], owns_run,
                                                            owns_run ? runs.sizes[lane] : 0, rank, order);
  if (owns_run) splits[t * static_cast<index_t>(runs.count) + static_cast<index_t>(lane)] = split;
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
