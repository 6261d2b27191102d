// GPU tests of containers/slab_alloc.cuh (Ashkiani §5.5), both variants: warps allocate distinct units of
// the pool, one a warp call or one a lane (allocate_each; each unit written with its owner's signature and
// read back intact), the units-in-use count
// follows allocations and frees, a freed unit is taken again, resident changes and the sweep find every
// unit of a pool one warp fills alone, exhaustion gives empty_address (never a wild pointer) and a host
// exception once, growth keeps what the units hold (light: the array moves), bad and double frees are
// reported without a write, and a moved-from pool throws.
#include <sluice/containers/slab_alloc.cuh>

#include "support/errors.hpp"
#include "support/gpu_test.hpp"

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace {

using sluice::slab_alloc;
using sluice::slab_alloc_variant;
using sluice::testing::gpu_test;

class SlabAlloc : public gpu_test, public ::testing::WithParamInterface<slab_alloc_variant> {};

/// The word lane `lane` of warp `warp` writes into its j-th unit.
__host__ __device__ std::uint32_t signature(std::uint32_t warp, std::uint32_t j, std::uint32_t lane) {
  return (warp * 7919u + j * 104729u) ^ (lane << 24) ^ 0x5A5A5A5Au;
}

/// Every warp allocates `per_warp` units; out[warp · per_warp + j] is the j-th address (or empty); each
/// unit gets the warp's signature, one word a lane.
__global__ void allocate_kernel(slab_alloc::ref_type pool, std::uint32_t per_warp, std::uint32_t* out) {
  slab_alloc::warp_allocator alloc(pool);
  const std::uint32_t warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  for (std::uint32_t j = 0; j < per_warp; ++j) {
    const std::uint32_t address = alloc.allocate();
    if (lane == 0) out[warp * per_warp + j] = address;
    if (address != slab_alloc::empty_address) pool.unit(address)->words[lane] = signature(warp, j, lane);
  }
}

/// Lanes that want a unit in allocate_each_kernel's round: two of every three.
__host__ __device__ constexpr bool wants_in_round(std::uint32_t lane, std::uint32_t round) {
  return lane % 3 != round % 3;
}

/// Every warp calls allocate_each() `rounds` times, the lanes of `wants_in_round` wanting a unit, so
/// out[warp · rounds · 32 + round · 32 + lane] is the lane's address or empty; each unit gets its owner's
/// signature (allocation j = round · 32 + lane), all 32 words written by its lane.
__global__ void allocate_each_kernel(slab_alloc::ref_type pool, std::uint32_t rounds, std::uint32_t* out) {
  slab_alloc::warp_allocator alloc(pool);
  const std::uint32_t warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  for (std::uint32_t round = 0; round < rounds; ++round) {
    const std::uint32_t j = round * 32 + lane;
    const std::uint32_t address = alloc.allocate_each(wants_in_round(lane, round));
    out[warp * rounds * 32 + j] = address;
    if (address != slab_alloc::empty_address)
      for (std::uint32_t w = 0; w < 32; ++w) pool.unit(address)->words[w] = signature(warp, j, w);
  }
}

/// out[i · 32 + w] = word w of the unit at addresses[i] (0 for empty addresses).
__global__ void read_units_kernel(slab_alloc::ref_type pool, const std::uint32_t* addresses, std::size_t n,
                                  std::uint32_t* out) {
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (i >= n * 32) return;
  const std::uint32_t address = addresses[i / 32];
  out[i] = address == slab_alloc::empty_address ? 0u : pool.unit(address)->words[i % 32];
}

/// Resets each unit to 0xFF bytes and frees it (one thread a unit; empty addresses skipped).
__global__ void free_kernel(slab_alloc::ref_type pool, const std::uint32_t* addresses, std::size_t n) {
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (i >= n || addresses[i] == slab_alloc::empty_address) return;
  for (auto& word : pool.unit(addresses[i])->words) word = 0xFFFFFFFFu;
  pool.deallocate(addresses[i]);
}

/// One thread frees `address` as it is (for the bad-free reports).
__global__ void free_one_kernel(slab_alloc::ref_type pool, std::uint32_t address) { pool.deallocate(address); }

struct run {
  std::vector<std::uint32_t> addresses;  ///< warp-major
  std::uint32_t warps;
  std::uint32_t per_warp;
};

run allocate(sluice::context& ctx, slab_alloc& pool, std::uint32_t warps, std::uint32_t per_warp) {
  sluice::device_buffer<std::uint32_t> out(ctx, std::size_t{warps} * per_warp);
  out.fill_bytes(0xA5);
  allocate_kernel<<<warps, 32, 0, ctx.stream()>>>(pool.ref(), per_warp, out.data());
  SLUICE_CHECK_LAUNCH();
  return {out.to_host(), warps, per_warp};
}

/// allocate_each_kernel over `warps` warps (per_warp = rounds · 32 entries a warp).
run allocate_each(sluice::context& ctx, slab_alloc& pool, std::uint32_t warps, std::uint32_t rounds) {
  sluice::device_buffer<std::uint32_t> out(ctx, std::size_t{warps} * rounds * 32);
  out.fill_bytes(0xA5);
  allocate_each_kernel<<<warps, 32, 0, ctx.stream()>>>(pool.ref(), rounds, out.data());
  SLUICE_CHECK_LAUNCH();
  return {out.to_host(), warps, rounds * 32};
}

/// Every successful address is the pool's, distinct, and its unit still holds its owner's signature.
void expect_distinct_and_intact(sluice::context& ctx, const slab_alloc& pool, const run& r, const std::string& what) {
  const auto ref = pool.ref();
  std::set<std::uint32_t> seen;
  for (std::uint32_t a : r.addresses) {
    if (a == slab_alloc::empty_address) continue;
    ASSERT_TRUE(sluice::detail::slab_alloc::is_unit_of(a, ref.super_blocks, ref.blocks_per_super_block))
        << what << ": address " << std::hex << a << " is not the pool's";
    ASSERT_TRUE(seen.insert(a).second) << what << ": address " << std::hex << a << " given twice";
  }
  const sluice::device_buffer<std::uint32_t> addresses(ctx, std::span<const std::uint32_t>(r.addresses));
  sluice::device_buffer<std::uint32_t> words(ctx, r.addresses.size() * 32);
  const std::size_t threads = 256, blocks = (words.size() + threads - 1) / threads;
  if (blocks == 0) return;
  read_units_kernel<<<static_cast<unsigned>(blocks), threads, 0, ctx.stream()>>>(ref, addresses.data(),
                                                                                 r.addresses.size(), words.data());
  SLUICE_CHECK_LAUNCH();
  const auto host = words.to_host();
  for (std::uint32_t w = 0; w < r.warps; ++w)
    for (std::uint32_t j = 0; j < r.per_warp; ++j) {
      const std::size_t i = std::size_t{w} * r.per_warp + j;
      if (r.addresses[i] == slab_alloc::empty_address) continue;
      for (std::uint32_t lane = 0; lane < 32; ++lane)
        ASSERT_EQ(host[i * 32 + lane], signature(w, j, lane))
            << what << ": unit " << std::hex << r.addresses[i] << " of warp " << std::dec << w << ", allocation " << j
            << ", word " << lane << " was overwritten (a unit given to two warps?)";
    }
}

std::size_t successes(const run& r) {
  return static_cast<std::size_t>(
      std::count_if(r.addresses.begin(), r.addresses.end(), [](std::uint32_t a) { return a != slab_alloc::empty_address; }));
}

void free_all(sluice::context& ctx, slab_alloc& pool, const run& r) {
  const sluice::device_buffer<std::uint32_t> addresses(ctx, std::span<const std::uint32_t>(r.addresses));
  const std::size_t threads = 256, blocks = (r.addresses.size() + threads - 1) / threads;
  if (blocks == 0) return;
  free_kernel<<<static_cast<unsigned>(blocks), threads, 0, ctx.stream()>>>(pool.ref(), addresses.data(),
                                                                          r.addresses.size());
  SLUICE_CHECK_LAUNCH();
}

std::string name_of(slab_alloc_variant v) { return std::string(sluice::to_string(v)); }

TEST_P(SlabAlloc, ConstructionGivesAFreePool) {
  slab_alloc pool(ctx(), {.variant = GetParam(), .blocks_per_super_block = 4, .super_blocks = 3});
  EXPECT_EQ(pool.capacity(), 3u * 4u * 1024u);
  EXPECT_EQ(pool.super_blocks(), 3u);
  EXPECT_EQ(pool.units_in_use(ctx()), 0u);
  EXPECT_NO_THROW(pool.check_status(ctx()));
}

TEST_P(SlabAlloc, WarpsGetDistinctUnitsAndTheCountFollows) {
  const std::string what = name_of(GetParam());
  slab_alloc pool(ctx(), {.variant = GetParam(), .blocks_per_super_block = 16, .super_blocks = 4});
  const std::uint32_t warps = sluice::testing::under_sanitizer() ? 64 : 2048, per_warp = 12;
  const run r = allocate(ctx(), pool, warps, per_warp);
  ASSERT_EQ(successes(r), std::size_t{warps} * per_warp) << what << ": the pool has room for every allocation";
  expect_distinct_and_intact(ctx(), pool, r, what);
  EXPECT_EQ(pool.units_in_use(ctx()), std::uint64_t{warps} * per_warp) << what;
  free_all(ctx(), pool, r);
  EXPECT_EQ(pool.units_in_use(ctx()), 0u) << what << ": after freeing every unit";
  EXPECT_NO_THROW(pool.check_status(ctx())) << what;
  // Freed units are taken again.
  const run again = allocate(ctx(), pool, warps, per_warp);
  EXPECT_EQ(successes(again), std::size_t{warps} * per_warp) << what;
  expect_distinct_and_intact(ctx(), pool, again, what);
}

TEST_P(SlabAlloc, AllocateEachGivesEveryWantingLaneItsOwnUnit) {
  // Two lanes in three want a unit each round; the others must get empty_address and cost nothing.
  const std::string what = name_of(GetParam()) + ", allocate_each";
  slab_alloc pool(ctx(), {.variant = GetParam(), .blocks_per_super_block = 16, .super_blocks = 4});
  const std::uint32_t warps = sluice::testing::under_sanitizer() ? 32 : 1024, rounds = 5;
  const run r = allocate_each(ctx(), pool, warps, rounds);
  std::size_t wanted = 0;
  for (std::uint32_t w = 0; w < warps; ++w)
    for (std::uint32_t round = 0; round < rounds; ++round)
      for (std::uint32_t lane = 0; lane < 32; ++lane) {
        const std::uint32_t a = r.addresses[(std::size_t{w} * rounds + round) * 32 + lane];
        if (!wants_in_round(lane, round)) {
          ASSERT_EQ(a, slab_alloc::empty_address) << what << ": warp " << w << ", lane " << lane << " wanted none";
        } else {
          ASSERT_NE(a, slab_alloc::empty_address) << what << ": warp " << w << ", round " << round << ", lane " << lane;
          ++wanted;
        }
      }
  expect_distinct_and_intact(ctx(), pool, r, what);
  EXPECT_EQ(pool.units_in_use(ctx()), wanted) << what;
  free_all(ctx(), pool, r);
  EXPECT_EQ(pool.units_in_use(ctx()), 0u) << what << ": after freeing every unit";
  EXPECT_NO_THROW(pool.check_status(ctx())) << what;
}

TEST_P(SlabAlloc, AllocateEachUnderExhaustionGivesExactlyTheCapacity) {
  // One memory block (1024 units), 64 warps asking 21 or 22 units each round for 3 rounds (4096 asks):
  // every unit handed out once, the rest empty, the flag raised.
  const std::string what = name_of(GetParam()) + ", allocate_each";
  slab_alloc pool(ctx(),
                  {.variant = GetParam(), .blocks_per_super_block = 1, .super_blocks = 1, .max_super_blocks = 1});
  const run r = allocate_each(ctx(), pool, 64, 3);
  EXPECT_EQ(successes(r), 1024u) << what;
  expect_distinct_and_intact(ctx(), pool, r, what);
  EXPECT_EQ(pool.units_in_use(ctx()), 1024u) << what;
  EXPECT_THROW(pool.check_status(ctx()), sluice::out_of_memory) << what;
}

TEST_P(SlabAlloc, OneWarpFindsEveryUnitThroughResidentChanges) {
  // 4 super blocks of 2 memory blocks: the warp's hashed changes revisit full blocks, the sweep finds the
  // rest; all 8192 units come out distinct, then the 8193rd allocation reports exhaustion.
  const std::string what = name_of(GetParam());
  slab_alloc pool(ctx(), {.variant = GetParam(), .blocks_per_super_block = 2, .super_blocks = 4, .max_super_blocks = 4});
  const run r = allocate(ctx(), pool, 1, 8193);
  EXPECT_EQ(successes(r), 8192u) << what;
  EXPECT_EQ(r.addresses.back(), slab_alloc::empty_address) << what << ": the allocation past the pool";
  expect_distinct_and_intact(ctx(), pool, r, what);
  EXPECT_EQ(pool.units_in_use(ctx()), 8192u) << what;
  EXPECT_THROW(pool.check_status(ctx()), sluice::out_of_memory) << what;
  EXPECT_NO_THROW(pool.check_status(ctx())) << what << ": the flag is cleared once reported";
}

TEST_P(SlabAlloc, ExhaustionUnderContentionGivesExactlyTheCapacity) {
  const std::string what = name_of(GetParam());
  slab_alloc pool(ctx(), {.variant = GetParam(), .blocks_per_super_block = 1, .super_blocks = 1, .max_super_blocks = 1});
  const run r = allocate(ctx(), pool, 64, 32);  // 2048 asks of a 1024-unit pool
  EXPECT_EQ(successes(r), 1024u) << what;
  expect_distinct_and_intact(ctx(), pool, r, what);
  EXPECT_THROW(pool.check_status(ctx()), sluice::out_of_memory) << what;
  // Growth past max_super_blocks is refused before anything changes.
  EXPECT_THROW(pool.reserve(ctx(), 1025), sluice::out_of_memory) << what;
  EXPECT_EQ(pool.capacity(), 1024u) << what;
}

TEST_P(SlabAlloc, GrowthKeepsTheUnitsAndAddsRoom) {
  const std::string what = name_of(GetParam());
  slab_alloc pool(ctx(), {.variant = GetParam(), .blocks_per_super_block = 1, .super_blocks = 1, .max_super_blocks = 9});
  const run first = allocate(ctx(), pool, 32, 32);  // fills the one super block
  EXPECT_EQ(successes(first), 1024u) << what;
  (void)pool.take_status(ctx());
  pool.reserve(ctx(), 5 * 1024);
  EXPECT_EQ(pool.capacity(), 5u * 1024u) << what;
  expect_distinct_and_intact(ctx(), pool, first, what + ", after growth");  // light: the array was copied
  const run second = allocate(ctx(), pool, 128, 32);
  EXPECT_EQ(successes(second), 4096u) << what;
  expect_distinct_and_intact(ctx(), pool, second, what + ", grown");
  std::set<std::uint32_t> all(first.addresses.begin(), first.addresses.end());
  for (std::uint32_t a : second.addresses) EXPECT_TRUE(all.insert(a).second) << what << ": " << std::hex << a;
  EXPECT_EQ(pool.units_in_use(ctx()), 5u * 1024u) << what;
  pool.reset(ctx());
  EXPECT_EQ(pool.units_in_use(ctx()), 0u) << what << ": after reset";
}

TEST_P(SlabAlloc, BadAndDoubleFreesAreReportedNotWritten) {
  const std::string what = name_of(GetParam());
  slab_alloc pool(ctx(), {.variant = GetParam(), .blocks_per_super_block = 2, .super_blocks = 1});
  const run r = allocate(ctx(), pool, 1, 3);
  free_one_kernel<<<1, 1, 0, ctx().stream()>>>(pool.ref(), sluice::detail::slab_alloc::encode_address({1, 0, 0}));
  EXPECT_THROW(pool.check_status(ctx()), sluice::error) << what << ": super block 1 does not exist";
  free_one_kernel<<<1, 1, 0, ctx().stream()>>>(pool.ref(), slab_alloc::empty_address);
  EXPECT_THROW(pool.check_status(ctx()), sluice::error) << what << ": the empty address";
  free_all(ctx(), pool, r);
  EXPECT_NO_THROW(pool.check_status(ctx())) << what;
  free_one_kernel<<<1, 1, 0, ctx().stream()>>>(pool.ref(), r.addresses[0]);
  EXPECT_THROW(pool.check_status(ctx()), sluice::error) << what << ": double free";
  EXPECT_EQ(pool.units_in_use(ctx()), 0u) << what;
}

TEST_P(SlabAlloc, MovedFromPoolThrows) {
  slab_alloc pool(ctx(), {.variant = GetParam(), .blocks_per_super_block = 1});
  slab_alloc other = std::move(pool);
  sluice::testing::expect_invalid_argument([&] { (void)pool.capacity(); }, "*this");
  sluice::testing::expect_invalid_argument([&] { (void)pool.ref(); }, "*this");
  sluice::testing::expect_invalid_argument([&] { pool.reserve(ctx(), 1); }, "*this");
  EXPECT_EQ(other.capacity(), 1024u);
  pool = std::move(other);
  EXPECT_EQ(pool.units_in_use(ctx()), 0u);
}

class SlabAllocOptions : public gpu_test {};

TEST_F(SlabAllocOptions, BadOptionsAreRejected) {
  using sluice::testing::expect_invalid_argument;
  expect_invalid_argument([&] { slab_alloc p(ctx(), {.blocks_per_super_block = 16385}); }, "options.blocks_per_super_block");
  expect_invalid_argument([&] { slab_alloc p(ctx(), {.max_super_blocks = 256}); }, "options.max_super_blocks");
  expect_invalid_argument([&] { slab_alloc p(ctx(), {.max_super_blocks = 0}); }, "options.max_super_blocks");
  expect_invalid_argument([&] { slab_alloc p(ctx(), {.super_blocks = 0}); }, "options.super_blocks");
  expect_invalid_argument([&] { slab_alloc p(ctx(), {.super_blocks = 3, .max_super_blocks = 2}); }, "options.super_blocks");
}

INSTANTIATE_TEST_SUITE_P(Variants, SlabAlloc, ::testing::Values(slab_alloc_variant::light, slab_alloc_variant::regular),
                         [](const auto& info) { return name_of(info.param); });

}  // namespace
