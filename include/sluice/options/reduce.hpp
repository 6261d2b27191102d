// sluice/options/reduce.hpp: the public option types of reduce.cuh, beside it so that the reduce's
// dispatch (detail/reduce/dispatch.cuh) can name them without the entry points.
#pragma once

#include <string_view>

namespace sluice {

enum class reduce_algorithm {
  automatic,                    ///< two_pass_tiles: measured fastest (docs/perf-notes.md)
  two_pass_tiles,               ///< one wave of blocks over runs of vector-loaded tiles, then one block
  dtu_global_tree,              ///< DTU Listing 5.4: tree in global memory (on a copy), multi-pass; commutative
  dtu_shared_tree,              ///< DTU Listing 5.6: shared-memory tree per block, multi-pass; commutative
  palik_interleaved,            ///< Palik §3.3–3.4: per-thread chunks, interleaved tree; order-preserving
  palik_sequential_addressing,  ///< Palik §3.6: i with i + len/2, warp-synchronous tail; commutative
  warp_shuffle,                 ///< Palik §3.5: warp shuffles, block over warp partials, grid; order-preserving
};

struct reduce_options {
  reduce_algorithm algorithm = reduce_algorithm::automatic;
};

/// The enumerator's name ("dtu_global_tree"), for reports and test names.
[[nodiscard]] constexpr std::string_view to_string(reduce_algorithm algorithm) {
  switch (algorithm) {
    case reduce_algorithm::automatic: return "automatic";
    case reduce_algorithm::two_pass_tiles: return "two_pass_tiles";
    case reduce_algorithm::dtu_global_tree: return "dtu_global_tree";
    case reduce_algorithm::dtu_shared_tree: return "dtu_shared_tree";
    case reduce_algorithm::palik_interleaved: return "palik_interleaved";
    case reduce_algorithm::palik_sequential_addressing: return "palik_sequential_addressing";
    case reduce_algorithm::warp_shuffle: return "warp_shuffle";
  }
  return "unknown";
}

/// True for the strategies that reorder operands: they accept only commutative operators.
[[nodiscard]] constexpr bool requires_commutative_operator(reduce_algorithm algorithm) {
  return algorithm == reduce_algorithm::dtu_global_tree || algorithm == reduce_algorithm::dtu_shared_tree ||
         algorithm == reduce_algorithm::palik_sequential_addressing;
}

}  // namespace sluice
