// Host tests of the string matchers' pure arithmetic (detail/string_match/fingerprint.hpp, layout.hpp):
// every fingerprint against its definition computed another way (128-bit arithmetic, direct sums and
// products), the rolling updates against recomputation at every position, the primes against a sieve,
// the staging layout's coverage and bank spread, and the bitmap arithmetic, exhaustively where the
// domain is small.
#include <sluice/core/operators.hpp>
#include <sluice/detail/string_match/fingerprint.hpp>
#include <sluice/detail/string_match/layout.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <vector>

namespace {

namespace sm = sluice::detail::string_match;
using sluice::mat2;
using bytes = std::vector<unsigned char>;

bytes random_text(std::size_t n, int sigma, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  bytes text(n);
  for (auto& c : text) c = static_cast<unsigned char>(rng() & sm::char_mask(sigma));
  return text;
}

/// Σ s_i 2^{σ(w−1−i)} mod p by 128-bit arithmetic, the definition of F_p (§2.7.1).
std::uint32_t direct_fingerprint(const unsigned char* s, std::size_t w, int sigma, std::uint32_t p) {
  sluice::uint128_t f = 0;
  for (std::size_t i = 0; i < w; ++i) f = (f * (sluice::uint128_t{1} << sigma) + (s[i] & sm::char_mask(sigma))) % p;
  return static_cast<std::uint32_t>(f);
}

std::uint32_t largest_prime_below(std::uint32_t bound) {
  std::uint32_t p = bound - 1;
  while (!sm::is_prime(p)) --p;
  return p;
}

// ---- DRK-WOM --------------------------------------------------------------------------------------------

TEST(StringMatchFingerprint, PackedWindowHoldsExactlyTheLastWCharacters) {
  for (int sigma = 1; sigma <= 8; ++sigma)
    for (int w = 1; w * sigma <= 64; ++w) {
      const bytes text = random_text(300, sigma, static_cast<std::uint64_t>(sigma * 100 + w));
      const sm::packed_window<std::uint64_t> window(sigma, w);
      std::uint64_t f = 0;
      for (std::size_t i = 0; i < text.size(); ++i) {
        f = window.push(f, text[i]);
        const std::size_t first = i + 1 >= static_cast<std::size_t>(w) ? i + 1 - static_cast<std::size_t>(w) : 0;
        std::uint64_t expected = 0;  // the window's characters as σ-bit digits, oldest first
        for (std::size_t j = first; j <= i; ++j) expected = (expected << sigma) | text[j];
        ASSERT_EQ(f, expected) << "σ = " << sigma << ", w = " << w << ", i = " << i;
      }
      if (w * sigma <= 32) {  // the 32-bit window agrees with the 64-bit one
        const sm::packed_window<std::uint32_t> narrow(sigma, w);
        std::uint32_t g = 0;
        f = 0;
        for (unsigned char c : text) {
          g = narrow.push(g, c);
          f = window.push(f, c);
          ASSERT_EQ(g, f);
        }
      }
    }
}

TEST(StringMatchFingerprint, PackCharsMasksToSigmaBits) {
  const unsigned char s[] = {0xFF, 0x12, 0x80, 0x7F};
  EXPECT_EQ(sm::pack_chars<std::uint32_t>(s, 4, 8), 0xFF12807Fu);
  EXPECT_EQ(sm::pack_chars<std::uint32_t>(s, 4, 1), 0b1001u);  // low bits 1, 0, 0, 1
  EXPECT_EQ(sm::pack_chars<std::uint32_t>(s, 4, 4), 0xF20Fu);
  EXPECT_EQ(sm::pack_chars<std::uint64_t>(s, 1, 8), 0xFFu);
}

// ---- DRK --------------------------------------------------------------------------------------------------

TEST(StringMatchFingerprint, ModularRollNeverOverflowsAtTheLargestPrime) {
  // p ≤ 2^{31−σ}: the extreme operands against the 128-bit definition (F − base·y_old)·2^σ + y_new mod p.
  for (int sigma = 1; sigma <= 8; ++sigma) {
    const std::uint32_t p = largest_prime_below(std::uint32_t{1} << (31 - sigma));
    for (std::size_t w : {std::size_t{1}, std::size_t{2}, std::size_t{33}, std::size_t{1} << 20}) {
      const sm::modular_window window(p, sigma, w);
      EXPECT_EQ(window.base, sm::pow_mod(2, static_cast<std::uint64_t>(sigma) * (w - 1), p));
      const std::uint32_t top = sm::char_mask(sigma);
      for (std::uint32_t f : {0u, 1u, p / 2, p - 1})
        for (std::uint32_t out : {0u, 1u, top})
          for (std::uint32_t in : {0u, 1u, top}) {
            const sluice::uint128_t base_out = static_cast<sluice::uint128_t>(window.base) * out % p;
            const sluice::uint128_t expected = ((f + p - base_out) * (sluice::uint128_t{1} << sigma) + in) % p;
            ASSERT_EQ(window.roll(f, out, in), static_cast<std::uint32_t>(expected))
                << "σ = " << sigma << ", f = " << f << ", out = " << out << ", in = " << in;
          }
    }
  }
}

TEST(StringMatchFingerprint, ModularRollEqualsTheFingerprintAtEveryPosition) {
  for (int sigma : {1, 2, 5, 8})
    for (std::size_t w : {1u, 2u, 7u, 8u, 9u, 31u, 32u, 33u, 64u, 65u, 1024u}) {
      const std::uint32_t p = sm::random_prime(w, std::uint32_t{1} << (30 - sigma), std::uint32_t{1} << (31 - sigma));
      const bytes text = random_text(w + 500, sigma, w * 7 + static_cast<std::uint64_t>(sigma));
      const sm::modular_window window(p, sigma, w);
      std::uint32_t f = 0;
      for (std::size_t i = 0; i < text.size(); ++i) {
        f = window.roll(f, i >= w ? text[i - w] : 0u, text[i]);
        if (i + 1 < w) continue;
        const unsigned char* s = text.data() + (i + 1 - w);
        ASSERT_EQ(f, direct_fingerprint(s, w, sigma, p)) << "σ = " << sigma << ", w = " << w << ", i = " << i;
        ASSERT_EQ(f, sm::modular_fingerprint(s, w, sigma, p));
      }
    }
}

TEST(StringMatchFingerprint, HornerPiecesComposeToTheWholeFingerprint) {
  // The pattern's fold (summary.cuh): 256 pieces, composed in order, for lengths around the piece size.
  for (int sigma : {1, 8})
    for (std::size_t m : {1u, 2u, 255u, 256u, 257u, 1000u, 4096u}) {
      const std::uint32_t p = largest_prime_below(std::uint32_t{1} << (31 - sigma));
      const bytes s = random_text(m, sigma, m);
      const std::size_t piece = (m + 255) / 256;
      const sm::horner_compose compose{p};
      sm::horner_piece all{1, 0};
      for (std::size_t t = 0; t < 256; ++t) {
        sm::horner_piece mine{1, 0};
        for (std::size_t i = std::min(m, t * piece); i < std::min(m, t * piece + piece); ++i)
          mine = compose(mine, {(std::uint64_t{1} << sigma) % p, s[i]});
        all = compose(all, mine);
      }
      EXPECT_EQ(all.value, direct_fingerprint(s.data(), m, sigma, p)) << "m = " << m;
      EXPECT_EQ(all.scale, sm::pow_mod(2, static_cast<std::uint64_t>(sigma) * m, p));
    }
}

// ---- CRK --------------------------------------------------------------------------------------------------

mat2 identity() { return {1, 0, 0, 1}; }

TEST(StringMatchFingerprint, CharacterMatricesAreBitProductsWithInverses) {
  const std::uint32_t p = largest_prime_below(std::uint32_t{1} << 31);
  const sluice::mat2_multiply_mod multiply(p);
  for (int sigma = 1; sigma <= 8; ++sigma)
    for (std::uint32_t z = 0; z <= sm::char_mask(sigma); ++z) {
      mat2 k = identity();
      for (int b = sigma - 1; b >= 0; --b) k = multiply(k, sm::bit_matrix((z >> b) & 1u));
      const mat2 kz = sm::char_matrix(z, sigma);
      ASSERT_EQ(kz, k) << "σ = " << sigma << ", z = " << z;
      ASSERT_LE(std::max({kz.m00, kz.m01, kz.m10, kz.m11}), 34u);  // Fibonacci(9): its own residue
      ASSERT_EQ(multiply(sm::char_inverse(z, sigma, p), kz), identity());
      ASSERT_EQ(multiply(kz, sm::char_inverse(z, sigma, p)), identity());
    }
}

TEST(StringMatchFingerprint, DistinctCharactersHaveDistinctMatrices) {
  for (int sigma = 1; sigma <= 8; ++sigma) {
    std::set<std::vector<std::uint32_t>> seen;
    for (std::uint32_t z = 0; z <= sm::char_mask(sigma); ++z) {
      const mat2 k = sm::char_matrix(z, sigma);
      EXPECT_TRUE(seen.insert({k.m00, k.m01, k.m10, k.m11}).second) << "σ = " << sigma << ", z = " << z;
    }
  }
}

TEST(StringMatchFingerprint, CrkEquation24GivesEveryWindowsProduct) {
  // S = inclusive scan of K, T = exclusive scan of A under the reversed product: T[r]·S[r+m−1] = K(Y[r, r+m)).
  const std::uint32_t p = sm::random_prime(3, std::uint32_t{1} << 30, std::uint32_t{1} << 31);
  const sluice::mat2_multiply_mod multiply(p);
  const sm::reversed_product reversed{multiply};
  for (int sigma : {1, 2, 8}) {
    const bytes text = random_text(400, sigma, static_cast<std::uint64_t>(sigma));
    std::vector<mat2> s(text.size()), t(text.size());
    mat2 running = identity(), inverse_running = identity();
    for (std::size_t i = 0; i < text.size(); ++i) {
      t[i] = inverse_running;
      inverse_running = reversed(inverse_running, sm::char_inverse(text[i], sigma, p));
      s[i] = running = multiply(running, sm::char_matrix(text[i], sigma));
    }
    for (std::size_t m : {1u, 2u, 9u, 33u, 300u})
      for (std::size_t r = 0; r + m <= text.size(); ++r) {
        mat2 direct = identity();
        for (std::size_t i = r; i < r + m; ++i) direct = multiply(direct, sm::char_matrix(text[i], sigma));
        ASSERT_EQ(multiply(t[r], s[r + m - 1]), direct) << "σ = " << sigma << ", m = " << m << ", r = " << r;
      }
  }
}

TEST(StringMatchFingerprint, MatrixFingerprintsOfShortBinaryStringsAreUnique) {
  // Every binary string of length ≤ 12 has its own K (the free monoid), also mod a CRK prime.
  const sluice::mat2_multiply_mod multiply(largest_prime_below(std::uint32_t{1} << 31));
  std::set<std::vector<std::uint32_t>> seen;
  for (int length = 1; length <= 12; ++length)
    for (std::uint32_t bits = 0; bits < (1u << length); ++bits) {
      mat2 k = identity();
      for (int i = length - 1; i >= 0; --i) k = multiply(k, sm::bit_matrix((bits >> i) & 1u));
      ASSERT_TRUE(seen.insert({k.m00, k.m01, k.m10, k.m11}).second) << "length " << length << ", bits " << bits;
    }
}

// ---- the recurrence variant, mod 2^61 − 1 --------------------------------------------------------------------

TEST(StringMatchFingerprint, Mod61ArithmeticMatches128BitReference) {
  std::mt19937_64 rng(61);
  std::vector<std::uint64_t> values{0, 1, 2, sm::mersenne61 - 1, sm::mersenne61 - 2, std::uint64_t{1} << 60,
                                    (std::uint64_t{1} << 32) - 1, std::uint64_t{1} << 32};
  for (int i = 0; i < 200; ++i) values.push_back(rng() % sm::mersenne61);
  for (std::uint64_t a : values)
    for (std::uint64_t b : values) {
      const auto product = static_cast<std::uint64_t>(static_cast<sluice::uint128_t>(a) * b % sm::mersenne61);
      ASSERT_EQ(sm::mul_mod61(a, b), product) << a << " · " << b;
      ASSERT_EQ(sm::add_mod61(a, b), (a + b) % sm::mersenne61);
      ASSERT_EQ(sm::sub_mod61(a, b), (a + sm::mersenne61 - b) % sm::mersenne61);
    }
  EXPECT_EQ(sm::pow_mod61(3, 0), 1u);
  EXPECT_EQ(sm::pow_mod61(2, 61), 1u);  // 2^61 ≡ 1
}

/// The recurrence step [a, b] and Palik's operator c_i * c_j = [a_i a_j, b_i a_j + b_j] mod 2^61 − 1.
struct step {
  std::uint64_t a, b;
};
step combine(step x, step y) { return {sm::mul_mod61(x.a, y.a), sm::add_mod61(sm::mul_mod61(x.b, y.a), y.b)}; }

TEST(StringMatchFingerprint, RecurrenceStateIsTheFingerprintOfTheWindowEndingThere) {
  for (int sigma : {1, 8})
    for (std::size_t m : {1u, 2u, 7u, 64u, 65u}) {
      const std::uint64_t base = sm::random_base61(m);
      ASSERT_GE(base, 256u);
      ASSERT_LT(base, sm::mersenne61);
      const std::uint64_t base_m = sm::pow_mod61(base, m);
      const bytes text = random_text(300, sigma, m + 11);
      std::vector<step> steps(text.size());
      for (std::size_t i = 0; i < text.size(); ++i)
        steps[i] = {base, sm::recurrence_input(text[i], i >= m ? text[i - m] : 0u, base_m)};
      // Sequential, and in blocks of 37 combined afterwards (any grouping: the operator is associative).
      step running = steps[0];
      std::vector<step> block_totals;
      for (std::size_t i = 0; i < text.size(); ++i) {
        if (i > 0) running = combine(running, steps[i]);
        if (i + 1 >= m) {
          ASSERT_EQ(running.b, sm::mersenne_fingerprint(text.data() + (i + 1 - m), m, sigma, base))
              << "σ = " << sigma << ", m = " << m << ", i = " << i;
        }
        if (i % 37 == 0) block_totals.push_back(steps[i]);
        else block_totals.back() = combine(block_totals.back(), steps[i]);
      }
      step grouped = block_totals[0];
      for (std::size_t k = 1; k < block_totals.size(); ++k) grouped = combine(grouped, block_totals[k]);
      EXPECT_EQ(grouped.a, running.a);
      EXPECT_EQ(grouped.b, running.b);
    }
}

// ---- DRK-2S chunk fingerprints -------------------------------------------------------------------------------

TEST(StringMatchFingerprint, ChunkFingerprintIsTheChunksValueWithMissingCharactersZero) {
  for (int sigma : {1, 3, 8}) {
    const std::uint32_t p = sm::random_prime(static_cast<std::uint64_t>(sigma), 1u << 30, 1u << 31);
    const bytes s = random_text(128, sigma, 77);
    for (std::size_t available : {1u, 3u, 4u, 5u, 64u, 127u, 128u, 500u}) {
      bytes padded_chunk(s);
      for (std::size_t i = std::min<std::size_t>(available, 128); i < 128; ++i) padded_chunk[i] = 0;
      EXPECT_EQ(sm::chunk_fingerprint<4>(s.data(), available, sigma, p),
                direct_fingerprint(padded_chunk.data(), 128, sigma, p))
          << "σ = " << sigma << ", available = " << available;
    }
  }
}

// ---- primes ------------------------------------------------------------------------------------------------

TEST(StringMatchFingerprint, MillerRabinAgreesWithASieve) {
  constexpr std::uint32_t limit = 1u << 20;
  std::vector<bool> composite(limit, false);
  for (std::uint32_t i = 2; i * i < limit; ++i)
    if (!composite[i])
      for (std::uint32_t j = i * i; j < limit; j += i) composite[j] = true;
  for (std::uint32_t n = 0; n < limit; ++n) ASSERT_EQ(sm::is_prime(n), n >= 2 && !composite[n]) << n;
  // Strong pseudoprimes to base 2 and Carmichael numbers, and primes near 2^31 and 2^32.
  for (std::uint32_t n : {2047u, 3277u, 4033u, 4681u, 8321u, 561u, 1105u, 1729u, 3215031751u, 2152302898u})
    EXPECT_FALSE(sm::is_prime(n)) << n;
  for (std::uint32_t n : {2147483647u, 2147483629u, 4294967291u, 4294967279u}) EXPECT_TRUE(sm::is_prime(n)) << n;
}

TEST(StringMatchFingerprint, RandomPrimesLieInTheirRangeAndDependOnTheSeed) {
  std::set<std::uint32_t> distinct;
  for (std::uint64_t seed = 0; seed < 50; ++seed)
    for (int sigma = 1; sigma <= 8; ++sigma) {
      const std::uint32_t lo = std::uint32_t{1} << (30 - sigma), hi = std::uint32_t{1} << (31 - sigma);
      const std::uint32_t p = sm::random_prime(seed, lo, hi);
      ASSERT_TRUE(sm::is_prime(p));
      ASSERT_GE(p, lo);
      ASSERT_LT(p, hi);
      distinct.insert(p);
    }
  EXPECT_GT(distinct.size(), 300u);
  EXPECT_EQ(sm::random_prime(9, 1u << 30, 1u << 31), sm::random_prime(9, 1u << 30, 1u << 31));
}

// ---- layout ------------------------------------------------------------------------------------------------

TEST(StringMatchLayout, PaddedOrderIsIncreasingAndSpreadsTheLanesOverAllBanks) {
  for (std::uint32_t q = 1; q < 20000; ++q) ASSERT_GT(sm::padded(q), sm::padded(q - 1));
  for (std::uint32_t h = 0; h < 16; ++h)
    for (std::uint32_t i = 0; i < 32 + 64; ++i) {  // a lane's own 32 characters and a 64-character halo
      std::set<std::uint32_t> banks;
      for (std::uint32_t t = 0; t < 32; ++t) banks.insert((sm::padded(32 * t + i + h) / 4) % 32);
      ASSERT_EQ(banks.size(), 32u) << "h = " << h << ", i = " << i;
    }
  // An aligned 16-byte group stays contiguous and 4-byte aligned: four 32-bit stores.
  for (std::uint32_t q = 0; q < 4096; q += 16) {
    ASSERT_EQ(sm::padded(q) % 4, 0u);
    ASSERT_EQ(sm::padded(q + 15), sm::padded(q) + 15);
  }
}

TEST(StringMatchLayout, StagingCoversTheRunExactlyOnce) {
  for (std::uint32_t h = 0; h < 16; ++h)
    for (std::uint32_t count = 0; count < 200; ++count) {
      const sm::staging_plan plan = sm::plan_staging(h, count);
      ASSERT_EQ(plan.head_begin, h);
      ASSERT_EQ(plan.tail_end, h + count);
      ASSERT_LE(plan.head_begin, plan.vector_begin);
      ASSERT_LE(plan.vector_begin, plan.vector_end);
      ASSERT_LE(plan.vector_end, plan.tail_end);
      ASSERT_EQ(plan.vector_begin % 16, plan.vector_begin == plan.vector_end ? plan.vector_begin % 16 : 0u);
      ASSERT_EQ(plan.vector_end % 16, plan.vector_begin == plan.vector_end ? plan.vector_end % 16 : 0u);
      // Every byte a vector group stores lies in shared memory, and the padded run fits staged_bytes.
      if (count > 0) {
        ASSERT_LT(sm::padded(h + count - 1), sm::staged_bytes(count));
        if (plan.vector_end > plan.vector_begin) {
          ASSERT_LE(sm::padded(plan.vector_end - 1) + 1, sm::staged_bytes(count));
        }
      }
    }
}

TEST(StringMatchLayout, WordPositionsAndBitSplits) {
  EXPECT_EQ(sm::match_positions(10, 3), 8u);
  EXPECT_EQ(sm::match_positions(3, 3), 1u);
  EXPECT_EQ(sm::match_positions(2, 3), 0u);
  EXPECT_EQ(sm::bitmap_words(0), 0u);
  EXPECT_EQ(sm::bitmap_words(32), 1u);
  EXPECT_EQ(sm::bitmap_words(33), 2u);
  for (std::size_t positions : {1u, 31u, 32u, 33u, 64u, 100u}) {
    std::size_t total = 0;
    for (std::size_t word = 0; word < sm::bitmap_words(positions) + 2; ++word) {
      const int valid = sm::word_positions(word, positions);
      ASSERT_GE(valid, 0);
      ASSERT_LE(valid, 32);
      total += static_cast<std::size_t>(valid);
    }
    ASSERT_EQ(total, positions);
  }
  EXPECT_EQ(sm::low_bits(0), 0u);
  EXPECT_EQ(sm::low_bits(5), 31u);
  EXPECT_EQ(sm::low_bits(32), ~0u);
  std::mt19937_64 rng(5);
  for (std::size_t first = 0; first < 200; ++first)
    for (int trial = 0; trial < 20; ++trial) {
      const auto bits = static_cast<std::uint32_t>(rng());
      const sm::bit_split s = sm::split_bits(first, bits);
      const std::uint64_t placed = static_cast<std::uint64_t>(bits) << (first % 32);
      ASSERT_EQ(s.word, first / 32);
      ASSERT_EQ(s.low, static_cast<std::uint32_t>(placed));
      ASSERT_EQ(s.high, static_cast<std::uint32_t>(placed >> 32));
    }
}

TEST(StringMatchLayout, FirstWindowEndOfARecurrenceThread) {
  for (std::size_t m = 1; m < 40; ++m)
    for (std::size_t i0 = 0; i0 < 80; i0 += 8) {
      const sm::window_ends e = sm::first_window_end(i0, m);
      // The first item j ≥ 0 with i0 + j ≥ m − 1, and its position i0 + j − (m − 1).
      std::size_t j = 0;
      while (i0 + j + 1 < m) ++j;
      ASSERT_EQ(e.skip, j) << "m = " << m << ", i0 = " << i0;
      ASSERT_EQ(e.first_position, i0 + j + 1 - m);
    }
}

}  // namespace
