// Benchmarks of the segmented family against CUB on the same data: segmented reduce by offsets
// (cub::DeviceSegmentedReduce::Sum) at three segment shapes, the default (merge path) and flat, reduce-by-key (cub::DeviceReduce::ReduceByKey)
// and scan-by-key (cub::DeviceScan::InclusiveSumByKey). Bytes: every input read once, every output
// written once (offsets and per-segment outputs included).
#include "harness/measure.hpp"

#include <sluice/data/generate.cuh>
#include <sluice/reference/by_key.hpp>
#include <sluice/reference/segmented.hpp>
#include <sluice/segmented.cuh>

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_reduce.cuh>

#include <string>
#include <vector>

namespace {

using namespace sluice;

/// Segmented sums of n u32 values in `segments` segments of equal length.
void segmented_sum_case(bench::case_context& session, const std::string& name, std::size_t n, std::size_t segments) {
  auto& ctx = session.gpu();
  const data::distribution_spec spec{data::distribution::uniform, 0, 0.0, segments};
  device_buffer<std::uint32_t> values(ctx, n), sums(ctx, segments);
  data::generate(ctx, values.span(), spec);
  std::vector<std::size_t> offsets(segments + 1);
  for (std::size_t s = 0; s <= segments; ++s) offsets[s] = s * (n / segments);
  offsets.back() = n;
  const device_buffer<std::size_t> d_offsets(ctx, std::span<const std::size_t>(offsets));
  const auto host = data::generate_host<std::uint32_t>(n, spec);
  const auto expected = reference::segmented_reduce_offsets(std::span<const std::uint32_t>(host),
                                                            std::span<const std::size_t>(offsets), 0u, plus{});
  auto verify = [&] { return sums.to_host() == expected; };
  const double bytes = 4.0 * static_cast<double>(n) + 12.0 * static_cast<double>(segments);
  bench::work_description work{"segmented", name, n, bytes};
  work.model = model::problem{.family = "segmented_reduce", .algorithm = "merge_path", .n = n, .m = segments};

  sums.fill_bytes(0xA5);
  // segmented_reduce by offsets: automatic runs merge_path (segmented.cuh).
  bench::measure(session, work.runs(segmented_algorithm::automatic, segmented_algorithm::merge_path),
                 "sluice::segmented_reduce", bench::role::subject, true,
                 [&] { segmented_reduce(ctx, values.span(), d_offsets.span(), sums.span(), 0u, plus{}); }, verify);
  sums.fill_bytes(0xA5);
  bench::measure(session, work.runs(segmented_algorithm::flat, segmented_algorithm::flat).running("flat"),
                 "sluice::segmented_reduce flat", bench::role::subject, true, [&] {
    segmented_reduce(ctx, values.span(), d_offsets.span(), sums.span(), 0u, plus{},
                     {.algorithm = segmented_algorithm::flat});
  }, verify);
  std::size_t temp_bytes = 0;
  SLUICE_CUDA_CHECK(cub::DeviceSegmentedReduce::Sum(nullptr, temp_bytes, values.data(), sums.data(),
                                                    static_cast<std::int64_t>(segments), d_offsets.data(),
                                                    d_offsets.data() + 1, ctx.stream()));
  device_buffer<char> temp(ctx, temp_bytes);
  sums.fill_bytes(0xA5);
  bench::measure(session, work, "cub::DeviceSegmentedReduce::Sum", bench::role::baseline, true, [&] {
    SLUICE_CUDA_CHECK(cub::DeviceSegmentedReduce::Sum(temp.data(), temp_bytes, values.data(), sums.data(),
                                                      static_cast<std::int64_t>(segments), d_offsets.data(),
                                                      d_offsets.data() + 1, ctx.stream()));
  }, verify);
}

/// Keys with runs of about `mean_run` equal values (uniform over a range, then sorted in blocks).
std::vector<std::uint32_t> run_keys(std::size_t n, std::size_t mean_run) {
  return data::generate_host<std::uint32_t>(n, {data::distribution::sorted, n / mean_run, 0.0, 1});
}

/// The runs of equal keys in `keys` (at least one).
std::size_t run_count(const std::vector<std::uint32_t>& keys) {
  std::size_t runs = 1;
  for (std::size_t i = 1; i < keys.size(); ++i) runs += keys[i] != keys[i - 1] ? 1 : 0;
  return runs;
}

}  // namespace

SLUICE_BENCH_CASE("segmented", "reduce 256 per segment u32", gpu) {
  segmented_sum_case(session, "reduce 256 per segment u32", std::size_t{1} << 28, (std::size_t{1} << 28) / 256);
}

SLUICE_BENCH_CASE("segmented", "reduce one segment u32", gpu) {
  segmented_sum_case(session, "reduce one segment u32", std::size_t{1} << 28, 1);
}

SLUICE_BENCH_CASE("segmented", "reduce 16 per segment u32", gpu) {
  segmented_sum_case(session, "reduce 16 per segment u32", std::size_t{1} << 28, std::size_t{1} << 24);
}

// The segment-length sweep (full runs only): 2^26 values in segments of 1, 4, 16, … 2^20 elements, where
// the flat scan's cost should not depend on the length and CUB's block-per-segment design does.
SLUICE_BENCH_CASE("segmented", "reduce u32, segment length swept", gpu) {
  if (session.quick()) return;
  const std::size_t n = std::size_t{1} << 26;
  for (int log_length = 0; log_length <= 20; log_length += 2)
    segmented_sum_case(session, "reduce 2^" + std::to_string(log_length) + " per segment u32 (n = 2^26)", n,
                       n >> log_length);
}

SLUICE_BENCH_CASE("segmented", "reduce_by_key runs of 16 u32", gpu) {
  auto& ctx = session.gpu();
  const std::size_t n = std::size_t{1} << (session.quick() ? 26 : 28);
  const auto keys = run_keys(n, 16);
  const auto values = data::generate_host<std::uint32_t>(n, {data::distribution::uniform, 0, 0.0, 2});
  const auto expected = reference::reduce_by_key(std::span<const std::uint32_t>(keys),
                                                 std::span<const std::uint32_t>(values), plus{});
  const device_buffer<std::uint32_t> d_keys(ctx, std::span<const std::uint32_t>(keys)),
      d_values(ctx, std::span<const std::uint32_t>(values));
  device_buffer<std::uint32_t> unique(ctx, n), sums(ctx, n);
  device_buffer<std::size_t> runs(ctx, 1);
  const std::size_t r = expected.keys.size();
  auto verify = [&] {
    auto k = unique.to_host(), v = sums.to_host();
    k.resize(r);
    v.resize(r);
    return runs.to_host()[0] == r && k == expected.keys && v == expected.values;
  };
  bench::work_description work{"segmented", "reduce_by_key runs of 16 u32", n,
                               8.0 * static_cast<double>(n) + 8.0 * static_cast<double>(r)};
  work.model = model::problem{.family = "segmented_reduce", .algorithm = "flat", .n = n, .m = r, .value_bytes = 4,
                              .heads = model::segment_heads::keys};
  unique.fill_bytes(0xA5);
  sums.fill_bytes(0xA5);
  bench::measure(session, work, "sluice::reduce_by_key", bench::role::subject, true, [&] {
    reduce_by_key(ctx, d_keys.span(), d_values.span(), unique.span(), sums.span(), runs.data(), plus{});
  }, verify);
  std::size_t temp_bytes = 0;
  SLUICE_CUDA_CHECK(cub::DeviceReduce::ReduceByKey(nullptr, temp_bytes, d_keys.data(), unique.data(), d_values.data(),
                                                   sums.data(), runs.data(), plus{}, n, ctx.stream()));
  device_buffer<char> temp(ctx, temp_bytes);
  unique.fill_bytes(0xA5);
  sums.fill_bytes(0xA5);
  bench::measure(session, work, "cub::DeviceReduce::ReduceByKey", bench::role::baseline, true, [&] {
    SLUICE_CUDA_CHECK(cub::DeviceReduce::ReduceByKey(temp.data(), temp_bytes, d_keys.data(), unique.data(),
                                                     d_values.data(), sums.data(), runs.data(), plus{}, n, ctx.stream()));
  }, verify);
}

SLUICE_BENCH_CASE("segmented", "inclusive_scan_by_key runs of 16 u32", gpu) {
  auto& ctx = session.gpu();
  const std::size_t n = std::size_t{1} << (session.quick() ? 26 : 28);
  const auto keys = run_keys(n, 16);
  const auto values = data::generate_host<std::uint32_t>(n, {data::distribution::uniform, 0, 0.0, 3});
  const auto expected = reference::inclusive_scan_by_key(std::span<const std::uint32_t>(keys),
                                                         std::span<const std::uint32_t>(values), plus{});
  const device_buffer<std::uint32_t> d_keys(ctx, std::span<const std::uint32_t>(keys)),
      d_values(ctx, std::span<const std::uint32_t>(values));
  device_buffer<std::uint32_t> out(ctx, n);
  auto verify = [&] { return out.to_host() == expected; };
  bench::work_description work{"segmented", "inclusive_scan_by_key runs of 16 u32", n, 12.0 * static_cast<double>(n)};
  work.model = model::problem{.family = "segmented_scan", .algorithm = "flat", .n = n, .m = run_count(keys),
                              .value_bytes = 4, .heads = model::segment_heads::keys};
  out.fill_bytes(0xA5);
  bench::measure(session, work, "sluice::inclusive_scan_by_key", bench::role::subject, true,
                 [&] { inclusive_scan_by_key(ctx, d_keys.span(), d_values.span(), out.span(), plus{}); }, verify);
  std::size_t temp_bytes = 0;
  SLUICE_CUDA_CHECK(cub::DeviceScan::InclusiveSumByKey(nullptr, temp_bytes, d_keys.data(), d_values.data(), out.data(),
                                                       n, cuda::std::equal_to<>{}, ctx.stream()));
  device_buffer<char> temp(ctx, temp_bytes);
  out.fill_bytes(0xA5);
  bench::measure(session, work, "cub::DeviceScan::InclusiveSumByKey", bench::role::baseline, true, [&] {
    SLUICE_CUDA_CHECK(cub::DeviceScan::InclusiveSumByKey(temp.data(), temp_bytes, d_keys.data(), d_values.data(),
                                                         out.data(), n, cuda::std::equal_to<>{}, ctx.stream()));
  }, verify);
}
