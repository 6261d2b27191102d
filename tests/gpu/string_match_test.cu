// GPU tests of string_match (Ashkiani ch. 2) against the oracle (sluice/reference/string_match.hpp):
// every strategy × m = 1, 2, 7, 8, 9, 31, 32, 33, 64, 65, 1024, 2^16 × σ = 1, 2, 8 × texts (random with
// the pattern planted at 0, in the middle and at n − m; periodic a…a with a^m, every position a match;
// periodic with a^{m−1}b, every skim a candidate and no match); the three outputs (count, positions,
// bitmap), each poisoned twice; DRK-2S's subpattern offsets; fingerprint-only verification (a superset of
// the matches, false positives counted); truncated positions; bad inputs; and 2^31 + 5 characters.
#include <sluice/core/device_buffer.hpp>
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
  const std::size_t n = (std::size_t{1} << 31) + 5;
  sluice::device_buffer<unsigned char> text(ctx(), n);
  text.fill_bytes(0);
  const bytes pattern{7, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};  // 13 characters: drk_2s verifies
  const positions expected{0, (std::size_t{1} << 31) - 6, n - pattern.size()};  // the middle one straddles 2^31
  for (std::size_t at : expected)
    SLUICE_CUDA_CHECK(cudaMemcpy(text.data() + at, pattern.data(), pattern.size(), cudaMemcpyHostToDevice));
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
