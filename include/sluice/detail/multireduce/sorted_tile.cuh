// sluice/detail/multireduce/sorted_tile.cuh: one tile of (label, value) pairs sorted by bucket in shared
// memory and scanned run by run: the block piece of Eilers Alg. 4.13 (multireduce) and Alg. 5.4
// (multiscan), shared by both block_sort_segmented strategies.
//
// Steps (the thesis's names):
//   load     the values are staged in shared memory in input order (coalesced, one pass); the labels
//            come in blocked arrangement through cub::BlockLoad's warp transpose (the thesis's Baxter
//            transpose, Alg. 4.5–4.7: what a stable sort needs, since BlockRadixSort keeps the blocked
//            rank order of equal keys) and become bucket ids: bucket_of (m for a dropped label) and
//            m + 1 for the padding of a partial tile, so both sort after every bucket and stay apart.
//   sort     cub::BlockRadixSort (stable) of (bucket, position in the tile) over ⌈log2(m + 2)⌉ bits.
//            Only 2-byte positions move through the sort; each thread then gathers its values from
//            the staged tile (the thesis's "sort (label, {index, value})" without moving the value
//            twice, so values of any size cost the same sort).
//   scan     runs of equal buckets (heads and tails from the neighbouring threads' ends), each run's
//            inclusive scan in tile order (block/run_scan.cuh: Alg. 4.13 phases 1–3).
// Afterwards thread t holds Items consecutive sorted elements; an element with tail set ends its run,
// and its value is the run's total: the tile's partial result for its bucket.
// Shared memory: the staged values (tile · sizeof(T)) plus the largest of the load, sort and scan storages.
#pragma once

#include <sluice/block/load.cuh>
#include <sluice/block/neighbours.cuh>
#include <sluice/block/run_scan.cuh>
#include <sluice/block/tile_shape.hpp>
#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/core/operators.hpp>
#include <sluice/detail/multireduce/common.cuh>
#include <sluice/detail/multireduce/tuning.hpp>
#include <sluice/detail/scan/tile_scan.cuh>

#include <cub/block/block_radix_sort.cuh>

#include <cuda/std/cstddef>
#include <cuda/std/functional>  // cuda::std::min (this CCCL has no <cuda/std/algorithm>)
#include <cuda/std/cstdint>
#include <cuda/std/type_traits>

#include <bit>
#include <cstddef>
#include <cstdint>

namespace sluice::detail::multireduce {

/// Bits of a tile's sort keys: bucket ids in [0, m + 1] (m: dropped, m + 1: padding).
inline int tile_sort_bits(std::uint32_t m) { return std::bit_width(std::uint64_t{m} + 1); }

template <class Shape, class L, class T>
struct sorted_tile {
  static constexpr int threads = Shape::threads;
  static constexpr int items = Shape::items;
  static constexpr int tile = Shape::tile;
  static_assert(tile <= 65536, "positions in the tile are 16-bit");
  using position_t = std::uint16_t;

  using load_labels = scan::block_load_t<Shape, L>;
  using sort_t = cub::BlockRadixSort<std::uint32_t, threads, items, position_t>;
  using scan_t = block::run_scan<T, threads, items>;
  struct ends {
    std::uint32_t first, last;
  };

  struct TempStorage {
    union {
      typename load_labels::TempStorage load;
      typename sort_t::TempStorage sort;
      block::neighbour_storage<threads, ends> neighbours;
      typename scan_t::TempStorage scan;
    } work;
    alignas(alignof(T) > 16 ? alignof(T) : 16) unsigned char staged[tile * sizeof(T)];  ///< the tile's values by position
  };

  std::uint32_t bucket[items];  ///< sorted bucket ids (m: dropped, m + 1: padding)
  position_t position[items];   ///< each sorted element's position in the tile
  T value[items];               ///< its value; after scan(), the ⊕ of its run up to it
  unsigned run[items];          ///< after scan(): its run's index in the tile
  bool head[items];             ///< after scan(): it starts its run
  bool tail[items];             ///< after scan(): it ends its run
  unsigned runs = 0;            ///< after scan(): the tile's number of runs (padding included)
  unsigned dropped = 0;         ///< this thread's dropped labels, over every tile it loaded

  /// Loads the `valid` pairs at `offset` and sorts them by bucket (stable); `bits` = tile_sort_bits(m).
  /// `values` is a pointer or anything indexable (multitag's ones). Ends with a barrier: the work
  /// storage is free again.
  template <class Values>
  __device__ void load_and_sort(TempStorage& temp, const L* labels, Values values, cuda::std::size_t offset,
                                int valid, std::uint32_t m, int bits) {
    T* staged = reinterpret_cast<T*>(temp.staged);
    if constexpr (cuda::std::is_pointer_v<Values>) block::copy_to_shared(values + offset, staged, valid);
    else
      for (int i = threadIdx.x; i < valid; i += threads) staged[i] = values[offset + i];
    L raw[items];
    scan::load_tile<Shape>(labels + offset, valid, raw, temp.work.load);
#pragma unroll
    for (int j = 0; j < items; ++j) {
      const int p = static_cast<int>(threadIdx.x) * items + j;
      bucket[j] = p < valid ? bucket_of(raw[j], m) : m + 1;
      dropped += bucket[j] == m;
      position[j] = static_cast<position_t>(p);
    }
    __syncthreads();
    sort_t(temp.work.sort).Sort(bucket, position, 0, bits);
    __syncthreads();
#pragma unroll
    for (int j = 0; j < items; ++j) value[j] = staged[position[j]];
  }

  /// Scans every run in tile order (Alg. 4.13 phases 1–3) and marks the runs' tails. Ends with a barrier.
  template <class Op>
  __device__ void scan(TempStorage& temp, Op op) {
    find_edges(temp);
    __syncthreads();
    runs = scan_t::inclusive(temp.work.scan, head, value, run, op);
    __syncthreads();
  }

 private:
  /// A run starts where the bucket differs from its predecessor's and ends where it differs from its
  /// successor's; the tile's first and last elements bound runs (padding is a run of its own).
  __device__ void find_edges(TempStorage& temp) {
    ends* slot = temp.work.neighbours.slot();
    slot[threadIdx.x] = {bucket[0], bucket[items - 1]};
    __syncthreads();
    head[0] = threadIdx.x == 0 || slot[threadIdx.x - 1].last != bucket[0];
    tail[items - 1] = threadIdx.x + 1 == threads || slot[threadIdx.x + 1].first != bucket[items - 1];
#pragma unroll
    for (int j = 1; j < items; ++j) {
      head[j] = bucket[j] != bucket[j - 1];
      tail[j - 1] = head[j];
    }
  }
};

/// The block's m accumulators in dynamic shared memory, set to the identity (the caller's next barrier
/// publishes them).
template <class Op, class T>
__device__ __forceinline__ T* identity_accumulators(std::uint32_t m) {
  extern __shared__ __align__(16) unsigned char dynamic_shared[];
  T* accumulators = reinterpret_cast<T*>(dynamic_shared);
  for (std::uint32_t k = threadIdx.x; k < m; k += blockDim.x) accumulators[k] = identity<Op, T>();
  return accumulators;
}

/// The launch of an accumulator kernel: one wave of blocks, each owning tiles_per_block consecutive tiles,
/// with m accumulators of T in dynamic shared memory.
struct accumulator_launch {
  std::size_t blocks = 0;
  std::size_t tiles_per_block = 0;
  std::size_t shared_bytes = 0;

  template <class Shape, class T, class Kernel>
  static accumulator_launch plan(const context& ctx, Kernel kernel, std::size_t n, std::uint32_t m) {
    accumulator_launch launch;
    launch.shared_bytes = std::size_t{m} * sizeof(T);
    SLUICE_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(launch.shared_bytes)));
    const std::size_t tiles = ceil_div(n, Shape::tile);
    launch.tiles_per_block = ceil_div(tiles, one_wave_grid(ctx, kernel, Shape::threads, tiles, launch.shared_bytes));
    launch.blocks = ceil_div(tiles, launch.tiles_per_block);
    return launch;
  }
};

/// The tiles [first, last) that block b of an accumulator launch owns.
struct block_tiles {
  cuda::std::size_t first, last;
  __device__ block_tiles(cuda::std::size_t n, int tile, cuda::std::size_t tiles_per_block)
      : first(blockIdx.x * tiles_per_block),
        last(cuda::std::min((n + tile - 1) / tile, (blockIdx.x + cuda::std::size_t{1}) * tiles_per_block)) {}
};

}  // namespace sluice::detail::multireduce
