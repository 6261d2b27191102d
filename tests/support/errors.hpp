// tests/support/errors.hpp: asserting that a call rejects its input with sluice::invalid_argument
// naming the right parameter (and, where given, the first offending index).
#pragma once

#include <sluice/core/error.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <optional>
#include <string_view>

namespace sluice::testing {

/// f() must throw invalid_argument naming `parameter`.
template <class F>
void expect_invalid_argument(F f, std::string_view parameter) {
  try {
    f();
    ADD_FAILURE() << "expected sluice::invalid_argument for '" << parameter << "'";
  } catch (const sluice::invalid_argument& e) {
    EXPECT_EQ(e.parameter(), parameter) << e.what();
  }
}

/// f() must throw invalid_argument naming `parameter` and reporting `index` (nullopt: no index).
template <class F>
void expect_invalid_argument(F f, std::string_view parameter, std::optional<std::size_t> index) {
  try {
    f();
    ADD_FAILURE() << "expected sluice::invalid_argument for '" << parameter << "'";
  } catch (const sluice::invalid_argument& e) {
    EXPECT_EQ(e.parameter(), parameter) << e.what();
    EXPECT_EQ(e.index(), index) << e.what();
  }
}

}  // namespace sluice::testing
