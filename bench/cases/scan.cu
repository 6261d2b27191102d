// Benchmarks: sluice's scans against cub::DeviceScan on the same data. Bytes: n·sizeof(T) read +
// n·sizeof(T) written (the single-pass floor; reduce-then-scan reads twice, the textbook strategies far
// more, which their rows show as a lower % of copy). Sweeps of n: 2^20, 2^24, 2^28 with --quick;
// 2^10 … 2^30 otherwise (issue 3).
#include "harness/measure.hpp"

#include <sluice/data/generate.cuh>
#include <sluice/reference/scan.hpp>
#include <sluice/scan.cuh>

#include <cub/device/device_scan.cuh>

#include <string>

namespace {

using namespace sluice;

std::vector<std::size_t> scan_sizes(const bench::case_context& session) {
  return session.quick() ? std::vector<std::size_t>{std::size_t{1} << 20, std::size_t{1} << 24, std::size_t{1} << 28}
                         : bench::powers_of_two(10, 30, 2);
}

/// `automatic` rows carry the entry point's name; strategy rows carry the strategy's.
std::string strategy_name(const char* entry_point, scan_algorithm a) {
  switch (a) {
    case scan_algorithm::automatic: return entry_point;
    case scan_algorithm::decoupled_look_back: return "sluice [decoupled_look_back]";
    case scan_algorithm::reduce_then_scan: return "sluice [reduce_then_scan]";
    case scan_algorithm::brent_kung: return "sluice [brent_kung]";
    case scan_algorithm::hillis_steele: return "sluice [hillis_steele]";
  }
  return "?";
}

/// A strategy as the model names it.
std::string model_name(scan_algorithm a) {
  switch (a) {
    case scan_algorithm::automatic:
    case scan_algorithm::decoupled_look_back: return "decoupled_look_back";
    case scan_algorithm::reduce_then_scan: return "reduce_then_scan";
    case scan_algorithm::brent_kung: return "brent_kung";
    case scan_algorithm::hillis_steele: return "hillis_steele";
  }
  return "?";
}

/// Times the sluice strategies (as subjects) and a CUB call (as baseline) on one generated input.
template <class T, class SluiceRun, class CubRun>
void compare_scans(bench::case_context& session, const bench::work_description& work, device_buffer<T>& out,
                   const std::vector<T>& expected, const char* entry_point, const std::vector<scan_algorithm>& strategies,
                   SluiceRun sluice_run, const char* cub_name, CubRun cub_run) {
  auto verify = [&] { return out.to_host() == expected; };
  for (scan_algorithm a : strategies) {
    out.fill_bytes(0xA5);
    // The model's name of the strategy the dispatch runs (automatic runs decoupled_look_back).
    bench::work_description modelled = work;
    modelled.model = model::problem{.family = "scan", .algorithm = model_name(a), .n = work.items, .key_bytes = sizeof(T)};
    bench::measure(session, modelled.runs_strategy(a == scan_algorithm::automatic ? "automatic" : model_name(a), model_name(a)), strategy_name(entry_point, a), bench::role::subject, true, [&] { sluice_run(a); },
                   verify);
  }
  out.fill_bytes(0xA5);
  bench::measure(session, work, cub_name, bench::role::baseline, true, cub_run, verify);
}

}  // namespace

SLUICE_BENCH_CASE("scan", "inclusive sum u32", gpu) {
  auto& ctx = session.gpu();
  for (std::size_t n : scan_sizes(session)) {
    const data::distribution_spec spec{data::distribution::uniform, 0, 0.0, n + 3};
    device_buffer<std::uint32_t> in(ctx, n), out(ctx, n);
    data::generate(ctx, in.span(), spec);
    const auto host = data::generate_host<std::uint32_t>(n, spec);
    const auto expected = reference::inclusive_scan(std::span<const std::uint32_t>(host), plus{});
    std::size_t temp_bytes = 0;
    SLUICE_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, temp_bytes, in.data(), out.data(), n, ctx.stream()));
    device_buffer<char> temp(ctx, temp_bytes);
    std::vector<scan_algorithm> strategies{scan_algorithm::automatic};
    if (n == (std::size_t{1} << 28) || !session.quick())
      strategies.insert(strategies.end(), {scan_algorithm::reduce_then_scan, scan_algorithm::brent_kung,
                                           scan_algorithm::hillis_steele});
    compare_scans(session, {"scan", "inclusive sum u32", n, 8.0 * static_cast<double>(n)}, out, expected,
                  "sluice::inclusive_scan", strategies,
                  [&](scan_algorithm a) { inclusive_scan(ctx, in.span(), out.span(), plus{}, {a}); },
                  "cub::DeviceScan::InclusiveSum", [&] {
                    SLUICE_CUDA_CHECK(cub::DeviceScan::InclusiveSum(temp.data(), temp_bytes, in.data(), out.data(), n,
                                                                    ctx.stream()));
                  });
  }
}

SLUICE_BENCH_CASE("scan", "exclusive sum u32", gpu) {
  auto& ctx = session.gpu();
  const std::size_t n = std::size_t{1} << 28;
  const data::distribution_spec spec{data::distribution::uniform, 0, 0.0, 5};
  device_buffer<std::uint32_t> in(ctx, n), out(ctx, n);
  data::generate(ctx, in.span(), spec);
  const auto host = data::generate_host<std::uint32_t>(n, spec);
  const auto expected = reference::exclusive_scan(std::span<const std::uint32_t>(host), 0u, plus{});
  std::size_t temp_bytes = 0;
  SLUICE_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, in.data(), out.data(), n, ctx.stream()));
  device_buffer<char> temp(ctx, temp_bytes);
  compare_scans(session, {"scan", "exclusive sum u32", n, 8.0 * static_cast<double>(n)}, out, expected,
                "sluice::exclusive_scan", {scan_algorithm::automatic}, [&](scan_algorithm a) { exclusive_scan(ctx, in.span(), out.span(), 0u, plus{}, {a}); },
                "cub::DeviceScan::ExclusiveSum", [&] {
                  SLUICE_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp.data(), temp_bytes, in.data(), out.data(), n,
                                                                  ctx.stream()));
                });
}

namespace {

/// One look-back tuning of the single pass, timed on the inclusive u32 sum (docs/perf-notes.md).
template <detail::scan::tile_order Order, unsigned FirstPollNs, unsigned PollNs>
void time_tuning(bench::case_context& session, const bench::work_description& work, device_buffer<std::uint32_t>& in,
                 device_buffer<std::uint32_t>& out, const std::vector<std::uint32_t>& expected) {
  using tuning = detail::scan::look_back_tuning<Order, FirstPollNs, PollNs>;
  const std::string name = std::string("sluice [") +
                           (Order == detail::scan::tile_order::atomic_counter ? "counter" : "blockIdx") +
                           ", first poll " + std::to_string(FirstPollNs) + " ns, poll " + std::to_string(PollNs) + " ns]";
  auto& ctx = session.gpu();
  out.fill_bytes(0xA5);
  bench::measure(session, work, name, bench::role::subject, true, [&] {
    auto device = ctx.activate();
    detail::scan::run_single_pass_scan<detail::scan::scan_kind::inclusive, false, tuning>(ctx, in.data(), out.data(),
                                                                                          in.size(), 0u, plus{});
  }, [&] { return out.to_host() == expected; });
}

}  // namespace

// The look-back's tuning: where tiles get their order (an atomic counter, sluice's default, or
// blockIdx as CUB), and how long a waiting warp sleeps before its first and later polls.
SLUICE_BENCH_CASE("scan", "inclusive sum u32 look-back tuning", gpu) {
  using detail::scan::tile_order;
  auto& ctx = session.gpu();
  const std::size_t n = std::size_t{1} << 28;
  const data::distribution_spec spec{data::distribution::uniform, 0, 0.0, 7};
  device_buffer<std::uint32_t> in(ctx, n), out(ctx, n);
  data::generate(ctx, in.span(), spec);
  const auto host = data::generate_host<std::uint32_t>(n, spec);
  const auto expected = reference::inclusive_scan(std::span<const std::uint32_t>(host), plus{});
  const bench::work_description work{"scan", "inclusive sum u32 look-back tuning", n, 8.0 * static_cast<double>(n)};
  time_tuning<tile_order::atomic_counter, 0, 350>(session, work, in, out, expected);
  time_tuning<tile_order::atomic_counter, 1000, 650>(session, work, in, out, expected);
  time_tuning<tile_order::atomic_counter, 2000, 650>(session, work, in, out, expected);
  time_tuning<tile_order::block_index, 0, 350>(session, work, in, out, expected);
  time_tuning<tile_order::block_index, 1000, 650>(session, work, in, out, expected);
  time_tuning<tile_order::block_index, 1500, 650>(session, work, in, out, expected);  // the default
  time_tuning<tile_order::block_index, 2000, 650>(session, work, in, out, expected);
  std::size_t temp_bytes = 0;
  SLUICE_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, temp_bytes, in.data(), out.data(), n, ctx.stream()));
  device_buffer<char> temp(ctx, temp_bytes);
  out.fill_bytes(0xA5);
  bench::measure(session, work, "cub::DeviceScan::InclusiveSum", bench::role::baseline, true, [&] {
    SLUICE_CUDA_CHECK(cub::DeviceScan::InclusiveSum(temp.data(), temp_bytes, in.data(), out.data(), n, ctx.stream()));
  }, [&] { return out.to_host() == expected; });
}

SLUICE_BENCH_CASE("scan", "inclusive affine u32 (non-commutative)", gpu) {
  auto& ctx = session.gpu();
  using A = affine<std::uint32_t>;
  const std::size_t n = std::size_t{1} << (session.quick() ? 26 : 27);
  const data::distribution_spec spec{data::distribution::uniform, 0, 0.0, 9};
  const auto words = data::generate_host<std::uint32_t>(2 * n, spec);
  std::vector<A> host(n);
  for (std::size_t i = 0; i < n; ++i) host[i] = {words[2 * i] | 1u, words[2 * i + 1]};
  device_buffer<A> in(ctx, std::span<const A>(host)), out(ctx, n);
  const auto expected = reference::inclusive_scan(std::span<const A>(host), affine_compose{});
  std::size_t temp_bytes = 0;
  SLUICE_CUDA_CHECK(cub::DeviceScan::InclusiveScan(nullptr, temp_bytes, in.data(), out.data(), affine_compose{}, n,
                                                   ctx.stream()));
  device_buffer<char> temp(ctx, temp_bytes);
  compare_scans(session, {"scan", "inclusive affine u32 (non-commutative)", n, 2.0 * sizeof(A) * static_cast<double>(n)},
                out, expected, "sluice::inclusive_scan", {scan_algorithm::automatic},
                [&](scan_algorithm a) { inclusive_scan(ctx, in.span(), out.span(), affine_compose{}, {a}); },
                "cub::DeviceScan::InclusiveScan", [&] {
                  SLUICE_CUDA_CHECK(cub::DeviceScan::InclusiveScan(temp.data(), temp_bytes, in.data(), out.data(),
                                                                   affine_compose{}, n, ctx.stream()));
                });
}
