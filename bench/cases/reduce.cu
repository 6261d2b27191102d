// Benchmark: sluice::reduce against cub::DeviceReduce, sum of 32-bit unsigned integers, over a sweep
// of n. Bytes: 4n read (the single output is negligible).
#include "harness/measure.hpp"

#include <sluice/data/generate.cuh>
#include <sluice/reduce.cuh>
#include <sluice/reference/reduce.hpp>

#include <cub/device/device_reduce.cuh>

SLUICE_BENCH_CASE("reduce", "sum u32", gpu) {
  using namespace sluice;
  auto& ctx = session.gpu();
  const auto sizes = session.quick() ? std::vector<std::size_t>{std::size_t{1} << 20, std::size_t{1} << 24, std::size_t{1} << 28}
                                   : bench::powers_of_two(10, 28, 2);
  for (std::size_t n : sizes) {
    const data::distribution_spec spec{data::distribution::uniform, 0, 0.0, n + 17};
    device_buffer<std::uint32_t> in(ctx, n), out(ctx, 1);
    data::generate(ctx, in.span(), spec);
    const auto host = data::generate_host<std::uint32_t>(n, spec);
    const std::uint32_t expected = reference::reduce<std::uint32_t>(host, 0u, plus{});
    auto verify = [&] { return out.to_host()[0] == expected; };
    const bench::work_description work{"reduce", "sum u32", n, 4.0 * static_cast<double>(n)};

    out.fill_bytes(0xA5);
    bench::measure(session, work, "sluice::reduce", bench::role::subject, true,
                   [&] { reduce(ctx, in.span(), out.data(), 0u, plus{}); }, verify);

    std::size_t temp_bytes = 0;
    SLUICE_CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, temp_bytes, in.data(), out.data(), n, ctx.stream()));
    device_buffer<char> temp(ctx, temp_bytes);
    out.fill_bytes(0xA5);
    bench::measure(session, work, "cub::DeviceReduce::Sum", bench::role::baseline, true, [&] {
      SLUICE_CUDA_CHECK(cub::DeviceReduce::Sum(temp.data(), temp_bytes, in.data(), out.data(), n, ctx.stream()));
    }, verify);
  }
}
