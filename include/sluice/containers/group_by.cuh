// sluice/containers/group_by.cuh: hash-based unique and group-by-reduce (no sorting), for what CuPy and
// PyTorch users do today with sort + reduce_by_key.
//
//   std::size_t d = sluice::unique(ctx, keys, out);                        // the distinct keys
//   std::size_t g = sluice::group_by_reduce(ctx, keys, values, out_keys, out_values, sluice::plus{});
//
// Both return the distinct key count (a wait for the stream) and write the keys (and reductions) to
// out[0 … count) in no particular order. Keys: 4- or 8-byte integers. op: associative and commutative
// (sluice::is_commutative_v; float sums round differently from run to run). Three strategies
// (options.algorithm); the first two build one flat table with linear probing (detail/group_by/), sized for
// the distinct keys: the caller's options.distinct, or a HyperLogLog sketch of the keys (one more read of
// them). They take every key value, need op's identity (sluice::has_identity_v) and a 4- or 8-byte V; a
// distinct count given far too low costs a restart with twice the slots, never a wrong result; memory:
// slots for the distinct keys / 0.6, 8 or 16 bytes each.
//   open_addressing  every pair straight into the table: lanes of a warp holding one key fold their values
//                    first, then one walk and one atomic in L2 a distinct key of the warp.
//   partitioned      the pairs split by hash into parts of ~4096 distinct keys (one multisplit; none when
//                    the keys fit one part), each part folded in shared memory, then into the table; a
//                    copy of the pairs more memory.
//   slab_hash        the keys go into a slab set (insert_unique) or map (insert_or_reduce: a key's first
//                    value inserted, each later one combined into it by a CAS of the pair: op(old, new)),
//                    which is read out. Any commutative op; V the key's width; keys other than the slab
//                    hash's markers 0xFF…FF and 0xFF…FE (invalid_argument "keys" with the index). Table for
//                    options.distinct keys (default: every key distinct), pool for the worst case.
// automatic: slab_hash where the table cannot run op on V; otherwise partitioned while one multisplit
// pass makes the parts (up to ~2 M distinct keys) and the keys are many enough to sketch, open_addressing
// otherwise (detail/group_by/sizing.hpp, table_strategy).
// The outputs must hold the distinct keys: invalid_argument "out"/"out_keys" otherwise (the table is
// built before that is known). An algorithm outside group_by_algorithm, or a table strategy asked for an
// op or V it cannot run: invalid_argument "options.algorithm".
#pragma once

#include <sluice/containers/slab_hash.cuh>
#include <sluice/core/atomics.cuh>
#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/memory.hpp>
#include <sluice/core/operators.hpp>
#include <sluice/detail/group_by/dispatch.cuh>
#include <sluice/options/group_by.hpp>

#include <cuda/std/span>

#include <concepts>
#include <cstddef>
#include <string>
#include <type_traits>

namespace sluice {

namespace detail::group_by {

inline slab_hash_options table_options(std::size_t n, const group_by_options& options) {
  // Growth is off: it would size the buckets for every key inserting (its bound), not the distinct ones.
  return {.capacity = options.distinct != 0 ? options.distinct : n, .grow = false, .allocator = options.allocator};
}

/// Whether the flat table's strategies (open_addressing, partitioned) can run op on V (no_values: unique).
template <class V, class Op>
constexpr bool table_runs() {
  if constexpr (!has_values<V>) return true;
  else return atomic_value<V> && has_identity_v<Op, V>;
}

/// The strategy a call runs: slab_hash where automatic cannot take the table (automatic stays automatic
/// otherwise, resolved by the distinct keys: sizing.hpp's table_strategy); an unknown or impossible choice
/// refused.
template <class V, class Op>
group_by_algorithm choose(const char* function, group_by_algorithm asked) {
  require_known_algorithm(function, asked, "group_by_algorithm");
  if (asked == group_by_algorithm::slab_hash) return asked;
  if (table_runs<V, Op>()) return asked;
  if (asked == group_by_algorithm::automatic) return group_by_algorithm::slab_hash;
  throw invalid_argument(function, "options.algorithm",
                         std::string(to_string(asked)) + " needs an operator with an identity and a 4- or 8-byte value");
}

}  // namespace detail::group_by

/// The distinct keys of `keys` to out[0 … count), in no particular order; returns count.
template <class KIn, std::size_t E1, class K, std::size_t E2>
  requires std::same_as<std::remove_const_t<KIn>, K>
std::size_t unique(context& ctx, cuda::std::span<KIn, E1> keys, cuda::std::span<K, E2> out,
                   const group_by_options& options = {}) {
  static_assert(sizeof(K) == 4 || sizeof(K) == 8, "unique takes 4- or 8-byte keys");
  require_device_memory(ctx, keys, "unique", "keys");
  require_device_memory(ctx, out, "unique", "out");
  const auto algorithm = detail::group_by::choose<detail::no_values, plus>("unique", options.algorithm);
  if (algorithm != group_by_algorithm::slab_hash)
    return detail::group_by::reduce_in_table<detail::no_values>(
        ctx, "unique", algorithm, cuda::std::span<const K>(keys.data(), keys.size()), nullptr, out.data(), nullptr,
        options.distinct, plus{},
        [&](std::size_t distinct) { detail::group_by::require_room("unique", "out", out.size(), distinct); });
  slab_set<K> set(ctx, detail::group_by::table_options(keys.size(), options));
  set.insert_unique(ctx, cuda::std::span<const K>(keys.data(), keys.size()));
  const std::size_t distinct = set.size(ctx);
  detail::group_by::require_room("unique", "out", out.size(), distinct);
  return set.retrieve_all(ctx, cuda::std::span<K>(out.data(), distinct));
}

/// The distinct keys of `keys` and, for each, op over its values, to out_keys/out_values[0 … count), in
/// no particular order; returns count.
template <class KIn, std::size_t E1, class VIn, std::size_t E2, class K, std::size_t E3, class V, std::size_t E4, class Op>
  requires std::same_as<std::remove_const_t<KIn>, K> && std::same_as<std::remove_const_t<VIn>, V>
std::size_t group_by_reduce(context& ctx, cuda::std::span<KIn, E1> keys, cuda::std::span<VIn, E2> values,
                            cuda::std::span<K, E3> out_keys, cuda::std::span<V, E4> out_values, Op op,
                            const group_by_options& options = {}) {
  static_assert(sizeof(K) == 4 || sizeof(K) == 8, "group_by_reduce takes 4- or 8-byte keys");
  static_assert(is_commutative_v<Op>, "group_by_reduce combines a key's values in any order: op must be commutative");
  constexpr const char* function = "group_by_reduce";
  require_device_memory(ctx, keys, function, "keys");
  require_device_memory(ctx, values, function, "values");
  require_device_memory(ctx, out_keys, function, "out_keys");
  require_device_memory(ctx, out_values, function, "out_values");
  if (values.size() != keys.size()) throw invalid_argument(function, "values", "must have one value per key");
  const auto algorithm = detail::group_by::choose<V, Op>(function, options.algorithm);
  if (algorithm != group_by_algorithm::slab_hash) {
    if constexpr (detail::group_by::table_runs<V, Op>())
      return detail::group_by::reduce_in_table<V>(
          ctx, function, algorithm, cuda::std::span<const K>(keys.data(), keys.size()), values.data(), out_keys.data(),
          out_values.data(), options.distinct, op, [&](std::size_t distinct) {
            detail::group_by::require_room(function, "out_keys", out_keys.size(), distinct);
            detail::group_by::require_room(function, "out_values", out_values.size(), distinct);
          });
  }
  if constexpr (sizeof(V) == sizeof(K)) {
    slab_hash<K, V> table(ctx, detail::group_by::table_options(keys.size(), options));
    table.insert_or_reduce(ctx, cuda::std::span<const K>(keys.data(), keys.size()),
                           cuda::std::span<const V>(values.data(), values.size()), op);
    const std::size_t distinct = table.size(ctx);
    detail::group_by::require_room(function, "out_keys", out_keys.size(), distinct);
    detail::group_by::require_room(function, "out_values", out_values.size(), distinct);
    return table.retrieve_all(ctx, cuda::std::span<K>(out_keys.data(), distinct), cuda::std::span<V>(out_values.data(), distinct));
  } else {
    throw invalid_argument(function, "values", "the slab_hash strategy needs values of the keys' width");
  }
}

}  // namespace sluice
