// Host tests of sluice/core/labels.hpp: detail::valid_label, the library's "0 ≤ label < m" rule, against
// the oracle's own copy (reference::detail::valid_label) for every label type on the edges of each
// type and of m, exactly (no narrowing of wide labels or of m).
#include <sluice/core/labels.hpp>
#include <sluice/reference/multireduce.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

namespace {

template <class L>
void expect_valid_label_as_the_oracle() {
  using limits = std::numeric_limits<L>;
  std::vector<L> labels{L(0), L(1), L(2), limits::max(), static_cast<L>(limits::max() - 1), limits::min()};
  if constexpr (std::is_signed_v<L>) labels.insert(labels.end(), {L(-1), static_cast<L>(limits::min() + 1)});
  const std::vector<std::size_t> ms{1,
                                    2,
                                    3,
                                    std::size_t{1} << 8,
                                    std::size_t{1} << 16,
                                    (std::size_t{1} << 32) - 1,
                                    std::size_t{1} << 32,
                                    (std::size_t{1} << 32) + 1,
                                    std::numeric_limits<std::size_t>::max()};
  for (const std::size_t m : ms)
    for (const L label : labels) {
      EXPECT_EQ(sluice::detail::valid_label(label, m), sluice::reference::detail::valid_label(label, m).has_value())
          << +label << " of " << m;
      for (const L near : {static_cast<L>(m - 1), static_cast<L>(m)})  // m's own edges, where L reaches them
        EXPECT_EQ(sluice::detail::valid_label(near, m), sluice::reference::detail::valid_label(near, m).has_value())
            << +near << " of " << m;
    }
}

TEST(CoreLabels, ValidLabelIsTheOraclesRuleForEveryLabelType) {
  expect_valid_label_as_the_oracle<std::int8_t>();
  expect_valid_label_as_the_oracle<std::uint8_t>();
  expect_valid_label_as_the_oracle<std::int16_t>();
  expect_valid_label_as_the_oracle<std::uint16_t>();
  expect_valid_label_as_the_oracle<std::int32_t>();
  expect_valid_label_as_the_oracle<std::uint32_t>();
  expect_valid_label_as_the_oracle<std::int64_t>();
  expect_valid_label_as_the_oracle<std::uint64_t>();
}

TEST(CoreLabels, ValidLabelIsExact) {
  static_assert(sluice::detail::valid_label(std::int32_t{0}, 1));
  static_assert(!sluice::detail::valid_label(std::int32_t{-1}, std::numeric_limits<std::size_t>::max()));
  // Neither side narrows: 2^32 is not label 0 of one bucket, and 2^32 − 1 is a label of 2^32 buckets.
  EXPECT_FALSE(sluice::detail::valid_label(std::uint64_t{1} << 32, 1));
  EXPECT_TRUE(sluice::detail::valid_label(std::uint32_t{0xffffffffu}, std::size_t{1} << 32));
  EXPECT_FALSE(sluice::detail::valid_label(std::uint32_t{0xffffffffu}, (std::size_t{1} << 32) - 1));
}

}  // namespace
