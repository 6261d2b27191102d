// sluice/detail/merge_sort/dispatch.cuh: the merge sort's dispatch: the argument checks once, the
// strategy (options.algorithm, or automatic: radix where the keys and comparator allow it, else
// pairwise), E and its shared-memory check or GPU-MMS's K, then the strategy's run; and segmented_sort's
// checks (the offsets as the segmented family checks them) before its tiers (segmented.cuh).
#pragma once

#include <sluice/core/comparators.hpp>
#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/memory.hpp>
#include <sluice/core/scratch.hpp>
#include <sluice/core/span.hpp>
#include <sluice/core/values.hpp>
#include <sluice/detail/merge_sort/gpu_mms.cuh>
#include <sluice/detail/merge_sort/pairwise.cuh>
#include <sluice/detail/merge_sort/segmented.cuh>
#include <sluice/detail/merge_sort/tuning.hpp>
#include <sluice/detail/radix_sort/dispatch.cuh>
#include <sluice/detail/segmented/dispatch.cuh>
#include <sluice/options/merge_sort.hpp>
#include <sluice/options/radix_sort.hpp>
#include <sluice/options/segmented.hpp>

#include <cuda/std/span>

#include <cstddef>
#include <functional>
#include <iterator>
#include <string>
#include <utility>
#include <type_traits>

namespace sluice::detail::merge_sort {

/// Widest key and value the pairwise strategy moves (a tile of them must fit shared memory).
inline constexpr std::size_t max_key_bytes = 32;
inline constexpr std::size_t max_value_bytes = 32;

/// Whether the radix sort orders K as a stable sort under Less does: integral keys (not bool) under
/// less or greater. Not floating point: the radix order puts −0.0 before +0.0 and places NaNs, where a
/// comparison sort under < keeps equal zeros in input order and NaNs wherever the merges leave them.
template <class K, class Less>
inline constexpr bool radix_orders = is_plain_integer<K> && (is_std_less<Less, K> || is_std_greater<Less, K>);

/// options.algorithm resolved: automatic → radix where it orders the keys alike, else pairwise.
template <class K, class Less>
merge_sort_algorithm resolve(const char* function, const merge_sort_options& options) {
  switch (options.algorithm) {
    case merge_sort_algorithm::automatic: return radix_orders<K, Less> ? merge_sort_algorithm::radix : merge_sort_algorithm::pairwise;
    case merge_sort_algorithm::pairwise: return merge_sort_algorithm::pairwise;
    case merge_sort_algorithm::radix:
      if (!radix_orders<K, Less>)
        throw invalid_argument(function, "options.algorithm",
                               "is radix, which sorts integral keys (not bool) under std::less or std::greater only");
      return merge_sort_algorithm::radix;
    case merge_sort_algorithm::gpu_mms: return merge_sort_algorithm::gpu_mms;
  }
  throw invalid_argument(function, "options.algorithm", "is not a merge_sort_algorithm");
}

/// K for GPU-MMS: options.ways, 0 (the tuning's) or a power of two from 2 to 32.
inline int checked_ways(const char* function, const merge_sort_options& options) {
  const int ways = options.ways;
  if (ways != 0 && ways != 2 && ways != 4 && ways != 8 && ways != 16 && ways != 32)
    throw invalid_argument(function, "options.ways",
                           "is " + std::to_string(ways) + ": GPU-MMS merges 2, 4, 8, 16 or 32 lists (0: tuned)");
  return ways;
}

/// The compiled E values as one string ("7, 11, 15, 17, 23"), for messages.
inline std::string compiled_items_list() {
  std::string list;
  for (int e : tuning::compiled_items) list += (list.empty() ? "" : ", ") + std::to_string(e);
  return list;
}

/// E for the pairwise strategy: options.items_per_thread or the tuning's, compiled and fitting the device.
template <class K, class V>
int checked_items_per_thread(const context& ctx, const char* function, const merge_sort_options& options) {
  const int items = options.items_per_thread != 0 ? options.items_per_thread : tuning::items_per_thread(sizeof(K));
  bool compiled = false;
  for (int e : tuning::compiled_items) compiled = compiled || e == items;
  if (!compiled)
    throw invalid_argument(function, "options.items_per_thread",
                           "is " + std::to_string(items) + ": must be 0 (tuned) or one of " + compiled_items_list());
  const std::size_t bytes = block::merge_sort_storage_bytes<K, V>(tuning::block_threads, items);
  if (bytes > ctx.properties().shared_memory_per_block_optin)
    throw invalid_argument(function, "options.items_per_thread",
                           "is " + std::to_string(items) + ": a tile takes " + std::to_string(bytes) +
                               " bytes of shared memory, more than the device's " +
                               std::to_string(ctx.properties().shared_memory_per_block_optin));
  return items;
}

template <class F, std::size_t... I>
void with_compiled_items(int items, F& f, std::index_sequence<I...>) {
  const bool found = ((items == tuning::compiled_items[I] ? (f.template operator()<tuning::compiled_items[I]>(), true)
                                                          : false) ||
                      ...);
  if (!found) throw invalid_argument("merge_sort", "options.items_per_thread", "is not compiled");
}

/// Calls f.template operator()<E>() for the compiled E (tuning::compiled_items) equal to `items`.
template <class F>
void with_items_per_thread(int items, F&& f) {
  with_compiled_items(items, f, std::make_index_sequence<std::size(tuning::compiled_items)>{});
}

template <int Items, class K, class V, class Less>
using pairwise_shape = pairwise<tuning::block_threads, Items, K, V, Less>;

/// merge()'s shape: the pairwise strategy with the tuning's E (callers with their own splits and state
/// call its merge directly: containers/lsm.cuh).
template <class K, class V, class Less>
using merge_shape = pairwise_shape<tuning::items_per_thread(sizeof(K)), K, V, Less>;

template <class K, class V>
constexpr void check_types() {
  static_assert(std::is_trivially_copyable_v<K>, "merge_sort moves trivially copyable keys");
  static_assert(sizeof(K) <= max_key_bytes, "merge_sort sorts keys of at most 32 bytes");
  static_assert(std::is_trivially_copyable_v<V>, "merge_sort_pairs moves trivially copyable values");
  static_assert(!has_values<V> || sizeof(V) <= max_value_bytes, "merge_sort_pairs moves values of at most 32 bytes");
}

/// An output must be its input exactly (in place) or share no byte with it.
template <class A, class B>
void require_same_or_apart(const char* function, const char* parameter, cuda::std::span<A> out,
                           cuda::std::span<B> in, const char* input) {
  if (static_cast<const void*>(out.data()) != static_cast<const void*>(in.data()) && detail::overlaps(out, in))
    throw invalid_argument(function, parameter,
                           std::string("partially overlaps ") + input + " (in place means the same span)");
}

/// Sizes, device memory and aliasing of a sort's arguments; V = no_values: keys only.
template <class K, class V>
void check_sort_arguments(const context& ctx, const char* function, cuda::std::span<const K> keys,
                          cuda::std::span<const V> values, cuda::std::span<K> out_keys, cuda::std::span<V> out_values) {
  require_device_memory(ctx, keys, function, "keys");
  require_device_memory(ctx, out_keys, function, "out_keys");
  if (out_keys.size() != keys.size())
    throw invalid_argument(function, "out_keys", "has " + std::to_string(out_keys.size()) +
                                                     " elements but keys has " + std::to_string(keys.size()));
  require_same_or_apart(function, "out_keys", out_keys, keys, "keys");
  if constexpr (has_values<V>) {
    require_values_per_key(ctx, function, keys.size(), values, out_values);
    require_same_or_apart(function, "out_values", out_values, values, "values");
    if (detail::overlaps(out_keys, values)) throw invalid_argument(function, "out_keys", "overlaps values");
    if (detail::overlaps(out_values, keys)) throw invalid_argument(function, "out_values", "overlaps keys");
    if (detail::overlaps(out_values, out_keys)) throw invalid_argument(function, "out_values", "overlaps out_keys");
  }
}

/// The radix sort of n ≥ 1 keys (ascending under less, descending under greater), through a copy of
/// an input that is also its output (the radix sort is out of place).
template <class K, class V, class Less>
void sort_by_radix(context& ctx, const K* keys, const V* values, K* out_keys, V* out_values, std::size_t n) {
  if constexpr (radix_orders<K, Less>) {
    const radix_sort_options options{.descending = is_std_greater<Less, K>};
    const bool keys_in_place = keys == out_keys;
    const bool values_in_place = has_values<V> && static_cast<const void*>(values) == static_cast<const void*>(out_values);
    scratch<K> keys_copy(ctx, keys_in_place ? n : 0);
    scratch<V> values_copy(ctx, values_in_place ? n : 0);
    if (keys_in_place) {
      SLUICE_CUDA_CHECK(cudaMemcpyAsync(keys_copy.get(), keys, n * sizeof(K), cudaMemcpyDeviceToDevice, ctx.stream()));
      keys = keys_copy.get();
    }
    if constexpr (has_values<V>) {
      if (values_in_place) {
        SLUICE_CUDA_CHECK(
            cudaMemcpyAsync(values_copy.get(), values, n * sizeof(V), cudaMemcpyDeviceToDevice, ctx.stream()));
        values = values_copy.get();
      }
    }
    radix_sort::sort_arrays(ctx, keys, values, out_keys, out_values, n, options);
  }
}

/// The public entry points' sort: the strategy, E and the arguments checked, then the strategy.
template <class K, class V, class Less>
void sort(context& ctx, const char* function, cuda::std::span<const K> keys, cuda::std::span<const V> values,
          cuda::std::span<K> out_keys, cuda::std::span<V> out_values, const merge_sort_options& options, Less less) {
  check_types<K, V>();
  const merge_sort_algorithm algorithm = resolve<K, Less>(function, options);
  const int items = algorithm == merge_sort_algorithm::pairwise ? checked_items_per_thread<K, V>(ctx, function, options) : 0;
  const int ways = algorithm == merge_sort_algorithm::gpu_mms ? checked_ways(function, options) : 0;
  check_sort_arguments<K, V>(ctx, function, keys, values, out_keys, out_values);
  const std::size_t n = keys.size();
  if (n == 0) return;
  auto device = ctx.activate();
  switch (algorithm) {
    case merge_sort_algorithm::pairwise:
      return with_items_per_thread(items, [&]<int Items>() {
        pairwise_shape<Items, K, V, Less>::sort(ctx, keys.data(), values.data(), out_keys.data(), out_values.data(),
                                                static_cast<index_t>(n), less);
      });
    case merge_sort_algorithm::radix:
      return sort_by_radix<K, V, Less>(ctx, keys.data(), values.data(), out_keys.data(), out_values.data(), n);
    case merge_sort_algorithm::gpu_mms: return gpu_mms::sort<K, V, Less>(ctx, keys, values, out_keys, out_values, less, ways);
    case merge_sort_algorithm::automatic: break;  // resolved above
  }
  throw invalid_argument(function, "options.algorithm", "is not a merge_sort_algorithm");
}

/// The public entry points' segmented sort: the sort's argument checks, the offsets checked as the
/// segmented family checks them (segments + 1 entries in device memory; non-decreasing and ≤ n on the
/// device where options.validate_offsets asks), then the tiers (segmented.cuh), or a copy where there is
/// no segment.
template <class K, class V, class Less>
void sort_segments(context& ctx, const char* function, cuda::std::span<const K> keys, cuda::std::span<const V> values,
                   cuda::std::span<const std::size_t> offsets, cuda::std::span<K> out_keys, cuda::std::span<V> out_values,
                   const segmented_sort_options& options, Less less) {
  check_types<K, V>();
  check_sort_arguments<K, V>(ctx, function, keys, values, out_keys, out_values);
  auto device = ctx.activate();
  detail::segmented::prepare_offsets(ctx, function, keys, offsets,
                                     segmented_options{.validate_offsets = options.validate_offsets});
  const std::size_t segments = offsets.size() - 1;
  if (segments >= std::size_t{0xFFFFFFFFu})
    throw invalid_argument(function, "offsets",
                           "has " + std::to_string(segments) + " segments; segmented_sort numbers them below 2^32 - 1");
  const std::size_t n = keys.size();
  if (n == 0) return;
  if (segments == 0) {  // every key is outside the segments: copied through
    if (out_keys.data() != keys.data())
      SLUICE_CUDA_CHECK(
          cudaMemcpyAsync(out_keys.data(), keys.data(), n * sizeof(K), cudaMemcpyDeviceToDevice, ctx.stream()));
    if constexpr (has_values<V>) {
      if (out_values.data() != values.data())
        SLUICE_CUDA_CHECK(
            cudaMemcpyAsync(out_values.data(), values.data(), n * sizeof(V), cudaMemcpyDeviceToDevice, ctx.stream()));
    }
    return;
  }
  const segmented_sort::sort_io<K, V> io{keys.data(),   values.data(), out_keys.data(), out_values.data(),
                                         offsets.data(), segments,      n};
  segmented_sort::sorter<K, V, Less>::run(ctx, io, less);
}

/// The public entry points' merge: sizes, device memory, no overlap (a merge is out of place), then one
/// merge round of the pairwise strategy with the tuning's E.
template <class K, class V, class Less>
void merge(context& ctx, const char* function, cuda::std::span<const K> a, cuda::std::span<const V> a_values,
           cuda::std::span<const K> b, cuda::std::span<const V> b_values, cuda::std::span<K> out,
           cuda::std::span<V> out_values, Less less) {
  check_types<K, V>();
  require_device_memory(ctx, a, function, has_values<V> ? "a_keys" : "a");
  require_device_memory(ctx, b, function, has_values<V> ? "b_keys" : "b");
  const char* out_name = has_values<V> ? "out_keys" : "out";
  require_device_memory(ctx, out, function, out_name);
  if (out.size() != a.size() + b.size())
    throw invalid_argument(function, out_name, "has " + std::to_string(out.size()) + " elements but the inputs have " +
                                                   std::to_string(a.size() + b.size()));
  if (detail::overlaps(out, a) || detail::overlaps(out, b))
    throw invalid_argument(function, out_name, "overlaps an input (merge is out of place)");
  if constexpr (has_values<V>) {
    require_device_memory(ctx, a_values, function, "a_values");
    require_device_memory(ctx, b_values, function, "b_values");
    require_device_memory(ctx, out_values, function, "out_values");
    if (a_values.size() != a.size()) throw invalid_argument(function, "a_values", "must have one value per key");
    if (b_values.size() != b.size()) throw invalid_argument(function, "b_values", "must have one value per key");
    if (out_values.size() != out.size()) throw invalid_argument(function, "out_values", "must have one element per key");
    if (detail::overlaps(out_values, a_values) || detail::overlaps(out_values, b_values) ||
        detail::overlaps(out_values, a) || detail::overlaps(out_values, b) || detail::overlaps(out_values, out))
      throw invalid_argument(function, "out_values", "overlaps an input or out_keys (merge is out of place)");
    if (detail::overlaps(out, a_values) || detail::overlaps(out, b_values))
      throw invalid_argument(function, out_name, "overlaps an input (merge is out of place)");
  }
  const std::size_t n = out.size();
  if (n == 0) return;
  auto device = ctx.activate();
  const run_pair<K, V> pair{a.data(), a_values.data(), static_cast<index_t>(a.size()),
                            b.data(), b_values.data(), static_cast<index_t>(b.size()), 0};
  merge_shape<K, V, Less>::merge(ctx, pair, out.data(), out_values.data(), less);
}

}  // namespace sluice::detail::merge_sort
