// Benchmarks: segmented_sort and segmented_sort_pairs (merge_sort.cuh) against
// cub::DeviceSegmentedSort::StableSortKeys / StableSortPairs on the same data: 2^24 uniform u32 keys (and
// u32 values) in 2^20 segments of about 16 keys (the small-segment tiers), 2^12 of about 4096 (one tile
// each, a few of two or more) and 16 of about 2^20 (the tile tier's merge rounds). Segment boundaries are
// sorted uniform random positions in [0, n], so sizes are about exponential around the mean.
// Bytes: keys (and values) read once and written once, the offsets read once.
//
// Every row is verified against reference::segmented_stable_sort_offsets (_pairs_offsets) of the same
// input generated on the host; CUB's stable sorts must match it exactly too.
#include "harness/measure.hpp"

#include <sluice/data/generate.cuh>
#include <sluice/merge_sort.cuh>
#include <sluice/reference/sort.hpp>

#include <cub/device/device_segmented_sort.cuh>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace sluice;

constexpr std::size_t keys_per_case = std::size_t{1} << 24;

/// segments + 1 offsets: 0, n and segments − 1 sorted uniform positions between.
std::vector<std::size_t> random_offsets(std::size_t n, std::size_t segments, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::vector<std::size_t> offsets(segments + 1);
  offsets.front() = 0;
  offsets.back() = n;
  for (std::size_t s = 1; s < segments; ++s) offsets[s] = random() % (n + 1);
  std::sort(offsets.begin(), offsets.end());
  return offsets;
}

void sort_keys_case(bench::case_context& session, const std::string& name, std::size_t segments) {
  auto& ctx = session.gpu();
  const std::size_t n = keys_per_case;
  const data::distribution_spec spec{data::distribution::uniform, 0, 0.0, segments};
  const auto host = data::generate_host<std::uint32_t>(n, spec);
  const auto offsets = random_offsets(n, segments, segments + 1);
  device_buffer<std::uint32_t> keys(ctx, std::span<const std::uint32_t>(host)), out(ctx, n);
  const device_buffer<std::size_t> d_offsets(ctx, std::span<const std::size_t>(offsets));
  const auto expected = reference::segmented_stable_sort_offsets(std::span<const std::uint32_t>(host),
                                                                 std::span<const std::size_t>(offsets));
  auto verify = [&] { return out.to_host() == expected; };
  const bench::work_description work{"segmented_sort", name, n,
                                     8.0 * static_cast<double>(n) + 8.0 * static_cast<double>(segments + 1)};
  out.fill_bytes(0xA5);
  bench::measure(session, work, "sluice::segmented_sort", bench::role::subject, true,
                 [&] { segmented_sort(ctx, keys.span(), d_offsets.span(), out.span()); }, verify);
  std::size_t temp_bytes = 0;
  const auto items = static_cast<std::int64_t>(n);
  const auto count = static_cast<std::int64_t>(segments);
  SLUICE_CUDA_CHECK(cub::DeviceSegmentedSort::StableSortKeys(nullptr, temp_bytes, keys.data(), out.data(), items, count,
                                                             d_offsets.data(), d_offsets.data() + 1, ctx.stream()));
  device_buffer<char> temp(ctx, temp_bytes);
  out.fill_bytes(0xA5);
  bench::measure(session, work, "cub::DeviceSegmentedSort::StableSortKeys", bench::role::baseline, true, [&] {
    SLUICE_CUDA_CHECK(cub::DeviceSegmentedSort::StableSortKeys(temp.data(), temp_bytes, keys.data(), out.data(), items,
                                                               count, d_offsets.data(), d_offsets.data() + 1,
                                                               ctx.stream()));
  }, verify);
}

void sort_pairs_case(bench::case_context& session, const std::string& name, std::size_t segments) {
  auto& ctx = session.gpu();
  const std::size_t n = keys_per_case;
  const data::distribution_spec spec{data::distribution::uniform, 0, 0.0, segments + 2};
  const auto host = data::generate_host<std::uint32_t>(n, spec);
  std::vector<std::uint32_t> index(n);
  std::iota(index.begin(), index.end(), 0u);
  const auto offsets = random_offsets(n, segments, segments + 3);
  device_buffer<std::uint32_t> keys(ctx, std::span<const std::uint32_t>(host)),
      values(ctx, std::span<const std::uint32_t>(index)), out(ctx, n), out_values(ctx, n);
  const device_buffer<std::size_t> d_offsets(ctx, std::span<const std::size_t>(offsets));
  const auto expected = reference::segmented_stable_sort_pairs_offsets(std::span<const std::uint32_t>(host),
                                                                       std::span<const std::uint32_t>(index),
                                                                       std::span<const std::size_t>(offsets));
  auto verify = [&] { return out.to_host() == expected.keys && out_values.to_host() == expected.values; };
  const bench::work_description work{"segmented_sort", name, n,
                                     16.0 * static_cast<double>(n) + 8.0 * static_cast<double>(segments + 1)};
  out.fill_bytes(0xA5);
  out_values.fill_bytes(0xA5);
  bench::measure(session, work, "sluice::segmented_sort_pairs", bench::role::subject, true, [&] {
    segmented_sort_pairs(ctx, keys.span(), values.span(), d_offsets.span(), out.span(), out_values.span());
  }, verify);
  std::size_t temp_bytes = 0;
  const auto items = static_cast<std::int64_t>(n);
  const auto count = static_cast<std::int64_t>(segments);
  SLUICE_CUDA_CHECK(cub::DeviceSegmentedSort::StableSortPairs(nullptr, temp_bytes, keys.data(), out.data(),
                                                              values.data(), out_values.data(), items, count,
                                                              d_offsets.data(), d_offsets.data() + 1, ctx.stream()));
  device_buffer<char> temp(ctx, temp_bytes);
  out.fill_bytes(0xA5);
  out_values.fill_bytes(0xA5);
  bench::measure(session, work, "cub::DeviceSegmentedSort::StableSortPairs", bench::role::baseline, true, [&] {
    SLUICE_CUDA_CHECK(cub::DeviceSegmentedSort::StableSortPairs(temp.data(), temp_bytes, keys.data(), out.data(),
                                                                values.data(), out_values.data(), items, count,
                                                                d_offsets.data(), d_offsets.data() + 1, ctx.stream()));
  }, verify);
}

}  // namespace

SLUICE_BENCH_CASE("segmented_sort", "u32 keys, 2^20 segments of ~16", gpu) {
  sort_keys_case(session, "u32 keys, 2^20 segments of ~16", std::size_t{1} << 20);
}
SLUICE_BENCH_CASE("segmented_sort", "u32 keys, 2^12 segments of ~4096", gpu) {
  sort_keys_case(session, "u32 keys, 2^12 segments of ~4096", std::size_t{1} << 12);
}
SLUICE_BENCH_CASE("segmented_sort", "u32 keys, 16 segments of ~2^20", gpu) {
  sort_keys_case(session, "u32 keys, 16 segments of ~2^20", 16);
}
SLUICE_BENCH_CASE("segmented_sort", "u32/u32 pairs, 2^20 segments of ~16", gpu) {
  sort_pairs_case(session, "u32/u32 pairs, 2^20 segments of ~16", std::size_t{1} << 20);
}
SLUICE_BENCH_CASE("segmented_sort", "u32/u32 pairs, 2^12 segments of ~4096", gpu) {
  sort_pairs_case(session, "u32/u32 pairs, 2^12 segments of ~4096", std::size_t{1} << 12);
}
SLUICE_BENCH_CASE("segmented_sort", "u32/u32 pairs, 16 segments of ~2^20", gpu) {
  sort_pairs_case(session, "u32/u32 pairs, 16 segments of ~2^20", 16);
}
