// sluice/multiscan.cuh: multiscan and multitag on the device (Eilers ch. 5): one scan per bucket.
//
//   multiscan_inclusive(labels, values, out, m, op):  out[i] = e ⊕ (values[j] for j ≤ i with labels[j] = labels[i])
//   multiscan_exclusive(labels, values, out, m, op):  out[i] = e ⊕ (values[j] for j < i with labels[j] = labels[i])
//   multitag(labels, rank, m):                        rank[i] = the number of j < i with labels[j] = labels[i]
//                                                     (the exclusive multiscan of ones)
//
// j ascending, e = the operator's identity (sluice/core/operators.hpp). Every prefix is produced in index
// order, so every strategy is order-preserving: non-commutative operators get the oracle's exact bits
// (reference::multiscan_inclusive / _exclusive / multitag). Float rounding across runs: with
// block_sort_segmented the grouping of every ⊕ is fixed (tiles in order within a block, the blocks'
// bucket sets scanned one thread per bucket in block order), so float results repeat bit for bit, and so
// do sequential's and sheffler's (sheffler's spinetree has a timing-dependent shape, but every spine sums
// whole rows in row order, so the labels alone fix the grouping);
// global_sort_scan_by_key's inclusive_scan_by_key chains its tiles by decoupled look-back, whose
// grouping of a run spanning tiles depends on timing, so its float results (and totals) can differ in
// their last bits between runs (exact operators, integers included, are unaffected).
// Labels are integers of any width, signed or unsigned; a label that is negative or ≥ m is dropped: its
// element gets the identity (rank 0), takes part in no bucket and is counted in *dropped (device memory,
// may be null). With options.strict such a label throws sluice::invalid_argument("labels") naming the
// first offending index, before any output is written (the check reads the labels once more and
// synchronises). totals (optional: empty or m entries) receives the multireduce: totals[k] = e ⊕ the
// values labelled k; multitag's counts (optional: empty or m entries) the number of elements labelled k.
// out may be the values array itself (in place); any other overlap of an output with an input is an error.
//
// Strategies (multiscan_algorithm; kernels in detail/multiscan/):
//   block_sort_segmented     Eilers Alg. 5.4 in the partitioning scheme of Alg. 5.2: each tile sorted by
//                            bucket in shared memory (the block piece of multireduce's Alg. 4.13), its runs
//                            scanned, results written back to the elements' positions on top of the
//                            block's running bucket set; the blocks' bucket sets scanned across blocks;
//                            each block's prefix folded in on the left. m · sizeof(T) ≤ 48 KiB.
//   global_sort_scan_by_key  §5.5: a stable radix sort of (bucket, index), the values gathered,
//                            inclusive_scan_by_key, the results scattered back. Any m.
//   sequential               §5.3 and Appendix B in the partitioning scheme: one contiguous segment per
//                            thread, scanned sequentially against the thread's own bucket set (in shared
//                            memory while 32 threads' sets fit 48 KiB, else in global memory, with fewer
//                            segments as m grows); the segments' bucket sets scanned across segments in
//                            order; each prefix folded in on the left. Any m. Research only.
//   sheffler                 §5.4: Sheffler's spinetree multiprefix on segments of 32² elements, one warp
//                            per segment, spinerecs in global memory (§5.4.2), inside the partitioning
//                            scheme; the thesis's identity bug fixed (an explicit spine flag). Any m.
//                            Research only: slow by construction (the thesis: > 4 ns per pair).
// automatic: block_sort_segmented for m ≤ 4096 where it fits, else global_sort_scan_by_key (the
// thesis's Fig. 5.7/5.8; what was measured: detail/multiscan/tuning.hpp); never sequential or sheffler,
// which only an explicit options.algorithm selects.
//
//   sluice::device_buffer<std::uint32_t> labels(ctx, host_labels), rank(ctx, n);
//   sluice::device_buffer<float> values(ctx, host_values), prefix(ctx, n);
//   sluice::multiscan_exclusive(ctx, labels.span(), values.span(), prefix.span(), m, sluice::plus{});
//   sluice::multitag(ctx, labels.span(), rank.span(), m);
//
// Errors (sluice::invalid_argument): m = 0 or m > 2^32 − 2 ("m"); values.size() or out.size() !=
// labels.size() ("values" / "out"), rank.size() != labels.size() ("rank"); totals / counts neither empty
// nor m entries ("totals" / "counts"); out overlapping labels, or values other than exactly ("out");
// totals or counts overlapping anything ("totals" / "counts"); multitag with n > 2^32 ("labels": 32-bit
// ranks); block_sort_segmented with m · sizeof(T) over 48 KiB ("options"); host memory. sequential and
// sheffler take any m; their scratch (segments · m values, or blocks · (m + 1024) spinerecs and m values)
// comes from the context's pool, whose exhaustion is an error like any allocation's.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/memory.hpp>
#include <sluice/core/operators.hpp>
#include <sluice/core/span.hpp>
#include <sluice/detail/multiscan/dispatch.cuh>
#include <sluice/options/multiscan.hpp>

#include <cuda/std/span>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>

namespace sluice {

/// A label: an integer of any width, signed or unsigned (not bool).
template <class L>
concept multiscan_label = std::integral<L> && !std::same_as<L, bool>;

/// out[i] = e ⊕ (values[j] for j ≤ i with labels[j] = labels[i]), j ascending; see the header comment.
template <class LIn, std::size_t E1, class TIn, std::size_t E2, class T, std::size_t E3, class Op>
  requires multiscan_label<std::remove_const_t<LIn>> && std::same_as<std::remove_const_t<TIn>, T> &&
           std::is_trivially_copyable_v<T>
void multiscan_inclusive(context& ctx, cuda::std::span<LIn, E1> labels, cuda::std::span<TIn, E2> values,
                         cuda::std::span<T, E3> out, std::uint32_t m, Op op, cuda::std::span<T> totals = {},
                         std::size_t* dropped = nullptr, const multiscan_options& options = {}) {
  detail::multiscan::multiscan(ctx, "multiscan_inclusive", detail::as_const_span(labels), detail::as_const_span(values),
                               cuda::std::span<T>(out), m, op, totals, dropped, options, true);
}

/// out[i] = e ⊕ (values[j] for j < i with labels[j] = labels[i]), j ascending; see the header comment.
template <class LIn, std::size_t E1, class TIn, std::size_t E2, class T, std::size_t E3, class Op>
  requires multiscan_label<std::remove_const_t<LIn>> && std::same_as<std::remove_const_t<TIn>, T> &&
           std::is_trivially_copyable_v<T>
void multiscan_exclusive(context& ctx, cuda::std::span<LIn, E1> labels, cuda::std::span<TIn, E2> values,
                         cuda::std::span<T, E3> out, std::uint32_t m, Op op, cuda::std::span<T> totals = {},
                         std::size_t* dropped = nullptr, const multiscan_options& options = {}) {
  detail::multiscan::multiscan(ctx, "multiscan_exclusive", detail::as_const_span(labels), detail::as_const_span(values),
                               cuda::std::span<T>(out), m, op, totals, dropped, options, false);
}

/// rank[i] = the number of j < i with labels[j] = labels[i]; counts[k] (optional) = the elements labelled k.
/// Counts are 64-bit and scanned as such; ranks fit 32 bits because n ≤ 2^32.
template <class LIn, std::size_t E1, std::size_t E2>
  requires multiscan_label<std::remove_const_t<LIn>>
void multitag(context& ctx, cuda::std::span<LIn, E1> labels, cuda::std::span<std::uint32_t, E2> rank, std::uint32_t m,
              cuda::std::span<std::uint64_t> counts = {}, std::size_t* dropped = nullptr,
              const multiscan_options& options = {}) {
  namespace ms = detail::multiscan;
  const char* function = "multitag";
  const auto label_span = detail::as_const_span(labels);
  ms::check_bucket_count(function, m);
  require_device_memory(ctx, label_span, function, "labels");
  require_device_memory(ctx, rank, function, "rank");
  if (dropped) require_device_memory(ctx, dropped, sizeof(std::size_t), function, "dropped");
  if (rank.size() != label_span.size()) throw invalid_argument(function, "rank", "must have one entry per label");
  if (!label_span.empty() && label_span.size() - 1 > std::numeric_limits<std::uint32_t>::max())
    throw invalid_argument(function, "labels", "has more elements than 32-bit ranks can count");
  if (detail::overlaps(rank, label_span)) throw invalid_argument(function, "rank", "overlaps labels");
  ms::check_bucket_output(ctx, function, "counts", counts, m, label_span, cuda::std::span<std::uint32_t>(rank));
  const multiscan_algorithm algorithm = ms::resolve<std::uint64_t>(function, m, options);
  ms::run<std::uint64_t>(ctx, function, algorithm, options.strict, label_span.data(), ms::ones<std::uint64_t>{},
                         label_span.size(), m, plus{},
                         ms::scan_outputs<std::uint64_t, std::uint32_t>{
                             rank.data(), counts.empty() ? nullptr : counts.data(), false},
                         dropped);
}

}  // namespace sluice
