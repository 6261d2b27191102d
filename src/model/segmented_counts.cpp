// src/model/segmented_counts.cpp: the SPT counts of the segmented family's flat strategy as
// detail/segmented/ runs it (Palik §4.6): one single-pass scan over (head count, value) pairs, the
// decoupled look-back's tile of the value's shape (scan::tuning::single_pass_items), its status memset,
// and, for segments given by offsets, the head flags made first (a memset of n bytes, then a byte stored
// at every offset: a scattered store) and, for reductions by offsets, init written to the empty
// segments. A tile loads its values and its heads (flag bytes or keys) as coalesced block loads and
// makes the pairs in registers; scans store every value, reductions one value (and, by key, the run's
// key) a segment, at the segment's place. The kernels are not in the register table: full occupancy is
// assumed, as for the scan.
// Lower order, left out: the look-back's status traffic, the neighbour exchange through shared memory,
// the count written by the last tile.
//
// The merge_path reduction by offsets (detail/segmented/merge_path.cuh), the automatic choice: the
// merge of the S segment ends with the n elements cut into tiles of threads × items merged items
// (tuning.hpp's merge_path_tile); a partition kernel (a thread a tile boundary, a binary search over the
// offsets), the tile kernel (values and ends staged in shared memory, a thread's split by a search
// there, its walk: a shared read and a compare an item, ⊕ an element, a store a segment it closes; the
// threads' carries by a block scan), the Brent–Kung scan of the tiles' carries (detail/scan/, levels of
// 2 × its threads) and the fix of each tile's first segment. Its kernels are not in the register table
// either: full occupancy assumed for the tile kernel, the small kernels charged at the threads they launch.
#include "model/counts_support.hpp"
#include "model/families.hpp"

#include <sluice/detail/scan/tuning.hpp>
#include <sluice/detail/segmented/tuning.hpp>

#include <algorithm>
#include <string>
#include <utility>

namespace sluice::model {

namespace {

using counts::bytes_of;
using counts::words;

/// The words `stores` scattered byte stores into n bytes move: a sector (8 words) each, or the whole
/// array where they are closer than a sector apart.
double scattered_byte_words(double stores, double n) { return std::min(stores * 8, std::max(stores / 4, n / 4)); }

/// merge_path's tile shape for values of `bytes` (threads, items).
std::pair<int, int> merge_path_shape(std::size_t bytes) {
  const auto shape = [](auto value) {
    using tile = detail::segmented::tuning::merge_path_tile<decltype(value)>;
    return std::pair<int, int>{tile::threads, tile::items};
  };
  return bytes <= 4 ? shape(bytes_of<4>{}) : bytes <= 8 ? shape(bytes_of<8>{}) : shape(bytes_of<16>{});
}

/// A small kernel of `threads` threads: resident at once up to the device's full occupancy.
double oversubscription_of(const device_profile& p, double threads) {
  const double full = static_cast<double>(p.limits.max_threads_per_sm) / p.limits.cores_per_sm;
  return std::clamp(threads / p.limits.cores(), 1.0 / p.limits.cores_per_sm, full);
}

const char* heads_name(segment_heads heads) {
  switch (heads) {
    case segment_heads::flags: return "flags";
    case segment_heads::offsets: return "offsets";
    case segment_heads::keys: return "keys";
  }
  return "?";
}

}  // namespace

algorithm_model flat_segmented(const device_profile& p, const segmented_problem& q, const register_table&) {
  if (q.n == 0) throw invalid_argument("model segmented", "--n", "must be at least 1");
  if (q.segments == 0 || q.segments > q.n)
    throw invalid_argument("model segmented", "--m", "must be 1 to n segments");
  if (q.value_bytes == 0 || q.value_bytes > 16) throw invalid_argument("model segmented", "--bytes", "must be 1 to 16");
  if (q.heads == segment_heads::keys && (q.key_bytes == 0 || q.key_bytes > 16))
    throw invalid_argument("model segmented", "--key-bytes", "must be 1 to 16");
  const double n = static_cast<double>(q.n);
  const double segments = static_cast<double>(q.segments);
  const double vw = words(q.value_bytes);
  const double kw = q.heads == segment_heads::keys ? words(q.key_bytes) : 0;
  const int items = detail::scan::tuning::single_pass_items(static_cast<int>(q.value_bytes));
  const double full = static_cast<double>(p.limits.max_threads_per_sm) / p.limits.cores_per_sm;

  algorithm_model m;
  m.name = std::string("segmented ") + (q.reduce ? "reduce" : "scan") + " [flat] by " + heads_name(q.heads) +
           ": n = " + std::to_string(q.n) + ", " + std::to_string(q.segments) + " segments, " +
           std::to_string(q.value_bytes) + "-byte values (full occupancy assumed)";

  if (q.heads == segment_heads::offsets) {
    if (q.reduce) {
      // fill_empty_segments_kernel: offsets[s] and offsets[s + 1] a segment (the second from cache).
      kernel_model fill;
      fill.name = "fill empty segments";
      fill.oversubscription = full;
      fill.add(op::g, (segments + 1) * 2, 2);
      m.kernels.push_back(fill);
    }
    kernel_model clear;
    clear.name = "memset (head flags)";
    clear.oversubscription = full;
    clear.add(op::g, n / 4, 4);
    m.kernels.push_back(clear);
    // mark_offsets_kernel: the offsets read in order, a byte stored at each: a sector where segments are
    // 32 bytes of flags apart or more.
    kernel_model mark;
    mark.name = "mark offsets";
    mark.oversubscription = full;
    mark.add(op::g, (segments + 1) * 2, 2);
    mark.add(op::g, scattered_byte_words(segments + 1, n), 1);
    m.kernels.push_back(mark);
  }

  kernel_model scan;
  scan.name = "flat scan (memset, look-back)";
  scan.launches = 2;
  scan.oversubscription = full;
  scan.add(op::g, n * vw, items * vw);  // the values
  if (q.heads == segment_heads::keys) scan.add(op::g, n * kw, items * kw);
  else scan.add(op::g, n / 4, items / 4.0);  // a flag byte an element
  if (q.reduce) {
    // One value (and key) a segment, stored at its segment's place: consecutive segments' outputs are
    // neighbours, so a tile's stores share sectors; by offsets, the segment found from the offsets (one
    // probe, in order).
    scan.add(op::g, segments * vw, 1);
    if (q.heads == segment_heads::keys) scan.add(op::g, segments * kw, 1);
    if (q.heads == segment_heads::offsets) scan.add(op::g, segments * 2, 1);
  } else {
    scan.add(op::g, n * vw, items * vw);
  }
  // An element: its head (a flag's test or two keys' compare), the pair made, the scan of (count, value)
  // pairs in registers and across the warp (the count's add, the select, the operator), the projection.
  const double pair_words = 1 + vw;
  scan.add(op::r, n * (2 + kw + 3 * pair_words), items);
  m.kernels.push_back(scan);
  return m;
}

algorithm_model merge_path_segmented_reduce(const device_profile& p, const segmented_problem& q,
                                            const register_table&) {
  if (q.n == 0) throw invalid_argument("model segmented", "--n", "must be at least 1");
  if (q.segments == 0) throw invalid_argument("model segmented", "--m", "must be at least 1 segment");
  if (q.value_bytes == 0 || q.value_bytes > 16) throw invalid_argument("model segmented", "--bytes", "must be 1 to 16");
  if (q.heads != segment_heads::offsets || !q.reduce)
    throw invalid_argument("model segmented", "--heads", "merge_path reduces by offsets only");
  const auto [threads, items] = merge_path_shape(q.value_bytes);
  const double n = static_cast<double>(q.n);
  const double segments = static_cast<double>(q.segments);
  const double vw = words(q.value_bytes);
  const double tile = static_cast<double>(threads) * items;
  const double tiles = std::ceil((n + segments) / tile);
  const double carry_words = words(2 + q.value_bytes);  // two flags and the value (8 bytes for u32)
  const double fix_words = 4;                            // a segment index and a flag: 16 bytes
  const double full = static_cast<double>(p.limits.max_threads_per_sm) / p.limits.cores_per_sm;

  algorithm_model m;
  m.name = "segmented reduce [merge_path] by offsets: n = " + std::to_string(q.n) + ", " + std::to_string(q.segments) +
           " segments, " + std::to_string(q.value_bytes) + "-byte values, tile " + std::to_string(threads) + " × " +
           std::to_string(items) + " (full occupancy assumed)";

  // partition_kernel: a thread a tile boundary, ⌈log2(S + 1)⌉ dependent reads of an offset each (the L2
  // holds its share of the offsets), the split stored.
  kernel_model partition;
  partition.name = "partition";
  partition.oversubscription = oversubscription_of(p, tiles + 1);
  counts::add_random_reads(partition, p, (tiles + 1) * counts::ceil_log2(segments + 1), 8,
                           counts::l2_share(p, segments * 8), 1);
  partition.add(op::g, (tiles + 1) * 2);
  partition.add(op::r, (tiles + 1) * counts::ceil_log2(segments + 1) * 6);
  m.kernels.push_back(partition);

  // reduce_tiles_kernel: the values and the ends (offsets, 8 bytes each) staged, the walk, the carries.
  kernel_model reduce;
  reduce.name = "reduce tiles";
  reduce.oversubscription = full;
  reduce.add(op::g, n * vw, items * vw);
  reduce.add(op::g, segments * 2, 1);
  reduce.add(op::g, segments * vw, 1);  // a segment's sum, stored at its place
  reduce.add(op::g, tiles * (4 + carry_words + fix_words));
  reduce.add_shared(n * vw + segments, 1, items);  // staged
  reduce.add_shared(tiles * threads * counts::ceil_log2(tile / items) + n + segments, 1, 1);  // split, walk
  reduce.add(op::r, (n + segments) * 4);  // an item: the compare, the shared read's address, ⊕ or the close
  reduce.add(op::y, tiles * threads * 3);  // the staging's barrier and the block scan's
  m.kernels.push_back(reduce);
  if (tiles == 1) return m;

  // brent_kung_inclusive over the carries: per level of T carries, the tiles kernel (T read and written)
  // and, below the top, the prefixes added (T read and written); levels shrink by 2 × its threads.
  const double bk_tile = 2.0 * detail::scan::tuning::brent_kung_threads;
  kernel_model carries;
  carries.name = "scan (tile carries)";
  carries.launches = 0;
  double level_carries = tiles;
  for (;;) {
    carries.launches += 1;
    carries.add(op::g, 2 * level_carries * carry_words, 1);
    if (level_carries <= bk_tile) break;
    carries.launches += 1;
    carries.add(op::g, 2 * level_carries * carry_words, 1);
    level_carries = std::ceil(level_carries / bk_tile);
  }
  carries.oversubscription = oversubscription_of(p, tiles);
  m.kernels.push_back(carries);

  // fix_kernel: a thread a tile, its scanned carry-in and fix read, its first segment's sum updated.
  kernel_model fix;
  fix.name = "fix";
  fix.oversubscription = oversubscription_of(p, tiles);
  fix.add(op::g, tiles * (carry_words + fix_words), 1);
  fix.add(op::g, tiles * 8 * 2, 1);  // the first segment's sum read and written: a sector each
  m.kernels.push_back(fix);
  return m;
}

}  // namespace sluice::model
