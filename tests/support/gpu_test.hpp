// tests/support/gpu_test.hpp: the fixture of every gpu test, and output poisoning.
//
// Without a GPU each test skips with the reason, so the suite runs (and says it skipped) anywhere.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/device_buffer.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

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

/// True when the suite runs under compute-sanitizer (scripts/gpu_check.sh sets SLUICE_UNDER_SANITIZER).
/// Instrumented kernels run 10-100x slower, so sweeps then keep the sizes that reach every code path
/// (partial tiles, several tiles and look-back windows) and leave out those chosen for scale.
inline bool under_sanitizer() {
  static const bool yes = std::getenv("SLUICE_UNDER_SANITIZER") != nullptr;
  return yes;
}

/// Largest element count a sweep keeps under a sanitizer.
inline constexpr std::size_t sanitizer_size_limit = std::size_t{1} << 15;

/// The sizes of a sweep, without those above sanitizer_size_limit when under_sanitizer().
template <class Range>
std::vector<std::size_t> sweep_sizes(const Range& sizes) {
  std::vector<std::size_t> kept;
  for (std::size_t n : sizes)
    if (!under_sanitizer() || n <= sanitizer_size_limit) kept.push_back(n);
  return kept;
}

/// `normal` elements, or `under_sanitizer_size` when instrumented.
inline std::size_t scaled_size(std::size_t normal, std::size_t under_sanitizer_size) {
  return under_sanitizer() ? under_sanitizer_size : normal;
}

/// Two poison byte patterns: an output that matches the oracle after both was written by the call.
/// Under a sanitizer only the first is kept: the second run proves nothing new about memory accesses
/// (the normal run already proved the writes) and doubles the instrumented time.
struct poison_pattern_list {
  static constexpr unsigned char patterns[] = {0xA5, 0x5A};
  [[nodiscard]] const unsigned char* begin() const { return patterns; }
  [[nodiscard]] const unsigned char* end() const { return patterns + (under_sanitizer() ? 1 : 2); }
  [[nodiscard]] constexpr unsigned char operator[](std::size_t i) const { return patterns[i]; }
};
inline constexpr poison_pattern_list poison_patterns{};

}  // namespace sluice::testing
