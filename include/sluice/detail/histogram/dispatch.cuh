// sluice/detail/histogram/dispatch.cuh: the histogram family's dispatch: the argument checks once, the
// automatic choice by m and sample type, then the strategy (even, range and functor binnings).
#pragma once

#include <sluice/core/binning.hpp>
#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/memory.hpp>
#include <sluice/core/scratch.hpp>
#include <sluice/core/span.hpp>
#include <sluice/detail/histogram/bank_trish.cuh>
#include <sluice/detail/histogram/binned_samples.cuh>
#include <sluice/detail/histogram/byte_counts.cuh>
#include <sluice/detail/histogram/coarse_bins.cuh>
#include <sluice/detail/histogram/range_cells.cuh>
#include <sluice/detail/histogram/sort_based.cuh>
#include <sluice/detail/histogram/tuning.hpp>
#include <sluice/detail/histogram/warp_ballot.cuh>
#include <sluice/options/histogram.hpp>

#include <cuda/std/span>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

namespace sluice::detail::histogram {

template <class Binning>
inline constexpr bool is_global_range_binning = false;
template <class T>
inline constexpr bool is_global_range_binning<global_range_binning<T>> = true;

/// The strategy automatic runs for m bins of `counter_bytes`, given the per-bank sets one block holds of
/// them and the device's L2. byte_counts for unweighted 1-byte samples, whatever m. Weighted histograms
/// skip the ballots, which only count. coarse_bins once the counters outgrow the L2's share (tuning.hpp);
/// never bank_trish or sort_based: each was slower than this choice where measured (docs/histogram.md).
[[nodiscard]] constexpr histogram_algorithm choose(std::uint32_t m, unsigned per_bank_sets, bool weighted,
                                                   bool byte_valued, std::size_t counter_bytes,
                                                   std::size_t l2_bytes) {
  if (!weighted && byte_valued) return histogram_algorithm::byte_counts;
  if (!weighted && m <= tuning::automatic_warp_ballot_max_bins) return histogram_algorithm::warp_ballot;
  if (per_bank_sets >= multireduce::tuning::automatic_per_bank_min_sets) return histogram_algorithm::shared_per_bank;
  if (static_cast<double>(m) * static_cast<double>(counter_bytes) >
      tuning::automatic_coarse_bins_l2_fraction * static_cast<double>(l2_bytes))
    return histogram_algorithm::coarse_bins;
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

/// What the strategy is asked to count: m bins, of samples of `sample_bytes` (`byte_valued`: 1 byte and
/// not bool), weighted or not, into counters of `counter_bytes`, on a device with an L2 of `l2_bytes`.
struct problem {
  std::uint32_t m;
  unsigned per_bank_sets;
  bool weighted;
  bool byte_valued;
  std::size_t sample_bytes;
  std::size_t counter_bytes;
  std::size_t l2_bytes;
};

/// What a call runs, decided once before it runs: the strategy and, for global_atomics, its sets.
struct plan {
  histogram_algorithm algorithm = histogram_algorithm::automatic;
  unsigned global_sets = 1;  ///< global_atomics: multireduce's choose_global_sets for the counters and the L2
};

/// Why `strategy`, which counts the values of 1-byte samples, cannot take the problem's samples; empty
/// when it can.
[[nodiscard]] inline std::string byte_sample_problem(const char* strategy, const problem& p) {
  if (p.sample_bytes != 1)
    return std::string(strategy) + " bins 1-byte samples, not " + std::to_string(p.sample_bytes) + "-byte ones";
  if (!p.byte_valued) return std::string(strategy) + " counts the 256 values of a byte: it takes no bool samples";
  return {};
}

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
      if (const std::string why = byte_sample_problem("bank_trish", p); !why.empty()) return why;
      if (p.m > bank_trish_max_bins) return "bank_trish counts at most 256 bins, not " + m;
      return {};
    case histogram_algorithm::byte_counts:
      if (p.weighted) return "byte_counts counts samples: it takes no weights (shared_per_bank does)";
      return byte_sample_problem("byte_counts", p);
    default: return {};
  }
}

/// The plan: options.algorithm checked against the problem, or automatic's choice; for global_atomics
/// the sets multireduce's global strategy chooses.
[[nodiscard]] inline plan resolve(const char* function, histogram_algorithm requested, const problem& p) {
  plan chosen{requested};
  if (requested == histogram_algorithm::automatic)
    chosen.algorithm = choose(p.m, p.per_bank_sets, p.weighted, p.byte_valued, p.counter_bytes, p.l2_bytes);
  else if (const std::string why = strategy_problem(requested, p); !why.empty())
    throw invalid_argument(function, "options", why);
  if (chosen.algorithm == histogram_algorithm::global_atomics)
    chosen.global_sets = multireduce::choose_global_sets(p.m, p.counter_bytes, p.l2_bytes);
  return chosen;
}

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
    const plan chosen = resolve(function, options.algorithm,
                                {m, shared_per_bank_sets<Source>(ctx, m), weighted, one_byte_values<T>, sizeof(T),
                                 sizeof(Counter), ctx.properties().l2_cache_bytes});
    if (!options.accumulate) SLUICE_CUDA_CHECK(cudaMemsetAsync(bins.data(), 0, bins.size_bytes(), ctx.stream()));
    if (samples.empty()) return;
    switch (chosen.algorithm) {
      case histogram_algorithm::automatic:  // resolved above
      case histogram_algorithm::warp_ballot:
        if constexpr (counts_few_bins) return warp_ballot(ctx, samples.data(), samples.size(), binning, m, bins.data());
        break;
      case histogram_algorithm::bank_trish:
        if constexpr (counts_few_bins && one_byte_values<T>)
          return bank_trish(ctx, samples.data(), samples.size(), binning, m, bins.data());
        break;
      case histogram_algorithm::shared_per_bank:
        return multireduce::per_bank(ctx, function, source, bins.data(), m, sluice::plus{}, nullptr, false);
      case histogram_algorithm::global_atomics:
        return multireduce::global_sets(ctx, source, bins.data(), m, sluice::plus{}, nullptr, chosen.global_sets);
      case histogram_algorithm::sort_based: return sort_based(ctx, source, bins.data(), m);
      case histogram_algorithm::coarse_bins: return coarse_bins(ctx, function, source, bins.data(), m);
      case histogram_algorithm::byte_counts:
        if constexpr (!weighted && one_byte_values<T>)
          return byte_counts(ctx, samples.data(), samples.size(), binning, m, bins.data());
        break;
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
  // range cells for the searches in global memory (the pair kernels', and any past 256 bins)
  auto device = ctx.activate();
  const scratch<std::uint32_t> cells(ctx, has_range_cells<T> ? range_cell_words(range_cells_log2(levels)) : 0);
  if constexpr (has_range_cells<T>) build_range_cells(ctx, splitters.data(), levels, cells.get());
  if (levels <= range_binning<T>::max_levels)
    run(ctx, function, samples, range_binning<T>{splitters.data(), levels, cells.get()}, weights, bins, options);
  else run(ctx, function, samples, global_range_binning<T>{splitters.data(), levels, cells.get()}, weights, bins, options);
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

}  // namespace sluice::detail::histogram
