// sluice/options/scatter.hpp: gather's and scatter's option types and strategy names, host-only so that the
// automatic choice (detail/scatter/plan.hpp) and its host tests use them without CUDA.
#pragma once

#include <string_view>

namespace sluice {

enum class scatter_semantics {
  any_writer,   ///< one pass; with duplicate destinations an unspecified one of the rivals wins
  last_writer,  ///< the rival with the largest source position wins (claim pass + write pass)
};

enum class scatter_algorithm {
  automatic,     ///< direct (detail/scatter/plan.hpp: the indices' order is unknown without reading them)
  direct,        ///< Eilers Alg. 2.1/3.3: each value stored at its index straight from the input
  partial_sort,  ///< Eilers §4.5.1: (index, value) stably sorted by the index's top bits first
};

/// The enumerator's name ("partial_sort"), for messages, reports and test names.
[[nodiscard]] constexpr std::string_view to_string(scatter_algorithm algorithm) {
  switch (algorithm) {
    case scatter_algorithm::automatic: return "automatic";
    case scatter_algorithm::direct: return "direct";
    case scatter_algorithm::partial_sort: return "partial_sort";
  }
  return "?";
}

struct gather_options {
  /// Throw sluice::invalid_argument at the first out-of-range index instead of skipping (synchronises).
  bool strict = false;
};

struct scatter_options {
  scatter_semantics semantics = scatter_semantics::any_writer;
  /// Throw sluice::invalid_argument at the first out-of-range index instead of skipping (synchronises).
  bool strict = false;
  scatter_algorithm algorithm = scatter_algorithm::automatic;
  /// partial_sort: sort by this many top bits of the ⌈log2 out.size()⌉ bits of an index in range (at
  /// most the index type's width), leaving windows of 2^(⌈log2 out.size()⌉ − bits) destination slots;
  /// 0: chosen from out.size() · sizeof(T) and the device's L2 size (detail/scatter/plan.hpp); more bits
  /// than an index in range has sort it fully. Negative: invalid_argument.
  int partial_sort_bits = 0;
};

}  // namespace sluice
