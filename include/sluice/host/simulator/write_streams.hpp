// sluice/host/simulator/write_streams.hpp: the store side of the memory model: how many write streams
// the core keeps going at once, and what a store to memory costs past them.
//
// Eilers' partial sort (§2.4; the distribution of Alg. 2.6) writes the input into 2^bits groups of two
// fresh temporaries: 2^(bits+1) write streams. Stores retire through the store buffer and take no miss
// slot (memory_model.hpp), but only for a few streams (docs/simulator.md, "Stream-limited stores"):
// something (the prefetchers, the store path) follows a limited number of streams; a store that starts
// a line of a stream it does not follow waits for memory.
//
// write_stream_tracker keeps K streams, the least recently used dropped first; every store refreshes
// its stream. Under S streams stored to in random order (the distribution's order, for uniform labels)
// an LRU tracker of K then follows K/S of the new lines: the premise the cache sizes rest on
// (capacity_from_random_updates, cache.hpp), so the cost per element is e(S) = e∞·(1 − K/S). `sluice simulate` measures e(S) over a sweep of stream counts (the
// store sweep); write_streams_kept and store_miss_ns turn it into K and the core time a store miss past
// them costs.
// Cost: O(1) per store the first level does not hold; memory: K entries.
#pragma once

#include <sluice/host/simulator/cache.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <list>
#include <span>
#include <unordered_map>

namespace sluice::host::simulator {

/// The write streams followed at once: each known by its last line, least recently used dropped.
class write_stream_tracker {
 public:
  explicit write_stream_tracker(std::size_t streams) : capacity_(streams) {}

  /// A store to `line`: true when it continues a followed stream (its line is the stream's last line or
  /// the next one); otherwise it starts a stream.
  bool follows(std::uint64_t line) {
    if (capacity_ == 0) return false;
    auto at = last_lines_.find(line);
    if (at == last_lines_.end() && line > 0) at = last_lines_.find(line - 1);
    const bool followed = at != last_lines_.end();
    if (followed) {
      recency_.erase(at->second);
      last_lines_.erase(at);
    } else if (last_lines_.size() == capacity_) {
      last_lines_.erase(recency_.back());
      recency_.pop_back();
    }
    recency_.push_front(line);
    last_lines_[line] = recency_.begin();
    return followed;
  }

 private:
  std::size_t capacity_;
  std::list<std::uint64_t> recency_;  ///< last lines, most recently used first
  std::unordered_map<std::uint64_t, std::list<std::uint64_t>::iterator> last_lines_;
};

/// One point of the store sweep: what stores into memory cost per element beyond the same stores kept
/// in the caches, with `streams` write streams.
struct store_point {
  std::size_t streams = 0;
  double extra_ns = 0;
};

/// The write streams followed at once (K), from a store sweep in ascending stream counts: each point
/// against the widest by the LRU premise (capacity_from_random_updates over streams instead of bytes:
/// K = (b − a)/(b/S − a/S_widest), a and b the point's and the widest's cost). Only points costing
/// less than half the widest count: past that 1 − K/S nears 1 and the estimate is noise (it moves by
/// S·δa/b or more). The largest of
/// them counts, as for the cache sizes: a neighbour only adds time, so each errs low. A point that costs
/// nothing says K ≥ its streams; 0 when even the narrowest costs half the widest; every stream of the
/// sweep when the widest costs nothing.
[[nodiscard]] inline std::size_t write_streams_kept(std::span<const store_point> sweep) {
  if (sweep.size() < 2) return 0;
  const store_point& widest = sweep.back();
  if (widest.extra_ns <= 0) return widest.streams;
  std::size_t kept = 0;
  for (const store_point& p : sweep.first(sweep.size() - 1))
    if (p.extra_ns < widest.extra_ns / 2)
      kept = std::max(kept, capacity_from_random_updates(p.streams, p.extra_ns, 0.0, widest.extra_ns, widest.streams));
  return kept;
}

/// The core time a store to memory costs when it starts a line of a stream past the `kept` ones: the
/// widest point's cost per element over the new lines per element that find no followed stream
/// there, (1 − kept/S_widest) of `lines_per_element`. 0 when the widest costs nothing or is followed.
[[nodiscard]] inline double store_miss_ns(std::span<const store_point> sweep, std::size_t kept, double lines_per_element) {
  if (sweep.empty() || lines_per_element <= 0) return 0;
  const store_point& widest = sweep.back();
  if (widest.extra_ns <= 0 || kept >= widest.streams) return 0;
  const double untracked = 1.0 - static_cast<double>(kept) / static_cast<double>(widest.streams);
  return widest.extra_ns / (lines_per_element * untracked);
}

}  // namespace sluice::host::simulator
