// sluice/detail/multisplit/tile_reorder.cuh: the postscan of WMS and BMS: a local stable multisplit of
// each tile in shared memory, then a scatter of bucket runs (Ashkiani §3.5.6 "reordering for better
// locality", Eq. 3.5).
//
// A group (one warp for WMS, the whole block for BMS) owns a chunk and walks it a tile at a time; warp
// w of the group takes windows [w·Windows, (w + 1)·Windows) of the tile, so warps are in index order.
// For an element of bucket b in window j of warp w, its place in the tile sorted by bucket is
//   start[b]                       elements of earlier buckets in the tile (exclusive scan of the
//                                  tile histogram, warp/bucket.cuh)
//   + earlier_warps[b][w]          b-elements of warps before w (segmented scan of the per-warp counts,
//                                  block/bucket_counts.cuh; 0 for a single warp)
//   + warp's b-count before j + rank in window j    (ballot peers, a warp-private counter per bucket)
// Keys, values and the byte-sized bucket ids are staged there; then thread t reads staged places
// t, t + group size, …, and element p of bucket b goes to next[b] + (p − start[b]), next[b] being the
// chunk's running global position of b (G from the scan, advanced by each tile's count). Consecutive
// threads write consecutive places of one bucket: the scatter is runs of the bucket's tile count,
// not the DMS's runs of its window count.
//
// Traffic: as DMS (keys, values read once, written once), plus a shared-memory round trip. Barriers
// per tile: two for a warp (__syncwarp), four for a block.
#pragma once

#include <sluice/detail/multisplit/direct_pass.cuh>

#include <cuda/std/cstdint>

namespace sluice::detail::multisplit {

template <int GroupWarps, int Windows, class K, class V>
struct reorder_storage {
  static constexpr int tile = GroupWarps * Windows * 32;
  std::uint32_t counts[max_direct_buckets * GroupWarps];  ///< [bucket][warp]: running, then earlier warps
  std::uint32_t starts[max_direct_buckets];
  std::uint32_t totals[GroupWarps > 1 ? max_direct_buckets : 1];  ///< a single warp's counts are its totals
  unsigned long long next[max_direct_buckets];
  K keys[tile];
  V values[has_values<V> ? tile : 1];
  cuda::std::uint8_t ids[tile];  ///< ids < max_direct_buckets = 256

  __device__ std::uint32_t tile_count(std::uint32_t b) const {
    if constexpr (GroupWarps == 1) return counts[b];
    else return totals[b];
  }
};

/// The tile [first, end) of a group: rank, reorder in shared memory, scatter. `thread` and `threads`:
/// this thread's index in the group and the group's size.
template <int GroupWarps, int Windows, class K, class V, class Ids>
__device__ __forceinline__ void reorder_tile(reorder_storage<GroupWarps, Windows, K, V>& s, const pass_io<K, V>& io,
                                             const Ids& ids, std::uint32_t buckets, int bits, std::size_t first,
                                             std::size_t end, std::uint32_t thread) {
  constexpr std::uint32_t threads = GroupWarps * 32;
  const std::uint32_t warp = thread / 32;  // within the group
  const std::uint32_t lane = static_cast<std::uint32_t>(warp::lane_id());
  std::uint32_t* const mine = s.counts + warp;  // this warp's column: mine[b · GroupWarps]

  for (std::uint32_t b = lane; b < buckets; b += 32) mine[b * GroupWarps] = 0;
  __syncwarp();
  window_items<Windows, K, V> items;
  load_windows<has_values<V>>(items, io.keys_in, io.values_in, ids, buckets, first + std::size_t{32} * Windows * warp,
                              end);
  std::uint32_t rank[Windows];
#pragma unroll
  for (int j = 0; j < Windows; ++j) {
    const unsigned peers = warp::ballot_peers(warp::full_mask, items.valid[j], items.ids[j], bits);
    if (items.valid[j]) rank[j] = mine[items.ids[j] * GroupWarps] + static_cast<std::uint32_t>(warp::rank_among(peers));
    __syncwarp();
    if (warp::last_among(peers)) mine[items.ids[j] * GroupWarps] += static_cast<std::uint32_t>(__popc(peers));
    __syncwarp();
  }

  if constexpr (GroupWarps == 1) {
    warp::exclusive_scan_counts(s.counts, s.starts, buckets);
    __syncwarp();
  } else {
    __syncthreads();
    block::scan_warp_counts<GroupWarps>(s.counts, buckets, s.totals);
    __syncthreads();
    if (warp == 0) warp::exclusive_scan_counts(s.totals, s.starts, buckets);
    __syncthreads();
  }

#pragma unroll
  for (int j = 0; j < Windows; ++j)
    if (items.valid[j]) {
      const std::uint32_t b = items.ids[j];
      const std::uint32_t place = s.starts[b] + (GroupWarps > 1 ? mine[b * GroupWarps] : 0u) + rank[j];
      s.keys[place] = items.keys[j];
      if constexpr (has_values<V>) s.values[place] = items.values[j];
      s.ids[place] = static_cast<cuda::std::uint8_t>(b);
    }
  group_sync<GroupWarps>();

  const std::uint32_t staged = s.starts[buckets - 1] + s.tile_count(buckets - 1);
  for (std::uint32_t p = thread; p < staged; p += threads) {
    const std::uint32_t b = s.ids[p];
    const std::size_t to = s.next[b] + (p - s.starts[b]);
    io.keys_out[to] = s.keys[p];
    if constexpr (has_values<V>) io.values_out[to] = s.values[p];
  }
  group_sync<GroupWarps>();
  // The next tile writes counts (a warp: each lane its own buckets, as here) and totals (a block: after
  // a barrier) only after these reads.
  for (std::uint32_t b = thread; b < buckets; b += threads) s.next[b] += s.tile_count(b);
}

/// The postscan of WMS (GroupWarps = 1: each warp its own chunk and storage) and BMS (GroupWarps =
/// WarpsPerBlock: the block's chunk).
template <int GroupWarps, int WarpsPerBlock, int Windows, class K, class V, class Ids>
__global__ void __launch_bounds__(WarpsPerBlock * 32)
    reorder_postscan_kernel(pass_io<K, V> io, Ids ids, std::uint32_t buckets, chunk_layout layout,
                            const unsigned long long* G) {
  static_assert(GroupWarps == 1 || GroupWarps == WarpsPerBlock, "a subproblem belongs to a warp or to the block");
  constexpr int groups_per_block = WarpsPerBlock / GroupWarps;
  constexpr std::uint32_t threads = GroupWarps * 32;
  __shared__ reorder_storage<GroupWarps, Windows, K, V> storage[groups_per_block];
  const std::uint32_t group = threadIdx.x / threads;
  const std::uint32_t thread = threadIdx.x % threads;
  const std::uint32_t c = blockIdx.x * groups_per_block + group;
  if (c >= layout.chunks) return;  // only single-warp groups of the last block: their barriers are __syncwarp
  auto& s = storage[group];
  for (std::uint32_t b = thread; b < buckets; b += threads) s.next[b] = G[std::size_t{b} * layout.chunks + c];
  // next is first read after the tile's first group barrier.
  const int bits = id_bits(buckets);
  constexpr std::size_t tile = reorder_storage<GroupWarps, Windows, K, V>::tile;
  const std::size_t end = layout.end(c);
  for (std::size_t first = layout.begin(c); first < end; first += tile)
    reorder_tile(s, io, ids, buckets, bits, first, cuda::std::min(end, first + tile), thread);
}

}  // namespace sluice::detail::multisplit
