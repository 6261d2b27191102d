// GPU tests of sluice::transpose against reference::transpose: every strategy × element sizes 1, 2,
// 4, 8, 16 × shapes around every tile, vector and skinny boundary (poisoned outputs, exact
// comparison); spans that are not 16-byte aligned and elements below their natural alignment; 2^31
// elements and more (64-bit indexing); bad arguments.
#include <sluice/data/generate.cuh>
#include <sluice/reference/transpose.hpp>
#include <sluice/transpose.cuh>

#include "support/compare.hpp"
#include "support/gpu_test.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

namespace {

using sluice::transpose_algorithm;
using sluice::testing::gpu_test;

constexpr transpose_algorithm every_algorithm[] = {transpose_algorithm::automatic, transpose_algorithm::naive,
                                                   transpose_algorithm::tiled, transpose_algorithm::tiled_padded};

/// A 16-byte element that is a struct (alignment 4, below its size).
struct quad {
  std::uint32_t w[4];
  friend bool operator==(const quad&, const quad&) = default;
};
static_assert(sizeof(quad) == 16 && alignof(quad) == 4);

/// Elements of alignment 1: placed at odd addresses they take the unaligned-storage path.
template <std::size_t Bytes>
struct byte_struct {
  std::uint8_t b[Bytes];
  friend bool operator==(const byte_struct&, const byte_struct&) = default;
};

struct shape {
  std::size_t rows;
  std::size_t cols;
};

/// Empty, single-row and -column, around the 32-element seed tile, the 16 KiB vector tiles (multiples
/// of 16 elements: 144 × 208, 256 × 384), the skinny limit (3 and 2 columns or rows, both 16-byte
/// multiple run lengths such as 4096 and odd ones), the 2047-column odd shape of the scalar tile.
const std::vector<shape> every_shape = {
    {0, 5},     {5, 0},     {1, 1},      {1, 5003},   {5003, 1},   {31, 33},    {32, 32},
    {33, 31},   {63, 63},   {64, 64},    {65, 65},    {63, 65},    {65, 63},    {1000, 3},
    {3, 1000},  {4096, 3},  {3, 4096},   {144, 208},  {208, 144},  {256, 384},  {1025, 2047},
    {2, (std::size_t{1} << 20) + 3},     {(std::size_t{1} << 20) + 3, 2},
};

/// rows · cols elements of T filled with generated 32-bit words (every byte varies).
template <class T>
std::vector<T> generate_matrix(std::size_t n, std::uint64_t seed) {
  const auto words = sluice::data::generate_host<std::uint32_t>(
      (n * sizeof(T) + 3) / 4, {sluice::data::distribution::uniform, 0, 0.0, seed});
  std::vector<T> out(n);
  if (n > 0) std::memcpy(out.data(), words.data(), n * sizeof(T));
  return out;
}

std::string describe(shape s, transpose_algorithm algorithm) {
  return std::to_string(s.rows) + " x " + std::to_string(s.cols) + ", " + std::string(sluice::to_string(algorithm));
}

/// Transposes a generated matrix on the device (output poisoned twice) and compares with the oracle.
template <class T>
void expect_transpose(sluice::context& ctx, shape s, transpose_algorithm algorithm) {
  const auto host = generate_matrix<T>(s.rows * s.cols, s.rows * 7919 + s.cols);
  const auto expected = sluice::reference::transpose<T>(host, s.rows, s.cols);
  sluice::device_buffer<T> in(ctx, std::span<const T>(host));
  sluice::device_buffer<T> out(ctx, host.size());
  for (unsigned char poison : sluice::testing::poison_patterns) {
    out.fill_bytes(poison);
    sluice::transpose(ctx, in.span(), out.span(), s.rows, s.cols, {algorithm});
    EXPECT_TRUE(sluice::testing::all_equal(out.to_host(), expected)) << describe(s, algorithm) << ", poison " << int(poison);
  }
}

/// As expect_transpose, with both matrices starting `offset` bytes into their allocation; checks that
/// nothing outside the output's range was written.
template <class T>
void expect_transpose_at_offset(sluice::context& ctx, shape s, transpose_algorithm algorithm, std::size_t offset) {
  ASSERT_EQ(offset % alignof(T), 0u) << "a T* must be aligned for T";
  const std::size_t n = s.rows * s.cols;
  const auto host = generate_matrix<T>(n, s.rows + 31 * s.cols);
  const auto expected = sluice::reference::transpose<T>(host, s.rows, s.cols);
  std::vector<unsigned char> bytes(offset + n * sizeof(T), 0);
  if (n > 0) std::memcpy(bytes.data() + offset, host.data(), n * sizeof(T));
  sluice::device_buffer<unsigned char> in_bytes(ctx, std::span<const unsigned char>(bytes));
  sluice::device_buffer<unsigned char> out_bytes(ctx, bytes.size() + offset);
  const cuda::std::span<const T> in(reinterpret_cast<const T*>(in_bytes.data() + offset), n);
  const cuda::std::span<T> out(reinterpret_cast<T*>(out_bytes.data() + offset), n);
  out_bytes.fill_bytes(0xA5);
  sluice::transpose(ctx, in, out, s.rows, s.cols, {algorithm});
  const std::vector<unsigned char> result = out_bytes.to_host();
  std::vector<T> got(n);
  if (n > 0) std::memcpy(got.data(), result.data() + offset, n * sizeof(T));
  EXPECT_TRUE(sluice::testing::all_equal(got, expected)) << describe(s, algorithm) << ", offset " << offset;
  const auto untouched = [](auto first, auto last) { return std::all_of(first, last, [](unsigned char b) { return b == 0xA5; }); };
  EXPECT_TRUE(untouched(result.begin(), result.begin() + static_cast<std::ptrdiff_t>(offset)) &&
              untouched(result.begin() + static_cast<std::ptrdiff_t>(offset + n * sizeof(T)), result.end()))
      << describe(s, algorithm) << ": bytes outside the output were written";
}

// ---- every strategy × element size × shape -------------------------------------------------------------

template <class T>
class TransposeShapes : public gpu_test {
 protected:
  static void expect_every_shape(transpose_algorithm algorithm) {
    for (const shape& s : every_shape)
      if (!sluice::testing::under_sanitizer() || s.rows * s.cols <= sluice::testing::sanitizer_size_limit)
        expect_transpose<T>(ctx(), s, algorithm);
  }
};

using element_types = ::testing::Types<std::uint8_t, std::uint16_t, std::uint32_t, std::uint64_t, quad>;
TYPED_TEST_SUITE(TransposeShapes, element_types);

TYPED_TEST(TransposeShapes, Automatic) { this->expect_every_shape(transpose_algorithm::automatic); }
TYPED_TEST(TransposeShapes, Naive) { this->expect_every_shape(transpose_algorithm::naive); }
TYPED_TEST(TransposeShapes, Tiled) { this->expect_every_shape(transpose_algorithm::tiled); }
TYPED_TEST(TransposeShapes, TiledPadded) { this->expect_every_shape(transpose_algorithm::tiled_padded); }

// ---- alignment -----------------------------------------------------------------------------------------

class Transpose : public gpu_test {};

const std::vector<shape> alignment_shapes = {{144, 208}, {4096, 3}, {3, 4096}, {1025, 2047}, {65, 63}};

// One element into the allocation: 4- and 2-byte rows are then not 16-byte aligned, so automatic
// moves single elements where it would use vectors.
TEST_F(Transpose, SpansOffsetByOneElement) {
  for (transpose_algorithm algorithm : every_algorithm)
    for (const shape& s : alignment_shapes) {
      expect_transpose_at_offset<std::uint32_t>(ctx(), s, algorithm, sizeof(std::uint32_t));
      expect_transpose_at_offset<std::uint16_t>(ctx(), s, algorithm, sizeof(std::uint16_t));
      expect_transpose_at_offset<quad>(ctx(), s, algorithm, alignof(quad));
    }
}

// Structs of bytes at an odd address: elements are copied with their own alignment.
TEST_F(Transpose, UnderAlignedElementsAtOddAddresses) {
  for (transpose_algorithm algorithm : every_algorithm)
    for (const shape& s : alignment_shapes) {
      expect_transpose_at_offset<byte_struct<16>>(ctx(), s, algorithm, 1);
      expect_transpose_at_offset<byte_struct<8>>(ctx(), s, algorithm, 1);
      expect_transpose_at_offset<byte_struct<4>>(ctx(), s, algorithm, 1);
      expect_transpose_at_offset<byte_struct<2>>(ctx(), s, algorithm, 1);
    }
}

// The shapes above reach every kernel `automatic` chooses from.
TEST_F(Transpose, AutomaticReachesEveryTunedKernel) {
  using sluice::detail::transpose::choose;
  using sluice::detail::transpose::tuned_kernel;
  sluice::device_buffer<std::uint32_t> in(ctx(), 1025 * 2047), out(ctx(), 1025 * 2047);
  EXPECT_EQ(choose(in.data(), out.data(), 1, 5003), tuned_kernel::copy);
  EXPECT_EQ(choose(in.data(), out.data(), 5003, 1), tuned_kernel::copy);
  EXPECT_EQ(choose(in.data(), out.data(), 4096, 3), tuned_kernel::skinny);
  EXPECT_EQ(choose(in.data(), out.data(), 3, 4096), tuned_kernel::skinny);
  EXPECT_EQ(choose(in.data(), out.data(), 144, 208), tuned_kernel::vector_tiled);
  EXPECT_EQ(choose(in.data() + 1, out.data(), 144, 208), tuned_kernel::scalar_tiled);
  EXPECT_EQ(choose(in.data(), out.data(), 1025, 2047), tuned_kernel::scalar_tiled);
}

TEST_F(Transpose, ConstInputAndAdjacentOutput) {
  const shape s{65, 63};
  const std::size_t n = s.rows * s.cols;
  const auto host = generate_matrix<std::uint32_t>(n, 5);
  std::vector<std::uint32_t> both(host);
  both.resize(2 * n);
  sluice::device_buffer<std::uint32_t> buffer(ctx(), std::span<const std::uint32_t>(both));
  // out starts where in ends: adjacent, not overlapping.
  sluice::transpose(ctx(), cuda::std::span<const std::uint32_t>(buffer.data(), n),
                    cuda::std::span<std::uint32_t>(buffer.data() + n, n), s.rows, s.cols);
  const auto result = buffer.to_host();
  EXPECT_TRUE(sluice::testing::all_equal(std::vector<std::uint32_t>(result.begin() + static_cast<std::ptrdiff_t>(n), result.end()),
                                         sluice::reference::transpose<std::uint32_t>(host, s.rows, s.cols)));
}

// ---- bad arguments -------------------------------------------------------------------------------------

template <class Call>
void expect_invalid_argument(Call&& call, const std::string& parameter) {
  try {
    call();
    ADD_FAILURE() << "expected sluice::invalid_argument naming '" << parameter << "'";
  } catch (const sluice::invalid_argument& e) {
    EXPECT_EQ(e.parameter(), parameter) << e.what();
  }
}

TEST_F(Transpose, BadArgumentsNameTheParameter) {
  sluice::device_buffer<int> in(ctx(), 12), out(ctx(), 12), big(ctx(), 24);
  expect_invalid_argument([&] { sluice::transpose(ctx(), in.span(), out.span(), 3, 5); }, "in");
  expect_invalid_argument([&] { sluice::transpose(ctx(), in.span(), big.span(), 3, 4); }, "out");
  // rows · cols = 2^64 + 12 wraps around to in.size(): still a mismatch.
  expect_invalid_argument([&] { sluice::transpose(ctx(), in.span(), out.span(), (std::size_t{1} << 63) + 6, 2); },
                          "in");
  std::vector<int> host(12);
  expect_invalid_argument(
      [&] { sluice::transpose(ctx(), cuda::std::span<const int>(host.data(), 12), out.span(), 3, 4); }, "in");
  expect_invalid_argument([&] { sluice::transpose(ctx(), in.span(), cuda::std::span<int>(host.data(), 12), 3, 4); },
                          "out");
  // In place, and partly overlapping.
  expect_invalid_argument([&] { sluice::transpose(ctx(), in.span(), in.span(), 3, 4); }, "out");
  expect_invalid_argument(
      [&] {
        sluice::transpose(ctx(), cuda::std::span<int>(big.data(), 12), cuda::std::span<int>(big.data() + 6, 12), 4, 3);
      },
      "out");
  expect_invalid_argument(
      [&] { sluice::transpose(ctx(), in.span(), out.span(), 3, 4, {static_cast<transpose_algorithm>(42)}); },
      "options.algorithm");
  // The empty matrix needs no memory at all.
  EXPECT_NO_THROW(sluice::transpose(ctx(), cuda::std::span<const int>(), cuda::std::span<int>(), 0, 7));
}

// ---- 2^31 elements and more ----------------------------------------------------------------------------

/// out == reference::transpose(in), checked a band of input rows at a time: the oracle's column-order
/// pass over 2^31 scattered bytes would take minutes, a band of ~4 MiB stays in cache.
template <class T>
::testing::AssertionResult matches_oracle_in_bands(const std::vector<T>& in, const std::vector<T>& out, shape s) {
  const std::size_t band = std::max<std::size_t>(1, (std::size_t{1} << 22) / s.cols);
  for (std::size_t r0 = 0; r0 < s.rows; r0 += band) {
    const std::size_t height = std::min(band, s.rows - r0);
    const auto expected =
        sluice::reference::transpose<T>(std::span<const T>(in).subspan(r0 * s.cols, height * s.cols), height, s.cols);
    for (std::size_t c = 0; c < s.cols; ++c) {
      const auto want = expected.begin() + static_cast<std::ptrdiff_t>(c * height);
      if (!std::equal(want, want + static_cast<std::ptrdiff_t>(height),
                      out.begin() + static_cast<std::ptrdiff_t>(c * s.rows + r0)))
        return ::testing::AssertionFailure() << "output row " << c << " differs in columns [" << r0 << ", "
                                             << r0 + height << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

// Bytes, so that 2^31 + elements fit twice in device memory. Shapes: an odd column count (automatic
// runs the tile kernel template that `tiled` and `tiled_padded` instantiate with other shapes; naive
// has index math of its own), 16-byte multiple rows (vector tile), tall and wide skinny. Each check
// costs seconds on the host, so tiled and tiled_padded are not repeated here.
TEST_F(Transpose, LargeBeyond32BitIndexing) {
  struct large_case {
    shape s;
    std::vector<transpose_algorithm> algorithms;
  };
  const std::vector<large_case> cases = {
      {{65536, 32769}, {transpose_algorithm::automatic, transpose_algorithm::naive}},
      {{65536, 32784}, {transpose_algorithm::automatic}},
      {{(std::size_t{1} << 30) + 8, 2}, {transpose_algorithm::automatic}},
      {{2, (std::size_t{1} << 30) + 16}, {transpose_algorithm::automatic}},
  };
  for (const large_case& c : cases) {
    const std::size_t n = c.s.rows * c.s.cols;
    ASSERT_GT(n, std::size_t{1} << 31);
    if (ctx().properties().global_memory_bytes < 2 * n + (std::size_t{1} << 30))
      GTEST_SKIP() << "needs " << 2 * n << " bytes of device memory";
    sluice::device_buffer<std::uint8_t> in(ctx(), n), out(ctx(), n);
    sluice::data::generate(ctx(), in.span(), {sluice::data::distribution::uniform, 0, 0.0, n});
    const std::vector<std::uint8_t> host = in.to_host();  // equal to generate_host for the same spec
    for (transpose_algorithm algorithm : c.algorithms) {
      out.fill_bytes(0xA5);
      sluice::transpose(ctx(), in.span(), out.span(), c.s.rows, c.s.cols, {algorithm});
      EXPECT_TRUE(matches_oracle_in_bands(host, out.to_host(), c.s)) << describe(c.s, algorithm);
    }
  }
}

}  // namespace
