// sluice/detail/histogram/coarse_bins.cuh: the coarse-bin histogram, DTU HPC report ch. 6 §6.2 ("the
// fast histogram"; digest 001 §5) built as the report designed it and did not manage to, for bin counts
// that one block's shared memory cannot hold (2^20 … 2^24 bins and beyond).
//
//   coarse bins  the m fine bins in C = ⌈m / w⌉ contiguous ranges of w bins, w = as many counters of the
//                output's type as one block's shared memory holds (read from the device: plan.hpp's
//                per-bank budget, one set), so that a block privatises a whole coarse bin (the report:
//                "each block thus works on a coarse bin instead of the total histogram").
//   ids          every sample's fine bin, computed once (binned_samples.cuh's write_bin_ids; m for a
//                sample outside the bins).
//   partition    sluice's multisplit of the ids (with the weights as values) into the C coarse bins by
//                id / w, on the device: no host round trip (the report copied its arrays to the host and
//                back around a 32-bit sort, 80% of its time). Chosen over a radix sort of the ids'
//                coarse bits because the multisplit (1) returns the coarse bins' offsets, the report's
//                segment starts (its listing 6.6 left an empty coarse bin's start at 0 and so lost the
//                counts of the one before), (2) drops the samples outside the bins on the way (id m has
//                no coarse bin), so the count never sees them, and (3) takes any w, not a power of two,
//                so a coarse bin fills the block's shared memory (a power of two wastes up to half of it
//                and doubles C). Its automatic strategy follows C: one onesweep pass for 3 ≤ C ≤ 255,
//                i.e. m up to 255·w (14.8M four-byte bins on an H100), digit passes beyond.
//   count        ONE kernel (the report launched one per coarse bin, then one per stream, which "did not
//                boost the performance significantly"). Block b takes the tile [b·t, (b+1)·t) of the
//                partitioned ids, t from one wave of blocks over n (a multiple of the walk's step), so
//                every block has the same number of samples whatever their distribution. A tile lies in
//                one coarse bin or straddles boundaries: the block walks it as segments, one per coarse
//                bin it meets, the segment's coarse bin from its first id and its end from the offsets
//                (empty coarse bins are never visited). A segment with at least as many samples as the
//                counter slots it would need is counted in the block's privatised counters for that
//                coarse bin (block/per_bank_buckets.cuh: cleared, shared atomics, one global atomic per
//                nonzero bin at the flush); a shorter one goes straight to global atomics, as clearing
//                and flushing the slots would cost more than the atomics they save (not measured:
//                tuning.hpp). Either way a thread's run of equal bins, and a warp whose runs share a bin,
//                is one atomic (pair_walk.cuh's fold_runs and the sinks' add_converged).
// The report's per-block rows (coarse_bin_grid), transpose and row reduce become the flush's global
// atomics: integer counts are exact in any order, the rows would cost grid · w temporary counters per
// coarse bin, and a float sum of weights is then rounded in an unspecified order, as in the other atomic
// strategies.
// Complexity: segments ≤ grid + C − 1 (each tile's boundaries), so clearing and flushing the privatised
// counters reads and writes O(m + grid · w) shared slots. Memory O(n + m): 2n ids (+ n weights), C + 1
// offsets and the multisplit's own storage. Traffic: the samples read once and the ids written once; the
// multisplit's passes over (id, weight); the partitioned ids (and weights) read once; at most one global
// atomic per bin and privatised segment, one per run of a thread's samples in a short segment.
#pragma once

#include <sluice/block/per_bank_buckets.cuh>
#include <sluice/core/binning.hpp>
#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/core/operators.hpp>
#include <sluice/core/scratch.hpp>
#include <sluice/detail/histogram/binned_samples.cuh>
#include <sluice/detail/histogram/tuning.hpp>
#include <sluice/detail/multireduce/global_atomic_sets.cuh>
#include <sluice/detail/multireduce/pair_walk.cuh>
#include <sluice/detail/multireduce/per_bank.cuh>
#include <sluice/detail/multireduce/plan.hpp>
#include <sluice/detail/multisplit/dispatch.cuh>
#include <sluice/warp/shuffle.cuh>

#include <cuda/std/cstddef>
#include <cuda/std/cstdint>
#include <cuda/std/span>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace sluice::detail::histogram {

/// Threads per block of the count: the per-bank kernel's, whose counters it privatises.
inline constexpr int coarse_threads = multireduce::tuning::per_bank_threads;
/// Ids per load: the partitioned ids (and weights) are scratch memory, always aligned for vector loads.
inline constexpr int coarse_vector = multireduce::tuning::pair_vector_width;
/// Ids one block walks per step (two chunks per thread); tiles are multiples of it.
inline constexpr std::size_t coarse_step = std::size_t{2} * coarse_vector * coarse_threads;
/// The coarse bins of m fine bins on a device.
struct coarse_plan {
  std::uint32_t width = 0;              ///< w: fine bins per coarse bin (the last may have fewer)
  std::uint32_t count = 0;              ///< C = ⌈m / w⌉
  multireduce::per_bank_layout layout;  ///< one coarse bin's counters in a block
  friend constexpr bool operator==(const coarse_plan&, const coarse_plan&) = default;
};

/// Coarse bins as wide as one set of counters of counter_bytes in the budget's block (at most m), with
/// the per-bank layout of that width (more sets, hence fewer same-slot collisions, when m is small).
[[nodiscard]] constexpr coarse_plan plan_coarse_bins(std::uint32_t m, std::size_t counter_bytes,
                                                     const multireduce::shared_budget& budget) {
  const std::uint64_t capacity = multireduce::per_bank_capacity(counter_bytes, budget);
  const auto width = static_cast<std::uint32_t>(std::clamp<std::uint64_t>(capacity, 1, m));
  return {width, static_cast<std::uint32_t>(ceil_div(m, width)),
          multireduce::choose_per_bank_layout(width, counter_bytes, budget)};
}

/// The partition's bucket functor: a fine bin's coarse bin; a sample outside the bins (id m) has none,
/// so the multisplit drops it.
struct coarse_bin_of {
  std::uint32_t width;
  std::uint32_t m;
  SLUICE_HOST_DEVICE std::uint32_t operator()(std::uint32_t id) const { return id < m ? id / width : out_of_range; }
};

/// The partitioned ids as a pair source: each id is its own bin (every id is < m after the partition),
/// with the partitioned weights (or ones).
template <class Weights, class Counter>
using partitioned_bins =
    binned_samples<coarse_vector, std::uint32_t, functor_binning<sluice::buckets::identity>, Weights, Counter>;

/// One block's pairs [begin, end) of the reader into the sink: the whole V-chunks among them as
/// pair_walk.cuh's walk takes them (two per thread and step, loaded before either is used, runs folded,
/// the warp's last runs to add_converged with the warp's lanes kept together), then the fewer than V
/// pairs before the first and after the last whole chunk, one per thread. A segment starts anywhere, so
/// its ends need the single loads; its inside keeps the vector loads.
template <class Reader, class Sink>
__device__ void walk_block_range(const Reader& reader, cuda::std::size_t begin, cuda::std::size_t end, Sink& sink) {
  constexpr int V = Reader::width;
  const cuda::std::size_t first_chunk = (begin + V - 1) / V;
  const cuda::std::size_t end_chunk = end / V;
  multireduce::fold_chunk_pairs(reader, first_chunk + threadIdx.x, end_chunk, blockDim.x, sluice::plus{}, sink,
                                [](const auto&) {});  // the partition dropped what lies outside the bins
  const cuda::std::size_t head_end = cuda::std::min(end, first_chunk * V);
  const cuda::std::size_t tail_begin = cuda::std::max(end_chunk * V, head_end);
  auto add_one = [&](cuda::std::size_t i) {
    const auto p = reader.load_one(i);
    sink.add(p.bucket[0], p.value[0]);
  };
  if (begin + threadIdx.x < head_end) add_one(begin + threadIdx.x);
  if (tail_begin + threadIdx.x < end) add_one(tail_begin + threadIdx.x);
}

/// Counts one block's segment [begin, end) of the partitioned samples, all in the coarse bin whose fine
/// bins are `window`, into bins: in the block's shared counters (`sets` per-bank sets in `storage`) when
/// the segment is long enough to pay for clearing and flushing them, by global atomics otherwise. Every
/// thread of the block calls it with the same arguments.
template <class Reader, class Counter>
__device__ void count_segment(const Reader& reader, cuda::std::size_t begin, cuda::std::size_t end,
                              multireduce::bucket_window window, unsigned sets, Counter* storage, Counter* bins,
                              cuda::std::uint32_t m) {
  using plus = sluice::plus;
  const cuda::std::size_t slots = cuda::std::size_t{window.size} * sets;
  if (end - begin < tuning::coarse_privatise_samples_per_slot * slots) {
    multireduce::global_sink<Counter, plus> sink{bins, m, 0, 0u, 0u, plus{}};  // one set: bins itself
    walk_block_range(reader, begin, end, sink);
    return;
  }
  const block::per_bank_buckets<Counter, plus> counters(storage, window.size, sets);
  counters.clear(threadIdx.x, coarse_threads);
  __syncthreads();
  multireduce::shared_sink<Counter, plus> sink{counters, window, plus{}};
  walk_block_range(reader, begin, end, sink);
  __syncthreads();
  counters.flush(bins + window.begin, threadIdx.x, coarse_threads, plus{});
  __syncthreads();  // the next segment's clear overwrites the counters this flush reads
}

/// The count (header comment): block b walks its tile of the partitioned samples segment by segment.
/// offsets[k] is where coarse bin k starts, offsets[count] the number of samples kept. One block per SM
/// is the design point (a coarse bin fills the block's shared memory), so ptxas may take up to 128
/// registers: at its default target the double-weighted kernel spilled (docs/perf-notes.md).
template <class Source>
__global__ void __launch_bounds__(coarse_threads, 1)
    coarse_bins_kernel(Source partitioned, const cuda::std::size_t* __restrict__ offsets, cuda::std::uint32_t m,
                       cuda::std::uint32_t width, cuda::std::uint32_t count, unsigned sets, cuda::std::size_t tile,
                       typename Source::value_type* __restrict__ bins) {
  using Counter = typename Source::value_type;
  extern __shared__ __align__(16) unsigned char coarse_storage[];
  __shared__ typename Source::shared staged;
  const auto reader = partitioned.stage(staged, threadIdx.x, coarse_threads);
  __syncthreads();
  Counter* storage = reinterpret_cast<Counter*>(coarse_storage);
  const cuda::std::size_t tile_begin = blockIdx.x * tile;
  const cuda::std::size_t tile_end = cuda::std::min(tile_begin + tile, offsets[count]);
  // Every thread reads the same ids and offsets, so the segments (and their barriers) are block-uniform.
  for (cuda::std::size_t begin = tile_begin; begin < tile_end;) {
    const cuda::std::uint32_t coarse = reader.load_one(begin).bucket[0] / width;
    const cuda::std::size_t end = cuda::std::min(offsets[coarse + 1], tile_end);
    const cuda::std::uint32_t first = coarse * width;
    count_segment(reader, begin, end, {first, cuda::std::min(width, m - first)}, sets, storage, bins, m);
    begin = end;
  }
}

/// The shared memory the count may take for this source (net of its static shared memory).
template <class Source>
[[nodiscard]] multireduce::shared_budget coarse_bins_budget(const context& ctx) {
  cudaFuncAttributes attributes{};
  SLUICE_CUDA_CHECK(cudaFuncGetAttributes(&attributes, coarse_bins_kernel<Source>));
  return multireduce::device_shared_budget(ctx, attributes.sharedSizeBytes);
}

/// Launches the count over the partitioned samples: one wave of blocks, equal tiles.
template <class Source>
void count_partitioned(context& ctx, const Source& partitioned, const std::size_t* offsets, std::uint32_t m,
                       const coarse_plan& plan, typename Source::value_type* bins) {
  auto kernel = coarse_bins_kernel<Source>;
  const std::size_t shared_bytes = plan.layout.shared_bytes;
  SLUICE_CUDA_CHECK(
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared_bytes)));
  const std::size_t grid =
      one_wave_grid(ctx, kernel, coarse_threads, ceil_div(partitioned.n, coarse_step), shared_bytes);
  const std::size_t tile = ceil_div(ceil_div(partitioned.n, grid), coarse_step) * coarse_step;
  kernel<<<static_cast<unsigned>(grid), coarse_threads, shared_bytes, ctx.stream()>>>(
      partitioned, offsets, m, plan.width, plan.count, plan.layout.sets, tile, bins);
  SLUICE_CHECK_LAUNCH();
}

/// Partitions n bin ids (with their weights) by coarse bin and counts them into bins (header comment).
template <class Weights, class Counter>
void partition_and_count(context& ctx, const char* function, const std::uint32_t* ids, std::size_t n,
                         const Weights& weights, Counter* bins, std::uint32_t m) {
  namespace ms = detail::multisplit;
  using partitioned = partitioned_bins<Weights, Counter>;
  const coarse_plan plan = plan_coarse_bins(m, sizeof(Counter), coarse_bins_budget<partitioned>(ctx));
  scratch<std::uint32_t> partitioned_ids(ctx, n);
  scratch<std::size_t> offsets(ctx, std::size_t{plan.count} + 1);
  const cuda::std::span<std::size_t> offset_span(offsets.get(), std::size_t{plan.count} + 1);
  const coarse_bin_of coarse{plan.width, m};
  const functor_binning<sluice::buckets::identity> own_bin{{}, m};
  if constexpr (std::is_same_v<Weights, unit_weights<Counter>>) {
    ms::run(ctx, function, ms::pass_io<std::uint32_t, no_values>{ids, nullptr, partitioned_ids.get(), nullptr, n},
            plan.count, coarse, offset_span, nullptr, {});
    count_partitioned(ctx, partitioned{partitioned_ids.get(), n, own_bin, weights}, offsets.get(), m, plan, bins);
  } else {
    scratch<Counter> partitioned_weights(ctx, n);
    const ms::pass_io<std::uint32_t, Counter> io{ids, weights.weights, partitioned_ids.get(),
                                                 partitioned_weights.get(), n};
    ms::run(ctx, function, io, plan.count, coarse, offset_span, nullptr, {});
    count_partitioned(ctx, partitioned{partitioned_ids.get(), n, own_bin, Weights{partitioned_weights.get()}},
                      offsets.get(), m, plan, bins);
  }
}

/// bins[b] += the samples of bin b (or their weights: the source's), b < m, through the coarse bins.
template <class Source, class Counter>
void coarse_bins(context& ctx, const char* function, const Source& source, Counter* bins, std::uint32_t m) {
  scratch<std::uint32_t> ids(ctx, source.n);
  write_bin_ids(ctx, source, m, ids.get());
  partition_and_count(ctx, function, ids.get(), source.n, source.weights, bins, m);
}

}  // namespace sluice::detail::histogram
