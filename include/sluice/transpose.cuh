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
#include <sluice/detail/transpose/naive.cuh>
#include <sluice/detail/transpose/skinny.cuh>
#include <sluice/detail/transpose/tiled.cuh>
#include <sluice/detail/transpose/tiles.cuh>
#include <sluice/detail/transpose/vector_tiled.cuh>

#include <cuda/std/span>

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

namespace sluice {

enum class transpose_algorithm {
  automatic,     ///< a tuned kernel chosen by shape, element size and alignment
  naive,         ///< DTU element-wise: coalesced reads, writes `rows` elements apart
  tiled,         ///< DTU shared-memory tile[32][32]: coalesced both ways, 32-way bank conflicts on 4-byte columns
  tiled_padded,  ///< DTU tile[32][33]: the padding removes the bank conflicts
};

struct transpose_options {
  transpose_algorithm algorithm = transpose_algorithm::automatic;
};

namespace detail::transpose {

/// The kernels `automatic` chooses from.
enum class tuned_kernel {
  copy,          ///< rows = 1 or cols = 1: the transpose has the input's memory layout
  skinny,        ///< the smaller side is at most skinny_max_bytes: chunks of whole rows (skinny.cuh)
  vector_tiled,  ///< 16-byte aligned rows on both sides: 16 KiB swizzled tiles, 16-byte accesses
  scalar_tiled,  ///< anything else: tile[32][33] with 32 × 8 threads, 4 elements per thread
};

/// Up to this many bytes on the smaller side (one 128-byte line) a square tile would be mostly idle
/// threads and short row segments, so `automatic` takes the skinny path. Measured crossover (`sluice
/// bench transpose`, case "f32 skinny crossover", 2^26 floats as (2^26/k) × k, H200, 2026-11-21): at
/// k = 32 floats (128 bytes) skinny 94.2% of copy, vector tile 78.0%; at k = 64 (256 bytes) a tie
/// (93.6%, 93.4%); at k = 128 tile 94.5%, skinny 88.7%.
inline constexpr std::size_t skinny_max_bytes = 128;

/// The choice of `automatic`, in one place.
template <class E>
[[nodiscard]] tuned_kernel choose(const E* in, const E* out, std::size_t rows, std::size_t cols) {
  if (rows == 1 || cols == 1) return tuned_kernel::copy;
  if (std::min(rows, cols) * sizeof(E) <= skinny_max_bytes) return tuned_kernel::skinny;
  if (vector_tile_fits(in, out, rows, cols)) return tuned_kernel::vector_tiled;
  return tuned_kernel::scalar_tiled;
}

template <class E>
void automatic(context& ctx, const E* in, E* out, std::size_t rows, std::size_t cols) {
  switch (choose(in, out, rows, cols)) {
    case tuned_kernel::copy:
      SLUICE_CUDA_CHECK(cudaMemcpyAsync(out, in, rows * cols * sizeof(E), cudaMemcpyDeviceToDevice, ctx.stream()));
      return;
    case tuned_kernel::skinny: skinny(ctx, in, out, rows, cols); return;
    case tuned_kernel::vector_tiled:
      if constexpr (is_native_word_v<E>) vector_tiled(ctx, in, out, rows, cols);  // choose() only picks it then
      return;
    case tuned_kernel::scalar_tiled: tiled<tuned_scalar_shape, 1>(ctx, in, out, rows, cols); return;
  }
}

template <class E>
void run(context& ctx, transpose_algorithm algorithm, const E* in, E* out, std::size_t rows, std::size_t cols) {
  switch (algorithm) {
    case transpose_algorithm::automatic: automatic(ctx, in, out, rows, cols); return;
    case transpose_algorithm::naive: naive(ctx, in, out, rows, cols); return;
    case transpose_algorithm::tiled: tiled<tiled_shape, 0>(ctx, in, out, rows, cols); return;
    case transpose_algorithm::tiled_padded: tiled<tiled_shape, 1>(ctx, in, out, rows, cols); return;
  }
}

/// Calls f(in, out) with the pointers as element storage: T's native word when both are aligned to
/// sizeof(T) (always, for a naturally aligned T), else a byte struct with T's own alignment.
template <class T, class F>
void with_storage(const T* in, T* out, F&& f) {
  using native = native_word<sizeof(T)>;
  using fallback = unaligned_element<sizeof(T), alignof(T)>;
  if constexpr (alignof(T) >= sizeof(T)) {
    f(reinterpret_cast<const native*>(in), reinterpret_cast<native*>(out));
  } else {
    if (is_aligned(in, sizeof(T)) && is_aligned(out, sizeof(T)))
      f(reinterpret_cast<const native*>(in), reinterpret_cast<native*>(out));
    else f(reinterpret_cast<const fallback*>(in), reinterpret_cast<fallback*>(out));
  }
}

[[nodiscard]] constexpr bool is_known(transpose_algorithm algorithm) {
  switch (algorithm) {
    case transpose_algorithm::automatic:
    case transpose_algorithm::naive:
    case transpose_algorithm::tiled:
    case transpose_algorithm::tiled_padded: return true;
  }
  return false;
}

/// size == rows · cols, without computing a product that could wrap around.
[[nodiscard]] constexpr bool holds_matrix(std::size_t size, std::size_t rows, std::size_t cols) {
  return rows == 0 || cols == 0 ? size == 0 : size % rows == 0 && size / rows == cols;
}

inline void require_matrix(std::size_t size, std::size_t rows, std::size_t cols, const char* parameter) {
  if (!holds_matrix(size, rows, cols))
    throw invalid_argument("transpose", parameter,
                           "has " + std::to_string(size) + " elements, but rows * cols = " + std::to_string(rows) +
                               " * " + std::to_string(cols));
}

}  // namespace detail::transpose

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
  if (!tr::is_known(options.algorithm))
    throw invalid_argument("transpose", "options.algorithm", "is not a transpose_algorithm");
  if (out.empty()) return;
  auto device = ctx.activate();
  tr::with_storage<T>(in.data(), out.data(), [&](const auto* from, auto* to) {
    tr::run(ctx, options.algorithm, from, to, rows, cols);
  });
}

}  // namespace sluice
