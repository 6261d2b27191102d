// global_sort_reduce_by_key.cuh: PLACEHOLDER while the strategy is being built (session 5); every entry point throws.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>

#include <cstddef>
#include <cstdint>

namespace sluice::detail::multireduce {

template <class L, class T, class Op>
void run_global_sort_reduce_by_key(context&, const L*, const T*, std::size_t, T*, std::uint32_t, Op, std::size_t*) {
  throw invalid_argument("multireduce", "options", "the strategy run_global_sort_reduce_by_key is not built yet");
}

}  // namespace sluice::detail::multireduce
