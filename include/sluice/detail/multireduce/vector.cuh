// sluice/detail/multireduce/vector.cuh: multireduce by the vector trick (Eilers §4.1 / §5.1: lift each
// pair into an m-vector that is the identity except at its label, and reduce the m-vectors
// element-wise), for tiny m. Order-preserving: any associative operator, non-commutative ones with the
// oracle's bits.
//
// Nothing is lifted in memory: every lane keeps an m-vector of accumulators in registers.
//   lane     a warp tile of 32 · Items pairs comes in through cub::WarpLoad's transpose (coalesced, then
//            lane l holds pairs l·Items … l·Items + Items − 1, a contiguous run); the lane folds each
//            value onto the accumulator of its bucket in index order. The accumulator is chosen by
//            selects over a compile-time M ≥ m (gather acc[b], apply ⊕ once, scatter it back), never
//            by a dynamic register index, so ⊕ runs once per pair whatever M is.
//   warp     every warp owns a contiguous range of warp tiles; after each tile the lanes' vectors are
//            reduced in lane order (warp/reduce.cuh) and lane 0 folds the tile's vector onto the warp's
//            running one. (A lane cannot keep one vector across tiles: its runs of two tiles are not
//            adjacent in the input.)
//   block    the warps' vectors, in warp order, become the block's vector: partials[block · m + k].
//   grid     one wave of blocks over consecutive ranges, then one block per bucket folds the blocks'
//            partials in block order onto out[k] (block_partials.cuh, shared with warp_private_sets).
// Work O(n · M) selects and O(n) applications of ⊕, plus M warp reductions per 32 · Items pairs.
// Traffic: labels and values read once; blocks · m partials written and read once. No n-sized memory.
//
// Why m ≤ 8 (tuning.hpp's vector_max_buckets): a pair costs about M compares and 2·M·⌈sizeof(T)/4⌉
// selects. At M = 8 with 4-byte values and labels that is ~25 instructions per pair, under the ~70 that
// an H100 issues per pair while streaming 8 bytes per pair from HBM (132 SMs · 128 lanes · 1.75 GHz
// against 3.35 TB/s / 8 B), so the strategy stays bound by memory; block_sort_segmented pays a
// shared-memory radix sort per tile instead. At M = 16 the selects (~50) approach that limit and the
// registers (2 · 16 · 4 = 128 accumulator words for a 16-byte T) would spill (not measured).
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/core/operators.hpp>
#include <sluice/core/scratch.hpp>
#include <sluice/detail/multireduce/block_partials.cuh>
#include <sluice/detail/multireduce/common.cuh>
#include <sluice/detail/multireduce/tuning.hpp>
#include <sluice/detail/reduce/warp_shuffle.cuh>
#include <sluice/warp/reduce.cuh>

#include <cub/warp/warp_load.cuh>

#include <cuda/std/cstddef>
#include <cuda/std/cstdint>
#include <cuda/std/functional>  // cuda::std::min

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

namespace sluice::detail::multireduce {

/// No bucket: a padding position or a dropped label.
inline constexpr std::uint32_t vector_no_bucket = 0xFFFFFFFFu;

/// M accumulators in registers, selected by bucket without dynamic indexing.
template <int M, class T>
struct bucket_vector {
  T acc[M];

  template <class Op>
  __device__ __forceinline__ void fill_identity() {
#pragma unroll
    for (int k = 0; k < M; ++k) acc[k] = identity<Op, T>();
  }

  /// acc[b] = acc[b] ⊕ v for b < M; nothing for any other b (⊕ still runs once, on a discarded value).
  template <class Op>
  __device__ __forceinline__ void fold(std::uint32_t b, const T& v, Op op) {
    T a = acc[0];
#pragma unroll
    for (int k = 1; k < M; ++k) a = b == static_cast<std::uint32_t>(k) ? acc[k] : a;
    a = op(a, v);
#pragma unroll
    for (int k = 0; k < M; ++k) acc[k] = b == static_cast<std::uint32_t>(k) ? a : acc[k];
  }
};

/// Warp g = blockIdx.x · warps + w owns warp tiles [g · tiles_per_warp, (g + 1) · tiles_per_warp) and
/// folds them in order; the block writes its warps' vectors, folded in warp order, to
/// partials[blockIdx.x · m + k].
template <int M, int Items, class L, class T, class Op>
__global__ void __launch_bounds__(tuning::vector_threads)
    vector_tiles_kernel(const L* __restrict__ labels, const T* __restrict__ values, cuda::std::size_t n, std::uint32_t m,
                        cuda::std::size_t tiles_per_warp, T* __restrict__ partials, Op op, std::size_t* dropped) {
  constexpr int warps = tuning::vector_threads / warp::size;
  constexpr int warp_tile = warp::size * Items;
  using load_labels = cub::WarpLoad<L, Items, cub::WARP_LOAD_TRANSPOSE>;
  using load_values = cub::WarpLoad<T, Items, cub::WARP_LOAD_TRANSPOSE>;
  __shared__ union {
    typename load_labels::TempStorage labels;
    typename load_values::TempStorage values;
  } load[warps];
  __shared__ reduce::uninitialized_array<T, warps * M> warp_vectors;

  const int w = static_cast<int>(threadIdx.x) / warp::size;
  const int lane = warp::lane_id();
  const cuda::std::size_t tiles = (n + warp_tile - 1) / warp_tile;
  const cuda::std::size_t g = blockIdx.x * cuda::std::size_t{warps} + w;
  const cuda::std::size_t first = cuda::std::min(tiles, g * tiles_per_warp);
  const cuda::std::size_t last = cuda::std::min(tiles, first + tiles_per_warp);

  bucket_vector<M, T> running;  // valid in lane 0
  running.template fill_identity<Op>();
  unsigned long long mine_dropped = 0;
  for (cuda::std::size_t t = first; t < last; ++t) {
    const cuda::std::size_t offset = t * warp_tile;
    const int valid = static_cast<int>(cuda::std::min<cuda::std::size_t>(warp_tile, n - offset));
    L label[Items];
    T value[Items];
    if (valid == warp_tile) {
      load_labels(load[w].labels).Load(labels + offset, label);
      __syncwarp();
      load_values(load[w].values).Load(values + offset, value);
    } else {
      load_labels(load[w].labels).Load(labels + offset, label, valid, labels[offset]);
      __syncwarp();
      load_values(load[w].values).Load(values + offset, value, valid, values[offset]);
    }
    __syncwarp();  // the next tile's load reuses the storage
    bucket_vector<M, T> tile;
    tile.template fill_identity<Op>();
#pragma unroll
    for (int j = 0; j < Items; ++j) {
      const std::uint32_t b = lane * Items + j < valid ? bucket_of(label[j], m) : vector_no_bucket;
      mine_dropped += b == m;
      tile.fold(b < m ? b : vector_no_bucket, value[j], op);
    }
#pragma unroll
    for (int k = 0; k < M; ++k)
      if (static_cast<std::uint32_t>(k) < m) running.acc[k] = op(running.acc[k], warp::reduce(tile.acc[k], op));
  }

  T* const vectors = warp_vectors.data();
  if (lane == 0)
#pragma unroll
    for (int k = 0; k < M; ++k) vectors[w * M + k] = running.acc[k];
  __syncthreads();
  if (threadIdx.x < m) {
    T total = vectors[threadIdx.x];
    for (int v = 1; v < warps; ++v) total = op(total, vectors[v * M + threadIdx.x]);
    partials[blockIdx.x * cuda::std::size_t{m} + threadIdx.x] = total;
  }
  add_dropped(mine_dropped, dropped);
}

template <int M, class L, class T, class Op>
void reduce_vectors(context& ctx, const L* labels, const T* values, std::size_t n, T* out, std::uint32_t m, Op op,
                    std::size_t* dropped) {
  constexpr int threads = tuning::vector_threads;
  constexpr int items = tuning::vector_items(sizeof(L), sizeof(T));
  constexpr int warps = threads / warp::size;
  auto kernel = vector_tiles_kernel<M, items, L, T, Op>;
  const std::size_t tiles = ceil_div(n, std::size_t{warp::size} * items);
  const std::size_t wave = one_wave_grid(ctx, kernel, threads, ceil_div(tiles, warps));
  const std::size_t tiles_per_warp = ceil_div(tiles, wave * warps);
  const std::size_t blocks = ceil_div(tiles, tiles_per_warp * warps);
  scratch<T> partials(ctx, blocks * m);
  kernel<<<static_cast<unsigned>(blocks), threads, 0, ctx.stream()>>>(labels, values, n, m, tiles_per_warp,
                                                                     partials.get(), op, dropped);
  SLUICE_CHECK_LAUNCH();
  fold_block_partials(ctx, partials.get(), blocks, m, out, op);
}

/// The vector strategy for m ≤ vector_max_buckets, with M the power of two ≥ m (fewer selects for
/// smaller m). Larger m is an "options" error: resolve (plan.hpp) rejects it before out is touched;
/// this check guards callers that bypass it.
template <class L, class T, class Op>
void run_vector(context& ctx, const L* labels, const T* values, std::size_t n, T* out, std::uint32_t m, Op op,
                std::size_t* dropped) {
  constexpr std::uint32_t max_buckets = tuning::vector_max_buckets;
  static_assert(max_buckets == 8, "the instantiations below cover M = 1, 2, 4, 8");
  if (m > max_buckets)
    throw invalid_argument("multireduce", "options",
                           "vector keeps m accumulators per thread: at most " + std::to_string(max_buckets) +
                               " buckets, not m = " + std::to_string(m));
  if (n == 0) return;
  if (m == 1) reduce_vectors<1>(ctx, labels, values, n, out, m, op, dropped);
  else if (m == 2) reduce_vectors<2>(ctx, labels, values, n, out, m, op, dropped);
  else if (m <= 4) reduce_vectors<4>(ctx, labels, values, n, out, m, op, dropped);
  else reduce_vectors<8>(ctx, labels, values, n, out, m, op, dropped);
}

}  // namespace sluice::detail::multireduce
