// sluice/detail/merge_sort/segmented_plan.hpp: the index arithmetic of segmented_sort (segmented.cuh):
// segment bounds, the size tiers, the tile tier's slots and rounds, and the host's bounds on them.
// Plain C++, host and device: tests/host/merge_sort_segmented_plan_test.cpp checks every function.
//
// Segments go to three tiers by size (as cub::DeviceSegmentedSort buckets them):
//   lanes  ≤ lanes_limit keys: a few lanes of a warp sort the segment (block::lane_group)
//   warp   ≤ warp_limit keys: a whole warp
//   tiles  larger: the pairwise merge sort's tiles, one block each, then merge rounds within each
//          segment; a segment of t tiles needs ⌈log2 t⌉ rounds (rounds.hpp)
// The tile tier's tiles get consecutive *slots* in segment order (an inclusive scan of the segments' tile
// counts); slot t belongs to the first segment whose scanned count exceeds t.
#pragma once

#include <sluice/core/config.hpp>
#include <sluice/detail/merge_sort/rounds.hpp>

#include <cstddef>

namespace sluice::detail::merge_sort::segmented_sort {

/// The tiers, numbered as the partition classes them (tiles first: its list starts the partition's
/// output, so the scan of its tile counts can run from position 0).
enum tier : int { tiles_tier = 0, warp_tier = 1, lanes_tier = 2 };

/// The largest segment each group tier takes.
struct tier_limits {
  index_t lanes;
  index_t warp;
};

/// A segment's elements [begin, begin + size), with begin = min(first, n) and the end min(max(last,
/// begin), n): offsets that are not checked (options.validate_offsets off) can then reorder or overlap
/// segments but never reach outside [0, n).
struct segment_bounds {
  index_t begin;
  index_t size;
};

[[nodiscard]] SLUICE_HOST_DEVICE constexpr segment_bounds clamped_segment(std::size_t first, std::size_t last,
                                                                          std::size_t n) {
  const std::size_t begin = first < n ? first : n;
  const std::size_t end = last < begin ? begin : last < n ? last : n;
  return {static_cast<index_t>(begin), static_cast<index_t>(end - begin)};
}

/// The part of [0, n) outside [offsets.front(), offsets.back()), clamped like a segment: positions
/// [0, front) and [back, n), copied through unchanged.
struct outside_span {
  index_t front;
  index_t back;
  index_t n;

  [[nodiscard]] SLUICE_HOST_DEVICE constexpr index_t size() const { return front + (n - back); }
  /// The i-th position outside, 0 ≤ i < size().
  [[nodiscard]] SLUICE_HOST_DEVICE constexpr index_t position(index_t i) const {
    return i < front ? i : back + (i - front);
  }
};

[[nodiscard]] SLUICE_HOST_DEVICE constexpr outside_span outside_of(std::size_t first, std::size_t last, std::size_t n) {
  const segment_bounds inside = clamped_segment(first, last, n);
  return {inside.begin, inside.begin + inside.size, static_cast<index_t>(n)};
}

[[nodiscard]] SLUICE_HOST_DEVICE constexpr tier tier_of(index_t size, tier_limits limits) {
  return size <= limits.lanes ? lanes_tier : size <= limits.warp ? warp_tier : tiles_tier;
}

/// Tiles of `tile` keys that hold `size` keys.
[[nodiscard]] SLUICE_HOST_DEVICE constexpr index_t tiles_of(index_t size, index_t tile) {
  return (size + tile - 1) / tile;
}

/// What the host knows of the tile tier before any kernel runs: every tile-tier segment has more than
/// limits.warp keys, so there are at most min(segments, n / (limits.warp + 1)) of them, and they have at
/// most ⌈n / tile⌉ + that many tiles (each segment's last tile may be partial). Slot arrays take these
/// sizes; with overlapping (unchecked) offsets anything past them is left unsorted, never overrun.
struct tile_tier_capacity {
  index_t segments;
  index_t slots;
};

[[nodiscard]] SLUICE_HOST_DEVICE constexpr tile_tier_capacity capacity_of(std::size_t n, std::size_t segments,
                                                                          tier_limits limits, index_t tile) {
  const auto by_size = static_cast<index_t>(n) / (limits.warp + 1);
  const index_t most = static_cast<index_t>(segments) < by_size ? static_cast<index_t>(segments) : by_size;
  return {most, most == 0 ? 0 : tiles_of(static_cast<index_t>(n), tile) + most};
}

/// The segment owning slot t: the first j in [0, count) with tile_end[j] > t (tile_end: the inclusive
/// scan of the segments' tile counts); count when t is past every slot. O(log count) reads.
template <class Ends>
[[nodiscard]] SLUICE_HOST_DEVICE constexpr index_t owner_of(const Ends& tile_end, index_t count, index_t t) {
  index_t low = 0;
  index_t high = count;
  while (low < high) {
    const index_t middle = low + (high - low) / 2;
    if (static_cast<index_t>(tile_end[middle]) > t)
      high = middle;
    else
      low = middle + 1;
  }
  return low;
}

/// The slots in use: the tiles of the longest prefix of segments whose tiles all fit the capacity. With
/// checked offsets that is every segment (capacity_of bounds them); overlapping unchecked ones may claim
/// more, and a segment cut short would send its merges to splits past the array, so it is left out.
template <class Ends>
[[nodiscard]] SLUICE_HOST_DEVICE constexpr index_t slots_in_use(const Ends& tile_end, index_t count, index_t capacity) {
  const index_t whole = owner_of(tile_end, count, capacity);  // the segments that end at or before it
  return whole == 0 ? 0 : static_cast<index_t>(tile_end[whole - 1]);
}

/// A tile-tier tile as the block sort and the rounds see it: its segment and its place there.
struct slot {
  index_t begin;  ///< the segment's first element
  index_t size;   ///< the segment's keys
  index_t local;  ///< the tile's first key within the segment (a multiple of the tile)
};

/// The keys of the slot's tile: the tile, or what is left of its segment.
[[nodiscard]] SLUICE_HOST_DEVICE constexpr index_t tile_keys(const slot& s, index_t tile) {
  return s.size - s.local < tile ? s.size - s.local : tile;
}

/// Merge rounds the slot's segment needs.
[[nodiscard]] SLUICE_HOST_DEVICE constexpr int segment_rounds(const slot& s, index_t tile) {
  return rounds_for(tiles_of(s.size, tile));
}

}  // namespace sluice::detail::merge_sort::segmented_sort
