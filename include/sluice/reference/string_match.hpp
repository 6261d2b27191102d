// sluice/reference/string_match.hpp: sequential oracle for exact single-pattern matching (Ashkiani §2.1).
//
// string_match(text, pattern) returns every r with text[r, r + m) = pattern, 0 ≤ r ≤ n − m, ascending;
// overlapping matches all count (`aaaa` occurs 5 times in `aaaaaaaa`). Bytes are compared as bytes, so NUL
// and any other value are ordinary characters. An empty pattern throws invalid_argument("pattern") (every
// position would match; the GPU matchers need m ≥ 1); a pattern longer than the text (including an empty
// text) has no matches.
//
// It is Knuth–Morris–Pratt rather than the naive compare-at-every-position loop because the GPU tests
// use periodic worst cases (text `aaa…a`, pattern `aaa…ab` of 64 K bytes) on up to 2^26 bytes, which
// would make the naive loop take n·m steps; KMP takes O(n + m). The host tests hold it against the naive
// loop.
#pragma once

#include <sluice/core/error.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace sluice::reference {

[[nodiscard]] inline std::vector<std::size_t> string_match(std::span<const std::uint8_t> text,
                                                           std::span<const std::uint8_t> pattern) {
  if (pattern.empty()) throw invalid_argument("reference::string_match", "pattern", "must not be empty");
  const std::size_t m = pattern.size();
  // border[k] = length of the longest proper prefix of pattern[0, k] that is also a suffix of it.
  std::vector<std::size_t> border(m, 0);
  for (std::size_t k = 1, len = 0; k < m; ++k) {
    while (len > 0 && pattern[k] != pattern[len]) len = border[len - 1];
    if (pattern[k] == pattern[len]) ++len;
    border[k] = len;
  }
  std::vector<std::size_t> matches;
  // matched = the length of the longest pattern prefix that ends just before text[i].
  for (std::size_t i = 0, matched = 0; i < text.size(); ++i) {
    while (matched > 0 && text[i] != pattern[matched]) matched = border[matched - 1];
    if (text[i] == pattern[matched]) ++matched;
    if (matched == m) {
      matches.push_back(i + 1 - m);
      matched = border[m - 1];  // keep the longest border so overlapping matches are found
    }
  }
  return matches;
}

/// A match of pattern `pattern` (its index) at text position `position`.
struct string_match_hit {
  std::size_t position;
  std::uint32_t pattern;
  friend bool operator==(const string_match_hit&, const string_match_hit&) = default;
};

/// Every (position, pattern) with text[position, position + |pattern|) = pattern, sorted by position and
/// then by pattern index: each pattern matched on its own (string_match above) and the results merged.
/// An empty pattern throws invalid_argument("patterns") with its index.
[[nodiscard]] inline std::vector<string_match_hit> multi_string_match(std::span<const std::uint8_t> text,
                                                                      std::span<const std::string_view> patterns) {
  std::vector<string_match_hit> hits;
  for (std::size_t p = 0; p < patterns.size(); ++p) {
    if (patterns[p].empty())
      throw invalid_argument("reference::multi_string_match", "patterns", "has an empty pattern", p);
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(patterns[p].data());
    for (std::size_t r : string_match(text, std::span<const std::uint8_t>(bytes, patterns[p].size())))
      hits.push_back({r, static_cast<std::uint32_t>(p)});
  }
  std::sort(hits.begin(), hits.end(), [](const string_match_hit& a, const string_match_hit& b) {
    return a.position != b.position ? a.position < b.position : a.pattern < b.pattern;
  });
  return hits;
}

}  // namespace sluice::reference
