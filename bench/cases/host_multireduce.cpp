// Host benchmarks of Eilers' Chapter 2 on this machine: multireduce, multiscan and gather in ns per
// element against the bucket count m (Fig. 2.1, 2.2, 2.4, 2.5, 2.7), for the straight loop (the
// baseline of every row: "vs base" is the speed-up over it), with 2 MiB pages, with the partial radix
// sort by the label's top bits (bits from the cache sizes the machine reports), with both, and
// automatic. n = 2^26 (2^22 with --quick) u32 labels and values, + over u32 (exact, so every run is
// verified against reference::multireduce); uniform labels, and sorted labels at a few m (Fig. 2.5).
// Bytes: labels and values read once, buckets (or outputs) written once.
//
// The case name carries m ("m = 2^20"); scripts/plot_bench.py (sluice bench --plot) draws the figure.
#include "host_measure.hpp"

#include <sluice/core/operators.hpp>
#include <sluice/data/distributions.hpp>
#include <sluice/host/cache_info.hpp>
#include <sluice/host/huge_pages.hpp>
#include <sluice/host/multireduce.hpp>
#include <sluice/host/multiscan.hpp>
#include <sluice/host/scatter.hpp>
#include <sluice/reference/multireduce.hpp>
#include <sluice/reference/scatter.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <numeric>
#include <string>
#include <vector>

namespace {

using namespace sluice;
using algo = host::multireduce_algo;

/// One row of a sweep: a strategy's options under the name the table shows.
template <class Options>
struct variant {
  const char* name;
  Options options;
  bench::role kind;
};

/// The straight loop first: it is the baseline of the row group.
const variant<host::multireduce_options> variants[] = {
    {"naive", {.algorithm = algo::naive}, bench::role::baseline},
    {"naive + huge pages", {.algorithm = algo::naive, .huge_pages = true}, bench::role::subject},
    {"partial sort", {.algorithm = algo::partial_sort}, bench::role::subject},
    {"partial sort + huge pages", {.algorithm = algo::partial_sort, .huge_pages = true}, bench::role::subject},
    {"automatic", {}, bench::role::subject},
};

std::size_t element_count(const bench::case_context& session) {
  return session.quick() ? std::size_t{1} << 22 : std::size_t{1} << 26;
}

std::vector<int> log_bucket_counts(const bench::case_context& session, int step_full) {
  if (session.quick()) return {8, 16, 22, 24};
  std::vector<int> logs;
  for (int k = 4; k <= 26; k += step_full) logs.push_back(k);
  if (logs.back() != 26) logs.push_back(26);
  return logs;
}

std::string size_name(int log_m) { return fmt::format("m = 2^{}", log_m); }

std::vector<std::uint32_t> draw_labels(std::size_t n, std::size_t m, data::distribution kind) {
  return data::generate_host<std::uint32_t>(n, {kind, m, 0.0, 17});
}

/// What automatic picked and whether 2 MiB pages take effect for an m-bucket array, for the log.
void log_choices(std::size_t m, const host::multireduce_result& automatic) {
  host::huge_page_buffer<std::uint32_t> probe(m);
  std::fill(probe.begin(), probe.end(), 0u);
  std::cerr << fmt::format("  m = {}: automatic ran {}{}; a {:.1f} MiB huge_page_buffer is {:.1f} MiB on huge pages\n",
                           m, host::to_string(automatic.algorithm),
                           automatic.partial_sort_bits ? fmt::format(" ({} bits)", automatic.partial_sort_bits) : "",
                           static_cast<double>(probe.size_bytes()) / 1048576.0,
                           static_cast<double>(host::huge_page_backed_bytes(probe.data())) / 1048576.0);
}

void multireduce_sweep(bench::case_context& session, data::distribution kind, const std::vector<int>& logs,
                       const char* labels_name) {
  const std::size_t n = element_count(session);
  const auto values = data::generate_host<std::uint32_t>(n, {data::distribution::uniform, 1u << 16, 0.0, 5});
  for (int log_m : logs) {
    const std::size_t m = std::size_t{1} << log_m;
    const auto labels = draw_labels(n, m, kind);
    const auto expected = reference::multireduce<std::uint32_t, std::uint32_t>(labels, values, m, plus{}, 0u).buckets;
    std::vector<std::uint32_t> out(m);
    const bench::work_description work{"multireduce", fmt::format("u32 +, {} labels, {}", labels_name, size_name(log_m)),
                                       n, 8.0 * static_cast<double>(n) + 4.0 * static_cast<double>(m)};
    host::multireduce_result last;
    for (const auto& v : variants) {
      std::fill(out.begin(), out.end(), 0xA5A5A5A5u);
      bench::measure_host(
          session, work, v.name, v.kind, bench::long_host_policy(session),
          [&] { last = host::multireduce<std::uint32_t, std::uint32_t>(labels, values, out, plus{}, v.options); },
          [&] { return out == expected && last.dropped == 0; });
    }
    log_choices(m, last);
  }
}

}  // namespace

SLUICE_BENCH_CASE("multireduce", "Eilers Fig. 2.2/2.4/2.7: uniform labels, m swept", host) {
  multireduce_sweep(session, data::distribution::uniform, log_bucket_counts(session, 1), "uniform");
}

SLUICE_BENCH_CASE("multireduce", "Eilers Fig. 2.5: sorted labels", host) {
  if (session.quick()) return;  // a property of the loop, not a regression check
  multireduce_sweep(session, data::distribution::sorted, {16, 20, 24, 26}, "sorted");
}

SLUICE_BENCH_CASE("multiscan", "Eilers Fig. 2.1: exclusive multiscan, m swept", host) {
  const std::size_t n = element_count(session);
  const auto values = data::generate_host<std::uint32_t>(n, {data::distribution::uniform, 1u << 16, 0.0, 6});
  for (int log_m : log_bucket_counts(session, 4)) {
    const std::size_t m = std::size_t{1} << log_m;
    const auto labels = draw_labels(n, m, data::distribution::uniform);
    const auto expected = reference::multiscan_exclusive<std::uint32_t, std::uint32_t>(labels, values, m, plus{}, 0u).out;
    std::vector<std::uint32_t> out(n);
    const bench::work_description work{"multiscan", fmt::format("u32 + exclusive, uniform labels, {}", size_name(log_m)),
                                       n, 12.0 * static_cast<double>(n)};
    for (const auto& v : variants) {
      std::fill(out.begin(), out.end(), 0xA5A5A5A5u);
      bench::measure_host(
          session, work, v.name, v.kind, bench::long_host_policy(session),
          [&] { (void)host::multiscan_exclusive<std::uint32_t, std::uint32_t>(labels, values, out, m, plus{}, v.options); },
          [&] { return out == expected; });
    }
  }
}

SLUICE_BENCH_CASE("scatter", "Eilers Alg. 2.6: gather from m-element table, m swept", host) {
  using sa = host::scatter_algo;
  const variant<host::scatter_options> gathers[] = {
      {"naive (all cores)", {.algorithm = sa::naive}, bench::role::baseline},
      {"partial sort", {.algorithm = sa::partial_sort}, bench::role::subject},
      {"partial sort + huge pages", {.algorithm = sa::partial_sort, .huge_pages = true}, bench::role::subject},
      {"automatic", {}, bench::role::subject},
  };
  const std::size_t n = element_count(session);
  for (int log_m : log_bucket_counts(session, 4)) {
    const std::size_t m = std::size_t{1} << log_m;
    const auto indices = draw_labels(n, m, data::distribution::uniform);
    std::vector<std::uint32_t> table(m);
    std::iota(table.begin(), table.end(), 7u);
    const auto expected = reference::gather<std::uint32_t, std::uint32_t>(table, indices, 0u).out;
    std::vector<std::uint32_t> out(n);
    const bench::work_description work{"scatter", fmt::format("gather u32, uniform indices, {}", size_name(log_m)), n,
                                       8.0 * static_cast<double>(n) + 4.0 * static_cast<double>(m)};
    for (const auto& v : gathers) {
      std::fill(out.begin(), out.end(), 0xA5A5A5A5u);
      bench::measure_host(
          session, work, v.name, v.kind, bench::long_host_policy(session),
          [&] { (void)host::gather<std::uint32_t, std::uint32_t>(table, indices, out, 0u, v.options); },
          [&] { return out == expected; });
    }
  }
}
