// sluice/detail/segmented/merge_path.cuh: segmented reduction by offsets as a merge of the segment ends
// with the elements (merge-path partitioning: Green, McColl and Bader 2012; the CSR SpMV of Merrill and
// Garland 2016 is the same walk). A streaming strategy: no head flags, no look-back chain.
//
// Segment k holds elements [offsets[k], offsets[k+1]). Merge the S segment ends offsets[1..S] with the
// element indices [offsets[0], offsets[S]), an end before an element when end ≤ index: walking the
// merged list, an element adds to the open segment and an end closes it (an empty segment is an end
// right after an end). Every tile takes the same number of merged items, so one huge segment and
// millions of empty ones cost the same per item, and the work per tile is bounded.
//
//   1. partition_kernel: the merge-path split (ends taken) at every tile boundary, one binary search
//      over the offsets per boundary, all in parallel.
//   2. reduce_tiles_kernel: a tile stages its elements and its ends in shared memory (coalesced); each
//      thread splits its part of the tile by a second merge-path search and walks it, emitting every
//      segment that starts and ends inside its part; the threads' open pieces combine by a block scan
//      of `carry`s (segmented ⊕), which completes every segment that ends in the tile, except the first
//      one, which also needs the tiles before. Its partial goes to out[k] and the tile's own carry out.
//   3. The tiles' carries are scanned (tile 0's carry starts with init) by a fixed-order scan (Brent–Kung
//      tiles, recursing on the tile totals: scan::brent_kung_inclusive, detail/scan/dispatch.cuh), and
//      fix_kernel prepends each tile's carry-in to its first segment.
// Operands combine in index order (non-commutative operators are exact); init is applied once, at each
// segment's start. Deterministic: every level combines in an order fixed by n, S and the tile shape (a
// thread's walk, the block scan, the carries' Brent–Kung tree, one fix per tile), never by scheduling —
// a look-back scan of the carries would group a long segment's tile sums by timing, and float sums
// would then differ in rounding from run to run. Traffic: values read once, offsets read once (plus log2 S per tile boundary), one
// write per segment, O(tiles) for the carries.
//
// Bad (unvalidated) offsets give unspecified sums but every index stays inside [0, S) and the clamped
// element range: each walk is bounded by the split it was given.
#pragma once

#include <sluice/block/tile_shape.hpp>
#include <sluice/core/error.hpp>
#include <sluice/detail/segmented/tuning.hpp>

#include <cub/block/block_scan.cuh>

#include <cuda/std/functional>  // cuda::std::min, max (this CCCL has no <cuda/std/algorithm>)
#include <cuda/std/cstddef>
#include <cuda/std/cstdint>

namespace sluice::detail::segmented::merge_path {

using cuda::std::size_t;

/// The tile (tuning.hpp): about 12 KiB of staged values whatever the element size (plus 4 bytes per
/// staged end); Items are merged items per thread, odd so that the threads' element runs in shared
/// memory start in different banks (stride Items words).
template <class T>
using default_shape = tuning::merge_path_tile<T>;

/// An open piece of the reduction: whether a segment end was crossed, and the ⊕ of the elements since
/// the last end (a piece that starts at an end starts with init). Combining keeps the right piece when
/// it crossed an end: the segmented ⊕ over an optional value, whose identity is {false, false}.
template <class T>
struct carry {
  bool ended;
  bool has_value;
  T value;
};

template <class Op>
struct carry_op {
  Op op;
  template <class T>
  __host__ __device__ carry<T> operator()(const carry<T>& a, const carry<T>& b) const {
    if (b.ended || !a.has_value) return {static_cast<bool>(a.ended || b.ended), b.has_value, b.value};
    if (!b.has_value) return {a.ended, true, a.value};
    return {a.ended, true, op(a.value, b.value)};
  }
};

/// The merged list, as indices: element j is offsets[0] + j (clamped to the input), end k is
/// offsets[k + 1] − offsets[0] (clamped to the element range, so bad offsets stay in bounds). Built on
/// the device, where the offsets are: the host knows only S and n.
struct merge_list {
  const size_t* offsets;
  size_t segments;  ///< S ≥ 1
  size_t first;     ///< offsets[0], clamped to n
  size_t elements;  ///< E: offsets[S] − offsets[0], clamped to the input

  __device__ static merge_list over(const size_t* offsets, size_t segments, size_t n) {
    const size_t first = cuda::std::min(offsets[0], n);
    const size_t last = cuda::std::min(cuda::std::max(offsets[segments], first), n);
    return {offsets, segments, first, last - first};
  }

  __host__ __device__ size_t items() const { return elements + segments; }
  __device__ size_t end(size_t k) const {
    const size_t o = offsets[k + 1];
    return o <= first ? 0 : cuda::std::min(o - first, elements);
  }
};

/// Ends taken in the first d merged items: the largest s with end(s − 1) ≤ d − s (binary search);
/// `end` maps an end's index to its element position, `ends` and `elements` bound the lists. Index is
/// size_t over the whole list, int inside a tile.
template <class Index, class End>
__device__ Index split_at(Index d, Index ends, Index elements, End end) {
  Index lo = d > elements ? d - elements : 0;
  Index hi = cuda::std::min(d, ends);
  while (lo < hi) {
    const Index mid = lo + (hi - lo + 1) / 2;
    if (end(mid - 1) <= d - mid) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/// splits[t] = ends taken before tile t's first item, t = 0 … tiles (the last one at the list's end).
/// Tiles past the list's end (the host sizes the grid for E = n) get empty splits.
template <int TileItems>
__global__ void partition_kernel(const size_t* offsets, size_t segments, size_t n, size_t tiles, size_t* splits) {
  const size_t t = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  if (t > tiles) return;
  const merge_list list = merge_list::over(offsets, segments, n);
  const size_t d = cuda::std::min(t * TileItems, list.items());
  splits[t] = split_at(d, list.segments, list.elements, [&](size_t k) { return list.end(k); });
}

/// Where each tile's first segment needs the tiles before it: the segment (none = no end in the tile)
/// and whether out[segment] already holds the tile's part of it.
struct first_segment_fix {
  static constexpr size_t none = ~size_t{0};
  size_t segment;
  bool has_partial;
};

template <class Shape, class T>
struct tile_storage {
  T values[Shape::tile];
  cuda::std::uint32_t ends[Shape::tile];  ///< relative to the tile's first element
  typename cub::BlockScan<carry<T>, Shape::threads>::TempStorage scan;
};

/// One thread's walk over its items (a contiguous run of the merged list): the segments it completes
/// go straight to `out`; what is before its first end (`head`) and after its last end (`tail`) is
/// returned for the block scan.
template <class T>
struct thread_walk {
  bool ended = false;    ///< crossed at least one end
  int first_segment{};   ///< the first end crossed, relative to the tile's first
  carry<T> head{};       ///< elements before the first end (no `ended`)
  carry<T> tail{};       ///< since the last end (starts with init), or everything when no end
};

/// The walk keeps the next end's position in a register, so an element costs a compare, a shared load
/// and the ⊕ (docs/perf-notes.md, "the merge-path segmented reduce"). Every staged end is
/// ≤ tile_elements, so within the thread's items an element step always has j < tile_elements (when no
/// end is left, k + j < tile items puts j below it; otherwise next_end > j), even for bad offsets. The
/// first step is peeled: it is the only one that may find no value yet (every step leaves one).
template <class Shape, class T, class Op>
__device__ thread_walk<T> walk(const tile_storage<Shape, T>& s, int item_begin, int item_count, int tile_ends,
                               int tile_elements, T* tile_out, T init, Op op) {
  constexpr cuda::std::uint32_t no_end = ~cuda::std::uint32_t{0};
  int k = split_at(item_begin, tile_ends, tile_elements, [&](int e) { return static_cast<int>(s.ends[e]); });
  int j = item_begin - k;
  cuda::std::uint32_t next_end = k < tile_ends ? s.ends[k] : no_end;
  thread_walk<T> w;
  T value{};
  const auto close_segment = [&] {  // the end of segment k: the first one waits for the block scan
    if (!w.ended) {
      w.ended = true;
      w.first_segment = k;
    } else {
      tile_out[k] = value;  // opened at this thread's previous end, with init
    }
    value = init;
    ++k;
    next_end = k < tile_ends ? s.ends[k] : no_end;
  };
  if (item_count <= 0) return w;
  if (next_end <= static_cast<cuda::std::uint32_t>(j)) {
    w.head = {false, false, T{}};
    close_segment();
  } else {
    value = s.values[j++];
  }
#pragma unroll
  for (int step = 1; step < Shape::items; ++step) {
    if (step >= item_count) break;
    if (next_end <= static_cast<cuda::std::uint32_t>(j)) {
      if (!w.ended) w.head = {false, true, value};
      close_segment();
    } else {
      value = op(value, s.values[j++]);
    }
  }
  w.tail = {w.ended, true, value};
  return w;
}

/// Stages source(0 … count) into shared memory, striped over the threads: Items independent loads in
/// flight per thread before the first store, so a tile's reads overlap. For the values, whose count is
/// about a tile.
template <class Shape, class T, class Source>
__device__ void stage_striped(T (&to)[Shape::tile], int count, Source source) {
  const int first = static_cast<int>(threadIdx.x);
  T* const mine = to + first;  // one shared address, offsets per item (not an address per store)
  T r[Shape::items];
#pragma unroll
  for (int i = 0; i < Shape::items; ++i)
    if (first + i * Shape::threads < count) r[i] = source(first + i * Shape::threads);
#pragma unroll
  for (int i = 0; i < Shape::items; ++i)
    if (first + i * Shape::threads < count) mine[i * Shape::threads] = r[i];
}

/// The same for the ends, whose count is anything from 0 to a tile: a loop that costs nothing for the
/// threads past the count (a tile of 256-element segments holds 15 ends).
template <class Shape, class T, class Source>
__device__ void stage_looped(T (&to)[Shape::tile], int count, Source source) {
  for (int at = static_cast<int>(threadIdx.x); at < count; at += Shape::threads) to[at] = source(at);
}

template <class Shape, class T, class Op>
__global__ void __launch_bounds__(Shape::threads)
    reduce_tiles_kernel(const T* values, size_t n, const size_t* offsets, size_t segments, const size_t* splits,
                        T* out, T init, Op op, carry<T>* tile_carries, first_segment_fix* fixes) {
  __shared__ tile_storage<Shape, T> s;
  const merge_list list = merge_list::over(offsets, segments, n);
  const size_t t = blockIdx.x;
  const size_t d0 = cuda::std::min(t * Shape::tile, list.items());
  const size_t d1 = cuda::std::min(d0 + Shape::tile, list.items());
  const size_t k0 = splits[t];
  const size_t k1 = cuda::std::max(splits[t + 1], k0);
  const size_t j0 = cuda::std::min(d0 - k0, list.elements);
  const size_t j1 = cuda::std::min(cuda::std::max(d1 - k1, j0), list.elements);
  const int tile_ends = static_cast<int>(cuda::std::min<size_t>(k1 - k0, Shape::tile));
  const int tile_elements = static_cast<int>(cuda::std::min<size_t>(j1 - j0, Shape::tile));

  const T* tile_values = values + list.first + j0;
  stage_striped<Shape>(s.values, tile_elements, [&](int i) { return tile_values[i]; });
  stage_looped<Shape>(s.ends, tile_ends, [list, k0, j0, tile_elements](int i) {  // by value: no stack copy
    const size_t e = list.end(k0 + static_cast<size_t>(i));
    return static_cast<cuda::std::uint32_t>(cuda::std::min(e > j0 ? e - j0 : 0, static_cast<size_t>(tile_elements)));
  });
  __syncthreads();

  const int item_begin = static_cast<int>(threadIdx.x) * Shape::items;
  const int item_count = static_cast<int>(d1 - d0) - item_begin;
  const thread_walk<T> w = walk(s, item_begin, item_count, tile_ends, tile_elements, out + k0, init, op);
  const size_t first_segment = k0 + static_cast<size_t>(w.first_segment);

  // Tile 0 starts as if right after an end: segment 0 opens with init.
  const carry<T> tile_start = t == 0 ? carry<T>{true, true, init} : carry<T>{false, false, T{}};
  carry<T> before, aggregate;
  const carry_op<Op> combine{op};
  cub::BlockScan<carry<T>, Shape::threads>(s.scan).ExclusiveScan(w.tail, before, tile_start, combine, aggregate);

  if (w.ended) {
    const carry<T> first = combine(before, w.head);
    // `before` already crossed an end (in the tile, or tile 0's start): the segment is complete here.
    if (before.ended) out[first_segment] = first.value;
    else {
      if (first.has_value) out[first_segment] = first.value;
      fixes[t] = {first_segment, first.has_value};
    }
  }
  if (threadIdx.x == 0) {
    tile_carries[t] = combine(tile_start, aggregate);
    if (!aggregate.ended) fixes[t] = {first_segment_fix::none, false};
  }
}

/// Prepends each tile's carry-in, the tiles before it (`scanned`: the inclusive scan of the tile
/// carries, so tile t's carry-in is scanned[t − 1]), to its first segment. A segment is the first of at
/// most one tile, so every out entry has at most one writer.
template <class T, class Op>
__global__ void fix_kernel(const carry<T>* scanned, const first_segment_fix* fixes, size_t tiles, T* out, Op op) {
  for (size_t t = 1 + blockIdx.x * size_t{blockDim.x} + threadIdx.x; t < tiles; t += size_t{gridDim.x} * blockDim.x) {
    const first_segment_fix fix = fixes[t];
    if (fix.segment == first_segment_fix::none) continue;
    const T& carry_in = scanned[t - 1].value;
    out[fix.segment] = fix.has_partial ? op(carry_in, out[fix.segment]) : carry_in;
  }
}

}  // namespace sluice::detail::segmented::merge_path
