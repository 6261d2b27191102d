// sluice/python/api_strings.hpp: the type-erased API (as api.hpp's) of string_match.cuh: one pattern's
// matches (count, positions, bitmap) and many patterns' (position, pattern) pairs. Apart from api.hpp so
// that the translation units bound first do not depend on it. Texts and patterns are 1-byte arrays
// (uint8, int8); a pattern in host memory is copied to the device for a device call.
#pragma once

#include "api.hpp"

#include <sluice/options/string_match.hpp>

#include <span>
#include <string_view>

namespace sluice::python {

string_match_algorithm parse_string_match_algorithm(std::string_view name);
match_verification parse_match_verification(std::string_view name);

/// string_match_options without the drk_2s subpattern knobs.
struct string_match_spec {
  string_match_algorithm algorithm = string_match_algorithm::automatic;
  int alphabet_bits = 8;
  match_verification verification = match_verification::exact;
  bool check_alphabet = true;
};

/// Counts the matches of pattern in text (every r with text[r, r + m) = pattern, overlapping ones
/// included) and writes the first positions->size of them, ascending, to positions (int64) when given.
/// Returns the count: reads it back (synchronises the stream). The host runs host::string_match's
/// Knuth–Morris–Pratt searcher.
std::size_t string_match(const call& c, const array& text, const array& pattern, const array* positions,
                         const string_match_spec& spec);

/// Words (uint32) of the match bitmap: bit r % 32 of words[r / 32] where a match starts at r.
std::size_t string_match_bitmap_words(std::size_t n, std::size_t m);
/// The match bitmap into words (string_match_bitmap_words(n, m) of them); asynchronous.
void string_match_bitmap(const call& c, const array& text, const array& pattern, const array& words,
                         const string_match_spec& spec);

/// Every (position, pattern index) where one of the patterns occurs, by position then index; the first
/// positions->size of them into positions (int64) and pattern_ids (int32) when given. Returns their number
/// (synchronises). The device builds sluice::pattern_set for the call (waiting for its upload).
std::size_t multi_string_match(const call& c, const array& text, std::span<const std::string_view> patterns,
                               const array* positions, const array* pattern_ids, int alphabet_bits,
                               bool check_alphabet);

}  // namespace sluice::python
