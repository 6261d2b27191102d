// sluice/detail/group_by/open_addressing.cuh: group_by's single-pass strategy: every pair straight into
// the global table (detail/group_by/table.cuh). Each warp takes 32 consecutive pairs; lanes holding one key
// (__match_any_sync) fold their values onto the lowest of them (warp::fold_peers), which alone walks the
// table from the key's home slot and combines with an atomic (core/atomics.cuh: a hardware RED for +, min,
// max and bit operations). Claims are counted a block at a time.
// Work per pair: one match, a walk of about two slots, one atomic, all in L2 while the table fits there;
// the L2's request rate bounds it when the keys are many and distinct (docs/perf-notes.md, "group_by").
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/core/operators.hpp>
#include <sluice/core/values.hpp>
#include <sluice/detail/group_by/sizing.hpp>
#include <sluice/detail/group_by/table.cuh>
#include <sluice/detail/group_by/tuning.hpp>
#include <sluice/warp/reduce.cuh>
#include <sluice/warp/shuffle.cuh>

#include <cstddef>
#include <cstdint>

namespace sluice::detail::group_by {

/// The pair i (valid where i < n) of a warp's window, read and folded with the window's other pairs of
/// its key: returns whether this lane leads its key in the window (its value then holds the fold).
template <class W, class V, class Op>
__device__ __forceinline__ bool load_and_fold(const W* keys, const V* values, std::size_t i, std::size_t n, W& key,
                                              V& value, Op op) {
  const bool valid = i < n;
  key = valid ? keys[i] : W{};
  if constexpr (has_values<V>) value = valid ? values[i] : identity<Op, V>();
  const unsigned valid_lanes = __ballot_sync(warp::full_mask, valid);
  const unsigned same_key = __match_any_sync(warp::full_mask, key);
  const unsigned peers = valid ? same_key & valid_lanes : 0u;
  if constexpr (has_values<V>) {
    bool leads = false;
    warp::fold_peers(peers, value, op, [&](const V& fold) {
      value = fold;
      leads = true;
    });
    return leads;
  } else {
    return peers != 0u && __ffs(peers) - 1 == warp::lane_id();
  }
}

/// Warp w of the grid takes pairs [32·w, 32·w + 32), then strides by the grid's warps.
template <class W, class V, class Op>
__global__ void __launch_bounds__(tuning::threads)
    aggregate_kernel(const W* __restrict__ keys, const V* __restrict__ values, std::size_t n,
                     table_view<W, V> table, Op op) {
  const std::size_t first = (blockIdx.x * std::size_t{blockDim.x} + threadIdx.x) - warp::lane_id();
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  unsigned claims = 0;
  bool overflow = false;
  for (std::size_t base = first; base < n; base += stride) {  // uniform in the warp: every lane joins the votes
    W key;
    V value{};
    const bool leader = load_and_fold(keys, values, base + warp::lane_id(), n, key, value, op);
    if (leader && key == empty_word<W>) combine_empty_word(table, value, op);
    const bool walks = leader && key != empty_word<W>;
    slot<W, V>* target = find_or_claim_in(table, key, walks, claims);
    if (target != nullptr) combine_value(target, value, op);
    overflow |= walks && target == nullptr;
  }
  report_block(table.report, claims, overflow);
}

/// Launches the single pass over keys[0, n) into `table`.
template <class W, class V, class Op>
void aggregate_open_addressing(context& ctx, const W* keys, const V* values, std::size_t n,
                               const table_view<W, V>& table, Op op) {
  if (n == 0) return;
  const auto kernel = aggregate_kernel<W, V, Op>;
  const auto grid = static_cast<unsigned>(one_wave_grid(ctx, kernel, tuning::threads, ceil_div(n, tuning::threads)));
  kernel<<<grid, tuning::threads, 0, ctx.stream()>>>(keys, values, n, table, op);
  SLUICE_CHECK_LAUNCH();
}

}  // namespace sluice::detail::group_by
