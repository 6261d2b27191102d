// sluice/detail/select/classify_scatter.cuh: stream compaction and stable partitions as one
// single-pass scan of class counts plus a scatter (DTU §4.5 compact; Palik §5.3 split, §6.2 3-way split).
//
// Each element gets a class (0..Classes−1, or `dropped` for select's rejects). The single-pass scan
// counts, for every element, how many elements of each kept class precede it (inclusive); with the
// class totals known (a counting pass before, for partitions) the destination of element i of class c is
//   base_c + (number of class-c elements before i),   base_c = total of the classes before c.
// The scan's sink writes a tile's elements through shared memory, grouped by class, so every class's
// run leaves the block as one contiguous, coalesced write.
//
// Traffic: select reads the input once (plus a re-read of the tile from cache) and writes the kept
// elements; partitions add one counting pass over the input. Work O(n). Stable by construction.
#pragma once

#include <sluice/detail/scan/tile_scan.cuh>

#include <cub/block/block_reduce.cuh>

#include <cuda/std/cstddef>
#include <cuda/std/cstdint>

namespace sluice::detail::select {

inline constexpr int dropped = -1;

/// Inclusive counts of the kept classes 0..Kept−1 (the last class of a partition is implied: i + 1 − Σ).
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

/// The scan's input: one-hot counts of an element's class (all zero for the last class or a drop).
template <class Count, int Kept, class Classify>
struct one_hot {
  Classify classify;
  __device__ class_counts<Count, Kept> operator()(cuda::std::size_t i) const {
    const int c = classify(i);
    class_counts<Count, Kept> r;
#pragma unroll
    for (int k = 0; k < Kept; ++k) r.c[k] = c == k ? 1 : 0;
    return r;
  }
};

/// Counts the elements of each class 0..Kept−1 into totals[0..Kept) (zeroed by the caller).
template <int Threads, int Kept, class Classify>
__global__ void __launch_bounds__(Threads)
    count_classes_kernel(Classify classify, cuda::std::size_t n, unsigned long long* totals) {
  using block_reduce = cub::BlockReduce<unsigned long long, Threads>;
  __shared__ typename block_reduce::TempStorage temp;
  unsigned long long mine[Kept] = {};
  for (cuda::std::size_t i = blockIdx.x * cuda::std::size_t{Threads} + threadIdx.x; i < n;
       i += cuda::std::size_t{gridDim.x} * Threads) {
    const int c = classify(i);
#pragma unroll
    for (int k = 0; k < Kept; ++k) mine[k] += c == k;
  }
#pragma unroll
  for (int k = 0; k < Kept; ++k) {
    const unsigned long long block_total = block_reduce(temp).Sum(mine[k]);
    __syncthreads();
    if (threadIdx.x == 0 && block_total) atomicAdd(totals + k, block_total);
  }
}

/// The scan's sink: writes each kept element to its destination, grouped by class through shared memory.
/// `totals` (device, Kept entries) are the class sizes, needed when Classes > Kept (a partition: the
/// last class goes after all the others); select passes Classes == Kept == 1 and drops the rest.
template <class T, class Count, int Kept, int Classes, class Classify>
struct scatter_by_class {
  const T* in;
  T* out;
  cuda::std::size_t out_size;
  Classify classify;
  const unsigned long long* totals;   ///< class sizes (partitions only)
  cuda::std::size_t* count_out;       ///< select: the number kept, written by the last element's thread
  cuda::std::size_t n;

  template <class Shape>
  __device__ void operator()(cuda::std::size_t offset, int valid, class_counts<Count, Kept> (&items)[Shape::items],
                             typename scan::tile_io<Shape, class_counts<Count, Kept>>::storage&) const {
    // Raw storage: T need not be default-constructible in shared memory.
    __shared__ alignas(T) unsigned char staged_bytes[Shape::tile * sizeof(T)];
    T* staged = reinterpret_cast<T*>(staged_bytes);
    __shared__ cuda::std::size_t class_first[Classes];  // global rank (within its class) of the tile's first
    __shared__ int region[Classes + 1];                 // class c occupies staged[region[c], region[c+1])
    const int first_item = static_cast<int>(threadIdx.x) * Shape::items;

    int classes[Shape::items];
#pragma unroll
    for (int j = 0; j < Shape::items; ++j)
      classes[j] = first_item + j < valid ? classify(offset + first_item + j) : dropped;

    // Thread 0 knows the counts before the tile (its first item's inclusive counts minus that item);
    // the thread holding the tile's last element knows the counts at its end.
    if (threadIdx.x == 0) {
      cuda::std::size_t before_sum = 0;
#pragma unroll
      for (int k = 0; k < Kept; ++k) {
        class_first[k] = static_cast<cuda::std::size_t>(items[0].c[k]) - (classes[0] == k);
        before_sum += class_first[k];
      }
      if constexpr (Classes > Kept) class_first[Kept] = offset - before_sum;
    }
    const int last = valid - 1;
    __syncthreads();
    if (last >= first_item && last < first_item + Shape::items) {
      const int j = last - first_item;
      int start = 0;
#pragma unroll
      for (int k = 0; k < Kept; ++k) {
        region[k] = start;
        start += static_cast<int>(static_cast<cuda::std::size_t>(items[j].c[k]) - class_first[k]);
      }
      region[Kept] = start;
      if constexpr (Classes > Kept) region[Classes] = valid;
      if (count_out && offset + valid == n) {
        cuda::std::size_t kept = 0;
#pragma unroll
        for (int k = 0; k < Kept; ++k) kept += static_cast<cuda::std::size_t>(items[j].c[k]);
        *count_out = kept;
      }
    }
    __syncthreads();

    // Stage each element at its class region + its rank within the tile's share of the class.
#pragma unroll
    for (int j = 0; j < Shape::items; ++j) {
      const int c = classes[j];
      if (c == dropped) continue;
      const cuda::std::size_t i = offset + first_item + j;
      cuda::std::size_t rank;  // rank within the class, over the whole input
      if (c < Kept) {
        rank = static_cast<cuda::std::size_t>(items[j].c[c]) - 1;
      } else {
        cuda::std::size_t others = 0;
#pragma unroll
        for (int k = 0; k < Kept; ++k) others += static_cast<cuda::std::size_t>(items[j].c[k]);
        rank = i - others;
      }
      staged[region[c] + static_cast<int>(rank - class_first[c])] = in[i];
    }
    __syncthreads();

    // Each class's share leaves as one contiguous run.
    const int end = region[Classes > Kept ? Classes : Kept];
    for (int s = static_cast<int>(threadIdx.x); s < end; s += Shape::threads) {
      int c = 0;
      while (s >= region[c + 1]) ++c;
      cuda::std::size_t base = 0;
      for (int k = 0; k < c; ++k) base += totals[k];
      const cuda::std::size_t destination = base + class_first[c] + static_cast<cuda::std::size_t>(s - region[c]);
      if (destination < out_size) out[destination] = staged[s];
    }
    __syncthreads();  // staged and region are reused by the next tile
  }
};

}  // namespace sluice::detail::select
