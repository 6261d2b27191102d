// tests/support/random_operands.hpp: random operands of the non-commutative test operators, for host
// tests of the oracles (device tests draw theirs from sluice::data so host and device agree).
#pragma once

#include <sluice/core/operators.hpp>

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace sluice::testing {

/// 2x2 matrices of residues modulo p.
inline std::vector<mat2> random_matrices(std::size_t n, std::uint64_t seed, std::uint32_t p) {
  std::mt19937_64 rng(seed);
  auto residue = [&] { return static_cast<std::uint32_t>(rng() % p); };
  std::vector<mat2> ms(n);
  for (auto& m : ms) m = {residue(), residue(), residue(), residue()};
  return ms;
}

}  // namespace sluice::testing
