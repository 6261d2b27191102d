// sluice/detail/radix_sort/onesweep.cuh: the onesweep LSD radix sort (Adinets & Merrill, "Onesweep: A
// Faster Least Significant Digit Radix Sort for GPUs", 2022), the design of CUB's DeviceRadixSort. It is
// not from sluice's seeds: the seeds' radix sort runs each pass as a whole multisplit (prescan, device
// scan, postscan), which reads the keys twice per pass and cannot reach CUB's speed.
//
//   histograms  once per sort: one read of the keys counts the 8-bit digit of every pass at once, in
//               per-block shared-memory counters (privatised copies against contention), added into
//               passes × 256 global counters; a small kernel turns each pass's counts into digit starts.
//   one pass    one kernel. A block takes the next tile from a counter (so tiles start in order and a
//               look-back never waits for a tile that is not running), loads its keys warp-striped, and
//               ranks them stably by digit within the tile (cub::BlockRadixRankMatchEarlyCounts: per-warp
//               match_any histograms give the tile's digit counts before the ranks). The counts are
//               published at once, one status word per (tile, digit); thread d then looks back over the
//               earlier tiles' words of digit d until it meets an inclusive count, which gives where the
//               tile's run of digit d goes. Keys and values are staged in shared memory in digit order
//               (side by side, before the look-back: onesweep_storage) and written in one loop, so that
//               consecutive threads write consecutive positions of a digit's run.
//
// Portions: a status word has 30 bits of count, so the input is sorted in portions of at most 2^30 − 1
// keys (a whole number of tiles), each with zeroed status words; the last tile of a portion writes the
// next portion's digit starts (its own run's start plus its count). Any n works. CUB's portions are
// 2^28 keys, which splits a pass over exactly 2^28 keys into a full launch and one of a single partial
// tile (19 µs of a 1.40 ms multisplit on the H100, ncu at a968173); ours take every n < 2^30 in one.
//
// Work O(n) per pass. Traffic per pass: keys (and values) read once and written once; status words,
// 4 bytes per digit and tile (1 KiB per 7680 u32 keys at 256 digits), zeroed, written twice and read by
// the next tile (mostly in L2). Once per sort: one more read of the keys for the histograms. A u32 sort of 32 bits: 4 passes of 8 bytes per
// key + 4 = 36 bytes per key (the multisplit strategy: 60).
//
// What is CUB's: the design, the tile shapes (onesweep_shape) and the block-level rank. What is ours:
// the kernels around the rank, the digits (radix_digit: any key type, bit range and direction) and the
// padding of partial tiles by radix_key_of. multisplit's onesweep strategy (detail/multisplit/onesweep.cuh)
// runs one pass of this kernel over bucket digits, which may drop keys (drops_digits).
#pragma once

#include <sluice/block/load.cuh>
#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/core/radix_key.hpp>
#include <sluice/detail/radix_sort/packed_pairs.cuh>
#include <sluice/detail/radix_sort/pass_plan.hpp>
#include <sluice/detail/radix_sort/values.cuh>
#include <sluice/detail/scan/look_back.cuh>
#include <sluice/scan.cuh>
#include <sluice/warp/shuffle.cuh>

#include <cub/block/block_load.cuh>
#include <cub/block/block_radix_rank.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/util_type.cuh>

#include <cuda/atomic>
#include <cuda/std/cstddef>
#include <cuda/std/cstdint>
#include <cuda/std/type_traits>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

namespace sluice::detail::radix_sort {

/// Digits of a radix sort's onesweep pass: every pass is at most max_pass_bits = 8 bits wide.
inline constexpr int onesweep_digits = 1 << max_pass_bits;
/// The widest digit a onesweep pass kernel ranks: multisplit's bucket digits take 9 bits for 256 ≤ m <
/// 512 (digit m marks the dropped keys), the radix sort's at most 8.
inline constexpr int max_onesweep_digit_bits = 9;
/// The widest value onesweep stages in shared memory; automatic sorts wider ones by multisplit.
inline constexpr std::size_t onesweep_max_value_bytes = 16;
/// Keys per portion at most: the most a status word's 30 bits of count hold.
inline constexpr std::size_t onesweep_portion_limit = (std::size_t{1} << 30) - 1;
/// Shared memory of one staged array (the tile's keys, or its values), what a block has without opting in.
inline constexpr int onesweep_shared_bytes = 48 * 1024;

// ---- the tile shape (tuning) -----------------------------------------------------------------------------

struct onesweep_nominal {
  int threads;
  int items;  ///< for elements of 4 bytes; scaled down for wider ones
};

/// CUB's SM90 onesweep tuning (cub/device/dispatch/tuning/tuning_radix_sort.cuh: Policy900's
/// OnesweepSmallKeyTunedPolicy and sm90_small_key_tuning): threads and items per thread at 4 bytes per
/// element, by key, value (0: keys only) and offset size (4: n < 2^32, else 8).
constexpr onesweep_nominal sm90_onesweep_nominal(int key_bytes, int value_bytes, int offset_bytes, bool float_keys) {
  const bool wide = offset_bytes == 8;
  if (key_bytes == 4) {
    if (value_bytes == 0) return {384, 20 - (wide ? 1 : 0) - (float_keys ? 1 : 0)};
    return {384, value_bytes < 8 ? (wide ? 17 : 23) : (wide ? 29 : 30)};
  }
  if (key_bytes == 8) return {384, value_bytes < 8 ? 30 : 24};
  struct entry {
    int key_bytes, value_bytes;
    onesweep_nominal narrow, wide;  // 32-bit, 64-bit offsets
  };
  constexpr entry small_keys[] = {
      {1, 0, {512, 19}, {512, 19}}, {1, 1, {512, 15}, {448, 16}}, {1, 2, {512, 17}, {512, 14}},
      {1, 4, {512, 17}, {512, 14}}, {1, 8, {384, 23}, {384, 18}}, {1, 16, {512, 22}, {512, 22}},
      {2, 0, {512, 19}, {512, 19}}, {2, 1, {384, 14}, {384, 16}}, {2, 2, {384, 15}, {448, 16}},
      {2, 4, {512, 17}, {512, 12}}, {2, 8, {384, 23}, {512, 23}}, {2, 16, {512, 21}, {576, 22}},
  };
  for (const entry& e : small_keys)
    if (e.key_bytes == key_bytes && e.value_bytes == value_bytes) return wide ? e.wide : e.narrow;
  return {384, 23};  // CUB's default for the sizes its table leaves out
}

/// The nominal shape of a pass that ranks precomputed digits (a dropping Digit: the digits live across
/// the rank and the keys are read again after it, load_tile_digits). One shape differs from the radix
/// sort's: 4-byte keys with 4-byte values and 32-bit offsets, whose 23 items spilled 72-88 bytes in
/// every digit width (ptxas, sm_90, session 10; 21-22 items 16-40): 20 items spill at most 4 bytes.
/// Spills cost DRAM writes: the m = 32 pairs pass wrote 2.86 GB for 2.15 GB of pairs (ncu timeline at
/// a665f98, H100).
constexpr onesweep_nominal precomputed_digits_nominal(onesweep_nominal nominal, int key_bytes, int value_bytes,
                                                      int offset_bytes) {
  if (key_bytes == 4 && value_bytes == 4 && offset_bytes == 4) return {nominal.threads, 20};
  return nominal;
}

/// The onesweep kernel's tile for keys K, values V (no_values: keys only) and output offsets of type
/// Offset (std::uint32_t while n < 2^32: fewer registers, as CUB's 32-bit offsets). As CUB's
/// RegBoundScaling: the nominal items scaled by 4 / (the wider of key and value), threads capped so
/// that the staged tile and the digit offsets fit 48 KiB of shared memory. DigitBits: the digits a pass
/// ranks, 2^DigitBits of them (the radix sort's 8; multisplit's bucket digits take 5, 6, 8 or 9 by m,
/// detail/multisplit/onesweep.cuh). PrecomputedDigits: the pass ranks digits computed before the rank
/// (precomputed_digits_nominal).
template <class K, class V, class Offset, int DigitBits = max_pass_bits, bool PrecomputedDigits = false>
struct onesweep_shape {
  using offset = Offset;
  static constexpr bool precomputed_digits = PrecomputedDigits;
  static constexpr int digit_bits = DigitBits;
  static constexpr int digits = 1 << DigitBits;
  static_assert(DigitBits >= 1 && DigitBits <= max_onesweep_digit_bits, "a pass ranks at most 512 digits");
  static constexpr int key_bytes = static_cast<int>(sizeof(K));
  static constexpr int value_bytes = has_values<V> ? static_cast<int>(sizeof(V)) : 0;
  static constexpr int element_bytes = key_bytes > value_bytes ? key_bytes : value_bytes;
  static constexpr onesweep_nominal cub_nominal = sm90_onesweep_nominal(
      key_bytes, value_bytes, static_cast<int>(sizeof(Offset)), cuda::std::is_same_v<K, float>);
  static constexpr onesweep_nominal nominal =
      PrecomputedDigits ? precomputed_digits_nominal(cub_nominal, key_bytes, value_bytes, static_cast<int>(sizeof(Offset)))
                        : cub_nominal;
  static constexpr int scaled_items = nominal.items * 4 / (element_bytes > 4 ? element_bytes : 4);
  static constexpr int items = scaled_items < 1 ? 1 : scaled_items;
  static constexpr int staging_bytes = onesweep_shared_bytes - digits * static_cast<int>(sizeof(Offset)) - 16;
  static constexpr int threads_fitting = staging_bytes / (element_bytes * items) / 32 * 32;
  static constexpr int threads = nominal.threads < threads_fitting ? nominal.threads : threads_fitting;
  static constexpr int tile = threads * items;
  /// Keys per portion: the most whole tiles within onesweep_portion_limit.
  static constexpr std::size_t portion = onesweep_portion_limit / tile * tile;
  /// Two blocks per SM at least, so that one block's look-back and barriers overlap another's loads:
  /// the occupancy CUB's SM90 onesweep kernels compile to (64 registers at 512 threads, 74-80 at 384).
  /// Without the bound, ptxas gave the 1- and 2-byte keys 94 registers at 512 threads (one block).
  /// Dropping digits ask for more where they can (onesweep_min_blocks).
  static constexpr int min_blocks_per_sm = 2;

  /// Digits each thread tracks in the rank and looks back for (cub's BINS_TRACKED_PER_THREAD): thread t
  /// takes digits t · digits_per_thread … t · digits_per_thread + digits_per_thread − 1.
  static constexpr int digits_per_thread = (digits + threads - 1) / threads;
  /// Earlier tiles the look-back reads at once per digit: the threads per digit (≥ 2: the block's
  /// windowed look-back, count_in_earlier_windows; else each digit's thread walks back alone).
  static constexpr int lookback_window = threads / digits;
  /// Earlier tiles each digit's thread reads at once where the look-back has no window
  /// (count_in_earlier_tiles): 4 for keys, 1 (CUB's walk) for pairs. Measured on the H100 at 2^28
  /// (a5fff72, docs/perf-notes.md session 11): reading 4 at once took the radix sort of u32 keys from
  /// 5.97 to 5.46 ms and multisplit's keys at m = 256 from 1.595 to 1.535 ms, but slowed the pairs
  /// passes (3 at once in the radix sort's, where 4 spilled: its pass 2112 → 2151 µs; multisplit's pairs
  /// at m = 256 2.575 → 2.655 ms).
  static constexpr int lookback_ahead = value_bytes > 0 ? 1 : 4;
};

/// The histogram kernel's shape: CUB's SM90 one (128 threads × 16 keys), with privatised copies of the
/// counters (CUB on SM90 keeps one) where they are few: 16 / sizeof(K) copies (8 at most) while all of
/// them stay within 4 KiB. Multisplit's one pass of 32 digits keeps 4 copies of 128 bytes (its histogram
/// ran at 3.08 TB/s, faster than CUB's, at 837aaa4); the radix sort's 4 passes × 256 digits of u32 keys
/// keep one, as CUB: with 4 copies (16 KiB a block) ours took 587 µs at 2^28 against CUB's 458 (ncu
/// timeline at 837aaa4).
template <class K, class Digits>
struct onesweep_histogram_shape {
  static constexpr int threads = 128;
  static constexpr int items = 16;
  static constexpr std::size_t copy_bytes = std::size_t{Digits::max_passes} * Digits::bins * sizeof(std::uint32_t);
  static constexpr int copies_by_key = 16 / sizeof(K) > 8 ? 8 : static_cast<int>(16 / sizeof(K));
  static constexpr int copies_by_bytes = 4096 / copy_bytes < 1 ? 1 : static_cast<int>(4096 / copy_bytes);
  static constexpr int copies = copies_by_key < copies_by_bytes ? copies_by_key : copies_by_bytes;
  static constexpr std::size_t tile = std::size_t{threads} * items;
  /// How a thread loads its keys: thread-striped one key per load (CUB's) where each key feeds several
  /// passes' counters, 16-byte vectors for one pass. Measured on the H100 at 2^28 (session 12): the radix
  /// sort's histogram of u32 keys 487 µs with vectors, 464 striped (CUB's 458); multisplit's one pass
  /// 14-18 µs slower striped (bit-field keys m = 2: 1.2680 → 1.2859 ms).
  static constexpr bool vector_loads = Digits::max_passes == 1;
};

// ---- the histograms of every pass -----------------------------------------------------------------------

/// The digit functors of every pass of one sort (8-bit passes: at most one per key byte).
template <class K>
struct pass_digits {
  static constexpr int max_passes = static_cast<int>(sizeof(K));
  static constexpr int bins = onesweep_digits;  ///< digits per pass
  radix_digit<K> digit[sizeof(K)];
  int passes;
};

template <class K>
pass_digits<K> digits_of(const pass_plan& plan, bool descending) {
  pass_digits<K> digits{};
  digits.passes = plan.passes;
  for (int p = 0; p < plan.passes; ++p) digits.digit[p] = {plan.shift(p), plan.width(p), descending};
  return digits;
}

/// Keys a histogram block counts between flushes of its 32-bit shared counters into the 64-bit global
/// ones, so that no shared counter can overflow whatever n is.
inline constexpr std::size_t histogram_flush_keys = std::size_t{1} << 30;

/// Counts Items keys in every pass's counters, pass by pass: one check of the pass count per pass, the
/// keys' atomics of one pass together. Key by key, every pass's atomic sat behind its own pass < passes
/// branch and address set-up: 11 instructions an atomic against CUB's 4, 407 M for a 32-bit sort's
/// histogram of 2^28 keys against CUB's 176 M, 536 µs against 455 (ncu at ba813eb). The pass loop is
/// unrolled so that the pass's digit functor is not indexed at run time: a loop that was not copied the
/// kernel's parameters to local memory (a 56-byte stack frame; 80 MB more read, 520 µs, at 7f572c7).
template <class Digits, int Copies, class K, int Items>
__device__ __forceinline__ void count_keys(std::uint32_t (&bins)[Digits::max_passes][Digits::bins][Copies],
                                           const Digits& digits, const K (&keys)[Items], int copy) {
#pragma unroll
  for (int p = 0; p < Digits::max_passes; ++p) {
    if (p >= digits.passes) break;
#pragma unroll
    for (int i = 0; i < Items; ++i) atomicAdd(&bins[p][digits.digit[p](keys[i])][copy], 1u);
  }
}

/// counts[p · Digits::bins + d] += the number of keys whose pass-p digit is d (counts zeroed beforehand). Digits:
/// pass_digits<K> for the radix sort, or any struct with max_passes, bins, passes and digit[p] functors
/// giving digits < bins (multisplit's one pass of bucket digits). Blocks
/// stride over tiles of the keys (order does not matter, so the loads are striped: shape::vector_loads);
/// lane l counts into copy l % Copies, so that lanes of one warp with equal digits mostly hit different
/// counters. The tiles are taken from the last to the first, so that the histogram's last wave reads
/// the front of the keys, which the first pass (tiles taken in order) reads first: those keys are
/// still in the L2.
template <class K, class Digits = pass_digits<K>>
__global__ void __launch_bounds__(onesweep_histogram_shape<K, Digits>::threads)
    onesweep_histogram_kernel(const K* __restrict__ keys, std::size_t n, Digits digits,
                              unsigned long long* __restrict__ counts) {
  using shape = onesweep_histogram_shape<K, Digits>;
  constexpr int threads = shape::threads;
  constexpr int items = shape::items;
  constexpr int copies = shape::copies;
  constexpr std::size_t tile = shape::tile;
  static_assert(histogram_flush_keys % tile == 0, "a tile never straddles a flush");
  __shared__ std::uint32_t bins[Digits::max_passes][Digits::bins][copies];
  const int copy = warp::lane_id() % copies;
  for (std::size_t c = ceil_div(n, histogram_flush_keys); c-- > 0;) {
    for (int i = static_cast<int>(threadIdx.x); i < static_cast<int>(sizeof(bins) / 4); i += threads)
      (&bins[0][0][0])[i] = 0;
    __syncthreads();
    const std::size_t chunk = c * histogram_flush_keys;
    const std::size_t end = cuda::std::min(n, chunk + histogram_flush_keys);
    const std::size_t tiles = ceil_div(end - chunk, tile);
    for (std::size_t back = blockIdx.x; back < tiles; back += gridDim.x) {
      const std::size_t first = chunk + (tiles - 1 - back) * tile;
      if (end - first >= tile) {
        K tile_keys[items];
        if constexpr (shape::vector_loads)
          block::load_striped_vectorized<items>(keys + first, static_cast<int>(threadIdx.x), threads, tile_keys);
        else cub::LoadDirectStriped<threads>(static_cast<int>(threadIdx.x), keys + first, tile_keys);
        count_keys<Digits>(bins, digits, tile_keys, copy);
      } else {
        for (std::size_t i = first + threadIdx.x; i < end; i += threads) count_keys<Digits>(bins, digits, {keys[i]}, copy);
      }
    }
    __syncthreads();
    for (int d = static_cast<int>(threadIdx.x); d < Digits::bins; d += threads)
      for (int p = 0; p < digits.passes; ++p) {
        std::uint32_t total = 0;
#pragma unroll
        for (int c = 0; c < copies; ++c) total += bins[p][d][c];
        if (total != 0) atomicAdd(&counts[p * Digits::bins + d], static_cast<unsigned long long>(total));
      }
    __syncthreads();  // the next chunk zeroes the counters only after they are added up
  }
}

/// One block per pass: counts[p · Bins + d] becomes the exclusive start of digit d in the sorted output.
template <int Bins>
__global__ void __launch_bounds__(Bins) digit_starts_kernel(unsigned long long* counts) {
  using block_scan = cub::BlockScan<unsigned long long, Bins>;
  __shared__ typename block_scan::TempStorage temp;
  unsigned long long* pass = counts + std::size_t{blockIdx.x} * Bins;
  unsigned long long start = 0;
  block_scan(temp).ExclusiveSum(pass[threadIdx.x], start);
  pass[threadIdx.x] = start;
}

/// starts[p · Digits::bins + d] = where the keys of pass-p digit d begin in the sorted output, for every pass;
/// starts must be zeroed.
template <class K, class Digits>
void count_digit_starts(context& ctx, const K* keys, std::size_t n, const Digits& digits,
                        unsigned long long* starts) {
  using shape = onesweep_histogram_shape<K, Digits>;
  auto histogram = onesweep_histogram_kernel<K, Digits>;
  const auto grid =
      static_cast<unsigned>(one_wave_grid(ctx, histogram, shape::threads, ceil_div(n, shape::tile)));
  histogram<<<grid, shape::threads, 0, ctx.stream()>>>(keys, n, digits, starts);
  SLUICE_CHECK_LAUNCH();
  digit_starts_kernel<Digits::bins><<<static_cast<unsigned>(digits.passes), Digits::bins, 0, ctx.stream()>>>(starts);
  SLUICE_CHECK_LAUNCH();
}

// ---- the per-digit look-back --------------------------------------------------------------------------

/// The status of one portion's tiles: one 32-bit word per (tile, digit) of Digits digits, the state
/// (scan::tile_state: invalid; aggregate = the tile's own count of the digit; inclusive = its count over
/// this and every earlier tile of the portion) in the top two bits and the count in the low 30, as CUB packs them.
/// State and count travel in one word, so relaxed device-scope atomics suffice: a reader that sees the
/// state sees its count, and nothing else is published through the status (the keys a tile writes are
/// read only by the next pass, after the kernel boundary).
template <int Digits>
struct digit_status {
  cuda::std::uint32_t* words;  ///< [tile][digit], zeroed (invalid) before the portion's kernel

  static constexpr int count_bits = 30;
  static constexpr cuda::std::uint32_t count_mask = (1u << count_bits) - 1;
  static_assert(onesweep_portion_limit <= count_mask, "a portion's counts fit the status word");

  __device__ cuda::atomic_ref<cuda::std::uint32_t, cuda::thread_scope_device> word(cuda::std::uint32_t tile,
                                                                                   cuda::std::uint32_t digit) const {
    return cuda::atomic_ref<cuda::std::uint32_t, cuda::thread_scope_device>(
        words[static_cast<cuda::std::size_t>(tile) * Digits + digit]);
  }
  __device__ void publish(cuda::std::uint32_t tile, cuda::std::uint32_t digit, scan::tile_state state,
                          cuda::std::uint32_t count) const {
    word(tile, digit).store((static_cast<cuda::std::uint32_t>(state) << count_bits) | count,
                            cuda::memory_order_relaxed);
  }
  /// The word of (tile, digit) once the tile has published it: spins while it is invalid.
  __device__ cuda::std::uint32_t published(cuda::std::uint32_t tile, cuda::std::uint32_t digit) const {
    cuda::std::uint32_t bits = 0;
    do bits = word(tile, digit).load(cuda::memory_order_relaxed);
    while (is_invalid(bits));
    return bits;
  }
  __device__ static bool is_invalid(cuda::std::uint32_t bits) { return bits >> count_bits == scan::tile_invalid; }
  __device__ static cuda::std::uint32_t count_of(cuda::std::uint32_t bits) { return bits & count_mask; }
  __device__ static bool is_inclusive(cuda::std::uint32_t bits) { return bits >> count_bits == scan::tile_inclusive; }
  /// What a tile before the portion's first reads as: an inclusive count of 0.
  static constexpr cuda::std::uint32_t before_first = static_cast<cuda::std::uint32_t>(scan::tile_inclusive) << count_bits;
};

/// The count of `digit` in the portion's tiles before `tile` (> 0): one thread walks back, adding
/// aggregates until it meets an inclusive count (CUB's onesweep look-back), reading Ahead earlier tiles'
/// words at once (one round trip to the L2 for Ahead tiles; CUB reads one). A word read while still
/// invalid is read again until its tile publishes; one read as an aggregate that has since become
/// inclusive only lengthens the walk. Tiles are taken in order, so every tile waited on is running, and
/// each publishes its aggregate before it waits for anyone: no cycle. For shapes with two threads or
/// more per digit, count_in_earlier_windows.
template <int Digits, int Ahead>
__device__ __forceinline__ cuda::std::uint32_t count_in_earlier_tiles(const digit_status<Digits>& status,
                                                                      cuda::std::uint32_t tile,
                                                                      cuda::std::uint32_t digit) {
  static_assert(Ahead >= 1, "the walk reads one tile at least");
  cuda::std::uint32_t before = 0;
  for (cuda::std::uint32_t next = tile;; next -= Ahead) {  // tiles [0, next) not yet added
    cuda::std::uint32_t words[Ahead];
#pragma unroll
    for (int j = 0; j < Ahead; ++j)
      words[j] = static_cast<cuda::std::uint32_t>(j) < next ? status.word(next - 1 - j, digit).load(cuda::memory_order_relaxed)
                                                           : digit_status<Digits>::before_first;
#pragma unroll
    for (int j = 0; j < Ahead; ++j) {
      const cuda::std::uint32_t bits =
          digit_status<Digits>::is_invalid(words[j]) ? status.published(next - 1 - j, digit) : words[j];
      before += digit_status<Digits>::count_of(bits);
      if (digit_status<Digits>::is_inclusive(bits)) return before;  // always by next ≤ Ahead (before_first)
    }
  }
}

/// The look-back with the whole block, for W = Window ≥ 2 threads per digit: thread t reads digit
/// t % Digits of the earlier tile t / Digits + 1 back (all at once: one round trip to the L2 for W
/// tiles), the digit's owner (thread d < Digits) adds the window up nearest first until it meets an
/// inclusive count, and the block takes the next W tiles until every owner has met one. Returns the
/// owner's count of its digit in the tiles before `tile`; block-uniform calls only (barriers). The serial
/// walk (count_in_earlier_tiles) kept 11 of 12 warps at the barrier behind one: 32% of the stall
/// samples of the m = 32 keys pass (32 digits, about 6 tiles walked back per tile; ncu at 837aaa4).
template <int Digits, int Window>
__device__ __forceinline__ cuda::std::uint32_t count_in_earlier_windows(const digit_status<Digits>& status,
                                                                        cuda::std::uint32_t tile,
                                                                        cuda::std::uint32_t (&window)[Window][Digits]) {
  static_assert(Window >= 2, "one thread per digit walks instead (count_in_earlier_tiles)");
  const int thread = static_cast<int>(threadIdx.x);
  const int digit = thread % Digits, back = thread / Digits;  // reads tile next − 1 − back
  cuda::std::uint32_t before = 0;
  bool met = thread >= Digits;  // only the owners add up
  for (cuda::std::uint32_t next = tile;; next = next > Window ? next - Window : 0) {
    if (back < Window)
      window[back][digit] = static_cast<cuda::std::uint32_t>(back) < next
                                ? status.published(next - 1 - static_cast<cuda::std::uint32_t>(back), digit)
                                : digit_status<Digits>::before_first;
    __syncthreads();
    for (int j = 0; j < Window && !met; ++j) {
      before += digit_status<Digits>::count_of(window[j][digit]);
      met = digit_status<Digits>::is_inclusive(window[j][digit]);
    }
    if (__syncthreads_and(met)) return before;  // also keeps the window until everyone has read it
  }
}

// ---- one pass over one portion ------------------------------------------------------------------------

/// What a onesweep kernel splits by. The radix sort's radix_digit<K> keeps every key and pads a partial
/// tile with a key of the largest digit (radix_key_of). Any other Digit is a functor giving every key a
/// digit below the shape's digits, with a member `kept`: digits ≥ kept are dropped (ranked and counted,
/// never written); since no padding key can be made for an arbitrary functor, such tiles rank
/// precomputed digits, the padding given the shape's last digit (multisplit's bucket digits,
/// detail/multisplit/onesweep.cuh). That digit may be a kept one: padding still ranks behind every key
/// of the tile (stable rank, the largest digit, the last positions), so it lands in staged positions
/// ≥ valid, which are never written, and its count only reaches the last tile's status, which no tile
/// reads.
template <class Digit>
inline constexpr bool drops_digits = true;
template <class K>
inline constexpr bool drops_digits<radix_digit<K>> = false;
template <class K>
inline constexpr bool drops_digits<packed_digit<K>> = false;

/// Blocks per SM a pass kernel asks for: three for 4-byte keys without values of a dropping Digit, as
/// CUB's keys-only kernel compiles to (56 registers, ncu 2026-11-22), since that rank holds digits and
/// ranks only (load_tile_digits): ptxas fits it in 56 registers without spills. The radix sort's own
/// keys-only pass, whose rank holds the keys, spilled 40–88 bytes at 56, so it keeps the shape's two.
template <class Shape, class Digit>
inline constexpr int onesweep_min_blocks =
    drops_digits<Digit> && Shape::key_bytes == 4 && Shape::value_bytes == 0 ? 3 : Shape::min_blocks_per_sm;

/// Whether staged keys of digit d are written.
template <class Digit>
__device__ __forceinline__ bool written(const Digit& digit, cuda::std::uint32_t d) {
  if constexpr (drops_digits<Digit>) return d < digit.kept;
  else return true;
}

/// A onesweep kernel's work: one portion of one pass. V = no_values: keys only (value pointers null).
/// The keys are read through In and written through Out: pointers, or, for packed pairs (K =
/// packed_word), a pair_reader or pair_writer over the caller's separate arrays.
template <class K, class V, class Digit = radix_digit<K>, class In = const K*, class Out = K*>
struct onesweep_portion {
  In keys_in;  ///< the portion's first key
  const V* values_in;
  Out keys_out;  ///< the whole output: positions are global
  V* values_out;
  cuda::std::uint32_t n;  ///< keys in the portion, at most onesweep_shape::portion
  Digit digit;
  const unsigned long long* starts;  ///< where each digit's keys of this portion begin
  unsigned long long* next_starts;   ///< the next portion's starts (written by the last tile); null for the last
  cuda::std::uint32_t* status;       ///< the portion's tiles × the shape's digits status words, zeroed
  cuda::std::uint32_t* next_tile;    ///< the tile counter, zeroed
};

template <class Shape>
using onesweep_rank = cub::BlockRadixRankMatchEarlyCounts<Shape::threads, Shape::digit_bits, false,
                                                          cub::BLOCK_SCAN_RAKING_MEMOIZE, cub::WARP_MATCH_ANY, 1>;

/// A radix digit (radix_digit, packed_digit) in the form cub's rank calls (the digits are already
/// reversed for a descending sort).
template <class DigitOf>
struct rank_digit {
  DigitOf digit;
  template <class K>
  __device__ __forceinline__ cuda::std::uint32_t Digit(K key) const {
    return digit(key);
  }
};

/// The rank's digit of a precomputed digit: itself.
struct rank_precomputed {
  __device__ __forceinline__ cuda::std::uint32_t Digit(cuda::std::uint32_t digit) const { return digit; }
};

/// Whether a pass stages its values before the look-back, beside the keys, so that the ranks are dead
/// across the look-back and the keys' write-out: the passes that rank precomputed digits, whose u32 pairs
/// kernels otherwise spill (ptxas: 56-76 bytes at 20 items in CUB's order, none this way). The radix
/// sort's passes keep CUB's order, the values loaded while the keys' stores are in flight: staged
/// early its u32 pairs pass took 2152 µs at 2^28 (CUB's 2033; ncu timeline at 837aaa4), and 2201 with
/// the values loaded after the look-back and written in one loop with the keys (ba970a0).
template <class Shape>
inline constexpr bool stages_values_early = Shape::precomputed_digits;

/// A staged position's digit, as the keys' write-out keeps it for the values' (onesweep_storage).
template <class Shape>
using kept_digit = cuda::std::conditional_t<(Shape::digits <= 256), cuda::std::uint8_t, cuda::std::uint16_t>;

/// A block's shared memory. Passes in CUB's order (values loaded after the keys' write-out) stage the
/// values in the keys' place, as CUB does, with each staged position's digit kept as a byte by the keys'
/// write-out for the values' (held in registers across the values' load, as CUB holds them, they spilled
/// 72 bytes in the radix u32 pairs kernel: ptxas, session 10). Staged beside the keys instead (sessions
/// 10-11), the u32 pairs tile took 72.7 KiB a block against 46.2 now (CUB's 36.4), and the pass was
/// 0.7% slower (2099 against 2084 µs at 2^28, H100, same-machine A/B, session 12). Passes that stage the
/// values before the look-back (stages_values_early) keep them beside the keys, whose digits the
/// write-out reads again.
/// The storage passes the 48 KiB of static shared memory for some shapes, so the kernel takes it as
/// dynamic shared memory (onesweep_storage_bytes).
template <class Shape, class K, class V>
struct onesweep_storage {
  static constexpr bool values_replace_keys = has_values<V> && !stages_values_early<Shape>;
  union {
    typename onesweep_rank<Shape>::TempStorage rank;
    cub::Uninitialized<K[Shape::tile]> keys;  ///< the tile's keys in digit order
    cub::Uninitialized<V[values_replace_keys ? Shape::tile : 1]> values_in_place;
  };
  cub::Uninitialized<V[has_values<V> && !values_replace_keys ? Shape::tile : 1]> values_beside;
  /// The digit of each staged position, kept by the keys' write-out when the values replace the keys.
  kept_digit<Shape> digits[values_replace_keys ? Shape::tile : 1];
  /// Staged position i of digit d goes to offsets[d] + i (modulo 2^bits of the offset: relative to the
  /// digit's first staged position).
  typename Shape::offset offsets[Shape::digits];
  /// The status words of the look-back's window (count_in_earlier_windows), when it has one.
  cuda::std::uint32_t window[Shape::lookback_window >= 2 ? Shape::lookback_window : 1][Shape::digits];
  cuda::std::uint32_t tile;

  /// The tile's values in digit order.
  __device__ __forceinline__ V* values() {
    if constexpr (values_replace_keys) return values_in_place.Alias();
    else return values_beside.Alias();
  }
};

/// The dynamic shared memory of a onesweep kernel: its storage, 113 KiB at most so that two blocks fit
/// an SM of 227 KiB (the H100's; onesweep_sort checks the device).
template <class Shape, class K, class V>
inline constexpr std::size_t onesweep_storage_bytes = sizeof(onesweep_storage<Shape, K, V>);
inline constexpr std::size_t onesweep_max_storage_bytes = 113 * 1024;

/// The portion's next tile, for the whole block.
__device__ __forceinline__ cuda::std::uint32_t take_tile(cuda::std::uint32_t* next_tile, cuda::std::uint32_t& shared) {
  if (threadIdx.x == 0) shared = atomicAdd(next_tile, 1u);
  __syncthreads();
  return shared;
}

/// The tile position of a thread's item j in warp-striped arrangement: warp w holds positions
/// [w · 32 · Items, (w + 1) · 32 · Items), lane l position w · 32 · Items + 32 j + l.
template <class Shape>
__device__ __forceinline__ int warp_striped_position(int item) {
  const int thread = static_cast<int>(threadIdx.x);
  return thread / 32 * 32 * Shape::items + item * 32 + thread % 32;
}

/// Loads the tile warp-striped: each load instruction of a warp reads 32 consecutive keys, and the rank,
/// which takes a warp's keys item by item, meets every warp's keys in input order, which is what makes
/// it stable. Positions past `valid` get a key whose digit is the largest of the pass
/// (largest_digit_element), so they rank behind every real key; they are never staged or written.
template <class Shape, class K, class In, class DigitOf>
__device__ __forceinline__ void load_tile_keys(In from, int valid, const DigitOf& digit, K (&keys)[Shape::items]) {
  if (valid == Shape::tile) cub::LoadDirectWarpStriped(static_cast<int>(threadIdx.x), from, keys);
  else cub::LoadDirectWarpStriped(static_cast<int>(threadIdx.x), from, keys, valid, largest_digit_element(digit));
}

/// The tile's keys warp-striped, as load_tile_keys, with positions past `valid` left unloaded (a dropping
/// Digit has no padding key; load_tile_digits gives those positions their digit).
template <class Shape, class K, class In>
__device__ __forceinline__ void load_tile_unpadded(In from, int valid, K (&keys)[Shape::items]) {
  if (valid == Shape::tile) cub::LoadDirectWarpStriped(static_cast<int>(threadIdx.x), from, keys);
  else cub::LoadDirectWarpStriped(static_cast<int>(threadIdx.x), from, keys, valid);
}

/// The digits of the tile's keys, warp-striped, for a dropping Digit: positions past `valid` get the
/// shape's last digit (≥ every kept digit, after every real key of that digit in rank order), so they rank last and are
/// never staged; only the last tile of the last portion has them. The keys die here: only the digits
/// live across the rank (the kernel loads the keys again to stage them).
template <class Shape, class K, class Digit>
__device__ __forceinline__ void load_tile_digits(const K* from, int valid, const Digit& digit,
                                                 cuda::std::uint32_t (&digits)[Shape::items]) {
  K keys[Shape::items];
  load_tile_unpadded<Shape>(from, valid, keys);
  if (valid == Shape::tile) {
#pragma unroll
    for (int j = 0; j < Shape::items; ++j) digits[j] = digit(keys[j]);
  } else {
#pragma unroll
    for (int j = 0; j < Shape::items; ++j)
      digits[j] = warp_striped_position<Shape>(j) < valid ? digit(keys[j]) : Shape::digits - 1;
  }
}

/// Whether tile position `position` holds an element (always, in a full tile: Full, so that the full
/// tiles' code has no bounds check per item; with one, the write-out recomputed the digit functor's loop
/// invariants behind a branch for every item: ncu at b47bb62, 335 M instructions in our write-out of
/// 2^28 keys against 186 M in CUB's).
template <bool Full>
__device__ __forceinline__ bool in_tile(int position, int valid) {
  return Full || position < valid;
}

/// Writes each loaded element at its rank (its place in the tile sorted by digit), padding left out.
template <class Shape, bool Full, class T>
__device__ __forceinline__ void stage(const T (&items)[Shape::items], const int (&ranks)[Shape::items], int valid,
                                      T* staged) {
#pragma unroll
  for (int j = 0; j < Shape::items; ++j)
    if (in_tile<Full>(warp_striped_position<Shape>(j), valid)) staged[ranks[j]] = items[j];
}

/// The tile's run of `digit` starts at the digit's start in this portion plus `before`, its count in the
/// earlier tiles. Publishes the inclusive count for the tiles after this one, and the portion's last
/// tile hands the next portion its start.
template <class Shape, class K, class V, class Digit, class In, class Out>
__device__ __forceinline__ void place_digit_run(const onesweep_portion<K, V, Digit, In, Out>& portion, cuda::std::uint32_t tile,
                                                cuda::std::uint32_t digit, cuda::std::uint32_t before,
                                                cuda::std::uint32_t count, cuda::std::uint32_t first_staged,
                                                typename Shape::offset* offsets) {
  if (tile > 0) digit_status<Shape::digits>{portion.status}.publish(tile, digit, scan::tile_inclusive, before + count);
  using offset = typename Shape::offset;
  const offset start = static_cast<offset>(portion.starts[digit]) + before;  // < n: fits the offset
  offsets[digit] = start - first_staged;
  if (portion.next_starts != nullptr && tile == (portion.n - 1) / Shape::tile)
    portion.next_starts[digit] = start + count;
}

/// What scatter_staged writes: the staged keys, or the staged values.
enum class staged_items { keys, values };

/// Writes staged position p of `staged` (the tile's keys, or its values) to out[offsets[d] + p], where
/// d is the digit of the key staged at p, if d is written: read again from the staged key, or, where
/// the values replace the keys (onesweep_storage), kept by the keys' write-out for the values'. Thread
/// t writes positions t, t + threads, …, so a warp writes 32 consecutive positions, runs of one digit
/// each (a tile holds ~20-30 keys of a digit at 256 digits on uniform keys). __syncwarp keeps the
/// warp's stores of one round together, as CUB does.
template <class Shape, bool Full, staged_items Items, class T, class To, class K, class V, class Digit, class In,
          class Out>
__device__ __forceinline__ void scatter_staged(const onesweep_portion<K, V, Digit, In, Out>& portion, int valid,
                                               onesweep_storage<Shape, K, V>& s, const T* staged, To out) {
  using offset = typename Shape::offset;
  constexpr bool digits_kept = onesweep_storage<Shape, K, V>::values_replace_keys;
#pragma unroll
  for (int j = 0; j < Shape::items; ++j) {
    const int position = static_cast<int>(threadIdx.x) + j * Shape::threads;
    if (in_tile<Full>(position, valid)) {
      cuda::std::uint32_t d;
      if constexpr (Items == staged_items::values && digits_kept) {
        d = s.digits[position];
      } else {
        d = portion.digit(s.keys.Alias()[position]);
        if constexpr (digits_kept) s.digits[position] = static_cast<kept_digit<Shape>>(d);
      }
      if (written(portion.digit, d)) out[s.offsets[d] + static_cast<offset>(position)] = staged[position];
    }
    __syncwarp(warp::full_mask);
  }
}

/// A thread's items of a tile, as a value (so that load_values can return them).
template <class T, int Items>
struct thread_items {
  T items[Items];
};

/// The tile's values, loaded warp-striped as the keys were (to be staged at the keys' ranks).
template <class Shape, bool Full, class K, class V, class Digit, class In, class Out>
__device__ __forceinline__ thread_items<V, Shape::items> load_values(const onesweep_portion<K, V, Digit, In, Out>& portion,
                                                                     cuda::std::uint32_t first, int valid) {
  thread_items<V, Shape::items> values;
  const V* from = portion.values_in + first;
  if constexpr (Full) cub::LoadDirectWarpStriped(static_cast<int>(threadIdx.x), from, values.items);
  else cub::LoadDirectWarpStriped(static_cast<int>(threadIdx.x), from, values.items, valid);
  return values;
}

/// A thread's digits in the rank and the look-back: thread t tracks digits t · per + u, u < per.
template <class Shape>
struct tracked_digits {
  static constexpr int per = Shape::digits_per_thread;
  cuda::std::uint32_t count[per];  ///< the tile's count of each
  int first_staged[per];           ///< the tile's first staged position of each

  __device__ __forceinline__ static int digit(int u) { return static_cast<int>(threadIdx.x) * per + u; }
};

/// Where each of the tile's digit runs goes (s.offsets), from the look-back over the earlier tiles: the
/// whole block's windows where the shape has two threads or more per digit, else each digit's thread
/// walking back alone (thread t tracks digits t · per + u, whose counts and first staged positions the
/// rank gave).
template <class Shape, class K, class V, class Digit, class In, class Out>
__device__ __forceinline__ void locate_digit_runs(const onesweep_portion<K, V, Digit, In, Out>& portion, cuda::std::uint32_t tile,
                                                  const tracked_digits<Shape>& mine, onesweep_storage<Shape, K, V>& s) {
  const digit_status<Shape::digits> status{portion.status};
  if constexpr (Shape::lookback_window >= 2) {
    static_assert(tracked_digits<Shape>::per == 1, "thread d < digits owns digit d");
    const cuda::std::uint32_t before = tile > 0 ? count_in_earlier_windows(status, tile, s.window) : 0;
    if (const int d = tracked_digits<Shape>::digit(0); d < Shape::digits)
      place_digit_run<Shape>(portion, tile, static_cast<cuda::std::uint32_t>(d), before, mine.count[0],
                             static_cast<cuda::std::uint32_t>(mine.first_staged[0]), s.offsets);
  } else {
#pragma unroll
    for (int u = 0; u < tracked_digits<Shape>::per; ++u)
      if (const int d = tracked_digits<Shape>::digit(u); d < Shape::digits) {
        const auto digit = static_cast<cuda::std::uint32_t>(d);
        const cuda::std::uint32_t before =
            tile > 0 ? count_in_earlier_tiles<Shape::digits, Shape::lookback_ahead>(status, tile, digit) : 0;
        place_digit_run<Shape>(portion, tile, digit, before, mine.count[u],
                               static_cast<cuda::std::uint32_t>(mine.first_staged[u]), s.offsets);
      }
  }
}

/// A ranked tile out: stage the keys in digit order (and the values, stages_values_early), look back
/// for where each digit's run goes, write the keys, then (otherwise load the values, and once every
/// thread is done with the staged keys, stage them in their place) write the values.
template <class Shape, bool Full, class K, class V, class Digit, class In, class Out>
__device__ __forceinline__ void write_tile(const onesweep_portion<K, V, Digit, In, Out>& portion, cuda::std::uint32_t tile,
                                           int valid, const K (&keys)[Shape::items], const int (&ranks)[Shape::items],
                                           const tracked_digits<Shape>& mine, onesweep_storage<Shape, K, V>& s) {
  const cuda::std::uint32_t first = tile * static_cast<cuda::std::uint32_t>(Shape::tile);
  stage<Shape, Full>(keys, ranks, valid, s.keys.Alias());
  if constexpr (has_values<V> && stages_values_early<Shape>)
    stage<Shape, Full>(load_values<Shape, Full>(portion, first, valid).items, ranks, valid, s.values());
  locate_digit_runs<Shape>(portion, tile, mine, s);
  __syncthreads();
  scatter_staged<Shape, Full, staged_items::keys>(portion, valid, s, s.keys.Alias(), portion.keys_out);
  if constexpr (has_values<V>) {
    if constexpr (!stages_values_early<Shape>) {
      const auto values = load_values<Shape, Full>(portion, first, valid);
      __syncthreads();  // the keys' write-out has read the staged keys the values replace
      stage<Shape, Full>(values.items, ranks, valid, s.values());
      __syncthreads();
    }
    scatter_staged<Shape, Full, staged_items::values>(portion, valid, s, s.values(), portion.values_out);
  }
}

/// One tile per block: load, rank (publishing the tile's digit counts early), then write_tile (full
/// tiles without bounds checks).
template <class Shape, class K, class V, class Digit, class In, class Out>
__global__ void __launch_bounds__(Shape::threads, (onesweep_min_blocks<Shape, Digit>))
    onesweep_kernel(onesweep_portion<K, V, Digit, In, Out> portion) {
  using rank_t = onesweep_rank<Shape>;
  static_assert(rank_t::BINS_TRACKED_PER_THREAD == Shape::digits_per_thread, "the rank's digits per thread are ours");
  static_assert(Shape::precomputed_digits == drops_digits<Digit>, "the shape is the one for how the pass ranks");
  extern __shared__ __align__(16) unsigned char onesweep_shared[];
  auto& s = *reinterpret_cast<onesweep_storage<Shape, K, V>*>(onesweep_shared);

  const cuda::std::uint32_t tile = take_tile(portion.next_tile, s.tile);
  const cuda::std::uint32_t first = tile * static_cast<cuda::std::uint32_t>(Shape::tile);
  const int valid = static_cast<int>(cuda::std::min<cuda::std::uint32_t>(Shape::tile, portion.n - first));
  const digit_status<Shape::digits> status{portion.status};

  K keys[Shape::items];
  int ranks[Shape::items];
  tracked_digits<Shape> mine{};
  // Called by the rank as soon as the tile's digit counts are known (each thread gets its digits'):
  // publishing them before the ranks shortens the wait of the tiles behind. Tile 0's counts are already
  // inclusive.
  auto publish_counts = [&](int (&bins)[tracked_digits<Shape>::per]) {
#pragma unroll
    for (int u = 0; u < tracked_digits<Shape>::per; ++u)
      if (const int d = tracked_digits<Shape>::digit(u); d < Shape::digits) {
        mine.count[u] = static_cast<cuda::std::uint32_t>(bins[u]);
        status.publish(tile, static_cast<cuda::std::uint32_t>(d), tile == 0 ? scan::tile_inclusive : scan::tile_aggregate,
                       mine.count[u]);
      }
  };
  if constexpr (drops_digits<Digit>) {
    // Keys, digits and ranks all live across the rank did not fit 80 registers (ncu at a968173, m = 32
    // keys: 12 bytes spilled, 2.5 M local-memory requests, 944 M instructions against CUB's 714 M). So
    // the rank holds the digits and ranks only, and the keys are read again afterwards (from L1/L2: the
    // tile was read a moment before).
    cuda::std::uint32_t digits[Shape::items];
    load_tile_digits<Shape>(portion.keys_in + first, valid, portion.digit, digits);
    rank_t(s.rank).RankKeys(digits, ranks, rank_precomputed{}, mine.first_staged, publish_counts);
    load_tile_unpadded<Shape>(portion.keys_in + first, valid, keys);
  } else {
    load_tile_keys<Shape>(portion.keys_in + first, valid, portion.digit, keys);
    rank_t(s.rank).RankKeys(keys, ranks, rank_digit<Digit>{portion.digit}, mine.first_staged, publish_counts);
  }
  __syncthreads();  // the rank's storage becomes the staged keys

  if (valid == Shape::tile) write_tile<Shape, true>(portion, tile, valid, keys, ranks, mine, s);
  else write_tile<Shape, false>(portion, tile, valid, keys, ranks, mine, s);
}

// ---- the sort --------------------------------------------------------------------------------------------

/// The passes of one onesweep sort of n ≥ 1 keys (and values; V = no_values: none) by `plan`, with
/// output offsets of type Offset (wide enough for n): the constructor counts every pass's digits (one
/// read of the keys), then pass() runs the plan's passes in order, each one kernel per portion.
/// radix_sort.cuh's run_passes chooses where each pass reads and writes. Digit: see drops_digits
/// (multisplit's onesweep strategy runs one pass of its bucket digits, DigitBits wide). Packed pairs
/// (K = packed_word, Digit = packed_digit) count the caller's keys and read and write each pass through
/// pointers to packed words or through pair_reader and pair_writer (packed_pairs.cuh).
template <class K, class V, class Offset, class Digit = radix_digit<K>, int DigitBits = max_pass_bits>
class onesweep_sort {
 public:
  using shape = onesweep_shape<K, V, Offset, DigitBits, drops_digits<Digit>>;

  onesweep_sort(context& ctx, const K* keys, std::size_t n, const pass_plan& plan, bool descending)
      : onesweep_sort(ctx, keys, n, digits_of<K>(plan, descending)) {}

  /// The passes of `digits` (count_digit_starts's Digits, counted over `keys`: K's, or, for packed
  /// pairs, the caller's keys), digits.passes of them.
  template <class CountedKey, class Digits>
  onesweep_sort(context& ctx, const CountedKey* keys, std::size_t n, const Digits& digits)
      : ctx_(ctx),
        n_(n),
        portions_(ceil_div(n, shape::portion)),
        passes_(static_cast<std::size_t>(digits.passes)),
        starts_(ctx, portions_ * passes_ * shape::digits),
        tile_counters_(ctx, portions_ * passes_),
        status_(ctx, ceil_div(std::min(n, shape::portion), shape::tile) * shape::digits) {
    check_storage(ctx);
    SLUICE_CUDA_CHECK(
        cudaMemsetAsync(starts_.get(), 0, passes_ * shape::digits * sizeof(unsigned long long), ctx.stream()));
    SLUICE_CUDA_CHECK(
        cudaMemsetAsync(tile_counters_.get(), 0, portions_ * passes_ * sizeof(std::uint32_t), ctx.stream()));
    static_assert(Digits::bins == shape::digits, "the histograms count the digits the pass ranks");
    count_digit_starts(ctx, keys, n, digits, starts_.get());
  }

  /// The next pass of the plan, by `digit`, from (from, from_values) to (to, to_values).
  void pass(const K* from, const V* from_values, K* to, V* to_values, Digit digit) {
    pass_through(from, from_values, to, to_values, digit);
  }

  /// The next pass of the plan, by `digit`, reading the keys through `from` and writing them through
  /// `to` (pointers, or packed_pairs.cuh's pair_reader and pair_writer).
  template <class In, class Out>
  void pass_through(In from, const V* from_values, Out to, V* to_values, Digit digit) {
    const auto kernel = onesweep_kernel<shape, K, V, Digit, In, Out>;
    SLUICE_CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(storage_bytes)));
    for (std::size_t q = 0; q < portions_; ++q) {
      const std::size_t begin = q * shape::portion;
      const auto count = static_cast<std::uint32_t>(std::min(shape::portion, n_ - begin));
      const std::size_t tiles = ceil_div(count, shape::tile);
      SLUICE_CUDA_CHECK(
          cudaMemsetAsync(status_.get(), 0, tiles * shape::digits * sizeof(std::uint32_t), ctx_.stream()));
      onesweep_portion<K, V, Digit, In, Out> work{from + begin, nullptr, to, to_values, count, digit,
                                                  starts(q, next_pass_),
                                                  q + 1 < portions_ ? starts(q + 1, next_pass_) : nullptr,
                                                  status_.get(), tile_counters_.get() + q * passes_ + next_pass_};
      if constexpr (has_values<V>) work.values_in = from_values + begin;
      kernel<<<static_cast<unsigned>(tiles), shape::threads, storage_bytes, ctx_.stream()>>>(work);
      SLUICE_CHECK_LAUNCH();
    }
    ++next_pass_;
  }

  /// Where each digit begins in pass p's output (shape::digits entries): the histogram's exclusive scan.
  const unsigned long long* digit_starts(std::size_t p) const { return starts(0, p); }

 private:
  static constexpr std::size_t storage_bytes = onesweep_storage_bytes<shape, K, V>;
  static_assert(storage_bytes <= onesweep_max_storage_bytes, "two blocks of the pass kernel fit an SM");
  static_assert(alignof(onesweep_storage<shape, K, V>) <= 16, "the dynamic shared memory is 16-byte aligned");

  /// The pass kernel takes its storage as dynamic shared memory past the 48 KiB a block has without
  /// opting in (each pass_through lets its kernel): a device with less to give is refused with a clear
  /// message.
  static void check_storage(const context& ctx) {
    if (storage_bytes > ctx.properties().shared_memory_per_block_optin)
      throw invalid_argument("onesweep", "values",
                             "this key and value type needs " + std::to_string(storage_bytes) +
                                 " bytes of shared memory per block; the device gives " +
                                 std::to_string(ctx.properties().shared_memory_per_block_optin));
  }

  /// Portion q's digit starts in pass p: portion 0's from the histograms, each later portion's from the
  /// last tile of the portion before it in the same pass.
  unsigned long long* starts(std::size_t q, std::size_t p) const {
    return starts_.get() + (q * passes_ + p) * shape::digits;
  }

  context& ctx_;
  std::size_t n_;
  std::size_t portions_;
  std::size_t passes_;
  scan::scratch<unsigned long long> starts_;     ///< [portion][pass][digit]
  scan::scratch<std::uint32_t> tile_counters_;  ///< [portion][pass], zeroed
  scan::scratch<std::uint32_t> status_;         ///< one portion's [tile][digit], zeroed before each kernel
  std::size_t next_pass_ = 0;
};

}  // namespace sluice::detail::radix_sort
