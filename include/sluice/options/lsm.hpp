// sluice/options/lsm.hpp: the public option types of containers/lsm.cuh (Ashkiani ch. 4): the batch
// size b, the capacity (which fixes the number of levels), the automatic cleanup policy, and the
// operation codes of a mixed batch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace sluice {

struct lsm_options {
  /// b: level i holds b·2^i elements (§4.3.1 rule 1). Larger b means fewer levels and faster queries
  /// (§4.5.3); batches of any size are taken (a partial level-0 buffer holds up to b − 1 elements).
  std::size_t batch_size = std::size_t{1} << 16;
  /// Resident elements (stale copies and tombstones included) the structure must hold: L levels with
  /// b·(2^L − 1) ≥ capacity. A call that would pass b·(2^L − 1) + b − 1 (lsm::capacity()) is refused
  /// with the structure unchanged. Level storage is allocated when a level first fills, not up front.
  std::size_t capacity = std::size_t{1} << 24;
  /// Automatic cleanup (not in the seed): after an update that leaves more than this fraction of the
  /// resident elements stale (overwritten copies, erased ones and tombstones), cleanup runs by itself.
  /// 0 (the default) turns it off. On, each update also sorts its batch once more and looks it up, and
  /// waits for the stream once, to keep the live count exact.
  double cleanup_stale_fraction = 0;
};

/// The operation of one element of a mixed batch (lsm::apply).
enum class lsm_op : std::uint8_t {
  insert,  ///< INSERT(k, v): k → v, replacing any earlier value
  erase,   ///< DELETE(k): a tombstone; an absent key is harmless
};

[[nodiscard]] constexpr std::string_view to_string(lsm_op op) {
  switch (op) {
    case lsm_op::insert: return "insert";
    case lsm_op::erase: return "erase";
  }
  return "?";
}

}  // namespace sluice
