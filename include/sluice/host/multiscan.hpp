// sluice/host/multiscan.hpp: multiscan and multitag on the CPU (Eilers §1.2, Alg. 2.3 and 2.5).
//
//   multiscan_inclusive: out[i] = e ⊕ (values[j] for j ≤ i with labels[j] = labels[i])
//   multiscan_exclusive: out[i] = e ⊕ (values[j] for j < i with labels[j] = labels[i])
//   multitag:            rank[i] = the number of earlier elements with label labels[i] (the exclusive
//                        multiscan of ones); counts[k] = the number of elements labelled k
//
// The running value of each bucket advances in index order, so non-commutative operators give the
// oracle's bits. An element whose label is negative or ≥ m is dropped: it gets the identity (rank 0)
// and is counted; with options.strict it throws invalid_argument("labels") with the first offending
// index instead, before any output is written. The output may be the values array itself (in place).
//
//   std::vector<float> prefix(n);
//   sluice::host::multiscan_exclusive<std::uint32_t, float>(labels, values, prefix, m, sluice::plus{});
//   std::vector<std::uint32_t> rank(n);  std::vector<std::uint64_t> counts(m);
//   sluice::host::multitag<std::uint32_t>(labels, rank, counts);
//
// Strategies are multireduce's (host/multireduce.hpp, multireduce_options), but automatic never sorts
// (the replay pass costs what the sort saves; docs/host.md): naive (Alg. 2.3),
// privatized (block totals → per-block carry-in → rescan), partial_sort (Alg. 2.5: distribute by the
// label's top bits, scan each group in place, then put the results back in input order by replaying
// the distribution as Alg. 2.6 does; no (index, value) pairs). huge_pages puts the bucket array and the
// temporaries on 2 MiB pages.
//
// Errors: m = 0 (multitag: counts.size() = 0) → invalid_argument("m" / "counts"); out.size() or
// rank.size() != labels.size() → invalid_argument("out" / "rank"); values.size() != labels.size() →
// invalid_argument("values"); multitag with n > 2^32 → invalid_argument("labels") (32-bit ranks).
#pragma once

#include <sluice/core/error.hpp>
#include <sluice/core/operators.hpp>
#include <sluice/host/detail/bucketed.hpp>
#include <sluice/host/huge_pages.hpp>
#include <sluice/host/multireduce.hpp>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>

namespace sluice::host {

namespace detail {

/// Privatized scans read the input twice; the partial sort needs the replay pass (docs/host.md).
inline constexpr automatic_rule scan_rule{2, false};

template <class Label, class T, class Op>
multireduce_result multiscan(const char* function, std::span<const Label> labels, std::span<const T> values,
                             std::span<T> out, std::size_t m, Op op, bool inclusive, const multireduce_options& options) {
  static_assert(std::integral<Label>, "labels are integers");
  check_bucketed_input(function, m, labels, values.size(), options.strict, "m");
  if (out.size() != labels.size()) throw invalid_argument(function, "out", "must have one element per label");
  const locality how = resolve_locality(options, labels.size(), m, sizeof(T), true, scan_rule);
  const huge_page_buffer<T> buckets(m, how.huge_pages);
  parallel_fill(buckets.span(), identity<Op, T>());
  const auto label_of = [&](std::size_t i) { return label_bucket(labels[i], m); };
  const auto value_of = [&](std::size_t i) { return values[i]; };  // by value: out may alias values
  const auto emit = [&](std::size_t i, const T& v) { out[i] = v; };
  const std::size_t dropped = scan(labels.size(), label_of, value_of, buckets.span(), op, inclusive, emit, how);
  return {dropped, to_algorithm(how.kind), how.sort_bits};
}

}  // namespace detail

/// out[i] = identity ⊕ (values[j] for j ≤ i with labels[j] = labels[i]), j ascending.
template <class Label, class T, class Op>
multireduce_result multiscan_inclusive(std::span<const Label> labels, std::span<const T> values, std::span<T> out,
                                       std::size_t m, Op op, const multireduce_options& options = {}) {
  return detail::multiscan("host::multiscan_inclusive", labels, values, out, m, op, true, options);
}

/// out[i] = identity ⊕ (values[j] for j < i with labels[j] = labels[i]), j ascending.
template <class Label, class T, class Op>
multireduce_result multiscan_exclusive(std::span<const Label> labels, std::span<const T> values, std::span<T> out,
                                       std::size_t m, Op op, const multireduce_options& options = {}) {
  return detail::multiscan("host::multiscan_exclusive", labels, values, out, m, op, false, options);
}

/// rank[i] = earlier elements with the same label; counts[k] = elements labelled k (m = counts.size()).
template <class Label>
multireduce_result multitag(std::span<const Label> labels, std::span<std::uint32_t> rank,
                            std::span<std::uint64_t> counts, const multireduce_options& options = {}) {
  static_assert(std::integral<Label>, "labels are integers");
  const std::size_t m = counts.size();
  detail::check_bucketed_input("host::multitag", m, labels, std::nullopt, options.strict, "counts");
  if (rank.size() != labels.size()) throw invalid_argument("host::multitag", "rank", "must have one entry per label");
  if (!labels.empty() && labels.size() - 1 > std::numeric_limits<std::uint32_t>::max())
    throw invalid_argument("host::multitag", "labels", "has more elements than 32-bit ranks can count");
  const detail::locality how =
      detail::resolve_locality(options, labels.size(), m, sizeof(std::uint64_t), true, detail::scan_rule);
  multireduce_result result{0, detail::to_algorithm(how.kind), how.sort_bits};
  const auto label_of = [&](std::size_t i) { return detail::label_bucket(labels[i], m); };
  const auto one = [](std::size_t) { return std::uint64_t{1}; };
  const auto emit = [&](std::size_t i, std::uint64_t v) { rank[i] = static_cast<std::uint32_t>(v); };
  detail::with_buckets(counts, std::uint64_t{0}, how.huge_pages, [&](std::span<std::uint64_t> buckets) {
    result.dropped = detail::scan(labels.size(), label_of, one, buckets, plus{}, false, emit, how);
  });
  return result;
}

}  // namespace sluice::host
