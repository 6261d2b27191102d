// sluice/string_match.cuh: exact string matching on the GPU, the Rabin–Karp family (Ashkiani ch. 2).
//
//   string_match(ctx, text, pattern, match_count{count})                   *count = the matches
//   string_match(ctx, text, pattern, match_positions{positions, count})    the positions, ascending
//   string_match(ctx, text, pattern, match_bitmap{words})                  bit r % 32 of words[r / 32]
//   multi_string_match(ctx, text, pattern_set, hits, count)                 (position, pattern) pairs
//   string_match_stream(ctx, read, pattern, on_chunk), multi_string_match_stream(...)
//                                                                           texts larger than GPU memory
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
//
// docs/string_match.md: the fingerprints, the strategies and when each wins, many patterns, streaming, grep.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/detail/string_match/dispatch.cuh>
#include <sluice/options/string_match.hpp>

#include <cuda/std/span>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
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

// ---- many patterns at once ---------------------------------------------------------------------------------

/// A match of the set's pattern `pattern` (its index) at text position `position`.
using string_match_hit = detail::string_match::multi_hit;

/// A prepared set of patterns for multi_string_match, reusable across texts: the patterns and their
/// static hash table (keys: packed prefixes of up to 64/σ and 16 characters, grouped by length;
/// detail/string_match/pattern_table.hpp) in device memory. Built on the host from host strings (the
/// constructor waits for the upload); ctx must outlive the set. Bad patterns are invalid_argument
/// ("patterns", index of the first bad one): none at all, an empty one, or a character above σ bits.
class pattern_set {
 public:
  pattern_set(context& ctx, std::span<const std::string_view> patterns, const multi_string_match_options& options = {})
      : table_(ctx, detail::string_match::build_pattern_table("pattern_set", patterns, options.alphabet_bits)),
        check_alphabet_(options.check_alphabet) {
    ctx.synchronize();
  }

  [[nodiscard]] std::size_t size() const { return table_.host().lengths.size(); }
  [[nodiscard]] std::size_t longest() const { return table_.host().longest; }
  [[nodiscard]] std::size_t shortest() const { return table_.host().shortest; }
  [[nodiscard]] int alphabet_bits() const { return table_.host().sigma; }
  [[nodiscard]] bool checks_alphabet() const { return check_alphabet_; }
  /// Words of the bitmap of a text of n characters: one bit for each position a pattern could start at.
  [[nodiscard]] std::size_t bitmap_words(std::size_t n) const {
    return detail::string_match::bitmap_words(detail::string_match::match_positions(n, shortest()));
  }
  [[nodiscard]] const detail::string_match::device_pattern_table& table() const { return table_; }

 private:
  detail::string_match::device_pattern_table table_;
  bool check_alphabet_;
};

/// Every (position, pattern) with text[position, position + |pattern|) = pattern, sorted by position and
/// then by pattern index, into hits (the first hits.size() of them); *count (device) = their number.
/// Overlapping matches and patterns that are prefixes of one another all count. For σ < 8 the text's
/// alphabet is checked as string_match's (one synchronisation) unless the set was built without it.
template <class T, std::size_t E1, std::size_t E2>
  requires detail::string_match::byte_like<T>
void multi_string_match(context& ctx, cuda::std::span<T, E1> text, const pattern_set& set,
                        cuda::std::span<string_match_hit, E2> hits, std::size_t* count) {
  detail::string_match::multi_hits_dispatch(ctx, "multi_string_match", detail::string_match::as_bytes(text), set.table(),
                                            set.checks_alphabet(), {hits.data(), hits.size()}, count);
}

/// Bit r of words: some pattern of the set starts at r (set.bitmap_words(n) words are written).
template <class T, std::size_t E1>
  requires detail::string_match::byte_like<T>
void multi_string_match(context& ctx, cuda::std::span<T, E1> text, const pattern_set& set, match_bitmap out) {
  detail::string_match::multi_bitmap_dispatch(ctx, "multi_string_match", detail::string_match::as_bytes(text),
                                              set.table(), set.checks_alphabet(), out.words);
}

/// The same for patterns given once (a set is built and freed inside the call, which waits for its upload).
template <class T, std::size_t E1, std::size_t E2>
  requires detail::string_match::byte_like<T>
void multi_string_match(context& ctx, cuda::std::span<T, E1> text, std::span<const std::string_view> patterns,
                        cuda::std::span<string_match_hit, E2> hits, std::size_t* count,
                        const multi_string_match_options& options = {}) {
  const pattern_set set(ctx, patterns, options);
  multi_string_match(ctx, text, set, hits, count);
}

// ---- texts larger than GPU memory ------------------------------------------------------------------------------

/// Matches a text read through `read` — any callable std::size_t(std::span<unsigned char>) that fills
/// the span's front and returns how many bytes it wrote, 0 at the end (a file, a pipe, a host buffer) —
/// chunk by chunk with an (m − 1)-character halo, two streams and pinned buffers, so that each chunk's
/// copies and matching overlap the reading of the next (detail/string_match/stream.cuh). on_chunk(const
/// stream_chunk&) receives every chunk in order, on this thread, with its characters and its bitmap;
/// every match is in exactly one chunk's bitmap. The pattern is in host memory. Synchronous: returns the
/// text's length once every chunk is delivered. For σ < 8 with check_alphabet each chunk is checked on the
/// host (invalid_argument("text", text position)).
///
///   std::FILE* f = std::fopen(path, "rb");
///   std::size_t matches = 0;
///   sluice::string_match_stream(ctx, [&](std::span<unsigned char> into) { return std::fread(into.data(), 1, into.size(), f); },
///                               pattern, [&](const sluice::stream_chunk& c) { for (auto w : c.bitmap) matches += std::popcount(w); });
template <class Read, class OnChunk>
std::size_t string_match_stream(context& ctx, Read&& read, std::span<const unsigned char> pattern, OnChunk&& on_chunk,
                                const string_match_options& options = {}, const stream_options& stream = {}) {
  return detail::string_match::stream_dispatch(ctx, read, pattern, options, stream, on_chunk);
}

/// The same for a pattern set: bit r of a chunk's bitmap where some pattern starts at offset + r. The
/// halo is the longest pattern − 1, so a shorter pattern lying wholly in a halo is in two chunks' bitmaps.
template <class Read, class OnChunk>
std::size_t multi_string_match_stream(const context& ctx, Read&& read, const pattern_set& set, OnChunk&& on_chunk,
                                      const stream_options& stream = {}) {
  return detail::string_match::multi_stream_dispatch(ctx, read, set.table(), set.checks_alphabet(), stream, on_chunk);
}

}  // namespace sluice
