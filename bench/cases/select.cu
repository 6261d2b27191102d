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
#include <string>
#include <type_traits>
#include <vector>

namespace {

using namespace sluice;

struct is_odd {
  __host__ __device__ bool operator()(std::uint32_t x) const { return (x & 1u) != 0; }
};

constexpr std::size_t items = std::size_t{1} << 28;

/// 2^28 uniform u32 on the device, the output and count, and the oracle's result of select_if
/// (Partition false) or stable_partition by is_odd: what a case and its tuning case share.
template <bool Partition>
struct problem {
  problem(context& ctx, std::uint64_t seed) : in(ctx, items), out(ctx, items), count(ctx, 1) {
    const data::distribution_spec spec{data::distribution::uniform, 0, 0.0, seed};
    data::generate(ctx, in.span(), spec);
    const auto host = data::generate_host<std::uint32_t>(items, spec);
    if constexpr (Partition) expected = reference::stable_partition(std::span<const std::uint32_t>(host), is_odd{});
    else expected = reference::select_if(std::span<const std::uint32_t>(host), is_odd{});
  }

  [[nodiscard]] std::size_t kept() const {
    if constexpr (Partition) return expected.selected;
    else return expected.size();
  }
  /// Bytes: the input read, the kept elements (select) or every element (partition) written.
  [[nodiscard]] bench::work_description work(const std::string& name) const {
    bench::work_description w{"select", name, items,
                              4.0 * static_cast<double>(items) + 4.0 * static_cast<double>(Partition ? items : kept())};
    w.model = model::problem{.family = "select",
                             .algorithm = Partition ? "stable_partition" : "select_if",
                             .n = items,
                             .key_bytes = sizeof(std::uint32_t),
                             .kept = static_cast<double>(kept()) / static_cast<double>(items)};
    return w;
  }
  /// The contract of sluice's operation (and of CUB's select).
  [[nodiscard]] bool verify() const {
    auto got = out.to_host();
    if constexpr (Partition) return count.to_host()[0] == kept() && got == expected.out;
    else {
      got.resize(expected.size());
      return count.to_host()[0] == kept() && got == expected;
    }
  }

  device_buffer<std::uint32_t> in, out;
  device_buffer<std::size_t> count;
  std::conditional_t<Partition, reference::partition_result<std::uint32_t>, std::vector<std::uint32_t>> expected;
};

using select_problem = problem<false>;
using partition_problem = problem<true>;

void measure_cub_select(bench::case_context& session, const bench::work_description& work, select_problem& p) {
  auto& ctx = session.gpu();
  std::size_t temp_bytes = 0;
  SLUICE_CUDA_CHECK(cub::DeviceSelect::If(nullptr, temp_bytes, p.in.data(), p.out.data(), p.count.data(), items,
                                          is_odd{}, ctx.stream()));
  device_buffer<char> temp(ctx, temp_bytes);
  p.out.fill_bytes(0xA5);
  bench::measure(session, work, "cub::DeviceSelect::If", bench::role::baseline, true, [&] {
    SLUICE_CUDA_CHECK(cub::DeviceSelect::If(temp.data(), temp_bytes, p.in.data(), p.out.data(), p.count.data(), items,
                                            is_odd{}, ctx.stream()));
  }, [&] { return p.verify(); });
}

/// CUB's partition writes the rejects in reverse: verified against that contract.
void measure_cub_partition(bench::case_context& session, const bench::work_description& work, partition_problem& p) {
  auto& ctx = session.gpu();
  std::size_t temp_bytes = 0;
  SLUICE_CUDA_CHECK(cub::DevicePartition::If(nullptr, temp_bytes, p.in.data(), p.out.data(), p.count.data(), items,
                                             is_odd{}, ctx.stream()));
  device_buffer<char> temp(ctx, temp_bytes);
  p.out.fill_bytes(0xA5);
  bench::measure(session, work, "cub::DevicePartition::If (rejects reversed)", bench::role::baseline, true, [&] {
    SLUICE_CUDA_CHECK(cub::DevicePartition::If(temp.data(), temp_bytes, p.in.data(), p.out.data(), p.count.data(),
                                               items, is_odd{}, ctx.stream()));
  }, [&] {
    auto got = p.out.to_host();
    std::reverse(got.begin() + static_cast<std::ptrdiff_t>(p.kept()), got.end());
    return p.count.to_host()[0] == p.kept() && got == p.expected.out;
  });
}

/// One tuning of the classify-scatter pass (Kept, Classes: select 1, 1; stable_partition 1, 2) with
/// is_odd, timed on 2^28 u32 (docs/perf-notes.md, "Issue 3: select against CUB's agent").
template <int Kept, int Classes, class Tuning, bool Partition>
void time_tuning(bench::case_context& session, const bench::work_description& work, const std::string& name,
                 problem<Partition>& p) {
  namespace sel = detail::select;
  using classes = sel::value_classes<std::uint32_t, sel::predicate_class_of<is_odd, (Classes > Kept)>>;
  auto& ctx = session.gpu();
  p.out.fill_bytes(0xA5);
  // A tile shape of its own: not the dispatch's launch plan, which the model's counts follow.
  bench::measure(session, work.running("tile tuning"), name, bench::role::subject, true, [&] {
    auto device = ctx.activate();
    sel::classify_scatter<Kept, Classes, Tuning>(ctx, p.in.data(), p.out.data(), p.out.size(), p.in.size(),
                                                 classes{{}}, p.count.data());
  }, [&] { return p.verify(); });
}

}  // namespace

SLUICE_BENCH_CASE("select", "select_if 50% u32", gpu) {
  auto& ctx = session.gpu();
  select_problem p(ctx, 31);
  const auto work = p.work("select_if 50% u32");
  p.out.fill_bytes(0xA5);
  bench::measure(session, work, "sluice::select_if", bench::role::subject, true,
                 [&] { select_if(ctx, p.in.span(), p.out.span(), p.count.data(), is_odd{}); },
                 [&] { return p.verify(); });
  measure_cub_select(session, work, p);
}

// The tile of the classify-scatter pass (threads x items, warp-striped) and the look-back's first
// poll, each row the same select_if 50% u32; the default (384 x 16, first poll 1500 ns) first.
SLUICE_BENCH_CASE("select", "select_if 50% u32 tile tuning", gpu) {
  using detail::scan::look_back_tuning;
  using detail::scan::tile_order;
  using detail::select::scatter_tuning;
  select_problem p(session.gpu(), 31);
  const auto work = p.work("select_if 50% u32 tile tuning");
  time_tuning<1, 1, scatter_tuning<384, 16>>(session, work, "sluice [384 x 16]", p);
  time_tuning<1, 1, scatter_tuning<256, 16>>(session, work, "sluice [256 x 16]", p);
  time_tuning<1, 1, scatter_tuning<256, 20>>(session, work, "sluice [256 x 20]", p);
  time_tuning<1, 1, scatter_tuning<128, 16>>(session, work, "sluice [128 x 16]", p);
  time_tuning<1, 1, scatter_tuning<384, 16, look_back_tuning<tile_order::block_index, 1000, 650>>>(
      session, work, "sluice [384 x 16, first poll 1000 ns]", p);
  measure_cub_select(session, work, p);
}

SLUICE_BENCH_CASE("select", "stable_partition 50% u32", gpu) {
  auto& ctx = session.gpu();
  partition_problem p(ctx, 32);
  const auto work = p.work("stable_partition 50% u32");
  p.out.fill_bytes(0xA5);
  bench::measure(session, work, "sluice::stable_partition", bench::role::subject, true,
                 [&] { stable_partition(ctx, p.in.span(), p.out.span(), p.count.data(), is_odd{}); },
                 [&] { return p.verify(); });
  measure_cub_partition(session, work, p);
}

// The partitions' tile (their default holds 12 items per thread: 16 takes 67 registers, two blocks).
SLUICE_BENCH_CASE("select", "stable_partition 50% u32 tile tuning", gpu) {
  using detail::select::scatter_tuning;
  partition_problem p(session.gpu(), 32);
  const auto work = p.work("stable_partition 50% u32 tile tuning");
  time_tuning<1, 2, scatter_tuning<384, 12>>(session, work, "sluice [384 x 12]", p);
  time_tuning<1, 2, scatter_tuning<384, 16>>(session, work, "sluice [384 x 16]", p);
  time_tuning<1, 2, scatter_tuning<128, 16>>(session, work, "sluice [128 x 16]", p);
  measure_cub_partition(session, work, p);
}

SLUICE_BENCH_CASE("select", "unique runs of 4 u32", gpu) {
  auto& ctx = session.gpu();
  const std::size_t n = items;
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
  bench::work_description work{"select", "unique runs of 4 u32", n,
                               4.0 * static_cast<double>(n) + 4.0 * static_cast<double>(expected.size())};
  work.model = model::problem{.family = "select",
                              .algorithm = "unique",
                              .n = n,
                              .key_bytes = sizeof(std::uint32_t),
                              .kept = static_cast<double>(expected.size()) / static_cast<double>(n)};
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
