// Host tests of the CPU string matchers (sluice/host/string_match.hpp) and of the multi-pattern table
// (detail/string_match/pattern_table.hpp, shared with the GPU): the KMP-with-memchr searcher and the
// pattern matcher against the oracles (sluice/reference/string_match.hpp) on random, periodic and NUL-
// laden texts; patterns of mixed lengths, prefixes of each other, duplicates, σ = 1, 2, 8; bad patterns.
#include <sluice/core/error.hpp>
#include <sluice/detail/string_match/pattern_table.hpp>
#include <sluice/host/string_match.hpp>
#include <sluice/reference/string_match.hpp>

#include "support/errors.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace {

using bytes = std::vector<std::uint8_t>;
namespace sm = sluice::detail::string_match;

bytes random_bytes(std::size_t n, unsigned alphabet, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  bytes s(n);
  for (auto& c : s) c = static_cast<std::uint8_t>(rng() % alphabet);
  return s;
}

std::span<const std::uint8_t> as_span(const std::string& s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

TEST(HostStringMatch, SearcherAgreesWithTheOracle) {
  for (unsigned alphabet : {1u, 2u, 4u, 256u})
    for (std::size_t m : {1u, 2u, 3u, 7u, 8u, 9u, 31u, 32u, 33u, 64u, 65u, 1024u}) {
      bytes text = random_bytes(30000, alphabet, alphabet * 1000 + m);
      const bytes pattern = random_bytes(m, alphabet, m);
      for (std::size_t at : {std::size_t{0}, text.size() - m, std::size_t{777}})
        std::copy(pattern.begin(), pattern.end(), text.begin() + static_cast<std::ptrdiff_t>(at));
      EXPECT_EQ(sluice::host::string_match(text, pattern), sluice::reference::string_match(text, pattern))
          << "alphabet " << alphabet << ", m = " << m;
    }
  const std::string periodic(5000, 'a');
  for (std::size_t m : {1u, 2u, 100u, 4999u, 5000u, 5001u}) {
    const std::string all(m, 'a');
    std::string miss(m, 'a');
    miss.back() = 'b';
    EXPECT_EQ(sluice::host::string_match(as_span(periodic), as_span(all)).size(), m <= 5000 ? 5001 - m : 0u);
    EXPECT_TRUE(sluice::host::string_match(as_span(periodic), as_span(miss)).empty());
  }
  const bytes nuls{0, 0, 1, 0, 0, 0};
  EXPECT_EQ(sluice::host::string_match(nuls, bytes{0, 0}), (std::vector<std::size_t>{0, 3, 4}));
  EXPECT_TRUE(sluice::host::string_match(bytes{}, bytes{1}).empty());
  sluice::testing::expect_invalid_argument([] { (void)sluice::host::string_match(bytes{1}, bytes{}); }, "pattern");
}

/// Patterns for a multi-pattern case: cut from the text (so they occur), random, and a chain of
/// prefixes of one another that crosses the key length (16 characters) and repeats one pattern.
std::vector<std::string> mixed_patterns(const bytes& text, unsigned alphabet, std::size_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t length = 1 + rng() % 70;
    if (rng() % 2) {
      const std::size_t at = rng() % (text.size() - length);
      out.emplace_back(text.begin() + static_cast<std::ptrdiff_t>(at), text.begin() + static_cast<std::ptrdiff_t>(at + length));
    } else {
      const bytes r = random_bytes(length, alphabet, rng());
      out.emplace_back(r.begin(), r.end());
    }
  }
  const std::size_t at = rng() % (text.size() - 40);
  for (std::size_t length : {1u, 2u, 3u, 8u, 15u, 16u, 17u, 30u, 16u})
    out.emplace_back(text.begin() + static_cast<std::ptrdiff_t>(at), text.begin() + static_cast<std::ptrdiff_t>(at + length));
  return out;
}

TEST(HostStringMatch, PatternMatcherAgreesWithTheOracle) {
  for (int sigma : {1, 2, 8})
    for (std::size_t count : {1u, 5u, 200u}) {
      const unsigned alphabet = 1u << sigma;
      const bytes text = random_bytes(20000, alphabet, static_cast<std::uint64_t>(sigma) * 10 + count);
      const auto owned = mixed_patterns(text, alphabet, count, count + 3);
      const std::vector<std::string_view> patterns(owned.begin(), owned.end());
      const auto expected = sluice::reference::multi_string_match(text, patterns);
      const auto got = sluice::host::multi_string_match(text, patterns, sigma);
      ASSERT_EQ(got.size(), expected.size()) << "σ = " << sigma << ", " << count << " patterns";
      for (std::size_t i = 0; i < got.size(); ++i) {
        ASSERT_EQ(got[i].position, expected[i].position) << i;
        ASSERT_EQ(got[i].pattern, expected[i].pattern) << i;
      }
    }
}

TEST(HostStringMatch, PrefixesOfEachOtherOnAPeriodicText) {
  const std::string text(300, 'a');
  std::vector<std::string> owned;
  for (std::size_t length = 40; length >= 1; --length) owned.emplace_back(length, 'a');  // longest first: ids descend in length
  owned.emplace_back("ab");
  const std::vector<std::string_view> patterns(owned.begin(), owned.end());
  const auto got = sluice::host::multi_string_match(as_span(text), patterns);
  const auto expected = sluice::reference::multi_string_match(as_span(text), patterns);
  ASSERT_EQ(got.size(), expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i].position, expected[i].position);
    ASSERT_EQ(got[i].pattern, expected[i].pattern);
  }
  // Position 0: all 40 runs of a, ids 0..39 ascending; the last position: only "a" (id 39).
  EXPECT_EQ(got.front().position, 0u);
  EXPECT_EQ(got.front().pattern, 0u);
  EXPECT_EQ(got.back().position, 299u);
  EXPECT_EQ(got.back().pattern, 39u);
}

TEST(HostStringMatch, PatternTableShape) {
  std::vector<std::string> owned{"a", "bc", "bcd", "0123456789abcdefXYZ", "0123456789abcdefQ", "0123456789abcdef"};
  const std::vector<std::string_view> patterns(owned.begin(), owned.end());
  const auto t = sm::build_pattern_table("test", patterns, 8);
  EXPECT_EQ(t.key_chars, 8);  // 64/σ for σ = 8
  ASSERT_EQ(t.groups.size(), 4u);  // keys of 1, 2, 3 and 8 characters
  std::size_t keys = 0;
  for (const auto& g : t.groups) {
    std::size_t used = 0;
    for (std::uint32_t s = 0; s <= g.slot_mask; ++s) used += t.slots[g.slot_begin + s].begin != t.slots[g.slot_begin + s].end;
    EXPECT_LE(used * 100, (g.slot_mask + 1) * static_cast<std::size_t>(sm::tuning::multi_table_load_percent));
    keys += used;
  }
  EXPECT_EQ(keys, 4u);  // the three long patterns share the key "01234567"
  EXPECT_EQ(sm::build_pattern_table("test", patterns, 7).key_chars, 9);  // ⌊64/7⌋
  const std::vector<std::string_view> one{"x"};
  EXPECT_EQ(sm::build_pattern_table("test", one, 8).key_chars, 1);  // never longer than the longest pattern
}

// The prefix filter never refuses a pattern's own first characters, and on random text it admits about
// one position in 2^14 (1000 random patterns of σ = 8: 2^18 bits, ≤ 2000 set, two probes).
TEST(HostStringMatch, PrefixFilterAdmitsEveryPatternAndFewOthers) {
  std::mt19937_64 rng(11);
  std::vector<std::string> owned;
  for (int p = 0; p < 1000; ++p) {
    std::string s(8 + rng() % 57, '\0');
    for (char& c : s) c = static_cast<char>(rng());
    owned.push_back(std::move(s));
  }
  const std::vector<std::string_view> patterns(owned.begin(), owned.end());
  const auto t = sm::build_pattern_table("test", patterns, 8);
  EXPECT_EQ(t.filter_log2, sm::tuning::multi_filter_max_log2);
  EXPECT_EQ(t.prefix_keep, 0xFFFFFFFFu);
  for (const std::string_view p : patterns) {
    const auto* chars = reinterpret_cast<const unsigned char*>(p.data());
    ASSERT_TRUE(sm::prefix_admits(t.view(), chars, p.size(), 0)) << p;
  }
  std::vector<unsigned char> text(1 << 20);
  for (auto& c : text) c = static_cast<unsigned char>(rng());
  std::size_t admitted = 0;
  for (std::size_t r = 0; r < text.size(); ++r) admitted += sm::prefix_admits(t.view(), text.data(), text.size(), r);
  EXPECT_LT(admitted, text.size() / 4096);  // ~60 expected
  EXPECT_FALSE(sm::prefix_admits(t.view(), text.data(), text.size(), text.size() - 3));  // 3 characters left
}

// The prefix is the shortest pattern's first characters, at most 4, each masked to σ bits; a small set
// takes the smallest filter.
TEST(HostStringMatch, PrefixFilterShape) {
  const std::vector<std::string_view> one{"x"};
  const auto t1 = sm::build_pattern_table("test", one, 8);
  EXPECT_EQ(t1.prefix_keep, 0xFFu);
  EXPECT_EQ(t1.filter_log2, sm::tuning::multi_filter_min_log2);
  EXPECT_EQ(t1.filter.size(), std::size_t{1} << (sm::tuning::multi_filter_min_log2 - 5));
  const std::string a("\x01\x00\x01\x01\x00\x01\x01", 7), b("\x00\x01\x01\x00\x01\x00\x00\x01", 8);
  const std::vector<std::string_view> binary{a, b};
  EXPECT_EQ(sm::build_pattern_table("test", binary, 2).prefix_keep, 0x03030303u);
  const std::vector<std::string_view> short_ones{"ab", "abc"};
  EXPECT_EQ(sm::build_pattern_table("test", short_ones, 8).prefix_keep, 0xFFFFu);
}

TEST(HostStringMatch, BadPatternsNameTheFirstBadIndex) {
  using sluice::testing::expect_invalid_argument;
  expect_invalid_argument([] { (void)sm::build_pattern_table("t", {}, 8); }, "patterns");
  const std::vector<std::string_view> with_empty{"ab", "", "c"};
  expect_invalid_argument([&] { (void)sm::build_pattern_table("t", with_empty, 8); }, "patterns", 1);
  const std::string bad("\x01\x02", 2);
  const std::vector<std::string_view> outside{"\x01", bad};
  expect_invalid_argument([&] { (void)sm::build_pattern_table("t", outside, 1); }, "patterns", 1);
  (void)sm::build_pattern_table("t", outside, 2);
  expect_invalid_argument([&] { (void)sm::build_pattern_table("t", outside, 9); }, "options.alphabet_bits");
}

}  // namespace
