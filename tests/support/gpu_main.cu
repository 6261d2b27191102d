// Entry point of the gpu suite: says once whether a GPU is there, then runs the tests.
#include "gpu_test.hpp"

#include <cstdio>

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  std::string reason;
  if (sluice::testing::suite_context(&reason)) {
    const auto& p = sluice::testing::suite_context()->properties();
    std::printf("sluice gpu tests on %s (%d SMs)\n", p.name.c_str(), p.sm_count);
  } else {
    std::printf("sluice gpu tests: no usable CUDA device (%s); every gpu test is skipped\n", reason.c_str());
  }
  return RUN_ALL_TESTS();
}
