// Tests of sluice::host::scatter and gather against reference/scatter.hpp: naive and partial-sort
// strategies (the machine's bits, forced bits, huge pages) over the size × distribution × target-size
// matrix; last-writer-wins under heavy duplication; out-of-range indices; bad sizes. Outputs poisoned.
#include <sluice/core/error.hpp>
#include <sluice/data/distributions.hpp>
#include <sluice/host/scatter.hpp>
#include <sluice/reference/scatter.hpp>

#include "host/host_test_matrix.hpp"
#include "support/compare.hpp"
#include "support/errors.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace {

namespace host = sluice::host;
namespace ref = sluice::reference;
namespace matrix = sluice::testing::host_matrix;
using sluice::testing::all_equal;
using sluice::testing::expect_invalid_argument;

struct named_options {
  std::string name;
  host::scatter_options options;
};

std::vector<named_options> strategies() {
  using algo = host::scatter_algo;
  return {{"automatic", {}},
          {"naive", {.algorithm = algo::naive}},
          {"partial_sort", {.algorithm = algo::partial_sort}},
          {"partial_sort_4_bits", {.algorithm = algo::partial_sort, .partial_sort_bits = 4}},
          {"partial_sort_12_bits_huge", {.algorithm = algo::partial_sort, .huge_pages = true, .partial_sort_bits = 12}}};
}

template <class I>
void expect_scatter_gather_match(const std::vector<I>& indices, std::size_t m, const named_options& how,
                                 const std::string& context) {
  const std::size_t n = indices.size();
  std::vector<std::uint64_t> values(n), table(m);
  for (std::size_t i = 0; i < n; ++i) values[i] = 0x1000000000ull + i;  // distinct: shows which writer won
  for (std::size_t k = 0; k < m; ++k) table[k] = 0x2000000000ull + k * 7;
  std::vector<std::uint64_t> expected_scatter(m, 42);
  const std::size_t expected_dropped = ref::scatter<std::uint64_t, I>(values, indices, expected_scatter);
  const auto expected_gather = ref::gather<std::uint64_t, I>(table, indices, 99);
  std::vector<std::uint64_t> scattered(m), gathered(n);
  for (unsigned char pattern : matrix::poison_patterns) {
    std::fill(scattered.begin(), scattered.end(), 42);  // the caller's default for unwritten slots
    const auto s = host::scatter<std::uint64_t, I>(values, indices, scattered, how.options);
    EXPECT_TRUE(all_equal(scattered, expected_scatter)) << context << ", scatter, " << how.name;
    EXPECT_EQ(s.dropped, expected_dropped) << context << ", scatter, " << how.name;
    matrix::poison(std::span<std::uint64_t>(gathered), pattern);
    const auto g = host::gather<std::uint64_t, I>(table, indices, gathered, 99, how.options);
    EXPECT_TRUE(all_equal(gathered, expected_gather.out)) << context << ", gather, " << how.name;
    EXPECT_EQ(g.dropped, expected_gather.out_of_range) << context << ", gather, " << how.name;
  }
}

TEST(HostScatterGather, SizesTimesDistributionsAllStrategies) {
  for (std::size_t n : matrix::sizes())
    for (const auto& d : matrix::distributions())
      for (std::size_t m : {std::size_t{1}, std::size_t{33}, std::size_t{4096}, std::size_t{1} << 20}) {
        const auto indices = matrix::labels(n, m, d);
        for (const auto& how : strategies())
          expect_scatter_gather_match(indices, m, how,
                                      "n = " + std::to_string(n) + ", " + d.name + ", m = " + std::to_string(m));
      }
}

TEST(HostScatterGather, EveryTargetSize) {
  const std::size_t n = (std::size_t{1} << 17) + 3;
  for (std::size_t m : matrix::bucket_counts()) {
    const auto indices = matrix::labels(n, m, matrix::distributions()[0]);
    for (const auto& how : strategies()) expect_scatter_gather_match(indices, m, how, "m = " + std::to_string(m));
  }
}

TEST(HostScatterGather, OutOfRangeIndices) {
  const std::vector<std::int32_t> indices{3, -1, 0, 4, 3, 2147483647, 1};
  for (const auto& how : strategies()) {
    expect_scatter_gather_match(indices, 4, how, "signed");
    expect_scatter_gather_match(indices, 0, how, "empty target");
  }
}

TEST(HostScatterGather, BadSizes) {
  const std::vector<std::uint32_t> indices{0, 1, 2};
  const std::vector<float> values{1, 2};
  std::vector<float> out(3), short_out(2);
  expect_invalid_argument([&] { (void)host::scatter<float, std::uint32_t>(values, indices, out); }, "indices");
  expect_invalid_argument([&] { (void)host::gather<float, std::uint32_t>(out, indices, short_out, 0.0f); }, "out");
}

}  // namespace
