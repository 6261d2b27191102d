// sluice/data/distributions.hpp: the synthetic inputs of the seeds' experiments, identical on host and
// device for the same seed.
//
// Element i of a generated array is a pure function of (spec, n, i): a counter-based hash (the
// SplitMix64 finaliser over seed-keyed counters) drawn through integer-only arithmetic, so host code
// (oracles) and device code (benchmarks, tests) produce the same bits without copying data. Skewed
// distributions (Zipf, binomial) sample by binary search in a table of cumulative probabilities
// computed once on the host; the table is the only state.
//
// Distributions (over integers in [0, range); range 0 means the whole range of the element type):
//   uniform            every value equally likely
//   all_equal          one seed-dependent value everywhere (the atomic-contention worst case)
//   sorted, reverse    the staircase floor(i·range/n), ascending or descending: sorted input that
//                      still covers the range evenly
//   zipf               P(k) ∝ 1/(k+1)^s, s = parameter (range ≤ 2^24; table-driven)
//   binomial           B(range−1, 1/2), Ashkiani's Table 3.6 input (range ≤ 2^24; table-driven)
//   alpha_uniform      a fraction α = parameter uniform, the rest in one random value (Ashkiani §3.7)
//   few_used           only k = parameter evenly spaced values occur, uniformly (Eilers §7.4)
// Floating-point elements are the integer draw scaled into [0, 1): range 0 means 2^24 (float) or
// 2^53 (double) steps, so every value is exact.
#pragma once

#include <sluice/core/config.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/mix.hpp>

#include <cuda/std/cstdint>
#include <cuda/std/type_traits>

#include <cmath>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace sluice::data {

enum class distribution { uniform, all_equal, sorted, reverse, zipf, binomial, alpha_uniform, few_used };

[[nodiscard]] inline std::string_view to_string(distribution d) {
  switch (d) {
    case distribution::uniform: return "uniform";
    case distribution::all_equal: return "all_equal";
    case distribution::sorted: return "sorted";
    case distribution::reverse: return "reverse";
    case distribution::zipf: return "zipf";
    case distribution::binomial: return "binomial";
    case distribution::alpha_uniform: return "alpha_uniform";
    case distribution::few_used: return "few_used";
  }
  return "?";
}

struct distribution_spec {
  distribution kind = distribution::uniform;
  std::uint64_t range = 0;  ///< values in [0, range); 0: the element type's whole range
  double parameter = 0.0;   ///< zipf: exponent s; alpha_uniform: α in [0, 1]; few_used: number of values k
  std::uint64_t seed = 1;
};

/// Largest range the table-driven distributions accept (the table holds one 32-bit entry per value).
inline constexpr std::uint64_t max_table_range = std::uint64_t{1} << 24;

// ---- counter-based randomness ----------------------------------------------------------------------------

using sluice::detail::mix64;

/// The `index`-th word of the random stream `stream` under `seed` (SplitMix64 with a seed-keyed start).
SLUICE_HOST_DEVICE constexpr std::uint64_t random_word(std::uint64_t seed, std::uint64_t stream, std::uint64_t index) {
  const std::uint64_t key = mix64(seed * 0x9e3779b97f4a7c15ull + stream * 0xd1b54a32d192ed03ull + 1);
  return mix64(key + (index + 1) * 0x9e3779b97f4a7c15ull);
}

/// ⌊r·range / 2^64⌋: a value in [0, range) from a uniform 64-bit word (Lemire's multiply-shift).
SLUICE_HOST_DEVICE inline std::uint64_t scale_to_range(std::uint64_t r, std::uint64_t range) {
  return sluice::detail::multiply_high64(r, range);
}

/// ⌊a·b / c⌋ without overflow, for a < c.
SLUICE_HOST_DEVICE inline std::uint64_t multiply_divide(std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  return static_cast<std::uint64_t>(static_cast<sluice::uint128_t>(a) * b / c);
}

// ---- the sampler: a trivially copyable view usable in kernels ---------------------------------------------

/// Everything needed to compute element i; `table` points to host or device memory matching the caller.
struct sampler_view {
  distribution kind;
  std::uint64_t range;      ///< effective range, never 0 here (2^64 is represented as 0 in `full_range`)
  bool full_range;          ///< draw all 64 bits (range of the type is 2^64)
  std::uint64_t seed;
  std::uint64_t n;
  std::uint64_t threshold;  ///< alpha_uniform: draws below it are uniform; few_used: k
  std::uint64_t heavy;      ///< all_equal / alpha_uniform: the repeated value
  const std::uint32_t* table;  ///< zipf / binomial: cdf scaled to 2^32 − 1, `range` entries

  SLUICE_HOST_DEVICE std::uint64_t uniform(std::uint64_t stream, std::uint64_t i) const {
    const std::uint64_t r = random_word(seed, stream, i);
    return full_range ? r : scale_to_range(r, range);
  }

  /// First k with u < table[k]: inverse-cdf sampling with integer thresholds (identical everywhere).
  SLUICE_HOST_DEVICE std::uint64_t from_table(std::uint64_t i) const {
    const std::uint64_t u = scale_to_range(random_word(seed, 0, i), 0xffffffffull);
    std::uint64_t lo = 0, hi = range - 1;
    while (lo < hi) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      if (u < table[mid]) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  SLUICE_HOST_DEVICE std::uint64_t operator()(std::uint64_t i) const {
    switch (kind) {
      case distribution::uniform: return uniform(0, i);
      case distribution::all_equal: return heavy;
      case distribution::sorted: return staircase(i);
      case distribution::reverse: return full_range ? ~staircase(i) : range - 1 - staircase(i);
      case distribution::zipf:
      case distribution::binomial: return from_table(i);
      case distribution::alpha_uniform: return (random_word(seed, 1, i) >> 32) < threshold ? uniform(2, i) : heavy;
      case distribution::few_used: {
        const std::uint64_t which = scale_to_range(random_word(seed, 0, i), threshold);
        return full_range ? which * (~std::uint64_t{0} / threshold) : multiply_divide(which, range, threshold);
      }
    }
    return 0;
  }

 private:
  SLUICE_HOST_DEVICE std::uint64_t staircase(std::uint64_t i) const {
    if (full_range) return static_cast<std::uint64_t>((static_cast<sluice::uint128_t>(i) << 64) / n);
    return multiply_divide(i, range, n);
  }
};

// ---- element conversion ---------------------------------------------------------------------------------

/// The number of distinct values an element type can take as a draw (0 stands for 2^64).
template <class T>
constexpr std::uint64_t type_range() {
  if constexpr (cuda::std::is_floating_point_v<T>) return std::uint64_t{1} << (sizeof(T) == 4 ? 24 : 53);
  else if constexpr (sizeof(T) >= 8) return 0;
  else return std::uint64_t{1} << (8 * sizeof(T));
}

/// Integer draw → element: integers take the draw's bits; floats scale it into [0, 1) exactly.
template <class T>
SLUICE_HOST_DEVICE T to_element(std::uint64_t draw, std::uint64_t range) {
  if constexpr (cuda::std::is_floating_point_v<T>) return static_cast<T>(draw) / static_cast<T>(range);
  else return static_cast<T>(draw);
}

// ---- preparing a sampler ----------------------------------------------------------------------------------

/// Host-side state of a distribution over n elements: validates the spec and builds the cdf table.
template <class T>
class sampler {
 public:
  sampler(const distribution_spec& spec, std::size_t n) {
    const std::uint64_t limit = type_range<T>();
    const std::uint64_t range = spec.range == 0 ? limit : spec.range;
    if (limit != 0 && range > limit)
      throw invalid_argument("data::sampler", "spec.range", "exceeds the element type's range");
    view_ = {spec.kind, range, range == 0, spec.seed, n, 0, 0, nullptr};
    switch (spec.kind) {
      case distribution::all_equal: view_.heavy = view_.uniform(3, 0); break;
      case distribution::alpha_uniform:
        if (!(spec.parameter >= 0.0 && spec.parameter <= 1.0))
          throw invalid_argument("data::sampler", "spec.parameter", "(alpha) must lie in [0, 1]");
        view_.threshold = static_cast<std::uint64_t>(std::ldexp(spec.parameter, 32));
        view_.heavy = view_.uniform(3, 0);
        break;
      case distribution::few_used:
        if (!(spec.parameter >= 1.0) || (range != 0 && spec.parameter > static_cast<double>(range)))
          throw invalid_argument("data::sampler", "spec.parameter", "(number of used values) must be in [1, range]");
        view_.threshold = static_cast<std::uint64_t>(spec.parameter);
        break;
      case distribution::zipf:
      case distribution::binomial: build_table(spec); break;
      default: break;
    }
  }

  /// The view for host use (its table pointer is host memory).
  [[nodiscard]] sampler_view host_view() const {
    sampler_view v = view_;
    v.table = table_.empty() ? nullptr : table_.data();
    return v;
  }
  [[nodiscard]] const std::vector<std::uint32_t>& table() const { return table_; }
  [[nodiscard]] std::uint64_t range() const { return view_.range; }

 private:
  void build_table(const distribution_spec& spec) {
    if (view_.full_range || view_.range > max_table_range)
      throw invalid_argument("data::sampler", "spec.range",
                             "must be at most 2^24 for " + std::string(to_string(spec.kind)));
    const std::size_t m = view_.range;
    std::vector<double> weight(m);
    for (std::size_t k = 0; k < m; ++k) {
      if (spec.kind == distribution::zipf) {
        weight[k] = std::pow(static_cast<double>(k + 1), -spec.parameter);
      } else {  // log of C(m−1, k) / 2^(m−1), exponentiated: stays finite for m up to 2^24
        const double t = static_cast<double>(m - 1);
        const double kk = static_cast<double>(k);
        weight[k] = std::exp(std::lgamma(t + 1) - std::lgamma(kk + 1) - std::lgamma(t - kk + 1) - t * std::log(2.0));
      }
    }
    double total = 0;
    for (double w : weight) total += w;
    table_.resize(m);
    double cumulative = 0;
    for (std::size_t k = 0; k < m; ++k) {
      cumulative += weight[k];
      table_[k] = static_cast<std::uint32_t>(std::fmin(std::ldexp(cumulative / total, 32), 4294967295.0));
    }
    table_[m - 1] = 0xffffffffu;  // every draw lands somewhere, whatever the rounding above
  }

  sampler_view view_{};
  std::vector<std::uint32_t> table_;
};

/// n elements of `spec` on the host: element i equals element i of sluice::data::generate on a device.
template <class T>
[[nodiscard]] std::vector<T> generate_host(std::size_t n, const distribution_spec& spec) {
  const sampler<T> s(spec, n);
  const sampler_view view = s.host_view();
  std::vector<T> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = to_element<T>(view(i), s.range());
  return out;
}

}  // namespace sluice::data
