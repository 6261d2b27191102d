// Dist* gpu tests of the communicator and of failures (sluice/dist/communicator.hpp, detail/dist/world.hpp,
// steps.hpp) with however many GPUs are visible: describe and barrier; a rank that never joins makes
// creation time out with communication_error (never a hang); memory exhausted on one rank is a
// rank_failure naming it on every rank, and the communicator stays usable; a fault drill (a rank made to
// fail mid-call) is a rank_failure naming it at each step of each call; an aborted communicator refuses
// every later call.
#include "dist/dist_test.hpp"

#include <cuda_runtime.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace {

using namespace sluice::testing;
namespace dist = sluice::dist;

class DistCommunicator : public dist_test {};
class DistFaults : public dist_test {};

TEST_F(DistCommunicator, DescribeGathersTheOffsetsAndBarrierReturns) {
  const std::size_t n = 1001;
  std::vector<std::uint32_t> host(n, 7);
  const auto offsets = deal(n, world(), deal_layout::uneven);
  const auto parts = scatter_to_ranks(comm(), host, offsets);
  const auto described = dist::describe(comm(), view(parts));
  ASSERT_EQ(described.offsets().size(), offsets.size());
  for (std::size_t r = 0; r < offsets.size(); ++r) EXPECT_EQ(described.offsets()[r], offsets[r]) << "rank " << r;
  EXPECT_EQ(described.global_size(), n);
  comm().barrier();
  EXPECT_FALSE(comm().aborted());
}

TEST_F(DistFaults, ARankThatNeverJoinsTimesOut) {
  dist::communicator_options options;
  options.timeout = std::chrono::seconds(3);
  const auto start = std::chrono::steady_clock::now();
  try {  // a world of 2 of which only rank 0 exists
    dist::communicator lonely(dist::communicator::new_id(), 2, {{0, comm().device(0)}}, options);
    FAIL() << "a world missing a rank was created";
  } catch (const dist::communication_error& e) {
    EXPECT_EQ(e.rank(), 0);
    EXPECT_NE(std::string(e.what()).find("timeout"), std::string::npos) << e.what();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(60));
}

TEST_F(DistFaults, MemoryExhaustedOnOneRankIsReportedOnEveryRank) {
  const std::size_t per_rank = std::size_t{1} << 26;  // 256 MiB of keys a rank
  std::vector<std::uint32_t> host(per_rank * static_cast<std::size_t>(world()));
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<std::uint32_t>(i * 2654435761u);
  const auto parts = scatter_to_ranks(comm(), host, deal(host.size(), world(), deal_layout::even));
  {  // NCCL connects its peers lazily: let it do so before memory runs short
    const std::vector<std::uint32_t> few(4096, 1);
    const auto small = scatter_to_ranks(comm(), few, deal(few.size(), world(), deal_layout::even));
    (void)dist::radix_sort(comm(), view(small));
  }
  // The last rank's device: its pool trimmed, then all but 64 MiB of it taken.
  const std::size_t last = comm().local_count() - 1;
  sluice::context& ctx = comm().ctx(last);
  ctx.synchronize();
  auto device = ctx.activate();
  ASSERT_EQ(cudaMemPoolTrimTo(ctx.memory_pool(), 0), cudaSuccess);
  std::size_t free = 0, total = 0;
  ASSERT_EQ(cudaMemGetInfo(&free, &total), cudaSuccess);
  void* hog = nullptr;
  ASSERT_EQ(cudaMalloc(&hog, free - (std::size_t{64} << 20)), cudaSuccess);
  try {
    (void)dist::radix_sort(comm(), view(parts));
    ADD_FAILURE() << "the sort ran in 64 MiB";
  } catch (const dist::rank_failure& e) {
    EXPECT_EQ(e.failed_rank(), comm().rank(last)) << e.what();
    EXPECT_EQ(e.kind(), dist::failure_kind::out_of_memory) << e.what();
  }
  ASSERT_EQ(cudaFree(hog), cudaSuccess);
  EXPECT_FALSE(comm().aborted());
  const auto sorted = dist::radix_sort(comm(), view(parts));  // still usable
  EXPECT_EQ(sorted.global_size(), host.size());
}

TEST_F(DistFaults, ARankDrilledToFailMidCallIsNamedAndNothingHangs) {
  std::vector<int> devices;
  for (std::size_t i = 0; i < comm().local_count(); ++i) devices.push_back(comm().device(i));
  const int last = static_cast<int>(devices.size()) - 1;
  std::vector<std::uint32_t> host(std::size_t{1} << 20);
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<std::uint32_t>(i * 2654435761u);
  // The sort's gathers: 1 the arguments, 2 the samples, 3 the bucket starts, 4 the allocation vote,
  // 5 the final record (a world of 1: the arguments and the final record).
  const int steps = devices.size() > 1 ? 5 : 2;
  for (int step = 1; step <= steps; ++step) {
    dist::communicator_options options;
    options.timeout = std::chrono::seconds(30);
    options.inject_failure = {last, step};
    dist::communicator drilled = dist::communicator::on_devices(devices, options);
    const auto parts = scatter_to_ranks(drilled, host, deal(host.size(), drilled.world_size(), deal_layout::even));
    for (int call = 0; call < 2; ++call) {  // the communicator stays usable: the next call fails the same way
      try {
        (void)dist::radix_sort(drilled, view(parts));
        ADD_FAILURE() << "step " << step << ": the drilled sort returned";
      } catch (const dist::rank_failure& e) {
        EXPECT_EQ(e.failed_rank(), last) << e.what();
        EXPECT_EQ(e.kind(), dist::failure_kind::other) << e.what();
        EXPECT_NE(e.rank_message().find("injected failure at step " + std::to_string(step)), std::string::npos) << e.what();
      }
      EXPECT_FALSE(drilled.aborted()) << "step " << step;
    }
  }
}

TEST_F(DistFaults, AnAbortedCommunicatorRefusesLaterCalls) {
  std::vector<int> devices;
  for (std::size_t i = 0; i < comm().local_count(); ++i) devices.push_back(comm().device(i));
  dist::communicator own = dist::communicator::on_devices(devices);
  own.barrier();
  own.abort();
  EXPECT_TRUE(own.aborted());
  try {
    own.barrier();
    FAIL() << "an aborted communicator ran a barrier";
  } catch (const dist::communication_error& e) {
    EXPECT_NE(std::string(e.what()).find("aborted"), std::string::npos) << e.what();
  }
}

}  // namespace
