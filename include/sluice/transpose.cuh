// sluice/transpose.cuh: out-of-place matrix transpose (DTU §4.7, with §3.6's coalescing and bank
// conflicts): `in` is rows × cols in row-major order, `out` becomes cols × rows in row-major order,
// out[c·rows + r] = in[r·cols + c].
//
//   sluice::context ctx;
//   sluice::device_buffer<float> in(ctx, host_matrix), out(ctx, rows * cols);
//   sluice::transpose(ctx, in.span(), out.span(), rows, cols);   // asynchronous on ctx.stream()
//   std::vector<float> transposed = out.to_host();
//
// Any trivially copyable T of 1, 2, 4, 8 or 16 bytes (the bytes are moved, never interpreted), any
// rows × cols including 0 and 1 and beyond 2^31 elements. Strategies: the seed's three (naive, tiled,
// tiled_padded; detail/transpose/naive.cuh, tiled.cuh) and `automatic`, which picks a tuned kernel by
// shape, element size and alignment (detail::transpose::choose). Memory traffic of every strategy:
// rows·cols·sizeof(T) read and the same written; they differ in how many transactions that takes.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/memory.hpp>
#include <sluice/core/span.hpp>
#include <sluice/detail/transpose/dispatch.cuh>
#include <sluice/options/transpose.hpp>

#include <cuda/std/span>

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

namespace sluice {

/// Writes the transpose of the rows × cols matrix `in` to `out` (cols × rows), asynchronously on ctx's
/// stream. Both are row-major, device (or managed) memory of the context's device, rows · cols
/// elements each, and must not overlap: there is no in-place transpose (a non-square one permutes
/// elements along cycles; it is a different algorithm). Errors: sluice::invalid_argument naming the
/// parameter ("in", "out", "options.algorithm") for a wrong size, host memory, overlap or an unknown
/// algorithm.
template <class In, std::size_t InExtent, class T, std::size_t OutExtent>
  requires std::same_as<std::remove_const_t<In>, T> && (!std::is_const_v<T>)
void transpose(context& ctx, cuda::std::span<In, InExtent> in, cuda::std::span<T, OutExtent> out, std::size_t rows,
               std::size_t cols, const transpose_options& options = {}) {
  static_assert(std::is_trivially_copyable_v<T>, "transpose moves the bytes of trivially copyable elements");
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16,
                "transpose supports elements of 1, 2, 4, 8 or 16 bytes");
  namespace tr = detail::transpose;
  tr::require_matrix(in.size(), rows, cols, "in");
  tr::require_matrix(out.size(), rows, cols, "out");
  require_device_memory(ctx, in, "transpose", "in");
  require_device_memory(ctx, out, "transpose", "out");
  if (detail::overlaps(in, out))
    throw invalid_argument("transpose", "out", "overlaps 'in'; transpose is out of place");
  detail::require_known_algorithm("transpose", options.algorithm, "transpose_algorithm");
  if (out.empty()) return;
  auto device = ctx.activate();
  tr::with_storage<T>(in.data(), out.data(), [&](const auto* from, auto* to) {
    tr::run(ctx, options.algorithm, from, to, rows, cols);
  });
}

}  // namespace sluice
