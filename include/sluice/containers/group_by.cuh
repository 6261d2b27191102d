// sluice/containers/group_by.cuh: hash-based unique and group-by-reduce on the slab hash (no sorting),
// for what CuPy and PyTorch users do today with sort + reduce_by_key.
//
//   std::size_t d = sluice::unique(ctx, keys, out);                        // the distinct keys
//   std::size_t g = sluice::group_by_reduce(ctx, keys, values, out_keys, out_values, sluice::plus{});
//
// unique: the keys go into a slab_set (insert_unique), which is read out (retrieve_all). group_by_reduce:
// the pairs go into a slab_hash with insert_or_reduce (a key's first value inserted, each later one
// combined into it by a CAS of the pair: op(old, new)), then read out. Both return the distinct key count
// (a wait for the stream) and write the keys (and reductions) to out[0 … count) in no particular order.
// Keys: 4- or 8-byte integers other than the slab hash's markers 0xFF…FF and 0xFF…FE (invalid_argument
// "keys" with the index). Values: trivially copyable, the key's width. op: associative and commutative
// (sluice::is_commutative_v; float sums round differently from run to run).
//
// Work: one slab read and one CAS an element (more for keys whose values contend), one read of every slab
// at the end; memory: the table for `options.distinct` keys (default: every key distinct), which sizes the
// buckets (β = 0.7 when the guess is right; chains grow past it when it is low, the result stays right)
// and a pool reserved for the worst case (containers.md, "the pool's size"). The outputs must hold the
// distinct keys: invalid_argument "out"/"out_keys" otherwise (the table is built before that is known).
#pragma once

#include <sluice/containers/slab_hash.cuh>
#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/operators.hpp>
#include <sluice/options/slab_alloc.hpp>

#include <cuda/std/span>

#include <concepts>
#include <cstddef>
#include <string>
#include <type_traits>

namespace sluice {

struct group_by_options {
  /// Distinct keys expected (sizes the table); 0: as many as keys.
  std::size_t distinct = 0;
  slab_alloc_options allocator = {};
};

namespace detail::group_by {

inline slab_hash_options table_options(std::size_t n, const group_by_options& options) {
  // Growth is off: it would size the buckets for every key inserting (its bound), not the distinct ones.
  return {.capacity = options.distinct != 0 ? options.distinct : n, .grow = false, .allocator = options.allocator};
}

inline void require_room(const char* function, const char* parameter, std::size_t room, std::size_t distinct) {
  if (room < distinct)
    throw invalid_argument(function, parameter,
                           "holds " + std::to_string(room) + " elements but there are " + std::to_string(distinct) +
                               " distinct keys");
}

}  // namespace detail::group_by

/// The distinct keys of `keys` to out[0 … count), in no particular order; returns count.
template <class KIn, std::size_t E1, class K, std::size_t E2>
  requires std::same_as<std::remove_const_t<KIn>, K>
std::size_t unique(context& ctx, cuda::std::span<KIn, E1> keys, cuda::std::span<K, E2> out,
                   const group_by_options& options = {}) {
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
  static_assert(is_commutative_v<Op>, "group_by_reduce combines a key's values in any order: op must be commutative");
  slab_hash<K, V> table(ctx, detail::group_by::table_options(keys.size(), options));
  table.insert_or_reduce(ctx, cuda::std::span<const K>(keys.data(), keys.size()),
                         cuda::std::span<const V>(values.data(), values.size()), op);
  const std::size_t distinct = table.size(ctx);
  detail::group_by::require_room("group_by_reduce", "out_keys", out_keys.size(), distinct);
  detail::group_by::require_room("group_by_reduce", "out_values", out_values.size(), distinct);
  return table.retrieve_all(ctx, cuda::std::span<K>(out_keys.data(), distinct), cuda::std::span<V>(out_values.data(), distinct));
}

}  // namespace sluice
