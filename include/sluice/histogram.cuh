// sluice/histogram.cuh: device-wide histograms (Ashkiani §3.7.3 warp ballots; Eilers §1.2 and §4.4: the
// histogram as a multireduce of ones, per-bank shared counters and global atomic sets), any m.
//
//   histogram_even(ctx, samples, bins, lower, upper)    m = bins.size() equal bins over [lower, upper)
//   histogram_range(ctx, samples, splitters, bins)      m = splitters.size() − 1 bins [s_b, s_{b+1})
//   histogram(ctx, samples, bins, bin_of)               bin_of(sample) → an integer bin in [0, m)
//
// bins[b] = the number of samples in bin b (the counters are 4- or 8-byte integers and count modulo
// their width). Samples outside the bins are not counted (CUB's semantics): for even bins those
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
// at most (none for m ≤ what one block's shared memory holds).
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
//   automatic        warp_ballot for m ≤ 2, shared_per_bank while a block holds 4 sets of the counters,
//                    global_atomics beyond. PROVISIONAL: not yet measured on a GPU (the warp ballots were
//                    0.95× / 0.60× / 0.25× CUB HistogramEven at m = 2 / 32 / 256 on the H100).
//
// Errors (sluice::invalid_argument): bins empty or more than 2^32 − 2 bins; lower < upper false
// ('upper'); splitters.size() != bins.size() + 1 ('splitters'); host memory; bins overlapping the
// samples; an explicit strategy that cannot count m bins ('options': warp_ballot past 256 bins,
// shared_per_bank past one block's shared memory).
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/memory.hpp>
#include <sluice/core/span.hpp>
#include <sluice/detail/histogram/binned_samples.cuh>
#include <sluice/detail/histogram/binning.hpp>
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
};

struct histogram_options {
  histogram_algorithm algorithm = histogram_algorithm::automatic;
  /// Add to the counts already in bins instead of overwriting them.
  bool accumulate = false;
};

/// An output counter: a 4- or 8-byte integer (incremented by 32- or 64-bit atomics).
template <class C>
concept histogram_counter = std::integral<C> && !std::same_as<C, bool> && (sizeof(C) == 4 || sizeof(C) == 8);

namespace detail::histogram {

template <class Binning>
inline constexpr bool is_global_range_binning = false;
template <class T>
inline constexpr bool is_global_range_binning<global_range_binning<T>> = true;

/// automatic takes the warp ballots up to this many bins (PROVISIONAL: where they were level with CUB).
inline constexpr std::uint32_t automatic_warp_ballot_max_bins = 2;

/// The strategy automatic runs for m bins, given the per-bank sets one block holds of them.
[[nodiscard]] constexpr histogram_algorithm choose(std::uint32_t m, unsigned per_bank_sets) {
  if (m <= automatic_warp_ballot_max_bins) return histogram_algorithm::warp_ballot;
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

/// The strategy to run (options.algorithm, or automatic's choice), checked against m.
[[nodiscard]] inline histogram_algorithm resolve(const char* function, histogram_algorithm requested, std::uint32_t m,
                                                 unsigned per_bank_sets) {
  const histogram_algorithm algorithm =
      requested == histogram_algorithm::automatic ? choose(m, per_bank_sets) : requested;
  if (algorithm == histogram_algorithm::warp_ballot && m > warp_ballot_max_bins)
    throw invalid_argument(function, "options",
                           "warp_ballot counts at most 256 bins, not " + std::to_string(m) +
                               " (shared_per_bank and global_atomics take more)");
  if (algorithm == histogram_algorithm::shared_per_bank && per_bank_sets == 0)
    throw invalid_argument(function, "options",
                           "shared_per_bank: " + std::to_string(m) +
                               " counters do not fit one block's shared memory here (global_atomics takes any m)");
  return algorithm;
}

template <class T, class Binning, class Counter>
void run(context& ctx, const char* function, cuda::std::span<const T> samples, const Binning& binning,
         cuda::std::span<Counter> bins, const histogram_options& options) {
  auto device = ctx.activate();
  const auto m = static_cast<std::uint32_t>(bins.size());
  with_binned_samples(samples.data(), samples.size(), binning, bins.data(), [&](const auto& source) {
    using Source = std::decay_t<decltype(source)>;
    const histogram_algorithm algorithm = resolve(function, options.algorithm, m, shared_per_bank_sets<Source>(ctx, m));
    if (!options.accumulate) SLUICE_CUDA_CHECK(cudaMemsetAsync(bins.data(), 0, bins.size_bytes(), ctx.stream()));
    if (samples.empty()) return;
    switch (algorithm) {
      case histogram_algorithm::automatic:  // resolved above
      case histogram_algorithm::warp_ballot:
        // global_range_binning serves only m > 256, which resolve() refuses to the ballots: not instantiated
        if constexpr (!is_global_range_binning<Binning>)
          return warp_ballot(ctx, samples.data(), samples.size(), binning, m, bins.data());
        break;
      case histogram_algorithm::shared_per_bank:
        return multireduce::per_bank(ctx, function, source, bins.data(), m, sluice::plus{}, nullptr, false);
      case histogram_algorithm::global_atomics:
        return multireduce::global_sets(ctx, source, bins.data(), m, sluice::plus{}, nullptr,
                                        multireduce::global_sets_for<Counter>(ctx, m, 0));
    }
    throw invalid_argument(function, "options.algorithm", "is not a histogram_algorithm");
  });
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
  namespace h = detail::histogram;
  using T = std::remove_const_t<SIn>;
  const char* function = "histogram_even";
  const auto input = detail::as_const_span(samples);
  const cuda::std::span<Counter> out(bins);
  h::check_common(ctx, function, input, out);
  if (!(lower < upper)) throw invalid_argument(function, "upper", "must be greater than lower");
  h::run(ctx, function, input, h::even_binning<T>::make(lower, upper, static_cast<std::uint32_t>(out.size())), out,
         options);
}

/// bins[b] = the samples in [splitters[b], splitters[b + 1]); splitters strictly increasing, on the device.
template <class SIn, std::size_t E1, class LIn, std::size_t E2, class Counter, std::size_t E3>
  requires std::same_as<std::remove_const_t<SIn>, std::remove_const_t<LIn>> &&
           (std::integral<std::remove_const_t<SIn>> || std::floating_point<std::remove_const_t<SIn>>) &&
           histogram_counter<Counter>
void histogram_range(context& ctx, cuda::std::span<SIn, E1> samples, cuda::std::span<LIn, E2> splitters,
                     cuda::std::span<Counter, E3> bins, const histogram_options& options = {}) {
  namespace h = detail::histogram;
  using T = std::remove_const_t<SIn>;
  const char* function = "histogram_range";
  const auto input = detail::as_const_span(samples);
  const cuda::std::span<Counter> out(bins);
  h::check_common(ctx, function, input, out);
  require_device_memory(ctx, splitters, function, "splitters");
  if (splitters.size() != out.size() + 1)
    throw invalid_argument(function, "splitters",
                           "has " + std::to_string(splitters.size()) + " entries: bins has " +
                               std::to_string(out.size()) + " bins, which need " + std::to_string(out.size() + 1));
  const auto levels = static_cast<std::uint32_t>(splitters.size());
  if (levels <= h::range_binning<T>::max_levels)
    h::run(ctx, function, input, h::range_binning<T>{splitters.data(), levels}, out, options);
  else h::run(ctx, function, input, h::global_range_binning<T>{splitters.data(), levels}, out, options);
}

/// bins[b] = the samples x with bin_of(x) == b (a device functor returning an integer; results
/// negative or ≥ bins.size() are not counted).
template <class SIn, std::size_t E1, class Counter, std::size_t E2, class BinOf>
  requires std::is_trivially_copyable_v<std::remove_const_t<SIn>> && histogram_counter<Counter>
void histogram(context& ctx, cuda::std::span<SIn, E1> samples, cuda::std::span<Counter, E2> bins, BinOf bin_of,
               const histogram_options& options = {}) {
  namespace h = detail::histogram;
  const auto input = detail::as_const_span(samples);
  const cuda::std::span<Counter> out(bins);
  h::check_common(ctx, "histogram", input, out);
  h::run(ctx, "histogram", input, h::functor_binning<BinOf>{bin_of, static_cast<std::uint32_t>(out.size())}, out,
         options);
}

}  // namespace sluice
