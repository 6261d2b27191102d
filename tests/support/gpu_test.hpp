// tests/support/gpu_test.hpp: the fixture of every gpu test, and output poisoning.
//
// Without a GPU each test skips with the reason, so the suite runs (and says it skipped) anywhere.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/device_buffer.hpp>

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace sluice::testing {

/// One context for the whole suite (device 0), created on first use; null where there is no GPU.
inline context* suite_context(std::string* reason = nullptr) {
  static std::string why;
  static std::unique_ptr<context> ctx = [] {
    return cuda_device_count(&why) > 0 ? std::make_unique<context>(0) : nullptr;
  }();
  if (reason) *reason = why;
  return ctx.get();
}

class gpu_test : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string reason;
    if (!suite_context(&reason)) GTEST_SKIP() << "gpu test skipped: no usable CUDA device (" << reason << ")";
  }
  [[nodiscard]] static context& ctx() { return *suite_context(); }
};

/// Two poison byte patterns: an output that matches the oracle after both was written by the call.
inline constexpr unsigned char poison_patterns[] = {0xA5, 0x5A};

}  // namespace sluice::testing
