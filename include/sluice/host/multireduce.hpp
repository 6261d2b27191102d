// sluice/host/multireduce.hpp: multireduce on the CPU (Eilers §1.2, Chapter 2), with the thesis's
// locality techniques: partial radix sort by the top bits of the label and 2 MiB pages.
//
//   out[k] = e ⊕ values[j_1] ⊕ values[j_2] ⊕ …   for the j with labels[j] = k, j ascending; e = identity
//
// m = out.size(). An empty bucket holds the identity (the operator must declare one: see
// sluice/core/operators.hpp). A label that is negative or ≥ m is dropped and counted in the result, or,
// with options.strict, rejected: invalid_argument("labels") with the first offending index, before any
// output is written. Every strategy keeps each bucket's values in index order, so non-commutative
// operators (affine maps, matrix products) give the oracle's exact bits; floating-point sums differ
// from the sequential order's rounding only where the strategy combines partial sums (privatized).
//
//   std::vector<std::uint32_t> labels = ...;  std::vector<float> values = ...;
//   std::vector<float> sums(m);
//   auto r = sluice::host::multireduce<std::uint32_t, float>(labels, values, sums, sluice::plus{});
//   r.dropped;  r.algorithm;  r.partial_sort_bits;                 // what ran
//   sluice::host::multireduce<std::uint32_t, float>(labels, values, sums, sluice::plus{},
//       {.algorithm = sluice::host::multireduce_algo::partial_sort, .huge_pages = true});
//
// Strategies (multireduce_options::algorithm; docs/host.md has the measurements):
//   naive         Eilers Alg. 2.2: the straight loop, one thread.
//   partial_sort  Eilers §2.4: stable distribution by the top partial_sort_bits bits of the label (0: as
//                 many as make 2^(⌈log2 m⌉ − bits) buckets fit half the largest per-core cache this
//                 machine reports, host/cache_info.hpp), then the loop over each group, groups in parallel.
//                 Needs m ≤ 2^32 (labels are stored as 32-bit numbers); larger m runs naive.
//   privatized    per-thread copies of the buckets over contiguous blocks, combined in block order.
//   automatic     privatized while the copies are small and fit the cache (and there are cores to spare),
//                 partial_sort when the buckets fill half the last-level cache or more, naive in between
//                 (detail/bucketed.hpp, with the measurements behind each threshold).
// huge_pages puts the buckets (accumulated in a temporary, then copied to out) and every temporary on
// 2 MiB pages (host/huge_pages.hpp; quietly ordinary pages where the system offers none).
//
// Errors: out.size() = 0 → invalid_argument("out") (m = 0); values.size() != labels.size() →
// invalid_argument("values").
#pragma once

#include <sluice/core/error.hpp>
#include <sluice/core/operators.hpp>
#include <sluice/host/cache_info.hpp>
#include <sluice/host/detail/bucketed.hpp>
#include <sluice/host/detail/parallel.hpp>
#include <sluice/host/huge_pages.hpp>

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace sluice::host {

enum class multireduce_algo {
  automatic,     ///< picks one of the below from m, n and the machine's caches
  naive,         ///< Eilers Alg. 2.2, one thread
  partial_sort,  ///< Eilers §2.4: partial radix sort by the label's top bits, then the loop per group
  privatized,    ///< per-thread bucket copies over contiguous blocks, combined in order (small m)
};

[[nodiscard]] constexpr std::string_view to_string(multireduce_algo algorithm) {
  switch (algorithm) {
    case multireduce_algo::automatic: return "automatic";
    case multireduce_algo::naive: return "naive";
    case multireduce_algo::partial_sort: return "partial_sort";
    case multireduce_algo::privatized: return "privatized";
  }
  return "unknown";
}

/// Options of multireduce, multiscan and multitag.
struct multireduce_options {
  multireduce_algo algorithm = multireduce_algo::automatic;
  bool huge_pages = false;    ///< buckets and temporaries on 2 MiB pages
  int partial_sort_bits = 0;  ///< partial_sort: bits to sort by; 0 = from the machine's cache sizes
  bool strict = false;        ///< a label outside [0, m) throws instead of being dropped
};

struct multireduce_result {
  std::size_t dropped = 0;                                 ///< labels outside [0, m)
  multireduce_algo algorithm = multireduce_algo::naive;    ///< the strategy that ran
  int partial_sort_bits = 0;                               ///< the bits it sorted by (partial_sort)
};

namespace detail {

/// The strategy, bits and page policy one call runs with: options resolved against n, m and the machine.
/// How automatic weighs one operation's strategies (see automatic_strategy).
struct automatic_rule {
  std::size_t privatized_input_passes = 1;  ///< how often privatized reads the input (multiscan: twice)
  bool sort_pays = true;                    ///< false where the partial sort needs the replay pass
};

[[nodiscard]] inline locality resolve_locality(const multireduce_options& options, std::size_t n, std::size_t m,
                                               std::size_t bucket_bytes, bool has_identity,
                                               const automatic_rule& rule = {}) {
  const cache_info& caches = machine_cache_info();
  strategy kind = strategy::naive;
  switch (options.algorithm) {
    case multireduce_algo::automatic:
      kind = automatic_strategy(n, m, bucket_bytes, has_identity, rule.privatized_input_passes, rule.sort_pays, caches);
      break;
    case multireduce_algo::naive: kind = strategy::naive; break;
    case multireduce_algo::partial_sort: kind = strategy::partial_sort; break;
    case multireduce_algo::privatized: kind = has_identity ? strategy::privatized : strategy::naive; break;
  }
  int bits = 0;
  if (kind == strategy::partial_sort) {
    bits = options.partial_sort_bits > 0 ? std::min(options.partial_sort_bits, bucketed_tuning::max_sort_bits)
                                         : partial_sort_bits_for(m, bucket_bytes, caches);
    bits = std::min(bits, label_bits(m));
    if (bits == 0 || m > (std::size_t{1} << 32)) kind = strategy::naive;  // nothing to sort by, or labels too wide
  }
  return {kind, kind == strategy::partial_sort ? bits : 0, options.huge_pages};
}

[[nodiscard]] constexpr multireduce_algo to_algorithm(strategy kind) {
  switch (kind) {
    case strategy::naive: return multireduce_algo::naive;
    case strategy::partial_sort: return multireduce_algo::partial_sort;
    case strategy::privatized: return multireduce_algo::privatized;
  }
  return multireduce_algo::naive;
}

/// The first index whose label is negative or ≥ m, if any (blocks searched in parallel).
template <std::integral L>
[[nodiscard]] std::optional<std::size_t> first_invalid_label(std::span<const L> labels, std::size_t m) {
  const block_partition blocks = streaming_blocks(labels.size());
  std::vector<std::optional<std::size_t>> first(blocks.count);
  parallel_for(blocks.count, [&](std::size_t b) {
    for (std::size_t i = blocks.begin(b); i < blocks.end(b); ++i)
      if (label_bucket(labels[i], m) == dropped_bucket) {
        first[b] = i;
        return;
      }
  });
  for (const auto& f : first)
    if (f) return f;
  return std::nullopt;
}

/// The checks every multireduce-family entry point makes, in this order: m, sizes, strict labels.
template <std::integral L>
void check_bucketed_input(const char* function, std::size_t m, std::span<const L> labels,
                          std::optional<std::size_t> values_size, bool strict, const char* bucket_parameter) {
  if (m == 0) throw invalid_argument(function, bucket_parameter, "has no buckets (m = 0)");
  if (values_size && *values_size != labels.size())
    throw invalid_argument(function, "values", "must have one value per label");
  if (strict)
    if (const auto bad = first_invalid_label(labels, m))
      throw invalid_argument(function, "labels", "holds a label outside [0, m) in strict mode", *bad);
}

template <class T>
void parallel_fill(std::span<T> out, const T& value) {
  for_bucket_chunks(out.size(), [&](std::size_t first, std::size_t last) {
    std::fill(out.begin() + static_cast<std::ptrdiff_t>(first), out.begin() + static_cast<std::ptrdiff_t>(last), value);
  });
}

template <class T>
void parallel_copy(std::span<const T> from, std::span<T> to) {
  for_bucket_chunks(from.size(), [&](std::size_t first, std::size_t last) {
    std::copy(from.begin() + static_cast<std::ptrdiff_t>(first), from.begin() + static_cast<std::ptrdiff_t>(last),
              to.begin() + static_cast<std::ptrdiff_t>(first));
  });
}

/// Runs f(buckets) on buckets set to `initial`: `out` itself, or with huge pages a temporary on 2 MiB
/// pages copied to `out` afterwards (the random accesses then go to huge pages whatever out is on).
template <class T, class F>
void with_buckets(std::span<T> out, const T& initial, bool huge_pages, const F& f) {
  if (!huge_pages) {
    parallel_fill(out, initial);
    f(out);
    return;
  }
  const huge_page_buffer<T> buckets(out.size(), true);
  parallel_fill(buckets.span(), initial);
  f(buckets.span());
  parallel_copy(std::span<const T>(buckets.span()), out);
}

}  // namespace detail

/// out[k] = identity ⊕ (values[j] for labels[j] = k, j ascending); see the header comment.
template <class Label, class T, class Op>
multireduce_result multireduce(std::span<const Label> labels, std::span<const T> values, std::span<T> out, Op op,
                               const multireduce_options& options = {}) {
  static_assert(std::integral<Label>, "labels are integers");
  const std::size_t m = out.size();
  detail::check_bucketed_input("host::multireduce", m, labels, values.size(), options.strict, "out");
  const detail::locality how = detail::resolve_locality(options, labels.size(), m, sizeof(T), true);
  multireduce_result result{0, detail::to_algorithm(how.kind), how.sort_bits};
  const auto label_of = [&](std::size_t i) { return detail::label_bucket(labels[i], m); };
  const auto value_of = [&](std::size_t i) -> const T& { return values[i]; };
  detail::with_buckets(out, identity<Op, T>(), how.huge_pages, [&](std::span<T> buckets) {
    result.dropped = detail::fold(labels.size(), label_of, value_of, buckets, op, how);
  });
  return result;
}

}  // namespace sluice::host
