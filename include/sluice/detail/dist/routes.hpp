// sluice/detail/dist/routes.hpp: where elements go when every rank sends each of its elements to one
// destination rank: the owner of a hash-table key, and the plan of the exchange that follows a split by
// destination. Pure (tests/host/dist_routes_test.cpp covers it).
//
// After a stable split by destination, rank r's piece for rank d is [starts[r][d], starts[r][d + 1]) of
// its split output; every destination places the pieces it receives in source-rank order, so that what
// it holds is in global index order (rank 0's elements, then rank 1's, …). A query's answers return by
// the same plan read backwards: the owner sends [receive_offset(s, o), + piece(s, o)) to s, which puts
// them at send_offset(s, o), beside the keys they answer in its split output.
#pragma once

#include <sluice/core/config.hpp>
#include <sluice/detail/slab_hash/hash.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

namespace sluice::detail::dist {

/// The seed of the owner hash: a member of the slab hash's universal family other than the tables' default.
inline constexpr std::uint64_t owner_hash_seed = 0x6f776e6572ull;

/// The rank that owns a key of a distributed hash table: its owner hash reduced to [0, P) as a slab hash
/// reduces to its buckets, so that owners are uniform whenever the hash's bits are.
template <class Key>
struct owner_of_key {
  slab_hash::universal_hash hash = slab_hash::universal_hash::from_seed(owner_hash_seed);
  std::uint32_t world_size = 1;

  [[nodiscard]] SLUICE_HOST_DEVICE constexpr std::uint32_t operator()(const Key& key) const {
    const auto bits = static_cast<std::uint64_t>(static_cast<std::make_unsigned_t<Key>>(key));
    return slab_hash::bucket_of(hash(bits), world_size);
  }
};

/// The exchange after every rank split its elements by destination (header comment).
class route_plan {
 public:
  /// starts[r]: rank r's P + 1 split offsets (its multisplit's bucket offsets).
  explicit route_plan(std::vector<std::vector<std::uint64_t>> starts) : starts_(std::move(starts)) {}

  [[nodiscard]] int world_size() const { return static_cast<int>(starts_.size()); }
  /// Elements rank `from` sends to rank `to`.
  [[nodiscard]] std::uint64_t piece(int from, int to) const { return at(from, to + 1) - at(from, to); }
  /// Where that piece starts in `from`'s split output.
  [[nodiscard]] std::uint64_t send_offset(int from, int to) const { return at(from, to); }
  /// Where it lands among what `to` receives: after the pieces of ranks 0 … from − 1.
  [[nodiscard]] std::uint64_t receive_offset(int from, int to) const {
    std::uint64_t before = 0;
    for (int s = 0; s < from; ++s) before += piece(s, to);
    return before;
  }
  /// Elements `to` receives in all.
  [[nodiscard]] std::uint64_t received(int to) const { return receive_offset(world_size(), to); }

 private:
  [[nodiscard]] std::uint64_t at(int rank, int bucket) const {
    return starts_[static_cast<std::size_t>(rank)][static_cast<std::size_t>(bucket)];
  }

  std::vector<std::vector<std::uint64_t>> starts_;
};

}  // namespace sluice::detail::dist
