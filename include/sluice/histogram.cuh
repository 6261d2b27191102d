// sluice/histogram.cuh: device-wide histograms (Ashkiani §3.7.3 warp ballots; Eilers §1.2 and §4.4: the
// histogram as a multireduce of ones, per-bank shared counters and global atomic sets), any m.
//
//   histogram_even(ctx, samples, bins, lower, upper)    m = bins.size() equal bins over [lower, upper)
//   histogram_range(ctx, samples, splitters, bins)      m = splitters.size() − 1 bins [s_b, s_{b+1})
//   histogram(ctx, samples, bins, bin_of)               bin_of(sample) → an integer bin in [0, m)
//   … and each with weights after the samples: histogram_even(ctx, samples, weights, bins, lower, upper)
//
// bins[b] = the number of samples in bin b (the counters are 4- or 8-byte integers and count modulo
// their width). Weighted (Eilers §1.2: the multireduce with the weights as values): bins[b] = the sum of
// the weights of the samples in bin b; weights is a device span with one weight per sample, of the bins'
// own type: a 4- or 8-byte integer (sums modulo its width) or float / double (sums rounded in an
// unspecified order by the atomic strategies; sort_based's order is fixed by n and m). Samples outside the bins are not counted (CUB's semantics): for even bins those
// outside [lower, upper) (so upper itself, ±inf and NaN), for range bins those outside [s_0, s_m), for
// a bin function any result negative or ≥ m. Even bins are exactly the oracle's
// (reference::even_bins): integers ⌊(x − lower)·m / (upper − lower)⌋; floats ((x − lower) /
// (upper − lower))·m in double, truncated, at most m − 1. Range bins are found by upper bound in the
// splitters, which must be strictly increasing (not checked, as that would cost a synchronisation;
// unsorted splitters give unspecified bins, but every count still lands in [0, m) or nowhere).
//
// With options.accumulate the counts are added to bins as they are; otherwise bins is overwritten.
// Samples may be any trivially copyable type for a bin function; even and range bins take integers
// and floating point. Asynchronous on the context's stream. 1 ≤ m ≤ 2^32 − 2; temporary memory O(m)
// at most for the atomic strategies (none for m ≤ what one block's shared memory holds), O(n + m) for
// sort_based and coarse_bins.
//
//   sluice::histogram_even(ctx, samples.span(), counts.span(), 0.0f, 1024.0f);
//   sluice::histogram_range(ctx, samples.span(), splitters.span(), counts.span(), {.accumulate = true});
//   sluice::histogram(ctx, samples.span(), counts.span(), [] __device__ (std::uint32_t x) { return x % 7; });
//
// Strategies (histogram_options::algorithm; see docs/histogram.md):
//   warp_ballot      detail/histogram/warp_ballot.cuh: per-warp counts in registers by ballots, one
//                    global atomic per bin and block; m ≤ 256.
//   shared_per_bank  Eilers §4.4c: the per-bank multireduce kernel with unit values
//                    (detail/histogram/binned_samples.cuh): counters in up to 32 per-bank sets per block
//                    in shared memory; m up to what one block holds (58 112 four-byte counters on an H100).
//   global_atomics   Eilers Alg. 4.9: the global atomic sets kernel with unit values; any m.
//   bank_trish       detail/histogram/bank_trish.cuh (Eilers §4.5.2, Appendix A): 64 sub-histograms of
//                    8-bit counters in shared memory, 512 threads, bundled word updates, periodic flush;
//                    1-byte samples, m ≤ 256, unweighted.
//   sort_based       detail/histogram/sort_based.cuh (Eilers §4.5a): radix sort of the bin ids over
//                    ⌈log2(m + 1)⌉ bits, counts from the run boundaries; any m, deterministic, memory
//                    O(n + m).
//   coarse_bins      detail/histogram/coarse_bins.cuh (DTU report ch. 6 §6.2): the bins in coarse bins of
//                    as many as one block's shared memory holds; the bin ids multisplit by coarse bin on
//                    the device, then one kernel whose blocks count equal tiles of them in privatised
//                    shared counters, a coarse bin at a time; any m, memory O(n + m). For m past what
//                    shared_per_bank holds.
//   byte_counts      detail/histogram/byte_counts.cuh: 1-byte samples (not bool), unweighted, any m: the
//                    256 byte values counted in per-bank shared counters (one column per lane), then
//                    each value's count added to its bin once per block.
//   automatic        byte_counts for unweighted 1-byte samples; otherwise warp_ballot for m ≤ 2
//                    (unweighted), shared_per_bank while a block holds 4 sets of the counters,
//                    global_atomics beyond while the counters take at most half the L2, coarse_bins past
//                    that (what set each threshold: detail/histogram/tuning.hpp and
//                    detail/multireduce/tuning.hpp); never bank_trish or sort_based, each slower than
//                    this choice where measured (docs/histogram.md).
//
// Errors (sluice::invalid_argument): bins empty or more than 2^32 − 2 bins; lower < upper false
// ('upper'); splitters.size() != bins.size() + 1 ('splitters'); weights.size() != samples.size()
// ('weights'); host memory; bins overlapping the samples or weights; an explicit strategy that cannot
// count the problem ('options': warp_ballot past 256 bins or with weights, shared_per_bank past one
// block's shared memory, bank_trish with samples that are not 1 byte, past 256 bins or with weights,
// byte_counts with samples that are not 1 byte or with weights; both refuse bool samples).
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/memory.hpp>
#include <sluice/core/span.hpp>
#include <sluice/detail/histogram/dispatch.cuh>
#include <sluice/options/histogram.hpp>

#include <cuda/std/span>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

namespace sluice {

/// bins[b] = the samples in [lower + b·w, lower + (b+1)·w), w = (upper − lower) / bins.size() (computed
/// exactly as reference::even_bins does).
template <class SIn, std::size_t E1, class Counter, std::size_t E2>
  requires(std::integral<std::remove_const_t<SIn>> || std::floating_point<std::remove_const_t<SIn>>) &&
          histogram_counter<Counter>
void histogram_even(context& ctx, cuda::std::span<SIn, E1> samples, cuda::std::span<Counter, E2> bins,
                    std::type_identity_t<std::remove_const_t<SIn>> lower,
                    std::type_identity_t<std::remove_const_t<SIn>> upper, const histogram_options& options = {}) {
  detail::histogram::even(ctx, "histogram_even", detail::as_const_span(samples),
                          detail::histogram::unit_weights<Counter>{}, cuda::std::span<Counter>(bins), lower, upper,
                          options);
}

/// Weighted: bins[b] = the sum of the weights of the samples in bin b (weights[i] belongs to samples[i]).
template <class SIn, std::size_t E1, class WIn, std::size_t E2, class W, std::size_t E3>
  requires(std::integral<std::remove_const_t<SIn>> || std::floating_point<std::remove_const_t<SIn>>) &&
          std::same_as<std::remove_const_t<WIn>, W> && histogram_weight<W>
void histogram_even(context& ctx, cuda::std::span<SIn, E1> samples, cuda::std::span<WIn, E2> weights,
                    cuda::std::span<W, E3> bins, std::type_identity_t<std::remove_const_t<SIn>> lower,
                    std::type_identity_t<std::remove_const_t<SIn>> upper, const histogram_options& options = {}) {
  namespace h = detail::histogram;
  const char* function = "histogram_even";
  const auto input = detail::as_const_span(samples);
  const cuda::std::span<W> out(bins);
  h::even(ctx, function, input, h::weights_of(ctx, function, input, detail::as_const_span(weights), out), out, lower,
          upper, options);
}

/// bins[b] = the samples in [splitters[b], splitters[b + 1]); splitters strictly increasing, on the device.
template <class SIn, std::size_t E1, class LIn, std::size_t E2, class Counter, std::size_t E3>
  requires std::same_as<std::remove_const_t<SIn>, std::remove_const_t<LIn>> &&
           (std::integral<std::remove_const_t<SIn>> || std::floating_point<std::remove_const_t<SIn>>) &&
           histogram_counter<Counter>
void histogram_range(context& ctx, cuda::std::span<SIn, E1> samples, cuda::std::span<LIn, E2> splitters,
                     cuda::std::span<Counter, E3> bins, const histogram_options& options = {}) {
  detail::histogram::range(ctx, "histogram_range", detail::as_const_span(samples), detail::as_const_span(splitters),
                           detail::histogram::unit_weights<Counter>{}, cuda::std::span<Counter>(bins), options);
}

/// Weighted: bins[b] = the sum of the weights of the samples in [splitters[b], splitters[b + 1]).
template <class SIn, std::size_t E1, class WIn, std::size_t E2, class LIn, std::size_t E3, class W, std::size_t E4>
  requires std::same_as<std::remove_const_t<SIn>, std::remove_const_t<LIn>> &&
           (std::integral<std::remove_const_t<SIn>> || std::floating_point<std::remove_const_t<SIn>>) &&
           std::same_as<std::remove_const_t<WIn>, W> && histogram_weight<W>
void histogram_range(context& ctx, cuda::std::span<SIn, E1> samples, cuda::std::span<WIn, E2> weights,
                     cuda::std::span<LIn, E3> splitters, cuda::std::span<W, E4> bins,
                     const histogram_options& options = {}) {
  namespace h = detail::histogram;
  const char* function = "histogram_range";
  const auto input = detail::as_const_span(samples);
  const cuda::std::span<W> out(bins);
  h::range(ctx, function, input, detail::as_const_span(splitters),
           h::weights_of(ctx, function, input, detail::as_const_span(weights), out), out, options);
}

/// bins[b] = the samples x with bin_of(x) == b (a device functor returning an integer; results
/// negative or ≥ bins.size() are not counted).
template <class SIn, std::size_t E1, class Counter, std::size_t E2, class BinOf>
  requires std::is_trivially_copyable_v<std::remove_const_t<SIn>> && histogram_counter<Counter>
void histogram(context& ctx, cuda::std::span<SIn, E1> samples, cuda::std::span<Counter, E2> bins, BinOf bin_of,
               const histogram_options& options = {}) {
  detail::histogram::by_function(ctx, "histogram", detail::as_const_span(samples), bin_of,
                                 detail::histogram::unit_weights<Counter>{}, cuda::std::span<Counter>(bins), options);
}

/// Weighted: bins[b] = the sum of the weights of the samples x with bin_of(x) == b.
template <class SIn, std::size_t E1, class WIn, std::size_t E2, class W, std::size_t E3, class BinOf>
  requires std::is_trivially_copyable_v<std::remove_const_t<SIn>> && std::same_as<std::remove_const_t<WIn>, W> &&
           histogram_weight<W>
void histogram(context& ctx, cuda::std::span<SIn, E1> samples, cuda::std::span<WIn, E2> weights,
               cuda::std::span<W, E3> bins, BinOf bin_of, const histogram_options& options = {}) {
  namespace h = detail::histogram;
  const char* function = "histogram";
  const auto input = detail::as_const_span(samples);
  const cuda::std::span<W> out(bins);
  h::by_function(ctx, function, input, bin_of, h::weights_of(ctx, function, input, detail::as_const_span(weights), out),
                 out, options);
}

}  // namespace sluice
