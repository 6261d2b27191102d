// Host tests of sluice/reference/transpose.hpp: a hand example, degenerate shapes, shape mismatches
// (including a rows · cols that wraps around), and element types of 1, 2, 4, 8 and 16 bytes.
#include <sluice/core/error.hpp>
#include <sluice/reference/transpose.hpp>

#include "support/compare.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <span>
#include <vector>

namespace {

namespace ref = sluice::reference;
using sluice::testing::all_equal;

template <std::size_t Bytes>
struct blob {
  std::uint8_t b[Bytes];
  friend bool operator==(const blob&, const blob&) = default;
};
static_assert(sizeof(blob<16>) == 16);

void expect_bad_shape(std::size_t size, std::size_t rows, std::size_t cols) {
  const std::vector<int> in(size);
  try {
    (void)ref::transpose<int>(in, rows, cols);
    ADD_FAILURE() << "expected sluice::invalid_argument for " << size << " elements as " << rows << " x " << cols;
  } catch (const sluice::invalid_argument& e) {
    EXPECT_EQ(e.parameter(), "in");
    EXPECT_EQ(e.index(), std::nullopt);
  }
}

TEST(ReferenceTranspose, HandExample) {
  // [[1 2 3], [4 5 6]] → [[1 4], [2 5], [3 6]]
  const std::vector<int> in{1, 2, 3, 4, 5, 6};
  EXPECT_TRUE(all_equal(ref::transpose<int>(in, 2, 3), {1, 4, 2, 5, 3, 6}));
  EXPECT_TRUE(all_equal(ref::transpose<int>(in, 3, 2), {1, 3, 5, 2, 4, 6}));
  // A single row or column is unchanged in memory.
  EXPECT_TRUE(all_equal(ref::transpose<int>(in, 1, 6), in));
  EXPECT_TRUE(all_equal(ref::transpose<int>(in, 6, 1), in));
}

TEST(ReferenceTranspose, EmptyShapes) {
  const std::vector<int> none;
  EXPECT_TRUE(ref::transpose<int>(none, 0, 0).empty());
  EXPECT_TRUE(ref::transpose<int>(none, 0, 5).empty());
  EXPECT_TRUE(ref::transpose<int>(none, 5, 0).empty());
}

TEST(ReferenceTranspose, ShapeMismatchThrows) {
  expect_bad_shape(6, 2, 2);
  expect_bad_shape(6, 4, 2);
  expect_bad_shape(5, 0, 3);
  expect_bad_shape(0, 1, 1);
  // 2^63 · 2 wraps to 0 in 64 bits: must not be taken for an empty matrix.
  expect_bad_shape(0, std::size_t{1} << 63, 2);
  expect_bad_shape(2, std::numeric_limits<std::size_t>::max(), std::numeric_limits<std::size_t>::max());
}

template <class T>
void check_random_transposes(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (auto [rows, cols] : {std::pair<std::size_t, std::size_t>{1, 1}, {3, 5}, {32, 32}, {33, 31}, {1, 1000},
                            {257, 129}}) {
    std::vector<T> in(rows * cols);
    for (T& x : in)
      for (auto& byte : x.b) byte = static_cast<std::uint8_t>(rng());
    const std::vector<T> out = ref::transpose<T>(in, rows, cols);
    ASSERT_EQ(out.size(), in.size());
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t c = 0; c < cols; ++c) ASSERT_TRUE(out[c * rows + r] == in[r * cols + c]) << r << ", " << c;
    EXPECT_TRUE(all_equal(ref::transpose<T>(out, cols, rows), in));  // transposing back restores the input
  }
}

TEST(ReferenceTranspose, ElementSizes) {
  check_random_transposes<blob<1>>(1);
  check_random_transposes<blob<2>>(2);
  check_random_transposes<blob<4>>(4);
  check_random_transposes<blob<8>>(8);
  check_random_transposes<blob<16>>(16);
}

}  // namespace
