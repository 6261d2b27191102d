// GPU tests of string_match (Ashkiani ch. 2), multi_string_match and the streaming drivers against the
// oracles (sluice/reference/string_match.hpp):
// every strategy × m = 1, 2, 7, 8, 9, 31, 32, 33, 64, 65, 1024, 2^16 × σ = 1, 2, 8 × texts (random with
// the pattern planted at 0, in the middle and at n − m; periodic a…a with a^m, every position a match;
// periodic with a^{m−1}b, every skim a candidate and no match); the three outputs (count, positions,
// bitmap), each poisoned twice; DRK-2S's subpattern offsets; fingerprint-only verification (a superset of
// the matches, false positives counted); truncated positions; bad inputs; and 2^31 + 5 characters. Many
// patterns: mixed lengths, prefixes of one another, duplicates, 1 to 10^5 patterns, a set reused across
// texts. Streaming: chunks of 1 character to 64 KiB, reads of 100 bytes, matches across every border
// exactly once, patterns longer than a chunk.
#include <sluice/core/device_buffer.hpp>
#include <sluice/host/string_match.hpp>
#include <sluice/reference/string_match.hpp>
#include <sluice/string_match.cuh>

#include "support/compare.hpp"
#include "support/errors.hpp"
#include "support/gpu_test.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {

using sluice::match_verification;
using sluice::string_match_algorithm;
using sluice::testing::all_equal;
using sluice::testing::expect_invalid_argument;
using sluice::testing::gpu_test;
using bytes = std::vector<unsigned char>;
using positions = std::vector<std::size_t>;

class StringMatch : public gpu_test {};

constexpr string_match_algorithm every_algorithm[] = {
    string_match_algorithm::automatic, string_match_algorithm::crk,       string_match_algorithm::crk_recurrence,
    string_match_algorithm::drk,       string_match_algorithm::drk_wom32, string_match_algorithm::drk_wom64,
    string_match_algorithm::hrk,       string_match_algorithm::drk_2s};

const std::size_t pattern_lengths[] = {1, 2, 7, 8, 9, 31, 32, 33, 64, 65, 1024, std::size_t{1} << 16};

/// Whether a strategy takes a pattern of m σ-bit characters (the packed windows need σ·m ≤ 32 / 64).
bool applies(string_match_algorithm a, std::size_t m, int sigma) {
  const std::size_t bits = m * static_cast<std::size_t>(sigma);
  if (a == string_match_algorithm::drk_wom32) return bits <= 32;
  if (a == string_match_algorithm::drk_wom64) return bits <= 64;
  return true;
}

bytes random_bytes(std::size_t n, int sigma, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  bytes s(n);
  for (auto& c : s) c = static_cast<unsigned char>(rng() & ((1u << sigma) - 1));
  return s;
}

struct text_case {
  std::string name;
  bytes text;
  bytes pattern;
};

/// n characters: enough for two DRK tiles past the pattern, fewer under a sanitizer.
std::size_t text_size(std::size_t m) {
  const std::size_t n = std::max<std::size_t>(sluice::testing::scaled_size(100003, 20011), 2 * m + 4099);
  return n;
}

std::vector<text_case> text_cases(std::size_t m, int sigma) {
  const std::size_t n = text_size(m);
  std::vector<text_case> out;
  bytes text = random_bytes(n, sigma, n + m * 7 + static_cast<std::size_t>(sigma));
  const bytes pattern = random_bytes(m, sigma, m + 99);
  for (std::size_t at : {std::size_t{0}, (n - m) / 2, n - m})
    std::copy(pattern.begin(), pattern.end(), text.begin() + static_cast<std::ptrdiff_t>(at));
  out.push_back({"random, planted at 0, (n-m)/2, n-m", text, pattern});
  out.push_back({"periodic a..a / a^m", bytes(n, 1), bytes(m, 1)});
  bytes miss(m - 1, 1);
  miss.push_back(0);
  out.push_back({"periodic a..a / a^(m-1)b", bytes(n, 1), miss});
  return out;
}

std::string describe(const text_case& c, string_match_algorithm a, int sigma, const sluice::string_match_options& o) {
  std::ostringstream s;
  s << to_string(a) << ", " << c.name << ", n = " << c.text.size() << ", m = " << c.pattern.size() << ", σ = " << sigma
    << ", verification " << to_string(o.verification) << ", subpattern offset " << o.subpattern_offset;
  return s.str();
}

std::vector<std::uint32_t> bitmap_of(const positions& p, std::size_t words) {
  std::vector<std::uint32_t> out(words, 0);
  for (std::size_t r : p) out[r / 32] |= 1u << (r % 32);
  return out;
}

/// The three outputs of one call against the expected positions, each output poisoned twice.
void expect_outputs(sluice::context& ctx, const sluice::device_buffer<unsigned char>& text,
                    const sluice::device_buffer<unsigned char>& pattern, const sluice::string_match_options& options,
                    const positions& expected, const std::string& label) {
  const std::size_t n = text.size(), m = pattern.size();
  sluice::device_buffer<std::size_t> count(ctx, 1);
  sluice::device_buffer<std::size_t> found(ctx, expected.size() + 3);
  const std::size_t words = sluice::string_match_bitmap_words(n, m);
  sluice::device_buffer<std::uint32_t> bitmap(ctx, words + 1);
  for (unsigned char poison : sluice::testing::poison_patterns) {
    count.fill_bytes(poison);
    sluice::string_match(ctx, text.span(), pattern.span(), sluice::match_count{count.data()}, options);
    ASSERT_EQ(count.to_host()[0], expected.size()) << "count: " << label;

    count.fill_bytes(poison);
    found.fill_bytes(poison);
    sluice::string_match(ctx, text.span(), pattern.span(), sluice::match_positions{found.span(), count.data()}, options);
    ASSERT_EQ(count.to_host()[0], expected.size()) << "positions' count: " << label;
    auto got = found.to_host();
    const std::vector<std::size_t> tail(got.begin() + static_cast<std::ptrdiff_t>(expected.size()), got.end());
    got.resize(expected.size());
    ASSERT_TRUE(all_equal(got, expected)) << "positions: " << label;
    std::size_t poisoned_word;
    std::memset(&poisoned_word, poison, sizeof(poisoned_word));
    for (std::size_t v : tail) ASSERT_EQ(v, poisoned_word) << "written past the count: " << label;

    bitmap.fill_bytes(poison);
    sluice::string_match(ctx, text.span(), pattern.span(), sluice::match_bitmap{bitmap.span()}, options);
    auto words_got = bitmap.to_host();
    std::uint32_t poisoned_u32;
    std::memset(&poisoned_u32, poison, sizeof(poisoned_u32));
    ASSERT_EQ(words_got.back(), poisoned_u32) << "bitmap written past its words: " << label;
    words_got.pop_back();
    ASSERT_TRUE(all_equal(words_got, bitmap_of(expected, words))) << "bitmap: " << label;
  }
}

TEST_F(StringMatch, EveryStrategyLengthAlphabetAndText) {
  for (int sigma : {1, 2, 8})
    for (std::size_t m : pattern_lengths) {
      if (sluice::testing::under_sanitizer() && m > 4096) continue;  // the sweep's cost is n·m/128 a strategy
      for (const auto& c : text_cases(m, sigma)) {
        const auto expected = sluice::reference::string_match(c.text, c.pattern);
        const sluice::device_buffer<unsigned char> text(ctx(), std::span<const unsigned char>(c.text));
        const sluice::device_buffer<unsigned char> pattern(ctx(), std::span<const unsigned char>(c.pattern));
        for (auto a : every_algorithm) {
          if (!applies(a, m, sigma)) continue;
          const sluice::string_match_options options{.algorithm = a, .alphabet_bits = sigma};
          expect_outputs(ctx(), text, pattern, options, expected, describe(c, a, sigma, options));
          if (HasFatalFailure()) return;
        }
      }
    }
}

// Windows of at most 8 characters are read as aligned 16-byte vectors into registers (drk.cuh): texts
// that start at every byte of a 16-byte block and end anywhere, characters with high bits the comparison
// must ignore (σ < 8, alphabet check off), count and bitmap against the oracle.
TEST_F(StringMatch, ByteWindowsAtEveryAlignmentOfTheText) {
  const string_match_algorithm strategies[] = {string_match_algorithm::automatic, string_match_algorithm::drk_wom32,
                                               string_match_algorithm::drk_wom64, string_match_algorithm::drk_2s};
  for (int sigma : {1, 8})
    for (std::size_t m : {1, 2, 3, 4, 5, 7, 8})
      for (std::size_t shift = 0; shift < 16; ++shift) {
        const std::size_t n = sluice::testing::scaled_size(2 * 8192 + 37, 4099) + shift * 3;
        bytes low = random_bytes(n, sigma, n * 131 + m * 7 + shift);
        const bytes pattern = random_bytes(m, sigma, m + shift);
        for (std::size_t at : {std::size_t{0}, (n - m) / 2, n - m - 1, n - m})
          std::copy(pattern.begin(), pattern.end(), low.begin() + static_cast<std::ptrdiff_t>(at));
        bytes text = low;
        if (sigma < 8)
          for (std::size_t i = 0; i < n; i += 3) text[i] = static_cast<unsigned char>(text[i] | 0xF0u);
        const auto expected = sluice::reference::string_match(low, pattern);
        bytes padded(shift, 0x5A);
        padded.insert(padded.end(), text.begin(), text.end());
        const sluice::device_buffer<unsigned char> buffer(ctx(), std::span<const unsigned char>(padded));
        const sluice::device_buffer<unsigned char> needle(ctx(), std::span<const unsigned char>(pattern));
        const auto span = buffer.span().subspan(shift);
        sluice::device_buffer<std::size_t> count(ctx(), 1);
        sluice::device_buffer<std::uint32_t> bitmap(ctx(), sluice::string_match_bitmap_words(n, m));
        for (auto a : strategies) {
          if (!applies(a, m, sigma)) continue;
          const sluice::string_match_options options{.algorithm = a, .alphabet_bits = sigma, .check_alphabet = false};
          const std::string label = std::string(to_string(a)) + ", σ = " + std::to_string(sigma) +
                                    ", m = " + std::to_string(m) + ", text at byte " + std::to_string(shift);
          count.fill_bytes(0xA5);
          sluice::string_match(ctx(), span, needle.span(), sluice::match_count{count.data()}, options);
          ASSERT_EQ(count.to_host()[0], expected.size()) << label;
          bitmap.fill_bytes(0xA5);
          sluice::string_match(ctx(), span, needle.span(), sluice::match_bitmap{bitmap.span()}, options);
          ASSERT_TRUE(all_equal(bitmap.to_host(), bitmap_of(expected, bitmap.size()))) << label;
        }
      }
}

TEST_F(StringMatch, Drk2sSubpatternAtEveryOffsetAndLength) {
  for (int sigma : {1, 2, 8})
    for (std::size_t m : {9u, 33u, 100u}) {
      const auto cases = text_cases(m, sigma);
      const auto& c = cases.front();
      const auto expected = sluice::reference::string_match(c.text, c.pattern);
      const sluice::device_buffer<unsigned char> text(ctx(), std::span<const unsigned char>(c.text));
      const sluice::device_buffer<unsigned char> pattern(ctx(), std::span<const unsigned char>(c.pattern));
      const int widest = std::min(64 / sigma, static_cast<int>(m));
      for (int length : {1, 3, widest})
        for (std::size_t offset : {std::size_t{0}, std::size_t{1}, m - static_cast<std::size_t>(length)})
          for (auto verification : {match_verification::exact, match_verification::fingerprint}) {
            if (offset + static_cast<std::size_t>(length) > m) continue;  // m̄ = m leaves only offset 0
            const sluice::string_match_options options{.algorithm = string_match_algorithm::drk_2s,
                                                       .alphabet_bits = sigma,
                                                       .verification = verification,
                                                       .subpattern_length = length,
                                                       .subpattern_offset = offset};
            expect_outputs(ctx(), text, pattern, options, expected,
                           describe(c, options.algorithm, sigma, options) + ", m̄ = " + std::to_string(length));
            if (HasFatalFailure()) return;
          }
    }
}

TEST_F(StringMatch, FingerprintOnlyFindsEveryMatchAndFewFalsePositives) {
  // The seed's mode: a superset of the matches. The counts of false positives go to the log
  // (docs/string_match.md quotes them); drk_2s (exact skim, chunk fingerprints mod p < 2^31) and the
  // 61-bit recurrence must have none here.
  for (int sigma : {1, 8})
    for (std::size_t m : {16u, 65u, 1024u}) {
      const auto cases = text_cases(m, sigma);
      for (const auto& c : cases) {
        const auto expected = sluice::reference::string_match(c.text, c.pattern);
        const sluice::device_buffer<unsigned char> text(ctx(), std::span<const unsigned char>(c.text));
        const sluice::device_buffer<unsigned char> pattern(ctx(), std::span<const unsigned char>(c.pattern));
        sluice::device_buffer<std::size_t> found(ctx(), c.text.size()), count(ctx(), 1);
        for (auto a : {string_match_algorithm::crk, string_match_algorithm::crk_recurrence, string_match_algorithm::drk,
                       string_match_algorithm::hrk, string_match_algorithm::drk_2s}) {
          const sluice::string_match_options options{
              .algorithm = a, .alphabet_bits = sigma, .verification = match_verification::fingerprint};
          sluice::string_match(ctx(), text.span(), pattern.span(), sluice::match_positions{found.span(), count.data()},
                               options);
          auto got = found.to_host();
          got.resize(count.to_host()[0]);
          ASSERT_TRUE(std::includes(got.begin(), got.end(), expected.begin(), expected.end()))
              << "a match was missed: " << describe(c, a, sigma, options);
          const std::size_t false_positives = got.size() - expected.size();
          if (false_positives) std::cout << "[ fp-rate  ] " << describe(c, a, sigma, options) << ": " << false_positives
                                         << " false positives in " << c.text.size() - m + 1 << " positions\n";
          if (a == string_match_algorithm::drk_2s || a == string_match_algorithm::crk_recurrence)
            EXPECT_EQ(false_positives, 0u) << describe(c, a, sigma, options);
        }
      }
    }
}

TEST_F(StringMatch, TruncatedPositionsAreCountedNotWritten) {
  const bytes text(5000, 'a'), pattern(3, 'a');
  const sluice::device_buffer<unsigned char> d_text(ctx(), std::span<const unsigned char>(text));
  const sluice::device_buffer<unsigned char> d_pattern(ctx(), std::span<const unsigned char>(pattern));
  sluice::device_buffer<std::size_t> found(ctx(), 10), count(ctx(), 1);
  found.fill_bytes(0xA5);
  sluice::string_match(ctx(), d_text.span(), d_pattern.span(), sluice::match_positions{found.span(), count.data()});
  EXPECT_EQ(count.to_host()[0], 4998u);
  EXPECT_EQ(found.to_host(), (positions{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
}

TEST_F(StringMatch, PatternLongerThanTextOrEqualToIt) {
  const bytes text{'a', 'b', 'c'};
  const sluice::device_buffer<unsigned char> d_text(ctx(), std::span<const unsigned char>(text));
  sluice::device_buffer<std::size_t> found(ctx(), 4), count(ctx(), 1);
  for (auto a : every_algorithm) {
    const sluice::string_match_options options{.algorithm = a};
    const bytes longer{'a', 'b', 'c', 'd'};
    const sluice::device_buffer<unsigned char> d_longer(ctx(), std::span<const unsigned char>(longer));
    if (applies(a, 4, 8)) {
      count.fill_bytes(0xA5);
      found.fill_bytes(0xA5);
      sluice::string_match(ctx(), d_text.span(), d_longer.span(), sluice::match_positions{found.span(), count.data()},
                           options);
      EXPECT_EQ(count.to_host()[0], 0u) << to_string(a);
      EXPECT_EQ(found.to_host(), std::vector<std::size_t>(4, 0xA5A5A5A5A5A5A5A5ull)) << to_string(a);
      sluice::string_match(ctx(), d_text.span(), d_longer.span(), sluice::match_bitmap{{}}, options);  // 0 words
    }
    sluice::string_match(ctx(), d_text.span(), d_text.span().first(3), sluice::match_count{count.data()}, options);
    EXPECT_EQ(count.to_host()[0], 1u) << to_string(a);
  }
  const sluice::device_buffer<unsigned char> empty(ctx(), 0);
  sluice::string_match(ctx(), empty.span(), d_text.span(), sluice::match_count{count.data()});
  EXPECT_EQ(count.to_host()[0], 0u);
}

TEST_F(StringMatch, BadInputs) {
  const bytes text{1, 0, 1, 1, 3, 0, 2}, pattern{1, 1};
  const sluice::device_buffer<unsigned char> d_text(ctx(), std::span<const unsigned char>(text));
  const sluice::device_buffer<unsigned char> d_pattern(ctx(), std::span<const unsigned char>(pattern));
  sluice::device_buffer<std::size_t> count(ctx(), 1);
  sluice::device_buffer<std::uint32_t> bitmap(ctx(), 1);
  const sluice::match_count out{count.data()};
  expect_invalid_argument([&] { sluice::string_match(ctx(), d_text.span(), d_pattern.span().first(0), out); }, "pattern");
  for (int sigma : {0, 9})
    expect_invalid_argument(
        [&] { sluice::string_match(ctx(), d_text.span(), d_pattern.span(), out, {.alphabet_bits = sigma}); },
        "options.alphabet_bits");
  // σ = 1: text[4] = 3 is the first character outside {0, 1}; σ = 2 accepts the text.
  expect_invalid_argument([&] { sluice::string_match(ctx(), d_text.span(), d_pattern.span(), out, {.alphabet_bits = 1}); },
                          "text", 4);
  sluice::string_match(ctx(), d_text.span(), d_pattern.span(), out, {.alphabet_bits = 2});
  EXPECT_EQ(count.to_host()[0], 1u);
  // Without the check, characters compare by their low σ bits: 3 reads as 1, 2 as 0.
  sluice::string_match(ctx(), d_text.span(), d_pattern.span(), out, {.alphabet_bits = 1, .check_alphabet = false});
  EXPECT_EQ(count.to_host()[0], 2u);  // positions 2 (1,1) and 3 (1,3→1)
  const bytes bad_pattern{0, 2};
  const sluice::device_buffer<unsigned char> d_bad(ctx(), std::span<const unsigned char>(bad_pattern));
  expect_invalid_argument([&] { sluice::string_match(ctx(), d_text.span(), d_bad.span(), out, {.alphabet_bits = 1}); },
                          "pattern", 1);
  expect_invalid_argument(
      [&] {
        sluice::string_match(ctx(), d_text.span(), d_pattern.span(), out,
                             {.algorithm = string_match_algorithm::drk_wom32, .alphabet_bits = 8});
        const bytes five(5, 1);
        const sluice::device_buffer<unsigned char> d_five(ctx(), std::span<const unsigned char>(five));
        sluice::string_match(ctx(), d_text.span(), d_five.span(), out, {.algorithm = string_match_algorithm::drk_wom32});
      },
      "options.algorithm");
  expect_invalid_argument(
      [&] {
        sluice::string_match(ctx(), d_text.span(), d_pattern.span(),
                             sluice::match_bitmap{bitmap.span().first(0)});  // 6 positions need a word
      },
      "bitmap");
  const std::vector<std::size_t> host_count(1);
  expect_invalid_argument(
      [&] {
        sluice::string_match(ctx(), d_text.span(), d_pattern.span(),
                             sluice::match_count{const_cast<std::size_t*>(host_count.data())});
      },
      "count");
  expect_invalid_argument(
      [&] {
        sluice::string_match(ctx(), cuda::std::span<const unsigned char>(text.data(), text.size()), d_pattern.span(), out);
      },
      "text");
}

TEST_F(StringMatch, LargeTextPast2To31Characters) {
  if (sluice::testing::under_sanitizer()) GTEST_SKIP() << "2^31 + 5 characters under a sanitizer";
  // n past 2^31 by more than the pattern, so that the last occurrence and the one straddling 2^31 do
  // not overlap (at n = 2^31 + 5 they did, and the text held two occurrences, not three).
  const std::size_t n = (std::size_t{1} << 31) + 45;
  const bytes pattern{7, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};  // 13 characters: drk_2s verifies
  const positions expected{0, (std::size_t{1} << 31) - 6, n - pattern.size()};  // the middle one straddles 2^31
  bytes host_text(n, 0);
  for (std::size_t at : expected)
    std::copy(pattern.begin(), pattern.end(), host_text.begin() + static_cast<std::ptrdiff_t>(at));
  const sluice::device_buffer<unsigned char> text(ctx(), std::span<const unsigned char>(host_text));
  host_text = {};
  const sluice::device_buffer<unsigned char> d_pattern(ctx(), std::span<const unsigned char>(pattern));
  sluice::device_buffer<std::size_t> found(ctx(), 8), count(ctx(), 1);
  for (auto a : {string_match_algorithm::automatic, string_match_algorithm::drk, string_match_algorithm::crk_recurrence}) {
    found.fill_bytes(0xA5);
    sluice::string_match(ctx(), text.span(), d_pattern.span(), sluice::match_positions{found.span(), count.data()},
                         {.algorithm = a});
    ASSERT_EQ(count.to_host()[0], 3u) << to_string(a);
    auto got = found.to_host();
    got.resize(3);
    EXPECT_EQ(got, expected) << to_string(a);
    sluice::string_match(ctx(), text.span(), d_pattern.span(), sluice::match_count{count.data()}, {.algorithm = a});
    EXPECT_EQ(count.to_host()[0], 3u) << to_string(a);
  }
}

}  // namespace

// ---- many patterns ---------------------------------------------------------------------------------------

namespace multi {

using hit = sluice::string_match_hit;

/// Patterns cut from the text (they occur), random ones, a chain of prefixes of one another across the
/// 8-character key, and a repeated pattern.
std::vector<std::string> mixed_patterns(const bytes& text, int sigma, std::size_t count, std::size_t min_length,
                                        std::size_t max_length, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t length = min_length + rng() % (max_length - min_length + 1);
    if (rng() % 2) {
      const std::size_t at = rng() % (text.size() - length);
      out.emplace_back(text.begin() + static_cast<std::ptrdiff_t>(at), text.begin() + static_cast<std::ptrdiff_t>(at + length));
    } else {
      const bytes r = random_bytes(length, sigma, rng());
      out.emplace_back(r.begin(), r.end());
    }
  }
  const std::size_t at = rng() % (text.size() - 40);
  for (std::size_t length : {1u, 2u, 7u, 8u, 9u, 16u, 17u, 33u, 8u})
    out.emplace_back(text.begin() + static_cast<std::ptrdiff_t>(at), text.begin() + static_cast<std::ptrdiff_t>(at + length));
  return out;
}

std::vector<std::pair<std::size_t, std::uint32_t>> pairs_of(const std::vector<hit>& hits) {
  std::vector<std::pair<std::size_t, std::uint32_t>> out;
  for (const hit& h : hits) out.emplace_back(static_cast<std::size_t>(h.position), h.pattern);
  return out;
}

template <class Hits>
std::vector<std::pair<std::size_t, std::uint32_t>> expected_pairs(const Hits& hits) {
  std::vector<std::pair<std::size_t, std::uint32_t>> out;
  for (const auto& h : hits) out.emplace_back(h.position, h.pattern);
  return out;
}

/// Runs the set on the text (hits, twice poisoned, and the bitmap) against `expected`.
template <class Expected>
void expect_multi(sluice::context& ctx, const bytes& text, const sluice::pattern_set& set, const Expected& expected,
                  const std::string& label) {
  const sluice::device_buffer<unsigned char> d_text(ctx, std::span<const unsigned char>(text));
  sluice::device_buffer<hit> hits(ctx, expected.size() + 2);
  sluice::device_buffer<std::size_t> count(ctx, 1);
  for (unsigned char poison : sluice::testing::poison_patterns) {
    hits.fill_bytes(poison);
    count.fill_bytes(poison);
    sluice::multi_string_match(ctx, d_text.span(), set, hits.span(), count.data());
    ASSERT_EQ(count.to_host()[0], expected.size()) << label;
    auto got = hits.to_host();
    got.resize(expected.size());
    ASSERT_EQ(pairs_of(got), expected_pairs(expected)) << label;
    count.fill_bytes(poison);  // no room for pairs: the count alone (one pass)
    sluice::multi_string_match(ctx, d_text.span(), set, cuda::std::span<hit>{}, count.data());
    ASSERT_EQ(count.to_host()[0], expected.size()) << "count alone: " << label;
  }
  const std::size_t words = set.bitmap_words(text.size());
  sluice::device_buffer<std::uint32_t> bitmap(ctx, words);
  bitmap.fill_bytes(0xA5);
  sluice::multi_string_match(ctx, d_text.span(), set, sluice::match_bitmap{bitmap.span()});
  positions starts;
  for (const auto& h : expected)
    if (starts.empty() || starts.back() != h.position) starts.push_back(h.position);
  ASSERT_TRUE(all_equal(bitmap.to_host(), bitmap_of(starts, words))) << "bitmap: " << label;
}

}  // namespace multi

TEST_F(StringMatch, MultiPatternMixedLengthsPrefixesAndDuplicates) {
  for (int sigma : {1, 2, 8})
    for (std::size_t count : {1u, 10u, 1000u}) {
      const bytes text = random_bytes(sluice::testing::scaled_size(100003, 20011), sigma, count * 3 + static_cast<std::size_t>(sigma));
      const auto owned = multi::mixed_patterns(text, sigma, count, 1, 70, count);
      const std::vector<std::string_view> patterns(owned.begin(), owned.end());
      const sluice::pattern_set set(ctx(), patterns, {.alphabet_bits = sigma});
      const auto expected = sluice::reference::multi_string_match(text, patterns);
      multi::expect_multi(ctx(), text, set, expected,
                          "σ = " + std::to_string(sigma) + ", " + std::to_string(patterns.size()) + " patterns");
      if (HasFatalFailure()) return;
      // The set is reusable: a second text.
      const bytes other = random_bytes(5000, sigma, 77);
      multi::expect_multi(ctx(), other, set, sluice::reference::multi_string_match(other, patterns), "second text");
      if (HasFatalFailure()) return;
    }
}

TEST_F(StringMatch, MultiPatternPrefixesOnAPeriodicText) {
  const bytes text(3000, 'a');
  std::vector<std::string> owned;
  for (std::size_t length = 40; length >= 1; --length) owned.emplace_back(length, 'a');
  owned.emplace_back("ab");
  const std::vector<std::string_view> patterns(owned.begin(), owned.end());
  const sluice::pattern_set set(ctx(), patterns);
  multi::expect_multi(ctx(), text, set, sluice::reference::multi_string_match(text, patterns), "a^1..a^40 in a^3000");
}

TEST_F(StringMatch, MultiPatternHundredThousandPatterns) {
  // 10^5 patterns of 8 to 64 characters; the host matcher (the same table, tested against the naive
  // oracle on the host) is the oracle here: the naive one would take 10^5 passes.
  const bytes text = random_bytes(sluice::testing::scaled_size(std::size_t{1} << 22, 1u << 15), 8, 5);
  const auto owned = multi::mixed_patterns(text, 8, 100000, 8, 64, 11);
  const std::vector<std::string_view> patterns(owned.begin(), owned.end());
  const sluice::pattern_set set(ctx(), patterns);
  const auto expected = sluice::host::multi_string_match(text, patterns);
  ASSERT_GT(expected.size(), 50000u);
  multi::expect_multi(ctx(), text, set, expected, "10^5 patterns");
}

TEST_F(StringMatch, MultiPatternBadInputs) {
  expect_invalid_argument([&] { const sluice::pattern_set set(ctx(), {}); }, "patterns");
  const std::vector<std::string_view> with_empty{"a", ""};
  expect_invalid_argument([&] { const sluice::pattern_set set(ctx(), with_empty); }, "patterns", 1);
  const std::vector<std::string_view> two_bit{"\x01\x03", "\x02"};
  expect_invalid_argument([&] { const sluice::pattern_set set(ctx(), two_bit, {.alphabet_bits = 1}); }, "patterns", 0);
  const sluice::pattern_set set(ctx(), two_bit, {.alphabet_bits = 2});
  const bytes text{1, 3, 2, 7, 1, 3};
  const sluice::device_buffer<unsigned char> d_text(ctx(), std::span<const unsigned char>(text));
  sluice::device_buffer<sluice::string_match_hit> hits(ctx(), 4);
  sluice::device_buffer<std::size_t> count(ctx(), 1);
  expect_invalid_argument([&] { sluice::multi_string_match(ctx(), d_text.span(), set, hits.span(), count.data()); },
                          "text", 3);
  // Shorter than every pattern: no match.
  const std::vector<std::string_view> long_one{"\x01\x02\x03\x01\x02\x03\x01\x02"};
  const sluice::pattern_set long_set(ctx(), long_one);
  sluice::multi_string_match(ctx(), d_text.span(), long_set, hits.span(), count.data());
  EXPECT_EQ(count.to_host()[0], 0u);
}

// ---- streaming --------------------------------------------------------------------------------------------------

TEST_F(StringMatch, StreamFindsMatchesAcrossChunkBordersExactlyOnce) {
  const bytes long_text = [] {
    bytes t = random_bytes(200003, 2, 9);
    for (std::size_t i = 1000; i < 200000; i += 997) t[i] = 3;  // make a^m windows rarer
    return t;
  }();
  const bytes short_text(long_text.begin(), long_text.begin() + 3001);  // for one-character chunks: 3001 chunks
  for (std::size_t m : {1u, 2u, 7u, 33u, 1000u, 5000u})
    for (std::size_t chunk : {std::size_t{1}, std::size_t{4096} + 7, std::size_t{1} << 16}) {
      const bytes& text = chunk == 1 ? short_text : long_text;
      if (m >= text.size()) continue;
      const bytes pattern(text.begin() + 503, text.begin() + 503 + static_cast<std::ptrdiff_t>(m));
      const auto expected = sluice::reference::string_match(text, pattern);
      for (std::size_t piece : {std::size_t{100}, text.size()}) {  // what one read returns at most
        std::size_t at = 0;
        auto read = [&](std::span<unsigned char> into) {
          const std::size_t k = std::min({into.size(), piece, text.size() - at});
          std::copy_n(text.begin() + static_cast<std::ptrdiff_t>(at), k, into.begin());
          at += k;
          return k;
        };
        positions got;
        std::size_t next_offset = 0;
        const std::size_t length = sluice::string_match_stream(
            ctx(), read, std::span<const unsigned char>(pattern),
            [&](const sluice::stream_chunk& c) {
              EXPECT_EQ(c.offset + c.halo, next_offset) << "chunks out of order";
              next_offset = c.offset + c.bytes.size();
              EXPECT_TRUE(std::equal(c.bytes.begin(), c.bytes.end(), text.begin() + static_cast<std::ptrdiff_t>(c.offset)));
              for (std::size_t w = 0; w < c.bitmap.size(); ++w)
                for (std::uint32_t bits = c.bitmap[w]; bits; bits &= bits - 1)
                  got.push_back(c.offset + w * 32 + static_cast<std::size_t>(__builtin_ctz(bits)));
            },
            {.alphabet_bits = 2}, {.chunk_bytes = chunk});
        ASSERT_EQ(length, text.size());
        ASSERT_TRUE(all_equal(got, expected)) << "m = " << m << ", chunk = " << chunk << ", reads of " << piece;
      }
    }
  // The alphabet is checked chunk by chunk: the first character above σ bits, by its text position.
  const bytes& text = long_text;
  const bytes pattern{1, 1};
  std::size_t at = 0;
  auto read = [&](std::span<unsigned char> into) {
    const std::size_t k = std::min(into.size(), text.size() - at);
    std::copy_n(text.begin() + static_cast<std::ptrdiff_t>(at), k, into.begin());
    at += k;
    return k;
  };
  expect_invalid_argument(
      [&] {
        sluice::string_match_stream(ctx(), read, std::span<const unsigned char>(pattern), [](const sluice::stream_chunk&) {},
                                    {.alphabet_bits = 1}, {.chunk_bytes = 4096});
      },
      "text", static_cast<std::size_t>(std::find_if(text.begin(), text.end(), [](unsigned char c) { return c > 1; }) - text.begin()));
}

TEST_F(StringMatch, MultiStreamMarksEveryStart) {
  const bytes text = random_bytes(100003, 2, 21);
  const auto owned = multi::mixed_patterns(text, 2, 20, 3, 40, 4);
  const std::vector<std::string_view> patterns(owned.begin(), owned.end());
  const sluice::pattern_set set(ctx(), patterns, {.alphabet_bits = 2});
  positions expected;
  for (const auto& h : sluice::reference::multi_string_match(text, patterns))
    if (expected.empty() || expected.back() != h.position) expected.push_back(h.position);
  std::size_t at = 0;
  auto read = [&](std::span<unsigned char> into) {
    const std::size_t k = std::min(into.size(), text.size() - at);
    std::copy_n(text.begin() + static_cast<std::ptrdiff_t>(at), k, into.begin());
    at += k;
    return k;
  };
  std::vector<bool> marked(text.size(), false);
  sluice::multi_string_match_stream(
      ctx(), read, set,
      [&](const sluice::stream_chunk& c) {
        for (std::size_t w = 0; w < c.bitmap.size(); ++w)
          for (std::uint32_t bits = c.bitmap[w]; bits; bits &= bits - 1)
            marked[c.offset + w * 32 + static_cast<std::size_t>(__builtin_ctz(bits))] = true;
      },
      {.chunk_bytes = 3001});
  positions got;
  for (std::size_t r = 0; r < marked.size(); ++r)
    if (marked[r]) got.push_back(r);
  EXPECT_TRUE(all_equal(got, expected));
}
