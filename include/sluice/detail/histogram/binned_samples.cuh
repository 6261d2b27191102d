// sluice/detail/histogram/binned_samples.cuh: the histogram as a multireduce (Eilers §1.2: "the special
// case of multireduce with v_i = 1 and ⊙ = +"): samples become (bin, 1) pairs for the commutative
// multireduce kernels, so the two histogram strategies past the warp ballots are those kernels, not
// copies of them. A weighted histogram is the same multireduce with the weight as the value, (bin, w_i)
// pairs (unit_weights or sample_weights below), so it needs no kernel of its own.
//
//   shared_per_bank  detail/multireduce/per_bank.cuh (Eilers §4.4c; on histograms the seed's
//                    BankTRISH idea, §4.5.2): counters of the output's type in up to 32 per-bank sets
//                    per block; m up to what one block's shared memory holds (58 112 four-byte
//                    counters on an H100).
//   global_atomics   detail/multireduce/global_atomic_sets.cuh (Alg. 4.9): sets of counters in global
//                    memory, any m; temporary memory sets · m counters (sets chosen from the L2, one set
//                    for m beyond it: no temporary memory at all). O(m), where CUB's HistogramEven asks
//                    for gigabytes at 2^24 bins.
// Runs of equal bins within a thread become one atomic adding the run's length (pair_walk.cuh), so
// all-equal and sorted samples cost few atomics. Counters in shared memory have the output's width
// and wrap with it, so no block needs a sample limit.
// The same pair source, read one sample at a time, also writes every sample's bin id (write_bin_ids)
// for the two strategies that move ids instead of samples: sort_based.cuh and coarse_bins.cuh.
#pragma once

#include <sluice/core/binning.hpp>
#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/core/operators.hpp>
#include <sluice/core/scratch.hpp>
#include <sluice/detail/multireduce/global_atomic_sets.cuh>
#include <sluice/detail/multireduce/pair_walk.cuh>
#include <sluice/detail/multireduce/per_bank.cuh>
#include <sluice/detail/multireduce/plan.hpp>

#include <cuda/std/cstddef>
#include <cuda/std/cstdint>
#include <cuda/std/type_traits>

#include <cstdint>

namespace sluice::detail::histogram {

/// The value of every sample in a plain histogram: one.
template <class Counter>
struct unit_weights {
  [[nodiscard]] static constexpr bool aligned() { return true; }
  template <int V>
  [[nodiscard]] __device__ __forceinline__ scatter::chunk<Counter, V> load(cuda::std::size_t) const {
    scatter::chunk<Counter, V> ones;
#pragma unroll
    for (int j = 0; j < V; ++j) ones.v[j] = Counter{1};
    return ones;
  }
  [[nodiscard]] __device__ __forceinline__ Counter load_one(cuda::std::size_t) const { return Counter{1}; }
};

/// The caller's weights, one per sample (of the bins' type), read like multireduce's values.
template <class W>
struct sample_weights {
  const W* weights;

  /// Whether the weights can be read 4 per vector load.
  [[nodiscard]] bool aligned() const {
    constexpr int V = multireduce::tuning::pair_vector_width;
    return reinterpret_cast<std::uintptr_t>(weights) % scatter::chunk_alignment<W, V> == 0;
  }
  template <int V>
  [[nodiscard]] __device__ __forceinline__ scatter::chunk<W, V> load(cuda::std::size_t c) const {
    return multireduce::load_chunk<V>(weights, c);
  }
  [[nodiscard]] __device__ __forceinline__ W load_one(cuda::std::size_t i) const { return weights[i]; }
};

/// Samples as (bin, weight) pairs (the pair source of detail/multireduce/pair_walk.cuh); V = 4 when the
/// samples (and weights) are aligned to their 4-element chunk, 1 otherwise.
template <int V, class T, class Binning, class Weights, class Counter>
struct binned_samples {
  using value_type = Counter;
  using shared = typename Binning::shared;
  static constexpr int width = V;

  template <class Lookup>
  struct reader {
    using value_type = Counter;
    static constexpr int width = V;
    const T* samples;
    cuda::std::size_t n;
    Lookup bin_of;
    Weights weights;

    [[nodiscard]] __device__ cuda::std::size_t size() const { return n; }
    [[nodiscard]] __device__ __forceinline__ multireduce::pairs<Counter, V> load(cuda::std::size_t c) const {
      const auto chunk = multireduce::load_chunk<V>(samples, c);
      const auto weight = weights.template load<V>(c);
      multireduce::pairs<Counter, V> p;
#pragma unroll
      for (int j = 0; j < V; ++j) {
        p.bucket[j] = bin_of(chunk.v[j]);
        p.value[j] = weight.v[j];
      }
      return p;
    }
    [[nodiscard]] __device__ __forceinline__ multireduce::pairs<Counter, 1> load_one(cuda::std::size_t i) const {
      return {{bin_of(samples[i])}, {weights.load_one(i)}};
    }
  };

  const T* samples;
  cuda::std::size_t n;
  Binning binning;
  Weights weights;

  __device__ auto stage(shared& storage, unsigned thread, unsigned threads) const {
    using lookup = cuda::std::decay_t<decltype(binning.stage(storage, thread, threads))>;
    return reader<lookup>{samples, n, binning.stage(storage, thread, threads), weights};
  }
};

/// The binning the pair kernels use: range bins search their splitters in global memory (cached) here,
/// through their range cells (binning.hpp). Staging them in shared memory inside the pair reader, as the
/// warp ballots do, makes nvcc 13 for sm_90 emit a load from the immediate address 0 that ptxas rejects
/// ("Immediate addresses allowed only for .local state space").
template <class Binning>
[[nodiscard]] const Binning& unstaged(const Binning& binning) {
  return binning;
}
template <class T>
[[nodiscard]] global_range_binning<T> unstaged(const range_binning<T>& binning) {
  return {binning.splitters, binning.levels, binning.cells};
}

/// Calls run(source) with the fast source when the samples and weights are aligned to their 4-element
/// chunks, the one-element source otherwise.
template <class T, class Binning, class Weights, class Counter, class Run>
void with_binned_samples(const T* samples, cuda::std::size_t n, const Binning& binning, const Weights& weights,
                         Counter*, Run run) {
  constexpr int V = multireduce::tuning::pair_vector_width;
  using B = cuda::std::decay_t<decltype(unstaged(binning))>;
  if (reinterpret_cast<std::uintptr_t>(samples) % scatter::chunk_alignment<T, V> == 0 && weights.aligned())
    run(binned_samples<V, T, B, Weights, Counter>{samples, n, unstaged(binning), weights});
  else run(binned_samples<1, T, B, Weights, Counter>{samples, n, unstaged(binning), weights});
}

/// Threads per block: streaming_grid's (core/launch.hpp), which sizes this kernel's grid.
inline constexpr int bin_ids_threads = 256;

/// ids[i] = the bin of sample i, m for a sample outside the bins.
template <class Source>
__global__ void __launch_bounds__(bin_ids_threads)
    bin_ids_kernel(Source source, cuda::std::uint32_t m, cuda::std::uint32_t* __restrict__ ids) {
  __shared__ typename Source::shared staged;
  const auto reader = source.stage(staged, threadIdx.x, bin_ids_threads);
  __syncthreads();
  for (cuda::std::size_t i = blockIdx.x * cuda::std::size_t{bin_ids_threads} + threadIdx.x; i < source.n;
       i += cuda::std::size_t{gridDim.x} * bin_ids_threads) {
    const cuda::std::uint32_t bin = reader.load_one(i).bucket[0];
    ids[i] = bin < m ? bin : m;
  }
}

/// Writes the bin of each of the source's n samples to ids (n entries), m for a sample outside the bins:
/// the first step of the strategies that move bin ids instead of samples (sort_based.cuh, coarse_bins.cuh).
template <class Source>
void write_bin_ids(context& ctx, const Source& source, std::uint32_t m, std::uint32_t* ids) {
  auto kernel = bin_ids_kernel<Source>;
  kernel<<<streaming_grid(ctx, kernel, source.n), bin_ids_threads, 0, ctx.stream()>>>(source, m, ids);
  SLUICE_CHECK_LAUNCH();
}

/// Bucket sets of m counters that one block of the shared strategy holds here (0: none fit).
template <class Source>
[[nodiscard]] unsigned shared_per_bank_sets(const context& ctx, std::uint32_t m) {
  using Counter = typename Source::value_type;
  const auto budget = multireduce::per_bank_budget<Source, sluice::plus>(ctx);
  return multireduce::sets_within(m, sizeof(Counter), budget.per_block);
}

}  // namespace sluice::detail::histogram
