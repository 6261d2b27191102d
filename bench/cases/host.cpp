// Host benchmarks: what `sluice bench` measures on a machine without a GPU. Until the CPU backend
// (sluice::host) exists these time the sequential oracle against the standard library, on data
// whose result has a closed form, so that the verify-time-compare-report path runs everywhere.
#include "harness/measure.hpp"

#include <sluice/core/operators.hpp>
#include <sluice/data/distributions.hpp>
#include <sluice/reference/reduce.hpp>

#include <cstring>
#include <numeric>

SLUICE_BENCH_CASE("copy", "u32 host memcpy", host) {
  using namespace sluice;
  const std::size_t n = session.quick() ? std::size_t{1} << 24 : std::size_t{1} << 26;
  const auto in = data::generate_host<std::uint32_t>(n, {data::distribution::uniform, 0, 0.0, 3});
  std::vector<std::uint32_t> out(n);
  const bench::work_description work{"copy", "u32 host memcpy", n, 8.0 * static_cast<double>(n)};
  bench::measure(session, work, "std::memcpy", bench::role::baseline, false,
                 [&] { std::memcpy(out.data(), in.data(), n * sizeof(std::uint32_t)); }, [&] { return out == in; });
  std::fill(out.begin(), out.end(), 0xA5A5A5A5u);
  bench::measure(session, work, "std::copy", bench::role::subject, false, [&] { std::copy(in.begin(), in.end(), out.begin()); },
                 [&] { return out == in; });
}

SLUICE_BENCH_CASE("reduce", "host sum u64", host) {
  using namespace sluice;
  // The staircase floor(i·m/n) with m | n holds each value of [0, m) exactly n/m times.
  const std::size_t n = session.quick() ? std::size_t{1} << 24 : std::size_t{1} << 26;
  const std::uint64_t m = 1 << 16;
  const auto in = data::generate_host<std::uint64_t>(n, {data::distribution::sorted, m, 0.0, 1});
  const std::uint64_t expected = (n / m) * (m * (m - 1) / 2);
  std::uint64_t result = 0;
  const bench::work_description work{"reduce", "host sum u64", n, 8.0 * static_cast<double>(n)};
  bench::measure(session, work, "reference::reduce (sequential)", bench::role::subject, false,
                 [&] { result = reference::reduce<std::uint64_t>(in, 0, plus{}); }, [&] { return result == expected; });
  result = 0;
  bench::measure(session, work, "std::accumulate", bench::role::baseline, false,
                 [&] { result = std::accumulate(in.begin(), in.end(), std::uint64_t{0}); },
                 [&] { return result == expected; });
}
