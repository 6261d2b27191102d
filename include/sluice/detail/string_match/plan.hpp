// sluice/detail/string_match/plan.hpp: the checked options of one string_match call and the automatic
// choice, host-only (tests/host/string_match_plan_test.cpp): the strategy, the subpattern of DRK-2S, the
// random primes and base, and whether candidates are verified.
#pragma once

#include <sluice/core/error.hpp>
#include <sluice/detail/string_match/fingerprint.hpp>
#include <sluice/detail/string_match/tuning.hpp>
#include <sluice/options/string_match.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

namespace sluice::detail::string_match {

struct match_plan {
  string_match_algorithm algorithm = string_match_algorithm::automatic;  ///< resolved, never automatic
  int sigma = 8;
  std::size_t m = 0;
  /// Candidates are compared with the pattern (exact verification and a strategy that can err).
  bool verify = false;
  /// How drk_2s verifies (exact bytes or 32-lane chunk fingerprints); the others verify only when exact.
  match_verification verification = match_verification::exact;
  /// drk_2s: the subpattern [offset, offset + length) that the skim packs; skim_in_32: σ·length ≤ 32.
  int subpattern_length = 0;
  std::size_t subpattern_offset = 0;
  bool skim_in_32 = false;
  /// drk: p ≤ 2^{31−σ}; crk, hrk: p < 2^31; drk_2s fingerprint chunks: p < 2^31 (§2.4, §2.5).
  std::uint32_t drk_prime = 0;
  std::uint32_t crk_prime = 0;
  std::uint32_t chunk_prime = 0;
  /// crk_recurrence: the base B of the fingerprint mod 2^61 − 1 and B^m.
  std::uint64_t base61 = 0;
  std::uint64_t base61_m = 0;
};

/// The strategy automatic picks for m characters of σ bits (tuning.hpp).
[[nodiscard]] constexpr string_match_algorithm automatic_algorithm(std::size_t m, int sigma) {
  const std::size_t bits = m * static_cast<std::size_t>(sigma);
  if (bits <= static_cast<std::size_t>(tuning::automatic_wom32_max_bits) &&
      m <= static_cast<std::size_t>(tuning::automatic_wom32_max_characters))
    return string_match_algorithm::drk_wom32;
  if (bits <= static_cast<std::size_t>(tuning::automatic_wom64_max_bits) &&
      m <= static_cast<std::size_t>(tuning::automatic_wom64_max_characters))
    return string_match_algorithm::drk_wom64;
  return string_match_algorithm::drk_2s;
}

/// Whether the strategy's fingerprints can be equal for different strings (they need verification to be
/// exact): all but the packed windows.
[[nodiscard]] constexpr bool fingerprints_can_collide(string_match_algorithm a) {
  return a != string_match_algorithm::drk_wom32 && a != string_match_algorithm::drk_wom64;
}

inline void check_sigma(const char* function, int sigma) {
  if (sigma < 1 || sigma > 8)
    throw invalid_argument(function, "options.alphabet_bits",
                           "is " + std::to_string(sigma) + ": a character has 1 to 8 bits");
}

/// The plan of a pattern of m ≥ 1 characters; throws invalid_argument naming the option that is wrong.
[[nodiscard]] inline match_plan make_plan(const char* function, std::size_t m, const string_match_options& options) {
  check_sigma(function, options.alphabet_bits);
  match_plan plan;
  plan.sigma = options.alphabet_bits;
  plan.m = m;
  const std::size_t bits = m * static_cast<std::size_t>(plan.sigma);
  plan.algorithm = options.algorithm == string_match_algorithm::automatic ? automatic_algorithm(m, plan.sigma)
                                                                         : options.algorithm;
  switch (plan.algorithm) {
    case string_match_algorithm::drk_wom32:
      if (bits > 32)
        throw invalid_argument(function, "options.algorithm",
                               "is drk_wom32, which needs σ·m ≤ 32 (σ = " + std::to_string(plan.sigma) +
                                   ", m = " + std::to_string(m) + ")");
      break;
    case string_match_algorithm::drk_wom64:
      if (bits > 64)
        throw invalid_argument(function, "options.algorithm",
                               "is drk_wom64, which needs σ·m ≤ 64 (σ = " + std::to_string(plan.sigma) +
                                   ", m = " + std::to_string(m) + ")");
      break;
    case string_match_algorithm::crk:
    case string_match_algorithm::crk_recurrence:
    case string_match_algorithm::drk:
    case string_match_algorithm::hrk:
    case string_match_algorithm::drk_2s: break;
    case string_match_algorithm::automatic:
    default: throw invalid_argument(function, "options.algorithm", "is not a string_match_algorithm");
  }
  if (options.verification != match_verification::exact && options.verification != match_verification::fingerprint)
    throw invalid_argument(function, "options.verification", "is not a match_verification");

  const int widest = 64 / plan.sigma;  // characters a 64-bit packed window holds
  if (options.subpattern_length < 0 || options.subpattern_length > widest ||
      static_cast<std::size_t>(options.subpattern_length) > m)
    throw invalid_argument(function, "options.subpattern_length",
                           "is " + std::to_string(options.subpattern_length) + ": must be 0 (tuned) or 1 to min(m, 64/σ) = " +
                               std::to_string(std::min<std::size_t>(m, static_cast<std::size_t>(widest))));
  if (plan.algorithm == string_match_algorithm::drk_2s) {
    const int tuned = std::min(tuning::subpattern_chars(plan.sigma), widest);
    plan.subpattern_length = options.subpattern_length != 0
                                 ? options.subpattern_length
                                 : static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(tuned), m));
    if (options.subpattern_offset > m - static_cast<std::size_t>(plan.subpattern_length))
      throw invalid_argument(function, "options.subpattern_offset",
                             "is " + std::to_string(options.subpattern_offset) + ": the subpattern of " +
                                 std::to_string(plan.subpattern_length) + " characters must lie in the pattern of " +
                                 std::to_string(m));
    plan.subpattern_offset = options.subpattern_offset;
    plan.skim_in_32 = plan.subpattern_length * plan.sigma <= 32;
  }

  const bool whole_pattern_skimmed =
      plan.algorithm == string_match_algorithm::drk_2s && static_cast<std::size_t>(plan.subpattern_length) == m;
  plan.verification = options.verification;
  plan.verify = fingerprints_can_collide(plan.algorithm) && !whole_pattern_skimmed &&
                (options.verification == match_verification::exact || plan.algorithm == string_match_algorithm::drk_2s);

  const std::uint64_t seed = options.seed;
  plan.drk_prime = random_prime(seed, std::uint32_t{1} << (30 - plan.sigma), std::uint32_t{1} << (31 - plan.sigma));
  plan.crk_prime = random_prime(seed + 1, std::uint32_t{1} << 30, std::uint32_t{1} << 31);
  plan.chunk_prime = random_prime(seed + 2, std::uint32_t{1} << 30, std::uint32_t{1} << 31);
  plan.base61 = random_base61(seed);
  plan.base61_m = pow_mod61(plan.base61, m);
  return plan;
}

}  // namespace sluice::detail::string_match
