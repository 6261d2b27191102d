// sluice/detail/string_match/multi.cuh: many patterns in one pass over the text (beyond the seed: §2.9's
// dictionary matching), through the static pattern table (pattern_table.hpp).
//
// The divide-and-conquer layout of DRK (layout.hpp): thread t owns the 32 positions of word t. It loads
// its characters into registers (drk.cuh's byte windows) and tests each position's first characters
// against the table's prefix filter, copied into shared memory by each block; only the positions that
// pass are looked up in the table, once per key length, verifying the listed patterns against the text
// in global memory (for_each_pattern_at, the host matcher's own function). Four passes use the kernel:
//   total   the matches' number alone: a warp sum, one atomic a warp (a count without the pairs)
//   count   each thread's matches → counts[word]
//   write   after an inclusive scan of the counts (detail/scan), each thread writes its (position,
//           pattern) pairs from its offset: sorted by position (thread order) and by pattern id (the
//           lookup merges by id)
//   bitmap  bit r where some pattern starts at r (sluice grep's line selection)
// Traffic: the text once a pass (twice for the pairs), 8 bytes a thread of counts, 16 bytes a match;
// table probes hit L2 (or L1) for tables of thousands of patterns.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/device_buffer.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/core/operators.hpp>
#include <sluice/core/scratch.hpp>
#include <sluice/detail/scan/dispatch.cuh>
#include <sluice/detail/string_match/drk.cuh>
#include <sluice/detail/string_match/layout.hpp>
#include <sluice/detail/string_match/pattern_table.hpp>
#include <sluice/warp/reduce.cuh>

#include <cuda/std/cstddef>
#include <cuda/std/cstdint>

#include <span>
#include <utility>

namespace sluice::detail::string_match {

/// A match of pattern `pattern` (its index in the set) at text position `position`.
struct multi_hit {
  unsigned long long position;
  uint32_t pattern;
};

/// A pattern table in device memory (and its host original, which sizes the launches).
class device_pattern_table {
 public:
  device_pattern_table(context& ctx, pattern_table host)
      : host_(std::move(host)),
        bytes_(ctx, std::span<const unsigned char>(host_.bytes)),
        offsets_(ctx, std::span<const unsigned long long>(host_.offsets)),
        lengths_(ctx, std::span<const uint32_t>(host_.lengths)),
        groups_(ctx, std::span<const table_group>(host_.groups)),
        slots_(ctx, std::span<const table_slot>(host_.slots)),
        ids_(ctx, std::span<const uint32_t>(host_.ids)),
        filter_(ctx, std::span<const uint32_t>(host_.filter)) {}

  [[nodiscard]] const pattern_table& host() const { return host_; }
  [[nodiscard]] pattern_table_view view() const {
    return {bytes_.data(),      offsets_.data(),    lengths_.data(), groups_.data(),
            slots_.data(),      ids_.data(),        filter_.data(),  host_.prefix_keep,
            host_.filter_log2,  static_cast<int>(host_.groups.size()), host_.key_chars, host_.sigma};
  }

 private:
  pattern_table host_;
  device_buffer<unsigned char> bytes_;
  device_buffer<unsigned long long> offsets_;
  device_buffer<uint32_t> lengths_;
  device_buffer<table_group> groups_;
  device_buffer<table_slot> slots_;
  device_buffer<uint32_t> ids_;
  device_buffer<uint32_t> filter_;
};

enum class multi_pass { total, count, write, bitmap };

struct multi_params {
  const unsigned char* text;
  size_t n;
  size_t positions;  ///< n − shortest + 1 ≥ 1
  size_t words;      ///< bitmap_words(positions)
  pattern_table_view table;
  unsigned long long* counts;  ///< count: per word; write: their inclusive scan
  multi_hit* hits;             ///< write
  size_t capacity;             ///< write: pairs past it are counted, not written
  unsigned long long* total;   ///< write: the number of pairs; total: += the number of pairs
  uint32_t* bitmap;            ///< bitmap
};

/// Shared-memory bytes of a prefix filter of 2^log2_bits bits.
[[nodiscard]] constexpr size_t filter_bytes(int log2_bits) { return size_t{1} << (log2_bits - 3); }

/// The thread's positions k whose first characters (bytes of `chars`, little-endian from the thread's
/// first position; four of them reach k + 3) pass the prefix filter's first probe in shared memory.
/// Whole: the prefix is four 8-bit characters, so `keep` masks nothing.
template <bool Whole>
__device__ uint32_t first_probe_positions(const uint32_t (&chars)[9], const uint32_t* filter, uint32_t keep,
                                          int log2_bits) {
  uint32_t bits = 0;
#pragma unroll
  for (int k = 0; k < positions_per_thread; ++k) {
    const uint32_t four = funnel_bytes(chars[k / 4], chars[k / 4 + 1], k % 4);
    const uint32_t bit = first_prefix_bit(Whole ? four : four & keep, log2_bits);
    const uint32_t clear = ~__funnelshift_r(filter[bit >> 5], 0u, bit) & 1u;  // the shift takes bit mod 32
    bits = with_bit_if_zero(bits, clear, 1u << k);
  }
  return bits;
}

/// Positions of word `word` (valid of them) that pass the prefix filter's first probe: from registers
/// where the thread's 16-byte vectors lie inside the text, else one position at a time (never past the
/// text's end; a valid position has the shortest pattern's characters after it, so the prefix's).
__device__ inline uint32_t first_probe_candidates(const multi_params& prm, const uint32_t* filter, size_t word,
                                                  int valid) {
  if (valid <= 0) return 0;
  const unsigned char* first = prm.text + word * positions_per_thread;
  const uint32_t keep = prm.table.prefix_keep;
  const int log2_bits = prm.table.filter_log2;
  if (vectors_inside<9>(first, prm.text + prm.n)) {
    return with_words<9>(first, [&](const uint32_t(&c)[9]) {
             return keep == ~0u ? first_probe_positions<true>(c, filter, keep, log2_bits)
                                : first_probe_positions<false>(c, filter, keep, log2_bits);
           }) & low_bits(valid);
  }
  uint32_t bits = 0;
  for (int q = 0; q < valid; ++q) {
    uint32_t prefix = 0;
    if (prefix_at(prm.text, prm.n, word * positions_per_thread + static_cast<size_t>(q), keep, prefix) &&
        filter_has(filter, first_prefix_bit(prefix, log2_bits)))
      bits |= 1u << q;
  }
  return bits;
}

/// text[r, r + K) packed as the table's keys are, characters past the text's end 0.
__device__ inline unsigned long long key_window(const multi_params& prm, size_t r) {
  const packed_window<unsigned long long> window(prm.table.sigma, prm.table.key_chars);
  const uint32_t mask = char_mask(prm.table.sigma);
  unsigned long long f = 0;
  for (int i = 0; i < prm.table.key_chars; ++i) {
    const size_t j = r + static_cast<size_t>(i);
    f = window.push(f, j < prm.n ? prm.text[j] & mask : 0u);
  }
  return f;
}

/// Grid-stride over tiles of Threads words. A thread first filters its 32 positions by their first
/// characters against the prefix filter's first probe in shared memory (registers, no staging), then
/// tries the second probe on those that pass (about 1 in 128 for 1000 patterns of σ = 8 on random text:
/// but one lane of a warp or another has one nearly every tile), and looks up only the positions that
/// pass both (about 1 in 2^14), in ascending order, so every pass sees its matches in the same order.
template <int Threads, multi_pass Pass>
__global__ void __launch_bounds__(Threads) multi_kernel(multi_params prm) {
  extern __shared__ uint4 shared_words[];
  uint32_t* filter = reinterpret_cast<uint32_t*>(shared_words);
  const size_t words_of_filter = filter_bytes(prm.table.filter_log2) / sizeof(uint32_t);
  for (size_t i = threadIdx.x; i < words_of_filter; i += Threads) filter[i] = prm.table.filter[i];
  __syncthreads();
  unsigned long long total = 0;
  const size_t tiles = (prm.words + Threads - 1) / Threads;
  for (size_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const size_t word = tile * Threads + threadIdx.x;
    const int valid = word_positions(word, prm.positions);
    unsigned long long written = 0;
    if constexpr (Pass == multi_pass::write) written = word == 0 || valid == 0 ? 0 : prm.counts[word - 1];
    unsigned long long found = 0;
    uint32_t bits = 0;
    for (uint32_t todo = first_probe_candidates(prm, filter, word, valid); todo != 0; todo &= todo - 1) {
      const int q = __ffs(todo) - 1;
      const size_t r = word * positions_per_thread + static_cast<size_t>(q);
      uint32_t prefix = 0;
      (void)prefix_at(prm.text, prm.n, r, prm.table.prefix_keep, prefix);  // a valid position: the prefix fits
      if (!second_probe_admits(prm.table, filter, prefix)) continue;
      const uint32_t here = for_each_pattern_at(prm.table, prm.text, prm.n, r, key_window(prm, r), [&](uint32_t id) {
        if constexpr (Pass == multi_pass::write) {
          if (written < prm.capacity) prm.hits[written] = {r, id};
          ++written;
        }
      });
      found += here;
      bits |= static_cast<uint32_t>(here != 0) << q;
    }
    if constexpr (Pass == multi_pass::total) {
      total += found;
    } else if constexpr (Pass == multi_pass::count) {
      if (word < prm.words) prm.counts[word] = found;
    } else if constexpr (Pass == multi_pass::write) {
      if (word + 1 == prm.words) *prm.total = written;
    } else {
      if (word < prm.words) prm.bitmap[word] = bits;
    }
  }
  if constexpr (Pass == multi_pass::total) {
    total = warp::reduce(total, plus{});
    if (warp::lane_id() == 0 && total != 0) atomicAdd(prm.total, total);
  }
}

template <multi_pass Pass>
void launch_multi(context& ctx, const multi_params& prm) {
  constexpr int threads = tuning::drk_threads;
  const size_t shared = filter_bytes(prm.table.filter_log2);
  auto kernel = multi_kernel<threads, Pass>;
  const size_t grid = one_wave_grid(ctx, kernel, threads, ceil_div(prm.words, threads), shared);
  kernel<<<static_cast<unsigned>(grid), threads, shared, ctx.stream()>>>(prm);
  SLUICE_CHECK_LAUNCH();
}

/// The parameters every pass over text[0, n) shares (n ≥ the shortest pattern).
inline multi_params text_params(const device_pattern_table& table, const unsigned char* text, size_t n) {
  multi_params prm{};
  prm.text = text;
  prm.n = n;
  prm.positions = match_positions(n, table.host().shortest);
  prm.words = bitmap_words(prm.positions);
  prm.table = table.view();
  return prm;
}

/// The (position, pattern) pairs of text[0, n) (n ≥ the shortest pattern): count, scan, write; without
/// room for pairs, their number alone in one pass.
inline void run_multi_hits(context& ctx, const device_pattern_table& table, const unsigned char* text, size_t n,
                           multi_hit* hits, size_t capacity, unsigned long long* total) {
  multi_params prm = text_params(table, text, n);
  if (capacity == 0) {
    SLUICE_CUDA_CHECK(cudaMemsetAsync(total, 0, sizeof(unsigned long long), ctx.stream()));
    prm.total = total;
    launch_multi<multi_pass::total>(ctx, prm);
    return;
  }
  scratch<unsigned long long> counts(ctx, prm.words);
  prm.counts = counts.get();
  launch_multi<multi_pass::count>(ctx, prm);
  scan::run_single_pass_scan<scan::scan_kind::inclusive, false>(ctx, counts.get(), counts.get(), prm.words, 0ull, plus{});
  prm.hits = hits;
  prm.capacity = capacity;
  prm.total = total;
  launch_multi<multi_pass::write>(ctx, prm);
}

/// Bit r of words: some pattern starts at r (n ≥ the shortest pattern).
inline void run_multi_bitmap(context& ctx, const device_pattern_table& table, const unsigned char* text, size_t n,
                             uint32_t* words) {
  multi_params prm = text_params(table, text, n);
  prm.bitmap = words;
  launch_multi<multi_pass::bitmap>(ctx, prm);
}

}  // namespace sluice::detail::string_match
