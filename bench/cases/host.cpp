// Host benchmarks of sluice::host's streaming primitives against the standard library on the same data:
// reduce, inclusive/exclusive scan (a commutative and a non-commutative operator) and radix sort, each
// with std's parallel algorithm (execution policy par, run by libstdc++ on TBB) as the baseline of the
// row group, and std's sequential algorithm beside it. Where sluice was built without TBB
// (SLUICE_HAVE_TBB undefined) only the sequential baselines run: libstdc++ would run par on TBB too if
// its headers are there, and then it needs the library sluice did not link. Every result is verified against the oracle or std's result.
// Also the host copy the % column is measured against.
#include "harness/measure.hpp"
#include "host_measure.hpp"

#include <sluice/core/operators.hpp>
#include <sluice/data/distributions.hpp>
#include <sluice/host/radix_sort.hpp>
#include <sluice/host/reduce.hpp>
#include <sluice/host/scan.hpp>
#include <sluice/reference/reduce.hpp>
#include <sluice/reference/scan.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <execution>
#include <functional>
#include <numeric>
#include <utility>
#include <vector>

namespace {

using namespace sluice;

/// n = 2^20, 2^23, 2^26 (three sizes: a plot); --quick: 2^22.
std::vector<std::size_t> streaming_sizes(const bench::case_context& session) {
  return session.quick() ? std::vector<std::size_t>{std::size_t{1} << 22} : bench::powers_of_two(20, 26, 3);
}

/// Runs `baseline(policy)` for std's parallel policy (when there is TBB) and sequentially, in that order.
template <class F>
void standard_baselines(bench::case_context& session, const bench::work_description& work, const char* name,
                        const F& run_with, const std::function<bool()>& verify) {
#if defined(SLUICE_HAVE_TBB)
  bench::measure(session, work, std::string(name) + "(par)", bench::role::baseline, false,
                 [&] { run_with(std::execution::par); }, verify);
#endif
  bench::measure(session, work, std::string(name) + " (sequential)", bench::role::baseline, false,
                 [&] { run_with(std::execution::seq); }, verify);
}

template <class T, class Op>
void scan_case(bench::case_context& session, const char* name, const std::vector<T>& in, T init, Op op, bool inclusive) {
  const std::size_t n = in.size();
  const auto expected = inclusive ? reference::inclusive_scan<T>(in, op) : reference::exclusive_scan<T>(in, init, op);
  std::vector<T> out(n);
  const bench::work_description work{"scan", name, n, 2.0 * sizeof(T) * static_cast<double>(n)};
  auto poisoned = [&] {
    std::memset(static_cast<void*>(out.data()), 0xA5, n * sizeof(T));
    return true;
  };
  const std::function<bool()> verify = [&] { return out == expected && poisoned(); };
  poisoned();
  standard_baselines(
      session, work, inclusive ? "std::inclusive_scan" : "std::exclusive_scan",
      [&](const auto& policy) {
        if (inclusive) std::inclusive_scan(policy, in.begin(), in.end(), out.begin(), op);
        else std::exclusive_scan(policy, in.begin(), in.end(), out.begin(), init, op);
      },
      verify);
  bench::measure(session, work, "sluice::host", bench::role::subject, false, [&] {
    if (inclusive) host::inclusive_scan<T>(in, out, op);
    else host::exclusive_scan<T>(in, out, init, op);
  }, verify);
}

}  // namespace

SLUICE_BENCH_CASE("copy", "u32 host memcpy", host) {
  const std::size_t n = session.quick() ? std::size_t{1} << 24 : std::size_t{1} << 26;
  const auto in = data::generate_host<std::uint32_t>(n, {data::distribution::uniform, 0, 0.0, 3});
  std::vector<std::uint32_t> out(n);
  const bench::work_description work{"copy", "u32 host memcpy", n, 8.0 * static_cast<double>(n)};
  bench::measure(session, work, "std::memcpy", bench::role::baseline, false,
                 [&] { std::memcpy(out.data(), in.data(), n * sizeof(std::uint32_t)); }, [&] { return out == in; });
}

SLUICE_BENCH_CASE("reduce", "host sum u64", host) {
  for (std::size_t n : streaming_sizes(session)) {
    const auto in = data::generate_host<std::uint64_t>(n, {data::distribution::uniform, 0, 0.0, 1});
    const std::uint64_t expected = reference::reduce<std::uint64_t>(in, 0, plus{});
    std::uint64_t result = 0;
    const bench::work_description work{"reduce", "host sum u64", n, 8.0 * static_cast<double>(n)};
    const std::function<bool()> verify = [&] { return std::exchange(result, 0) == expected; };
    standard_baselines(session, work, "std::reduce",
                       [&](const auto& policy) { result = std::reduce(policy, in.begin(), in.end(), std::uint64_t{0}); },
                       verify);
    bench::measure(session, work, "sluice::host::reduce", bench::role::subject, false,
                   [&] { result = host::reduce<std::uint64_t>(in, 0, plus{}); }, verify);
  }
}

SLUICE_BENCH_CASE("scan", "host inclusive sum u32", host) {
  for (std::size_t n : streaming_sizes(session))
    scan_case(session, "host inclusive sum u32",
              data::generate_host<std::uint32_t>(n, {data::distribution::uniform, 0, 0.0, 2}), 0u, plus{}, true);
}

SLUICE_BENCH_CASE("scan", "host exclusive sum u32", host) {
  for (std::size_t n : streaming_sizes(session))
    scan_case(session, "host exclusive sum u32",
              data::generate_host<std::uint32_t>(n, {data::distribution::uniform, 0, 0.0, 3}), 0u, plus{}, false);
}

SLUICE_BENCH_CASE("scan", "host inclusive affine u32 (non-commutative)", host) {
  for (std::size_t n : streaming_sizes(session)) {
    const auto words = data::generate_host<std::uint32_t>(n, {data::distribution::uniform, 0, 0.0, 4});
    std::vector<affine<std::uint32_t>> maps(n);
    for (std::size_t i = 0; i < n; ++i) maps[i] = {words[i] | 1u, words[i] >> 5};
    scan_case(session, "host inclusive affine u32 (non-commutative)", maps, affine<std::uint32_t>{1, 0},
              affine_compose{}, true);
  }
}

SLUICE_BENCH_CASE("radix_sort", "host sort keys u32", host) {
  const std::vector<std::size_t> sizes =
      session.quick() ? std::vector<std::size_t>{std::size_t{1} << 20} : bench::powers_of_two(20, 24, 2);
  for (std::size_t n : sizes) {
    const auto in = data::generate_host<std::uint32_t>(n, {data::distribution::uniform, 0, 0.0, 9});
    std::vector<std::uint32_t> expected = in;
    std::sort(expected.begin(), expected.end());
    std::vector<std::uint32_t> out(n);
    const bench::work_description work{"radix_sort", "host sort keys u32", n, 8.0 * static_cast<double>(n)};
    const std::function<bool()> verify = [&] { return out == expected; };
    const auto policy = bench::long_host_policy(session);
    // std::sort sorts in place: each timed run copies the input first (a memcpy, a few % of the sort).
#if defined(SLUICE_HAVE_TBB)
    bench::measure_host(session, work, "std::sort(par) (with input copy)", bench::role::baseline, policy, [&] {
      std::copy(in.begin(), in.end(), out.begin());
      std::sort(std::execution::par, out.begin(), out.end());
    }, verify);
#endif
    bench::measure_host(session, work, "std::sort (sequential, with input copy)", bench::role::baseline, policy, [&] {
      std::copy(in.begin(), in.end(), out.begin());
      std::sort(out.begin(), out.end());
    }, verify);
    std::fill(out.begin(), out.end(), 0xA5A5A5A5u);
    bench::measure_host(session, work, "sluice::host::radix_sort_keys", bench::role::subject, policy,
                        [&] { host::radix_sort_keys<std::uint32_t>(in, out); }, verify);
  }
}
