// sluice/detail/onesweep/tuning.hpp: the onesweep engine's tuning: its limits, the pass kernel's tile
// shape (CUB's SM90 table, scaled to the element and the digit count) and the histogram kernel's shape.
// Pure constexpr host-and-device code; the measurements behind each choice are in docs/perf-notes.md.
#pragma once

#include <sluice/core/values.hpp>
#include <sluice/detail/onesweep/pass_plan.hpp>

#include <cuda/std/type_traits>

#include <cstddef>
#include <cstdint>

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

}  // namespace sluice::detail::onesweep
