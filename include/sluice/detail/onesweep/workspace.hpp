// sluice/detail/onesweep/workspace.hpp: the layout of a caller-owned onesweep workspace, for callers that
// sort many small arrays (the LSM's batches, containers/lsm.cuh): one block of bytes holding the digit
// starts, the tile counters and one status array per pass, so that a sort allocates nothing and one
// memset zeroes all of its state (onesweep_sort's own storage keeps one status array, zeroed before each
// pass: 2 + passes memsets and 3 pool allocations a sort). Pure host code (tests/host/onesweep_workspace_test.cpp).
#pragma once

#include <cstddef>

namespace sluice::detail::onesweep {

/// Byte offsets into a workspace for a sort of n keys in `passes` passes, with the pass kernel's tile
/// and portion (onesweep_shape) and `digits` per pass:
///   starts         [portion][pass][digit] unsigned long long: portion 0's are counted (zeroed first),
///                  each later portion's are written by the portion before it
///   tile_counters  [portion][pass] uint32, zeroed
///   status         [pass][tile of a portion][digit] uint32: portion 0 of every pass is zeroed with the
///                  rest, later portions reuse their pass's array after zeroing it again
/// The whole block (bytes) is zeroed by one memset before the histograms.
struct workspace_layout {
  std::size_t tile_counters = 0;  ///< byte offset (the starts begin at 0)
  std::size_t status = 0;         ///< byte offset
  std::size_t status_words = 0;   ///< uint32 words of one pass's status array
  std::size_t bytes = 0;          ///< the whole workspace
};

[[nodiscard]] constexpr workspace_layout plan_workspace(std::size_t n, int passes, std::size_t tile,
                                                        std::size_t portion, int digits) {
  const std::size_t portions = (n + portion - 1) / portion;
  const auto p = static_cast<std::size_t>(passes);
  const auto d = static_cast<std::size_t>(digits);
  const std::size_t portion_keys = n < portion ? n : portion;
  workspace_layout layout;
  layout.tile_counters = portions * p * d * sizeof(unsigned long long);
  layout.status = layout.tile_counters + portions * p * sizeof(unsigned);
  layout.status_words = (portion_keys + tile - 1) / tile * d;
  layout.bytes = layout.status + p * layout.status_words * sizeof(unsigned);
  return layout;
}

}  // namespace sluice::detail::onesweep
