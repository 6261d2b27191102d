// Host tests of the divide-and-conquer matchers' thread work (detail/string_match/rollers.hpp) and of the
// plan (plan.hpp): the kernel's tiles and threads replayed on the host, each thread's word computed by the
// kernel's own match_word over the same characters, against the oracle (sluice/reference/string_match.hpp).
// Packed windows must give exactly the matches; DRK's F_p a superset that exact verification reduces to
// them; DRK-2S's skim a superset in which every candidate holds the subpattern. Pattern lengths m = 1, 2,
// 7, 8, 9, 31, 32, 33, 64, 65, 1024; σ = 1, 2, 8; random and periodic texts; matches at 0 and n − m.
#include <sluice/core/error.hpp>
#include <sluice/detail/string_match/plan.hpp>
#include <sluice/detail/string_match/rollers.hpp>
#include <sluice/detail/string_match/tuning.hpp>
#include <sluice/reference/string_match.hpp>

#include "support/errors.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

namespace sm = sluice::detail::string_match;
using sluice::string_match_algorithm;
using bytes = std::vector<unsigned char>;
using positions = std::vector<std::size_t>;

constexpr int threads = sm::tuning::drk_threads;
constexpr std::size_t tile_positions = static_cast<std::size_t>(threads) * sm::positions_per_thread;

bytes random_text(std::size_t n, int sigma, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  bytes text(n);
  for (auto& c : text) c = static_cast<unsigned char>(rng() & sm::char_mask(sigma));
  return text;
}

/// The bitmap drk_kernel computes before verification, tile by tile and thread by thread: the run of
/// tile b starts at b·P + o and is cut at the text's end, as in the kernel.
template <class Spec>
std::vector<std::uint32_t> replay_kernel(const bytes& text, std::size_t m, std::size_t offset, std::size_t w,
                                         int sigma, const Spec& spec, const sm::pattern_summary& summary) {
  const std::size_t n = text.size();
  const std::size_t count = sm::match_positions(n, m);
  std::vector<std::uint32_t> words(sm::bitmap_words(count), 0xA5A5A5A5u);
  const auto roller = spec.bind(summary);
  for (std::size_t tile = 0; tile * threads < words.size(); ++tile) {
    const std::size_t run_first = tile * tile_positions + offset;
    const sm::global_run run{text.data() + run_first};
    for (int t = 0; t < threads; ++t) {
      const std::size_t word = tile * threads + static_cast<std::size_t>(t);
      const int valid = sm::word_positions(word, count);
      const std::uint32_t bits = sm::match_word(roller, run, static_cast<std::size_t>(t) * sm::positions_per_thread,
                                                valid, w, sm::char_mask(sigma));
      if (word < words.size()) {
        words[word] = bits;
      } else {
        EXPECT_EQ(bits, 0u);
      }
    }
  }
  return words;
}

positions positions_of(const std::vector<std::uint32_t>& words) {
  positions out;
  for (std::size_t w = 0; w < words.size(); ++w)
    for (int b = 0; b < 32; ++b)
      if ((words[w] >> b) & 1u) out.push_back(w * 32 + static_cast<std::size_t>(b));
  return out;
}

bool equal_at(const bytes& text, std::size_t r, const bytes& pattern, std::size_t from, std::size_t length) {
  return std::equal(pattern.begin() + static_cast<std::ptrdiff_t>(from),
                    pattern.begin() + static_cast<std::ptrdiff_t>(from + length),
                    text.begin() + static_cast<std::ptrdiff_t>(r + from));
}

struct text_case {
  const char* name;
  bytes text;
  bytes pattern;
};

/// Random text with the pattern planted at 0, n − m and in the middle; the periodic a…a text with
/// a^m; and a random pattern that probably occurs nowhere.
std::vector<text_case> cases(std::size_t n, std::size_t m, int sigma, std::uint64_t seed) {
  std::vector<text_case> out;
  bytes text = random_text(n, sigma, seed);
  bytes pattern = random_text(m, sigma, seed + 1);
  if (m <= n) {
    for (std::size_t at : {std::size_t{0}, n - m, (n - m) / 2})
      std::copy(pattern.begin(), pattern.end(), text.begin() + static_cast<std::ptrdiff_t>(at));
  }
  out.push_back({"planted", text, pattern});
  out.push_back({"periodic", bytes(n, 1), bytes(m, 1)});
  out.push_back({"absent", random_text(n, sigma, seed + 2), random_text(m, sigma, seed + 3)});
  return out;
}

const std::size_t pattern_lengths[] = {1, 2, 7, 8, 9, 31, 32, 33, 64, 65, 1024};

TEST(StringMatchRollers, PackedWindowsGiveExactlyTheMatches) {
  for (int sigma : {1, 2, 8})
    for (std::size_t m : pattern_lengths) {
      if (m * static_cast<std::size_t>(sigma) > 64) continue;
      for (std::size_t n : {m, m + 1, std::size_t{20000}, tile_positions + m + 40})
        for (const auto& c : cases(n, m, sigma, n * 31 + m)) {
          sm::pattern_summary summary{};
          summary.packed = sm::pack_chars<unsigned long long>(c.pattern.data(), static_cast<int>(m), sigma);
          const auto expected = sluice::reference::string_match(c.text, c.pattern);
          const auto words64 = replay_kernel(c.text, m, 0, m, sigma,
                                             sm::packed_spec<unsigned long long>{sigma, static_cast<int>(m)}, summary);
          ASSERT_EQ(positions_of(words64), expected) << c.name << ", σ = " << sigma << ", m = " << m << ", n = " << n;
          if (m * static_cast<std::size_t>(sigma) <= 32) {
            const auto words32 =
                replay_kernel(c.text, m, 0, m, sigma, sm::packed_spec<std::uint32_t>{sigma, static_cast<int>(m)}, summary);
            ASSERT_EQ(words32, words64) << c.name << ", σ = " << sigma << ", m = " << m << ", n = " << n;
          }
        }
    }
}

/// byte_windows over a thread's characters as the kernel loads them (little-endian words from the
/// thread's first position), thread by thread, against the packed roller's words: every σ, every
/// w ≤ 8, low bits only (σ < 8 with the alphabet check off: the high bits must not count).
template <class Window>
void expect_byte_windows_equal_rolling(const bytes& text, const bytes& pattern, int sigma, const std::string& label) {
  using windows = sm::byte_windows<Window>;
  const std::size_t n = text.size(), m = pattern.size();
  const int w = static_cast<int>(m);
  sm::pattern_summary summary{};
  summary.packed = sm::pack_chars<unsigned long long>(pattern.data(), w, sigma);
  summary.bytes = sm::pack_bytes(pattern.data(), w, sigma);
  const auto expected =
      replay_kernel(text, m, 0, m, sigma, sm::packed_spec<unsigned long long>{sigma, w}, summary);
  const windows matcher = sm::byte_window_spec<unsigned long long, Window>{sigma, w}.bind_windows(summary);
  for (std::size_t word = 0; word < expected.size(); ++word) {
    bytes chars(4 * windows::words, 0xEE);  // past the text: bytes no window of a valid position reads
    const std::size_t first = word * 32;
    std::copy(text.begin() + static_cast<std::ptrdiff_t>(first),
              text.begin() + static_cast<std::ptrdiff_t>(std::min(n, first + chars.size())), chars.begin());
    std::uint32_t words[windows::words];
    std::memcpy(words, chars.data(), sizeof(words));
    const int valid = sm::word_positions(word, sm::match_positions(n, m));
    ASSERT_EQ(matcher.match(words) & sm::low_bits(valid), expected[word]) << label << ", word " << word;
  }
}

TEST(StringMatchRollers, ByteWindowsEqualTheRolledWindows) {
  for (int sigma : {1, 2, 5, 8})
    for (std::size_t m = 1; m <= 8; ++m)
      for (std::size_t n : {m, m + 1, std::size_t{100}, std::size_t{5003}})
        for (auto c : cases(n, m, sigma, n * 7 + m)) {
          const std::string label = std::string(c.name) + ", σ = " + std::to_string(sigma) + ", m = " +
                                    std::to_string(m) + ", n = " + std::to_string(n);
          if (sigma < 8)  // high bits set everywhere: the comparison must see the low σ bits only
            for (auto& ch : c.text) ch = static_cast<unsigned char>(ch | (0xFFu << sigma));
          if (m <= 4) expect_byte_windows_equal_rolling<std::uint32_t>(c.text, c.pattern, sigma, label + " (32)");
          expect_byte_windows_equal_rolling<unsigned long long>(c.text, c.pattern, sigma, label + " (64)");
          if (HasFatalFailure()) return;
        }
}

TEST(StringMatchRollers, ModularCandidatesContainTheMatchesAndVerifyToThem) {
  for (int sigma : {1, 2, 8})
    for (std::size_t m : pattern_lengths)
      for (std::size_t n : {m, std::size_t{20000}, tile_positions + m + 40})
        for (const auto& c : cases(n, m, sigma, n * 17 + m)) {
          // A small prime on purpose: collisions happen, and verification must remove them.
          for (std::uint32_t p : {std::uint32_t{257}, sm::random_prime(m, 1u << (30 - sigma), 1u << (31 - sigma))}) {
            sm::pattern_summary summary{};
            summary.modular = sm::modular_fingerprint(c.pattern.data(), m, sigma, p);
            const auto candidates =
                positions_of(replay_kernel(c.text, m, 0, m, sigma, sm::modular_spec{p, sigma, m}, summary));
            positions verified;
            for (std::size_t r : candidates) {
              ASSERT_EQ(sm::modular_fingerprint(c.text.data() + r, m, sigma, p), summary.modular);
              if (equal_at(c.text, r, c.pattern, 0, m)) verified.push_back(r);
            }
            const auto expected = sluice::reference::string_match(c.text, c.pattern);
            ASSERT_EQ(verified, expected) << c.name << ", σ = " << sigma << ", m = " << m << ", n = " << n << ", p = " << p;
            if (p > 1000 && m * static_cast<std::size_t>(sigma) > 40) {
              EXPECT_LE(candidates.size(), expected.size() + 2) << "too many collisions for p = " << p;
            }
          }
        }
}

TEST(StringMatchRollers, SkimCandidatesHoldTheSubpatternAtEveryOffset) {
  for (int sigma : {1, 2, 8})
    for (std::size_t m : pattern_lengths) {
      if (m < 2) continue;
      const int length = static_cast<int>(std::min<std::size_t>(m - 1, static_cast<std::size_t>(
                                                                            std::min(sm::tuning::subpattern_chars(sigma), 64 / sigma))));
      for (std::size_t offset : {std::size_t{0}, std::size_t{1}, m - static_cast<std::size_t>(length)})
        for (const auto& c : cases(20000, m, sigma, m * 3 + offset)) {
          sm::pattern_summary summary{};
          summary.packed = sm::pack_chars<unsigned long long>(c.pattern.data() + offset, length, sigma);
          const auto candidates = positions_of(replay_kernel(
              c.text, m, offset, static_cast<std::size_t>(length), sigma,
              sm::packed_spec<unsigned long long>{sigma, length}, summary));
          positions verified;
          for (std::size_t r : candidates) {
            ASSERT_LE(r + m, c.text.size());
            ASSERT_TRUE(equal_at(c.text, r, c.pattern, offset, static_cast<std::size_t>(length)))
                << "r = " << r << ", offset " << offset;
            if (equal_at(c.text, r, c.pattern, 0, m)) verified.push_back(r);
          }
          ASSERT_EQ(verified, sluice::reference::string_match(c.text, c.pattern))
              << c.name << ", σ = " << sigma << ", m = " << m << ", offset " << offset;
        }
    }
}

// ---- the plan ----------------------------------------------------------------------------------------------

TEST(StringMatchPlan, AutomaticPicksThePackedWindowsThenDrk2s) {
  EXPECT_EQ(sm::automatic_algorithm(4, 8), string_match_algorithm::drk_wom32);
  EXPECT_EQ(sm::automatic_algorithm(5, 8), string_match_algorithm::drk_wom64);
  EXPECT_EQ(sm::automatic_algorithm(8, 8), string_match_algorithm::drk_wom64);
  EXPECT_EQ(sm::automatic_algorithm(9, 8), string_match_algorithm::drk_2s);
  EXPECT_EQ(sm::automatic_algorithm(16, 1), string_match_algorithm::drk_wom32);
  EXPECT_EQ(sm::automatic_algorithm(17, 1), string_match_algorithm::drk_2s);  // binary text: characters, not bits
  EXPECT_EQ(sm::automatic_algorithm(32, 1), string_match_algorithm::drk_2s);
  EXPECT_EQ(sm::automatic_algorithm(64, 1), string_match_algorithm::drk_2s);
  EXPECT_EQ(sm::automatic_algorithm(8, 4), string_match_algorithm::drk_wom32);
  EXPECT_EQ(sm::automatic_algorithm(9, 4), string_match_algorithm::drk_2s);
  EXPECT_EQ(sm::automatic_algorithm(65, 1), string_match_algorithm::drk_2s);
  EXPECT_EQ(sm::automatic_algorithm(std::size_t{1} << 16, 2), string_match_algorithm::drk_2s);
}

TEST(StringMatchPlan, SubpatternVerificationAndPrimes) {
  for (int sigma = 1; sigma <= 8; ++sigma) {
    const auto plan = sm::make_plan("t", 1000, {.algorithm = string_match_algorithm::drk_2s, .alphabet_bits = sigma});
    EXPECT_EQ(plan.subpattern_length, std::min(sigma <= 4 ? 16 : 8, 64 / sigma));
    EXPECT_EQ(plan.subpattern_offset, 0u);
    EXPECT_EQ(plan.skim_in_32, plan.subpattern_length * sigma <= 32);
    EXPECT_TRUE(plan.verify);
    EXPECT_TRUE(sm::is_prime(plan.drk_prime));
    EXPECT_LT(plan.drk_prime, std::uint32_t{1} << (31 - sigma));
    EXPECT_GE(plan.crk_prime, std::uint32_t{1} << 30);
    EXPECT_LT(plan.crk_prime, std::uint32_t{1} << 31);
    EXPECT_EQ(plan.base61_m, sm::pow_mod61(plan.base61, 1000));
  }
  // A pattern no longer than the subpattern is skimmed whole: nothing to verify.
  EXPECT_FALSE(sm::make_plan("t", 5, {.algorithm = string_match_algorithm::drk_2s}).verify);
  EXPECT_EQ(sm::make_plan("t", 5, {.algorithm = string_match_algorithm::drk_2s}).subpattern_length, 5);
  // Packed windows never verify; the others verify only when exact, except drk_2s (chunk fingerprints).
  EXPECT_FALSE(sm::make_plan("t", 4, {.algorithm = string_match_algorithm::drk_wom32}).verify);
  EXPECT_TRUE(sm::make_plan("t", 40, {.algorithm = string_match_algorithm::crk}).verify);
  const sluice::string_match_options fingerprint_only{.verification = sluice::match_verification::fingerprint};
  for (auto a : {string_match_algorithm::crk, string_match_algorithm::crk_recurrence, string_match_algorithm::drk,
                 string_match_algorithm::hrk}) {
    auto o = fingerprint_only;
    o.algorithm = a;
    EXPECT_FALSE(sm::make_plan("t", 40, o).verify) << to_string(a);
  }
  auto o = fingerprint_only;
  o.algorithm = string_match_algorithm::drk_2s;
  const auto plan = sm::make_plan("t", 40, o);
  EXPECT_TRUE(plan.verify);
  EXPECT_EQ(plan.verification, sluice::match_verification::fingerprint);
  // A fixed seed gives a fixed plan.
  EXPECT_EQ(sm::make_plan("t", 40, {.seed = 3}).drk_prime, sm::make_plan("t", 40, {.seed = 3}).drk_prime);
}

TEST(StringMatchPlan, BadOptionsNameTheirParameter) {
  using sluice::testing::expect_invalid_argument;
  for (int sigma : {0, 9, -1})
    expect_invalid_argument([&] { (void)sm::make_plan("t", 4, {.alphabet_bits = sigma}); }, "options.alphabet_bits");
  expect_invalid_argument([] { (void)sm::make_plan("t", 5, {.algorithm = string_match_algorithm::drk_wom32}); },
                          "options.algorithm");
  expect_invalid_argument(
      [] { (void)sm::make_plan("t", 33, {.algorithm = string_match_algorithm::drk_wom32, .alphabet_bits = 1}); },
      "options.algorithm");
  expect_invalid_argument([] { (void)sm::make_plan("t", 9, {.algorithm = string_match_algorithm::drk_wom64}); },
                          "options.algorithm");
  (void)sm::make_plan("t", 64, {.algorithm = string_match_algorithm::drk_wom64, .alphabet_bits = 1});
  expect_invalid_argument(
      [] { (void)sm::make_plan("t", 100, {.algorithm = string_match_algorithm::drk_2s, .subpattern_length = 9}); },
      "options.subpattern_length");
  expect_invalid_argument([] { (void)sm::make_plan("t", 4, {.subpattern_length = 5}); }, "options.subpattern_length");
  expect_invalid_argument(
      [] {
        (void)sm::make_plan("t", 100, {.algorithm = string_match_algorithm::drk_2s, .subpattern_offset = 93});
      },
      "options.subpattern_offset");
  (void)sm::make_plan("t", 100, {.algorithm = string_match_algorithm::drk_2s, .subpattern_offset = 92});
  expect_invalid_argument(
      [] { (void)sm::make_plan("t", 4, {.algorithm = static_cast<string_match_algorithm>(99)}); }, "options.algorithm");
}

}  // namespace
