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
//                    1-byte samples, m ≤ 256, unweighted. Compiled, not yet run on a GPU.
//   sort_based       detail/histogram/sort_based.cuh (Eilers §4.5a): radix sort of the bin ids over
//                    ⌈log2(m + 1)⌉ bits, counts from the run boundaries; any m, deterministic, memory
//                    O(n + m). Compiled, not yet run on a GPU.
//   coarse_bins      detail/histogram/coarse_bins.cuh (DTU report ch. 6 §6.2): the bins in coarse bins of
//                    as many as one block's shared memory holds; the bin ids multisplit by coarse bin on
//                    the device, then one kernel whose blocks count equal tiles of them in privatised
//                    shared counters, a coarse bin at a time; any m, memory O(n + m). For m past what
//                    shared_per_bank holds. Compiled, not yet run on a GPU.
//   automatic        warp_ballot for m ≤ 2 (unweighted), shared_per_bank while a block holds 4 sets of the
//                    counters, global_atomics beyond; never bank_trish, sort_based or coarse_bins (bank_trish
//                    awaits a GPU measurement against shared_per_bank, coarse_bins one against
//                    global_atomics). PROVISIONAL: not yet measured on a GPU (the warp ballots were
//                    0.95× / 0.60× / 0.25× CUB HistogramEven at m = 2 / 32 / 256 on the H100).
//
// Errors (sluice::invalid_argument): bins empty or more than 2^32 − 2 bins; lower < upper false
// ('upper'); splitters.size() != bins.size() + 1 ('splitters'); weights.size() != samples.size()
// ('weights'); host memory; bins overlapping the samples or weights; an explicit strategy that cannot
// count the problem ('options': warp_ballot past 256 bins or with weights, shared_per_bank past one
// block's shared memory, bank_trish with samples that are not 1 byte, past 256 bins or with weights).
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/memory.hpp>
#include <sluice/core/span.hpp>
#include <sluice/detail/histogram/bank_trish.cuh>
#include <sluice/detail/histogram/binned_samples.cuh>
#include <sluice/core/binning.hpp>
#include <sluice/detail/histogram/coarse_bins.cuh>
#include <sluice/detail/histogram/sort_based.cuh>
#include <sluice/detail/histogram/warp_ballot.cuh>

#include <cuda/std/span>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

namespace sluice {

enum class histogram_algorithm {
  automatic,        ///< by m (detail::histogram::choose; provisional)
  warp_ballot,      ///< Ashkiani §3.7.3: ballot-based warp histograms, global atomics per block (m ≤ 256)
  shared_per_bank,  ///< Eilers §4.4c: per-bank counter sets in shared memory (m ≤ one block's shared memory)
  global_atomics,   ///< Eilers Alg. 4.9: counter sets in global memory, atomics (any m)
  bank_trish,       ///< Eilers §4.5.2: 64 sub-histograms of 8-bit counters (1-byte samples, m ≤ 256)
  sort_based,       ///< Eilers §4.5a: radix sort of the bin ids, counts from the runs (any m, deterministic)
  coarse_bins,      ///< DTU ch. 6: ids partitioned by coarse bin, privatised shared counters per coarse bin (any m)
};

struct histogram_options {
  histogram_algorithm algorithm = histogram_algorithm::automatic;
  /// Add to the counts already in bins instead of overwriting them.
  bool accumulate = false;
};

/// An output counter: a 4- or 8-byte integer (incremented by 32- or 64-bit atomics).
template <class C>
concept histogram_counter = std::integral<C> && !std::same_as<C, bool> && (sizeof(C) == 4 || sizeof(C) == 8);

/// A weighted bin, of the weights' own type: a counter (integer sums modulo its width) or float / double.
template <class B>
concept histogram_weight = histogram_counter<B> || std::same_as<B, float> || std::same_as<B, double>;

namespace detail::histogram {

template <class Binning>
inline constexpr bool is_global_range_binning = false;
template <class T>
inline constexpr bool is_global_range_binning<global_range_binning<T>> = true;

/// automatic takes the warp ballots up to this many bins (PROVISIONAL: where they were level with CUB).
inline constexpr std::uint32_t automatic_warp_ballot_max_bins = 2;

/// The strategy automatic runs for m bins, given the per-bank sets one block holds of them. Weighted
/// histograms skip the ballots, which only count. bank_trish is never chosen: the seed measured it against
/// TRISH on a GTX 690, not against the per-bank kernel here, so choosing it awaits a GPU measurement;
/// nor is coarse_bins (never run on a GPU yet: where it overtakes global_atomics is to be measured).
[[nodiscard]] constexpr histogram_algorithm choose(std::uint32_t m, unsigned per_bank_sets, bool weighted) {
  if (!weighted && m <= automatic_warp_ballot_max_bins) return histogram_algorithm::warp_ballot;
  if (per_bank_sets >= multireduce::automatic_per_bank_min_sets) return histogram_algorithm::shared_per_bank;
  return histogram_algorithm::global_atomics;
}

template <class T, class Counter>
void check_common(const context& ctx, const char* function, cuda::std::span<const T> samples,
                  cuda::std::span<Counter> bins) {
  require_device_memory(ctx, samples, function, "samples");
  require_device_memory(ctx, bins, function, "bins");
  if (bins.empty()) throw invalid_argument(function, "bins", "must have at least one bin");
  if (bins.size() > multireduce::no_bucket - 1)
    throw invalid_argument(function, "bins", "has " + std::to_string(bins.size()) + " bins: at most 2^32 − 2");
  if (overlaps(samples, bins))
    throw invalid_argument(function, "bins", "overlaps samples");
}

/// The weights of a weighted histogram: one per sample, on the device, apart from the bins.
template <class T, class W>
void check_weights(const context& ctx, const char* function, cuda::std::span<const T> samples,
                   cuda::std::span<const W> weights, cuda::std::span<W> bins) {
  require_device_memory(ctx, weights, function, "weights");
  if (weights.size() != samples.size())
    throw invalid_argument(function, "weights",
                           "has " + std::to_string(weights.size()) + " entries: one per sample needs " +
                               std::to_string(samples.size()));
  if (overlaps(weights, bins)) throw invalid_argument(function, "bins", "overlaps weights");
}

/// What the strategy is asked to count: m bins, of samples of `sample_bytes`, weighted or not.
struct problem {
  std::uint32_t m;
  unsigned per_bank_sets;
  bool weighted;
  std::size_t sample_bytes;
};

/// Why an explicit strategy cannot run the problem; empty when it can.
[[nodiscard]] inline std::string strategy_problem(histogram_algorithm algorithm, const problem& p) {
  const std::string m = std::to_string(p.m);
  switch (algorithm) {
    case histogram_algorithm::warp_ballot:
      if (p.weighted) return "warp_ballot counts samples: it takes no weights (shared_per_bank, global_atomics, "
                             "sort_based and coarse_bins do)";
      if (p.m > warp_ballot_max_bins)
        return "warp_ballot counts at most 256 bins, not " + m + " (shared_per_bank, global_atomics and coarse_bins "
                                                                 "take more)";
      return {};
    case histogram_algorithm::shared_per_bank:
      if (p.per_bank_sets == 0)
        return "shared_per_bank: " + m + " counters do not fit one block's shared memory here (global_atomics "
                                         "and coarse_bins take any m)";
      return {};
    case histogram_algorithm::bank_trish:
      if (p.weighted) return "bank_trish counts in 8-bit counters: it takes no weights";
      if (p.sample_bytes != 1)
        return "bank_trish bins 1-byte samples, not " + std::to_string(p.sample_bytes) + "-byte ones";
      if (p.m > bank_trish_max_bins) return "bank_trish counts at most 256 bins, not " + m;
      return {};
    default: return {};
  }
}

/// The strategy to run (options.algorithm, or automatic's choice), checked against the problem.
[[nodiscard]] inline histogram_algorithm resolve(const char* function, histogram_algorithm requested,
                                                 const problem& p) {
  if (requested == histogram_algorithm::automatic) return choose(p.m, p.per_bank_sets, p.weighted);
  if (const std::string why = strategy_problem(requested, p); !why.empty())
    throw invalid_argument(function, "options", why);
  return requested;
}

/// Samples bank_trish takes: 1 byte, not bool (whose other byte values are not values).
template <class T>
inline constexpr bool bank_trish_sample = sizeof(T) == 1 && !std::is_same_v<T, bool>;

template <class T, class Binning, class Weights, class Counter>
void run(context& ctx, const char* function, cuda::std::span<const T> samples, const Binning& binning,
         const Weights& weights, cuda::std::span<Counter> bins, const histogram_options& options) {
  auto device = ctx.activate();
  const auto m = static_cast<std::uint32_t>(bins.size());
  constexpr bool weighted = !std::is_same_v<Weights, unit_weights<Counter>>;
  // the ballots and BankTRISH count unweighted samples of at most 256 bins (resolve refuses the rest):
  // global_range_binning serves only m > 256, so neither is instantiated for it
  constexpr bool counts_few_bins = !weighted && !is_global_range_binning<Binning>;
  with_binned_samples(samples.data(), samples.size(), binning, weights, bins.data(), [&](const auto& source) {
    using Source = std::decay_t<decltype(source)>;
    const histogram_algorithm algorithm =
        resolve(function, options.algorithm, {m, shared_per_bank_sets<Source>(ctx, m), weighted, sizeof(T)});
    if (!options.accumulate) SLUICE_CUDA_CHECK(cudaMemsetAsync(bins.data(), 0, bins.size_bytes(), ctx.stream()));
    if (samples.empty()) return;
    switch (algorithm) {
      case histogram_algorithm::automatic:  // resolved above
      case histogram_algorithm::warp_ballot:
        if constexpr (counts_few_bins) return warp_ballot(ctx, samples.data(), samples.size(), binning, m, bins.data());
        break;
      case histogram_algorithm::bank_trish:
        if constexpr (counts_few_bins && bank_trish_sample<T>)
          return bank_trish(ctx, samples.data(), samples.size(), binning, m, bins.data());
        break;
      case histogram_algorithm::shared_per_bank:
        return multireduce::per_bank(ctx, function, source, bins.data(), m, sluice::plus{}, nullptr, false);
      case histogram_algorithm::global_atomics:
        return multireduce::global_sets(ctx, source, bins.data(), m, sluice::plus{}, nullptr,
                                        multireduce::global_sets_for<Counter>(ctx, m, 0));
      case histogram_algorithm::sort_based: return sort_based(ctx, source, bins.data(), m);
      case histogram_algorithm::coarse_bins: return coarse_bins(ctx, function, source, bins.data(), m);
    }
    throw invalid_argument(function, "options.algorithm", "is not a histogram_algorithm");
  });
}

template <class T, class Weights, class Counter>
void even(context& ctx, const char* function, cuda::std::span<const T> samples, const Weights& weights,
          cuda::std::span<Counter> bins, T lower, T upper, const histogram_options& options) {
  check_common(ctx, function, samples, bins);
  if (!(lower < upper)) throw invalid_argument(function, "upper", "must be greater than lower");
  run(ctx, function, samples, even_binning<T>::make(lower, upper, static_cast<std::uint32_t>(bins.size())), weights,
      bins, options);
}

template <class T, class Weights, class Counter>
void range(context& ctx, const char* function, cuda::std::span<const T> samples, cuda::std::span<const T> splitters,
           const Weights& weights, cuda::std::span<Counter> bins, const histogram_options& options) {
  check_common(ctx, function, samples, bins);
  require_device_memory(ctx, splitters, function, "splitters");
  if (splitters.size() != bins.size() + 1)
    throw invalid_argument(function, "splitters",
                           "has " + std::to_string(splitters.size()) + " entries: bins has " +
                               std::to_string(bins.size()) + " bins, which need " + std::to_string(bins.size() + 1));
  const auto levels = static_cast<std::uint32_t>(splitters.size());
  if (levels <= range_binning<T>::max_levels)
    run(ctx, function, samples, range_binning<T>{splitters.data(), levels}, weights, bins, options);
  else run(ctx, function, samples, global_range_binning<T>{splitters.data(), levels}, weights, bins, options);
}

template <class T, class BinOf, class Weights, class Counter>
void by_function(context& ctx, const char* function, cuda::std::span<const T> samples, BinOf bin_of,
                 const Weights& weights, cuda::std::span<Counter> bins, const histogram_options& options) {
  check_common(ctx, function, samples, bins);
  run(ctx, function, samples, functor_binning<BinOf>{bin_of, static_cast<std::uint32_t>(bins.size())}, weights, bins,
      options);
}

/// The weights of a weighted call, checked.
template <class T, class W>
[[nodiscard]] sample_weights<W> weights_of(const context& ctx, const char* function, cuda::std::span<const T> samples,
                                           cuda::std::span<const W> weights, cuda::std::span<W> bins) {
  check_weights(ctx, function, samples, weights, bins);
  return {weights.data()};
}

}  // namespace detail::histogram

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
