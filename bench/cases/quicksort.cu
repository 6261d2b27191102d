// Benchmark: Palik's segmented quicksort (a teaching strategy: rounds of two segmented scans and four
// element-wise passes, one synchronisation each) under both pivot rules, against
// cub::DeviceRadixSort::SortKeys on the same uniform u32 keys. Expect it to be far slower: the rows
// say by how much. Bytes: keys read once + sorted keys written once (8 per key), the floor of any sort.
#include "harness/measure.hpp"

#include <sluice/data/generate.cuh>
#include <sluice/quicksort.cuh>
#include <sluice/reference/sort.hpp>

#include <cub/device/device_radix_sort.cuh>

#include <span>
#include <string>

namespace {

using namespace sluice;

std::vector<std::size_t> sizes(const bench::case_context& session) {
  return session.quick() ? std::vector<std::size_t>{std::size_t{1} << 24} : bench::powers_of_two(16, 26, 2);
}

}  // namespace

SLUICE_BENCH_CASE("quicksort", "sort uniform u32", gpu) {
  auto& ctx = session.gpu();
  for (std::size_t n : sizes(session)) {
    const data::distribution_spec spec{data::distribution::uniform, 0, 0.0, n + 41};
    device_buffer<std::uint32_t> keys(ctx, n), out(ctx, n);
    data::generate(ctx, keys.span(), spec);
    const auto expected = reference::stable_sort(std::span<const std::uint32_t>(data::generate_host<std::uint32_t>(n, spec)));
    auto verify = [&] { return out.to_host() == expected; };
    const bench::work_description work{"quicksort", "sort uniform u32", n, 8.0 * static_cast<double>(n)};
    for (auto pivot : {quicksort_pivot::median_of_three, quicksort_pivot::first}) {
      out.fill_bytes(0xA5);
      bench::measure(session, work,
                     pivot == quicksort_pivot::first ? "sluice::segmented_quicksort [first]" : "sluice::segmented_quicksort",
                     bench::role::subject, true,
                     [&] { segmented_quicksort(ctx, keys.span(), out.span(), {.pivot = pivot}); }, verify);
    }
    std::size_t temp_bytes = 0;
    const int items = static_cast<int>(n);
    SLUICE_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, keys.data(), out.data(), items, 0, 32, ctx.stream()));
    device_buffer<char> temp(ctx, temp_bytes);
    out.fill_bytes(0xA5);
    bench::measure(session, work, "cub::DeviceRadixSort::SortKeys", bench::role::baseline, true, [&] {
      SLUICE_CUDA_CHECK(
          cub::DeviceRadixSort::SortKeys(temp.data(), temp_bytes, keys.data(), out.data(), items, 0, 32, ctx.stream()));
    }, verify);
  }
}
