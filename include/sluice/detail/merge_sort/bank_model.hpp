// sluice/detail/merge_sort/bank_model.hpp: the shared-memory bank model of the pairwise merge sort's
// merges (Karsin §4.7 multiplicity, §7.1 β): runs block/serial_merge.hpp's code on the host over a tile,
// records which tile positions each thread reads at each step, and counts the wavefronts a warp's
// request takes. Host only: tests/host/merge_sort_bank_model_test.cpp compares the conflict-heavy inputs
// (data/merge_conflicts.hpp) with random ones through it.
//
// A request is one read step of the 32 threads of a warp (threads without a read at that step skip it).
// Key k occupies the four-byte words k·w … k·w + w − 1 (w = ⌈sizeof(K) / 4⌉) and word x lives in bank
// x mod 32. The request takes as many wavefronts as the most-loaded bank has distinct words (a word read
// by several threads is broadcast), and at least w; β = wavefronts / w, averaged over requests: 1 is
// conflict-free, 32 is every thread on one bank.
#pragma once

#include <sluice/block/serial_merge.hpp>
#include <sluice/core/merge_path.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <set>
#include <vector>

namespace sluice::detail::merge_sort {

inline constexpr int warp_threads = 32;
inline constexpr int banks = 32;

struct bank_statistics {
  std::uint64_t requests = 0;
  std::uint64_t wavefronts = 0;  ///< in units of conflict-free requests (divided by w)
  [[nodiscard]] double beta() const {
    return requests == 0 ? 0.0 : static_cast<double>(wavefronts) / static_cast<double>(requests);
  }
  void add(const bank_statistics& other) {
    requests += other.requests;
    wavefronts += other.wavefronts;
  }
};

/// Wavefronts (in conflict-free requests) of one warp request for the tile positions `reads`.
[[nodiscard]] inline std::uint64_t request_wavefronts(const std::vector<int>& reads, int words_per_key) {
  std::vector<std::set<long long>> words(banks);
  for (int position : reads)
    for (int w = 0; w < words_per_key; ++w) {
      const long long word = static_cast<long long>(position) * words_per_key + w;
      words[static_cast<std::size_t>(word % banks)].insert(word);
    }
  std::size_t most = 0;
  for (const auto& bank : words) most = std::max(most, bank.size());
  const auto per_request = static_cast<std::size_t>(words_per_key);
  return (std::max(most, per_request) + per_request - 1) / per_request;
}

/// A tile accessor that logs every position read (block::serial_merge's `Tile`).
template <class K>
struct recording_tile {
  const K* keys;
  std::vector<int>* log;
  K operator[](int position) const {
    log->push_back(position);
    return keys[position];
  }
};

/// One merge round over `tile` as block::merge_in_shared runs it: `threads` threads in groups of `coop`,
/// group(g) giving {start, a_count, b_count} of group g. Merges the tile in place (as the block does
/// between rounds) and returns the serial merges' read statistics.
template <int Items, class K, class Group, class Less>
bank_statistics merge_round(std::vector<K>& tile, int threads, int coop, Group group, Less less) {
  const int last = static_cast<int>(tile.size()) - 1;
  const int words = static_cast<int>((sizeof(K) + 3) / 4);
  std::vector<K> merged = tile;
  std::vector<std::vector<int>> reads(static_cast<std::size_t>(threads));
  for (int t = 0; t < threads; ++t) {
    const auto [start, a_count, b_count] = group(t / coop);
    const int total = a_count + b_count;
    const int rank = t % coop;
    const int diagonal = std::min(rank * Items, total), diagonal_end = std::min(diagonal + Items, total);
    if (diagonal == diagonal_end) continue;
    const K* a = tile.data() + start;
    const int split = sluice::detail::merge_path(a, a_count, a + a_count, b_count, diagonal, less);
    const int split_end = sluice::detail::merge_path(a, a_count, a + a_count, b_count, diagonal_end, less);
    const block::merge_cursor cursor{start + split, start + split_end, start + a_count + diagonal - split,
                                     start + a_count + diagonal_end - split_end};
    K keys[Items];
    int index[Items];
    block::serial_merge(recording_tile<K>{tile.data(), &reads[static_cast<std::size_t>(t)]}, last, cursor, keys,
                        index, less);
    for (int k = 0; k < diagonal_end - diagonal; ++k) merged[static_cast<std::size_t>(start + diagonal + k)] = keys[k];
  }
  tile = merged;
  bank_statistics statistics;
  for (int warp = 0; warp * warp_threads < threads; ++warp) {
    for (std::size_t step = 0;; ++step) {
      std::vector<int> request;
      for (int t = warp * warp_threads; t < std::min(threads, (warp + 1) * warp_threads); ++t)
        if (step < reads[static_cast<std::size_t>(t)].size()) request.push_back(reads[static_cast<std::size_t>(t)][step]);
      if (request.empty()) break;
      ++statistics.requests;
      statistics.wavefronts += request_wavefronts(request, words);
    }
  }
  return statistics;
}

/// The reads of block::sort_tile's merge rounds (2, 4, … threads a group) over a tile of up to
/// threads·Items keys; the tile is sorted afterwards. Each thread's run is sorted first, as the network does.
template <int Items, class K, class Less>
bank_statistics sort_tile_reads(std::vector<K>& tile, int threads, Less less) {
  const int count = static_cast<int>(tile.size());
  for (int first = 0; first < count; first += Items)
    std::stable_sort(tile.begin() + first, tile.begin() + std::min(first + Items, count), less);
  bank_statistics statistics;
  for (int coop = 2; coop <= threads; coop *= 2) {
    const int half = coop / 2 * Items;
    const auto group = [&](int g) {
      const int start = g * coop * Items;
      const int left = std::max(count - start, 0);
      const int a_count = std::min(left, half);
      const int b_count = std::min(left - a_count, half);
      return std::array<int, 3>{start, a_count, b_count};
    };
    statistics.add(merge_round<Items>(tile, threads, coop, group, less));
  }
  return statistics;
}

/// The reads of one global-round tile: pieces a (a_count keys) and b (the rest) of `tile`, merged by all
/// `threads` threads as one group.
template <int Items, class K, class Less>
bank_statistics merge_tile_reads(std::vector<K>& tile, int a_count, int threads, Less less) {
  const int b_count = static_cast<int>(tile.size()) - a_count;
  return merge_round<Items>(tile, threads, threads, [&](int) { return std::array<int, 3>{0, a_count, b_count}; },
                            less);
}

}  // namespace sluice::detail::merge_sort
