// sluice/detail/dist/launch.cuh: the launch of the distributed calls' small grid-stride kernels (folds,
// rebases, scatters): one wave of 256-thread blocks on the rank's stream, nothing for no elements.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/launch.hpp>

#include <cstdint>

namespace sluice::detail::dist {

template <class Kernel, class... Args>
void launch_streaming(context& ctx, Kernel kernel, std::uint64_t n, Args... args) {
  if (n == 0) return;
  const unsigned grid = streaming_grid(ctx, kernel, n);
  kernel<<<grid, 256, 0, ctx.stream()>>>(args...);
  SLUICE_CHECK_LAUNCH();
}

}  // namespace sluice::detail::dist
