// sluice/detail/dist/owners.hpp: the distributed multireduce's arithmetic: which rank owns which buckets,
// the owner of a label, and which way a call combines the ranks' work. Pure (host tests cover it).
//
// Buckets are dealt in blocks of ⌈m / P⌉: rank r owns [r·w, min(m, (r+1)·w)), w = ⌈m / P⌉, so the last
// ranks may own fewer buckets or none (m < P). Equal blocks are what NCCL's reduce-scatter and
// all-gather take; the short tail is padded with the identity.
//
// The ways (options/dist.hpp, multireduce_algorithm):
//   local            a world of 1: the one-GPU multireduce.
//   nccl_reduction   collective with an operator NCCL reduces exactly as sluice does: sum, min and max
//                    of 8-, 32- and 64-bit integers (wrapping sums are associative and commutative, so
//                    any order gives the same bits), and sum of float and double unless the call is
//                    deterministic (NCCL's order is its own).
//   ordered_exchange collective with any other operator: each rank's partial results for a block go
//                    to the block's owner, who folds them in rank order (the global index order, since
//                    rank r's elements precede rank r + 1's): exact for non-commutative operators.
//   owner_partition  labels and values go to the owner of their bucket (a stable multisplit by owner,
//                    received in rank order: global index order again), whose local multireduce folds
//                    them; labels outside [0, m) are dropped and counted by the multisplit.
// automatic takes a collective while the m partial results (m · value bytes) are no larger than the
// largest rank's pairs (n · (label + value bytes)): then the collective moves less than the exchange.
#pragma once

#include <sluice/core/config.hpp>
#include <sluice/core/labels.hpp>
#include <sluice/detail/dist/tuning.hpp>
#include <sluice/options/dist.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace sluice::detail::dist {

/// Buckets per rank: ⌈m / P⌉.
[[nodiscard]] SLUICE_HOST_DEVICE constexpr std::uint64_t block_width(std::uint64_t m, int world_size) {
  const auto p = static_cast<std::uint64_t>(world_size);
  return (m + p - 1) / p;
}

struct bucket_range {
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
  [[nodiscard]] constexpr std::uint64_t size() const { return end - begin; }
  friend constexpr bool operator==(const bucket_range&, const bucket_range&) = default;
};

/// The buckets rank r owns.
[[nodiscard]] constexpr bucket_range owned_range(std::uint64_t m, int world_size, int rank) {
  const std::uint64_t w = block_width(m, world_size);
  const auto r = static_cast<std::uint64_t>(rank);
  return {std::min(m, r * w), std::min(m, (r + 1) * w)};
}

/// The multisplit's bucket functor of owner_partition: the owner of a valid label, world_size (dropped
/// and counted) for a label outside [0, m).
template <class L>
struct owner_of {
  std::uint64_t m;
  std::uint64_t width;
  std::uint32_t world_size;
  SLUICE_HOST_DEVICE constexpr std::uint32_t operator()(const L& label) const {
    return valid_label(label, m) ? static_cast<std::uint32_t>(static_cast<std::uint64_t>(label) / width) : world_size;
  }
};

enum class combine_way { local, nccl_reduction, ordered_exchange, owner_partition };

[[nodiscard]] constexpr std::string_view to_string(combine_way w) {
  switch (w) {
    case combine_way::local: return "local";
    case combine_way::nccl_reduction: return "nccl_reduction";
    case combine_way::ordered_exchange: return "ordered_exchange";
    case combine_way::owner_partition: return "owner_partition";
  }
  return "?";
}

/// What the choice reads: the same numbers on every rank (the largest n is gathered).
struct combine_problem {
  int world_size = 1;
  std::uint64_t m = 0;
  std::size_t label_bytes = 0;
  std::size_t value_bytes = 0;
  std::uint64_t largest_rank_n = 0;
  bool nccl_reducible = false;  ///< the operator and value have an exact NCCL reduction (header comment)
  sluice::dist::multireduce_algorithm algorithm = sluice::dist::multireduce_algorithm::automatic;
};

[[nodiscard]] constexpr combine_way choose_way(const combine_problem& p) {
  using sluice::dist::multireduce_algorithm;
  if (p.world_size == 1) return combine_way::local;
  const combine_way collective = p.nccl_reducible ? combine_way::nccl_reduction : combine_way::ordered_exchange;
  switch (p.algorithm) {
    case multireduce_algorithm::collective: return collective;
    case multireduce_algorithm::owner_partition: return combine_way::owner_partition;
    case multireduce_algorithm::automatic: break;
  }
  const double partial_bytes = static_cast<double>(p.m) * static_cast<double>(p.value_bytes);
  const double pair_bytes =
      static_cast<double>(p.largest_rank_n) * static_cast<double>(p.label_bytes + p.value_bytes);
  return partial_bytes <= tuning::collective_max_partial_to_pairs * pair_bytes ? collective : combine_way::owner_partition;
}

}  // namespace sluice::detail::dist
