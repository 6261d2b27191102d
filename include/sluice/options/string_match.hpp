// sluice/options/string_match.hpp: the public option types of string_match.cuh (Ashkiani ch. 2), beside it
// so that its dispatch (detail/string_match/dispatch.cuh) can name them without the entry points.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace sluice {

/// The matcher (Ashkiani §2.3–§2.5; docs/string_match.md says when each wins).
enum class string_match_algorithm {
  automatic,       ///< drk_wom32 where σ·m ≤ 32, drk_wom64 where σ·m ≤ 64, else drk_2s (tuning.hpp)
  crk,             ///< cooperative RK: two device-wide scans of 2x2 matrix fingerprints mod p (§2.3.2)
  crk_recurrence,  ///< one scan of the recurrence x_i = B·x_{i−1} + y_i − B^m·y_{i−m} mod 2^61 − 1 (§2.3.2)
  drk,             ///< divide and conquer: each thread rolls F_p over its 32 positions (§2.4, §2.6.2)
  drk_wom32,       ///< DRK without modulo: the window packed into 32 bits, exact; needs σ·m ≤ 32
  drk_wom64,       ///< the same in 64 bits; needs σ·m ≤ 64
  hrk,             ///< hybrid: each block runs CRK with block scans on its subtext (§2.4, §2.6.3)
  drk_2s,          ///< two stages: skim for a subpattern with DRK-WOM, verify each candidate by a warp (§2.5)
};

[[nodiscard]] constexpr std::string_view to_string(string_match_algorithm algorithm) {
  switch (algorithm) {
    case string_match_algorithm::automatic: return "automatic";
    case string_match_algorithm::crk: return "crk";
    case string_match_algorithm::crk_recurrence: return "crk_recurrence";
    case string_match_algorithm::drk: return "drk";
    case string_match_algorithm::drk_wom32: return "drk_wom32";
    case string_match_algorithm::drk_wom64: return "drk_wom64";
    case string_match_algorithm::hrk: return "hrk";
    case string_match_algorithm::drk_2s: return "drk_2s";
  }
  return "?";
}

/// How a candidate that the fingerprints found becomes a match.
enum class match_verification {
  exact,        ///< every candidate's m characters are compared with the pattern: the result is exact
  fingerprint,  ///< the fingerprints decide (the seed's behaviour): crk, crk_recurrence, drk and hrk may
                ///< report false positives (rate in docs/string_match.md); drk_2s verifies by 32-lane
                ///< chunk fingerprints mod p (§2.5). drk_wom32/64 are exact either way.
};

[[nodiscard]] constexpr std::string_view to_string(match_verification verification) {
  return verification == match_verification::exact ? "exact" : "fingerprint";
}

struct string_match_options {
  string_match_algorithm algorithm = string_match_algorithm::automatic;
  /// σ, the bits of a character: 1 to 8. Characters are compared by their low σ bits.
  int alphabet_bits = 8;
  match_verification verification = match_verification::exact;
  /// For σ < 8: check that no text or pattern character has bits above σ, and throw invalid_argument
  /// naming the first that does. The check waits for its result (one synchronisation of ctx's stream);
  /// with false there is none and characters are compared by their low σ bits.
  bool check_alphabet = true;
  /// Seeds the random primes and bases of the modular fingerprints (a fixed seed: reproducible runs).
  std::uint64_t seed = 0x5eed;
  /// drk_2s: m̄, the subpattern's length; 0: the tuning's (16 characters for σ ≤ 4, else 8, §2.8.4), at
  /// most 64/σ and m.
  int subpattern_length = 0;
  /// drk_2s: where the subpattern starts in the pattern (0: its prefix); offset + m̄ ≤ m.
  std::size_t subpattern_offset = 0;
};

/// Options of multi_string_match and pattern_set.
struct multi_string_match_options {
  /// σ, the bits of a character: 1 to 8 (patterns are checked on the host; the text as string_match's).
  int alphabet_bits = 8;
  /// As string_match_options::check_alphabet, for the text.
  bool check_alphabet = true;
};

/// Options of the streaming drivers (string_match_stream, multi_string_match_stream).
struct stream_options {
  /// New characters a chunk: the pinned and device buffers hold two chunks and their halos.
  std::size_t chunk_bytes = std::size_t{64} << 20;
};

/// One chunk of a streamed text, as the streaming drivers (and `sluice grep`'s CPU path) deliver it.
struct stream_chunk {
  std::size_t offset = 0;                  ///< the text position of bytes[0]
  std::span<const unsigned char> bytes;    ///< [0, halo): the end of the previous chunk; then new characters
  std::size_t halo = 0;                    ///< at most the longest pattern − 1
  std::span<const std::uint32_t> bitmap;   ///< bit r of bitmap[r / 32]: a match starts at offset + r
};

}  // namespace sluice
