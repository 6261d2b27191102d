// sluice/string_match.cuh: exact string matching on the GPU, the Rabin–Karp family (Ashkiani ch. 2).
//
//   string_match(ctx, text, pattern, match_count{count})                   *count = the matches
//   string_match(ctx, text, pattern, match_positions{positions, count})    the positions, ascending
//   string_match(ctx, text, pattern, match_bitmap{words})                  bit r % 32 of words[r / 32]
//
// A match is every r with text[r, r + m) = pattern, 0 ≤ r ≤ n − m; overlapping matches all count ("aaaa"
// occurs 5 times in "aaaaaaaa"). Characters have σ = options.alphabet_bits bits (1 to 8, default 8: any
// byte) and compare by those bits.
//
// Strategies (options.algorithm; docs/string_match.md says when each wins):
//   crk             two device-wide scans of 2x2 matrix fingerprints mod p (§2.3.2)
//   crk_recurrence  one scan of a linear recurrence, 61-bit fingerprints (the seed's unexplored variant)
//   drk             a thread rolls F_p over its 32 positions, the block's text staged in shared memory
//   drk_wom32/64    the same with the window packed into 32/64 bits: exact; need σ·m ≤ 32 / 64
//   hrk             each block runs CRK on its subtext with block scans
//   drk_2s          skim for a subpattern with DRK-WOM, verify candidates warp-cooperatively (§2.5)
//   automatic       drk_wom32, drk_wom64, then drk_2s as σ·m grows (detail/string_match/tuning.hpp)
// Results are exact: candidates from fingerprints that can collide are compared with the pattern byte
// by byte (options.verification = exact, the default); `fingerprint` keeps the seed's probabilistic
// results (false positives possible for crk, crk_recurrence, drk, hrk; docs/string_match.md).
//
// Bad input: an empty pattern is invalid_argument("pattern") (every position would match; `sluice grep`
// gives the empty pattern grep's meaning, every line); a pattern longer than the text has no matches
// (count 0, nothing written); σ outside 1..8 is invalid_argument("options.alphabet_bits"); for σ < 8 a
// character with higher bits is invalid_argument naming "text" or "pattern" and its first index. That
// check waits for its result (one synchronisation of ctx's stream; options.check_alphabet = false skips
// it, and characters are then compared by their low σ bits). Everything else is asynchronous on
// ctx.stream(): the count and positions are written on the device; temporaries come from the pool.
//
// Outputs: match_positions writes the first positions.size() positions and counts them all (as
// select_if); match_bitmap needs string_match_bitmap_words(n, m) words (the last word's bits past n − m
// are 0; words beyond are not written). Outputs must not overlap the text or pattern.
//
//   sluice::string_match(ctx, text.span(), pattern.span(), sluice::match_count{count.data()});
//   sluice::string_match(ctx, dna.span(), motif.span(), sluice::match_positions{hits.span(), count.data()},
//                        {.alphabet_bits = 2});
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/detail/string_match/dispatch.cuh>
#include <sluice/options/string_match.hpp>

#include <cuda/std/span>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace sluice {

/// *count (device) = the number of matches.
struct match_count {
  std::size_t* count;
};

/// positions (device) = the matches' first characters, ascending (the first positions.size() of them);
/// *count (device) = the number of matches.
struct match_positions {
  cuda::std::span<std::size_t> positions;
  std::size_t* count;
};

/// words (device): bit r % 32 of words[r / 32] set where a match starts at r.
struct match_bitmap {
  cuda::std::span<std::uint32_t> words;
};

/// Words of a match bitmap of a text of n characters and a pattern of m: ⌈(n − m + 1)/32⌉, 0 for n < m.
[[nodiscard]] constexpr std::size_t string_match_bitmap_words(std::size_t n, std::size_t m) {
  return detail::string_match::bitmap_words(detail::string_match::match_positions(n, m));
}

/// *out.count = the number of positions where pattern occurs in text.
template <class T, std::size_t E1, class P, std::size_t E2>
  requires detail::string_match::byte_like<T> && detail::string_match::byte_like<P>
void string_match(context& ctx, cuda::std::span<T, E1> text, cuda::std::span<P, E2> pattern, match_count out,
                  const string_match_options& options = {}) {
  namespace sm = detail::string_match;
  sm::match_output o;
  o.what = sm::match_output::kind::count;
  o.count = out.count;
  sm::dispatch(ctx, "string_match", sm::as_bytes(text), sm::as_bytes(pattern), o, options);
}

/// The positions where pattern occurs in text, ascending, and their number.
template <class T, std::size_t E1, class P, std::size_t E2>
  requires detail::string_match::byte_like<T> && detail::string_match::byte_like<P>
void string_match(context& ctx, cuda::std::span<T, E1> text, cuda::std::span<P, E2> pattern, match_positions out,
                  const string_match_options& options = {}) {
  namespace sm = detail::string_match;
  sm::match_output o;
  o.what = sm::match_output::kind::positions;
  o.count = out.count;
  o.positions = out.positions.data();
  o.capacity = out.positions.size();
  sm::dispatch(ctx, "string_match", sm::as_bytes(text), sm::as_bytes(pattern), o, options);
}

/// The bitmap of the positions where pattern occurs in text.
template <class T, std::size_t E1, class P, std::size_t E2>
  requires detail::string_match::byte_like<T> && detail::string_match::byte_like<P>
void string_match(context& ctx, cuda::std::span<T, E1> text, cuda::std::span<P, E2> pattern, match_bitmap out,
                  const string_match_options& options = {}) {
  namespace sm = detail::string_match;
  sm::match_output o;
  o.what = sm::match_output::kind::bitmap;
  o.words = out.words.data();
  o.word_capacity = out.words.size();
  sm::dispatch(ctx, "string_match", sm::as_bytes(text), sm::as_bytes(pattern), o, options);
}

}  // namespace sluice
