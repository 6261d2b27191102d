// Benchmark: device-to-device copy, the speed of light every other row is measured against.
// cudaMemcpyAsync is the baseline; the subject is a plain vectorised copy kernel (16-byte loads and
// stores, grid-stride), i.e. what a well-written streaming kernel reaches. Bytes: 4n read + 4n written.
#include "harness/measure.hpp"

#include <sluice/core/device_buffer.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/data/generate.cuh>

namespace {

__global__ void copy_vectorised_kernel(const std::uint32_t* __restrict__ in, std::uint32_t* __restrict__ out,
                                       std::size_t n) {
  const std::size_t vectors = n / 4;
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  const std::size_t first = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  for (std::size_t i = first; i < vectors; i += stride)
    reinterpret_cast<uint4*>(out)[i] = reinterpret_cast<const uint4*>(in)[i];
  for (std::size_t i = 4 * vectors + first; i < n; i += stride) out[i] = in[i];
}

void copy_vectorised(sluice::context& ctx, const std::uint32_t* in, std::uint32_t* out, std::size_t n) {
  constexpr int threads = 512;
  const std::size_t grid = sluice::detail::one_wave_grid(ctx, copy_vectorised_kernel, threads,
                                                         sluice::detail::ceil_div(n, 4 * threads));
  copy_vectorised_kernel<<<static_cast<unsigned>(grid), threads, 0, ctx.stream()>>>(in, out, n);
  SLUICE_CHECK_LAUNCH();
}

}  // namespace

SLUICE_BENCH_CASE("copy", "u32 device to device", gpu) {
  using namespace sluice;
  auto& ctx = session.gpu();
  const auto sizes = session.quick() ? std::vector<std::size_t>{std::size_t{1} << 20, std::size_t{1} << 24, std::size_t{1} << 28}
                                   : bench::powers_of_two(16, 28, 2);
  for (std::size_t n : sizes) {
    const data::distribution_spec spec{data::distribution::uniform, 0, 0.0, n};
    device_buffer<std::uint32_t> in(ctx, n), out(ctx, n);
    data::generate(ctx, in.span(), spec);
    const auto expected = data::generate_host<std::uint32_t>(n, spec);
    auto verify = [&] { return out.to_host() == expected; };
    bench::work_description work{"copy", "u32 device to device", n, 8.0 * static_cast<double>(n)};
    work.model = model::problem{.family = "copy", .algorithm = "copy", .n = n, .key_bytes = sizeof(std::uint32_t)};

    out.fill_bytes(0xA5);
    bench::measure(session, work, "cudaMemcpyAsync D2D", bench::role::baseline, true, [&] {
      SLUICE_CUDA_CHECK(cudaMemcpyAsync(out.data(), in.data(), n * sizeof(std::uint32_t), cudaMemcpyDeviceToDevice,
                                        ctx.stream()));
    }, verify);
    out.fill_bytes(0xA5);
    bench::measure(session, work, "copy kernel (16-byte vectors)", bench::role::subject, true,
                   [&] { copy_vectorised(ctx, in.data(), out.data(), n); }, verify);
  }
}
