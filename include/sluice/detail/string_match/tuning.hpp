// sluice/detail/string_match/tuning.hpp: the string matchers' block shapes, the subpattern length of
// DRK-2S, the verification chunk and the automatic choice's thresholds, by architecture. Tuning is data:
// the plan (plan.hpp) and the kernels read these. None is measured on the H100 yet: the values follow
// the seed (Ashkiani §2.8, K40c) until bench/cases/string_match.cu sweeps them (docs/perf-notes.md).
#pragma once

#include <sluice/block/tile_shape.hpp>
#include <sluice/core/config.hpp>

namespace sluice::detail::string_match {

/// sm_90 (H100).
struct sm90_tuning {
  /// N_T of the DRK family (drk, drk_wom32/64, drk_2s) and of multi_string_match: the seed's 256 (§2.8).
  /// Each thread owns 32 positions (layout.hpp), so a block stages 8192 + w − 1 characters.
  static constexpr int drk_threads = 256;

  /// CRK's and crk_recurrence's scan tiles: 128 threads × 8 positions (a bitmap word is four threads'
  /// bits), the scan family's single-pass block size.
  using crk_tile = block::tile_shape<128, 8>;
  /// HRK: a block of 128 threads × 8 characters scans its subtext in rounds of 1024 characters.
  using hrk_tile = block::tile_shape<128, 8>;

  /// DRK-2S verification: a warp compares 32 × 4 = 128 characters a step (the seed's suggested 128-
  /// character chunks, §2.8.3, read as 4 bytes a lane).
  static constexpr int verify_chars_per_lane = 4;

  /// m̄: 16 characters for σ ≤ 4, 8 otherwise (§2.8.4, Table 2.4); the plan caps it at 64/σ and m.
  [[nodiscard]] static constexpr int subpattern_chars(int sigma) { return sigma <= 4 ? 16 : 8; }

  /// automatic: the packed windows while they fit (DRK-WOM-32 beat WOM-64 beat DRK wherever they apply,
  /// Table 2.2), then DRK-2S (flat 50–63 GB/s from m = 8 to 1024 against DRK's 40 → 5, Tables 2.3–2.4;
  /// it stayed ahead of every other GPU method up to m = 2^16, §2.8.3).
  static constexpr int automatic_wom32_max_bits = 32;
  static constexpr int automatic_wom64_max_bits = 64;
  /// ... and while the pattern has at most this many characters: a window's cost grows with m on binary
  /// text. 2026-11-29, f8da371, H200, σ = 1, 2^30 characters: m = 16 wom32 1.404 ms, drk_2s 1.404; m = 32
  /// wom32 1.672, drk_2s 1.423; m = 8 wom64 0.371, wom32 0.382; m = 64 wom64 2.644, drk_2s 1.423. σ = 2
  /// and 4 past 8 characters not measured.
  static constexpr int automatic_wom32_max_characters = 16;
  static constexpr int automatic_wom64_max_characters = 8;

  /// multi_string_match: keys of at most this many characters (and 64/σ) select the candidates; the
  /// open-addressing tables are at most half full.
  static constexpr int multi_max_key_chars = 16;
  /// The prefix filter (pattern_table.hpp): 2^8 bits a distinct prefix, 2^10 to 2^18 bits (128 B to
  /// 32 KiB of shared memory a block: seven 256-thread blocks an SM still fit at the largest).
  static constexpr int multi_filter_bits_per_prefix_log2 = 8;
  static constexpr int multi_filter_min_log2 = 10;
  static constexpr int multi_filter_max_log2 = 18;
  static constexpr int multi_table_load_percent = 50;
};

/// A table per architecture; those not measured take sm_90's.
template <int Arch>
struct tuning_for : sm90_tuning {};

using tuning = tuning_for<SLUICE_TUNING_ARCH>;

}  // namespace sluice::detail::string_match
