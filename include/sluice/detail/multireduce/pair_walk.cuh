// sluice/detail/multireduce/pair_walk.cuh: the input side of the commutative multireduce kernels
// (Eilers §4.4a and §4.4c share it, and so do the histograms built on them): a grid-stride walk over
// (bucket, value) pairs that hands each run of equal buckets to a sink as one combined value.
//
// A pair source says what element i is: multireduce reads (labels[i] → bucket, values[i]),
// labelled_values below; the histogram reads (bin of samples[i], 1), detail/histogram/binned_samples.cuh.
// A source is staged once per block (its `shared` storage; range bins put their splitters there) into
// a reader with
//   width                    V: consecutive elements per load (4: vector loads; 1: any alignment)
//   size()                   n
//   load(c)                  pairs<T, V> of elements c·V … c·V + V − 1
//   load_one(i)              pairs<T, 1> of element i
// A bucket ≥ m means "dropped" (a label outside [0, m), a sample outside the bins).
//
// The walk (Eilers Alg. 4.10's loop, widened): each step a thread loads the chunks c and c + threads
// (both coalesced: consecutive threads take consecutive chunks), 2·V pairs with all loads in flight
// before any is used; labels and values are read with the streaming hint (read once: they should not
// push the buckets out of L2). The thread folds runs of equal adjacent buckets among its 2·V pairs
// into one value each, so that one atomic carries a whole run: the seed's pair aggregation, "costs
// almost nothing on random data and removes the degenerate penalty", extended from 2 to 2·V pairs
// (all-equal and sorted labels need 2·V times fewer atomics). Every run but the thread's last goes to
// sink.add; the last goes to sink.add_converged, which the whole warp calls together (every lane of a
// warp runs the same iterations), so a sink may merge a warp whose last runs all share a bucket.
// The n mod V pairs after the last full chunk go one per thread to sink.add.
#pragma once

#include <sluice/core/config.hpp>
#include <sluice/core/operators.hpp>
#include <sluice/detail/multireduce/common.cuh>
#include <sluice/detail/multireduce/tuning.hpp>
#include <sluice/detail/scatter/chunks.cuh>
#include <sluice/warp/reduce.cuh>
#include <sluice/warp/shuffle.cuh>

#include <cuda/std/cstddef>
#include <cuda/std/cstdint>
#include <cuda/std/cstring>

#include <cstdint>

namespace sluice::detail::multireduce {

/// The bucket of a filler pair (no element): above every m < 2^32 − 1 and every window.
inline constexpr cuda::std::uint32_t no_bucket = 0xffffffffu;

template <class T, int V>
struct pairs {
  cuda::std::uint32_t bucket[V];
  T value[V];
};

/// *p with the streaming (evict-first) hint, as 16-, 8- or 4-byte loads where the chunk's size and
/// alignment allow; a plain load otherwise.
template <class Chunk>
[[nodiscard]] __device__ __forceinline__ Chunk load_streaming(const Chunk* p) {
  if constexpr (sizeof(Chunk) % 16 == 0 && alignof(Chunk) >= 16) {
    constexpr int words = sizeof(Chunk) / 16;
    uint4 w[words];
#pragma unroll
    for (int k = 0; k < words; ++k) w[k] = __ldcs(reinterpret_cast<const uint4*>(p) + k);
    Chunk out;
    cuda::std::memcpy(&out, w, sizeof(Chunk));
    return out;
  } else if constexpr (sizeof(Chunk) == 8 && alignof(Chunk) >= 8) {
    const uint2 w = __ldcs(reinterpret_cast<const uint2*>(p));
    Chunk out;
    cuda::std::memcpy(&out, &w, sizeof(Chunk));
    return out;
  } else if constexpr (sizeof(Chunk) == 4 && alignof(Chunk) >= 4) {
    const unsigned w = __ldcs(reinterpret_cast<const unsigned*>(p));
    Chunk out;
    cuda::std::memcpy(&out, &w, sizeof(Chunk));
    return out;
  } else {
    return *p;
  }
}

/// V consecutive elements starting at element c·V (fast layout: `data` aligned to the chunk) or at c
/// (V = 1: any alignment T allows).
template <int V, class E>
[[nodiscard]] __device__ __forceinline__ scatter::chunk<E, V> load_chunk(const E* data, cuda::std::size_t c) {
  if constexpr (V == 1) return {data[c]};
  else return load_streaming(reinterpret_cast<const scatter::chunk<E, V>*>(data) + c);
}

/// Multireduce's pairs: (bucket_of(labels[i], m), values[i]). Fast (V = 4) when labels and values are
/// aligned to their 4-element chunks (device_buffer and cudaMalloc memory are).
template <int V, class L, class T>
struct labelled_values {
  using value_type = T;
  struct shared {};  // nothing to stage
  static constexpr int width = V;

  const L* labels;
  const T* values;
  cuda::std::size_t n;
  cuda::std::uint32_t m;

  __device__ const labelled_values& stage(shared&, unsigned, unsigned) const { return *this; }
  [[nodiscard]] __device__ cuda::std::size_t size() const { return n; }

  [[nodiscard]] __device__ __forceinline__ pairs<T, V> load(cuda::std::size_t c) const {
    const auto label = load_chunk<V>(labels, c);
    const auto value = load_chunk<V>(values, c);
    pairs<T, V> p;
#pragma unroll
    for (int j = 0; j < V; ++j) {
      p.bucket[j] = bucket_of(label.v[j], m);
      p.value[j] = value.v[j];
    }
    return p;
  }
  [[nodiscard]] __device__ __forceinline__ pairs<T, 1> load_one(cuda::std::size_t i) const {
    return {{bucket_of(labels[i], m)}, {values[i]}};
  }
};

/// Calls run(source) with multireduce's pair source: the fast layout when labels and values are aligned
/// to their 4-element chunks, the general one otherwise.
template <class L, class T, class Run>
void with_labelled_values(const L* labels, const T* values, cuda::std::size_t n, cuda::std::uint32_t m, Run run) {
  constexpr int V = tuning::pair_vector_width;
  const bool fast = reinterpret_cast<std::uintptr_t>(labels) % scatter::chunk_alignment<L, V> == 0 &&
                    reinterpret_cast<std::uintptr_t>(values) % scatter::chunk_alignment<T, V> == 0;
  if (fast) run(labelled_values<V, L, T>{labels, values, n, m});
  else run(labelled_values<1, L, T>{labels, values, n, m});
}

/// Folds the runs of equal buckets among a thread's pairs, in order, into the sink (header comment).
/// Each run starts from the identity, as the oracle's buckets do: a NaN first in a run then meets
/// min/max as the right operand, which skips it, instead of swallowing the rest of the run.
template <class T, int V, class Op, class Sink>
__device__ __forceinline__ void fold_runs(const pairs<T, V> (&p)[2], Op op, Sink& sink) {
  const T e = identity<Op, T>();
  cuda::std::uint32_t run_bucket = p[0].bucket[0];
  T run = op(e, p[0].value[0]);
#pragma unroll
  for (int k = 1; k < 2 * V; ++k) {
    const cuda::std::uint32_t bucket = p[k / V].bucket[k % V];
    const T& value = p[k / V].value[k % V];
    if (bucket == run_bucket) {
      run = op(run, value);
    } else {
      sink.add(run_bucket, run);
      run_bucket = bucket;
      run = op(e, value);
    }
  }
  sink.add_converged(run_bucket, run);
}

/// When every lane of the warp holds the same bucket, folds the lanes' values into lane 0's `value` (by
/// shuffles) and returns true; otherwise changes nothing and returns false. The whole warp calls it.
/// A sink uses it to turn a warp's 32 atomics on one bucket into one.
template <class T, class Op>
[[nodiscard]] __device__ __forceinline__ bool merge_warp(cuda::std::uint32_t bucket, T& value, Op op) {
  const cuda::std::uint32_t lead = __shfl_sync(warp::full_mask, bucket, 0);
  if (!__all_sync(warp::full_mask, bucket == lead)) return false;
  value = warp::reduce(value, op);
  return true;
}

template <class T, int V>
[[nodiscard]] __device__ __forceinline__ unsigned count_dropped(const pairs<T, V>& p, cuda::std::uint32_t m) {
  unsigned dropped = 0;
#pragma unroll
  for (int j = 0; j < V; ++j) dropped += p.bucket[j] >= m ? 1u : 0u;
  return dropped;
}

/// The loop of the header comment over the chunks [first − (the thread's offset), end): this thread's
/// chunks are c and c + stride for c = first, first + 2·stride, …; each loaded chunk goes to
/// on_chunk(pairs) (the caller counts what it must) before their runs are folded into the sink. The warp
/// goes on while its first lane has a chunk, so that its lanes stay together (first − lane is the warp's
/// first lane's chunk, the same for every lane); a lane without a chunk folds fillers (no_bucket).
template <class Op, class Reader, class Sink, class OnChunk>
__device__ __forceinline__ void fold_chunk_pairs(const Reader& reader, cuda::std::size_t first, cuda::std::size_t end,
                                                 cuda::std::size_t stride, Op op, Sink& sink, OnChunk on_chunk) {
  constexpr int V = Reader::width;
  using T = typename Reader::value_type;
  const auto lane = static_cast<cuda::std::size_t>(warp::lane_id());
  pairs<T, V> filler;
#pragma unroll
  for (int j = 0; j < V; ++j) {
    filler.bucket[j] = no_bucket;
    filler.value[j] = identity<Op, T>();
  }
  for (cuda::std::size_t c = first; c - lane < end; c += 2 * stride) {
    pairs<T, V> p[2] = {filler, filler};
    if (c < end) p[0] = reader.load(c);
    if (c + stride < end) p[1] = reader.load(c + stride);
    if (c < end) on_chunk(p[0]);
    if (c + stride < end) on_chunk(p[1]);
    fold_runs(p, op, sink);
  }
}

/// The walk of the header comment over the reader's n pairs; adds the pairs with a bucket ≥ m to
/// `dropped`. Every thread of the grid calls it; blockDim.x is a multiple of 32.
template <class Op, class Reader, class Sink>
__device__ void walk_pairs(const Reader& reader, cuda::std::uint32_t m, Op op, Sink& sink,
                           unsigned long long& dropped) {
  constexpr int V = Reader::width;
  const cuda::std::size_t n = reader.size();
  const cuda::std::size_t chunks = n / V;
  const cuda::std::size_t threads = cuda::std::size_t{gridDim.x} * blockDim.x;
  const cuda::std::size_t first = cuda::std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  fold_chunk_pairs(reader, first, chunks, threads, op, sink,
                   [&](const pairs<typename Reader::value_type, V>& p) { dropped += count_dropped(p, m); });
  const cuda::std::size_t tail = chunks * V + first;
  if (tail < n) {
    const pairs<typename Reader::value_type, 1> p = reader.load_one(tail);
    dropped += count_dropped(p, m);
    sink.add(p.bucket[0], p.value[0]);
  }
}

}  // namespace sluice::detail::multireduce
