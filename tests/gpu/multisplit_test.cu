// GPU tests of multisplit (Ashkiani ch. 3) against the reference, for every strategy: the warp and
// block building blocks on their own (ballot peers and histograms against __match_any_sync and a host
// count, partial warps; segmented scans of per-warp counts), then the device-wide multisplit: stability
// (values carry their index), m = 1…40, 63, 64, 255, 256, 257, 511, 512, 1000, 2^16, sizes around windows
// and tiles (onesweep's too; it runs every m ≤ 511 and rejects 512),
// the seed's distributions, extreme keys, every bucket functor and user functors, the library functors
// that never drop a key (onesweep without its drop digit, every digit width filled), dropped ids, strict
// mode and bad arguments, 2^31 + 5 elements.
#include <sluice/block/bucket_counts.cuh>
#include <sluice/data/generate.cuh>
#include <sluice/multisplit.cuh>
#include <sluice/reference/multisplit.hpp>
#include <sluice/warp/bucket.cuh>

#include "support/compare.hpp"
#include "support/errors.hpp"
#include "support/gpu_test.hpp"

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {

using sluice::multisplit_algorithm;
using sluice::testing::all_equal;
using sluice::testing::gpu_test;

class Multisplit : public gpu_test {};

const multisplit_algorithm direct_and_sort[] = {multisplit_algorithm::dms, multisplit_algorithm::wms,
                                                multisplit_algorithm::bms, multisplit_algorithm::rb_sort,
                                                multisplit_algorithm::automatic};

/// The strategies that run m buckets (scan_split only m ≤ 2, onesweep m ≤ 511).
std::vector<multisplit_algorithm> strategies_for(std::uint32_t m) {
  std::vector<multisplit_algorithm> all(std::begin(direct_and_sort), std::end(direct_and_sort));
  if (m <= 2) all.push_back(multisplit_algorithm::scan_split);
  if (m <= 511) all.push_back(multisplit_algorithm::onesweep);
  return all;
}

// ---- warp and block building blocks ------------------------------------------------------------------------

/// One warp per case: lanes at or past active[w] have exited; valid bit l says lane l holds an item.
__global__ void warp_bucket_kernel(const std::uint32_t* ids, const std::uint32_t* valid_bits, const int* active,
                                   int bits, std::uint32_t* ballot_peers, std::uint32_t* match_peers,
                                   std::uint32_t* histogram, std::uint32_t* starts) {
  const int w = static_cast<int>(threadIdx.x) / 32, lane = sluice::warp::lane_id();
  if (lane >= active[w]) return;
  const unsigned mask = active[w] == 32 ? 0xffffffffu : (1u << active[w]) - 1u;
  const std::uint32_t id = ids[threadIdx.x];
  const bool valid = (valid_bits[w] >> lane) & 1u;
  ballot_peers[threadIdx.x] = sluice::warp::ballot_peers(mask, valid, id, bits);
  match_peers[threadIdx.x] = sluice::warp::match_peers(mask, valid, id);
  unsigned counts[8] = {};
  sluice::warp::ballot_histogram(mask, valid, id, bits, counts);
  for (int r = 0; r < 8; ++r) histogram[w * 256 + lane + 32 * r] = counts[r];
  if (active[w] == 32) {  // the scan of counts takes the whole warp
    __shared__ std::uint32_t scanned[8][256];
    __syncwarp();
    for (int r = 0; r < 8; ++r) scanned[w][lane + 32 * r] = counts[r];
    __syncwarp();
    sluice::warp::exclusive_scan_counts(scanned[w], scanned[w], 1u << bits);
    __syncwarp();
    for (int r = 0; r < 8; ++r) starts[w * 256 + lane + 32 * r] = scanned[w][lane + 32 * r];
  }
}

TEST_F(Multisplit, WarpBallotsMatchHostCountsAndMatchAny) {
  constexpr int warps = 8;
  std::mt19937 random(7);
  for (int bits = 0; bits <= 8; ++bits) {
    std::vector<std::uint32_t> ids(warps * 32), valid_bits(warps);
    std::vector<int> active{32, 32, 31, 17, 1, 32, 5, 32};
    for (auto& id : ids) id = random() & ((1u << bits) - 1u);
    for (int w = 0; w < warps; ++w) valid_bits[w] = w == 5 ? 0x0000ffffu : (w == 7 ? 0u : static_cast<std::uint32_t>(random()));
    sluice::device_buffer<std::uint32_t> d_ids(ctx(), std::span<const std::uint32_t>(ids));
    sluice::device_buffer<std::uint32_t> d_valid(ctx(), std::span<const std::uint32_t>(valid_bits));
    sluice::device_buffer<int> d_active(ctx(), std::span<const int>(active));
    sluice::device_buffer<std::uint32_t> ballot(ctx(), warps * 32), match(ctx(), warps * 32), histogram(ctx(), warps * 256),
        starts(ctx(), warps * 256);
    ballot.fill_bytes(0);
    match.fill_bytes(0);
    histogram.fill_bytes(0);
    starts.fill_bytes(0);
    warp_bucket_kernel<<<1, warps * 32, 0, ctx().stream()>>>(d_ids.data(), d_valid.data(), d_active.data(), bits,
                                                             ballot.data(), match.data(), histogram.data(), starts.data());
    SLUICE_CHECK_LAUNCH();
    const auto got_ballot = ballot.to_host(), got_match = match.to_host(), got_histogram = histogram.to_host(),
               got_starts = starts.to_host();
    for (int w = 0; w < warps; ++w) {
      auto counted = [&](int lane) { return lane < active[w] && ((valid_bits[w] >> lane) & 1u); };
      std::vector<std::uint32_t> count(256, 0);
      for (int lane = 0; lane < 32; ++lane)
        if (counted(lane)) ++count[ids[w * 32 + lane]];
      for (int lane = 0; lane < active[w]; ++lane) {
        std::uint32_t peers = 0;
        for (int other = 0; other < 32; ++other)
          if (counted(lane) && counted(other) && ids[w * 32 + other] == ids[w * 32 + lane]) peers |= 1u << other;
        ASSERT_EQ(got_ballot[w * 32 + lane], peers) << "bits " << bits << " warp " << w << " lane " << lane;
        ASSERT_EQ(got_match[w * 32 + lane], peers) << "bits " << bits << " warp " << w << " lane " << lane;
        for (int r = 0; r < 8; ++r)
          ASSERT_EQ(got_histogram[w * 256 + lane + 32 * r], count[lane + 32 * r])
              << "bits " << bits << " warp " << w << " bucket " << lane + 32 * r;
      }
      if (active[w] == 32) {
        std::uint32_t sum = 0;
        for (std::uint32_t b = 0; b < (1u << bits); ++b) {
          ASSERT_EQ(got_starts[w * 256 + b], sum) << "bits " << bits << " warp " << w << " bucket " << b;
          sum += count[b];
        }
      }
    }
  }
}

template <int Warps>
__global__ void block_counts_kernel(std::uint32_t* counts, std::uint32_t m, std::uint32_t* reduced, std::uint32_t* totals) {
  __shared__ std::uint32_t shared_counts[256 * Warps];
  for (std::uint32_t e = threadIdx.x; e < m * Warps; e += blockDim.x) shared_counts[e] = counts[e];
  __syncthreads();
  sluice::block::reduce_warp_counts<Warps>(shared_counts, m, reduced);
  __syncthreads();
  sluice::block::scan_warp_counts<Warps>(shared_counts, m, totals);
  __syncthreads();
  for (std::uint32_t e = threadIdx.x; e < m * Warps; e += blockDim.x) counts[e] = shared_counts[e];
}

TEST_F(Multisplit, BlockSegmentedScanOfWarpCounts) {
  constexpr int warps = 8;
  std::mt19937 random(11);
  for (std::uint32_t m : {1u, 3u, 4u, 32u, 33u, 200u, 256u}) {
    std::vector<std::uint32_t> counts(m * warps);
    for (auto& c : counts) c = random() % 129;
    sluice::device_buffer<std::uint32_t> d_counts(ctx(), std::span<const std::uint32_t>(counts));
    sluice::device_buffer<std::uint32_t> reduced(ctx(), m), totals(ctx(), m);
    block_counts_kernel<warps><<<1, warps * 32, 0, ctx().stream()>>>(d_counts.data(), m, reduced.data(), totals.data());
    SLUICE_CHECK_LAUNCH();
    const auto scanned = d_counts.to_host(), got_reduced = reduced.to_host(), got_totals = totals.to_host();
    for (std::uint32_t b = 0; b < m; ++b) {
      std::uint32_t sum = 0;
      for (int w = 0; w < warps; ++w) {
        ASSERT_EQ(scanned[b * warps + w], sum) << "m " << m << " bucket " << b << " warp " << w;
        sum += counts[b * warps + w];
      }
      ASSERT_EQ(got_reduced[b], sum) << "m " << m << " bucket " << b;
      ASSERT_EQ(got_totals[b], sum) << "m " << m << " bucket " << b;
    }
  }
}

// ---- device-wide multisplit ----------------------------------------------------------------------------

/// Runs multisplit_pairs (values = original index, so any instability shows) and multisplit (keys only)
/// with `algorithm` and compares keys, values, offsets and the dropped count with the oracle.
/// `device_of` and `host_of` are the same functor for device and host (they differ only for splitters).
template <class K, class DeviceOf, class HostOf>
void expect_oracle(sluice::context& ctx, const std::vector<K>& keys, std::uint32_t m, DeviceOf device_of, HostOf host_of,
                   multisplit_algorithm algorithm, const std::string& what, bool keys_only_too = false) {
  const std::size_t n = keys.size();
  std::vector<std::uint32_t> index(n);
  for (std::size_t i = 0; i < n; ++i) index[i] = static_cast<std::uint32_t>(i);
  const auto expected = sluice::reference::multisplit_pairs(std::span<const K>(keys), std::span<const std::uint32_t>(index),
                                                            m, host_of);
  const std::size_t kept = n - expected.dropped;
  const sluice::device_buffer<K> d_keys(ctx, std::span<const K>(keys));
  const sluice::device_buffer<std::uint32_t> d_values(ctx, std::span<const std::uint32_t>(index));
  sluice::device_buffer<K> out_keys(ctx, n);
  sluice::device_buffer<std::uint32_t> out_values(ctx, n);
  sluice::device_buffer<std::size_t> offsets(ctx, std::size_t{m} + 1), dropped(ctx, 1);
  const std::string where = what + ", " + std::string(sluice::to_string(algorithm)) + ", m = " + std::to_string(m) +
                            ", n = " + std::to_string(n);
  auto check = [&](bool with_values) {
    auto got_keys = out_keys.to_host();
    got_keys.resize(kept);
    ASSERT_EQ(dropped.to_host()[0], expected.dropped) << where;
    ASSERT_TRUE(all_equal(got_keys, expected.keys)) << where;
    ASSERT_TRUE(all_equal(offsets.to_host(), expected.offsets)) << where;
    if (with_values) {
      auto got_values = out_values.to_host();
      got_values.resize(kept);
      ASSERT_TRUE(all_equal(got_values, expected.values)) << where << " (values: stability)";
    }
  };
  const sluice::multisplit_options options{algorithm};
  out_keys.fill_bytes(0xA5);
  out_values.fill_bytes(0xA5);
  offsets.fill_bytes(0xA5);
  dropped.fill_bytes(0xA5);
  sluice::multisplit_pairs(ctx, d_keys.span(), d_values.span(), out_keys.span(), out_values.span(), m, device_of,
                           offsets.span(), dropped.data(), options);
  check(true);
  if (!keys_only_too) return;
  out_keys.fill_bytes(0x5A);
  offsets.fill_bytes(0x5A);
  dropped.fill_bytes(0x5A);
  sluice::multisplit(ctx, d_keys.span(), out_keys.span(), m, device_of, offsets.span(), dropped.data(), options);
  check(false);
}

/// Keys whose delta-bucket ids (delta = 1000) are uniform in [0, m], id m being dropped.
std::vector<std::uint32_t> delta_keys(std::size_t n, std::uint32_t m, std::uint64_t seed) {
  return sluice::data::generate_host<std::uint32_t>(
      n, {sluice::data::distribution::uniform, (std::uint64_t{m} + 1) * 1000, 0.0, seed});
}

constexpr std::uint32_t test_delta = 1000;

/// m = 1…40 reaches every ballot count and partial window; under a sanitizer the counts at the bit-width
/// boundaries (1–5, 8, 9, 16, 17, 31–33, 40) reach the same code paths in a fraction of the time. 63 and
/// 64, 255 and 256, 511 and 512: onesweep's last m of 64, 256 and 512 ranked digits (the dropped keys'
/// digit is then the padding's) and the first m of the next width (512: past onesweep).
std::vector<std::uint32_t> bucket_counts() {
  std::vector<std::uint32_t> ms;
  if (sluice::testing::under_sanitizer())
    ms = {1, 2, 3, 4, 5, 8, 9, 16, 17, 31, 32, 33, 40};
  else
    for (std::uint32_t m = 1; m <= 40; ++m) ms.push_back(m);
  for (std::uint32_t m : {63u, 64u, 255u, 256u, 257u, 511u, 512u, 1000u, 65536u}) ms.push_back(m);
  return ms;
}

/// Sizes around windows (32), WMS tiles (128), DMS steps (256), BMS tiles (1024) and onesweep tiles of
/// u32 keys and pairs (384 × 20 = 7680; the radix sort's pairs 384 × 23 = 8832).
const std::vector<std::size_t> sizes{0, 1, 31, 32, 33, 127, 129, 1023, 1024, 1025, 4097, 7681, 8833, 70001};
/// More around onesweep tiles, left out of sanitizer runs (7681 and 8833 above cover a second tile there).
const std::vector<std::size_t> onesweep_sizes{7679, 7680, 8831, 8832, 17665};
namespace rs = sluice::detail::onesweep;
static_assert(rs::onesweep_shape<std::uint32_t, sluice::detail::no_values, std::uint32_t, 5, true>::tile == 7680);
static_assert(rs::onesweep_shape<std::uint32_t, std::uint32_t, std::uint32_t, 8, true>::tile == 7680);
static_assert(rs::onesweep_shape<std::uint32_t, std::uint32_t, std::uint32_t, 8>::tile == 8832);

std::vector<std::size_t> sweep_sizes() {
  auto all = sluice::testing::sweep_sizes(sizes);
  if (!sluice::testing::under_sanitizer()) all.insert(all.end(), onesweep_sizes.begin(), onesweep_sizes.end());
  return all;
}

/// One sweep per strategy, so that sanitizer shards share the work.
class MultisplitStrategy : public gpu_test, public ::testing::WithParamInterface<multisplit_algorithm> {};

const multisplit_algorithm every_strategy[] = {
    multisplit_algorithm::dms,        multisplit_algorithm::wms,      multisplit_algorithm::bms,
    multisplit_algorithm::rb_sort,    multisplit_algorithm::automatic, multisplit_algorithm::scan_split,
    multisplit_algorithm::onesweep};

INSTANTIATE_TEST_SUITE_P(Multisplit, MultisplitStrategy, ::testing::ValuesIn(every_strategy),
                         [](const ::testing::TestParamInfo<multisplit_algorithm>& info) {
                           return std::string(sluice::to_string(info.param));
                         });

TEST_P(MultisplitStrategy, EveryBucketCountPairsAndKeys) {
  const multisplit_algorithm algorithm = GetParam();
  for (std::uint32_t m : bucket_counts()) {
    const auto supported = strategies_for(m);
    if (std::find(supported.begin(), supported.end(), algorithm) == supported.end()) continue;
    for (std::size_t n : sweep_sizes()) {
      const auto keys = delta_keys(n, m, n * 131 + m);
      expect_oracle(ctx(), keys, m, sluice::buckets::delta<std::uint32_t>{test_delta},
                    sluice::buckets::delta<std::uint32_t>{test_delta}, algorithm, "delta", m % 8 == 1);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

TEST_F(Multisplit, LargeInput) {
  const std::size_t n = sluice::testing::scaled_size((std::size_t{1} << 22) + 5, 40000);
  for (std::uint32_t m : {2u, 32u, 256u, 1000u})
    for (multisplit_algorithm algorithm : strategies_for(m)) {
      expect_oracle(ctx(), delta_keys(n, m, m), m, sluice::buckets::delta<std::uint32_t>{test_delta},
                    sluice::buckets::delta<std::uint32_t>{test_delta}, algorithm, "large", m == 256);
      if (::testing::Test::HasFatalFailure()) return;
    }
}

TEST_F(Multisplit, SeedDistributions) {
  using sluice::data::distribution;
  struct case_t {
    distribution kind;
    double parameter;
    const char* label;
  };
  const case_t cases[] = {{distribution::uniform, 0.0, "uniform"},
                          {distribution::all_equal, 0.0, "all in one bucket"},
                          {distribution::binomial, 0.0, "binomial"},
                          {distribution::alpha_uniform, 0.25, "0.25-uniform"}};
  const std::size_t n = sluice::testing::scaled_size((std::size_t{1} << 16) + 3, 5000);
  for (const auto& c : cases)
    for (std::uint32_t m : {2u, 32u, 256u, 1000u}) {
      const auto ids = sluice::data::generate_host<std::uint32_t>(n, {c.kind, m, c.parameter, m + 5});
      std::vector<std::uint32_t> keys(n);
      for (std::size_t i = 0; i < n; ++i) keys[i] = ids[i] * test_delta + static_cast<std::uint32_t>(i % test_delta);
      for (multisplit_algorithm algorithm : strategies_for(m)) {
        expect_oracle(ctx(), keys, m, sluice::buckets::delta<std::uint32_t>{test_delta},
                      sluice::buckets::delta<std::uint32_t>{test_delta}, algorithm, c.label);
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
}

TEST_F(Multisplit, ExtremeKeys) {
  std::vector<std::uint32_t> keys(5000);
  for (std::size_t i = 0; i < keys.size(); ++i) keys[i] = (i * 7919) % 3 == 0 ? 0u : ((i % 5) == 0 ? 0xffffffffu : static_cast<std::uint32_t>(i * 2654435761u));
  for (multisplit_algorithm algorithm : strategies_for(16)) {
    expect_oracle(ctx(), keys, 16, sluice::buckets::bit_field{28, 4}, sluice::buckets::bit_field{28, 4}, algorithm, "bit field");
    expect_oracle(ctx(), keys, 16, sluice::buckets::delta<std::uint32_t>{1u << 28}, sluice::buckets::delta<std::uint32_t>{1u << 28},
                  algorithm, "delta 2^28");
    expect_oracle(ctx(), keys, 200, sluice::buckets::identity{}, sluice::buckets::identity{}, algorithm, "identity");
  }
}

/// Not order-preserving: neighbouring keys land in far-apart buckets (exercises the digit passes).
struct scrambled {
  std::uint32_t m;
  __host__ __device__ std::uint32_t operator()(std::uint32_t key) const { return (key * 2654435761u >> 7) % m; }
};
/// A signed id: −2 and −1 and m are dropped.
struct signed_ids {
  int m;
  __host__ __device__ int operator()(std::uint32_t key) const { return static_cast<int>(key % static_cast<std::uint32_t>(m + 3)) - 2; }
};

template <class F>
void expect_oracle_for_functor(sluice::context& ctx, F f, const std::vector<std::uint32_t>& keys) {
  for (multisplit_algorithm algorithm : strategies_for(13)) expect_oracle(ctx, keys, 13, f, f, algorithm, "user lambda");
}

/// An extended lambda needs a public enclosing function (a test body is private).
void user_lambda_case(sluice::context& ctx, const std::vector<std::uint32_t>& keys) {
  expect_oracle_for_functor(ctx, [] __host__ __device__(std::uint32_t key) -> std::uint32_t { return (key >> 5) % 13; },
                            keys);
}

TEST_F(Multisplit, BucketFunctors) {
  const std::size_t n = 20011;
  const auto keys = sluice::data::generate_host<std::uint32_t>(n, {sluice::data::distribution::uniform, 0, 0.0, 3});
  std::vector<std::uint32_t> splitters;
  for (std::uint32_t s = 0; s < 299; ++s) splitters.push_back(s * 14000000u + 977u);
  const sluice::device_buffer<std::uint32_t> d_splitters(ctx(), std::span<const std::uint32_t>(splitters));
  for (std::uint32_t m : {7u, 64u, 300u, 5000u})
    for (multisplit_algorithm algorithm : strategies_for(m)) {
      expect_oracle(ctx(), keys, m, scrambled{m}, scrambled{m}, algorithm, "scrambled");
      expect_oracle(ctx(), keys, m, signed_ids{static_cast<int>(m)}, signed_ids{static_cast<int>(m)}, algorithm, "signed ids");
      expect_oracle(ctx(), keys, m, sluice::buckets::bit_field{3, 9}, sluice::buckets::bit_field{3, 9}, algorithm, "bit field");
      if (m == 300)
        expect_oracle(ctx(), keys, m, sluice::buckets::splitters<std::uint32_t>{d_splitters.data(), 299},
                      sluice::buckets::splitters<std::uint32_t>{splitters.data(), 299}, algorithm, "splitters");
    }
  user_lambda_case(ctx(), keys);
}

/// Host-side, no GPU needed: which functors multisplit trusts never to return an id >= m (ids_always_below).
TEST(MultisplitFunctors, IdsAlwaysBelowOnlyWhereTheFunctorCannotReachM) {
  namespace ms = sluice::detail::multisplit;
  EXPECT_TRUE(ms::ids_always_below<std::uint32_t>(sluice::buckets::bit_field{3, 5}, 32));
  EXPECT_TRUE(ms::ids_always_below<std::uint32_t>(sluice::buckets::bit_field{3, 5}, 33));
  EXPECT_FALSE(ms::ids_always_below<std::uint32_t>(sluice::buckets::bit_field{3, 5}, 31));
  EXPECT_FALSE(ms::ids_always_below<std::uint64_t>(sluice::buckets::bit_field{0, 64}, 511));
  EXPECT_TRUE(ms::ids_always_below<std::uint8_t>(sluice::buckets::identity{}, 256));
  EXPECT_FALSE(ms::ids_always_below<std::uint8_t>(sluice::buckets::identity{}, 255));
  EXPECT_FALSE(ms::ids_always_below<std::int8_t>(sluice::buckets::identity{}, 256));  // negative ids drop
  EXPECT_FALSE(ms::ids_always_below<std::uint32_t>(sluice::buckets::identity{}, 511));
  EXPECT_TRUE(ms::ids_always_below<std::uint32_t>(sluice::buckets::splitters<std::uint32_t>{nullptr, 31}, 32));
  EXPECT_FALSE(ms::ids_always_below<std::uint32_t>(sluice::buckets::splitters<std::uint32_t>{nullptr, 31}, 31));
  EXPECT_TRUE(ms::ids_always_below<std::uint8_t>(sluice::buckets::delta<std::uint8_t>{8}, 32));
  EXPECT_FALSE(ms::ids_always_below<std::uint8_t>(sluice::buckets::delta<std::uint8_t>{8}, 31));
  EXPECT_FALSE(ms::ids_always_below<std::uint8_t>(sluice::buckets::delta<std::uint8_t>{0}, 300));
  EXPECT_FALSE(ms::ids_always_below<std::uint32_t>(sluice::buckets::delta<std::uint32_t>{1000}, 511));
  EXPECT_FALSE(ms::ids_always_below<std::uint32_t>(scrambled{13}, 13));  // any other functor: may drop
}

/// Functors whose ids are below m by construction rank no drop digit in onesweep: m = 2^bits fills the
/// width (32, 64, 256 digits), and a partial tile's padding takes the last bucket's digit, ranked behind
/// every key (sizes around the tiles). Keys and pairs, against the oracle.
TEST_F(Multisplit, FunctorsThatNeverDropFillTheirDigitWidth) {
  const auto onesweep = multisplit_algorithm::onesweep;
  for (std::size_t n : sweep_sizes()) {
    const auto keys = sluice::data::generate_host<std::uint32_t>(n, {sluice::data::distribution::uniform, 0, 0.0, n + 7});
    for (int bits : {1, 5, 6, 8}) {
      const sluice::buckets::bit_field field{7, bits};
      expect_oracle(ctx(), keys, 1u << bits, field, field, onesweep, "bit field", true);
      if (::testing::Test::HasFatalFailure()) return;
    }
    const sluice::buckets::bit_field narrower{20, 4};  // ids < 16 of m = 32
    expect_oracle(ctx(), keys, 32, narrower, narrower, onesweep, "narrower bit field", true);
    std::vector<std::uint8_t> bytes(n);
    for (std::size_t i = 0; i < n; ++i) bytes[i] = static_cast<std::uint8_t>(keys[i] >> 11);
    expect_oracle(ctx(), bytes, 256, sluice::buckets::identity{}, sluice::buckets::identity{}, onesweep, "u8 identity", true);
    expect_oracle(ctx(), bytes, 32, sluice::buckets::delta<std::uint8_t>{8}, sluice::buckets::delta<std::uint8_t>{8}, onesweep,
                  "u8 delta", true);
    if (::testing::Test::HasFatalFailure()) return;
  }
  std::vector<std::uint32_t> splitters;
  for (std::uint32_t s = 1; s <= 31; ++s) splitters.push_back(s * 130000000u);
  const sluice::device_buffer<std::uint32_t> d_splitters(ctx(), std::span<const std::uint32_t>(splitters));
  const auto keys = sluice::data::generate_host<std::uint32_t>(17665, {sluice::data::distribution::uniform, 0, 0.0, 5});
  expect_oracle(ctx(), keys, 32, sluice::buckets::splitters<std::uint32_t>{d_splitters.data(), 31},
                sluice::buckets::splitters<std::uint32_t>{splitters.data(), 31}, onesweep, "splitters", true);
}

TEST_F(Multisplit, WideKeysAndValues) {
  const std::size_t n = 9001;
  const auto keys = sluice::data::generate_host<std::uint64_t>(n, {sluice::data::distribution::uniform, 600, 0.0, 9});
  for (std::uint32_t m : {200u, 500u})  // onesweep at 200: u64 tiles of 384 × 15 = 5760 pairs
    for (multisplit_algorithm algorithm : strategies_for(m)) {
      expect_oracle(ctx(), keys, m, sluice::buckets::identity{}, sluice::buckets::identity{}, algorithm, "u64 keys",
                    true);
      if (::testing::Test::HasFatalFailure()) return;
    }
}

/// 40 bytes: more than the direct strategies stage, so automatic takes RB-sort and they refuse.
struct wide_value {
  std::uint64_t words[5];
  friend bool operator==(const wide_value&, const wide_value&) = default;
};

TEST_F(Multisplit, ElementsBeyondTheDirectStagingGoToRbSort) {
  const std::size_t n = 3000;
  const auto keys = delta_keys(n, 20, 4);
  std::vector<wide_value> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = {{i, i + 1, i + 2, i + 3, i + 4}};
  const auto expected = sluice::reference::multisplit_pairs(std::span<const std::uint32_t>(keys),
                                                            std::span<const wide_value>(values), 20,
                                                            sluice::buckets::delta<std::uint32_t>{test_delta});
  const sluice::device_buffer<std::uint32_t> d_keys(ctx(), std::span<const std::uint32_t>(keys));
  const sluice::device_buffer<wide_value> d_values(ctx(), std::span<const wide_value>(values));
  sluice::device_buffer<std::uint32_t> out_keys(ctx(), n);
  sluice::device_buffer<wide_value> out_values(ctx(), n);
  sluice::device_buffer<std::size_t> dropped(ctx(), 1);
  out_values.fill_bytes(0xA5);
  sluice::multisplit_pairs(ctx(), d_keys.span(), d_values.span(), out_keys.span(), out_values.span(), 20,
                           sluice::buckets::delta<std::uint32_t>{test_delta}, {}, dropped.data());
  auto got = out_values.to_host();
  got.resize(n - dropped.to_host()[0]);
  EXPECT_TRUE(all_equal(got, expected.values));
  sluice::testing::expect_invalid_argument(
      [&] {
        sluice::multisplit_pairs(ctx(), d_keys.span(), d_values.span(), out_keys.span(), out_values.span(), 20,
                                 sluice::buckets::delta<std::uint32_t>{test_delta}, {}, nullptr,
                                 {multisplit_algorithm::bms});
      },
      "options");
}

TEST_F(Multisplit, StrictModeNamesTheFirstBadIndex) {
  std::vector<std::uint32_t> keys(10000, 5);
  keys[7777] = 40000;
  keys[9000] = 50000;
  const sluice::device_buffer<std::uint32_t> d_keys(ctx(), std::span<const std::uint32_t>(keys));
  sluice::device_buffer<std::uint32_t> out(ctx(), keys.size());
  for (multisplit_algorithm algorithm : strategies_for(2)) {  // ids 0, 40 and 50: the first bad one at 7777
    const sluice::multisplit_options strict{algorithm, true};
    sluice::testing::expect_invalid_argument(
        [&] { sluice::multisplit(ctx(), d_keys.span(), out.span(), 2, sluice::buckets::delta<std::uint32_t>{1000}, {}, nullptr, strict); },
        "keys", std::size_t{7777});
  }
  const sluice::multisplit_options strict{multisplit_algorithm::automatic, true};
  sluice::multisplit(ctx(), d_keys.span(), out.span(), 51, sluice::buckets::delta<std::uint32_t>{1000}, {}, nullptr, strict);
  ctx().synchronize();
}

TEST_F(Multisplit, BadArgumentsAreRejected) {
  sluice::device_buffer<std::uint32_t> a(ctx(), 100), b(ctx(), 100), c(ctx(), 99);
  sluice::device_buffer<std::size_t> offsets(ctx(), 5);
  const sluice::buckets::identity id{};
  using sluice::testing::expect_invalid_argument;
  expect_invalid_argument([&] { sluice::multisplit(ctx(), a.span(), b.span(), 0, id); }, "m");
  expect_invalid_argument([&] { sluice::multisplit(ctx(), a.span().first(0), b.span().first(0), 0, id); }, "m");
  expect_invalid_argument([&] { sluice::multisplit(ctx(), a.span(), c.span(), 4, id); }, "out_keys");
  expect_invalid_argument([&] { sluice::multisplit(ctx(), a.span(), b.span(), 3, id, offsets.span()); }, "bucket_offsets");
  expect_invalid_argument([&] { sluice::multisplit(ctx(), a.span(), a.span(), 4, id); }, "out_keys");
  expect_invalid_argument([&] { sluice::multisplit(ctx(), a.span(), b.span(), 3, id, {}, nullptr, {multisplit_algorithm::scan_split}); },
                          "options");
  for (std::uint32_t m : {512u, 513u})
    expect_invalid_argument([&] { sluice::multisplit(ctx(), a.span(), b.span(), m, id, {}, nullptr, {multisplit_algorithm::onesweep}); },
                            "options");
  expect_invalid_argument([&] { sluice::multisplit_pairs(ctx(), a.span(), c.span(), b.span(), c.span(), 4, id); }, "values");
  std::vector<std::uint32_t> host(100);
  expect_invalid_argument(
      [&] { sluice::multisplit(ctx(), cuda::std::span<const std::uint32_t>(host.data(), host.size()), b.span(), 4, id); }, "keys");
}

TEST_F(Multisplit, EmptyInputWritesZeroOffsets) {
  sluice::device_buffer<std::uint32_t> a(ctx(), 0), b(ctx(), 0);
  sluice::device_buffer<std::size_t> offsets(ctx(), 4), dropped(ctx(), 1);
  for (multisplit_algorithm algorithm : strategies_for(3)) {
    offsets.fill_bytes(0xA5);
    dropped.fill_bytes(0xA5);
    sluice::multisplit(ctx(), a.span(), b.span(), 3, sluice::buckets::identity{}, offsets.span(), dropped.data(), {algorithm});
    EXPECT_EQ(offsets.to_host(), (std::vector<std::size_t>{0, 0, 0, 0})) << sluice::to_string(algorithm);
    EXPECT_EQ(dropped.to_host()[0], 0u) << sluice::to_string(algorithm);
  }
}

TEST_F(Multisplit, LargeBeyond32BitIndexing) {
  const std::size_t n = (std::size_t{1} << 31) + 5;
  if (sluice::testing::under_sanitizer()) GTEST_SKIP() << "too large under a sanitizer";
  if (ctx().properties().global_memory_bytes < 4 * n) GTEST_SKIP() << "needs " << 4 * n << " bytes of device memory";
  const sluice::data::distribution_spec spec{sluice::data::distribution::uniform, 5, 0.0, 23};  // id 4 is dropped
  sluice::device_buffer<std::uint8_t> keys(ctx(), n), out(ctx(), n);
  sluice::data::generate(ctx(), keys.span(), spec);
  sluice::device_buffer<std::size_t> offsets(ctx(), 5), dropped(ctx(), 1);
  const auto host = sluice::data::generate_host<std::uint8_t>(n, spec);
  std::vector<std::size_t> count(5, 0);
  for (std::uint8_t k : host) ++count[k];
  const std::vector<std::size_t> expected{0, count[0], count[0] + count[1], count[0] + count[1] + count[2],
                                          n - count[4]};
  // onesweep: 64-bit offsets and 9 portions of 2^28 keys, each handing the next its bucket starts.
  for (multisplit_algorithm algorithm : {multisplit_algorithm::automatic, multisplit_algorithm::onesweep}) {
    out.fill_bytes(0xA5);
    sluice::multisplit(ctx(), keys.span(), out.span(), 4, sluice::buckets::identity{}, offsets.span(), dropped.data(),
                       {algorithm});
    EXPECT_EQ(offsets.to_host(), expected) << sluice::to_string(algorithm);
    EXPECT_EQ(dropped.to_host()[0], count[4]) << sluice::to_string(algorithm);
    const auto got = out.to_host();
    for (std::uint32_t b = 0; b < 4; ++b)
      for (std::size_t i = expected[b]; i < expected[b + 1]; ++i)
        if (got[i] != b) FAIL() << sluice::to_string(algorithm) << ": out[" << i << "] = " << int{got[i]} << ", expected bucket " << b;
  }
}

}  // namespace
