// sluice/detail/segmented/flat.cuh: segmented scans and reductions as one single-pass scan over
// (head count, value) pairs (Palik §4.6: "segmented scan → scan"; Eilers §1.2 for by-key).
//
// Every element becomes the pair (h, x) with h = 1 at a segment head, else 0, and pairs combine as
//   (c1, x1) ⊙ (c2, x2) = (c1 + c2, c2 > 0 ? x2 : x1 ⊕ x2)
// which is associative (the head count is an ordinary sum; the value restarts at the last head), not
// commutative. Its inclusive scan gives, at element i, the number of heads so far (so i's segment
// index is c − 1) and the ⊕ of i's segment up to i. The decoupled look-back kernel computes it in one
// pass, for any distribution of segment lengths: a segment is just a run of elements, so one huge
// segment and millions of tiny ones cost the same per element.
//
// Exclusive scans scan the shifted pairs (h_i, h_i ? init : x_{i−1}), whose inclusive ⊕ at i is
// init ⊕ x_head ⊕ … ⊕ x_{i−1}. Reductions keep only the pair at each segment's last element.
//
// The tile program loads the head information (flags or keys) and the values as coalesced block loads,
// makes the pairs in registers (neighbours across threads through shared memory), and stores from
// registers: values for scans, one element per segment end (and the run's key) for reductions.
// Traffic: values read once, head information read once (flags: 1 byte; keys: sizeof(K)), one element
// per tile boundary from cache, outputs written once.
#pragma once

#include <sluice/block/neighbours.cuh>
#include <sluice/core/counted.hpp>
#include <sluice/detail/scan/tile_scan.cuh>

#include <cuda/std/cstddef>
#include <cuda/std/cstdint>

namespace sluice::detail::segmented {

// ---- where segments start: head sources load a tile's head flags into registers ------------------------

/// Head flags: element i starts a segment if flags[i] != 0; element 0 always does.
template <class Shape>
struct flag_heads {
  const cuda::std::uint8_t* flags;

  struct kept {};
  using temp_storage = typename scan::block_load_t<Shape, cuda::std::uint8_t>::TempStorage;

  __device__ void load(cuda::std::size_t offset, int valid, kept&, bool (&heads)[Shape::items],
                       temp_storage& temp) const {
    cuda::std::uint8_t marks[Shape::items];
    scan::load_tile<Shape>(flags + offset, valid, marks, temp);
    const cuda::std::size_t first = offset + threadIdx.x * cuda::std::size_t{Shape::items};
#pragma unroll
    for (int j = 0; j < Shape::items; ++j) heads[j] = marks[j] != 0 || first + j == 0;
  }
  __device__ bool head_at(cuda::std::size_t i) const { return i == 0 || flags[i] != 0; }
  __device__ bool outside(cuda::std::size_t) const { return false; }
};

/// Segments given by offsets: offsets[s] marked in a flag array (mark_offsets_kernel); elements before
/// offsets.front() or from offsets.back() on belong to no segment and are runs of one. The two bounds
/// live in device memory and are read here (cached loads), not on the host.
template <class Shape>
struct offset_heads {
  flag_heads<Shape> marked;
  const cuda::std::size_t* offsets;
  cuda::std::size_t segments;

  using kept = typename flag_heads<Shape>::kept;
  using temp_storage = typename flag_heads<Shape>::temp_storage;

  __device__ void load(cuda::std::size_t offset, int valid, kept& k, bool (&heads)[Shape::items],
                       temp_storage& temp) const {
    marked.load(offset, valid, k, heads, temp);
    const cuda::std::size_t first = offset + threadIdx.x * cuda::std::size_t{Shape::items};
#pragma unroll
    for (int j = 0; j < Shape::items; ++j) heads[j] = heads[j] || outside(first + j);
  }
  __device__ bool head_at(cuda::std::size_t i) const { return marked.head_at(i) || outside(i); }
  __device__ bool outside(cuda::std::size_t i) const { return i < offsets[0] || i >= offsets[segments]; }
};

/// Runs of equal keys: element i starts a run if its key differs from the previous one. The keys stay
/// in registers for reduce_by_key's unique keys.
template <class Shape, class K, class Eq>
struct key_heads {
  const K* keys;
  Eq eq;

  struct kept {
    K keys[Shape::items];
  };
  union temp_storage {
    typename scan::block_load_t<Shape, K>::TempStorage load;
    block::neighbour_storage<Shape::threads, K> previous;
  };

  __device__ void load(cuda::std::size_t offset, int valid, kept& k, bool (&heads)[Shape::items],
                       temp_storage& temp) const {
    scan::load_tile<Shape>(keys + offset, valid, k.keys, temp.load);
    __syncthreads();
    const K before = offset > 0 ? keys[offset - 1] : k.keys[0];
    const K previous = block::from_previous_thread(k.keys[Shape::items - 1], before, temp.previous);
    const cuda::std::size_t first = offset + threadIdx.x * cuda::std::size_t{Shape::items};
    heads[0] = first == 0 || !eq(previous, k.keys[0]);
#pragma unroll
    for (int j = 1; j < Shape::items; ++j) heads[j] = !eq(k.keys[j - 1], k.keys[j]);
  }
  __device__ bool head_at(cuda::std::size_t i) const { return i == 0 || !eq(keys[i - 1], keys[i]); }
  __device__ bool outside(cuda::std::size_t) const { return false; }
};

/// Marks offsets[s] (s ≤ segments, i.e. every start and the end of the last segment) in a zeroed flag
/// array: the heads of the runs the flat scan sees. Empty segments mark nothing new.
template <class Offset>
__global__ void mark_offsets_kernel(const Offset* offsets, cuda::std::size_t count, cuda::std::uint8_t* flags,
                                    cuda::std::size_t n) {
  for (cuda::std::size_t s = blockIdx.x * cuda::std::size_t{blockDim.x} + threadIdx.x; s < count;
       s += cuda::std::size_t{gridDim.x} * blockDim.x)
    if (offsets[s] < n) flags[offsets[s]] = 1;
}

/// Writes init for every empty segment (the flat scan never sees them).
template <class T>
__global__ void fill_empty_segments_kernel(const cuda::std::size_t* offsets, cuda::std::size_t segments, T* out, T init) {
  for (cuda::std::size_t s = blockIdx.x * cuda::std::size_t{blockDim.x} + threadIdx.x; s < segments;
       s += cuda::std::size_t{gridDim.x} * blockDim.x)
    if (offsets[s] == offsets[s + 1]) out[s] = init;
}

// ---- what becomes of the scanned pairs --------------------------------------------------------------------

/// Scans store every element's value (the head count only steered the scan).
template <class T>
struct values_output {
  static constexpr bool needs_tails = false;
  template <class Shape>
  using temp_storage = typename scan::block_store_t<Shape, T>::TempStorage;

  T* out;

  template <class Shape, class Loaded, class Pair>
  __device__ void store(cuda::std::size_t offset, int valid, const Loaded&, const Pair (&scanned)[Shape::items],
                        temp_storage<Shape>& temp, cuda::std::size_t) const {
    scan::store_projected_tile<Shape>(out + offset, valid, scanned, [](const Pair& p) { return p.value; }, temp);
  }
};

/// Segment of a run given by flags or keys: its position among the runs.
struct segment_by_count {
  template <class Count>
  __device__ cuda::std::size_t operator()(cuda::std::size_t, Count heads) const {
    return static_cast<cuda::std::size_t>(heads) - 1;
  }
};

/// Segment of element i given by offsets, for reductions whose runs are the marked offsets (flag_heads
/// over mark_offsets_kernel's flags): the last s with offsets[s] ≤ i; runs outside every segment map to
/// no segment (SIZE_MAX).
///
/// The runs are the distinct start positions, so i's run count, less the run before offsets[0] when
/// there is one, is the rank of i's segment among the non-empty segments: a lower bound on its index,
/// exact when no empty segment precedes it. Empty segments move it forward, found by galloping (one
/// probe when there are none; O(log gap) otherwise) instead of a binary search over all segments, whose
/// dependent loads run one lane at a time.
struct segment_by_offsets {
  const cuda::std::size_t* offsets;
  cuda::std::size_t segments;
  template <class Count>
  __device__ cuda::std::size_t operator()(cuda::std::size_t i, Count runs) const {
    if (segments == 0 || i < offsets[0] || i >= offsets[segments]) return ~cuda::std::size_t{0};
    const cuda::std::size_t runs_before_first = offsets[0] > 0 ? 2 : 1;
    cuda::std::size_t lo = static_cast<cuda::std::size_t>(runs) - runs_before_first;  // offsets[lo] ≤ i
    if (lo >= segments) lo = segments - 1;  // only reachable with unvalidated bad offsets
    cuda::std::size_t step = 1, hi = lo + 1;  // gallop until offsets[hi] > i (offsets[segments] > i)
    while (hi < segments && offsets[hi] <= i) {
      lo = hi;
      step *= 2;
      hi = cuda::std::min(lo + step, segments);
    }
    while (hi - lo > 1) {  // offsets[lo] ≤ i < offsets[hi]
      const cuda::std::size_t mid = lo + (hi - lo) / 2;
      if (offsets[mid] <= i) lo = mid;
      else hi = mid;
    }
    return lo;
  }
};

/// Reductions without keys. reduce_by_key passes the key type, and each run's first key (in registers
/// since the head source loaded it) goes to unique_keys.
struct no_keys {};

/// Reductions: at the last element of segment k, out[k] = init ⊕ (the segment) (or the segment alone
/// when !apply_init); the number of segments at the input's last element. Segments past out_size are
/// counted but not written (the caller compares the count).
template <class T, class Op, class Locate = segment_by_count, class K = no_keys>
struct segment_ends_output {
  static constexpr bool needs_tails = true;
  template <class Shape>
  struct temp_storage {};

  T* out;
  cuda::std::size_t out_size;
  T init;
  bool apply_init;
  Op op;
  Locate locate{};
  K* unique_keys = nullptr;
  cuda::std::size_t* segment_count = nullptr;

  template <class Shape, class Loaded, class Pair>
  __device__ void store(cuda::std::size_t offset, int valid, const Loaded& loaded, const Pair (&scanned)[Shape::items],
                        temp_storage<Shape>&, cuda::std::size_t n) const {
    const int first_item = static_cast<int>(threadIdx.x) * Shape::items;
#pragma unroll
    for (int j = 0; j < Shape::items; ++j) {
      if (first_item + j >= valid) break;
      const cuda::std::size_t i = offset + static_cast<cuda::std::size_t>(first_item + j);
      if constexpr (!cuda::std::is_same_v<K, no_keys>) {
        const auto run = static_cast<cuda::std::size_t>(scanned[j].heads) - 1;
        if (loaded.heads[j] && run < out_size) unique_keys[run] = loaded.kept.keys[j];
      }
      if (!loaded.tails[j] && i + 1 != n) continue;
      const cuda::std::size_t segment = locate(i, scanned[j].heads);
      if (segment < out_size) out[segment] = apply_init ? op(init, scanned[j].value) : scanned[j].value;
      if (segment_count && i + 1 == n) *segment_count = static_cast<cuda::std::size_t>(scanned[j].heads);
    }
  }
};

// ---- the tile program -------------------------------------------------------------------------------------

/// Loads a tile's heads and values, makes the (head count, value) pairs (shifted for exclusive forms),
/// and hands the scanned pairs to the output.
template <class Shape, class Count, class T, class Heads, class Output, bool Exclusive>
struct segmented_program {
  using shape = Shape;
  using element = counted<Count, T>;
  struct loaded {
    typename Heads::kept kept;
    bool heads[Shape::items];
    bool tails[Shape::items];  ///< filled when the output needs segment ends
  };
  union temp_storage {
    typename Heads::temp_storage heads;
    typename scan::block_load_t<Shape, T>::TempStorage values;
    block::neighbour_storage<Shape::threads, T> previous_value;
    block::neighbour_storage<Shape::threads, bool> next_head;
    typename Output::template temp_storage<Shape> output;
  };

  Heads heads;
  const T* values;
  T init;  ///< exclusive forms: the value at each segment head
  cuda::std::size_t n;
  Output output;

  __device__ void load(cuda::std::size_t offset, int valid, loaded& tile, element (&pairs)[Shape::items],
                       temp_storage& temp) const {
    heads.load(offset, valid, tile.kept, tile.heads, temp.heads);
    __syncthreads();
    T v[Shape::items];
    scan::load_tile<Shape>(values + offset, valid, v, temp.values);
    if constexpr (Output::needs_tails) find_tails(offset, tile, temp);
    const cuda::std::size_t first = offset + threadIdx.x * cuda::std::size_t{Shape::items};
    if constexpr (Exclusive) {
      __syncthreads();
      const T before = offset > 0 ? values[offset - 1] : v[0];  // element 0 is a head: `before` unused
      T previous = block::from_previous_thread(v[Shape::items - 1], before, temp.previous_value);
#pragma unroll
      for (int j = 0; j < Shape::items; ++j) {
        const bool head = tile.heads[j];
        // An element outside every segment is its own segment holding itself: it passes through.
        pairs[j] = heads.outside(first + j) ? element{Count{1}, v[j]}
                                            : element{static_cast<Count>(head ? 1 : 0), head ? init : previous};
        previous = v[j];
      }
    } else {
#pragma unroll
      for (int j = 0; j < Shape::items; ++j) pairs[j] = {static_cast<Count>(tile.heads[j] ? 1 : 0), v[j]};
    }
  }

  __device__ void store(cuda::std::size_t offset, int valid, const loaded& tile, element (&scanned)[Shape::items],
                        temp_storage& temp) const {
    output.template store<Shape>(offset, valid, tile, scanned, temp.output, n);
  }

 private:
  /// Element i ends a segment when i + 1 starts one; the store also ends one at the input's last element.
  __device__ void find_tails(cuda::std::size_t offset, loaded& tile, temp_storage& temp) const {
    __syncthreads();
    const cuda::std::size_t after = offset + Shape::tile;
    const bool successor_head = after < n ? heads.head_at(after) : true;
    const bool next = block::from_next_thread(tile.heads[0], successor_head, temp.next_head);
#pragma unroll
    for (int j = 0; j + 1 < Shape::items; ++j) tile.tails[j] = tile.heads[j + 1];
    tile.tails[Shape::items - 1] = next;
  }
};

}  // namespace sluice::detail::segmented
