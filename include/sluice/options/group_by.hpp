// sluice/options/group_by.hpp: the options of containers/group_by.cuh (hash-based unique and
// group_by_reduce), host-only so that the table's sizing (detail/group_by/sizing.hpp) and its host tests
// use them without CUDA.
#pragma once

#include <sluice/options/slab_alloc.hpp>

#include <cstddef>
#include <string_view>

namespace sluice {

enum class group_by_algorithm {
  automatic,        ///< partitioned or open_addressing where they can run the operator (by the distinct keys:
                    ///< detail/group_by/sizing.hpp, table_strategy), slab_hash otherwise
  open_addressing,  ///< every pair straight into a flat table sized for the distinct keys, one walk and one
                    ///< atomic in L2; every key value allowed; op needs an identity and a 4- or 8-byte value
  partitioned,      ///< the pairs split by hash into parts of a few thousand distinct keys (a multisplit),
                    ///< each part folded in shared memory, then into the flat table; as open_addressing
  slab_hash,        ///< the keys go into a slab hash (Ashkiani ch. 5) and are read out; any commutative op
};

/// The enumerator's name ("open_addressing"), for messages, reports and test names.
[[nodiscard]] constexpr std::string_view to_string(group_by_algorithm algorithm) {
  switch (algorithm) {
    case group_by_algorithm::automatic: return "automatic";
    case group_by_algorithm::open_addressing: return "open_addressing";
    case group_by_algorithm::partitioned: return "partitioned";
    case group_by_algorithm::slab_hash: return "slab_hash";
  }
  return "?";
}

struct group_by_options {
  /// Distinct keys expected (sizes the table); 0: open_addressing and partitioned estimate them (one read
  /// of the keys, a HyperLogLog sketch), slab_hash takes as many as keys.
  std::size_t distinct = 0;
  group_by_algorithm algorithm = group_by_algorithm::automatic;
  /// The slab pool of the slab_hash strategy.
  slab_alloc_options allocator = {};
};

}  // namespace sluice
