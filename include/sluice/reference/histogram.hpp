// sluice/reference/histogram.hpp: sequential oracle for histograms with even or custom bins
// (Eilers §1.2 "histogram = multireduce of ones", Ashkiani §3.10).
//
// A binning is any object with
//   std::size_t bins() const                          the number of bins m
//   std::optional<std::size_t> operator()(T x) const  x's bin, or nullopt when x is out of range
// The oracle also treats a returned bin ≥ bins() as out of range, so a faulty binning cannot write out of
// bounds. Two binnings are provided:
//
// even_bins<T>{lower, upper, bins}: bins equal-width bins over [lower, upper). A sample is in range iff
//   lower ≤ x < upper (so NaN, ±inf and x = upper are out of range). Its bin is
//     integers: (x − lower) · bins / (upper − lower), exactly (differences in the unsigned type, product
//               in 128 bits, so even 64-bit keys spanning the whole type cannot overflow);
//     floats:   static_cast<size_t>((x − lower) / (upper − lower) · bins), each operation in double, in
//               that order, then clamped to bins − 1 (rounding can push an x just below upper to bins).
//   The constructor throws invalid_argument("bins") for bins = 0 and invalid_argument("upper") unless
//   lower < upper (which also rejects NaN bounds). It is a class, not an aggregate, because every binning
//   must have a bins() member, which rules out a field of that name; read the parameters through lower(),
//   upper() and bins().
//
// range_bins<T>{splitters}: m = splitters.size() − 1 bins, bin i = [s_i, s_{i+1}); samples outside
//   [s_0, s_m) (and NaN) are out of range. Splitters are copied; they must be strictly increasing, else
//   invalid_argument("splitters") with the first index i where !(s_{i-1} < s_i); fewer than two splitters
//   (no bins) throws invalid_argument("splitters") without an index.
//
// histogram(samples, binning): counts[b] = number of samples in bin b; `dropped` = samples out of range.
// weighted_histogram(samples, weights, binning): sums[b] = W{} + weights of bin b's samples in index order;
//   weights.size() != samples.size() throws invalid_argument("weights").
#pragma once

#include <sluice/core/error.hpp>

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <type_traits>
#include <vector>

namespace sluice::reference {

template <class T>
  requires std::integral<T> || std::floating_point<T>
class even_bins {
 public:
  even_bins(T lower, T upper, std::size_t bins) : lower_(lower), upper_(upper), bins_(bins) {
    if (bins == 0) throw invalid_argument("reference::even_bins", "bins", "must be at least 1");
    if (!(lower < upper)) throw invalid_argument("reference::even_bins", "upper", "must be greater than lower");
  }

  [[nodiscard]] T lower() const { return lower_; }
  [[nodiscard]] T upper() const { return upper_; }
  [[nodiscard]] std::size_t bins() const { return bins_; }

  [[nodiscard]] std::optional<std::size_t> operator()(T x) const {
    if (!(lower_ <= x && x < upper_)) return std::nullopt;
    if constexpr (std::integral<T>) {
      using U = std::make_unsigned_t<T>;
      __extension__ using wide = unsigned __int128;  // ISO C++ has no 128-bit type; g++ and nvcc both do
      // Unsigned wrap-around gives the true (non-negative) differences even for signed T.
      const auto offset = static_cast<U>(static_cast<U>(x) - static_cast<U>(lower_));
      const auto width = static_cast<U>(static_cast<U>(upper_) - static_cast<U>(lower_));
      return static_cast<std::size_t>(wide{offset} * wide{bins_} / wide{width});
    } else {
      const double fraction = (static_cast<double>(x) - static_cast<double>(lower_)) /
                              (static_cast<double>(upper_) - static_cast<double>(lower_));
      const auto bin = static_cast<std::size_t>(fraction * static_cast<double>(bins_));
      return std::min(bin, bins_ - 1);
    }
  }

 private:
  T lower_;
  T upper_;
  std::size_t bins_;
};

template <class T>
class range_bins {
 public:
  explicit range_bins(std::span<const T> splitters) : splitters_(splitters.begin(), splitters.end()) {
    if (splitters_.size() < 2)
      throw invalid_argument("reference::range_bins", "splitters", "needs at least two entries (one bin)");
    for (std::size_t i = 1; i < splitters_.size(); ++i)
      if (!(splitters_[i - 1] < splitters_[i]))
        throw invalid_argument("reference::range_bins", "splitters", "must be strictly increasing", i);
  }

  [[nodiscard]] std::size_t bins() const { return splitters_.size() - 1; }
  [[nodiscard]] std::span<const T> splitters() const { return splitters_; }

  [[nodiscard]] std::optional<std::size_t> operator()(T x) const {
    if (!(splitters_.front() <= x && x < splitters_.back())) return std::nullopt;
    // The first splitter greater than x ends x's bin.
    const auto end = std::upper_bound(splitters_.begin(), splitters_.end(), x);
    return static_cast<std::size_t>(end - splitters_.begin()) - 1;
  }

 private:
  std::vector<T> splitters_;
};

struct histogram_result {
  std::vector<std::uint64_t> counts;
  std::size_t dropped = 0;
};

template <class W>
struct weighted_histogram_result {
  std::vector<W> sums;
  std::size_t dropped = 0;
};

template <class T, class Binning>
[[nodiscard]] histogram_result histogram(std::span<const T> samples, const Binning& binning) {
  histogram_result result;
  result.counts.assign(binning.bins(), 0);
  for (const T& x : samples) {
    const std::optional<std::size_t> bin = binning(x);
    if (bin && *bin < result.counts.size()) ++result.counts[*bin];
    else ++result.dropped;
  }
  return result;
}

template <class T, class W, class Binning>
[[nodiscard]] weighted_histogram_result<W> weighted_histogram(std::span<const T> samples, std::span<const W> weights,
                                                              const Binning& binning) {
  if (weights.size() != samples.size())
    throw invalid_argument("reference::weighted_histogram", "weights", "must have one weight per sample");
  weighted_histogram_result<W> result;
  result.sums.assign(binning.bins(), W{});
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const std::optional<std::size_t> bin = binning(samples[i]);
    if (bin && *bin < result.sums.size()) result.sums[*bin] = result.sums[*bin] + weights[i];
    else ++result.dropped;
  }
  return result;
}

}  // namespace sluice::reference
