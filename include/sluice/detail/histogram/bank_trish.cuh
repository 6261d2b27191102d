// sluice/detail/histogram/bank_trish.cuh: BankTRISH, the histogram of 1-byte samples into at most 256
// bins (Eilers §4.5.2 and Appendix A: TRISH of Brown & Snoeyink with the per-bank multireduce's ideas).
//
//   sets:    64 sub-histograms of 8-bit counters, 4 packed per 32-bit word, in shared memory (16 KiB);
//            512 threads per block (the seed's best, 8 × 64), thread t in sub-histogram t mod 64 (8 threads
//            share one, with shared atomics: the seed's change to TRISH). Word (g, s), bins 4g … 4g + 3 of
//            sub-histogram s, lies at g·64 + s: bank s mod 32, so a warp's 32 lanes never meet in a bank.
//   bins:    a block tabulates the bin of all 256 byte values once (binning.hpp's lookup, so even, range
//            and bin-function bins alike cost one shared load per sample).
//   words:   each thread loads 7 words (28 samples) per tile, all in flight before any is binned (TRISH's
//            batched loads); the 4 samples of a word are bundled: those whose bins share a group of 4
//            add their byte increments in one 32-bit atomic (the seed: "keys falling in the same group
//            of 4 bins can also be merged"; it also helps correlated data such as images).
//   flush:   after every tile, before a byte can overflow: a byte receives at most 8 threads × 7 words
//            × 4 = 224 per tile (TRISH's 63 words per sub-histogram: 8 × 7 = 56 here). The block's 4096
//            words are read once each (thread t: words t + 512j, conflict-free), zeroed, and their bytes
//            added to 16 registers of two 16-bit counts each (TRISH's packed adds). A block takes at most
//            ⌊65535 / 224⌋ = 292 tiles, so those cannot wrap: the grid is one wave or more blocks.
//   finish:  the registers go to 256 32-bit block counts (shared atomics), block 0 adds the < 8 samples
//            before the first and after the last whole word (any starting alignment), and one global
//            atomic per nonzero bin adds the block's counts to the output.
// Traffic: n bytes read once; 2 × 16 KiB of shared traffic per tile of 512 × 28 samples for the flush;
// 256 atomics per block. Shared memory 18 KiB per block.
#pragma once

#include <sluice/core/binning.hpp>
#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/detail/histogram/tuning.hpp>
#include <sluice/detail/histogram/warp_ballot.cuh>

#include <cuda/std/bit>
#include <cuda/std/cstddef>
#include <cuda/std/cstdint>

#include <algorithm>
#include <cstdint>

namespace sluice::detail::histogram {

inline constexpr cuda::std::uint32_t bank_trish_max_bins = 256;
/// Threads per block and sub-histograms (thread t uses t mod 64): tuning.hpp's.
inline constexpr int bank_trish_threads = tuning::bank_trish_threads;
inline constexpr int bank_trish_sets = tuning::bank_trish_sets;
/// 4-bin groups (words) per sub-histogram.
inline constexpr int bank_trish_groups = bank_trish_max_bins / 4;
inline constexpr int bank_trish_threads_per_set = bank_trish_threads / bank_trish_sets;
/// Words a thread bins per tile: the most for which no byte counter can pass 255 before the flush.
inline constexpr int bank_trish_words = 255 / (4 * bank_trish_threads_per_set);
inline constexpr cuda::std::size_t bank_trish_tile_words = cuda::std::size_t{bank_trish_threads} * bank_trish_words;
/// Shared words each thread flushes.
inline constexpr int bank_trish_flush_words = bank_trish_groups * bank_trish_sets / bank_trish_threads;
/// Tiles a block may take before its 16-bit packed counts could wrap.
inline constexpr cuda::std::size_t bank_trish_max_tiles = 0xffff / (4 * bank_trish_threads_per_set * bank_trish_words);
/// The tabulated bin of a byte value outside the bins.
inline constexpr cuda::std::uint16_t bank_trish_no_bin = 0xffff;

static_assert(bank_trish_words == 7 && bank_trish_flush_words == 8 && bank_trish_max_tiles == 292);

struct bank_trish_shared {
  unsigned sets[bank_trish_groups * bank_trish_sets];  ///< word (g, s) at g·64 + s
  unsigned block_counts[bank_trish_max_bins];
  cuda::std::uint16_t bin_of_byte[256];
};

/// Tabulates the bin of every byte value and clears the sets and counts (the caller synchronises).
template <class T, class Lookup>
__device__ __forceinline__ void bank_trish_prepare(bank_trish_shared& shared, const Lookup& bin_of) {
  for (unsigned i = threadIdx.x; i < bank_trish_groups * bank_trish_sets; i += bank_trish_threads) shared.sets[i] = 0;
  if (threadIdx.x < 256) {
    const cuda::std::uint32_t bin = bin_of(cuda::std::bit_cast<T>(static_cast<unsigned char>(threadIdx.x)));
    shared.bin_of_byte[threadIdx.x] = bin < bank_trish_max_bins ? static_cast<cuda::std::uint16_t>(bin) : bank_trish_no_bin;
    shared.block_counts[threadIdx.x] = 0;
  }
}

/// Bins the 4 samples of a word into sub-histogram `set` (its word of group g at set[g·64]), one atomic
/// per distinct 4-bin group: samples of one group add their byte increments together.
__device__ __forceinline__ void bank_trish_bin_word(unsigned word, const cuda::std::uint16_t* bin_of_byte,
                                                    unsigned* set) {
  unsigned bin[4];
  bool live[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    bin[k] = bin_of_byte[(word >> (8 * k)) & 0xffu];
    live[k] = bin[k] != bank_trish_no_bin;
  }
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    if (!live[k]) continue;
    unsigned add = 1u << (8 * (bin[k] & 3u));
#pragma unroll
    for (int j = k + 1; j < 4; ++j)
      if (live[j] && (bin[j] >> 2) == (bin[k] >> 2)) {
        add += 1u << (8 * (bin[j] & 3u));
        live[j] = false;
      }
    atomicAdd(set + (bin[k] >> 2) * bank_trish_sets, add);
  }
}

/// Moves this thread's 8 shared words into its packed counts: even[j] holds bins 4g and 4g + 2 of word
/// threadIdx.x + 512j (g = threadIdx.x / 64 + 8j), odd[j] bins 4g + 1 and 4g + 3; the words are zeroed.
__device__ __forceinline__ void bank_trish_flush(unsigned* sets, unsigned (&even)[bank_trish_flush_words],
                                                 unsigned (&odd)[bank_trish_flush_words]) {
#pragma unroll
  for (int j = 0; j < bank_trish_flush_words; ++j) {
    unsigned& slot = sets[threadIdx.x + j * bank_trish_threads];
    const unsigned word = slot;
    slot = 0;
    even[j] += word & 0x00ff00ffu;
    odd[j] += (word >> 8) & 0x00ff00ffu;
  }
}

/// Adds count to the block's count of bin (skipping zeros: most bins of a small m are empty).
__device__ __forceinline__ void bank_trish_add(unsigned* block_counts, unsigned bin, unsigned count) {
  if (count != 0) atomicAdd(block_counts + bin, count);
}

/// Block 0 bins the samples outside the whole words: [0, head) and [tail, n).
__device__ __forceinline__ void bank_trish_edges(const unsigned char* bytes, cuda::std::size_t head,
                                                 cuda::std::size_t tail, cuda::std::size_t n,
                                                 bank_trish_shared& shared) {
  if (blockIdx.x != 0) return;
  cuda::std::size_t edge;
  if (threadIdx.x < head) edge = threadIdx.x;
  else if (threadIdx.x - head < n - tail) edge = tail + (threadIdx.x - head);
  else return;
  const cuda::std::uint16_t bin = shared.bin_of_byte[bytes[edge]];
  if (bin != bank_trish_no_bin) atomicAdd(shared.block_counts + bin, 1u);
}

template <class T, class Binning, class Counter>
__global__ void __launch_bounds__(bank_trish_threads)
    bank_trish_kernel(const T* __restrict__ samples, cuda::std::size_t n, cuda::std::size_t head, Binning binning,
                      cuda::std::uint32_t m, Counter* __restrict__ bins) {
  __shared__ typename Binning::shared staged;
  __shared__ bank_trish_shared shared;
  const auto bin_of = binning.stage(staged, threadIdx.x, bank_trish_threads);
  __syncthreads();
  bank_trish_prepare<T>(shared, bin_of);
  __syncthreads();

  const auto* bytes = reinterpret_cast<const unsigned char*>(samples);
  const auto* words = reinterpret_cast<const unsigned*>(bytes + head);
  const cuda::std::size_t word_count = (n - head) / 4;
  const cuda::std::size_t tiles = ceil_div(word_count, bank_trish_tile_words);
  unsigned* set = shared.sets + threadIdx.x % bank_trish_sets;
  unsigned even[bank_trish_flush_words] = {};
  unsigned odd[bank_trish_flush_words] = {};
  for (cuda::std::size_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {  // block-uniform: it synchronises
    unsigned word[bank_trish_words];
#pragma unroll
    for (int k = 0; k < bank_trish_words; ++k) {
      const cuda::std::size_t w = tile * bank_trish_tile_words + k * cuda::std::size_t{bank_trish_threads} + threadIdx.x;
      word[k] = w < word_count ? __ldcs(words + w) : 0u;
    }
#pragma unroll
    for (int k = 0; k < bank_trish_words; ++k) {
      const cuda::std::size_t w = tile * bank_trish_tile_words + k * cuda::std::size_t{bank_trish_threads} + threadIdx.x;
      if (w < word_count) bank_trish_bin_word(word[k], shared.bin_of_byte, set);
    }
    __syncthreads();
    bank_trish_flush(shared.sets, even, odd);
    __syncthreads();
  }

#pragma unroll
  for (int j = 0; j < bank_trish_flush_words; ++j) {
    const unsigned group = threadIdx.x / bank_trish_sets + j * (bank_trish_threads / bank_trish_sets);
    bank_trish_add(shared.block_counts, 4 * group, even[j] & 0xffffu);
    bank_trish_add(shared.block_counts, 4 * group + 1, odd[j] & 0xffffu);
    bank_trish_add(shared.block_counts, 4 * group + 2, even[j] >> 16);
    bank_trish_add(shared.block_counts, 4 * group + 3, odd[j] >> 16);
  }
  bank_trish_edges(bytes, head, head + 4 * word_count, n, shared);
  __syncthreads();
  if (threadIdx.x < m && shared.block_counts[threadIdx.x] != 0) add_count(bins + threadIdx.x, shared.block_counts[threadIdx.x]);
}

/// Adds the histogram of the 1-byte samples[0, n) under `binning` (m ≤ 256 bins) to bins[0, m).
template <class T, class Binning, class Counter>
void bank_trish(context& ctx, const T* samples, cuda::std::size_t n, const Binning& binning, cuda::std::uint32_t m,
                Counter* bins) {
  static_assert(sizeof(T) == 1, "BankTRISH bins 1-byte samples, 4 per word");
  const auto misalignment = reinterpret_cast<std::uintptr_t>(samples) % 4;
  const cuda::std::size_t head = std::min<cuda::std::size_t>(n, (4 - misalignment) % 4);
  const cuda::std::size_t tiles = ceil_div((n - head) / 4, bank_trish_tile_words);
  auto kernel = bank_trish_kernel<T, Binning, Counter>;
  const cuda::std::size_t grid =
      std::max(one_wave_grid(ctx, kernel, bank_trish_threads, tiles), ceil_div(tiles, bank_trish_max_tiles));
  kernel<<<static_cast<unsigned>(grid), bank_trish_threads, 0, ctx.stream()>>>(samples, n, head, binning, m, bins);
  SLUICE_CHECK_LAUNCH();
}

}  // namespace sluice::detail::histogram
