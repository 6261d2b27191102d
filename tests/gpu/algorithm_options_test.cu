// An options.algorithm outside its enumeration (an integer cast to the enum) is invalid_argument naming
// options.algorithm, before anything is written, in the families whose dispatch once ran another strategy
// or returned early for it (issue 32). reduce, scan, transpose, radix sort, histogram, scatter, search,
// merge sort and string matching test the same in their own files.
#include <sluice/multireduce.cuh>
#include <sluice/multiscan.cuh>
#include <sluice/multisplit.cuh>
#include <sluice/segmented.cuh>

#include "support/errors.hpp"
#include "support/gpu_test.hpp"

#include <cstdint>
#include <vector>

namespace {

using sluice::testing::expect_invalid_argument;
using sluice::testing::gpu_test;

class AlgorithmOptions : public gpu_test {};

template <class Algorithm>
constexpr Algorithm outside = static_cast<Algorithm>(99);

constexpr std::size_t n = 100;

TEST_F(AlgorithmOptions, MultisplitRejectsAnUnknownAlgorithmAndWritesNothing) {
  const std::vector<std::uint32_t> host(n, 3);
  const sluice::device_buffer<std::uint32_t> keys(ctx(), std::span<const std::uint32_t>(host));
  sluice::device_buffer<std::uint32_t> out(ctx(), n);
  out.fill_bytes(0xA5);
  const sluice::multisplit_options bad{outside<sluice::multisplit_algorithm>};
  expect_invalid_argument([&] { sluice::multisplit(ctx(), keys.span(), out.span(), 4, sluice::buckets::identity{}, {}, nullptr, bad); },
                          "options.algorithm");
  EXPECT_EQ(out.to_host(), std::vector<std::uint32_t>(n, 0xA5A5A5A5u));
}

TEST_F(AlgorithmOptions, MultireduceRejectsAnUnknownAlgorithm) {
  const sluice::device_buffer<std::uint32_t> labels(ctx(), n), values(ctx(), n);
  sluice::device_buffer<std::uint32_t> out(ctx(), 8);
  const sluice::multireduce_options bad{.algorithm = outside<sluice::multireduce_algorithm>};
  expect_invalid_argument(
      [&] { sluice::multireduce(ctx(), labels.span(), values.span(), out.span(), sluice::plus{}, nullptr, bad); },
      "options.algorithm");
  // Empty input too: the options are checked before the sizes say there is nothing to do.
  expect_invalid_argument(
      [&] {
        sluice::multireduce(ctx(), labels.span().first(0), values.span().first(0), out.span(), sluice::plus{}, nullptr, bad);
      },
      "options.algorithm");
}

TEST_F(AlgorithmOptions, MultiscanAndMultitagRejectAnUnknownAlgorithm) {
  const sluice::device_buffer<std::uint32_t> labels(ctx(), n), values(ctx(), n);
  sluice::device_buffer<std::uint32_t> out(ctx(), n), rank(ctx(), n);
  const sluice::multiscan_options bad{.algorithm = outside<sluice::multiscan_algorithm>};
  expect_invalid_argument(
      [&] { sluice::multiscan_inclusive(ctx(), labels.span(), values.span(), out.span(), 4, sluice::plus{}, {}, nullptr, bad); },
      "options.algorithm");
  expect_invalid_argument(
      [&] { sluice::multiscan_exclusive(ctx(), labels.span(), values.span(), out.span(), 4, sluice::plus{}, {}, nullptr, bad); },
      "options.algorithm");
  expect_invalid_argument([&] { sluice::multitag(ctx(), labels.span(), rank.span(), 4, {}, nullptr, bad); },
                          "options.algorithm");
}

TEST_F(AlgorithmOptions, SegmentedRejectsAnUnknownAlgorithmInEveryForm) {
  const sluice::device_buffer<std::uint32_t> values(ctx(), n);
  const sluice::device_buffer<std::uint8_t> flags(ctx(), n);
  const std::vector<std::size_t> bounds{0, n / 2, n};
  const sluice::device_buffer<std::size_t> offsets(ctx(), std::span<const std::size_t>(bounds));
  sluice::device_buffer<std::uint32_t> out(ctx(), n), sums(ctx(), 2);
  const sluice::segmented_options bad{.algorithm = outside<sluice::segmented_algorithm>};
  expect_invalid_argument(
      [&] { sluice::segmented_inclusive_scan(ctx(), values.span(), flags.span(), out.span(), sluice::plus{}, bad); },
      "options.algorithm");
  expect_invalid_argument(
      [&] { sluice::segmented_inclusive_scan(ctx(), values.span(), offsets.span(), out.span(), sluice::plus{}, bad); },
      "options.algorithm");
  expect_invalid_argument(
      [&] { sluice::segmented_reduce(ctx(), values.span(), offsets.span(), sums.span(), 0u, sluice::plus{}, bad); },
      "options.algorithm");
}

}  // namespace
