// sluice/detail/multisplit/dms.cuh: Direct Multisplit (Ashkiani §3.5.3, Algorithm 2).
//
// Three levels of localization: a warp owns a chunk (its subproblem, one column of H), walks it in
// windows of 32, and solves each window directly: an element of bucket b goes to
//   G[b][warp] + (elements of b in the warp's earlier windows) + (its rank among b in the window).
// The middle term is a warp-private running position per bucket in shared memory (warp-level
// privatization, §3.5.8: m counters per warp, not per thread), advanced after each window by the last
// lane of each bucket. There is no reordering, so each window scatters up to min(m, 32) separate runs:
// DMS writes are coalesced only for small m, which is what WMS and BMS fix.
//
// Traffic: prescan reads the keys; postscan reads keys (and values) and writes them. Shared memory:
// 8 bytes per bucket per warp (16 KiB for 8 warps at m = 256).
#pragma once

#include <sluice/detail/multisplit/direct_pass.cuh>

namespace sluice::detail::multisplit {

template <int WarpsPerBlock, int Windows, class K, class V, class Ids>
__global__ void __launch_bounds__(WarpsPerBlock * 32)
    dms_postscan_kernel(pass_io<K, V> io, Ids ids, std::uint32_t buckets, chunk_layout layout,
                        const unsigned long long* G) {
  __shared__ unsigned long long next_position[WarpsPerBlock][max_direct_buckets];
  const int warp = static_cast<int>(threadIdx.x) / 32;
  const std::uint32_t c = blockIdx.x * WarpsPerBlock + static_cast<std::uint32_t>(warp);
  if (c >= layout.chunks) return;
  unsigned long long* next = next_position[warp];
  for (std::uint32_t b = static_cast<std::uint32_t>(warp::lane_id()); b < buckets; b += 32)
    next[b] = G[std::size_t{b} * layout.chunks + c];
  __syncwarp();
  const int bits = id_bits(buckets);
  const std::size_t end = layout.end(c);
  window_items<Windows, K, V> items;
  for (std::size_t first = layout.begin(c); first < end; first += std::size_t{32} * Windows) {
    load_windows<has_values<V>>(items, io.keys_in, io.values_in, ids, buckets, first, end);
#pragma unroll
    for (int j = 0; j < Windows; ++j) {
      const unsigned peers = warp::ballot_peers(warp::full_mask, items.valid[j], items.ids[j], bits);
      if (items.valid[j]) {
        const std::size_t to = next[items.ids[j]] + static_cast<unsigned>(warp::rank_among(peers));
        io.keys_out[to] = items.keys[j];
        if constexpr (has_values<V>) io.values_out[to] = items.values[j];
      }
      __syncwarp();  // every peer has read the bucket's position before its last lane advances it
      if (warp::last_among(peers)) next[items.ids[j]] += static_cast<unsigned>(__popc(peers));
      __syncwarp();
    }
  }
}

/// DMS as a strategy of run_direct_pass.
struct dms {
  static constexpr int warps_per_block = tuning::dms_warps_per_block;
  static constexpr int group_warps = 1;
  static constexpr int windows = tuning::dms_windows;
  template <class K, class V, class Ids>
  static constexpr auto postscan = dms_postscan_kernel<warps_per_block, windows, K, V, Ids>;
};

}  // namespace sluice::detail::multisplit
