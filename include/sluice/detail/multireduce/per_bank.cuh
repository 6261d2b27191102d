// per_bank.cuh: PLACEHOLDER while the strategy is being built (session 5); every entry point throws.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>

#include <cstddef>
#include <cstdint>

namespace sluice::detail::multireduce {

template <class L, class T, class Op>
void run_per_bank_shared(context&, const L*, const T*, std::size_t, T*, std::uint32_t, Op, std::size_t*) {
  throw invalid_argument("multireduce", "options", "the strategy run_per_bank_shared is not built yet");
}

template <class L, class T, class Op>
void run_per_bank_multi_pass(context&, const L*, const T*, std::size_t, T*, std::uint32_t, Op, std::size_t*) {
  throw invalid_argument("multireduce", "options", "the strategy run_per_bank_multi_pass is not built yet");
}

}  // namespace sluice::detail::multireduce
