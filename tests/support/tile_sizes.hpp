// tests/support/tile_sizes.hpp: input sizes just around the tiles of the single-pass scan, for the
// operations built on it (scan, segmented, select, recurrences), whose tile depends on the element size.
#pragma once

#include <sluice/detail/scan/tile_scan.cuh>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace sluice::testing {

/// tile − 1, tile, tile + 1 and a few tiles plus a remainder, for scanned elements of 4, 8 and 16 bytes.
inline std::vector<std::size_t> single_pass_tile_sizes() {
  struct sixteen_bytes {
    std::uint64_t a, b;
  };
  std::vector<std::size_t> sizes;
  for (const std::size_t tile : {std::size_t{detail::scan::single_pass_shape<std::uint32_t>::tile},
                                 std::size_t{detail::scan::single_pass_shape<std::uint64_t>::tile},
                                 std::size_t{detail::scan::single_pass_shape<sixteen_bytes>::tile}})
    for (const std::size_t n : {tile - 1, tile, tile + 1, 3 * tile + 5}) sizes.push_back(n);
  return sizes;
}

/// `base` followed by the single-pass tile sizes.
template <class Range>
std::vector<std::size_t> with_single_pass_tile_sizes(const Range& base) {
  std::vector<std::size_t> sizes(std::begin(base), std::end(base));
  for (const std::size_t n : single_pass_tile_sizes()) sizes.push_back(n);
  return sizes;
}

}  // namespace sluice::testing
