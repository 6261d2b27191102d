// Host tests of where a distributed hash table's elements go (sluice/detail/dist/routes.hpp): the owner of
// a key is in [0, P), the same for equal keys, spread evenly over the ranks for sequential and random keys
// of 32 and 64 bits, and independent of the tables' own bucket hash; the exchange plan's offsets tile
// every rank's split output and every destination's receive buffer, in source-rank order, and read
// backwards return each answer to where its key was sent from.
#include <sluice/detail/dist/routes.hpp>
#include <sluice/detail/slab_hash/hash.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace {

namespace dd = sluice::detail::dist;

/// The largest relative deviation of the ranks' counts of `keys` from the mean.
template <class K>
double owner_imbalance(const std::vector<K>& keys, std::uint32_t world) {
  const dd::owner_of_key<K> owner{.world_size = world};
  std::vector<std::uint64_t> count(world, 0);
  for (K k : keys) {
    const std::uint32_t o = owner(k);
    EXPECT_LT(o, world) << "key " << k;
    ++count[o];
  }
  const double mean = static_cast<double>(keys.size()) / world;
  double worst = 0;
  for (std::uint64_t c : count) worst = std::max(worst, std::abs(static_cast<double>(c) - mean) / mean);
  return worst;
}

TEST(DistRoutes, OwnersAreUniformForSequentialAndRandomKeys) {
  constexpr std::size_t n = 1 << 20;
  std::vector<std::uint32_t> sequential32(n);
  std::vector<std::uint64_t> sequential64(n), random64(n), strided64(n);
  std::mt19937_64 rng(3);
  for (std::size_t i = 0; i < n; ++i) {
    sequential32[i] = static_cast<std::uint32_t>(i);
    sequential64[i] = i + (std::uint64_t{1} << 40);
    random64[i] = rng();
    strided64[i] = i << 20;  // low bits all zero
  }
  for (std::uint32_t world : {1u, 2u, 3u, 4u, 8u, 7u, 64u}) {
    // n / P keys a rank: a binomial's deviation is ~ sqrt(P / n); 5 % is far outside it
    EXPECT_LT(owner_imbalance(sequential32, world), 0.05) << "P = " << world;
    EXPECT_LT(owner_imbalance(sequential64, world), 0.05) << "P = " << world;
    EXPECT_LT(owner_imbalance(random64, world), 0.05) << "P = " << world;
    EXPECT_LT(owner_imbalance(strided64, world), 0.05) << "P = " << world;
  }
}

TEST(DistRoutes, OwnerIsIndependentOfTheTablesBucketHash) {
  // the keys one rank of two owns still fill a table's buckets evenly (the owner hash is not the tables')
  constexpr std::uint32_t buckets = 1024;
  const dd::owner_of_key<std::uint32_t> owner{.world_size = 2};
  const sluice::detail::slab_hash::universal_hash table_hash{};
  std::vector<std::uint64_t> per_bucket(buckets, 0);
  std::uint64_t owned = 0;
  for (std::uint32_t k = 0; k < (1u << 22); ++k)
    if (owner(k) == 0) {
      ++per_bucket[sluice::detail::slab_hash::bucket_of(table_hash(k), buckets)];
      ++owned;
    }
  const double mean = static_cast<double>(owned) / buckets;
  for (std::uint32_t b = 0; b < buckets; ++b) EXPECT_NEAR(static_cast<double>(per_bucket[b]), mean, 0.1 * mean) << "bucket " << b;
}

TEST(DistRoutes, SignedKeysHaveOwnersToo) {
  const dd::owner_of_key<std::int64_t> owner{.world_size = 5};
  const dd::owner_of_key<std::uint64_t> same{.world_size = 5};
  for (std::int64_t k : {std::int64_t{-1}, std::int64_t{-123456789}, std::int64_t{0}, std::int64_t{42}})
    EXPECT_EQ(owner(k), same(static_cast<std::uint64_t>(k)));
}

TEST(DistRoutes, PlanTilesSendersAndReceiversInRankOrder) {
  std::mt19937 rng(5);
  for (int world : {1, 2, 3, 5}) {
    std::vector<std::vector<std::uint64_t>> starts(static_cast<std::size_t>(world));
    std::vector<std::vector<std::uint64_t>> pieces(static_cast<std::size_t>(world));
    for (int r = 0; r < world; ++r) {
      starts[r].push_back(0);
      for (int d = 0; d < world; ++d) {
        const std::uint64_t piece = (r + d) % 3 == 0 ? 0 : rng() % 1000;  // empty pieces too
        pieces[r].push_back(piece);
        starts[r].push_back(starts[r].back() + piece);
      }
    }
    const dd::route_plan plan(starts);
    ASSERT_EQ(plan.world_size(), world);
    for (int to = 0; to < world; ++to) {
      std::uint64_t at = 0;
      for (int from = 0; from < world; ++from) {
        EXPECT_EQ(plan.piece(from, to), pieces[from][to]);
        EXPECT_EQ(plan.receive_offset(from, to), at) << "from " << from << " to " << to;
        at += plan.piece(from, to);
      }
      EXPECT_EQ(plan.received(to), at);
    }
    for (int from = 0; from < world; ++from) {
      std::uint64_t at = 0;
      for (int to = 0; to < world; ++to) {
        EXPECT_EQ(plan.send_offset(from, to), at);
        at += plan.piece(from, to);
      }
    }
    // the answers' way back: owner `to` sends [receive_offset(from, to), + piece) to `from`, which puts it at
    // send_offset(from, to); simulate one element-wise round trip and check every element comes home
    std::vector<std::vector<std::uint64_t>> owned(static_cast<std::size_t>(world));
    for (int to = 0; to < world; ++to) owned[to].resize(plan.received(to));
    for (int from = 0; from < world; ++from)
      for (int to = 0; to < world; ++to)
        for (std::uint64_t j = 0; j < plan.piece(from, to); ++j)
          owned[to][plan.receive_offset(from, to) + j] = (std::uint64_t(from) << 32) | (plan.send_offset(from, to) + j);
    for (int from = 0; from < world; ++from)
      for (int to = 0; to < world; ++to)
        for (std::uint64_t j = 0; j < plan.piece(from, to); ++j) {
          const std::uint64_t answer = owned[to][plan.receive_offset(from, to) + j];
          EXPECT_EQ(answer >> 32, static_cast<std::uint64_t>(from));
          EXPECT_EQ(answer & 0xFFFFFFFFu, plan.send_offset(from, to) + j);
        }
  }
}

}  // namespace
