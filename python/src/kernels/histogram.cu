// libsluice_python_kernels: histograms (sluice/histogram.cuh; CPU: sluice/host/histogram.hpp and, for
// weights, sluice/host/multireduce.hpp or the oracle sluice/reference/histogram.hpp). Samples int32,
// int64, float32, float64 for even and range bins, uint8, int32 and int64 for bincount (one bin per value;
// uint8 samples take byte_counts, the 8-bit image histogram);
// counts int64; weighted sums float64 (even, range) or float32 / float64 (bincount).
#include "common.hpp"

#include <sluice/histogram.cuh>
#include <sluice/host/histogram.hpp>
#include <sluice/host/multireduce.hpp>
#include <sluice/reference/histogram.hpp>

#include <vector>

namespace sluice::python {

namespace {
using sample_types = types<std::int32_t, std::int64_t, float, double>;
using bincount_sample_types = types<std::uint8_t, std::int32_t, std::int64_t>;
using weight_types = types<float, double>;

/// bincount's bin: the sample itself (negative or ≥ m: not counted).
template <class I>
struct value_bin {
  SLUICE_HOST_DEVICE I operator()(I x) const { return x; }
};

/// Stores a host result into bins: overwritten, or added with accumulate.
template <class B, class R>
void store(const std::vector<R>& result, const array& bins, bool accumulate) {
  const auto to = host_span<B>(bins);
  for (std::size_t b = 0; b < to.size(); ++b) to[b] = static_cast<B>(accumulate ? to[b] + static_cast<B>(result[b]) : static_cast<B>(result[b]));
}

/// int64 bins are counts; float32 / float64 bins sum weights.
template <class B>
constexpr bool weighted = !std::is_same_v<B, std::int64_t>;

/// Calls f(type_tag<B>) for the bins' type: int64 counts without weights, the weights' dtype with them
/// (Weights: float32 and float64 for bincount, float64 for even and range bins: compile time).
template <class Weights = weight_types, class F>
void visit_bins(const char* function, const array* weights, const array& bins, F&& f) {
  if (!weights) {
    if (bins.type != dtype::int64) throw_unsupported(function, "bins", bins.type, "int64 (counts)");
    f(type_tag<std::int64_t>{});
    return;
  }
  require_type(bins, weights->type, function, "bins");
  visit(Weights{}, weights->type, function, "weights", f);
}

/// The CPU backend's histogram of `binning` into bins: counts, or the sums of the weights.
template <class S, class B, class Binning>
void host_histogram(const array& samples, const array* weights, const Binning& binning, const array& bins,
                    bool accumulate) {
  if (!weights) {
    std::vector<std::uint64_t> counts(bins.size);
    host::histogram(host_span<const S>(samples), std::span<std::uint64_t>(counts), binning);
    store<B>(counts, bins, accumulate);
  } else {
    store<B>(reference::weighted_histogram(host_span<const S>(samples), host_span<const B>(*weights), binning).sums,
             bins, accumulate);
  }
}

}  // namespace

void histogram_even(const call& c, const array& samples, const array* weights, const array& bins, scalar lower,
                    scalar upper, histogram_algorithm algorithm, bool accumulate) {
  guarded([&] {
    const char* function = "histogram_even";
    visit(sample_types{}, samples.type, function, "samples", [&]<class S>(type_tag<S>) {
      visit_bins<types<double>>(function, weights, bins, [&]<class B>(type_tag<B>) {
        const S lo = scalar_as<S>(lower), hi = scalar_as<S>(upper);
        if (c.on_host()) {
          const host::even_bins<S> binning(lo, hi, bins.size);
          host_histogram<S, B>(samples, weights, binning, bins, accumulate);
          return;
        }
        context& ctx = context_for(c);
        const histogram_options options{.algorithm = algorithm, .accumulate = accumulate};
        if constexpr (!weighted<B>)
          sluice::histogram_even(ctx, device_span<const S>(samples), device_span<B>(bins), lo, hi, options);
        else
          sluice::histogram_even(ctx, device_span<const S>(samples), device_span<const B>(*weights), device_span<B>(bins),
                                 lo, hi, options);
      });
    });
  });
}

void histogram_range(const call& c, const array& samples, const array* weights, const array& splitters,
                     const array& bins, histogram_algorithm algorithm, bool accumulate) {
  guarded([&] {
    const char* function = "histogram_range";
    require_type(splitters, samples.type, function, "splitters");
    visit(sample_types{}, samples.type, function, "samples", [&]<class S>(type_tag<S>) {
      visit_bins<types<double>>(function, weights, bins, [&]<class B>(type_tag<B>) {
        if (c.on_host()) {
          const host::range_bins<S> binning(host_span<const S>(splitters));
          if (binning.bins() != bins.size)
            throw invalid_argument(function, "splitters", "must have one entry more than bins");
          host_histogram<S, B>(samples, weights, binning, bins, accumulate);
          return;
        }
        context& ctx = context_for(c);
        const histogram_options options{.algorithm = algorithm, .accumulate = accumulate};
        if constexpr (!weighted<B>)
          sluice::histogram_range(ctx, device_span<const S>(samples), device_span<const S>(splitters), device_span<B>(bins),
                                  options);
        else
          sluice::histogram_range(ctx, device_span<const S>(samples), device_span<const B>(*weights),
                                  device_span<const S>(splitters), device_span<B>(bins), options);
      });
    });
  });
}

void bincount(const call& c, const array& samples, const array* weights, const array& bins,
              histogram_algorithm algorithm, bool accumulate) {
  guarded([&] {
    const char* function = "bincount";
    visit(bincount_sample_types{}, samples.type, function, "samples", [&]<class I>(type_tag<I>) {
      visit_bins(function, weights, bins, [&]<class B>(type_tag<B>) {
        if (c.on_host()) {
          std::vector<B> sums(bins.size);
          if (!weights) {
            std::vector<std::uint64_t> counts(bins.size);
            host::histogram_by(host_span<const I>(samples), std::span<std::uint64_t>(counts), value_bin<I>{});
            store<B>(counts, bins, accumulate);
          } else {
            host::multireduce(host_span<const I>(samples), host_span<const B>(*weights), std::span<B>(sums), sluice::plus{});
            store<B>(sums, bins, accumulate);
          }
          return;
        }
        context& ctx = context_for(c);
        const histogram_options options{.algorithm = algorithm, .accumulate = accumulate};
        if constexpr (!weighted<B>)
          sluice::histogram(ctx, device_span<const I>(samples), device_span<B>(bins), value_bin<I>{}, options);
        else
          sluice::histogram(ctx, device_span<const I>(samples), device_span<const B>(*weights), device_span<B>(bins),
                            value_bin<I>{}, options);
      });
    });
  });
}

}  // namespace sluice::python
