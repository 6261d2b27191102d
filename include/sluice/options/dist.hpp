// sluice/options/dist.hpp: the public option types of the distributed algorithms (sluice/dist.cuh): the
// sort's and the multireduce's options, the multireduce's strategies and output layouts, and the phase
// timings a call can report. Host-only, so that the plans and their host tests use them without CUDA.
#pragma once

#include <sluice/options/multireduce.hpp>
#include <sluice/options/radix_sort.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace sluice::dist {

/// Where the time of one distributed call went, on every rank: the GPU time of each phase (CUDA events
/// on the rank's stream, so time the stream waited for the host is not in it) and the host's wall time
/// of the whole call. Filled when a call's options point at one.
struct timings {
  std::vector<std::string> phases;         ///< names, in the order the call runs them
  std::vector<std::vector<double>> ms;     ///< ms[rank][phase]
  std::vector<double> wall_ms;             ///< wall_ms[rank]: from entry to return on that rank's process

  /// The slowest rank's time of a phase (the one the others wait for); 0 for a name not run.
  [[nodiscard]] double slowest(std::string_view phase) const {
    double slowest = 0;
    for (std::size_t p = 0; p < phases.size(); ++p)
      if (phases[p] == phase)
        for (const auto& rank : ms) slowest = rank[p] > slowest ? rank[p] : slowest;
    return slowest;
  }
  [[nodiscard]] double slowest_wall() const {
    double slowest = 0;
    for (double w : wall_ms) slowest = w > slowest ? w : slowest;
    return slowest;
  }
};

struct sort_options {
  /// The order and the local sort: bits [begin_bit, end_bit), descending, and the strategy of each rank's
  /// local sort (radix_sort.cuh), which runs before the exchange. Every rank must pass the same.
  radix_sort_options local{};
  /// Candidate splitter words q, 1 to 255 (0: 255): the sort cuts the global order within candidate
  /// runs anywhere and between candidates at their bounds, so more candidates balance the shares more
  /// finely (docs/dist.md, "Balance") at the price of 2q binary searches over the sorted keys.
  unsigned splitter_words = 0;
  /// Where to report the phases ("sample", "local_sort", "exchange", "merge"); null: not timed.
  timings* report = nullptr;
};

enum class multireduce_algorithm {
  automatic,        ///< world of 1: the local multireduce; else collective while every rank's m partial
                    ///< results are no larger than the largest rank's pairs, else owner_partition
  collective,       ///< local multireduce over all m buckets, then NCCL's all-reduce / reduce-scatter
                    ///< (sum, min, max of integers; sum of floats unless deterministic), or for any other
                    ///< operator an exchange of the partial results folded in rank order
  owner_partition,  ///< each label sent to the rank owning its bucket (a multisplit by owner, one
                    ///< all-to-all), then the owner's local multireduce over what it received
};

[[nodiscard]] constexpr std::string_view to_string(multireduce_algorithm a) {
  switch (a) {
    case multireduce_algorithm::automatic: return "automatic";
    case multireduce_algorithm::collective: return "collective";
    case multireduce_algorithm::owner_partition: return "owner_partition";
  }
  return "?";
}

/// Where the m buckets of a distributed multireduce end up.
enum class layout {
  replicated,   ///< every rank's out holds all m buckets
  partitioned,  ///< rank r's out holds its block of buckets: dist::owned_buckets(m, world_size, r)
};

/// The layout's name; "?" for a value outside the enumeration (the calls reject it by that).
[[nodiscard]] constexpr std::string_view to_string(layout l) {
  switch (l) {
    case layout::replicated: return "replicated";
    case layout::partitioned: return "partitioned";
  }
  return "?";
}

struct multireduce_options {
  multireduce_algorithm algorithm = multireduce_algorithm::automatic;
  layout output = layout::replicated;
  /// The local multireduce's options (multireduce.hpp): its strategy, accumulate (fold onto out's
  /// contents: with a replicated output, the contents of the rank that owns each bucket), strict (a bad
  /// label is an invalid_argument on every rank naming its global index) and deterministic (also makes
  /// the combination across ranks follow rank order instead of NCCL's).
  sluice::multireduce_options local{};
  /// Where to report the phases ("local", "split", "exchange", "combine"; those of the way taken are
  /// non-zero); null: not timed.
  timings* report = nullptr;
};

}  // namespace sluice::dist
