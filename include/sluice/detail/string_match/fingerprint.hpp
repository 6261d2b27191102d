// sluice/detail/string_match/fingerprint.hpp: the fingerprint arithmetic of Rabin–Karp matching
// (Ashkiani §2.2, §2.4, §2.5), as pure functions the kernels and the host tests share.
//
//   packed_window<Word>  DRK-WOM: the window's σ-bit characters packed into one word, exact. The seed's
//                        masks (~(1<<m), ~(((1<<σ)−1)<<m)) do not drop the oldest character (digest
//                        §10.2); the window mask (1 << σw) − 1 does.
//   modular_window       DRK: F_p(X) = Σ x_i 2^{σ(w−1−i)} mod p, p ≤ 2^{31−σ}, rolled as
//                        F ← (((F + p − base·y_old mod p) << σ) + y_new) mod p, base = 2^{σ(w−1)} mod p
//                        (Eq. 2.11 with the incoming character y_{r+w}, not the printed y_{r+w+1}: §2.2)
//   char_matrix, char_inverse, reversed_product
//                        CRK: K_z = K(c_{σ−1})···K(c_0) and its inverse mod p (§2.7.1); the fingerprint
//                        of Y[r, r+m) is T[r]·S[r+m−1] with S the inclusive product scan of K and T the
//                        exclusive scan of the inverses under the reversed product (Eq. 2.4)
//   mersenne61           the one-scan variant (§2.3.2, "not pursued" in the seed): x_i = B·x_{i−1} + y_i −
//                        B^m·y_{i−m} mod 2^61 − 1, a first-order recurrence whose x_i is the fingerprint
//                        of the window ending at i; 61-bit residues, as the seed found 64 bits necessary
//   chunk fingerprints   DRK-2S's verification by 32 lanes (§2.5): a chunk of 32·L characters, lane l
//                        holding characters [lL, lL + L), F = Σ x_i 2^{σ(32L−1−i)} mod p
//   random_prime         the random primes of every modular fingerprint, reproducible from a seed
//
// Characters are compared by their low σ bits (char_mask): with the alphabet checked (the default for
// σ < 8) masking changes nothing; with the check off it is the defined behaviour.
#pragma once

#include <sluice/core/config.hpp>
#include <sluice/core/operators.hpp>

#include <cuda/std/cstddef>
#include <cuda/std/cstdint>

namespace sluice::detail::string_match {

using cuda::std::size_t;
using cuda::std::uint32_t;
using cuda::std::uint64_t;

/// The low σ bits of a character: the alphabet of σ-bit symbols.
[[nodiscard]] SLUICE_HOST_DEVICE constexpr uint32_t char_mask(int sigma) { return (1u << sigma) - 1u; }

/// Positions r with r + m ≤ n: n − m + 1, or 0 for a pattern longer than the text.
[[nodiscard]] SLUICE_HOST_DEVICE constexpr size_t match_positions(size_t n, size_t m) { return n >= m ? n - m + 1 : 0; }

/// 32-bit words of a match bitmap over `positions` positions (bit r % 32 of word r / 32, LSB first).
[[nodiscard]] SLUICE_HOST_DEVICE constexpr size_t bitmap_words(size_t positions) { return (positions + 31) / 32; }

// ---- DRK-WOM ------------------------------------------------------------------------------------------

/// The last w characters pushed, σ bits each, the newest in the low bits: equal words ⇔ equal windows.
template <class Word>
struct packed_window {
  Word mask;
  int sigma;

  /// Needs σ·w ≤ the bits of Word.
  SLUICE_HOST_DEVICE constexpr packed_window(int sigma_bits, int length)
      : mask(sigma_bits * length >= static_cast<int>(8 * sizeof(Word)) ? ~Word{0}
                                                                       : (Word{1} << (sigma_bits * length)) - 1),
        sigma(sigma_bits) {}

  [[nodiscard]] SLUICE_HOST_DEVICE constexpr Word push(Word f, uint32_t c) const {
    return ((f << sigma) | static_cast<Word>(c)) & mask;
  }
};

/// The packed form of s[0, w) (characters masked to σ bits): the target of a packed_window.
template <class Word>
[[nodiscard]] SLUICE_HOST_DEVICE constexpr Word pack_chars(const unsigned char* s, int w, int sigma) {
  const packed_window<Word> window(sigma, w);
  Word f = 0;
  for (int i = 0; i < w; ++i) f = window.push(f, s[i] & char_mask(sigma));
  return f;
}

/// Byte windows (rollers.hpp): s[0, w) as bytes, s[0] in the low byte, each masked to σ bits (w ≤ 8),
/// so that a window read from the text as a little-endian word compares with one masked XOR.
[[nodiscard]] SLUICE_HOST_DEVICE constexpr unsigned long long pack_bytes(const unsigned char* s, int w, int sigma) {
  unsigned long long f = 0;
  for (int i = 0; i < w; ++i) f |= static_cast<unsigned long long>(s[i] & char_mask(sigma)) << (8 * i);
  return f;
}

/// The compare mask of a byte window of w ≤ 8 characters: the low σ bits of each of its bytes.
[[nodiscard]] SLUICE_HOST_DEVICE constexpr unsigned long long byte_window_mask(int w, int sigma) {
  unsigned long long m = 0;
  for (int i = 0; i < w; ++i) m |= static_cast<unsigned long long>(char_mask(sigma)) << (8 * i);
  return m;
}

// ---- modular arithmetic ---------------------------------------------------------------------------------

/// b^e mod p for p < 2^32.
[[nodiscard]] SLUICE_HOST_DEVICE constexpr uint32_t pow_mod(uint64_t b, uint64_t e, uint32_t p) {
  uint64_t result = 1 % p;
  b %= p;
  for (; e; e >>= 1, b = b * b % p)
    if (e & 1) result = result * b % p;
  return static_cast<uint32_t>(result);
}

// ---- DRK --------------------------------------------------------------------------------------------------

/// The first fingerprint family over σ-bit characters, rolled in 32-bit registers (§2.4).
struct modular_window {
  uint32_t p;     ///< prime, at most 2^{31−σ}: no intermediate passes 2^32
  uint32_t base;  ///< 2^{σ(w−1)} mod p
  int sigma;

  SLUICE_HOST_DEVICE constexpr modular_window(uint32_t prime, int sigma_bits, size_t length)
      : p(prime), base(pow_mod(2, static_cast<uint64_t>(sigma_bits) * (length - 1), prime)), sigma(sigma_bits) {}

  /// Drops y_old (0 while the window fills) and appends y_new: F + p − R < 2p, so the shift stays
  /// below 2^32 for p ≤ 2^{31−σ}.
  [[nodiscard]] SLUICE_HOST_DEVICE constexpr uint32_t roll(uint32_t f, uint32_t y_old, uint32_t y_new) const {
    const uint32_t r = base * y_old % p;
    return (((f + p - r) << sigma) + y_new) % p;
  }
};

/// F_p(s[0, w)) by Horner's rule: what a modular_window holds after the window's w characters.
[[nodiscard]] SLUICE_HOST_DEVICE constexpr uint32_t modular_fingerprint(const unsigned char* s, size_t w, int sigma,
                                                                        uint32_t p) {
  uint64_t f = 0;
  for (size_t i = 0; i < w; ++i) f = ((f << sigma) + (s[i] & char_mask(sigma))) % p;
  return static_cast<uint32_t>(f);
}

/// A piece of a string under Horner's rule: x ↦ x·scale + value (mod p). Pieces compose in index order
/// (the recurrence step of Palik §4.5), so a pattern's fingerprint can be folded by many threads.
struct horner_piece {
  uint64_t scale;  ///< 2^{σ·length} mod p
  uint64_t value;  ///< the piece's fingerprint
};

struct horner_compose {
  uint64_t p;
  [[nodiscard]] SLUICE_HOST_DEVICE constexpr horner_piece operator()(const horner_piece& a, const horner_piece& b) const {
    return {a.scale * b.scale % p, (a.value * b.scale + b.value) % p};
  }
};

// ---- CRK ---------------------------------------------------------------------------------------------------

/// K(0) = [[1,0],[1,1]], K(1) = [[1,1],[0,1]] (Eq. 2.1).
[[nodiscard]] SLUICE_HOST_DEVICE constexpr mat2 bit_matrix(uint32_t bit) {
  return bit ? mat2{1, 1, 0, 1} : mat2{1, 0, 1, 1};
}

/// The plain product of small matrices (no reduction: CRK's character matrices stay below 2^8).
[[nodiscard]] SLUICE_HOST_DEVICE constexpr mat2 small_product(const mat2& x, const mat2& y) {
  return {x.m00 * y.m00 + x.m01 * y.m10, x.m00 * y.m01 + x.m01 * y.m11, x.m10 * y.m00 + x.m11 * y.m10,
          x.m10 * y.m01 + x.m11 * y.m11};
}

/// K_z = K(c_{σ−1})···K(c_0) for z = c_{σ−1}…c_0 (§2.7.1). Its entries are at most Fibonacci(σ + 1) ≤ 34,
/// below any CRK prime, so K_z is its own residue.
[[nodiscard]] SLUICE_HOST_DEVICE constexpr mat2 char_matrix(uint32_t z, int sigma) {
  mat2 k{1, 0, 0, 1};
  for (int b = sigma - 1; b >= 0; --b) k = small_product(k, bit_matrix((z >> b) & 1u));
  return k;
}

/// A_p(z) = K_z^{−1} mod p: every K has determinant 1, so the inverse is the adjugate.
[[nodiscard]] SLUICE_HOST_DEVICE constexpr mat2 char_inverse(uint32_t z, int sigma, uint32_t p) {
  const mat2 k = char_matrix(z, sigma);
  return {k.m11, (p - k.m01) % p, (p - k.m10) % p, k.m00};
}

/// (x, y) ↦ y·x mod p: T = [I, A(y_0), A(y_1)A(y_0), …] is the exclusive scan under it (§2.3.2).
struct reversed_product {
  mat2_multiply_mod multiply;
  [[nodiscard]] SLUICE_HOST_DEVICE mat2 operator()(const mat2& x, const mat2& y) const { return multiply(y, x); }
};

// ---- the one-scan variant: residues modulo 2^61 − 1 ---------------------------------------------------

inline constexpr uint64_t mersenne61 = (uint64_t{1} << 61) - 1;

/// a·b mod 2^61 − 1 for a, b < 2^61 − 1: 2^64 ≡ 2^3, so hi·2^64 + lo folds into three terms < 2^63.
[[nodiscard]] SLUICE_HOST_DEVICE inline uint64_t mul_mod61(uint64_t a, uint64_t b) {
  const uint64_t lo = a * b;
  const uint64_t hi = multiply_high64(a, b);
  uint64_t r = (lo & mersenne61) + (lo >> 61) + (hi << 3);
  r = (r & mersenne61) + (r >> 61);
  return r >= mersenne61 ? r - mersenne61 : r;
}

[[nodiscard]] SLUICE_HOST_DEVICE constexpr uint64_t add_mod61(uint64_t a, uint64_t b) {
  const uint64_t r = a + b;
  return r >= mersenne61 ? r - mersenne61 : r;
}

[[nodiscard]] SLUICE_HOST_DEVICE constexpr uint64_t sub_mod61(uint64_t a, uint64_t b) {
  return a >= b ? a - b : a + mersenne61 - b;
}

[[nodiscard]] SLUICE_HOST_DEVICE inline uint64_t pow_mod61(uint64_t b, uint64_t e) {
  uint64_t result = 1;
  for (; e; e >>= 1, b = mul_mod61(b, b))
    if (e & 1) result = mul_mod61(result, b);
  return result;
}

/// ⊕ = +, ⊗ = · (and its companion ·) of the recurrence x_i = x_{i−1}·a_i + b_i mod 2^61 − 1.
struct add61 {
  [[nodiscard]] SLUICE_HOST_DEVICE constexpr uint64_t operator()(uint64_t a, uint64_t b) const { return add_mod61(a, b); }
};
struct mul61 {
  [[nodiscard]] SLUICE_HOST_DEVICE uint64_t operator()(uint64_t a, uint64_t b) const { return mul_mod61(a, b); }
};

/// b_i = y_i − B^m·y_{i−m} (y_{i−m} = 0 for i < m): the step's additive part, so that x_i = Σ_{j=i−m+1}^{i}
/// y_j B^{i−j} is the fingerprint of Y[i−m+1, i] (a telescoping sum).
[[nodiscard]] SLUICE_HOST_DEVICE inline uint64_t recurrence_input(uint32_t y_new, uint32_t y_old, uint64_t base_m) {
  return sub_mod61(y_new, mul_mod61(base_m, y_old));
}

/// Σ s_i B^{w−1−i} mod 2^61 − 1 (Horner): the pattern's value, what x_i equals at a match.
[[nodiscard]] SLUICE_HOST_DEVICE inline uint64_t mersenne_fingerprint(const unsigned char* s, size_t w, int sigma,
                                                                      uint64_t base) {
  uint64_t f = 0;
  for (size_t i = 0; i < w; ++i) f = add_mod61(mul_mod61(f, base), s[i] & char_mask(sigma));
  return f;
}

// ---- DRK-2S chunk fingerprints -------------------------------------------------------------------------

/// Lane l's share of a verification chunk: its L characters c_0..c_{L−1} (0 past the pattern's end) by
/// Horner's rule; the chunk's fingerprint is Σ_l share_l · 2^{σL(31−l)} mod p.
template <int L>
[[nodiscard]] SLUICE_HOST_DEVICE constexpr uint64_t lane_share(const unsigned char* chars, size_t available, int sigma,
                                                               uint32_t p) {
  uint64_t v = 0;
  for (int i = 0; i < L; ++i) {
    const uint32_t c = static_cast<size_t>(i) < available ? (chars[i] & char_mask(sigma)) : 0u;
    v = ((v << sigma) + c) % p;
  }
  return v;
}

/// 2^{σL(31−l)} mod p: lane l's weight in a chunk fingerprint.
template <int L>
[[nodiscard]] SLUICE_HOST_DEVICE constexpr uint32_t lane_weight(int lane, int sigma, uint32_t p) {
  return pow_mod(2, static_cast<uint64_t>(sigma) * L * static_cast<uint64_t>(31 - lane), p);
}

/// The fingerprint of s[0, min(32L, available)) as 32 lanes compute it (sequentially, for the host and
/// for the pattern's chunks).
template <int L>
[[nodiscard]] SLUICE_HOST_DEVICE constexpr uint32_t chunk_fingerprint(const unsigned char* s, size_t available,
                                                                      int sigma, uint32_t p) {
  uint64_t sum = 0;
  for (int lane = 0; lane < 32; ++lane) {
    const size_t start = static_cast<size_t>(lane) * L;
    const size_t left = available > start ? available - start : 0;
    sum = (sum + lane_share<L>(s + (left ? start : 0), left, sigma, p) * lane_weight<L>(lane, sigma, p)) % p;
  }
  return static_cast<uint32_t>(sum);
}

// ---- random primes ----------------------------------------------------------------------------------------

/// Deterministic Miller–Rabin for 32-bit n (bases 2, 7 and 61 decide every n < 4 759 123 141).
[[nodiscard]] constexpr bool is_prime(uint32_t n) {
  if (n < 2) return false;
  for (uint32_t small : {2u, 3u, 5u, 7u, 11u, 13u, 61u})
    if (n % small == 0) return n == small;
  uint32_t d = n - 1;
  int s = 0;
  for (; d % 2 == 0; d /= 2) ++s;
  for (uint32_t a : {2u, 7u, 61u}) {
    uint64_t x = pow_mod(a, d, n);
    if (x == 1 || x == n - 1) continue;
    bool composite = true;
    for (int i = 1; i < s && composite; ++i) {
      x = x * x % n;
      composite = x != n - 1;
    }
    if (composite) return false;
  }
  return true;
}

/// A prime in [lo, hi) (hi − lo ≥ 2^16 holds many) drawn from `seed`: the first prime at or after a
/// seed-determined start, wrapping around at hi.
[[nodiscard]] constexpr uint32_t random_prime(uint64_t seed, uint32_t lo, uint32_t hi) {
  uint64_t x = seed * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
  x ^= x >> 31;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 29;
  uint32_t candidate = lo + static_cast<uint32_t>(x % (hi - lo));
  while (!is_prime(candidate)) candidate = candidate + 1 < hi ? candidate + 1 : lo;
  return candidate;
}

/// A base for the 61-bit fingerprint in [2^8, 2^61 − 1) drawn from `seed` (above every character value).
[[nodiscard]] constexpr uint64_t random_base61(uint64_t seed) {
  uint64_t x = (seed + 0x51ed2701u) * 0xd1b54a32d192ed03ull;
  x ^= x >> 32;
  x *= 0x9e3779b97f4a7c15ull;
  x ^= x >> 29;
  return 256 + x % (mersenne61 - 256);
}

}  // namespace sluice::detail::string_match
