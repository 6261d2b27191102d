// sluice/host/scatter.hpp: scatter and gather on the CPU (Eilers §1.2, Alg. 2.1 and 2.6).
//
//   scatter(values, indices, out):  out[indices[j]] = values[j] for j = 0, 1, …, n−1 in that order: when
//       several j name one slot the last writer wins; slots nobody writes keep their contents.
//   gather(table, indices, out, fallback):  out[i] = table[indices[i]], or fallback.
// An index that is negative or ≥ the size of out (scatter) or table (gather) is dropped and counted.
//
//   sluice::host::scatter<float, std::uint32_t>(values, indices, out);
//   sluice::host::gather<float, std::uint32_t>(table, indices, out, 0.0f,
//                                              {.algorithm = sluice::host::scatter_algo::partial_sort});
//
// Both touch one random slot per element, so they slow down exactly as multireduce does when the
// target (out, table) outgrows the caches and the TLB (Eilers §2.2, Fig. 2.1). Strategies:
//   naive         the straight loop (Alg. 2.1); gather runs it on all cores (every element independent),
//                 scatter on one (last-writer-wins is an order).
//   partial_sort  Eilers §2.4: distribute by the index's top bits so that each group touches a slice of
//                 the target that fits a cache. Scatter then runs the loop per group (groups in parallel:
//                 their slices are disjoint; within a group input order, so the last writer still wins).
//                 Gather is Alg. 2.6: distribute the indices, gather each group's values (cache-local),
//                 then replay the distribution in input order to put every value where it belongs.
//   automatic     scatter: partial_sort when the target fills half the last-level cache (the rule of
//                 host/multireduce.hpp), else naive; gather: naive (the replay pass its sort needs costs
//                 what the sort saves; docs/host.md).
// huge_pages puts the temporaries on 2 MiB pages. Errors: scatter with indices.size() != values.size()
// and gather with out.size() != indices.size() throw invalid_argument("indices" / "out").
#pragma once

#include <sluice/core/error.hpp>
#include <sluice/host/detail/bucketed.hpp>
#include <sluice/host/detail/parallel.hpp>
#include <sluice/host/multireduce.hpp>

#include <concepts>
#include <cstddef>
#include <span>
#include <string_view>

namespace sluice::host {

enum class scatter_algo { automatic, naive, partial_sort };

struct scatter_options {
  scatter_algo algorithm = scatter_algo::automatic;
  bool huge_pages = false;    ///< temporaries on 2 MiB pages
  int partial_sort_bits = 0;  ///< partial_sort: bits to sort by; 0 = from the machine's cache sizes
};

struct scatter_result {
  std::size_t dropped = 0;  ///< indices outside the target (gather: elements that got the fallback)
  scatter_algo algorithm = scatter_algo::naive;
  int partial_sort_bits = 0;
};

namespace detail {

/// Scatter and gather resolve their strategy as multireduce does, without the privatized option
/// (there is no identity to start private copies from).
[[nodiscard]] inline locality resolve_scatter(const scatter_options& options, std::size_t n, std::size_t m,
                                              std::size_t element_bytes, bool sort_pays) {
  const multireduce_algo algorithm = options.algorithm == scatter_algo::naive          ? multireduce_algo::naive
                                     : options.algorithm == scatter_algo::partial_sort ? multireduce_algo::partial_sort
                                                                                       : multireduce_algo::automatic;
  return resolve_locality({algorithm, options.huge_pages, options.partial_sort_bits, false}, n, m, element_bytes, false,
                          {1, sort_pays});
}

[[nodiscard]] inline scatter_result scatter_outcome(std::size_t dropped, const locality& how) {
  return {dropped, how.kind == strategy::partial_sort ? scatter_algo::partial_sort : scatter_algo::naive, how.sort_bits};
}

/// The later operand: folding values with it into the target is a last-writer-wins scatter.
struct take_later {
  template <class T>
  const T& operator()(const T&, const T& later) const {
    return later;
  }
};

}  // namespace detail

/// out[indices[j]] = values[j], j ascending (the last writer wins); returns the dropped count.
template <class T, class Index>
scatter_result scatter(std::span<const T> values, std::span<const Index> indices, std::span<T> out,
                       const scatter_options& options = {}) {
  static_assert(std::integral<Index>, "indices are integers");
  if (indices.size() != values.size())
    throw invalid_argument("host::scatter", "indices", "must have one index per value");
  const std::size_t m = out.size();
  const detail::locality how = detail::resolve_scatter(options, values.size(), m, sizeof(T), true);
  const auto slot_of = [&](std::size_t j) { return detail::label_bucket(indices[j], m); };
  const auto value_of = [&](std::size_t j) -> const T& { return values[j]; };
  return detail::scatter_outcome(detail::fold(values.size(), slot_of, value_of, out, detail::take_later{}, how), how);
}

/// out[i] = table[indices[i]], or fallback for an index outside the table; returns that count.
template <class T, class Index>
scatter_result gather(std::span<const T> table, std::span<const Index> indices, std::span<T> out, T fallback,
                      const scatter_options& options = {}) {
  static_assert(std::integral<Index>, "indices are integers");
  if (out.size() != indices.size()) throw invalid_argument("host::gather", "out", "must have one element per index");
  const std::size_t m = table.size();
  const std::size_t n = indices.size();
  // Gather's sort needs the replay pass: automatic stays naive (docs/host.md).
  const detail::locality how = detail::resolve_scatter(options, n, m, sizeof(T), false);
  const auto slot_of = [&](std::size_t i) { return detail::label_bucket(indices[i], m); };
  if (how.kind != detail::strategy::partial_sort) {
    const detail::block_partition blocks = detail::streaming_blocks(n);
    std::vector<std::size_t> missing(blocks.count, 0);
    detail::parallel_for(blocks.count, [&](std::size_t b) {
      for (std::size_t i = blocks.begin(b); i < blocks.end(b); ++i) {
        const std::size_t k = slot_of(i);
        const bool found = k < m;
        out[i] = found ? table[k] : fallback;
        missing[b] += found ? 0 : 1;
      }
    });
    std::size_t dropped = 0;
    for (std::size_t d : missing) dropped += d;
    return detail::scatter_outcome(dropped, how);
  }
  const detail::label_groups<T, decltype(slot_of)> sorted(n, m, how.sort_bits, slot_of, detail::values_filled_later{},
                                                          how.huge_pages);
  T* gathered = sorted.values();
  const auto slot = sorted.sorted_label();
  sorted.for_each_group([&](std::size_t g) {
    for (std::size_t j = sorted.begin(g); j < sorted.end(g); ++j) gathered[j] = table[slot(j)];
  });
  sorted.replay([&](std::size_t i, std::size_t j) { out[i] = gathered[j]; }, [&](std::size_t i) { out[i] = fallback; });
  return detail::scatter_outcome(sorted.dropped(), how);
}

}  // namespace sluice::host
