// Host tests of sluice/core/span.hpp: detail::overlaps, the output-overlaps-input check of the entry
// points (byte ranges, empty spans overlap nothing, spans of different element types).
#include <sluice/core/span.hpp>

#include <gtest/gtest.h>

#include <cstdint>

namespace {

using sluice::detail::overlaps;
using span_u32 = cuda::std::span<std::uint32_t>;

TEST(CoreSpan, OverlapsIsTrueExactlyWhenTheByteRangesIntersect) {
  std::uint32_t a[8] = {};
  EXPECT_TRUE(overlaps(span_u32(a, 8), span_u32(a, 8)));          // the same range (in place)
  EXPECT_TRUE(overlaps(span_u32(a, 4), span_u32(a + 3, 5)));      // one element shared
  EXPECT_TRUE(overlaps(span_u32(a + 3, 5), span_u32(a, 4)));      // symmetric
  EXPECT_FALSE(overlaps(span_u32(a, 4), span_u32(a + 4, 4)));     // adjacent
  EXPECT_FALSE(overlaps(span_u32(a + 4, 4), span_u32(a, 4)));
}

TEST(CoreSpan, EmptySpansOverlapNothing) {
  std::uint32_t a[8] = {};
  EXPECT_FALSE(overlaps(span_u32(a, 0), span_u32(a, 8)));
  EXPECT_FALSE(overlaps(span_u32(a, 8), span_u32(a + 2, 0)));
}

TEST(CoreSpan, OverlapsComparesBytesAcrossElementTypes) {
  std::uint64_t wide[4] = {};
  auto* bytes = reinterpret_cast<unsigned char*>(wide);
  const cuda::std::span<const std::uint64_t> w(wide, 1);  // bytes [0, 8)
  EXPECT_TRUE(overlaps(w, cuda::std::span<unsigned char>(bytes + 7, 1)));
  EXPECT_FALSE(overlaps(w, cuda::std::span<unsigned char>(bytes + 8, 1)));
}

}  // namespace
