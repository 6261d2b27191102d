// Resident blocks and M_o (src/model/occupancy.hpp) against NVIDIA's own occupancy calculator
// (cuda_occupancy.h, host code shipped with the toolkit) on the sm_90 limits of an H100, over a grid of
// block sizes, register counts and shared-memory sizes, and on the launch shapes sluice uses.
#include "model/occupancy.hpp"
#include "model_test_profiles.hpp"

#include <cuda_occupancy.h>
#include <gtest/gtest.h>

#include <string>

namespace {

using namespace sluice::model;
using namespace sluice::model::testing;

cudaOccDeviceProp h100_occupancy_properties() {
  cudaOccDeviceProp p;
  p.computeMajor = 9;
  p.computeMinor = 0;
  p.maxThreadsPerBlock = 1024;
  p.maxThreadsPerMultiprocessor = 2048;
  p.regsPerBlock = 65536;
  p.regsPerMultiprocessor = 65536;
  p.warpSize = 32;
  p.sharedMemPerBlock = 49152;
  p.sharedMemPerMultiprocessor = 233472;
  p.numSms = 132;
  p.sharedMemPerBlockOptin = 232448;
  p.reservedSharedMemPerBlock = 1024;
  return p;
}

/// cudaOccMaxActiveBlocksPerMultiprocessor for a kernel with `registers` registers that opted in to
/// `shared` bytes of dynamic shared memory (as sluice's dispatches do with cudaFuncSetAttribute).
int calculator_blocks(int threads, int registers, std::size_t shared) {
  const cudaOccDeviceProp properties = h100_occupancy_properties();
  cudaOccFuncAttributes attributes;
  attributes.maxThreadsPerBlock = 1024;
  attributes.numRegs = registers;
  attributes.sharedSizeBytes = 0;
  attributes.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
  attributes.maxDynamicSharedSizeBytes = shared;
  attributes.numBlockBarriers = 1;
  cudaOccDeviceState state;
  cudaOccResult result{};
  const cudaOccError status = cudaOccMaxActiveBlocksPerMultiprocessor(&result, &properties, &attributes, &state, threads, shared);
  EXPECT_EQ(status, CUDA_OCC_SUCCESS);
  return result.activeBlocksPerMultiprocessor;
}

TEST(ModelOccupancy, AgreesWithTheCudaOccupancyCalculatorOnSm90) {
  const device_limits limits = h100_limits();
  int compared = 0;
  for (int threads : {32, 64, 96, 128, 160, 192, 256, 320, 384, 512, 640, 768, 896, 1024})
    for (int registers : {0, 16, 24, 32, 40, 48, 56, 64, 72, 80, 96, 104, 128, 168, 200, 255})
      for (std::size_t shared : {std::size_t{0}, std::size_t{1}, std::size_t{4096}, std::size_t{12345},
                                 std::size_t{18432}, std::size_t{49152}, std::size_t{65536}, std::size_t{100000},
                                 std::size_t{116736}, std::size_t{232448}}) {
        const launch_plan plan{1, threads, shared, registers};
        const int expected = calculator_blocks(threads, registers, shared);
        const std::string where = std::to_string(threads) + " threads, " + std::to_string(registers) + " registers, " +
                                  std::to_string(shared) + " shared bytes";
        if (expected == 0) {
          EXPECT_THROW((void)resident_blocks(limits, plan), sluice::invalid_argument) << where;
        } else {
          EXPECT_EQ(resident_blocks(limits, plan).blocks_per_sm, expected) << where;
          ++compared;
        }
      }
  EXPECT_GT(compared, 1500);
}

TEST(ModelOccupancy, NamesTheLimit) {
  const device_limits limits = h100_limits();
  // The pairwise merge kernel at 256 × 17, u32 keys: 80 registers leave 3 blocks an SM (docs/perf-notes.md).
  const occupancy merge = resident_blocks(limits, {1, 256, 17 * 256 * 4 + 256 * 4, 80});
  EXPECT_EQ(merge.blocks_per_sm, 3);
  EXPECT_EQ(merge.limit, occupancy_limit::registers);
  // The tree search: two 512-thread blocks an SM, each caching half the SM's shared memory less 1 KiB.
  const occupancy tree = resident_blocks(limits, {1, 512, 233472 / 2 - 1024, 40});
  EXPECT_EQ(tree.blocks_per_sm, 2);
  EXPECT_EQ(tree.limit, occupancy_limit::shared_memory);
  // One-warp blocks (the thesis's GPU-MMS): the 32 blocks an SM cap, half the warp slots.
  EXPECT_EQ(resident_blocks(limits, {1, 32, 0, 32}).limit, occupancy_limit::blocks);
  EXPECT_EQ(resident_blocks(limits, {1, 1024, 0, 32}).limit, occupancy_limit::warps);
}

TEST(ModelOccupancy, OversubscriptionCountsResidentThreadsPerCore) {
  const device_limits limits = h100_limits();  // P = 132 × 128
  // A full device: 2048 threads an SM over 128 cores.
  EXPECT_DOUBLE_EQ(oversubscription(limits, {1000000, 256, 0, 32}), 16);
  // Registers: 3 blocks of 256.
  EXPECT_DOUBLE_EQ(oversubscription(limits, {1000000, 256, 0, 80}), 6);
  // A grid smaller than the device: 16 blocks of 256 threads over 16896 cores.
  EXPECT_DOUBLE_EQ(oversubscription(limits, {16, 256, 0, 32}), 16.0 * 256 / 16896);
}

TEST(ModelOccupancy, RejectsBlocksThatCannotRun) {
  const device_limits limits = h100_limits();
  EXPECT_THROW((void)resident_blocks(limits, {1, 0, 0, 32}), sluice::invalid_argument);
  EXPECT_THROW((void)resident_blocks(limits, {1, 2048, 0, 32}), sluice::invalid_argument);
  EXPECT_THROW((void)resident_blocks(limits, {1, 256, 0, 256}), sluice::invalid_argument);
  EXPECT_THROW((void)resident_blocks(limits, {1, 1024, 0, 128}), sluice::invalid_argument);  // 128 K registers
  EXPECT_THROW((void)resident_blocks(limits, {1, 256, 232449, 32}), sluice::invalid_argument);
}

}  // namespace
