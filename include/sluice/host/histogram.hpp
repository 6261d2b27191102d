// sluice/host/histogram.hpp: histograms on the CPU: a multireduce of ones (Eilers §1.2) over bins
// computed from the samples.
//
//   histogram(samples, counts, binning):  counts[b] = the samples in bin b; binning is any object with
//       bins() and operator()(x) → std::optional<std::size_t> (nullopt: out of range), such as
//       even_bins{lower, upper, bins} (equal widths over [lower, upper)) or range_bins{splitters}
//       (bin i = [s_i, s_{i+1})), the binnings of reference/histogram.hpp with their exact rules.
//   histogram_by(samples, counts, bin_of):  bin_of(x) → an integer bin; negative or ≥ counts.size() is
//       out of range.
// Out-of-range samples are dropped and counted in the result. Counts are 64-bit.
//
//   std::vector<std::uint64_t> counts(256);
//   sluice::host::histogram<float>(samples, counts, sluice::host::even_bins<float>(0.0f, 1.0f, 256));
//   sluice::host::histogram_by<std::uint8_t>(bytes, counts, [](std::uint8_t b) { return b; });
//
// Strategies are multireduce's (multireduce_options): automatic counts into per-thread copies of the
// bins while they are few (privatized), and partially sorts by bin when the bins overflow the
// last-level cache. The binning is called up to three times per sample (partial sort), so it must be pure.
//
// Errors: counts.size() != binning.bins() → invalid_argument("counts"); no bins → invalid_argument("counts").
#pragma once

#include <sluice/core/error.hpp>
#include <sluice/core/operators.hpp>
#include <sluice/host/detail/bucketed.hpp>
#include <sluice/host/multireduce.hpp>
#include <sluice/reference/histogram.hpp>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace sluice::host {

using reference::even_bins;
using reference::range_bins;

namespace detail {

template <class BinOf>
multireduce_result count_bins(const char* function, std::size_t n, std::span<std::uint64_t> counts,
                              const BinOf& bin_of, const multireduce_options& options) {
  if (counts.empty()) throw invalid_argument(function, "counts", "has no bins");
  const locality how = resolve_locality(options, n, counts.size(), sizeof(std::uint64_t), true);
  multireduce_result result{0, to_algorithm(how.kind), how.sort_bits};
  const auto one = [](std::size_t) { return std::uint64_t{1}; };
  with_buckets(counts, std::uint64_t{0}, how.huge_pages, [&](std::span<std::uint64_t> buckets) {
    result.dropped = fold(n, bin_of, one, buckets, plus{}, how);
  });
  return result;
}

}  // namespace detail

/// counts[b] = the samples binning puts in bin b; see the header comment.
template <class T, class Binning>
multireduce_result histogram(std::span<const T> samples, std::span<std::uint64_t> counts, const Binning& binning,
                             const multireduce_options& options = {}) {
  if (counts.size() != binning.bins())
    throw invalid_argument("host::histogram", "counts", "must have binning.bins() entries");
  const auto bin_of = [&](std::size_t i) {
    const std::optional<std::size_t> bin = binning(samples[i]);
    return bin.value_or(detail::dropped_bucket);
  };
  return detail::count_bins("host::histogram", samples.size(), counts, bin_of, options);
}

/// counts[b] = the samples x with bin_of(x) = b.
template <class T, class BinOf>
multireduce_result histogram_by(std::span<const T> samples, std::span<std::uint64_t> counts, BinOf bin_of,
                                const multireduce_options& options = {}) {
  const auto bucket_of = [&](std::size_t i) {
    const auto bin = bin_of(samples[i]);
    static_assert(std::integral<decltype(bin)>, "bin_of returns an integer bin");
    return detail::label_bucket(bin, counts.size());
  };
  return detail::count_bins("host::histogram_by", samples.size(), counts, bucket_of, options);
}

}  // namespace sluice::host
