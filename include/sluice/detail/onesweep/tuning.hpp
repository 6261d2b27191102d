// sluice/detail/onesweep/tuning.hpp: the onesweep engine's limits, its launch shapes by architecture
// (the pass kernel's tile: CUB's SM90 table, scaled to the element and the digit count; the histogram's)
// and the shapes the kernels take from them. Tuning is data; the measurements are in docs/perf-notes.md.
#pragma once

#include <sluice/core/config.hpp>
#include <sluice/core/values.hpp>
#include <sluice/detail/onesweep/pass_plan.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace sluice::detail::onesweep {

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

// ---- the tables (tuning) --------------------------------------------------------------------------------

struct onesweep_nominal {
  int threads;
  int items;  ///< for elements of 4 bytes; scaled down for wider ones
};

/// sm_90 (H100).
struct sm90_tuning {
  /// The pass kernel: CUB's SM90 onesweep tuning (cub/device/dispatch/tuning/tuning_radix_sort.cuh:
  /// Policy900's OnesweepSmallKeyTunedPolicy and sm90_small_key_tuning): threads and items per thread at
  /// 4 bytes per element, by key, value (0: keys only) and offset size (4: n < 2^32, else 8). CUB's
  /// measurements, not ours; ours of the sort they give are in docs/radix_sort.md.
  static constexpr onesweep_nominal nominal(int key_bytes, int value_bytes, int offset_bytes, bool float_keys) {
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

  /// A pass that ranks precomputed digits (a dropping Digit: the digits live across the rank and the
  /// keys are read again after it, load_tile_digits): CUB's shape, but 4-byte keys with 4-byte values
  /// and 32-bit offsets take 20 items, where CUB's 23 spilled 72-88 bytes (ptxas sm_90, 837aaa4;
  /// docs/perf-notes.md, onesweep pass shapes).
  static constexpr onesweep_nominal precomputed_digits_nominal(onesweep_nominal cub, int key_bytes, int value_bytes,
                                                               int offset_bytes) {
    if (key_bytes == 4 && value_bytes == 4 && offset_bytes == 4) return {cub.threads, 20};
    return cub;
  }

  /// Blocks per SM the pass kernel asks for at least: the occupancy CUB's SM90 kernels compile to
  /// (ptxas, 2026-11-22; docs/perf-notes.md, onesweep blocks per SM). Not swept.
  static constexpr int min_blocks_per_sm = 2;
  /// Blocks per SM of a dropping Digit's keys-only pass of 4-byte keys: CUB's keys-only kernel's (56
  /// registers; ncu at a968173, H100), which ptxas fits without spills there. Not swept.
  static constexpr int dropping_keys_min_blocks_per_sm = 3;

  /// Earlier tiles each digit's thread reads at once where the look-back has no window: 4 for keys
  /// (a5fff72, H100, 2^28: the u32 keys sort 5.97 → 5.46 ms), 1 (CUB's walk) for pairs, which 4 made
  /// slower (7ef30f4; docs/perf-notes.md, onesweep look-back read-ahead).
  static constexpr int lookback_ahead_keys = 4;
  static constexpr int lookback_ahead_pairs = 1;

  /// The most dynamic shared memory a pass kernel's block takes, so that two blocks fit the H100's
  /// 227 KiB an SM (not measured: the SM's size).
  static constexpr std::size_t max_storage_bytes = 113 * 1024;

  /// The histogram kernel: CUB's SM90 shape, 128 threads × 16 keys (not swept here).
  static constexpr int histogram_threads = 128;
  static constexpr int histogram_items = 16;
  /// Privatised copies of the histogram's counters: this many bytes / the key's size, at most
  /// histogram_max_copies, and as many as fit histogram_copies_bytes (ba970a0, H100: the radix sort's
  /// histogram with one copy instead of four 587 → 537 µs; docs/perf-notes.md, onesweep histogram copies).
  static constexpr std::size_t histogram_copies_key_bytes = 16;
  static constexpr int histogram_max_copies = 8;
  static constexpr std::size_t histogram_copies_bytes = 4096;
};

/// A table per architecture; those not measured take sm_90's.
template <int Arch>
struct tuning_for : sm90_tuning {};

using tuning = tuning_for<SLUICE_TUNING_ARCH>;

// ---- the shapes the kernels take -------------------------------------------------------------------------

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
  static constexpr onesweep_nominal cub_nominal =
      tuning::nominal(key_bytes, value_bytes, static_cast<int>(sizeof(Offset)), std::is_same_v<K, float>);
  static constexpr onesweep_nominal nominal =
      PrecomputedDigits
          ? tuning::precomputed_digits_nominal(cub_nominal, key_bytes, value_bytes, static_cast<int>(sizeof(Offset)))
          : cub_nominal;
  static constexpr int scaled_items = nominal.items * 4 / (element_bytes > 4 ? element_bytes : 4);
  static constexpr int items = scaled_items < 1 ? 1 : scaled_items;
  static constexpr int staging_bytes = onesweep_shared_bytes - digits * static_cast<int>(sizeof(Offset)) - 16;
  static constexpr int threads_fitting = staging_bytes / (element_bytes * items) / 32 * 32;
  static constexpr int threads = nominal.threads < threads_fitting ? nominal.threads : threads_fitting;
  static constexpr int tile = threads * items;
  /// Keys per portion: the most whole tiles within onesweep_portion_limit.
  static constexpr std::size_t portion = onesweep_portion_limit / tile * tile;
  /// Blocks per SM at least, so that one block's look-back and barriers overlap another's loads (the
  /// bound also keeps ptxas from giving 1- and 2-byte keys one block of 512 threads). Dropping digits
  /// ask for more where they can (onesweep_min_blocks).
  static constexpr int min_blocks_per_sm = tuning::min_blocks_per_sm;

  /// Digits each thread tracks in the rank and looks back for (cub's BINS_TRACKED_PER_THREAD): thread t
  /// takes digits t · digits_per_thread … t · digits_per_thread + digits_per_thread − 1.
  static constexpr int digits_per_thread = (digits + threads - 1) / threads;
  /// Earlier tiles the look-back reads at once per digit: the threads per digit (≥ 2: the block's
  /// windowed look-back, count_in_earlier_windows; else each digit's thread walks back alone).
  static constexpr int lookback_window = threads / digits;
  /// Earlier tiles each digit's thread reads at once where the look-back has no window
  /// (count_in_earlier_tiles): several for keys, one (CUB's walk) for pairs.
  static constexpr int lookback_ahead =
      value_bytes > 0 ? tuning::lookback_ahead_pairs : tuning::lookback_ahead_keys;
};

/// The histogram kernel's shape: the table's threads × items, with privatised copies of the counters
/// (CUB on SM90 keeps one) where they are few: histogram_copies_key_bytes / sizeof(K) copies (at most
/// histogram_max_copies) while all of them stay within histogram_copies_bytes. So multisplit's one pass
/// of 32 digits keeps 4 copies of 128 bytes, and the radix sort's 4 passes × 256 digits of u32 keys keep
/// one, as CUB.
template <class K, class Digits>
struct onesweep_histogram_shape {
  static constexpr int threads = tuning::histogram_threads;
  static constexpr int items = tuning::histogram_items;
  static constexpr std::size_t copy_bytes = std::size_t{Digits::max_passes} * Digits::bins * sizeof(std::uint32_t);
  static constexpr int copies_by_key =
      tuning::histogram_copies_key_bytes / sizeof(K) > tuning::histogram_max_copies
          ? tuning::histogram_max_copies
          : static_cast<int>(tuning::histogram_copies_key_bytes / sizeof(K));
  static constexpr int copies_by_bytes = tuning::histogram_copies_bytes / copy_bytes < 1
                                             ? 1
                                             : static_cast<int>(tuning::histogram_copies_bytes / copy_bytes);
  static constexpr int copies = copies_by_key < copies_by_bytes ? copies_by_key : copies_by_bytes;
  static constexpr std::size_t tile = std::size_t{threads} * items;
  /// How a thread loads its keys: thread-striped one key per load (CUB's) where each key feeds several
  /// passes' counters, 16-byte vectors for one pass: each the faster there (1d62b86 and a49ad91, H100;
  /// docs/perf-notes.md, onesweep histogram loads).
  static constexpr bool vector_loads = Digits::max_passes == 1;
};

}  // namespace sluice::detail::onesweep
