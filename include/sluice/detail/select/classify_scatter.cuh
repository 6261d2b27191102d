// sluice/detail/select/classify_scatter.cuh: stream compaction and stable partitions as one
// single-pass scan of class counts plus a scatter (DTU §4.5 compact; Palik §5.3 split, §6.2 3-way split).
//
// Each element gets a class (0..Classes−1, or `dropped` for select's rejects). The single-pass scan
// counts, for every element, how many elements of each kept class precede it (inclusive); with the
// class totals known (a counting pass before, for partitions) the destination of element i of class c is
//   base_c + (number of class-c elements before i),   base_c = total of the classes before c.
//
// The tile program loads the tile's elements once (coalesced) and classifies them in registers; after
// the scan it stages the elements, still in registers, in shared memory grouped by class, so every
// class's run leaves the block as one contiguous, coalesced write. Nothing is read twice.
//
// Traffic: select reads the input once and writes the kept elements; partitions add one counting pass
// over the input. Work O(n). Stable by construction.
#pragma once

#include <sluice/block/neighbours.cuh>
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

template <class Count, int Kept>
__device__ __forceinline__ class_counts<Count, Kept> one_hot(int c) {
  class_counts<Count, Kept> r;
#pragma unroll
  for (int k = 0; k < Kept; ++k) r.c[k] = c == k ? 1 : 0;
  return r;
}

// ---- classifiers: the classes of a tile's elements, in registers ----------------------------------------

struct no_storage {};

/// Classifies each element on its own (its value alone decides): select_if, the partitions. The
/// element-wise call also serves the partitions' counting pass.
template <class T, class ClassOf>
struct value_classes {
  ClassOf class_of;

  template <class Shape>
  using temp_storage = no_storage;

  __device__ int operator()(const T& value) const { return class_of(value); }

  template <class Shape>
  __device__ void classify_tile(cuda::std::size_t, int, const T (&values)[Shape::items], int (&classes)[Shape::items],
                                no_storage&) const {
#pragma unroll
    for (int j = 0; j < Shape::items; ++j) classes[j] = class_of(values[j]);
  }
};

/// select_flagged: class 0 where the flag is nonzero, dropped elsewhere (flags loaded as a block).
template <class T>
struct flag_classes {
  const cuda::std::uint8_t* flags;

  template <class Shape>
  using temp_storage = typename scan::block_load_t<Shape, cuda::std::uint8_t>::TempStorage;

  template <class Shape>
  __device__ void classify_tile(cuda::std::size_t offset, int valid, const T (&)[Shape::items],
                                int (&classes)[Shape::items], temp_storage<Shape>& temp) const {
    cuda::std::uint8_t marks[Shape::items];
    scan::load_tile<Shape>(flags + offset, valid, marks, temp);
#pragma unroll
    for (int j = 0; j < Shape::items; ++j) classes[j] = marks[j] ? 0 : dropped;
  }
};

/// unique: class 0 for the first element of each run of equal elements, dropped for the rest.
template <class T, class Eq>
struct run_head_classes {
  const T* in;
  Eq eq;

  template <class Shape>
  using temp_storage = block::neighbour_storage<Shape::threads, T>;

  template <class Shape>
  __device__ void classify_tile(cuda::std::size_t offset, int, const T (&values)[Shape::items],
                                int (&classes)[Shape::items], temp_storage<Shape>& temp) const {
    const T before = offset > 0 ? in[offset - 1] : values[0];  // element 0 is always a head: unused
    const T previous = block::from_previous_thread(values[Shape::items - 1], before, temp);
    const cuda::std::size_t first = offset + threadIdx.x * cuda::std::size_t{Shape::items};
    classes[0] = first == 0 || !eq(previous, values[0]) ? 0 : dropped;
#pragma unroll
    for (int j = 1; j < Shape::items; ++j) classes[j] = eq(values[j - 1], values[j]) ? dropped : 0;
  }
};

/// Counts the elements of each class 0..Kept−1 into totals[0..Kept) (zeroed by the caller).
template <int Threads, int Kept, class T, class Classifier>
__global__ void __launch_bounds__(Threads)
    count_classes_kernel(const T* in, Classifier classifier, cuda::std::size_t n, unsigned long long* totals) {
  using block_reduce = cub::BlockReduce<unsigned long long, Threads>;
  __shared__ typename block_reduce::TempStorage temp;
  unsigned long long mine[Kept] = {};
  for (cuda::std::size_t i = blockIdx.x * cuda::std::size_t{Threads} + threadIdx.x; i < n;
       i += cuda::std::size_t{gridDim.x} * Threads) {
    const int c = classifier(in[i]);
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

/// The classes of a thread's items, two bits each (3 = dropped): the store phase needs them after the
/// scan, and 24 ints would cost 24 registers across it.
template <int Items>
class packed_classes {
  static_assert(Items <= 32, "two bits per item in one 64-bit word");

 public:
  __device__ void set(int j, int c) { bits_ |= static_cast<unsigned long long>(c == dropped ? 3 : c) << (2 * j); }
  __device__ int operator[](int j) const {
    const int c = static_cast<int>((bits_ >> (2 * j)) & 3);
    return c == 3 ? dropped : c;
  }

 private:
  unsigned long long bits_ = 0;
};

/// Shared memory of the store phase: the tile grouped by class, and where each class's share starts.
template <class Shape, class T, int Classes>
struct staging {
  alignas(T) unsigned char bytes[Shape::tile * sizeof(T)];  // raw: T need not be default-constructible
  cuda::std::size_t class_first[Classes];                   // rank (within its class) of the tile's first
  cuda::std::size_t destination[Classes];                   // where the tile's share of class c goes
  int region[Classes + 1];                                  // class c occupies [region[c], region[c+1])
  __device__ T* elements() { return reinterpret_cast<T*>(bytes); }
};

/// The tile program. `totals` (device, Kept entries) are the class sizes, needed when Classes > Kept (a
/// partition: the last class goes after all the others); select passes Classes == Kept == 1 and drops
/// the rest, writing the number kept to count_out.
template <class Shape, class T, class Count, int Kept, int Classes, class Classifier>
struct classify_scatter_program {
  using shape = Shape;
  using element = class_counts<Count, Kept>;
  struct loaded {
    T values[Shape::items];
    packed_classes<Shape::items> classes;
  };
  union temp_storage {
    typename scan::block_load_t<Shape, T>::TempStorage load;
    typename Classifier::template temp_storage<Shape> classify;
    staging<Shape, T, Classes> staged;
  };

  const T* in;
  T* out;
  cuda::std::size_t out_size;
  Classifier classifier;
  const unsigned long long* totals;
  cuda::std::size_t* count_out;
  cuda::std::size_t n;

  __device__ void load(cuda::std::size_t offset, int valid, loaded& tile, element (&counts)[Shape::items],
                       temp_storage& temp) const {
    scan::load_tile<Shape>(in + offset, valid, tile.values, temp.load);
    __syncthreads();
    int classes[Shape::items];
    classifier.template classify_tile<Shape>(offset, valid, tile.values, classes, temp.classify);
    const int first_item = static_cast<int>(threadIdx.x) * Shape::items;
    tile.classes = {};
#pragma unroll
    for (int j = 0; j < Shape::items; ++j) {
      const int c = first_item + j < valid ? classes[j] : dropped;
      tile.classes.set(j, c);
      counts[j] = one_hot<Count, Kept>(c);
    }
  }

  __device__ void store(cuda::std::size_t offset, int valid, const loaded& tile, const element (&counts)[Shape::items],
                        temp_storage& temp) const {
    auto& staged = temp.staged;
    const int first_item = static_cast<int>(threadIdx.x) * Shape::items;
    // Thread 0 knows the counts before the tile (its first item's inclusive counts minus that item);
    // the thread holding the tile's last element knows the counts at its end.
    if (threadIdx.x == 0) {
      cuda::std::size_t before_sum = 0;
#pragma unroll
      for (int k = 0; k < Kept; ++k) {
        staged.class_first[k] = static_cast<cuda::std::size_t>(counts[0].c[k]) - (tile.classes[0] == k);
        before_sum += staged.class_first[k];
      }
      if constexpr (Classes > Kept) staged.class_first[Kept] = offset - before_sum;
    }
    __syncthreads();
#pragma unroll
    for (int j = 0; j < Shape::items; ++j)
      if (first_item + j == valid - 1) mark_regions(offset, valid, counts[j], staged);
    __syncthreads();
    stage_by_class(offset, tile, counts, staged);
    __syncthreads();
    write_runs(staged);
  }

 private:
  /// Where each class's share of the tile starts in the staging area; run by the thread holding the
  /// tile's last element, whose inclusive counts end the tile. The input's last element also gives the
  /// number kept.
  __device__ void mark_regions(cuda::std::size_t offset, int valid, const element& at_end,
                               staging<Shape, T, Classes>& staged) const {
    int start = 0;
#pragma unroll
    for (int k = 0; k < Kept; ++k) {
      staged.region[k] = start;
      start += static_cast<int>(static_cast<cuda::std::size_t>(at_end.c[k]) - staged.class_first[k]);
    }
    staged.region[Kept] = start;
    if constexpr (Classes > Kept) staged.region[Classes] = valid;
    cuda::std::size_t base = 0;  // the classes before c fill the front of the output
#pragma unroll
    for (int c = 0; c < Classes; ++c) {
      staged.destination[c] = base + staged.class_first[c];
      if (c < Kept && Classes > Kept) base += totals[c];
    }
    if (count_out && offset + valid == n) {
      cuda::std::size_t kept = 0;
#pragma unroll
      for (int k = 0; k < Kept; ++k) kept += static_cast<cuda::std::size_t>(at_end.c[k]);
      *count_out = kept;
    }
  }

  __device__ void stage_by_class(cuda::std::size_t offset, const loaded& tile, const element (&counts)[Shape::items],
                                 staging<Shape, T, Classes>& staged) const {
    const cuda::std::size_t first = offset + threadIdx.x * cuda::std::size_t{Shape::items};
#pragma unroll
    for (int j = 0; j < Shape::items; ++j) {
      const int c = tile.classes[j];
      if (c == dropped) continue;
      // Rank within the class over the whole input: a kept class's inclusive count − 1; the last class
      // of a partition has every element up to here that is in no kept class. (Indexing the counts by
      // the unrolled k, not by c, keeps them in registers.)
      cuda::std::size_t rank = first + j;
#pragma unroll
      for (int k = 0; k < Kept; ++k) {
        const auto count = static_cast<cuda::std::size_t>(counts[j].c[k]);
        if (c == k) rank = count - 1;
        else if (c == Kept) rank -= count;
      }
      staged.elements()[staged.region[c] + static_cast<int>(rank - staged.class_first[c])] = tile.values[j];
    }
  }

  /// Each class's share leaves as one contiguous run.
  __device__ void write_runs(staging<Shape, T, Classes>& staged) const {
    const int end = staged.region[Classes > Kept ? Classes : Kept];
    for (int s = static_cast<int>(threadIdx.x); s < end; s += Shape::threads) {
      int c = 0;
      while (s >= staged.region[c + 1]) ++c;
      const cuda::std::size_t destination = staged.destination[c] + static_cast<cuda::std::size_t>(s - staged.region[c]);
      if (destination < out_size) out[destination] = staged.elements()[s];
    }
  }
};

}  // namespace sluice::detail::select
