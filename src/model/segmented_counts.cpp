// src/model/segmented_counts.cpp: the SPT counts of the segmented family's flat strategy as
// detail/segmented/ runs it (Palik §4.6): one single-pass scan over (head count, value) pairs, the
// decoupled look-back's tile of the value's shape (scan::tuning::single_pass_items), its status memset,
// and, for segments given by offsets, the head flags made first (a memset of n bytes, then a byte stored
// at every offset: a scattered store) and, for reductions by offsets, init written to the empty
// segments. A tile loads its values and its heads (flag bytes or keys) as coalesced block loads and
// makes the pairs in registers; scans store every value, reductions one value (and, by key, the run's
// key) a segment, at the segment's place. The kernels are not in the register table: full occupancy is assumed, as for the scan.
// Lower order, left out: the look-back's status traffic, the neighbour exchange through shared memory,
// the count written by the last tile.
#include "model/counts_support.hpp"
#include "model/families.hpp"

#include <sluice/detail/scan/tuning.hpp>

#include <algorithm>
#include <string>

namespace sluice::model {

namespace {

using counts::words;

/// The words `stores` scattered byte stores into n bytes move: a sector (8 words) each, or the whole
/// array where they are closer than a sector apart.
double scattered_byte_words(double stores, double n) { return std::min(stores * 8, std::max(stores / 4, n / 4)); }

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

}  // namespace sluice::model
