// sluice/detail/slab_hash/policy.hpp: how many buckets a slab hash gets, when it grows and to what, and
// how many slabs an operation may take from the pool: pure arithmetic, host-tested
// (tests/host/slab_hash_layout_test.cpp). Ashkiani §5.3.3: β = n / (M·B) is the average slab count of a
// bucket (M data slots a slab); B = n / (M·β); a search costs Θ(1 + β) slab reads.
//
// Growth (not in the seed, whose B is fixed): before a bulk call that may insert k elements into a table
// of n, if (n + k) / (M·B) would pass max β, B becomes max(2B, n' / (M·target β)) and every element
// moves to its new bucket (docs/containers.md, "growth": O(n + B) work, old and new slabs both held
// while it runs). Doubling keeps the moves amortised O(1) per insert.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace sluice::detail::slab_hash {

/// The largest bucket count (the bucket index is 32-bit; 2^31 base slabs are 256 GiB).
inline constexpr std::uint64_t max_buckets = std::uint64_t{1} << 31;

/// B for `elements` at an average of `beta` slabs a bucket, M = `data_slots`: ⌈n / (M·β)⌉, at least 1.
[[nodiscard]] inline std::uint32_t buckets_for(std::uint64_t elements, std::uint32_t data_slots, double beta) {
  const double wanted = std::ceil(static_cast<double>(elements) / (data_slots * beta));
  return static_cast<std::uint32_t>(std::clamp(wanted, 1.0, static_cast<double>(max_buckets)));
}

/// β: the average slab count of a bucket holding `elements` over `buckets` buckets.
[[nodiscard]] inline double average_slabs(std::uint64_t elements, std::uint32_t buckets, std::uint32_t data_slots) {
  return static_cast<double>(elements) / (static_cast<double>(data_slots) * buckets);
}

/// The bucket count after growth for a table about to hold `elements`, or `buckets` when β stays at or
/// below `max_beta`.
[[nodiscard]] inline std::uint32_t grown_buckets(std::uint64_t elements, std::uint32_t buckets,
                                                 std::uint32_t data_slots, double target_beta, double max_beta) {
  if (average_slabs(elements, buckets, data_slots) <= max_beta || buckets >= max_buckets) return buckets;
  const std::uint64_t doubled = std::min<std::uint64_t>(2 * std::uint64_t{buckets}, max_buckets);
  return static_cast<std::uint32_t>(std::max<std::uint64_t>(doubled, buckets_for(elements, data_slots, target_beta)));
}

/// Slabs that `inserts` insertions into `buckets` lists may take from the pool: a list takes a slab only
/// when its tail is full, so ⌈k_b / M⌉ for the k_b inserts of bucket b, at most k/M + min(k, B) over all;
/// plus one a warp for the slab a warp holds between allocating it and losing the race to link it.
[[nodiscard]] inline std::uint64_t units_for_inserts(std::uint64_t inserts, std::uint32_t buckets,
                                                     std::uint32_t data_slots, std::uint64_t warps) {
  if (inserts == 0) return 0;
  return (inserts + data_slots - 1) / data_slots + std::min<std::uint64_t>(inserts, buckets) + warps;
}

/// Memory utilization (§5.3.3, errata §10.11): bytes of stored elements over bytes of every slab, base
/// slabs included.
[[nodiscard]] inline double memory_utilization(std::uint64_t elements, std::uint32_t element_bytes,
                                               std::uint64_t slabs, std::uint32_t bytes_per_slab) {
  return slabs == 0 ? 0.0 : static_cast<double>(elements) * element_bytes / (static_cast<double>(slabs) * bytes_per_slab);
}

}  // namespace sluice::detail::slab_hash
