// sluice/detail/multireduce/per_bank.cuh: per-bank shared-memory multireduce (Eilers §4.4c, Alg. 4.10,
// the thesis's fastest commutative strategy) and its multi-pass extension (§4.4d).
//
//   per block: the bucket sets of block/per_bank_buckets.cuh in dynamic shared memory (layout from
//              plan.hpp: up to 32 sets, as many buckets as the device's opt-in shared memory holds), the
//              pair walk of pair_walk.cuh (vector loads of 4 labels and 4 values, two chunks per step,
//              runs of equal labels folded into one shared atomic), then the block's sets folded per
//              bucket and added to out with one global atomic per bucket that is not the identity (no
//              second kernel: the operator is commutative).
//   grid:      one wave of resident blocks (core/launch.hpp), never more blocks than steps of work.
//   multi-pass: windows of buckets, one pass over the whole input per window; a pass skips the pairs
//              outside its window (Eilers: "the other passes only read and discard"). The fewest passes
//              whose windows one block holds in one set (plan.hpp). Dropped labels are counted on the
//              first pass only. Every pass runs the same grid and layout, so a warp meets the same pairs
//              in every pass: the first pass takes a whole warp's run of one bucket (all lanes' last
//              runs alike: all-equal or long sorted labels) whatever its window (outside it, lane 0
//              holds the run until one of another bucket comes, then adds it to out by one global
//              atomic) and counts the other runs it left; later passes skip whole-warp runs, and return
//              at once when the first left none (all-equal labels then cost one read, not one a pass).
// Traffic: n labels and n values read once per pass; per block, sets·window shared slots cleared and
// folded and at most window global atomics. Shared memory: sets · window · sizeof(T) per block.
//
// The kernel is generic over a pair source (pair_walk.cuh), so the histogram's shared strategy is this
// kernel with (bin of sample, 1) pairs (detail/histogram/binned_samples.cuh).
#pragma once

#include <sluice/block/per_bank_buckets.cuh>
#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/core/scratch.hpp>
#include <sluice/detail/multireduce/common.cuh>
#include <sluice/detail/multireduce/pair_walk.cuh>
#include <sluice/detail/multireduce/plan.hpp>
#include <sluice/detail/multireduce/tuning.hpp>

#include <cuda/std/cstddef>
#include <cuda/std/cstdint>

#include <algorithm>
#include <string>

namespace sluice::detail::multireduce {

/// The buckets [begin, begin + size) of one pass.
struct bucket_window {
  cuda::std::uint32_t begin;
  cuda::std::uint32_t size;
};

/// The part a pass plays in per_bank_multi_pass (header comment): the only pass, the first of several,
/// or a later one. A template parameter, so that the single pass compiles as it did before.
enum class pass_role : unsigned char { only, first, later };

/// Sends runs to the block's shared sets; runs outside the window (or dropped) are skipped, except in
/// the passes of per_bank_multi_pass (header comment).
template <class T, class Op, pass_role Role = pass_role::only>
struct shared_sink {
  const block::per_bank_buckets<T, Op>& buckets;
  bucket_window window;
  Op op;
  T* out = nullptr;             ///< the first pass's target for whole-warp runs outside its window
  cuda::std::uint32_t m = 0;
  unsigned long long left = 0;  ///< the first pass: runs outside its window, for later passes
  cuda::std::uint32_t held_bucket = no_bucket;  ///< the first pass, lane 0: a whole-warp run not yet in out
  T held = identity<Op, T>();

  __device__ __forceinline__ void add(cuda::std::uint32_t bucket, const T& value) {
    const cuda::std::uint32_t local = bucket - window.begin;  // wraps above the window for smaller buckets
    if (local < window.size) buckets.add(local, value, op);
    else if constexpr (Role == pass_role::first) left += bucket < m ? 1u : 0u;
  }
  /// The whole warp calls it. With 32 sets a warp's lanes never share a slot; with fewer, lanes l and
  /// l + sets do, and a warp whose runs all share a bucket (all-equal labels) would serialise
  /// 32 / sets atomics on each slot: it merges into one atomic instead.
  __device__ __forceinline__ void add_converged(cuda::std::uint32_t bucket, const T& value) {
    T total = value;
    if constexpr (Role == pass_role::only) {
      if (buckets.sets() == static_cast<unsigned>(warp::size) || !merge_warp(bucket, total, op))
        return add(bucket, value);
      if (warp::lane_id() == 0) add(bucket, total);
    } else {
      if (!merge_warp(bucket, total, op)) return add(bucket, value);
      if constexpr (Role == pass_role::first) take_whole_warp_run(bucket, total);
      // a later pass: the first took the run
    }
  }
  /// The first pass, after its walk: adds the held run to out.
  __device__ __forceinline__ void release() {
    if (held_bucket != no_bucket) atomic_combine(out + held_bucket, held, op);
    held_bucket = no_bucket;
  }

 private:
  /// A whole warp's run of one bucket: into the sets when in the window, else held by lane 0 until a run
  /// of another bucket comes (all-equal labels: one global atomic a warp, not one a step).
  __device__ __forceinline__ void take_whole_warp_run(cuda::std::uint32_t bucket, const T& total) {
    if (warp::lane_id() != 0) return;
    const cuda::std::uint32_t local = bucket - window.begin;
    if (local < window.size) return buckets.add(local, total, op);
    if (bucket >= m) return;
    if (bucket == held_bucket) {
      held = op(held, total);
      return;
    }
    release();
    held_bucket = bucket;
    held = total;
  }
};

template <class Source, class Op, pass_role Role = pass_role::only>
__global__ void __launch_bounds__(tuning::per_bank_threads)
    per_bank_kernel(Source source, typename Source::value_type* __restrict__ out, cuda::std::uint32_t m,
                    bucket_window window, unsigned sets, Op op, std::size_t* dropped, unsigned long long* left) {
  using T = typename Source::value_type;
  if constexpr (Role == pass_role::later)
    if (*left == 0) return;  // the same word for every thread
  extern __shared__ __align__(16) unsigned char per_bank_storage[];
  __shared__ typename Source::shared staged;
  const auto reader = source.stage(staged, threadIdx.x, tuning::per_bank_threads);
  const block::per_bank_buckets<T, Op> buckets(reinterpret_cast<T*>(per_bank_storage), window.size, sets);
  buckets.clear(threadIdx.x, tuning::per_bank_threads);
  __syncthreads();  // the sets are clear and the source is staged

  shared_sink<T, Op, Role> sink{buckets, window, op, out, m};
  unsigned long long invalid = 0;
  walk_pairs(reader, m, op, sink, invalid);
  add_dropped(invalid, dropped);
  if constexpr (Role == pass_role::first) {
    sink.release();
    scatter::add_warp_total(sink.left, left);
  }
  __syncthreads();
  buckets.flush(out + window.begin, threadIdx.x, tuning::per_bank_threads, op);
}

/// The shared memory the per-bank kernel of this source may take (net of its static shared memory).
template <class Source, class Op>
[[nodiscard]] shared_budget per_bank_budget(const context& ctx) {
  cudaFuncAttributes attributes{};
  SLUICE_CUDA_CHECK(cudaFuncGetAttributes(&attributes, per_bank_kernel<Source, Op>));
  return device_shared_budget(ctx, attributes.sharedSizeBytes);
}

/// The per-bank kernel of this source and role, allowed the layout's dynamic shared memory.
template <class Source, class Op, pass_role Role = pass_role::only>
[[nodiscard]] auto per_bank_kernel_for(const per_bank_layout& layout) {
  auto kernel = per_bank_kernel<Source, Op, Role>;
  SLUICE_CUDA_CHECK(
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(layout.shared_bytes)));
  return kernel;
}

/// Blocks of a per-bank pass over the source: one wave of the kernel, never more than steps of work.
template <class Kernel, class Source>
[[nodiscard]] std::size_t per_bank_grid(const context& ctx, Kernel kernel, const Source& source,
                                        const per_bank_layout& layout) {
  const std::size_t steps = ceil_div(source.n, std::size_t{2} * Source::width * tuning::per_bank_threads);
  return one_wave_grid(ctx, kernel, tuning::per_bank_threads, steps, layout.shared_bytes);
}

/// One pass of `kernel` (per_bank_kernel_for) over the source's n pairs for the buckets of `window`,
/// combined into out, on `grid` blocks.
template <class Kernel, class Source, class Op>
void per_bank_pass(context& ctx, Kernel kernel, std::size_t grid, const Source& source,
                   typename Source::value_type* out, std::uint32_t m, bucket_window window,
                   const per_bank_layout& layout, Op op, std::size_t* dropped, unsigned long long* left = nullptr) {
  kernel<<<static_cast<unsigned>(grid), tuning::per_bank_threads, layout.shared_bytes, ctx.stream()>>>(
      source, out, m, window, layout.sets, op, dropped, left);
  SLUICE_CHECK_LAUNCH();
}

/// out[b] ⊕= the pairs of bucket b, b < m, in one pass (m within per_bank_capacity, else
/// invalid_argument(function, "options")) or, with multi_pass, in multi_pass_count windows.
template <class Source, class Op>
void per_bank(context& ctx, const char* function, const Source& source, typename Source::value_type* out,
              std::uint32_t m, Op op, std::size_t* dropped, bool multi_pass) {
  using T = typename Source::value_type;
  const shared_budget budget = per_bank_budget<Source, Op>(ctx);
  const per_bank_layout whole = choose_per_bank_layout(m, sizeof(T), budget);
  if (whole.sets != 0) {
    const auto kernel = per_bank_kernel_for<Source, Op>(whole);
    return per_bank_pass(ctx, kernel, per_bank_grid(ctx, kernel, source, whole), source, out, m, {0, m}, whole, op,
                         dropped);
  }
  if (!multi_pass)
    throw invalid_argument(function, "options",
                           "per_bank_shared holds at most " + std::to_string(per_bank_capacity(sizeof(T), budget)) +
                               " buckets here, not m = " + std::to_string(m));
  // One layout and one grid for every pass: a warp must meet the same pairs in each (header comment).
  const std::uint32_t window = multi_pass_window(m, sizeof(T), budget);
  const per_bank_layout layout = choose_per_bank_layout(window, sizeof(T), budget);
  const auto first = per_bank_kernel_for<Source, Op, pass_role::first>(layout);
  const auto later = per_bank_kernel_for<Source, Op, pass_role::later>(layout);
  const std::size_t grid = per_bank_grid(ctx, first, source, layout);
  scratch<unsigned long long> left(ctx, 1);
  SLUICE_CUDA_CHECK(cudaMemsetAsync(left.get(), 0, sizeof(unsigned long long), ctx.stream()));
  per_bank_pass(ctx, first, grid, source, out, m, {0, window}, layout, op, dropped, left.get());
  for (std::uint32_t begin = window; begin < m; begin += std::min(window, m - begin))
    per_bank_pass(ctx, later, grid, source, out, m, {begin, std::min(window, m - begin)}, layout, op, nullptr,
                  left.get());
}

template <class L, class T, class Op>
void run_per_bank_shared(context& ctx, const L* labels, const T* values, std::size_t n, T* out, std::uint32_t m,
                         Op op, std::size_t* dropped) {
  if constexpr (runs_atomically<T, Op>)
    with_labelled_values(labels, values, n, m, [&](const auto& source) {
      per_bank(ctx, "multireduce", source, out, m, op, dropped, false);
    });
  else refuse_atomic("per_bank_shared");
}

template <class L, class T, class Op>
void run_per_bank_multi_pass(context& ctx, const L* labels, const T* values, std::size_t n, T* out,
                             std::uint32_t m, Op op, std::size_t* dropped) {
  if constexpr (runs_atomically<T, Op>)
    with_labelled_values(labels, values, n, m, [&](const auto& source) {
      per_bank(ctx, "multireduce", source, out, m, op, dropped, true);
    });
  else refuse_atomic("per_bank_multi_pass");
}

}  // namespace sluice::detail::multireduce
