// sluice/detail/scan/tile_scan.cuh: scanning one tile held in registers, the piece shared by the
// single-pass and the reduce-then-scan strategies, and the tile programs that feed the single pass.
//
// A tile is Threads × Items elements in blocked arrangement (thread t holds elements t·Items …). The
// thread scans its items sequentially, cub::BlockScan (warp scans, order-preserving) scans the thread
// totals, and the tile's incoming prefix (if any) is folded in on the left, so every output is
// prefix ⊕ in[0] ⊕ … in index order.
//
// A tile program (see decoupled_look_back.cuh) tells the single-pass kernel where a tile's scan
// elements come from and what becomes of the scanned tile, in two phases that share registers:
//   load(offset, valid, loaded, items, temp)     raw inputs → registers (`loaded`) → scan elements
//   store(offset, valid, loaded, scanned, temp)  scanned elements (and the raw inputs, still in
//                                                registers) → outputs
// so operations built on the scan (segmented, select, recurrences) read each input once, as coalesced
// block loads, and never re-read a tile to write it.
#pragma once

#include <sluice/block/tile_shape.hpp>
#include <sluice/detail/scan/tuning.hpp>

#include <cub/block/block_load.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>

#include <cuda/std/cstddef>

namespace sluice::detail::scan {

enum class scan_kind { inclusive, exclusive };

using block::tile_shape;
/// The tile of reduce_then_scan's rescan (tuning.hpp).
template <class T>
using default_shape = tuning::rescan_tile<T>;

/// The single-pass scan's tile (tuning.hpp): 128 threads with about 96 bytes of elements each.
template <class T>
using single_pass_shape = tuning::single_pass_tile<T>;

template <class Shape, class U>
using block_load_t = cub::BlockLoad<U, Shape::threads, Shape::items, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
template <class Shape, class U>
using block_store_t = cub::BlockStore<U, Shape::threads, Shape::items, cub::BLOCK_STORE_WARP_TRANSPOSE>;
template <class Shape, class T>
using block_scan_t = cub::BlockScan<T, Shape::threads, cub::BLOCK_SCAN_WARP_SCANS>;

/// Shared memory of a tile that is loaded, scanned and stored as T.
template <class Shape, class T>
union tile_io_storage {
  typename block_load_t<Shape, T>::TempStorage load;
  typename block_store_t<Shape, T>::TempStorage store;
  typename block_scan_t<Shape, T>::TempStorage scan;
};

/// Loads `valid` elements at `from` (a pointer or any random-access iterator of U), coalesced, into
/// blocked arrangement. A partial tile is padded with copies of its first element, so no register is
/// ever uninitialised; padding only affects outputs past `valid`, which are not stored.
template <class Shape, class U, class Input>
__device__ __forceinline__ void load_tile(Input from, int valid, U (&items)[Shape::items],
                                          typename block_load_t<Shape, U>::TempStorage& temp) {
  using load = block_load_t<Shape, U>;
  if (valid == Shape::tile) load(temp).Load(from, items);
  else load(temp).Load(from, items, valid, from[0]);
}

template <class Shape, class U>
__device__ __forceinline__ void store_tile(U* to, int valid, U (&items)[Shape::items],
                                           typename block_store_t<Shape, U>::TempStorage& temp) {
  using store = block_store_t<Shape, U>;
  if (valid == Shape::tile) store(temp).Store(to, items);
  else store(temp).Store(to, items, valid);
}

/// Stores project(items[j]) for every element (e.g. the value of a (head count, value) pair), coalesced.
template <class Shape, class U, class Element, class Project>
__device__ __forceinline__ void store_projected_tile(U* to, int valid, const Element (&items)[Shape::items],
                                                     Project project,
                                                     typename block_store_t<Shape, U>::TempStorage& temp) {
  U values[Shape::items];
#pragma unroll
  for (int j = 0; j < Shape::items; ++j) values[j] = project(items[j]);
  store_tile<Shape>(to, valid, values, temp);
}

/// The tile program of a plain scan: `in` (a pointer or random-access iterator of T) → `out`.
template <class Shape, class T, class Input>
struct scan_program {
  using shape = Shape;
  using element = T;
  struct loaded {};
  union temp_storage {
    typename block_load_t<Shape, T>::TempStorage load;
    typename block_store_t<Shape, T>::TempStorage store;
  };

  Input in;
  T* out;

  __device__ __forceinline__ void load(cuda::std::size_t offset, int valid, loaded&, T (&items)[Shape::items],
                                       temp_storage& temp) const {
    load_tile<Shape>(in + offset, valid, items, temp.load);
  }
  __device__ __forceinline__ void store(cuda::std::size_t offset, int valid, const loaded&, T (&items)[Shape::items],
                                        temp_storage& temp) const {
    store_tile<Shape>(out + offset, valid, items, temp.store);
  }
};

template <class Shape, class T, class Input>
__host__ __device__ scan_program<Shape, T, Input> make_scan_program(Input in, T* out) {
  return {in, out};
}

/// Scans the thread's items in place (inclusive, sequential) and returns the thread's total.
template <int Items, class T, class Op>
__device__ __forceinline__ T scan_thread_items(T (&items)[Items], Op op) {
#pragma unroll
  for (int i = 1; i < Items; ++i) items[i] = op(items[i - 1], items[i]);
  return items[Items - 1];
}

/// Turns the thread's locally scanned items into final outputs, given the prefix of everything before
/// the thread's first item (`has_prefix` false only at the very start of an inclusive scan without init).
template <scan_kind Kind, int Items, class T, class Op>
__device__ __forceinline__ void apply_prefix(T (&items)[Items], const T& prefix, bool has_prefix, Op op) {
  if constexpr (Kind == scan_kind::inclusive) {
    if (!has_prefix) return;
#pragma unroll
    for (int i = 0; i < Items; ++i) items[i] = op(prefix, items[i]);
  } else {  // exclusive scans always have a prefix (their init)
#pragma unroll
    for (int i = Items - 1; i > 0; --i) items[i] = op(prefix, items[i - 1]);
    items[0] = prefix;
  }
}

/// Scans a loaded tile: returns the tile total (in every thread) and leaves each thread's items
/// scanned locally; `thread_prefix` receives the combination of the tile's earlier threads (undefined
/// in thread 0).
template <class Shape, class T, class Op>
__device__ __forceinline__ T scan_tile_locally(T (&items)[Shape::items], T& thread_prefix, Op op,
                                               typename block_scan_t<Shape, T>::TempStorage& temp) {
  const T thread_total = scan_thread_items(items, op);
  T tile_total;
  block_scan_t<Shape, T>(temp).ExclusiveScan(thread_total, thread_prefix, op, tile_total);
  return tile_total;
}

/// The prefix of thread `t`'s first item: tile prefix ⊕ earlier threads (either may be absent).
template <class T, class Op>
__device__ __forceinline__ T thread_running_prefix(const T& tile_prefix, bool has_tile_prefix, const T& thread_prefix,
                                                   Op op) {
  if (threadIdx.x == 0) return tile_prefix;
  return has_tile_prefix ? op(tile_prefix, thread_prefix) : thread_prefix;
}

}  // namespace sluice::detail::scan
