// tests/support/compare.hpp: comparing a result with the oracle's, with messages that locate the error.
//
// Exact comparison for integers and for non-commutative operators (their order is part of the result);
// a relative tolerance for floating-point sums, whose rounding depends on the combining order.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <sstream>
#include <span>
#include <vector>

namespace sluice::testing {

/// Prints an element for failure messages; overload for struct types without operator<<.
template <class T>
void describe(std::ostream& os, const T& value) {
  if constexpr (requires { os << value; }) os << value;
  else os << "<" << sizeof(T) << "-byte value>";
}

/// Every element equal; on failure reports the count and the first few mismatching indices.
template <class T>
::testing::AssertionResult all_equal(std::span<const T> actual, std::span<const T> expected) {
  if (actual.size() != expected.size())
    return ::testing::AssertionFailure() << "size " << actual.size() << ", expected " << expected.size();
  std::size_t mismatches = 0;
  std::ostringstream first;
  for (std::size_t i = 0; i < actual.size(); ++i) {
    if (actual[i] == expected[i]) continue;
    if (mismatches++ < 5) {
      first << "\n  [" << i << "] got ";
      describe(first, actual[i]);
      first << ", expected ";
      describe(first, expected[i]);
    }
  }
  if (mismatches == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << mismatches << " of " << actual.size() << " elements differ:" << first.str();
}

template <class T>
::testing::AssertionResult all_equal(const std::vector<T>& actual, const std::vector<T>& expected) {
  return all_equal(std::span<const T>(actual), std::span<const T>(expected));
}

/// |actual - expected| <= tolerance · max(1, |expected|) for every element; NaN never passes unless both are NaN.
template <class T>
::testing::AssertionResult all_near(std::span<const T> actual, std::span<const T> expected, double tolerance) {
  if (actual.size() != expected.size())
    return ::testing::AssertionFailure() << "size " << actual.size() << ", expected " << expected.size();
  std::size_t mismatches = 0;
  std::ostringstream first;
  for (std::size_t i = 0; i < actual.size(); ++i) {
    const double a = static_cast<double>(actual[i]);
    const double e = static_cast<double>(expected[i]);
    const bool both_nan = std::isnan(a) && std::isnan(e);
    if (both_nan || std::abs(a - e) <= tolerance * std::max(1.0, std::abs(e))) continue;
    if (mismatches++ < 5) first << "\n  [" << i << "] got " << a << ", expected " << e;
  }
  if (mismatches == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << mismatches << " of " << actual.size() << " elements outside tolerance "
                                       << tolerance << ":" << first.str();
}

template <class T>
::testing::AssertionResult all_near(const std::vector<T>& actual, const std::vector<T>& expected, double tolerance) {
  return all_near(std::span<const T>(actual), std::span<const T>(expected), tolerance);
}

}  // namespace sluice::testing
