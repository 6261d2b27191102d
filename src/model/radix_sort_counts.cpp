// src/model/radix_sort_counts.cpp: the SPT counts of the onesweep radix sort as
// detail/radix_sort/dispatch.cuh runs it (sort_by_onesweep, sort_packed_by_onesweep) through
// detail/onesweep/: two memsets, the histogram kernel (one read of the keys counting every pass's digit
// in shared memory) and the digit-starts kernel, then per pass the status memset and the pass kernel
// (take a tile, load it warp-striped, rank by cub::BlockRadixRankMatchEarlyCounts, publish the digit
// counts, look back, stage in digit order in shared memory, write out). Shapes from the engine's own
// tuning (onesweep_shape, onesweep_histogram_shape) instantiated for host stand-ins of the key types.
// Lower order, left out: partial tiles, the next portion's starts (n ≥ 2^30 only), the rank's block scan
// of the 256 digit counts.
#include "model/counts_support.hpp"
#include "model/families.hpp"

#include <sluice/detail/merge_sort/bank_model.hpp>
#include <sluice/detail/onesweep/tuning.hpp>
#include <sluice/detail/radix_sort/tuning.hpp>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace sluice::model {

namespace {

namespace os = sluice::detail::onesweep;
using counts::bytes_of;
using counts::words;
using sluice::detail::no_values;

/// histogram.cuh's pass_digits<K> as onesweep_histogram_shape reads it: a pass a key byte, 256 digits.
template <class K>
struct counted_digits {
  static constexpr int max_passes = static_cast<int>(sizeof(K));
  static constexpr int bins = os::onesweep_digits;
};

/// What a pass kernel and the histogram take from the engine's tuning for one element layout.
struct onesweep_layout {
  int threads = 0, items = 0, tile = 0, digits = 0, offset_bytes = 4, lookback_ahead = 1;
  int histogram_threads = 0, histogram_items = 0, histogram_copies = 0;
};

template <class K, class V, class CountedKey>
onesweep_layout layout_of() {
  using shape = os::onesweep_shape<K, V, std::uint32_t>;
  using histogram = os::onesweep_histogram_shape<CountedKey, counted_digits<CountedKey>>;
  return {shape::threads,    shape::items,    shape::tile,     shape::digits,  static_cast<int>(sizeof(std::uint32_t)),
          shape::lookback_ahead, histogram::threads, histogram::items, histogram::copies};
}

/// The pass kernel's element: u32 pairs of packs_pairs' plans move as one 8-byte packed word
/// (packed_pairs.cuh's packed_word).
onesweep_layout layout_for(std::size_t key_bytes, std::size_t value_bytes, bool packed) {
  if (packed) return layout_of<bytes_of<8>, no_values, bytes_of<4>>();
  switch (key_bytes * 100 + value_bytes) {
    case 400: return layout_of<bytes_of<4>, no_values, bytes_of<4>>();
    case 800: return layout_of<bytes_of<8>, no_values, bytes_of<8>>();
    case 404: return layout_of<bytes_of<4>, bytes_of<4>, bytes_of<4>>();
    case 804: return layout_of<bytes_of<8>, bytes_of<4>, bytes_of<8>>();
    case 808: return layout_of<bytes_of<8>, bytes_of<8>, bytes_of<8>>();
    default:
      throw invalid_argument("model radix_sort", "--key-bytes",
                             "is " + std::to_string(key_bytes) + " with " + std::to_string(value_bytes) +
                                 "-byte values: the model knows u32 and u64 keys, alone or with 4- or 8-byte values");
  }
}

}  // namespace

double onesweep_staging_beta(int element_words) {
  // A warp stores item j of its 32 lanes at their ranks: positions spread over the tile's digit runs, so
  // the banks are those of random positions (words of one element in consecutive banks).
  std::mt19937_64 random(20261128);
  std::uniform_int_distribution<int> pick(0, 1 << 16);
  double wavefronts = 0;
  constexpr int requests = 512;
  for (int r = 0; r < requests; ++r) {
    std::vector<int> reads;
    for (int lane = 0; lane < 32; ++lane) reads.push_back(pick(random));
    wavefronts += static_cast<double>(sluice::detail::merge_sort::request_wavefronts(reads, element_words));
  }
  return wavefronts / requests / element_words;
}

onesweep_plan onesweep_plan_for(const radix_sort_problem& q) {
  if (q.n == 0) throw invalid_argument("model radix_sort", "--n", "must be at least 1");
  const int key_bits = static_cast<int>(q.key_bytes) * 8;
  const os::pass_plan plan = os::plan_passes(0, key_bits, os::max_pass_bits);
  onesweep_plan p;
  p.passes = plan.passes;
  p.packed = q.key_bytes == 4 && q.value_bytes == 4 && plan.passes >= sluice::detail::radix_sort::tuning::packed_pairs_min_passes;
  const onesweep_layout l = layout_for(q.key_bytes, q.value_bytes, p.packed);
  p.threads = l.threads;
  p.items = l.items;
  p.tile = l.tile;
  p.digits = l.digits;
  p.lookback_ahead = l.lookback_ahead;
  p.tiles = (q.n + static_cast<std::uint64_t>(l.tile) - 1) / static_cast<std::uint64_t>(l.tile);
  p.histogram_threads = l.histogram_threads;
  p.histogram_tile = static_cast<std::uint64_t>(l.histogram_threads) * static_cast<std::uint64_t>(l.histogram_items);
  p.histogram_shared_bytes = static_cast<std::size_t>(p.passes) * static_cast<std::size_t>(l.digits) *
                             static_cast<std::size_t>(l.histogram_copies) * 4;
  // onesweep_storage: the union of the rank's storage and the staged keys (the values in their place),
  // the staged digits where values replace keys, the digits' offsets, the tile index.
  const std::size_t element = p.packed ? 8 : q.key_bytes;
  const std::size_t staged = static_cast<std::size_t>(l.tile) * std::max(element, q.value_bytes);
  const std::size_t rank = static_cast<std::size_t>(l.threads / 32) * static_cast<std::size_t>(l.digits) * 4 + 1024;
  p.shared_bytes = std::max(staged, rank) + (q.value_bytes > 0 && !p.packed ? static_cast<std::size_t>(l.tile) : 0) +
                   static_cast<std::size_t>(l.digits) * static_cast<std::size_t>(l.offset_bytes) + 16;
  return p;
}

algorithm_model onesweep_radix_sort(const device_profile& p, const radix_sort_problem& q, const register_table& regs) {
  const onesweep_plan plan = onesweep_plan_for(q);
  const double n = static_cast<double>(q.n);
  const double kw = words(q.key_bytes), vw = words(q.value_bytes);
  const double ew = kw + vw;  // a packed pair moves the same words as the two arrays
  const double passes = plan.passes;
  const double tiles = static_cast<double>(plan.tiles);
  const double digits = plan.digits;

  algorithm_model m;
  m.name = "onesweep radix sort: n = " + std::to_string(q.n) + ", " + std::to_string(q.key_bytes) + "-byte keys" +
           (q.value_bytes > 0 ? ", " + std::to_string(q.value_bytes) + "-byte values" : "") +
           (plan.packed ? " (packed words)" : "") + ", " + std::to_string(plan.passes) + " passes, tile " +
           std::to_string(plan.threads) + " × " + std::to_string(plan.items);

  kernel_model memsets;
  memsets.name = "memset (starts, tile counters)";
  memsets.launches = 2;
  memsets.oversubscription = 1;
  m.kernels.push_back(memsets);

  // Histogram (onesweep_histogram_kernel): one wave of blocks striding over tiles of 128 × 16 keys, each
  // key read once (a thread's 16 loads in flight) and counted in every pass's shared counters (a shared
  // atomic a key a pass), each block's counters added into the global ones (an atomic a digit a pass).
  kernel_model histogram;
  histogram.name = "histogram";
  histogram.plan = {1, plan.histogram_threads, plan.histogram_shared_bytes,
                    registers_of(regs, onesweep_kernel_key("histogram", q.key_bytes, 0))};
  histogram.plan.blocks =
      one_wave_blocks(p.limits, histogram.plan, std::ceil(n / static_cast<double>(plan.histogram_tile)));
  const double histogram_blocks = static_cast<double>(histogram.plan.blocks);
  histogram.add(op::g, n * kw, static_cast<double>(plan.histogram_tile) / plan.histogram_threads * kw);
  histogram.add(op::as, n * passes, static_cast<double>(plan.histogram_tile) / plan.histogram_threads);
  histogram.add(op::r, n * passes * 4);  // a digit: shift, mask, the counter's address
  histogram.add_shared(histogram_blocks * passes * digits * 2, 1, 1);  // zeroed, then read for the flush
  histogram.add(op::ag, histogram_blocks * passes * digits);
  histogram.add(op::y, histogram_blocks * plan.histogram_threads * 3);
  m.kernels.push_back(histogram);

  // digit_starts_kernel: a block of 256 threads a pass scans its counts.
  kernel_model starts;
  starts.name = "digit_starts";
  starts.oversubscription = passes * digits / p.limits.cores();
  starts.add(op::g, passes * digits * 4);  // 64-bit counts read and written
  starts.add(op::r, passes * digits * 20);
  m.kernels.push_back(starts);

  // Per pass: the status words zeroed (a memset of tiles × digits words).
  kernel_model status;
  status.name = "memset (status)";
  status.launches = static_cast<std::uint64_t>(plan.passes);
  status.oversubscription = static_cast<double>(p.limits.max_threads_per_sm) / p.limits.cores_per_sm;
  status.add(op::g, passes * tiles * digits, 4);
  m.kernels.push_back(status);

  // The pass (onesweep_kernel), a block a tile:
  //   load     the tile warp-striped, a thread's items in flight;
  //   rank     per key: its digit (shift, mask), an atomicAdd into the warp's shared histogram, the
  //            warp's __match_any_sync, the leader's atomicAdd of the peers' count, a shuffle of the
  //            warp offset, popc and lane-mask arithmetic; per tile the warps' offsets per digit read
  //            and written (up-sweep, down-sweep) and the histograms zeroed;
  //   publish  a status word a digit (aggregate), then the inclusive one after the look-back, which
  //            reads `lookback_ahead` earlier tiles' words a digit at once (from the L2);
  //   stage    the keys at their ranks in shared memory (random banks: β), read back in order with
  //            each key's digit's offset, and stored: consecutive threads, consecutive positions.
  kernel_model pass;
  pass.name = "pass";
  pass.launches = static_cast<std::uint64_t>(plan.passes);
  pass.plan = {plan.tiles, plan.threads, plan.shared_bytes,
               registers_of(regs, onesweep_kernel_key("pass", q.key_bytes, plan.packed ? 4 : q.value_bytes))};
  const double all = passes * n;
  const double element_words = plan.packed ? 2 : kw;
  pass.add(op::g, all * ew, plan.items * ew);  // reads
  pass.add(op::g, all * ew, plan.items);       // writes
  pass.add(op::as, all, plan.items);            // the warp histograms
  pass.add(op::as, all * 31.0 / 32.0, 1);       // the leaders' adds: nearly every lane its own digit
  pass.add(op::v, all, 1);                      // __match_any_sync
  pass.add(op::x, all, 1);                      // the leader's offset
  pass.add(op::r, all * (14 + 2 * element_words));
  const double warps = plan.threads / 32.0;
  pass.add_shared(passes * tiles * digits * (warps * 4 + 2), 1, 1);  // the rank's per-digit offsets
  pass.add_shared(all * element_words, onesweep_staging_beta(static_cast<int>(element_words)), plan.items * element_words);
  pass.add_shared(all * (element_words + 1), 1, plan.items * element_words);  // staged keys read, the digit's offset
  if (vw > 0 && !plan.packed) {
    pass.add_shared(all * vw, onesweep_staging_beta(static_cast<int>(vw)), plan.items * vw);
    pass.add_shared(all * (vw + 1), 1, plan.items * vw);
  }
  pass.add(op::l2, passes * tiles * digits * 2, 1);                    // published words
  pass.add(op::l2, passes * tiles * digits * plan.lookback_ahead, plan.lookback_ahead);  // the look-back
  pass.add(op::ag, passes * tiles);                                    // take_tile
  pass.add(op::y, passes * tiles * plan.threads * (vw > 0 && !plan.packed ? 8 : 6));
  m.kernels.push_back(pass);
  return m;
}

}  // namespace sluice::model
