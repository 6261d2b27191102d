// sluice/detail/transpose/dispatch.cuh: the transpose family's dispatch: the automatic choice among the
// tuned kernels (shape, element size, alignment) and the seeds' strategies by name.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/memory.hpp>
#include <sluice/core/span.hpp>
#include <sluice/detail/transpose/naive.cuh>
#include <sluice/detail/transpose/skinny.cuh>
#include <sluice/detail/transpose/tiled.cuh>
#include <sluice/detail/transpose/tiles.cuh>
#include <sluice/detail/transpose/tuning.hpp>
#include <sluice/detail/transpose/vector_tiled.cuh>
#include <sluice/options/transpose.hpp>

#include <cuda/std/span>

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

namespace sluice::detail::transpose {

/// The kernels `automatic` chooses from.
enum class tuned_kernel {
  copy,          ///< rows = 1 or cols = 1: the transpose has the input's memory layout
  skinny,        ///< the smaller side is at most tuning::skinny_max_bytes: chunks of whole rows (skinny.cuh)
  vector_tiled,  ///< 16-byte aligned rows on both sides: 16 KiB swizzled tiles, 16-byte accesses
  scalar_tiled,  ///< anything else: tile[32][33] with 32 × 8 threads, 4 elements per thread
};

/// The choice of `automatic`, in one place (the skinny threshold: tuning.hpp).
template <class E>
[[nodiscard]] tuned_kernel choose(const E* in, const E* out, std::size_t rows, std::size_t cols) {
  if (rows == 1 || cols == 1) return tuned_kernel::copy;
  if (std::min(rows, cols) * sizeof(E) <= tuning::skinny_max_bytes) return tuned_kernel::skinny;
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

}  // namespace sluice::detail::transpose
