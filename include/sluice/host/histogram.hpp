// sluice/host/histogram.hpp: histograms on the CPU: a multireduce of ones (Eilers §1.2) over bins
// computed from the samples.
//
//   histogram(samples, counts, binning):  counts[b] = the samples in bin b; binning is any object with
//       bins() and operator()(x) → std::optional<std::size_t> (nullopt: out of range), such as
//       even_bins{lower, upper, bins} (equal widths over [lower, upper)) or range_bins{splitters}
//       (bin i = [s_i, s_{i+1})): the GPU histogram's lookups (core/binning.hpp), whose rules are the
//       oracle's (reference/histogram.hpp) bin for bin.
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
// even_bins: bins = 0 or bins ≥ 2^32 → invalid_argument("bins"); !(lower < upper) → invalid_argument("upper").
// range_bins: fewer than two splitters, 2^32 or more, or not strictly increasing (with the first index i
// where !(s_{i-1} < s_i)) → invalid_argument("splitters").
#pragma once

#include <sluice/core/binning.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/operators.hpp>
#include <sluice/host/detail/bucketed.hpp>
#include <sluice/host/multireduce.hpp>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace sluice::host {

/// bins equal-width bins over [lower, upper); see the header comment.
template <class T>
  requires std::integral<T> || std::floating_point<T>
class even_bins {
 public:
  even_bins(T lower, T upper, std::size_t bins) : lookup_(checked(lower, upper, bins)) {}

  [[nodiscard]] T lower() const { return lookup_.lower; }
  [[nodiscard]] T upper() const { return lookup_.upper; }
  [[nodiscard]] std::size_t bins() const { return lookup_.bins; }

  /// x's bin, or nullopt when x is outside [lower, upper) (NaN included).
  [[nodiscard]] std::optional<std::size_t> operator()(T x) const {
    const std::uint32_t bin = lookup_(x);
    if (bin == sluice::detail::out_of_range) return std::nullopt;
    return bin;
  }

 private:
  static sluice::detail::even_binning<T> checked(T lower, T upper, std::size_t bins) {
    if (bins == 0) throw invalid_argument("host::even_bins", "bins", "must be at least 1");
    // out_of_range (2^32 − 1) must stay outside every bin index
    if (bins > sluice::detail::out_of_range) throw invalid_argument("host::even_bins", "bins", "must be below 2^32");
    if (!(lower < upper)) throw invalid_argument("host::even_bins", "upper", "must be greater than lower");
    return sluice::detail::even_binning<T>::make(lower, upper, static_cast<std::uint32_t>(bins));
  }

  sluice::detail::even_binning<T> lookup_;
};

/// Bin i = [s_i, s_{i+1}) of the strictly increasing splitters (copied); see the header comment.
template <class T>
class range_bins {
 public:
  explicit range_bins(std::span<const T> splitters) : splitters_(splitters.begin(), splitters.end()) {
    if (splitters_.size() < 2)
      throw invalid_argument("host::range_bins", "splitters", "needs at least two entries (one bin)");
    // the lookup counts splitters in 32 bits, and out_of_range (2^32 − 1) must stay outside every bin index
    if (splitters_.size() > sluice::detail::out_of_range)
      throw invalid_argument("host::range_bins", "splitters", "must have fewer than 2^32 entries");
    for (std::size_t i = 1; i < splitters_.size(); ++i)
      if (!(splitters_[i - 1] < splitters_[i]))
        throw invalid_argument("host::range_bins", "splitters", "must be strictly increasing", i);
  }

  [[nodiscard]] std::size_t bins() const { return splitters_.size() - 1; }
  [[nodiscard]] std::span<const T> splitters() const { return splitters_; }

  /// x's bin, or nullopt when x is outside [s_0, s_m) (NaN included).
  [[nodiscard]] std::optional<std::size_t> operator()(T x) const {
    const typename sluice::detail::range_binning<T>::lookup lookup{splitters_.data(),
                                                                   static_cast<std::uint32_t>(splitters_.size())};
    const std::uint32_t bin = lookup(x);
    if (bin == sluice::detail::out_of_range) return std::nullopt;
    return bin;
  }

 private:
  std::vector<T> splitters_;
};

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
