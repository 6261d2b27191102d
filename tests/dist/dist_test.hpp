// tests/dist/dist_test.hpp: the fixture of the Dist* gpu suite and its helpers. One communicator for the
// whole suite, one process driving every visible GPU (a world of 1 on one GPU), created on first use;
// without a GPU every test skips, saying why. Inputs are dealt to the ranks by a layout (even, with
// empty ranks, all on one rank), so that every test runs the same checks for every world size.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/device_buffer.hpp>
#include <sluice/dist.cuh>

#include "support/gpu_test.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace sluice::testing {

/// Where the suite's communicator lives: main() empties it after the tests, so that NCCL's communicators
/// are finalised while the CUDA runtime is still up (not among the static destructors).
inline std::unique_ptr<dist::communicator>& suite_communicator_slot() {
  static std::unique_ptr<dist::communicator> comm;
  return comm;
}

/// The suite's communicator over every visible GPU, made on first use; null where there is no GPU
/// (`reason` says why).
inline dist::communicator* suite_communicator(std::string* reason = nullptr) {
  static std::string why;
  static const bool made = [] {
    if (cuda_device_count(&why) == 0) return false;
    dist::communicator_options options;
    options.timeout = std::chrono::seconds(120);
    suite_communicator_slot() = std::make_unique<dist::communicator>(dist::communicator::on_all_devices(options));
    return true;
  }();
  if (reason) *reason = why;
  return made ? suite_communicator_slot().get() : nullptr;
}

class dist_test : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string reason;
    if (!suite_communicator(&reason)) GTEST_SKIP() << "dist test skipped: no usable CUDA device (" << reason << ")";
  }
  [[nodiscard]] static dist::communicator& comm() { return *suite_communicator(); }
  [[nodiscard]] static int world() { return comm().world_size(); }
};

/// How a global array is dealt to the ranks.
enum class deal_layout { even, empty_ranks, one_rank_all, uneven };

inline std::string name(deal_layout l) {
  switch (l) {
    case deal_layout::even: return "even";
    case deal_layout::empty_ranks: return "empty_ranks";
    case deal_layout::one_rank_all: return "one_rank_all";
    case deal_layout::uneven: return "uneven";
  }
  return "?";
}

/// The global offsets (world + 1) of n elements dealt by `l`: empty_ranks leaves the odd ranks empty,
/// one_rank_all gives everything to the last rank, uneven gives rank r a share growing with r.
inline std::vector<std::size_t> deal(std::size_t n, int world, deal_layout l) {
  std::vector<std::size_t> weight(static_cast<std::size_t>(world), 1);
  for (int r = 0; r < world; ++r) {
    if (l == deal_layout::empty_ranks && r % 2 == 1) weight[static_cast<std::size_t>(r)] = 0;
    if (l == deal_layout::one_rank_all) weight[static_cast<std::size_t>(r)] = r == world - 1 ? 1 : 0;
    if (l == deal_layout::uneven) weight[static_cast<std::size_t>(r)] = static_cast<std::size_t>(r) + 1;
  }
  std::size_t total = 0;
  for (std::size_t w : weight) total += w;
  std::vector<std::size_t> offsets{0};
  std::size_t before = 0;
  for (std::size_t w : weight) {
    before += w;
    offsets.push_back(n * before / total);
  }
  return offsets;
}

/// The parts of `host` at `offsets`, each on its rank's device.
template <class T>
std::vector<device_buffer<T>> scatter_to_ranks(dist::communicator& comm, const std::vector<T>& host,
                                               const std::vector<std::size_t>& offsets) {
  std::vector<device_buffer<T>> parts;
  for (std::size_t i = 0; i < comm.local_count(); ++i) {
    const auto r = static_cast<std::size_t>(comm.rank(i));
    parts.emplace_back(comm.ctx(i), std::span<const T>(host.data() + offsets[r], offsets[r + 1] - offsets[r]));
  }
  return parts;
}

template <class T>
dist::distributed_span<const T> view(const std::vector<device_buffer<T>>& parts) {
  std::vector<cuda::std::span<const T>> views;
  for (const auto& p : parts) views.push_back(p.span());
  return dist::distributed_span<const T>(std::move(views));
}

template <class T>
dist::distributed_span<T> view_mutable(std::vector<device_buffer<T>>& parts) {
  std::vector<cuda::std::span<T>> views;
  for (auto& p : parts) views.push_back(p.span());
  return dist::distributed_span<T>(std::move(views));
}

/// Every rank's part in rank order (the suite's ranks are all in this process).
template <class T>
std::vector<T> gather_to_host(const std::vector<device_buffer<T>>& parts) {
  std::vector<T> all;
  for (const auto& p : parts) {
    const std::vector<T> mine = p.to_host();
    all.insert(all.end(), mine.begin(), mine.end());
  }
  return all;
}

template <class T>
std::vector<T> gather_to_host(const dist::distributed_buffer<T>& buffer) {
  std::vector<T> all;
  for (std::size_t i = 0; i < buffer.local_count(); ++i) {
    const std::vector<T> mine = buffer.part(i).to_host();
    all.insert(all.end(), mine.begin(), mine.end());
  }
  return all;
}

}  // namespace sluice::testing
