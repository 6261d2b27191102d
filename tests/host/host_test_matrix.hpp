// tests/host/host_test_matrix.hpp: the input matrix of the sluice::host tests (the device tests' matrix
// at host sizes) and output poisoning, shared by tests/host/host_*_test.cpp.
#pragma once

#include <sluice/core/operators.hpp>
#include <sluice/data/distributions.hpp>
#include <sluice/host/detail/parallel.hpp>
#include <sluice/host/multireduce.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "support/random_operands.hpp"

namespace sluice::testing::host_matrix {

/// n ∈ {0, 1, 31, 32, 33, block ± 1, 2^20 + 7}; the host's block is its parallel grain (blocks of fewer
/// items run on one thread), so block ± 1 crosses from one to two blocks.
inline std::vector<std::size_t> sizes() {
  const std::size_t block = sluice::host::detail::parallel_grain;
  return {0, 1, 31, 32, 33, block - 1, block, block + 1, (std::size_t{1} << 20) + 7};
}

/// m ∈ {1, 2, 31, 32, 33, 256, 257, 4096, 2^16, 2^20}.
inline std::vector<std::size_t> bucket_counts() {
  return {1, 2, 31, 32, 33, 256, 257, 4096, std::size_t{1} << 16, std::size_t{1} << 20};
}

struct labelled_distribution {
  std::string name;
  sluice::data::distribution kind;
  double parameter;
};

/// uniform, all-equal, sorted, reverse, Zipf (s = 1.1), few used buckets (5).
inline std::vector<labelled_distribution> distributions() {
  using sluice::data::distribution;
  return {{"uniform", distribution::uniform, 0.0},  {"all_equal", distribution::all_equal, 0.0},
          {"sorted", distribution::sorted, 0.0},    {"reverse", distribution::reverse, 0.0},
          {"zipf", distribution::zipf, 1.1},        {"few_used", distribution::few_used, 5.0}};
}

/// n labels in [0, m) drawn from `d` (few_used uses min(5, m) values).
inline std::vector<std::uint32_t> labels(std::size_t n, std::size_t m, const labelled_distribution& d,
                                         std::uint64_t seed = 11) {
  const double parameter = d.kind == sluice::data::distribution::few_used
                               ? std::min(d.parameter, static_cast<double>(m))
                               : d.parameter;
  return sluice::data::generate_host<std::uint32_t>(n, {d.kind, m, parameter, seed});
}

/// A multireduce_options with its name in test messages.
struct named_options {
  std::string name;
  sluice::host::multireduce_options options;
};

/// The options both multireduce and multiscan run under: every strategy; partial sort both with the bits
/// the machine's caches give (often 0 for small m, which runs naive) and with bits forced so that small
/// m is really distributed into groups.
inline std::vector<named_options> multireduce_strategies() {
  using algo = sluice::host::multireduce_algo;
  return {{"automatic", {}},
          {"naive", {.algorithm = algo::naive}},
          {"privatized", {.algorithm = algo::privatized}},
          {"partial_sort", {.algorithm = algo::partial_sort}},
          {"partial_sort_3_bits", {.algorithm = algo::partial_sort, .partial_sort_bits = 3}},
          {"partial_sort_12_bits_huge", {.algorithm = algo::partial_sort, .huge_pages = true, .partial_sort_bits = 12}}};
}

/// The values of the operator-class tests, n of each: f32 for +, i32 for min and max, affine maps
/// (non-commutative) and 2x2 matrices mod p (`matrix_seed`).
struct operand_sets {
  std::vector<float> floats;
  std::vector<std::int32_t> ints;
  std::vector<sluice::affine<std::uint32_t>> maps;
  std::vector<sluice::mat2> matrices;
};

inline operand_sets operands(std::size_t n, std::uint64_t matrix_seed, std::uint32_t modulus) {
  const auto words = sluice::data::generate_host<std::uint32_t>(n, {sluice::data::distribution::uniform, 0, 0, 8});
  operand_sets sets;
  sets.floats = sluice::data::generate_host<float>(n, {sluice::data::distribution::uniform, 0, 0, 9});
  sets.ints.resize(n);
  sets.maps.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    sets.ints[i] = static_cast<std::int32_t>(words[i]);
    sets.maps[i] = {words[i] | 1u, words[i] >> 7};
  }
  sets.matrices = sluice::testing::random_matrices(n, matrix_seed, modulus);
  return sets;
}

/// Two poison byte patterns: an output that matches the oracle after both was written by the call.
inline constexpr unsigned char poison_patterns[] = {0xA5, 0x5A};

template <class T>
void poison(std::span<T> out, unsigned char pattern) {
  if (!out.empty()) std::memset(static_cast<void*>(out.data()), pattern, out.size_bytes());
}

}  // namespace sluice::testing::host_matrix
