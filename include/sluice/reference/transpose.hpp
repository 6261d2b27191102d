// sluice/reference/transpose.hpp: sequential oracle for the out-of-place matrix transpose (DTU HPC report,
// seed 001: naive, tiled and padded-tile transposes; non-square shapes and shapes that are not a multiple of
// the tile are the cases to test).
//
// `in` is a rows × cols matrix in row-major order; the result is the cols × rows matrix in row-major
// order: out[c * rows + r] = in[r * cols + c]. Any copyable element type works (the GPU versions are
// tested with 1-, 2-, 4-, 8- and 16-byte elements). rows = 0 or cols = 0 is the empty matrix, which needs
// an empty `in`. in.size() != rows · cols (computed without overflow) throws invalid_argument("in").
#pragma once

#include <sluice/core/error.hpp>

#include <cstddef>
#include <span>
#include <vector>

namespace sluice::reference {

template <class T>
[[nodiscard]] std::vector<T> transpose(std::span<const T> in, std::size_t rows, std::size_t cols) {
  // Divide rather than multiply so that a huge rows · cols cannot wrap around to in.size().
  const bool shape_fits = rows == 0 || cols == 0 ? in.empty() : in.size() % rows == 0 && in.size() / rows == cols;
  if (!shape_fits) throw invalid_argument("reference::transpose", "in", "must have rows * cols elements");
  std::vector<T> out;
  out.reserve(in.size());
  for (std::size_t c = 0; c < cols; ++c)  // output row c is input column c
    for (std::size_t r = 0; r < rows; ++r) out.push_back(in[r * cols + c]);
  return out;
}

}  // namespace sluice::reference
