// sluice/core/span.hpp: span helpers shared by the public entry points.
#pragma once

#include <cuda/std/span>

#include <cstddef>
#include <type_traits>

namespace sluice::detail {

/// The read-only view of a span of T or const T (entry points accept both for their inputs). Constructed
/// by parentheses: braces would pick span's initializer-list constructor for spans of bool.
template <class In, std::size_t Extent>
cuda::std::span<const std::remove_const_t<In>> as_const_span(cuda::std::span<In, Extent> s) {
  return cuda::std::span<const std::remove_const_t<In>>(s.data(), s.size());
}

/// Whether two spans share a byte (an empty span shares none): the entry points' check that an output
/// does not overlap an input.
template <class A, std::size_t EA, class B, std::size_t EB>
[[nodiscard]] bool overlaps(cuda::std::span<A, EA> a, cuda::std::span<B, EB> b) {
  const auto* x = reinterpret_cast<const unsigned char*>(a.data());
  const auto* y = reinterpret_cast<const unsigned char*>(b.data());
  return a.size_bytes() != 0 && b.size_bytes() != 0 && x < y + b.size_bytes() && y < x + a.size_bytes();
}

}  // namespace sluice::detail
