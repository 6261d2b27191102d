// sluice/data/generate.cuh: fills device memory with a distribution of sluice/data/distributions.hpp.
//
// Element i equals element i of data::generate_host for the same spec and size, so an oracle can
// regenerate a benchmark's input on the host instead of copying it back. One pass, n·sizeof(T) written.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/device_buffer.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/core/memory.hpp>
#include <sluice/data/distributions.hpp>

#include <cuda/std/span>

#include <span>

namespace sluice::data {

namespace detail {
template <class T>
__global__ void generate_kernel(T* out, std::uint64_t n, sampler_view view, std::uint64_t range) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::uint64_t{gridDim.x} * blockDim.x)
    out[i] = to_element<T>(view(i), range);
}
}  // namespace detail

template <class T>
void generate(context& ctx, cuda::std::span<T> out, const distribution_spec& spec) {
  require_device_memory(ctx, out, "data::generate", "out");
  if (out.empty()) return;
  auto device = ctx.activate();
  const sampler<T> s(spec, out.size());
  sampler_view view = s.host_view();
  device_buffer<std::uint32_t> table;
  if (!s.table().empty()) {
    table = device_buffer<std::uint32_t>(ctx, std::span<const std::uint32_t>(s.table()));
    view.table = table.data();
  }
  constexpr int threads = 256;
  const std::size_t grid = sluice::detail::one_wave_grid(ctx, detail::generate_kernel<T>, threads,
                                                         sluice::detail::ceil_div(out.size(), threads));
  detail::generate_kernel<T><<<static_cast<unsigned>(grid), threads, 0, ctx.stream()>>>(out.data(), out.size(), view,
                                                                                         s.range());
  SLUICE_CHECK_LAUNCH();
}  // `table` is released stream-ordered, after the kernel has read it

}  // namespace sluice::data
