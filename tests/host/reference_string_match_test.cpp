// Host tests of sluice/reference/string_match.hpp (Ashkiani §2.1): overlapping and periodic matches,
// matches at 0 and n − m, NUL bytes, m = 1 and m = n, bad or oversized patterns, random small-alphabet
// texts against a naive compare-at-every-position loop, and a long periodic worst case.
#include <sluice/core/error.hpp>
#include <sluice/reference/string_match.hpp>

#include "support/compare.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <string_view>
#include <vector>

namespace {

namespace ref = sluice::reference;
using sluice::testing::all_equal;
using positions = std::vector<std::size_t>;
using bytes = std::vector<std::uint8_t>;

bytes to_bytes(std::string_view s) { return bytes(s.begin(), s.end()); }

positions match(std::string_view text, std::string_view pattern) {
  return ref::string_match(to_bytes(text), to_bytes(pattern));
}

positions naive_match(const bytes& text, const bytes& pattern) {
  positions out;
  for (std::size_t r = 0; r + pattern.size() <= text.size(); ++r)
    if (std::equal(pattern.begin(), pattern.end(), text.begin() + static_cast<std::ptrdiff_t>(r))) out.push_back(r);
  return out;
}

TEST(ReferenceStringMatch, OverlappingMatchesAllCount) {
  EXPECT_TRUE(all_equal(match("aaaaaaaa", "aaaa"), positions{0, 1, 2, 3, 4}));
  EXPECT_TRUE(all_equal(match("abababab", "abab"), positions{0, 2, 4}));
  EXPECT_TRUE(all_equal(match("aabaabaab", "aabaab"), positions{0, 3}));
}

TEST(ReferenceStringMatch, MatchesAtBothEnds) {
  EXPECT_TRUE(all_equal(match("abcxxabc", "abc"), positions{0, 5}));
  EXPECT_TRUE(all_equal(match("hello", "hello"), positions{0}));  // m = n
  EXPECT_TRUE(all_equal(match("hello", "o"), positions{4}));      // m = 1
  EXPECT_TRUE(all_equal(match("hello", "l"), positions{2, 3}));
  EXPECT_TRUE(match("hello", "hellp").empty());
  EXPECT_TRUE(match("hello", "xhello").empty());
}

TEST(ReferenceStringMatch, NulBytesAreOrdinaryCharacters) {
  const bytes text{0, 0, 1, 0, 0, 0, 255, 0};
  EXPECT_TRUE(all_equal(ref::string_match(text, bytes{0, 0}), positions{0, 3, 4}));
  EXPECT_TRUE(all_equal(ref::string_match(text, bytes{255, 0}), positions{6}));
  EXPECT_TRUE(all_equal(ref::string_match(text, bytes{0}), positions{0, 1, 3, 4, 5, 7}));
}

TEST(ReferenceStringMatch, EmptyOrLongerPattern) {
  EXPECT_TRUE(match("", "a").empty());
  EXPECT_TRUE(match("abc", "abcd").empty());
  for (std::string_view text : {"", "abc"}) {
    try {
      (void)match(text, "");
      ADD_FAILURE() << "expected sluice::invalid_argument";
    } catch (const sluice::invalid_argument& e) {
      EXPECT_EQ(e.parameter(), "pattern");
      EXPECT_EQ(e.index(), std::nullopt);
    }
  }
}

TEST(ReferenceStringMatch, RandomSmallAlphabetsAgainstTheNaiveLoop) {
  std::mt19937_64 rng(21);
  for (unsigned alphabet : {1u, 2u, 3u, 256u}) {
    for (std::size_t m : {1u, 2u, 3u, 5u, 8u, 33u}) {
      bytes text(20000);
      for (auto& c : text) c = static_cast<std::uint8_t>(rng() % alphabet);
      // Half the patterns are cut from the text so matches exist even for a large alphabet.
      bytes pattern(m);
      if (rng() % 2) {
        const std::size_t at = rng() % (text.size() - m);
        std::copy_n(text.begin() + static_cast<std::ptrdiff_t>(at), m, pattern.begin());
      } else {
        for (auto& c : pattern) c = static_cast<std::uint8_t>(rng() % alphabet);
      }
      EXPECT_TRUE(all_equal(ref::string_match(text, pattern), naive_match(text, pattern)))
          << "alphabet " << alphabet << ", m = " << m;
    }
  }
}

TEST(ReferenceStringMatch, LongPeriodicWorstCase) {
  // Text a^n with pattern a^(m−1)b: the naive loop would take n·m steps; no match anywhere.
  const std::size_t n = 1u << 20, m = 1u << 16;
  bytes text(n, 'a');
  bytes pattern(m, 'a');
  pattern.back() = 'b';
  EXPECT_TRUE(ref::string_match(text, pattern).empty());
  text.back() = 'b';  // now exactly one match, at n − m
  EXPECT_TRUE(all_equal(ref::string_match(text, pattern), positions{n - m}));
  pattern.back() = 'a';
  const auto all = ref::string_match(text, pattern);  // a^m in a^(n−1)b: positions 0 .. n−1−m
  ASSERT_EQ(all.size(), n - m);
  EXPECT_EQ(all.front(), 0u);
  EXPECT_EQ(all.back(), n - m - 1);
}

}  // namespace
