// Host tests of sluice/detail/search/pbs.hpp (Karsin §6.2) and sluice/data/pbs_queries.hpp: PBS, PBS-CF
// and PBS-CL equal reference::predecessor for every n = 1..2100 in every lane; and a bank-conflict
// simulator (w = 32 banks of 4-byte words, one warp in lockstep, the same probe functions the kernels
// run) shows PBS on the Cor. 6.2.1 adversarial queries w-way conflicted after its first log w steps,
// PBS-CF conflict-free, and PBS-CL conflict-free in stage 1 with at most 2^i ways in stage-2 step i
// (w − 1 serialised accesses at most in stage 2).
#include <sluice/data/pbs_queries.hpp>
#include <sluice/detail/search/pbs.hpp>
#include <sluice/reference/search.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <span>
#include <vector>

namespace {

namespace search = sluice::detail::search;
using search::pbs_index;

constexpr pbs_index w = 32;
enum class variant { pbs, pbs_cf, pbs_cl };
const variant all_variants[] = {variant::pbs, variant::pbs_cf, variant::pbs_cl};
const char* name(variant v) { return v == variant::pbs ? "pbs" : v == variant::pbs_cf ? "pbs_cf" : "pbs_cl"; }

std::vector<std::uint32_t> padded(const std::vector<std::uint32_t>& keys) {
  std::vector<std::uint32_t> slots(static_cast<std::size_t>(search::pbs_padded_size(static_cast<pbs_index>(keys.size()), w)));
  for (std::size_t i = 0; i < slots.size(); ++i) slots[i] = keys[std::min(i, keys.size() - 1)];
  return slots;
}

/// One query's predecessor with every probed index appended to `trace` (in range or not).
std::int64_t run(variant v, const std::vector<std::uint32_t>& slots, std::size_t n, std::uint32_t q, pbs_index lane,
                 std::vector<pbs_index>* trace = nullptr) {
  const auto p = static_cast<pbs_index>(slots.size());
  const search::padded_slots le_slots{p, [&](pbs_index i) { return slots[static_cast<std::size_t>(i)] <= q; }};
  auto le = [&](pbs_index i) {
    if (trace) trace->push_back(i);
    return le_slots(i);
  };
  const pbs_index count = v == variant::pbs      ? search::pbs_count(p, le)
                          : v == variant::pbs_cf ? search::pbs_cf_count(p, w, lane, le)
                                                 : search::pbs_cl_count(p, w, lane, le);
  return std::min<pbs_index>(count, static_cast<pbs_index>(n)) - 1;
}

TEST(SearchPbs, EveryVariantEqualsThePredecessorOracle) {
  std::mt19937 random(62);
  for (std::size_t n = 1; n <= 2100; ++n) {
    std::uniform_int_distribution<std::uint32_t> pick(0, static_cast<std::uint32_t>(n % 3 == 0 ? n / 4 + 1 : 4 * n));
    std::vector<std::uint32_t> keys(n);
    for (auto& k : keys) k = pick(random);
    if (n % 5 == 0) std::fill(keys.end() - static_cast<std::ptrdiff_t>(n / 2), keys.end(), 0xFFFFFFFFu);
    std::sort(keys.begin(), keys.end());
    std::vector<std::uint32_t> queries = {0u, 0xFFFFFFFFu, keys.front(), keys.back()};
    for (int i = 0; i < 40; ++i) {
      const auto k = keys[random() % n];
      queries.insert(queries.end(), {k, k - 1, k + 1});
    }
    const auto expected = sluice::reference::predecessor(std::span<const std::uint32_t>(keys),
                                                         std::span<const std::uint32_t>(queries));
    const auto slots = padded(keys);
    for (variant v : all_variants)
      for (std::size_t i = 0; i < queries.size(); ++i) {
        const auto lane = static_cast<pbs_index>((i * 7 + n) % w);  // every lane over the sweep
        ASSERT_EQ(run(v, slots, n, queries[i], lane), expected[i])
            << name(v) << ", n = " << n << ", lane " << lane << ", q = " << queries[i];
      }
  }
}

/// Per lockstep step of one warp: the serialised accesses, the most distinct words in one bank (1 when
/// no lane reads, since the step still issues).
std::vector<int> bank_ways(variant v, const std::vector<std::uint32_t>& slots, std::size_t n,
                           std::span<const std::uint32_t> warp_queries) {
  std::vector<std::vector<pbs_index>> traces(warp_queries.size());
  for (std::size_t lane = 0; lane < warp_queries.size(); ++lane)
    run(v, slots, n, warp_queries[lane], static_cast<pbs_index>(lane), &traces[lane]);
  std::vector<int> ways(traces[0].size());
  for (std::size_t step = 0; step < ways.size(); ++step) {
    std::map<pbs_index, std::set<pbs_index>> words_by_bank;
    for (const auto& trace : traces) {
      EXPECT_EQ(trace.size(), ways.size()) << "every lane probes the same number of times";
      const pbs_index i = trace[step];
      if (i >= 0 && i < static_cast<pbs_index>(slots.size())) words_by_bank[i % w].insert(i);
    }
    int most = 1;
    for (const auto& [bank, words] : words_by_bank) most = std::max(most, static_cast<int>(words.size()));
    ways[step] = most;
  }
  return ways;
}

std::vector<std::uint32_t> distinct_keys(std::size_t n, std::mt19937& random) {
  std::vector<std::uint32_t> keys(n);
  std::uint32_t value = 0;
  for (auto& k : keys) k = value += 1 + static_cast<std::uint32_t>(random() % 1000);
  return keys;
}

TEST(SearchPbs, AdversarialQueriesConflictPbsAndSpareTheOthers) {
  std::mt19937 random(621);
  const int log_w = std::countr_zero(static_cast<unsigned>(w));
  for (std::size_t n : {1024u, 2048u, 3072u, 4096u, 8192u}) {
    const auto keys = distinct_keys(n, random);
    const auto slots = padded(keys);
    const int log_p = std::countr_zero(static_cast<unsigned>(slots.size()));
    const auto queries = sluice::data::pbs_adversarial_queries(std::span<const std::uint32_t>(keys), 64 * w, n);
    double pbs_total = 0, pbs_steps = 0;
    for (std::size_t warp = 0; warp < queries.size(); warp += w) {
      const std::span<const std::uint32_t> warp_queries(queries.data() + warp, w);
      // PBS: after the first log w + 1 steps, whose probes fan out, every step is w-way (Cor. 6.2.1).
      const auto pbs = bank_ways(variant::pbs, slots, n, warp_queries);
      ASSERT_EQ(static_cast<int>(pbs.size()), log_p + 1);
      for (std::size_t step = static_cast<std::size_t>(log_w) + 1; step < pbs.size(); ++step)
        EXPECT_EQ(pbs[step], w) << "pbs, n = " << n << ", step " << step;
      pbs_total += std::accumulate(pbs.begin(), pbs.end(), 0.0);
      pbs_steps += static_cast<double>(pbs.size());
      // PBS-CF: one access a step throughout.
      const auto cf = bank_ways(variant::pbs_cf, slots, n, warp_queries);
      ASSERT_EQ(static_cast<int>(cf.size()), log_p - log_w + 1 + static_cast<int>(w) - 1);
      for (int ways : cf) EXPECT_EQ(ways, 1) << "pbs_cf, n = " << n;
      // PBS-CL: stage 1 conflict-free, stage-2 step i at most 2^i-way, w − 1 in all.
      const auto cl = bank_ways(variant::pbs_cl, slots, n, warp_queries);
      ASSERT_EQ(static_cast<int>(cl.size()), log_p + 1);
      const std::size_t stage2 = static_cast<std::size_t>(log_p - log_w + 1);
      for (std::size_t step = 0; step < stage2; ++step) EXPECT_EQ(cl[step], 1) << "pbs_cl stage 1, n = " << n;
      int stage2_total = 0;
      for (std::size_t i = 0; stage2 + i < cl.size(); ++i) {
        EXPECT_LE(cl[stage2 + i], 1 << i) << "pbs_cl stage 2, n = " << n << ", step " << i;
        stage2_total += cl[stage2 + i];
      }
      EXPECT_LE(stage2_total, w - 1) << "pbs_cl stage 2, n = " << n;
    }
    const double beta = pbs_total / pbs_steps;
    EXPECT_GT(beta, 0.6 * static_cast<double>(w)) << "pbs mean ways a step, n = " << n;
    std::cout << "n = " << n << ": PBS on adversarial queries, mean bank ways a step β = " << beta << "\n";
  }
}

TEST(SearchPbs, RandomQueriesKeepTheBoundsToo) {
  std::mt19937 random(622);
  for (std::size_t n : {100u, 1000u, 1024u, 5000u}) {
    const auto keys = distinct_keys(n, random);
    const auto slots = padded(keys);
    std::vector<std::uint32_t> queries(w);
    for (int trial = 0; trial < 50; ++trial) {
      for (auto& q : queries) q = static_cast<std::uint32_t>(random() % (keys.back() + 2));
      for (int ways : bank_ways(variant::pbs_cf, slots, n, queries)) EXPECT_EQ(ways, 1) << "pbs_cf, n = " << n;
      const auto cl = bank_ways(variant::pbs_cl, slots, n, queries);
      EXPECT_LE(std::accumulate(cl.begin(), cl.end(), 0), static_cast<int>(cl.size()) - 5 + static_cast<int>(w) - 1);
    }
  }
}

TEST(SearchPbs, GeneratorRejectsSizesThatAreNotMultiplesOfWSquared) {
  const std::vector<std::uint32_t> keys(1000, 1u);
  EXPECT_THROW((void)sluice::data::pbs_adversarial_queries(std::span<const std::uint32_t>(keys), 64, 1),
               sluice::invalid_argument);
  const std::vector<std::uint32_t> none;
  EXPECT_THROW((void)sluice::data::pbs_adversarial_queries(std::span<const std::uint32_t>(none), 64, 1),
               sluice::invalid_argument);
}

}  // namespace
