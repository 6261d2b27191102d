// sluice/detail/multisplit/direct_pass.cuh: one pass of a direct strategy (DMS, WMS, BMS) as the seed's
// three stages (Ashkiani §3.4.1, §3.5.3): prescan → scan → postscan.
//
//   prescan   each subproblem counts its keys per bucket (warp ballot histograms, §3.5.5.1; for BMS the
//             block's warps combine theirs by segmented shuffles, §3.5.5.3) and writes its column of H
//   scan      G = exclusive scan of the bucket-major H (common.cuh)
//   postscan  each subproblem recomputes ids and ranks and scatters; the strategy's kernel (dms.cuh,
//             tile_reorder.cuh for WMS and BMS). Recomputing beats storing ids between stages (§3.5.3).
//
// A strategy is a traits struct: warps_per_block, group_warps (warps sharing one subproblem: 1 for the
// warp-level strategies, the block for BMS), windows (32-element windows per warp per step; the tile is
// group_warps · windows · 32 elements) and postscan<K, V, Ids> (its kernel). The prescan reads the keys
// once (n·sizeof(K)); the postscan reads keys and values once and writes them once.
#pragma once

#include <sluice/block/bucket_counts.cuh>
#include <sluice/detail/multisplit/common.cuh>
#include <sluice/warp/bucket.cuh>

namespace sluice::detail::multisplit {

/// Histogram registers per lane for m buckets: lane l counts buckets l, l + 32, … (1, 2, 4 or 8 for m ≤
/// 256). The prescan is compiled for each, so that m = 32 pays for one register, not eight.
constexpr int histogram_registers(std::uint32_t buckets) {
  return buckets <= 32 ? 1 : buckets <= 64 ? 2 : buckets <= 128 ? 4 : 8;
}

/// Writes H[b·L + c] for every chunk c: the warps of a group stride over the chunk's windows, each
/// keeping ballot histograms in Registers registers (buckets ≤ 32·Registers); a group of several warps
/// adds them by segmented shuffles.
template <int Registers, int GroupWarps, int WarpsPerBlock, int Windows, class K, class Ids>
__global__ void __launch_bounds__(WarpsPerBlock * 32)
    prescan_kernel(const K* keys, Ids ids, std::uint32_t buckets, chunk_layout layout, std::uint32_t* H) {
  static_assert(GroupWarps == 1 || GroupWarps == WarpsPerBlock, "a subproblem belongs to a warp or to the block");
  __shared__ std::uint32_t warp_counts[GroupWarps > 1 ? max_direct_buckets * GroupWarps : 1];
  __shared__ std::uint32_t totals[GroupWarps > 1 ? max_direct_buckets : 1];
  const int warp = static_cast<int>(threadIdx.x) / 32;
  const int in_group = warp % GroupWarps;
  const std::uint32_t c = blockIdx.x * (WarpsPerBlock / GroupWarps) + static_cast<std::uint32_t>(warp / GroupWarps);
  if (c >= layout.chunks) return;  // only single-warp groups of the last block: no barrier follows for them
  const int bits = id_bits(buckets);
  const std::size_t begin = layout.begin(c), end = layout.end(c);
  std::uint32_t counts[Registers] = {};
  window_items<Windows, K, no_values> items;
  for (std::size_t first = begin + std::size_t{32} * Windows * in_group; first < end;
       first += std::size_t{32} * Windows * GroupWarps) {
    load_windows<false>(items, keys, static_cast<const no_values*>(nullptr), ids, buckets, first, end);
#pragma unroll
    for (int j = 0; j < Windows; ++j)
      warp::ballot_histogram(warp::full_mask, items.valid[j], items.ids[j], bits, counts);
  }
  const std::uint32_t lane = static_cast<std::uint32_t>(warp::lane_id());
  if constexpr (GroupWarps == 1) {
#pragma unroll
    for (int r = 0; r < Registers; ++r)
      if (lane + 32 * r < buckets) H[std::size_t{lane + 32 * r} * layout.chunks + c] = counts[r];
  } else {
#pragma unroll
    for (int r = 0; r < Registers; ++r)
      if (lane + 32 * r < buckets) warp_counts[(lane + 32 * r) * GroupWarps + in_group] = counts[r];
    __syncthreads();
    block::reduce_warp_counts<GroupWarps>(warp_counts, buckets, totals);
    __syncthreads();
    for (std::uint32_t b = threadIdx.x; b < buckets; b += blockDim.x) H[std::size_t{b} * layout.chunks + c] = totals[b];
  }
}

/// The prescan of strategy S with the fewest histogram registers that hold `buckets`.
template <class S, class K, class Ids>
void launch_prescan(context& ctx, unsigned blocks, const K* keys, const Ids& ids, std::uint32_t buckets,
                    const chunk_layout& layout, std::uint32_t* H) {
  constexpr int threads = S::warps_per_block * 32;
  auto launch = [&]<int Registers>() {
    prescan_kernel<Registers, S::group_warps, S::warps_per_block, S::windows, K, Ids>
        <<<blocks, threads, 0, ctx.stream()>>>(keys, ids, buckets, layout, H);
    SLUICE_CHECK_LAUNCH();
  };
  switch (histogram_registers(buckets)) {
    case 1: return launch.template operator()<1>();
    case 2: return launch.template operator()<2>();
    case 4: return launch.template operator()<4>();
    default: return launch.template operator()<8>();
  }
}

/// One multisplit of io.n elements into `buckets` buckets by `ids` with strategy S. Optional outputs:
/// offsets (buckets + 1 entries), kept (elements written), dropped (io.n − kept).
template <class S, class K, class V, class Ids>
void run_direct_pass(context& ctx, const pass_io<K, V>& io, const Ids& ids, std::uint32_t buckets, std::size_t* offsets,
                     std::size_t* kept, std::size_t* dropped) {
  constexpr int threads = S::warps_per_block * 32;
  constexpr int groups_per_block = S::warps_per_block / S::group_warps;
  constexpr std::size_t tile = std::size_t{S::group_warps} * S::windows * 32;
  auto postscan = S::template postscan<K, V, Ids>;

  const std::size_t groups = std::size_t{groups_per_block} * static_cast<std::size_t>(ctx.properties().sm_count) *
                             static_cast<std::size_t>(resident_blocks_per_sm(postscan, threads));
  const chunk_layout layout = make_layout(io.n, tile, groups);
  const auto blocks = static_cast<unsigned>(ceil_div(layout.chunks, groups_per_block));
  const std::size_t entries = std::size_t{buckets} * layout.chunks;
  scratch<std::uint32_t> H(ctx, entries);
  scratch<unsigned long long> G(ctx, entries);

  launch_prescan<S>(ctx, blocks, io.keys_in, ids, buckets, layout, H.get());
  scan_counts(ctx, H.get(), G.get(), entries);
  postscan<<<blocks, threads, 0, ctx.stream()>>>(io, ids, buckets, layout, G.get());
  SLUICE_CHECK_LAUNCH();
  if (offsets || kept || dropped) {
    finish_counts_kernel<std::uint32_t><<<1, tuning::helper_threads, 0, ctx.stream()>>>(
        H.get(), G.get(), buckets, layout.chunks, io.n, offsets, kept, dropped);
    SLUICE_CHECK_LAUNCH();
  }
}

}  // namespace sluice::detail::multisplit
