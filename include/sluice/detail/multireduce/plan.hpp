// plan.hpp: PLACEHOLDER while the automatic choice is being built (session 5).
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>

#include <cstddef>
#include <cstdint>

namespace sluice {
enum class multireduce_algorithm;
struct multireduce_options;
}  // namespace sluice

namespace sluice::detail::multireduce {

template <class T, class Op, class Options>
auto resolve(const context&, const char* function, std::uint32_t, std::size_t, const Options& options) {
  if (options.algorithm == decltype(options.algorithm){}) throw invalid_argument(function, "options", "automatic is not built yet");
  return options.algorithm;
}

}  // namespace sluice::detail::multireduce
