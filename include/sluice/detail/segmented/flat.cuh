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
// Traffic: values read once (plus the previous value for exclusive forms, usually from cache), head
// information read once (flags: 1 byte; keys: sizeof(K), the neighbour from cache), outputs written once.
#pragma once

#include <sluice/detail/scan/tile_scan.cuh>

#include <cuda/std/cstddef>
#include <cuda/std/cstdint>

namespace sluice::detail::segmented {

template <class Count, class T>
struct counted {
  Count heads;  ///< heads so far (inclusive): the segment index is heads − 1
  T value;      ///< ⊕ of the segment from its head up to here
};

template <class Op>
struct counted_op {
  Op op;
  template <class Count, class T>
  __host__ __device__ counted<Count, T> operator()(const counted<Count, T>& a, const counted<Count, T>& b) const {
    return {static_cast<Count>(a.heads + b.heads), b.heads > 0 ? b.value : op(a.value, b.value)};
  }
};

// ---- where segments start ----------------------------------------------------------------------------

/// Head flags: element i starts a segment if flags[i] != 0; element 0 always does.
struct flag_heads {
  const cuda::std::uint8_t* flags;
  __device__ bool operator()(cuda::std::size_t i) const { return i == 0 || flags[i] != 0; }
};

/// Runs of equal keys: element i starts a run if its key differs from the previous one.
template <class K, class Eq>
struct key_heads {
  const K* keys;
  Eq eq;
  __device__ bool operator()(cuda::std::size_t i) const { return i == 0 || !eq(keys[i - 1], keys[i]); }
};

// ---- the pairs the scan reads -------------------------------------------------------------------------

/// (h_i, x_i): the input of inclusive segmented scans and of reductions.
template <class Count, class T, class Heads>
struct inclusive_pairs {
  const T* values;
  Heads is_head;
  __device__ counted<Count, T> operator()(cuda::std::size_t i) const {
    return {static_cast<Count>(is_head(i) ? 1 : 0), values[i]};
  }
};

/// No element lies outside every segment (flags and keys).
struct nothing_outside {
  __device__ bool operator()(cuda::std::size_t) const { return false; }
};

/// Elements before offsets.front() or from offsets.back() on belong to no segment. The offsets live in
/// device memory, so the bounds are read here (two cached loads), not on the host.
struct outside_range {
  const cuda::std::size_t* offsets;
  cuda::std::size_t segments;
  __device__ bool operator()(cuda::std::size_t i) const { return i < offsets[0] || i >= offsets[segments]; }
};

/// (h_i, h_i ? init : x_{i−1}): the input of exclusive segmented scans. An element outside every
/// segment is its own segment holding itself, so it passes through unchanged.
template <class Count, class T, class Heads, class Outside = nothing_outside>
struct exclusive_pairs {
  const T* values;
  Heads is_head;
  T init;
  Outside outside{};
  __device__ counted<Count, T> operator()(cuda::std::size_t i) const {
    if (outside(i)) return {Count{1}, values[i]};
    const bool head = is_head(i);
    return {static_cast<Count>(head ? 1 : 0), head ? init : values[i - 1]};
  }
};

// ---- segments given by offsets ------------------------------------------------------------------------

/// Marks offsets[s] (s ≤ segments, i.e. every start and the end of the last segment) in a zeroed flag
/// array: the heads of the runs the flat scan sees. Empty segments mark nothing new.
template <class Offset>
__global__ void mark_offsets_kernel(const Offset* offsets, cuda::std::size_t count, cuda::std::uint8_t* flags,
                                    cuda::std::size_t n) {
  for (cuda::std::size_t s = blockIdx.x * cuda::std::size_t{blockDim.x} + threadIdx.x; s < count;
       s += cuda::std::size_t{gridDim.x} * blockDim.x)
    if (offsets[s] < n) flags[offsets[s]] = 1;
}

/// Heads of the offset-defined runs; elements outside every segment are runs of one.
struct offset_heads {
  const cuda::std::uint8_t* flags;
  outside_range outside;
  __device__ bool operator()(cuda::std::size_t i) const { return i == 0 || flags[i] != 0 || outside(i); }
};

/// Writes init for every empty segment (the flat scan never sees them).
template <class T>
__global__ void fill_empty_segments_kernel(const cuda::std::size_t* offsets, cuda::std::size_t segments, T* out, T init) {
  for (cuda::std::size_t s = blockIdx.x * cuda::std::size_t{blockDim.x} + threadIdx.x; s < segments;
       s += cuda::std::size_t{gridDim.x} * blockDim.x)
    if (offsets[s] == offsets[s + 1]) out[s] = init;
}

// ---- what the scan writes -----------------------------------------------------------------------------

/// Scans store every element's value (the head count only steered the scan).
struct value_of {
  template <class Pair>
  __device__ auto operator()(const Pair& p) const { return p.value; }
};
template <class T>
using store_values = scan::store_projection<T, value_of>;

/// Segment of a run given by flags or keys: its position among the runs.
struct segment_by_count {
  template <class Count>
  __device__ cuda::std::size_t operator()(cuda::std::size_t, Count heads) const {
    return static_cast<cuda::std::size_t>(heads) - 1;
  }
};

/// Segment of element i given by offsets: the last s with offsets[s] ≤ i (binary search, once per run
/// end); runs outside every segment map to no segment (SIZE_MAX).
struct segment_by_offsets {
  const cuda::std::size_t* offsets;
  cuda::std::size_t segments;
  template <class Count>
  __device__ cuda::std::size_t operator()(cuda::std::size_t i, Count) const {
    if (segments == 0 || i < offsets[0] || i >= offsets[segments]) return ~cuda::std::size_t{0};
    cuda::std::size_t lo = 0, hi = segments;  // offsets[lo] ≤ i < offsets[hi]
    while (hi - lo > 1) {
      const cuda::std::size_t mid = lo + (hi - lo) / 2;
      if (offsets[mid] <= i) lo = mid;
      else hi = mid;
    }
    return lo;
  }
};

/// Reductions: at the last element of segment k, out[k] = init ⊕ (the segment); optionally the first
/// key of the run at its head (reduce-by-key), and the number of segments at the last element.
/// Segments past out_size are counted but not written (the caller compares the count).
template <class Count, class T, class Op, class Heads, class Locate = segment_by_count, class K = int>
struct store_segment_ends {
  T* out;
  cuda::std::size_t out_size;
  T init;
  bool apply_init;
  Op op;
  Heads is_head;
  cuda::std::size_t n;
  Locate locate{};
  const K* keys = nullptr;      ///< reduce-by-key: the keys, whose run heads go to unique_keys
  K* unique_keys = nullptr;
  cuda::std::size_t* segment_count = nullptr;

  template <class Shape, class Pair>
  __device__ __forceinline__ void operator()(cuda::std::size_t offset, int valid, Pair (&items)[Shape::items],
                                             typename scan::tile_io<Shape, Pair>::storage&) const {
    const cuda::std::size_t first = offset + threadIdx.x * cuda::std::size_t{Shape::items};
#pragma unroll
    for (int j = 0; j < Shape::items; ++j) {
      const cuda::std::size_t i = first + j;
      if (i >= offset + static_cast<cuda::std::size_t>(valid)) break;
      if (unique_keys && is_head(i)) {
        const cuda::std::size_t run = static_cast<cuda::std::size_t>(items[j].heads) - 1;
        if (run < out_size) unique_keys[run] = keys[i];
      }
      const bool last = i + 1 == n || is_head(i + 1);
      if (!last) continue;
      const cuda::std::size_t segment = locate(i, items[j].heads);
      if (segment < out_size) out[segment] = apply_init ? op(init, items[j].value) : items[j].value;
      if (segment_count && i + 1 == n) *segment_count = static_cast<cuda::std::size_t>(items[j].heads);
    }
  }
};

}  // namespace sluice::detail::segmented
