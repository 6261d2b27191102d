// Benchmarks: select_if (50% kept) against cub::DeviceSelect::If, and the tile tunings of its
// classify-scatter pass in one run; stable_partition against cub::DevicePartition::If (which writes
// the rejected elements in reverse; each output is verified against its own contract), unique against
// cub::DeviceSelect::Unique. Bytes: input read once, the kept elements (select, unique) or all elements
// (partition) written once.
#include "harness/measure.hpp"

#include <sluice/data/generate.cuh>
#include <sluice/reference/select.hpp>
#include <sluice/select.cuh>

#include <cub/device/device_partition.cuh>
#include <cub/device/device_select.cuh>

#include <algorithm>
#include <functional>
#include <string>

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

namespace {

/// One tuning of the classify-scatter pass (Kept, Classes: select 1, 1; stable_partition 1, 2) with
/// is_odd, timed on 2^28 u32 (docs/perf-notes.md, "Issue 3: select against CUB's agent").
template <int Kept, int Classes, class Tuning>
void time_tuning(sluice::bench::case_context& session, const sluice::bench::work_description& work,
                 const std::string& name, sluice::device_buffer<std::uint32_t>& in,
                 sluice::device_buffer<std::uint32_t>& out, sluice::device_buffer<std::size_t>& count,
                 const std::function<bool()>& verify) {
  using namespace sluice;
  namespace sel = detail::select;
  using classes = sel::value_classes<std::uint32_t, sel::predicate_class_of<is_odd, (Classes > Kept)>>;
  auto& ctx = session.gpu();
  out.fill_bytes(0xA5);
  bench::measure(session, work, name, bench::role::subject, true, [&] {
    auto device = ctx.activate();
    sel::classify_scatter<Kept, Classes, Tuning>(ctx, in.data(), out.data(), out.size(), in.size(), classes{{}},
                                                 count.data());
  }, verify);
}

}  // namespace

// The tile of the classify-scatter pass (threads x items, warp-striped) and the look-back's first
// poll, each row the same select_if 50% u32; the default (384 x 16, first poll 1500 ns) first.
SLUICE_BENCH_CASE("select", "select_if 50% u32 tile tuning", gpu) {
  using namespace sluice;
  using detail::scan::look_back_tuning;
  using detail::scan::tile_order;
  using detail::select::scatter_tuning;
  auto& ctx = session.gpu();
  const std::size_t n = std::size_t{1} << 28;
  const data::distribution_spec spec{data::distribution::uniform, 0, 0.0, 31};
  device_buffer<std::uint32_t> in(ctx, n), out(ctx, n);
  device_buffer<std::size_t> count(ctx, 1);
  data::generate(ctx, in.span(), spec);
  const auto host = data::generate_host<std::uint32_t>(n, spec);
  const auto expected = reference::select_if(std::span<const std::uint32_t>(host), is_odd{});
  const std::function<bool()> verify = [&] {
    auto got = out.to_host();
    got.resize(expected.size());
    return count.to_host()[0] == expected.size() && got == expected;
  };
  const bench::work_description work{"select", "select_if 50% u32 tile tuning", n,
                                     4.0 * static_cast<double>(n) + 4.0 * static_cast<double>(expected.size())};
  time_tuning<1, 1, scatter_tuning<384, 16>>(session, work, "sluice [384 x 16]", in, out, count, verify);
  time_tuning<1, 1, scatter_tuning<256, 16>>(session, work, "sluice [256 x 16]", in, out, count, verify);
  time_tuning<1, 1, scatter_tuning<256, 20>>(session, work, "sluice [256 x 20]", in, out, count, verify);
  time_tuning<1, 1, scatter_tuning<128, 16>>(session, work, "sluice [128 x 16]", in, out, count, verify);
  time_tuning<1, 1, scatter_tuning<384, 16, look_back_tuning<tile_order::block_index, 1000, 650>>>(
      session, work, "sluice [384 x 16, first poll 1000 ns]", in, out, count, verify);
  std::size_t temp_bytes = 0;
  SLUICE_CUDA_CHECK(
      cub::DeviceSelect::If(nullptr, temp_bytes, in.data(), out.data(), count.data(), n, is_odd{}, ctx.stream()));
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

// The partitions' tile (their default holds 12 items per thread: 16 takes 67 registers, two blocks).
SLUICE_BENCH_CASE("select", "stable_partition 50% u32 tile tuning", gpu) {
  using namespace sluice;
  using detail::select::scatter_tuning;
  auto& ctx = session.gpu();
  const std::size_t n = std::size_t{1} << 28;
  const data::distribution_spec spec{data::distribution::uniform, 0, 0.0, 32};
  device_buffer<std::uint32_t> in(ctx, n), out(ctx, n);
  device_buffer<std::size_t> count(ctx, 1);
  data::generate(ctx, in.span(), spec);
  const auto host = data::generate_host<std::uint32_t>(n, spec);
  const auto expected = reference::stable_partition(std::span<const std::uint32_t>(host), is_odd{});
  const bench::work_description work{"select", "stable_partition 50% u32 tile tuning", n, 8.0 * static_cast<double>(n)};
  const std::function<bool()> verify = [&] {
    return count.to_host()[0] == expected.selected && out.to_host() == expected.out;
  };
  time_tuning<1, 2, scatter_tuning<384, 12>>(session, work, "sluice [384 x 12]", in, out, count, verify);
  time_tuning<1, 2, scatter_tuning<384, 16>>(session, work, "sluice [384 x 16]", in, out, count, verify);
  time_tuning<1, 2, scatter_tuning<128, 16>>(session, work, "sluice [128 x 16]", in, out, count, verify);
  std::size_t temp_bytes = 0;
  SLUICE_CUDA_CHECK(cub::DevicePartition::If(nullptr, temp_bytes, in.data(), out.data(), count.data(), n, is_odd{},
                                             ctx.stream()));
  device_buffer<char> temp(ctx, temp_bytes);
  out.fill_bytes(0xA5);
  bench::measure(session, work, "cub::DevicePartition::If (rejects reversed)", bench::role::baseline, true, [&] {
    SLUICE_CUDA_CHECK(cub::DevicePartition::If(temp.data(), temp_bytes, in.data(), out.data(), count.data(), n,
                                               is_odd{}, ctx.stream()));
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
