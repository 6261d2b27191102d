// Entry point of the Dist* suite: says once how many GPUs the world has (or that there is none), then runs
// the tests; every test runs with however many GPUs are visible.
#include "dist/dist_test.hpp"

#include <cstdio>

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  std::string reason;
  if (auto* comm = sluice::testing::suite_communicator(&reason)) {
    std::printf("sluice dist tests: a world of %d rank(s), one process driving GPU(s)", comm->world_size());
    for (std::size_t i = 0; i < comm->local_count(); ++i)
      std::printf(" %d (%s)", comm->device(i), comm->ctx(i).properties().name.c_str());
    std::printf("\n");
  } else {
    std::printf("sluice dist tests: no usable CUDA device (%s); every dist test is skipped\n", reason.c_str());
  }
  const int status = RUN_ALL_TESTS();
  sluice::testing::suite_communicator_slot().reset();
  return status;
}
