// sluice/multireduce.cuh: multireduce on the device (Eilers ch. 4): one reduction per bucket.
//
//   multireduce(labels, values, out, op):  out[k] = e ⊕ values[j_1] ⊕ values[j_2] ⊕ …
//                                           for the j with labels[j] = k, j ascending; e = identity of op
//
// m = out.size() (1 ≤ m ≤ 2^32 − 2). An empty bucket holds the identity (the operator must declare one:
// sluice/core/operators.hpp). With options.accumulate the buckets fold onto out's contents instead:
// out[k] = out[k] ⊕ values[j_1] ⊕ … . Labels are integers of any width, signed or unsigned; a label
// that is negative or ≥ m is dropped and counted: *dropped (device memory, may be null) receives the
// count. With options.strict such a label throws sluice::invalid_argument("labels") naming the first
// offending index, before out is touched (the check reads the labels once more and synchronises).
//
// Operator classes (sluice::is_commutative_v<Op>):
//   commutative (plus, min, max, bit ops, user operators that declare it): any strategy; atomics combine
//     partial results in an unspecified order, so float sums may differ from the sequential order's
//     rounding from run to run. options.deterministic picks only strategies whose result does not depend
//     on scheduling (the order-preserving ones), for bit-identical float sums across runs: every one of
//     their combination steps has an order fixed by n, m and the device (docs/multireduce.md,
//     "Determinism"), for any m.
//   non-commutative (affine-map composition, matrix products): only the order-preserving strategies;
//     the result has the sequential oracle's exact bits (reference::multireduce).
//
// Strategies (multireduce_algorithm; kernels in detail/multireduce/, one file per strategy):
//   per_bank_shared            Eilers Alg. 4.10: 32 bucket sets per block in shared memory, set s in bank
//                              s, shared atomics, two pairs per thread aggregated when their labels agree;
//                              blocks fold their sets into out with global atomics. Commutative; m up to
//                              what the device's shared memory per block holds (read from the device).
//   per_bank_multi_pass        §4.4d: per_bank_shared over windows of buckets, one pass per window.
//   global_atomic_sets         Alg. 4.9: nSets interleaved bucket sets in global memory with atomics, then
//                              one reduction over the sets (Table 4.1); with partial_sort_bits = b > 0
//                              the pairs are first sorted stably by the top b bits of the label (Table
//                              4.2), so the atomics stay in an L2-sized window of buckets. Commutative;
//                              any m.
//   block_sort_segmented       Alg. 4.13: each tile sorted by label in shared memory (cub::BlockRadixSort,
//                              stable) after the padded segmented transpose load (Alg. 4.7), segment
//                              totals per tile, then the tiles' partials reduced in tile order (large m:
//                              sorted records and global_sort_reduce_by_key's finish). Order-preserving.
//   global_sort_reduce_by_key  §4.5a: a stable radix sort by label, then each bucket's run reduced by
//                              a segmented reduce over the buckets' offsets (merge path, fixed order).
//                              Order-preserving, any m.
//   vector                     the vector trick for tiny m: every thread keeps m accumulators over a
//                              contiguous chunk, chunks combined in order. Order-preserving.
//   warp_private_sets          §4.3's sequential loop on private bucket sets, one set per warp in shared
//                              memory: each window of 32 consecutive pairs folds its peers (lanes with
//                              one bucket, found by __match_any_sync) in lane order onto the warp's set;
//                              warps and blocks combined in order. Order-preserving; m up to what 8 sets
//                              of m values in one block's shared memory allow (1816 of 16 bytes on an H100).
// automatic: detail/multireduce/plan.hpp, from the operator class, m, the value size and the device's
// shared memory and L2 (its thresholds, and what measured them: detail/multireduce/tuning.hpp).
//
// Values: any trivially copyable T. Atomic strategies need sizeof(T) of 4 or 8 (hardware atomics where
// the operator has one, a compare-and-swap loop otherwise); other sizes run order-preserving strategies.
//
//   sluice::device_buffer<std::uint32_t> labels(ctx, host_labels);
//   sluice::device_buffer<float> values(ctx, host_values), sums(ctx, m);
//   sluice::multireduce(ctx, labels.span(), values.span(), sums.span(), sluice::plus{});
//   sluice::multireduce(ctx, labels.span(), maps.span(), composed.span(), sluice::affine_compose{}, dropped.data(),
//                       {.algorithm = sluice::multireduce_algorithm::block_sort_segmented});
//
// Errors (sluice::invalid_argument): out empty (m = 0) or with more than 2^32 − 2 buckets ("out");
// values.size() != labels.size() ("values"); out overlapping labels or values ("out": no in-place
// form); host memory; an explicit strategy that cannot run the operator or value ("options": an atomic
// strategy with a non-commutative operator, with options.deterministic, or with a value that is not 4 or
// 8 bytes; per_bank_shared with more buckets than shared memory holds; vector past 8 buckets;
// warp_private_sets past what its 8 sets of m values fit; sets not 0 or a power of two ≤ 32;
// partial_sort_bits < −1 or > ⌈log2 m⌉).
// Working memory that the device cannot provide (every strategy takes it from the context's pool) is
// sluice::out_of_memory (a cuda_error, cudaErrorMemoryAllocation) naming "multireduce", the strategy
// and the bytes of the allocation that failed, raised before any value reaches a bucket (without
// accumulate, out may already hold the identity, and *dropped is unspecified); the context stays
// usable.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/memory.hpp>
#include <sluice/core/operators.hpp>
#include <sluice/core/span.hpp>
#include <sluice/detail/multireduce/dispatch.cuh>
#include <sluice/options/multireduce.hpp>

#include <cuda/std/span>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace sluice {

/// A label: an integer of any width, signed or unsigned (not bool).
template <class L>
concept multireduce_label = std::integral<L> && !std::same_as<L, bool>;

/// out[k] = (accumulate ? out[k] : e) ⊕ the values labelled k in index order; see the header comment.
template <class LIn, std::size_t E1, class TIn, std::size_t E2, class T, std::size_t E3, class Op>
  requires multireduce_label<std::remove_const_t<LIn>> && std::same_as<std::remove_const_t<TIn>, T> &&
           std::is_trivially_copyable_v<T>
void multireduce(context& ctx, cuda::std::span<LIn, E1> labels, cuda::std::span<TIn, E2> values,
                 cuda::std::span<T, E3> out, Op op, std::size_t* dropped = nullptr,
                 const multireduce_options& options = {}) {
  namespace mr = detail::multireduce;
  const char* function = "multireduce";
  const auto label_span = detail::as_const_span(labels);
  const auto value_span = detail::as_const_span(values);
  const cuda::std::span<T> buckets(out);
  mr::check_arguments(ctx, function, label_span, value_span, buckets, dropped);
  const auto m = static_cast<std::uint32_t>(buckets.size());
  const mr::plan plan = mr::resolve<T, Op>(ctx, function, m, label_span.size(), options);
  auto device = ctx.activate();
  if (options.strict) mr::require_valid_labels(ctx, function, label_span.data(), label_span.size(), m);
  if (dropped) SLUICE_CUDA_CHECK(cudaMemsetAsync(dropped, 0, sizeof(std::size_t), ctx.stream()));
  if (!options.accumulate) mr::fill_identity<Op>(ctx, buckets.data(), m);
  if (label_span.empty()) return;
  detail::naming_out_of_memory(function, to_string(plan.algorithm), [&] {
    mr::run(ctx, plan, label_span.data(), value_span.data(), label_span.size(), buckets.data(), m, op, dropped);
  });
}

}  // namespace sluice
