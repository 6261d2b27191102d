// src/model/counts_support.hpp: arithmetic shared by the families' counts (families.hpp): a stand-in
// element of a size, words of a type, ceil(log2), the L2 hit fraction of a footprint, and the charge of
// random reads. Operations are counted in the profile's units (4-byte words for g, l2 and s), so an ILP
// is the number of a thread's words in flight together: a key of kw words read by one instruction, or E
// independent loads, multiply it.
#pragma once

#include "model/spt.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

namespace sluice::model::counts {

/// A stand-in element of `Bytes` bytes, to read a tuning table's shape for an element size known only at
/// run time (the tables are templates over the element type).
template <std::size_t Bytes>
struct bytes_of {
  unsigned char b[Bytes];
};

/// 4-byte words of `bytes` (0 for 0).
[[nodiscard]] inline double words(std::size_t bytes) { return std::ceil(static_cast<double>(bytes) / 4.0); }

/// ⌈log2 x⌉ for x ≥ 1 (0 for x ≤ 1).
[[nodiscard]] inline int ceil_log2(double x) {
  int r = 0;
  while (std::ldexp(1.0, r) < x) ++r;
  return r;
}

/// The share of random reads into `footprint_bytes` of data that the L2 serves: all of them when the data
/// fits, else the share of the data it can hold (no locality assumed beyond that).
[[nodiscard]] inline double l2_share(const device_profile& p, double footprint_bytes) {
  if (footprint_bytes <= 0) return 1;
  return std::min(1.0, static_cast<double>(p.l2_bytes) / footprint_bytes);
}

/// `reads` random reads of `bytes` each (a key, a node), `ilp` of them in flight a thread: the L2's share
/// costs l2 words, the rest g words, each read the larger of the profile's random-read cost and its own
/// 32-byte sectors. The words of one read arrive together, so its latency is paid once: the seed's
/// "ILP rises by a factor w" for an uncoalesced access counted as w elements (§6.1.1).
inline void add_random_reads(kernel_model& k, const device_profile& p, double reads, std::size_t bytes, double l2_hit,
                             double ilp) {
  const double sectors = std::ceil(static_cast<double>(bytes) / 32.0) * 8;
  const double l2_words = std::max(p.l2_random_access_words, sectors);
  const double dram_words = std::max(p.random_access_words, sectors);
  if (reads * l2_hit > 0) k.add(op::l2, reads * l2_hit * l2_words, ilp * l2_words);
  if (reads * (1 - l2_hit) > 0) k.add(op::g, reads * (1 - l2_hit) * dram_words, ilp * dram_words);
}

}  // namespace sluice::model::counts
