// sluice/host/string_match.hpp: exact string matching on the CPU, the backend `sluice grep` uses without a
// GPU (and the GPU matchers' semantics: every r with text[r, r + m) = pattern, overlapping matches all
// counted, ascending).
//
//   fixed_string_searcher s(pattern);   s.for_each(text, f) calls f(r) for every match, in order
//   string_match(text, pattern)         the positions, as a vector
//   pattern_matcher pm(patterns);       many patterns at once: pm.for_each(text, f) calls f(r, id) for every
//                                       match, by position then id (the GPU's pattern table, pattern_table.hpp)
//   multi_string_match(text, patterns)  the (position, pattern) pairs, as a vector
//
// The searcher is Knuth–Morris–Pratt with a memchr skip: while no prefix of the pattern is matched it
// jumps with memchr (vectorised in the C library) to the next occurrence of the pattern's first byte, so
// text without that byte streams at memchr's speed; from there the automaton advances a byte at a time.
// O(n + m) whatever the input (periodic texts and patterns included). Single-threaded: grep's chunks are
// searched one after another while the next is read.
#pragma once

#include <sluice/core/error.hpp>
#include <sluice/detail/string_match/fingerprint.hpp>
#include <sluice/detail/string_match/pattern_table.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <vector>

namespace sluice::host {

class fixed_string_searcher {
 public:
  /// An empty pattern is invalid_argument("pattern"): every position would match.
  explicit fixed_string_searcher(std::span<const std::uint8_t> pattern)
      : pattern_(pattern.begin(), pattern.end()), border_(pattern.size(), 0) {
    if (pattern_.empty()) throw invalid_argument("host::string_match", "pattern", "must not be empty");
    // border_[k]: the longest proper prefix of pattern[0, k] that is also its suffix.
    for (std::size_t k = 1, length = 0; k < pattern_.size(); ++k) {
      while (length > 0 && pattern_[k] != pattern_[length]) length = border_[length - 1];
      if (pattern_[k] == pattern_[length]) ++length;
      border_[k] = length;
    }
  }

  [[nodiscard]] std::size_t size() const { return pattern_.size(); }
  [[nodiscard]] std::span<const std::uint8_t> pattern() const { return pattern_; }

  /// Calls on_match(r) for every match r in text, ascending; returns their number.
  template <class OnMatch>
  std::size_t for_each(std::span<const std::uint8_t> text, OnMatch&& on_match) const {
    const std::size_t m = pattern_.size(), n = text.size();
    const std::uint8_t* const data = text.data();
    std::size_t count = 0;
    std::size_t matched = 0;  // the pattern prefix that ends just before data[i]
    for (std::size_t i = 0; i < n; ++i) {
      if (matched == 0) {
        const void* next = std::memchr(data + i, pattern_[0], n - i);
        if (!next) break;
        i = static_cast<std::size_t>(static_cast<const std::uint8_t*>(next) - data);
      }
      while (matched > 0 && data[i] != pattern_[matched]) matched = border_[matched - 1];
      if (data[i] == pattern_[matched]) ++matched;
      if (matched == m) {
        on_match(i + 1 - m);
        ++count;
        matched = border_[m - 1];  // the longest border: overlapping matches are found
      }
    }
    return count;
  }

 private:
  std::vector<std::uint8_t> pattern_;
  std::vector<std::size_t> border_;
};

/// Every position where pattern occurs in text, ascending.
[[nodiscard]] inline std::vector<std::size_t> string_match(std::span<const std::uint8_t> text,
                                                           std::span<const std::uint8_t> pattern) {
  std::vector<std::size_t> positions;
  fixed_string_searcher(pattern).for_each(text, [&](std::size_t r) { positions.push_back(r); });
  return positions;
}

/// A match of pattern `pattern` (its index) at text position `position`.
struct string_match_hit {
  std::size_t position;
  std::uint32_t pattern;
  friend bool operator==(const string_match_hit&, const string_match_hit&) = default;
};

/// Many patterns at once, through the same static table as the GPU's multi_string_match: a packed
/// window of K characters rolls over the text and each position is looked up once per key length.
class pattern_matcher {
 public:
  /// Patterns of σ-bit characters; invalid_argument("patterns") for none, an empty one or a character
  /// outside the alphabet (with the pattern's index).
  explicit pattern_matcher(std::span<const std::string_view> patterns, int alphabet_bits = 8)
      : table_(sluice::detail::string_match::build_pattern_table("host::pattern_matcher", patterns, alphabet_bits)) {}

  [[nodiscard]] std::size_t longest() const { return table_.longest; }
  [[nodiscard]] std::size_t size() const { return table_.lengths.size(); }
  [[nodiscard]] std::size_t length(std::uint32_t id) const { return table_.lengths[id]; }

  /// Calls on_match(r, id) for every match, by position and then pattern index; returns their number.
  /// Text characters compare by their low σ bits.
  template <class OnMatch>
  std::size_t for_each(std::span<const std::uint8_t> text, OnMatch&& on_match) const {
    namespace sm = sluice::detail::string_match;
    const sm::pattern_table_view view = table_.view();
    const std::size_t n = text.size(), k = static_cast<std::size_t>(view.key_chars);
    const sm::packed_window<unsigned long long> window(view.sigma, view.key_chars);
    const std::uint32_t mask = sm::char_mask(view.sigma);
    auto at = [&](std::size_t j) { return j < n ? text[j] & mask : 0u; };
    unsigned long long f = 0;
    for (std::size_t j = 0; j + 1 < k; ++j) f = window.push(f, at(j));
    std::size_t count = 0;
    for (std::size_t r = 0; r < n; ++r) {
      f = window.push(f, at(r + k - 1));
      if (!sm::prefix_admits(view, text.data(), n, r)) continue;
      count += sm::for_each_pattern_at(view, text.data(), n, r, f, [&](std::uint32_t id) { on_match(r, id); });
    }
    return count;
  }

 private:
  sluice::detail::string_match::pattern_table table_;
};

/// Every (position, pattern) match, sorted by position and then pattern index.
[[nodiscard]] inline std::vector<string_match_hit> multi_string_match(std::span<const std::uint8_t> text,
                                                                      std::span<const std::string_view> patterns,
                                                                      int alphabet_bits = 8) {
  std::vector<string_match_hit> hits;
  pattern_matcher(patterns, alphabet_bits).for_each(text, [&](std::size_t r, std::uint32_t id) { hits.push_back({r, id}); });
  return hits;
}

}  // namespace sluice::host
