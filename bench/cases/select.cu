// Benchmarks: select_if (50% kept) against cub::DeviceSelect::If, stable_partition against
// cub::DevicePartition::If (which writes the rejected elements in reverse; each output is verified
// against its own contract), unique against cub::DeviceSelect::Unique. Bytes: input read once, the
// kept elements (select, unique) or all elements (partition) written once.
#include "harness/measure.hpp"

#include <sluice/data/generate.cuh>
#include <sluice/reference/select.hpp>
#include <sluice/select.cuh>

#include <cub/device/device_partition.cuh>
#include <cub/device/device_select.cuh>

#include <algorithm>

namespace {
struct is_odd {
  __host__ __device__ bool operator()(std::uint32_t x) const { return (x & 1u) != 0; }
};
}  // namespace

SLUICE_BENCH_CASE("select", "select_if 50% u32", gpu) {
  using namespace sluice;
  auto& ctx = session.gpu();
  const std::size_t n = std::size_t{1} << 28;
  const data::distribution_spec spec{data::distribution::uniform, 0, 0.0, 31};
  device_buffer<std::uint32_t> in(ctx, n), out(ctx, n);
  device_buffer<std::size_t> count(ctx, 1);
  data::generate(ctx, in.span(), spec);
  const auto host = data::generate_host<std::uint32_t>(n, spec);
  const auto expected = reference::select_if(std::span<const std::uint32_t>(host), is_odd{});
  auto verify = [&] {
    auto got = out.to_host();
    got.resize(expected.size());
    return count.to_host()[0] == expected.size() && got == expected;
  };
  const bench::work_description work{"select", "select_if 50% u32", n,
                                     4.0 * static_cast<double>(n) + 4.0 * static_cast<double>(expected.size())};
  out.fill_bytes(0xA5);
  bench::measure(session, work, "sluice::select_if", bench::role::subject, true,
                 [&] { select_if(ctx, in.span(), out.span(), count.data(), is_odd{}); }, verify);
  std::size_t temp_bytes = 0;
  SLUICE_CUDA_CHECK(cub::DeviceSelect::If(nullptr, temp_bytes, in.data(), out.data(), count.data(), n, is_odd{}, ctx.stream()));
  device_buffer<char> temp(ctx, temp_bytes);
  out.fill_bytes(0xA5);
  bench::measure(session, work, "cub::DeviceSelect::If", bench::role::baseline, true, [&] {
    SLUICE_CUDA_CHECK(cub::DeviceSelect::If(temp.data(), temp_bytes, in.data(), out.data(), count.data(), n, is_odd{},
                                            ctx.stream()));
  }, verify);
}

SLUICE_BENCH_CASE("select", "stable_partition 50% u32", gpu) {
  using namespace sluice;
  auto& ctx = session.gpu();
  const std::size_t n = std::size_t{1} << 28;
  const data::distribution_spec spec{data::distribution::uniform, 0, 0.0, 32};
  device_buffer<std::uint32_t> in(ctx, n), out(ctx, n);
  device_buffer<std::size_t> count(ctx, 1);
  data::generate(ctx, in.span(), spec);
  const auto host = data::generate_host<std::uint32_t>(n, spec);
  const auto expected = reference::stable_partition(std::span<const std::uint32_t>(host), is_odd{});
  const bench::work_description work{"select", "stable_partition 50% u32", n, 8.0 * static_cast<double>(n)};
  out.fill_bytes(0xA5);
  bench::measure(session, work, "sluice::stable_partition", bench::role::subject, true,
                 [&] { stable_partition(ctx, in.span(), out.span(), count.data(), is_odd{}); },
                 [&] { return count.to_host()[0] == expected.selected && out.to_host() == expected.out; });
  std::size_t temp_bytes = 0;
  SLUICE_CUDA_CHECK(cub::DevicePartition::If(nullptr, temp_bytes, in.data(), out.data(), count.data(), n, is_odd{},
                                             ctx.stream()));
  device_buffer<char> temp(ctx, temp_bytes);
  out.fill_bytes(0xA5);
  bench::measure(session, work, "cub::DevicePartition::If (rejects reversed)", bench::role::baseline, true, [&] {
    SLUICE_CUDA_CHECK(cub::DevicePartition::If(temp.data(), temp_bytes, in.data(), out.data(), count.data(), n, is_odd{},
                                               ctx.stream()));
  }, [&] {
    auto got = out.to_host();
    std::reverse(got.begin() + static_cast<std::ptrdiff_t>(expected.selected), got.end());
    return count.to_host()[0] == expected.selected && got == expected.out;
  });
}

SLUICE_BENCH_CASE("select", "unique runs of 4 u32", gpu) {
  using namespace sluice;
  auto& ctx = session.gpu();
  const std::size_t n = std::size_t{1} << 28;
  const auto host = data::generate_host<std::uint32_t>(n, {data::distribution::sorted, n / 4, 0.0, 1});
  const auto expected = reference::unique(std::span<const std::uint32_t>(host));
  const device_buffer<std::uint32_t> in(ctx, std::span<const std::uint32_t>(host));
  device_buffer<std::uint32_t> out(ctx, n);
  device_buffer<std::size_t> count(ctx, 1);
  auto verify = [&] {
    auto got = out.to_host();
    got.resize(expected.size());
    return count.to_host()[0] == expected.size() && got == expected;
  };
  const bench::work_description work{"select", "unique runs of 4 u32", n,
                                     4.0 * static_cast<double>(n) + 4.0 * static_cast<double>(expected.size())};
  out.fill_bytes(0xA5);
  bench::measure(session, work, "sluice::unique", bench::role::subject, true,
                 [&] { unique(ctx, in.span(), out.span(), count.data()); }, verify);
  std::size_t temp_bytes = 0;
  SLUICE_CUDA_CHECK(cub::DeviceSelect::Unique(nullptr, temp_bytes, in.data(), out.data(), count.data(), n, ctx.stream()));
  device_buffer<char> temp(ctx, temp_bytes);
  out.fill_bytes(0xA5);
  bench::measure(session, work, "cub::DeviceSelect::Unique", bench::role::baseline, true, [&] {
    SLUICE_CUDA_CHECK(cub::DeviceSelect::Unique(temp.data(), temp_bytes, in.data(), out.data(), count.data(), n,
                                                ctx.stream()));
  }, verify);
}
