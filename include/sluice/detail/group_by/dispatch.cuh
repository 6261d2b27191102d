// sluice/detail/group_by/dispatch.cuh: unique and group_by_reduce through the flat table: the distinct keys
// to size for (the caller's count, or the sketch), the strategy (sizing.hpp's table_strategy), the table
// built by it and compacted (table.cuh).
#pragma once

#include <sluice/core/atomics.cuh>
#include <sluice/core/context.hpp>
#include <sluice/core/values.hpp>
#include <sluice/detail/group_by/open_addressing.cuh>
#include <sluice/detail/group_by/partitioned.cuh>
#include <sluice/detail/group_by/sizing.hpp>
#include <sluice/detail/group_by/sketch.cuh>
#include <sluice/detail/group_by/table.cuh>
#include <sluice/detail/group_by/tuning.hpp>
#include <sluice/options/group_by.hpp>

#include <cuda/std/span>

#include <algorithm>
#include <cstddef>

namespace sluice::detail::group_by {

/// unique (V = no_values) or group_by_reduce by open_addressing or partitioned (`asked`, or automatic);
/// returns the distinct key count. check_room(distinct) throws when the outputs cannot hold them.
template <class V, class K, class Op, class CheckRoom>
std::size_t reduce_in_table(context& ctx, const char* function, group_by_algorithm asked, cuda::std::span<const K> keys,
                            const V* values, K* out_keys, V* out_values, std::size_t distinct_given, Op op,
                            CheckRoom check_room) {
  using W = atomic_word<K>;
  const std::size_t n = keys.size();
  const auto* key_words = reinterpret_cast<const W*>(keys.data());
  auto device = ctx.activate();
  const bool sketch = distinct_given == 0 && n >= tuning::sketch_min_keys;
  const double distinct = distinct_to_size_for(n, distinct_given, sketch ? estimate_distinct_keys(ctx, key_words, n) : 0.0);
  constexpr std::size_t slot_bytes = sizeof(slot<W, V>);
  const bool partition =
      table_strategy(asked, n, distinct, slot_bytes, has_values<V>) == group_by_algorithm::partitioned;
  const auto parts = static_cast<std::uint32_t>(std::min<std::size_t>(fold_parts(distinct, slot_bytes), max_parts));
  return build_and_compact<K, W, V, Op>(ctx, table_slots(distinct), out_keys, out_values, [&](const table_view<W, V>& table) {
    if (partition) aggregate_partitioned(ctx, function, key_words, values, n, parts, table, op);
    else aggregate_open_addressing(ctx, key_words, values, n, table, op);
  }, check_room);
}

}  // namespace sluice::detail::group_by
