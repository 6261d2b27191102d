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

/// How a kernel builds its roller from the summary on the device (the parameters are the host's).
template <class Word>
struct packed_spec {
  using roller = packed_roller<Word>;
  int sigma;
  int w;
  SLUICE_HOST_DEVICE roller bind(const pattern_summary& s) const { return roller(sigma, w, s); }
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
