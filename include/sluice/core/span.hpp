// sluice/core/span.hpp: span helpers shared by the public entry points.
#pragma once

#include <cuda/std/span>

#include <cstddef>
#include <type_traits>

namespace sluice::detail {

/// The read-only view of a span of T or const T (entry points accept both for their inputs).
template <class In, std::size_t Extent>
cuda::std::span<const std::remove_const_t<In>> as_const_span(cuda::std::span<In, Extent> s) {
  return {s.data(), s.size()};
}

}  // namespace sluice::detail
