// GPU tests of the core runtime: context and pool, device_buffer, host-pointer rejection, errors.
#include <sluice/core/context.hpp>
#include <sluice/core/device_buffer.hpp>
#include <sluice/core/memory.hpp>
#include <sluice/data/generate.cuh>

#include "support/compare.hpp"
#include "support/gpu_test.hpp"

#include <numeric>
#include <vector>

namespace {

using sluice::testing::gpu_test;

class CoreRuntime : public gpu_test {};

TEST_F(CoreRuntime, PropertiesAreReadFromTheDevice) {
  const auto& p = ctx().properties();
  EXPECT_FALSE(p.name.empty());
  EXPECT_GT(p.sm_count, 0);
  EXPECT_GT(p.l2_cache_bytes, 0u);
  EXPECT_GE(p.shared_memory_per_block_optin, p.shared_memory_per_block);
  EXPECT_GT(p.theoretical_bandwidth(), 1e11);  // any current datacentre GPU moves > 100 GB/s
}

TEST_F(CoreRuntime, BufferRoundTripsHostData) {
  std::vector<int> host(100003);
  std::iota(host.begin(), host.end(), -50000);
  sluice::device_buffer<int> buffer(ctx(), std::span<const int>(host));
  EXPECT_EQ(buffer.size(), host.size());
  EXPECT_TRUE(sluice::testing::all_equal(buffer.to_host(), host));
}

TEST_F(CoreRuntime, BufferMovesAndPoisons) {
  sluice::device_buffer<std::uint32_t> a(ctx(), 1000);
  a.fill_bytes(0xA5);
  sluice::device_buffer<std::uint32_t> b = std::move(a);
  EXPECT_EQ(a.size(), 0u);
  EXPECT_EQ(a.data(), nullptr);
  const auto host = b.to_host();
  EXPECT_TRUE(sluice::testing::all_equal(host, std::vector<std::uint32_t>(1000, 0xA5A5A5A5u)));
}

TEST_F(CoreRuntime, TruncateKeepsThePrefixAndRefusesToGrow) {
  std::vector<int> host(1000);
  std::iota(host.begin(), host.end(), 7);
  sluice::device_buffer<int> buffer(ctx(), std::span<const int>(host));
  const int* data = buffer.data();
  buffer.truncate(333);
  EXPECT_EQ(buffer.size(), 333u);
  EXPECT_EQ(buffer.data(), data);
  EXPECT_TRUE(sluice::testing::all_equal(buffer.to_host(), std::vector<int>(host.begin(), host.begin() + 333)));
  EXPECT_THROW(buffer.truncate(334), sluice::invalid_argument);
  buffer.truncate(0);
  EXPECT_TRUE(buffer.empty());
  EXPECT_TRUE(buffer.to_host().empty());
}

TEST_F(CoreRuntime, EmptyBufferIsValid) {
  sluice::device_buffer<double> empty(ctx(), 0);
  EXPECT_TRUE(empty.empty());
  EXPECT_TRUE(empty.to_host().empty());
}

TEST_F(CoreRuntime, CopyFromHostChecksTheSize) {
  sluice::device_buffer<int> buffer(ctx(), 4);
  const std::vector<int> wrong(5, 1);
  EXPECT_THROW(buffer.copy_from_host(wrong), sluice::invalid_argument);
}

TEST_F(CoreRuntime, HostPointersAreRejectedByName) {
  std::vector<int> pageable(16);
  try {
    sluice::require_device_memory(ctx(), pageable.data(), 64, "reduce", "in");
    FAIL() << "a pageable host pointer was accepted";
  } catch (const sluice::invalid_argument& e) {
    EXPECT_EQ(e.parameter(), "in");
    EXPECT_NE(std::string(e.what()).find("host"), std::string::npos);
  }
  int* pinned = nullptr;
  ASSERT_EQ(cudaMallocHost(&pinned, 64), cudaSuccess);
  EXPECT_THROW(sluice::require_device_memory(ctx(), pinned, 64, "reduce", "in"), sluice::invalid_argument);
  cudaFreeHost(pinned);
  EXPECT_THROW(sluice::require_device_memory(ctx(), nullptr, 4, "reduce", "out"), sluice::invalid_argument);
  EXPECT_NO_THROW(sluice::require_device_memory(ctx(), nullptr, 0, "reduce", "in"));  // empty range
  sluice::device_buffer<int> device(ctx(), 16);
  EXPECT_NO_THROW(sluice::require_device_memory(ctx(), device.span(), "reduce", "in"));
}

// Tests named *ApiError* make runtime calls fail on purpose; the sanitizer runs leave them out.
TEST_F(CoreRuntime, ApiErrorCarriesTheCallSite) {
  try {
    SLUICE_CUDA_CHECK(cudaSetDevice(-1));
    FAIL() << "cudaSetDevice(-1) did not fail";
  } catch (const sluice::cuda_error& e) {
    EXPECT_EQ(e.code(), cudaErrorInvalidDevice);
    EXPECT_NE(e.call_site().find("core_runtime_test.cu"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("cudaSetDevice"), std::string::npos);
  }
}

TEST_F(CoreRuntime, ApiErrorImpossibleAllocationIsOutOfMemoryAndRecoverable) {
  const std::size_t too_much = ctx().properties().global_memory_bytes * 4;
  EXPECT_THROW(
      {
        sluice::device_buffer<char> huge(ctx(), too_much);
        ctx().synchronize();
      },
      sluice::out_of_memory);
  // The failed allocation must not surface again as the error of the next kernel launch.
  sluice::device_buffer<std::uint32_t> after(ctx(), 1000);
  EXPECT_NO_THROW(sluice::data::generate(ctx(), after.span(), {}));
  EXPECT_NO_THROW(ctx().synchronize());
}

TEST_F(CoreRuntime, PoolReusesFreedMemory) {
  // The pool keeps what was freed (release threshold), so a same-sized allocation comes back without
  // growing the pool's reservation.
  {
    sluice::device_buffer<char> warm(ctx(), 64 << 20);
  }
  ctx().synchronize();
  std::uint64_t reserved_before = 0, reserved_after = 0;
  ASSERT_EQ(cudaMemPoolGetAttribute(ctx().memory_pool(), cudaMemPoolAttrReservedMemCurrent, &reserved_before),
            cudaSuccess);
  {
    sluice::device_buffer<char> again(ctx(), 64 << 20);
  }
  ctx().synchronize();
  ASSERT_EQ(cudaMemPoolGetAttribute(ctx().memory_pool(), cudaMemPoolAttrReservedMemCurrent, &reserved_after),
            cudaSuccess);
  EXPECT_EQ(reserved_after, reserved_before);
  EXPECT_GE(reserved_after, std::uint64_t{64} << 20);
}

TEST_F(CoreRuntime, PrivatePoolContextWorksOnItsOwnStream) {
  sluice::context own(0, sluice::context_options{.release_threshold = 0, .private_pool = true});
  EXPECT_NE(own.memory_pool(), ctx().memory_pool());
  sluice::device_buffer<int> buffer(own, std::span<const int>(std::vector<int>{1, 2, 3}));
  EXPECT_TRUE(sluice::testing::all_equal(buffer.to_host(), std::vector<int>{1, 2, 3}));
}

}  // namespace
