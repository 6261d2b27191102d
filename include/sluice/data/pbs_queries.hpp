// sluice/data/pbs_queries.hpp: bank-conflict adversarial queries for the shared-memory binary search PBS
// (Karsin Lemma 6.2.2 and Cor. 6.2.1), a host generator used by the tests and the benchmark.
//
// For N sorted distinct keys, N a multiple of w², every group of w consecutive queries (one warp) takes
// one random offset t ∈ [0, N/w − 1) and gives lane ℓ the key keys[ℓ·(N/w) + t]. The w answers then differ
// by multiples of N/w, itself a multiple of w: after the first log w halving steps the lanes walk
// distinct paths whose probes agree modulo w, so every later step of PBS (detail/search/pbs.hpp) is a
// w-way bank conflict, the construction of Cor. 6.2.1 (its first log w steps are 1-, 2-, 4-… way).
// t stops short of N/w − 1 so that no lane asks for the last key: for N a power of two the halving steps
// stop one short of that answer and leave it to the final test, which would break the common residue.
// PBS-CF stays conflict-free and PBS-CL within its stage-2 bound on them. With duplicate keys the queries
// are still valid, only less adversarial. O(count) time; the same seed gives the same queries.
#pragma once

#include <sluice/core/error.hpp>

#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
#include <vector>

namespace sluice::data {

/// `count` queries (a multiple of w is best: the last group may be partial) against `sorted_keys`,
/// whose size must be a positive multiple of w² (invalid_argument names 'sorted_keys' otherwise).
template <class K>
[[nodiscard]] std::vector<K> pbs_adversarial_queries(std::span<const K> sorted_keys, std::size_t count,
                                                     std::uint64_t seed, std::size_t w = 32) {
  const std::size_t n = sorted_keys.size();
  if (w == 0 || n == 0 || n % (w * w) != 0)
    throw invalid_argument("data::pbs_adversarial_queries", "sorted_keys",
                           "size must be a positive multiple of w² (w = " + std::to_string(w) + ")");
  const std::size_t stride = n / w;
  std::mt19937_64 random(seed);
  std::uniform_int_distribution<std::size_t> offset(0, stride - 2);
  std::vector<K> queries(count);
  std::size_t t = 0;
  for (std::size_t i = 0; i < count; ++i) {
    if (i % w == 0) t = offset(random);
    queries[i] = sorted_keys[(i % w) * stride + t];
  }
  return queries;
}

}  // namespace sluice::data
