// sluice/detail/select/classify_scatter.cuh: stream compaction and stable partitions as one
// single-pass scan of class counts that scatters from registers (DTU §4.5 compact; Palik §5.3 split,
// §6.2 3-way split).
//
// Each element gets a class (0..Classes−1, or `dropped` for select's rejects). The destination of
// element i of class c is
//   base_c + (number of class-c elements before i),   base_c = total of the classes before c
// (partitions know the totals from a counting pass before; select has one class and base 0).
//
// A tile is Threads × Items elements in warp-striped order: warp w owns the tile's w-th segment of
// 32·Items consecutive elements, and item j of lane l is the segment's element 32j + l, so every load
// instruction reads one coalesced run of 32 elements. Per tile:
//   rank:      a warp ranks its segment with one ballot per item and kept class: the rank of an
//              element among the segment's elements of its class is a population count of the ballots
//              before it (32-bit, segment-local);
//   reduce:    the warps' counts meet in shared memory (one barrier), giving each warp its offset in
//              the tile and the tile's counts;
//   look back: select: warp 0 publishes the tile's counts and looks back for the counts before the tile
//              (decoupled look-back, scan/look_back.cuh; a second barrier hands them to the block).
//              Partitions count first anyway (for the totals), so they count per tile (reduce, then
//              scan: count_tile_classes_kernel, a device scan of the tile counts) and each tile reads
//              the counts before it: no look-back, no wait on the tiles before (DTU §4.5's
//              reduce-then-scan; the look-back's waits at the block barrier cost the partition half its
//              cycles, docs/perf-notes.md);
//   scatter:   every thread stores its kept elements straight from registers. Within a row of a warp
//              the elements of one class have consecutive destinations, so each store instruction
//              writes contiguous runs; nothing is staged in shared memory.
// Why this shape and not the scan-program tile (blocked arrangement, a scan of one-hot counts, staging
// by class): that version spent most of its instructions after the look-back (docs/perf-notes.md,
// "Issue 3: select against CUB's agent").
//
// Traffic: select reads the input once and writes the kept elements; partitions add one counting
// pass over the input and a scan of one count per class and tile. Work O(n). Stable by construction.
#pragma once

#include <sluice/detail/scan/look_back.cuh>
#include <sluice/detail/select/tuning.hpp>
#include <sluice/warp/shuffle.cuh>

#include <cub/block/block_reduce.cuh>

#include <cuda/std/cstddef>
#include <cuda/std/cstdint>

namespace sluice::detail::select {

inline constexpr int dropped = -1;

/// Counts of the kept classes 0..Kept−1 (a partition's last class is implied: elements − Σ).
template <class Count, int Kept>
struct class_counts {
  Count c[Kept];
};

struct add_counts {
  template <class Count, int Kept>
  __host__ __device__ class_counts<Count, Kept> operator()(const class_counts<Count, Kept>& a,
                                                          const class_counts<Count, Kept>& b) const {
    class_counts<Count, Kept> r;
    for (int k = 0; k < Kept; ++k) r.c[k] = static_cast<Count>(a.c[k] + b.c[k]);
    return r;
  }
};

// ---- tuning -------------------------------------------------------------------------------------------

/// The tile and the look-back of the classify-scatter pass: Threads threads (whole warps) holding
/// Items elements each, in warp-striped order.
template <int Threads, int Items, class LookBack = tuning::look_back>
struct scatter_tuning {
  static_assert(Threads % warp::size == 0 && Items >= 1, "whole warps, at least one item each");
  static constexpr int threads = Threads;
  static constexpr int items = Items;
  static constexpr int warps = Threads / warp::size;
  static constexpr int warp_items = warp::size * Items;  ///< a warp's segment
  static constexpr int tile = Threads * Items;
  using look_back = LookBack;
};

/// The default tile (tuning.hpp): 384 threads × 16 items of 4 bytes for select and unique, × 12 for the
/// partitions, fewer items for larger elements.
template <class T, int Classes = 1>
using default_scatter_tuning =
    scatter_tuning<tuning::scatter_threads,
                   tuning::scatter_items(Classes == 1 ? tuning::select_items : tuning::partition_items,
                                         static_cast<int>(sizeof(T)))>;

// ---- classifiers: the classes of a warp's items, in registers -----------------------------------------
//
//   classify_warp<Items>(segment, warp_valid, values, classes)
// item j of the calling lane is element segment + 32j + lane; items at 32j + lane ≥ warp_valid are
// padding (copies of a valid element), whose classes the caller replaces by `dropped`. All 32 lanes
// call it.

/// Classifies each element on its own (its value alone decides): select_if, the partitions. The
/// element-wise call also serves the partitions' counting pass.
template <class T, class ClassOf>
struct value_classes {
  ClassOf class_of;

  __device__ int operator()(const T& value) const { return class_of(value); }

  template <int Items>
  __device__ __forceinline__ void classify_warp(cuda::std::size_t, int, const T (&values)[Items],
                                                int (&classes)[Items]) const {
#pragma unroll
    for (int j = 0; j < Items; ++j) classes[j] = class_of(values[j]);
  }
};

/// select_flagged: class 0 where the flag is nonzero, dropped elsewhere.
template <class T>
struct flag_classes {
  const cuda::std::uint8_t* flags;

  template <int Items>
  __device__ __forceinline__ void classify_warp(cuda::std::size_t segment, int warp_valid, const T (&)[Items],
                                                int (&classes)[Items]) const {
    const int lane = warp::lane_id();
    const cuda::std::uint8_t* mine = flags + segment + lane;
#pragma unroll
    for (int j = 0; j < Items; ++j)
      classes[j] = warp::size * j + lane < warp_valid && mine[warp::size * j] != 0 ? 0 : dropped;
  }
};

/// unique: class 0 for the first element of each run of equal elements, dropped for the rest. An
/// item's predecessor is the previous lane's item of the same row, or for lane 0 the last lane's item
/// of the row before (one rotating shuffle per row serves both), or before the segment's first element
/// the element in front of the segment, read from memory.
template <class T, class Eq>
struct run_head_classes {
  const T* in;
  Eq eq;

  template <int Items>
  __device__ __forceinline__ void classify_warp(cuda::std::size_t segment, int warp_valid, const T (&values)[Items],
                                                int (&classes)[Items]) const {
    const int lane = warp::lane_id();
    T row_predecessor = values[0];  // in lane 0: the element before the current row
    if (lane == 0 && segment > 0 && warp_valid > 0) row_predecessor = in[segment - 1];
#pragma unroll
    for (int j = 0; j < Items; ++j) {
      // Lane l > 0 gets lane l − 1's item j; lane 0 gets lane 31's, the predecessor of its item j + 1.
      const T rotated = warp::broadcast(values[j], (lane + warp::size - 1) % warp::size);
      const T& previous = lane == 0 ? row_predecessor : rotated;
      const bool first = segment == 0 && j == 0 && lane == 0;
      classes[j] = first || !eq(previous, values[j]) ? 0 : dropped;
      row_predecessor = rotated;
    }
  }
};

// ---- the classify-scatter pass ------------------------------------------------------------------------

/// What one pass reads and writes. A partition (Classes > Kept: the last class goes after all the others;
/// out has n elements) leaves count_out to the dispatch (the scan's last entry); select passes
/// Classes == Kept == 1, drops the rest, writes at most out_size elements and the number kept to
/// count_out (if not null).
template <class T, class Classifier>
struct scatter_io {
  const T* in;
  T* out;
  cuda::std::size_t out_size;
  cuda::std::size_t n;
  Classifier classifier;
  cuda::std::size_t* count_out;
};

/// The partitions' tile prefixes, known before the scatter pass (reduce, then scan): inclusive[t] holds
/// the kept classes' counts of tiles 0 … t (a scan of the counting pass's per-tile counts, 64-bit so that
/// the last entry is also the class sizes the caller receives), so a tile reads the counts before it
/// instead of looking back.
template <int Kept>
struct known_prefixes {
  using counts = class_counts<unsigned long long, Kept>;
  const counts* inclusive;
  cuda::std::size_t tiles;

  /// The counts of the tiles before `tile` and of all tiles, in the pass's count type.
  template <class Count>
  [[nodiscard]] __device__ class_counts<Count, Kept> before(cuda::std::size_t tile) const {
    return narrowed<Count>(tile == 0 ? counts{} : inclusive[tile - 1]);
  }
  template <class Count>
  [[nodiscard]] __device__ class_counts<Count, Kept> totals() const {
    return narrowed<Count>(inclusive[tiles - 1]);
  }

 private:
  template <class Count>
  __device__ static class_counts<Count, Kept> narrowed(const counts& wide) {
    class_counts<Count, Kept> r;
#pragma unroll
    for (int k = 0; k < Kept; ++k) r.c[k] = static_cast<Count>(wide.c[k]);
    return r;
  }
};

template <class Status>
inline constexpr bool prefixes_known = false;
template <int Kept>
inline constexpr bool prefixes_known<known_prefixes<Kept>> = true;

template <class Tuning, class Count, int Kept>
struct scatter_shared {
  int warp_counts[Kept][Tuning::warps];
  class_counts<Count, Kept> prefix;  // the counts before the tile
  cuda::std::size_t tile;            // the tile taken from the counter (tile_order::atomic_counter)
};

/// Loads a warp's segment (at `from`) in warp-striped order; a partial segment is padded with `fill`.
template <bool Full, int Items, class T>
__device__ __forceinline__ void load_warp_striped(const T* from, int warp_valid, const T* fill, T (&values)[Items]) {
  const int lane = warp::lane_id();
  const T* mine = from + lane;
#pragma unroll
  for (int j = 0; j < Items; ++j) {
    if constexpr (Full) values[j] = mine[warp::size * j];
    else values[j] = warp::size * j + lane < warp_valid ? mine[warp::size * j] : *fill;
  }
}

/// Ranks a warp's items within their classes over the warp's segment. ranks[j] = how many of the
/// segment's elements before item j are of its class, or −1 for a dropped item; for a partition
/// (Classes > Kept) the class rides along in the low two bits (rank · 4 + class). counts[k] = the
/// segment's elements of kept class k. Dropped items must follow all others (padding does).
template <int Kept, int Classes, int Items>
__device__ __forceinline__ void rank_in_warp(const int (&classes)[Items], int (&ranks)[Items], int (&counts)[Kept]) {
  const int lane = warp::lane_id();
  const unsigned lanes_below = (1u << lane) - 1u;
#pragma unroll
  for (int k = 0; k < Kept; ++k) counts[k] = 0;
#pragma unroll
  for (int j = 0; j < Items; ++j) {
    const int c = classes[j];
    int rank = -1;
    int last_class_before = warp::size * j + lane;  // the elements before, less those of kept classes
#pragma unroll
    for (int k = 0; k < Kept; ++k) {
      const unsigned votes = __ballot_sync(warp::full_mask, c == k);
      const int before = counts[k] + __popc(votes & lanes_below);
      if (c == k) rank = before;
      last_class_before -= before;
      counts[k] += __popc(votes);
    }
    if constexpr (Classes > Kept) {
      if (c == Kept) rank = last_class_before;
      ranks[j] = rank < 0 ? -1 : rank * 4 + c;
    } else {
      ranks[j] = rank;
    }
  }
}

/// Loads a warp's segment of the tile at `offset` and classifies it; items past `warp_valid` are dropped.
template <bool Full, int Items, class T, class Classifier>
__device__ __forceinline__ void load_and_classify(const T* in, const Classifier& classifier, cuda::std::size_t offset,
                                                  cuda::std::size_t segment, int warp_valid, T (&values)[Items],
                                                  int (&classes)[Items]) {
  load_warp_striped<Full>(in + segment, warp_valid, in + offset, values);
  classifier.template classify_warp<Items>(segment, warp_valid, values, classes);
  if constexpr (!Full) {
#pragma unroll
    for (int j = 0; j < Items; ++j)
      if (warp::size * j + warp::lane_id() >= warp_valid) classes[j] = dropped;
  }
}

/// The partitions' counting pass: block t counts scatter tile t's elements of each kept class into
/// tile_counts[t], loading and classifying exactly as the scatter pass does (all items in flight).
template <class Tuning, int Kept, class T, class Classifier>
__global__ void __launch_bounds__(Tuning::threads)
    count_tile_classes_kernel(const T* __restrict__ in, cuda::std::size_t n, Classifier classifier,
                              class_counts<unsigned long long, Kept>* __restrict__ tile_counts) {
  __shared__ int warp_counts[Kept][Tuning::warps];
  constexpr int items = Tuning::items;
  constexpr int tile_elements = Tuning::tile;
  constexpr int warp_items = Tuning::warp_items;
  const int warp_index = static_cast<int>(threadIdx.x) / warp::size;
  const cuda::std::size_t offset = cuda::std::size_t{blockIdx.x} * tile_elements;
  const int valid = static_cast<int>(cuda::std::min<cuda::std::size_t>(n - offset, tile_elements));
  const int warp_first = warp_index * warp_items;
  const int warp_valid = cuda::std::min(cuda::std::max(valid - warp_first, 0), warp_items);
  const cuda::std::size_t segment = offset + static_cast<cuda::std::size_t>(warp_first);
  T values[items];
  int classes[items];
  if (valid == tile_elements) load_and_classify<true>(in, classifier, offset, segment, warp_valid, values, classes);
  else load_and_classify<false>(in, classifier, offset, segment, warp_valid, values, classes);
#pragma unroll
  for (int k = 0; k < Kept; ++k) {
    int count = 0;
#pragma unroll
    for (int j = 0; j < items; ++j) count += __popc(__ballot_sync(warp::full_mask, classes[j] == k));
    if (warp::lane_id() == 0) warp_counts[k][warp_index] = count;
  }
  __syncthreads();
  if (threadIdx.x < Kept) {
    unsigned long long total = 0;
#pragma unroll
    for (int w = 0; w < Tuning::warps; ++w) total += static_cast<unsigned long long>(warp_counts[threadIdx.x][w]);
    tile_counts[blockIdx.x].c[threadIdx.x] = total;
  }
}

/// One tile: load, classify and rank in registers, add up the warps, look back (or, for a partition,
/// read the known prefix), scatter. `valid` = the tile's elements (Tuning::tile unless it is the last).
template <class Tuning, int Kept, int Classes, bool Full, class Count, class T, class Classifier, class Status>
__device__ __forceinline__ void scatter_tile(const scatter_io<T, Classifier>& io, const Status& status,
                                             cuda::std::size_t tile, int valid,
                                             scatter_shared<Tuning, Count, Kept>& shared) {
  using element = class_counts<Count, Kept>;
  constexpr int items = Tuning::items;
  const int lane = warp::lane_id();
  const int warp_index = static_cast<int>(threadIdx.x) / warp::size;
  const cuda::std::size_t offset = tile * Tuning::tile;
  constexpr int warp_items = Tuning::warp_items;
  const int warp_first = warp_index * warp_items;
  const int warp_valid = Full ? warp_items : cuda::std::min(cuda::std::max(valid - warp_first, 0), warp_items);
  const cuda::std::size_t segment = offset + static_cast<cuda::std::size_t>(warp_first);

  // Load, classify, rank.
  T values[items];
  int classes[items];
  load_and_classify<Full>(io.in, io.classifier, offset, segment, warp_valid, values, classes);
  int ranks[items];
  int warp_counts[Kept];
  rank_in_warp<Kept, Classes>(classes, ranks, warp_counts);

  // The warps' offsets in the tile and the tile's counts.
  if (lane == 0) {
#pragma unroll
    for (int k = 0; k < Kept; ++k) shared.warp_counts[k][warp_index] = warp_counts[k];
  }
  __syncthreads();
  element aggregate;
  int warp_offset[Kept];
#pragma unroll
  for (int k = 0; k < Kept; ++k) {
    int sum = 0;
    warp_offset[k] = 0;
#pragma unroll
    for (int w = 0; w < Tuning::warps; ++w) {
      if (w == warp_index) warp_offset[k] = sum;
      sum += shared.warp_counts[k][w];
    }
    aggregate.c[k] = static_cast<Count>(sum);
  }

  // The counts before the tile.
  element prefix{};
  if constexpr (prefixes_known<Status>) {
    prefix = status.template before<Count>(tile);
  } else if (tile == 0) {
    if (threadIdx.x == 0) status.publish(0, scan::tile_inclusive, aggregate);
  } else {
    if (warp_index == 0) {
      if (lane == 0) status.publish(tile, scan::tile_aggregate, aggregate);
      const element exclusive = scan::look_back<element, typename Tuning::look_back>(status, tile, add_counts{});
      if (lane == 0) {
        status.publish(tile, scan::tile_inclusive, add_counts{}(exclusive, aggregate));
        shared.prefix = exclusive;
      }
    }
    __syncthreads();
    prefix = shared.prefix;
  }
  if constexpr (Classes == Kept) {
    if (io.count_out && threadIdx.x == 0 && offset + static_cast<cuda::std::size_t>(valid) == io.n) {
      cuda::std::size_t kept = 0;
#pragma unroll
      for (int k = 0; k < Kept; ++k)
        kept += static_cast<cuda::std::size_t>(prefix.c[k]) + static_cast<cuda::std::size_t>(aggregate.c[k]);
      *io.count_out = kept;
    }
  }

  // first[c]: where this warp's first element of class c goes, in the count type (32 bits below 2^32
  // elements, so that a destination is one 32-bit add and one wide multiply-add).
  Count first[Classes];
#pragma unroll
  for (int k = 0; k < Kept; ++k) first[k] = static_cast<Count>(prefix.c[k] + static_cast<Count>(warp_offset[k]));
  if constexpr (Classes > Kept) {
    // The last class: the elements before the segment that are in no kept class; each class after
    // the totals of the classes before it.
    static_assert(prefixes_known<Status>, "a partition reads its tile prefixes (reduce, then scan)");
    const element totals = status.template totals<Count>();
    Count kept_before = 0;
#pragma unroll
    for (int k = 0; k < Kept; ++k) kept_before += first[k];
    first[Kept] = static_cast<Count>(static_cast<Count>(segment) - kept_before);
    Count base = 0;
#pragma unroll
    for (int k = 0; k < Kept; ++k) {
      first[k] += base;
      base += totals.c[k];
    }
    first[Kept] += base;
  }

  // Scatter from registers.
  if constexpr (Classes == 1) {
    // A short `out` takes the ranks below `room` (unsigned: dropped items, rank −1, never fit).
    const cuda::std::size_t start = first[0];
    const cuda::std::size_t left = start < io.out_size ? io.out_size - start : 0;
    const int room = static_cast<int>(cuda::std::min(left, static_cast<cuda::std::size_t>(warp_items)));
#pragma unroll
    for (int j = 0; j < items; ++j) {
      const auto rank = static_cast<unsigned>(ranks[j]);
      if (rank < static_cast<unsigned>(room)) io.out[first[0] + static_cast<Count>(rank)] = values[j];
    }
  } else {
#pragma unroll
    for (int j = 0; j < items; ++j) {
      const int code = ranks[j];
      if (code < 0) continue;
      const int c = code & 3;
      Count at = first[0];
#pragma unroll
      for (int k = 1; k < Classes; ++k)
        if (c == k) at = first[k];
      io.out[at + static_cast<Count>(code >> 2)] = values[j];
    }
  }
}

/// One block per tile; tile = blockIdx.x, or the next from the counter (Tuning::look_back::order). At
/// least three blocks an SM: without the bound ptxas gives a partition 66 registers (two 384-thread blocks).
template <class Tuning, int Kept, int Classes, class Count, class T, class Classifier, class Status>
__global__ void __launch_bounds__(Tuning::threads, 3)
    classify_scatter_kernel(scatter_io<T, Classifier> io, Status status, unsigned long long* next_tile) {
  static_assert(Kept >= 1 && Kept <= 2 && (Classes == Kept ? Kept == 1 : Classes == Kept + 1),
                "select (one kept class) or a partition (2 or 3 classes, the last implied)");
  __shared__ scatter_shared<Tuning, Count, Kept> shared;
  cuda::std::size_t tile = blockIdx.x;
  if constexpr (!prefixes_known<Status> && Tuning::look_back::order == scan::tile_order::atomic_counter) {
    if (threadIdx.x == 0) shared.tile = atomicAdd(next_tile, 1ull);
    __syncthreads();
    tile = shared.tile;
  }
  const cuda::std::size_t offset = tile * Tuning::tile;
  if (io.n - offset >= static_cast<cuda::std::size_t>(Tuning::tile))
    scatter_tile<Tuning, Kept, Classes, true, Count>(io, status, tile, Tuning::tile, shared);
  else
    scatter_tile<Tuning, Kept, Classes, false, Count>(io, status, tile, static_cast<int>(io.n - offset), shared);
}

}  // namespace sluice::detail::select
