// sluice/detail/string_match/rollers.hpp: a thread's work in the divide-and-conquer matchers (Ashkiani
// §2.4, §2.6.2), as host-device functions: the rollers (a window's fingerprint advanced one character at
// a time: DRK-WOM's packed window, DRK's F_p) and match_word, which rolls one over a thread's 32
// positions. drk.cuh runs match_word in its kernel; tests/host/string_match_rollers_test.cpp runs the same
// function over host memory, thread by thread, against the oracle.
#pragma once

#include <sluice/core/config.hpp>
#include <sluice/core/operators.hpp>
#include <sluice/detail/string_match/fingerprint.hpp>
#include <sluice/detail/string_match/layout.hpp>

#include <cuda/std/cstddef>
#include <cuda/std/cstdint>

// Unrolls a loop in device code; host compilers (the host tests, nvcc's host pass) do not know the pragma.
#if defined(__CUDA_ARCH__)
#define SLUICE_STRING_MATCH_UNROLL _Pragma("unroll")
#else
#define SLUICE_STRING_MATCH_UNROLL
#endif

namespace sluice::detail::string_match {

/// What every matching kernel reads of the pattern, computed on the device (summary.cuh).
struct pattern_summary {
  unsigned long long packed;    ///< drk_wom32/64: the pattern packed; drk_2s: the subpattern packed
  unsigned long long bytes;     ///< the same characters' first byte_window_max as bytes (pack_bytes)
  uint32_t modular;             ///< drk: F_p(X)
  mat2 matrix;                  ///< crk, hrk: K_p(X)
  unsigned long long mersenne;  ///< crk_recurrence: X's fingerprint mod 2^61 − 1
};

// ---- rollers: a window's fingerprint, one character at a time ---------------------------------------------

/// DRK-WOM: the packed window against the packed pattern (or subpattern).
template <class Word>
struct packed_roller {
  using state = Word;
  static constexpr bool needs_outgoing = false;
  packed_window<Word> window;
  Word target;

  SLUICE_HOST_DEVICE packed_roller(int sigma, int w, const pattern_summary& summary)
      : window(sigma, w), target(static_cast<Word>(summary.packed)) {}
  SLUICE_HOST_DEVICE Word roll(Word f, uint32_t, uint32_t incoming) const { return window.push(f, incoming); }
  SLUICE_HOST_DEVICE bool hit(Word f) const { return f == target; }
};

/// DRK: F_p rolled mod p.
struct modular_roller {
  using state = uint32_t;
  static constexpr bool needs_outgoing = true;
  modular_window window;
  uint32_t target;

  SLUICE_HOST_DEVICE modular_roller(uint32_t p, int sigma, size_t w, const pattern_summary& summary)
      : window(p, sigma, w), target(summary.modular) {}
  SLUICE_HOST_DEVICE uint32_t roll(uint32_t f, uint32_t outgoing, uint32_t incoming) const {
    return window.roll(f, outgoing, incoming);
  }
  SLUICE_HOST_DEVICE bool hit(uint32_t f) const { return f == target; }
};

/// The longest window byte_windows compare: eight characters, one 64-bit word.
inline constexpr int byte_window_max = 8;

/// Bytes [b, b + 4) of the little-endian pair (lo, hi), b ≤ 3: a word of the text at any byte offset.
SLUICE_HOST_DEVICE inline uint32_t funnel_bytes(uint32_t lo, uint32_t hi, int b) {
  if (b == 0) return lo;
#if defined(__CUDA_ARCH__)
  return __funnelshift_r(lo, hi, 8 * b);
#else
  return (lo >> (8 * b)) | (hi << (32 - 8 * b));
#endif
}

/// bits | bit where `differ` is zero. On the device one predicated add: ptxas otherwise moves the bit
/// into a register by a select and adds three at a time, 1.5 integer-pipe instructions a position
/// against none (the byte windows are bound by that pipe: docs/perf-notes.md).
SLUICE_HOST_DEVICE inline uint32_t with_bit_if_zero(uint32_t bits, uint32_t differ, uint32_t bit) {
#if defined(__CUDA_ARCH__)
  asm("{ .reg .pred z; setp.eq.u32 z, %1, 0; @z add.u32 %0, %0, %2; }" : "+r"(bits) : "r"(differ), "r"(bit));
  return bits;
#else
  return differ == 0 ? bits | bit : bits;
#endif
}

/// The packed windows of w ≤ 8 characters read straight from the text's bytes (issue 28's register
/// path, drk.cuh): a thread's characters in little-endian words, the window at position k is bytes
/// [k, k + w) of them, equal to the (sub)pattern iff its masked XOR with summary.bytes is zero. Two
/// funnel shifts, two masked XORs and a compare a position, where rolling costs a shared-memory load
/// and a dependent shift, or and mask per character (docs/perf-notes.md).
template <class Word>
struct byte_windows {
  static constexpr bool wide = sizeof(Word) == 8;
  /// Words of characters a thread needs: 32 positions + w − 1 ≤ 35 (or 39) characters.
  static constexpr int words = wide ? 10 : 9;
  uint32_t target_lo, target_hi, mask_lo, mask_hi;

  SLUICE_HOST_DEVICE byte_windows(int sigma, int w, unsigned long long bytes) {
    const unsigned long long mask = byte_window_mask(w, sigma);
    target_lo = static_cast<uint32_t>(bytes);
    target_hi = static_cast<uint32_t>(bytes >> 32);
    mask_lo = static_cast<uint32_t>(mask);
    mask_hi = static_cast<uint32_t>(mask >> 32);
  }

  /// The hits of positions 0 … 31, whose characters are bytes 0 … 31 + w − 1 of `chars`. The first four
  /// characters filter; the next four are compared only where one of the 32 windows passed (on random
  /// text of σ = 8 almost never), which halves the instructions of a wide window.
  SLUICE_HOST_DEVICE uint32_t match(const uint32_t (&chars)[words]) const {
    uint32_t bits = equal_words<0>(chars, target_lo, mask_lo);
    if constexpr (wide)
      if (bits != 0) bits &= equal_words<1>(chars, target_hi, mask_hi);
    return bits;
  }

 private:
  /// Positions k whose window word `Half` (bytes [k + 4·Half, k + 4·Half + 4)) equals `target` under `mask`.
  template <int Half>
  SLUICE_HOST_DEVICE static uint32_t equal_words(const uint32_t (&chars)[words], uint32_t target, uint32_t mask) {
    uint32_t bits = 0;
SLUICE_STRING_MATCH_UNROLL
    for (int k = 0; k < positions_per_thread; ++k) {
      const int i = k / 4 + Half;
      bits = with_bit_if_zero(bits, (funnel_bytes(chars[i], chars[i + 1], k % 4) ^ target) & mask, 1u << k);
    }
    return bits;
  }
};

/// How a kernel builds its roller from the summary on the device (the parameters are the host's).
template <class Word>
struct packed_spec {
  using roller = packed_roller<Word>;
  int sigma;
  int w;
  SLUICE_HOST_DEVICE roller bind(const pattern_summary& s) const { return roller(sigma, w, s); }
};

/// A packed spec whose windows (w ≤ 8) the kernel reads as byte_windows<Window> from registers; the
/// packed roller serves the text's last characters, read one at a time.
template <class Word, class Window>
struct byte_window_spec {
  using roller = packed_roller<Word>;
  using windows = byte_windows<Window>;
  int sigma;
  int w;
  SLUICE_HOST_DEVICE roller bind(const pattern_summary& s) const { return roller(sigma, w, s); }
  SLUICE_HOST_DEVICE windows bind_windows(const pattern_summary& s) const { return windows(sigma, w, s.bytes); }
};

struct modular_spec {
  using roller = modular_roller;
  uint32_t p;
  int sigma;
  size_t w;
  SLUICE_HOST_DEVICE roller bind(const pattern_summary& s) const { return roller(p, sigma, w, s); }
};

/// Character j of a run read in place.
struct global_run {
  const unsigned char* first;
  SLUICE_HOST_DEVICE uint32_t operator[](size_t j) const { return first[j]; }
};

/// The candidates of a thread's `valid` positions, whose windows start at run character `start`.
template <class Roller, class Run>
SLUICE_HOST_DEVICE uint32_t match_word(const Roller& roller, const Run& run, size_t start, int valid, size_t w,
                                       uint32_t mask) {
  uint32_t bits = 0;
  if (valid <= 0) return bits;
  typename Roller::state f = 0;
  for (size_t j = 0; j + 1 < w; ++j) f = roller.roll(f, 0u, run[start + j] & mask);
SLUICE_STRING_MATCH_UNROLL
  for (int k = 0; k < positions_per_thread; ++k) {
    if (k < valid) {
      const uint32_t outgoing = Roller::needs_outgoing && k > 0 ? run[start + static_cast<size_t>(k) - 1] & mask : 0u;
      f = roller.roll(f, outgoing, run[start + static_cast<size_t>(k) + w - 1] & mask);
      bits |= static_cast<uint32_t>(roller.hit(f)) << k;
    }
  }
  return bits;
}

}  // namespace sluice::detail::string_match
