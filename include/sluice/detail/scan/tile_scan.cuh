// sluice/detail/scan/tile_scan.cuh: scanning one tile held in registers, the piece shared by the
// single-pass and the reduce-then-scan strategies.
//
// A tile is Threads × Items elements in blocked arrangement (thread t holds elements t·Items …). The
// thread scans its items sequentially, cub::BlockScan (warp scans, order-preserving) scans the thread
// totals, and the tile's incoming prefix (if any) is folded in on the left, so every output is
// prefix ⊕ in[0] ⊕ … in index order.
#pragma once

#include <sluice/block/tile_shape.hpp>
#include <cub/block/block_load.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>

#include <cuda/std/cstddef>

namespace sluice::detail::scan {

enum class scan_kind { inclusive, exclusive };

using block::tile_shape;
template <class T>
using default_shape = block::default_tile_shape<T>;

/// Block-level pieces of a tile scan, with their shared storage in one union.
template <class Shape, class T>
struct tile_io {
  using load = cub::BlockLoad<T, Shape::threads, Shape::items, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  using store = cub::BlockStore<T, Shape::threads, Shape::items, cub::BLOCK_STORE_WARP_TRANSPOSE>;
  using block_scan = cub::BlockScan<T, Shape::threads, cub::BLOCK_SCAN_WARP_SCANS>;
  union storage {
    typename load::TempStorage load;
    typename store::TempStorage store;
    typename block_scan::TempStorage scan;
  };
};

/// Loads `valid` elements at `from` (a pointer or any random-access iterator of T). A partial tile is
/// padded with copies of its first element, so no register is ever uninitialised; padding only affects
/// outputs past `valid`, which are not stored.
template <class Shape, class T, class Input>
__device__ __forceinline__ void load_tile(Input from, int valid, T (&items)[Shape::items],
                                          typename tile_io<Shape, T>::storage& temp) {
  using load = typename tile_io<Shape, T>::load;
  if (valid == Shape::tile) load(temp.load).Load(from, items);
  else load(temp.load).Load(from, items, valid, from[0]);
}

template <class Shape, class T>
__device__ __forceinline__ void store_tile(T* to, int valid, T (&items)[Shape::items],
                                           typename tile_io<Shape, T>::storage& temp) {
  using store = typename tile_io<Shape, T>::store;
  if (valid == Shape::tile) store(temp.store).Store(to, items);
  else store(temp.store).Store(to, items, valid);
}

/// The output side of a scan kernel: what happens to a scanned tile. A plain scan stores every element;
/// other operations built on the scan (segmented reductions, selection) keep only some.
template <class T>
struct store_all {
  T* out;
  template <class Shape>
  __device__ __forceinline__ void operator()(cuda::std::size_t offset, int valid, T (&items)[Shape::items],
                                             typename tile_io<Shape, T>::storage& temp) const {
    store_tile<Shape>(out + offset, valid, items, temp);
  }
};

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
                                               typename tile_io<Shape, T>::storage& temp) {
  using block_scan = typename tile_io<Shape, T>::block_scan;
  const T thread_total = scan_thread_items(items, op);
  T tile_total;
  block_scan(temp.scan).ExclusiveScan(thread_total, thread_prefix, op, tile_total);
  return tile_total;
}

/// The prefix of thread `t`'s first item: tile prefix ⊕ earlier threads (either may be absent).
template <class T, class Op>
__device__ __forceinline__ T thread_running_prefix(const T& tile_prefix, bool has_tile_prefix, const T& thread_prefix,
                                                   Op op) {
  if (threadIdx.x == 0) return tile_prefix;
  return has_tile_prefix ? op(tile_prefix, thread_prefix) : thread_prefix;
}

/// Stores one field of each scanned element (e.g. the value of a (head count, value) pair), coalesced
/// through shared memory: the scan's own storage is reused, the projected exchange needing less of it.
template <class T, class Project>
struct store_projection {
  T* out;
  Project project;
  template <class Shape, class Element>
  __device__ __forceinline__ void operator()(cuda::std::size_t offset, int valid, Element (&items)[Shape::items],
                                             typename tile_io<Shape, Element>::storage& temp) const {
    using store = cub::BlockStore<T, Shape::threads, Shape::items, cub::BLOCK_STORE_WARP_TRANSPOSE>;
    static_assert(sizeof(typename store::TempStorage) <= sizeof(temp) &&
                  alignof(typename store::TempStorage) <= alignof(decltype(temp)));
    T values[Shape::items];
#pragma unroll
    for (int i = 0; i < Shape::items; ++i) values[i] = project(items[i]);
    auto& storage = reinterpret_cast<typename store::TempStorage&>(temp);
    if (valid == Shape::tile) store(storage).Store(out + offset, values);
    else store(storage).Store(out + offset, values, valid);
  }
};

}  // namespace sluice::detail::scan
