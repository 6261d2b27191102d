// sluice/detail/radix_sort/dispatch.cuh: the radix sort's dispatch: the argument checks once, the
// strategy (onesweep, or multisplit for what onesweep does not do, or split), the pass plan, then the
// passes; multireduce, scatter and histogram call sort() directly.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/memory.hpp>
#include <sluice/core/radix_key.hpp>
#include <sluice/core/scratch.hpp>
#include <sluice/core/span.hpp>
#include <sluice/core/values.hpp>
#include <sluice/detail/multisplit/dispatch.cuh>
#include <sluice/detail/onesweep/dispatch.cuh>
#include <sluice/detail/onesweep/packed_pairs.cuh>
#include <sluice/detail/onesweep/pass_plan.hpp>
#include <sluice/detail/onesweep/workspace.hpp>
#include <sluice/detail/radix_sort/split.cuh>
#include <sluice/detail/radix_sort/tuning.hpp>
#include <sluice/options/multisplit.hpp>
#include <sluice/options/radix_sort.hpp>

#include <cuda/std/span>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

namespace sluice::detail::radix_sort {

// The onesweep engine's names (detail/onesweep/): its pass plan, its sort and its packed pairs.
using onesweep::automatic_pass_bits;
using onesweep::digits_of;
using onesweep::max_pass_bits;
using onesweep::onesweep_max_value_bytes;
using onesweep::onesweep_sort;
using onesweep::packable_pair;
using onesweep::packed_digit;
using onesweep::packed_in_outputs;
using onesweep::packed_word;
using onesweep::pair_reader;
using onesweep::pair_writer;
using onesweep::pass_digits;
using onesweep::pass_plan;
using onesweep::plan_passes;

/// The strategy a call runs: options.algorithm, or automatic's choice, which is onesweep unless the
/// values are wider than onesweep stages or the options ask for what only multisplit does (a pass width
/// other than onesweep's 8 bits, a pass strategy). Measured on the H100 (62c47cf, docs/radix_sort.md):
/// onesweep 1.04× CUB for u32 and u64 keys, 0.99× for u32 pairs; multisplit 0.26–0.35×, split 0.05×.
inline radix_sort_algorithm resolve(const radix_sort_options& options, std::size_t value_bytes) {
  if (options.algorithm != radix_sort_algorithm::automatic) return options.algorithm;
  const bool multisplit_only = (options.bits_per_pass != 0 && options.bits_per_pass != max_pass_bits) ||
                               options.pass_algorithm != multisplit_algorithm::automatic;
  return multisplit_only || value_bytes > onesweep_max_value_bytes ? radix_sort_algorithm::multisplit
                                                                   : radix_sort_algorithm::onesweep;
}

/// What onesweep takes of the options: 8-bit passes, no pass strategy, values of at most 16 bytes.
inline void check_onesweep_options(const char* function, const radix_sort_options& options, std::size_t value_bytes) {
  if (options.bits_per_pass != 0 && options.bits_per_pass != max_pass_bits)
    throw invalid_argument(function, "options.bits_per_pass",
                           "is " + std::to_string(options.bits_per_pass) + ": onesweep sorts 8 bits per pass (0 or 8)");
  if (options.pass_algorithm != multisplit_algorithm::automatic)
    throw invalid_argument(function, "options.pass_algorithm", "applies to the multisplit strategy, not to onesweep");
  if (value_bytes > onesweep_max_value_bytes)
    throw invalid_argument(function, "options.algorithm",
                           "onesweep moves values of at most 16 bytes (automatic sorts wider ones by multisplit)");
}

/// Every bit of the key range, validated; the plan of the passes of `algorithm` (resolved: not automatic).
template <radix_key K>
pass_plan checked_plan(const char* function, radix_sort_algorithm algorithm, const radix_sort_options& options,
                       std::size_t value_bytes) {
  const int end_bit = options.end_bit == -1 ? key_bits<K> : options.end_bit;
  if (end_bit < 0 || end_bit > key_bits<K>)
    throw invalid_argument(function, "options.end_bit",
                           "is " + std::to_string(options.end_bit) + ": must be -1 (every bit) or in [0, " +
                               std::to_string(key_bits<K>) + "]");
  if (options.begin_bit < 0) throw invalid_argument(function, "options.begin_bit", "must not be negative");
  if (options.begin_bit > end_bit) throw invalid_argument(function, "options.begin_bit", "must not exceed end_bit");
  if (algorithm == radix_sort_algorithm::onesweep) {
    check_onesweep_options(function, options, value_bytes);
    return plan_passes(options.begin_bit, end_bit, max_pass_bits);
  }
  const bool split = algorithm == radix_sort_algorithm::split;
  const int widest = split ? 1 : max_pass_bits;
  if (options.bits_per_pass < 0 || options.bits_per_pass > widest)
    throw invalid_argument(function, "options.bits_per_pass",
                           "is " + std::to_string(options.bits_per_pass) + ": must be in [0, " +
                               std::to_string(widest) + (split ? "] for the split strategy" : "] (0: automatic)"));
  const int width = options.bits_per_pass != 0 ? options.bits_per_pass
                    : split                    ? 1
                                               : automatic_pass_bits(sizeof(K), value_bytes);
  return plan_passes(options.begin_bit, end_bit, width);
}

/// Sizes, device memory and aliasing of the arguments; V = no_values: keys only.
template <class K, class V>
void check_arguments(const context& ctx, const char* function, cuda::std::span<const K> keys,
                     cuda::std::span<K> out_keys, cuda::std::span<const V> values, cuda::std::span<V> out_values) {
  require_device_memory(ctx, keys, function, "keys");
  require_device_memory(ctx, out_keys, function, "out_keys");
  if (out_keys.size() != keys.size())
    throw invalid_argument(function, "out_keys", "has " + std::to_string(out_keys.size()) +
                                                     " elements but keys has " + std::to_string(keys.size()));
  if (detail::overlaps(out_keys, keys))
    throw invalid_argument(function, "out_keys", "overlaps keys (radix sort is out of place)");
  if constexpr (has_values<V>) {
    require_values_per_key(ctx, function, keys.size(), values, out_values);
    if (detail::overlaps(out_values, keys) || detail::overlaps(out_values, values))
      throw invalid_argument(function, "out_values", "overlaps an input (radix sort is out of place)");
    if (detail::overlaps(out_keys, values))
      throw invalid_argument(function, "out_keys", "overlaps values (radix sort is out of place)");
    if (detail::overlaps(out_values, out_keys))
      throw invalid_argument(function, "out_values", "overlaps out_keys");
  }
}

/// Runs the plan's passes from (keys, values) to (out_keys, out_values): pass(from, from_values, to,
/// to_values, digit) is one stable pass by `digit`. Destinations alternate between out and the caller's
/// temporary (n keys and n values; unused for one pass) so that the last pass writes out. V = no_values:
/// keys only (the value pointers are null).
template <class K, class V, class Pass>
void run_passes_through(const K* keys, const V* values, K* out_keys, V* out_values, K* keys_temp, V* values_temp,
                        const pass_plan& plan, bool descending, Pass pass) {
  const K* keys_from = keys;
  const V* values_from = values;
  for (int p = 0; p < plan.passes; ++p) {
    const bool to_out = (plan.passes - 1 - p) % 2 == 0;
    K* keys_to = to_out ? out_keys : keys_temp;
    V* values_to = nullptr;
    if constexpr (has_values<V>) values_to = to_out ? out_values : values_temp;
    pass(keys_from, values_from, keys_to, values_to, radix_digit<K>{plan.shift(p), plan.width(p), descending});
    keys_from = keys_to;
    values_from = values_to;
  }
}

/// run_passes_through with the temporary from the context's pool.
template <class K, class V, class Pass>
void run_passes(context& ctx, const K* keys, const V* values, K* out_keys, V* out_values, std::size_t n,
                const pass_plan& plan, bool descending, Pass pass) {
  const bool temporary = plan.passes > 1;
  scratch<K> keys_temp(ctx, temporary ? n : 0);
  scratch<V> values_temp(ctx, has_values<V> && temporary ? n : 0);
  run_passes_through(keys, values, out_keys, out_values, keys_temp.get(), values_temp.get(), plan, descending, pass);
}

template <class K, class V>
void copy_unsorted(context& ctx, const K* keys, const V* values, K* out_keys, V* out_values, std::size_t n) {
  SLUICE_CUDA_CHECK(cudaMemcpyAsync(out_keys, keys, n * sizeof(K), cudaMemcpyDeviceToDevice, ctx.stream()));
  if constexpr (has_values<V>)
    SLUICE_CUDA_CHECK(cudaMemcpyAsync(out_values, values, n * sizeof(V), cudaMemcpyDeviceToDevice, ctx.stream()));
}

template <class K, class V>
void sort_by_multisplit(context& ctx, const K* keys, const V* values, K* out_keys, V* out_values, std::size_t n,
                        const pass_plan& plan, const radix_sort_options& options) {
  const multisplit_options pass_options{.algorithm = options.pass_algorithm};
  run_passes(ctx, keys, values, out_keys, out_values, n, plan, options.descending,
             [&](const K* from, const V* from_values, K* to, V* to_values, radix_digit<K> digit) {
               const multisplit::pass_io<K, V> io{from, from_values, to, to_values, n};
               multisplit::run(ctx, "radix_sort", io, std::uint32_t{1} << digit.bits, digit, {}, nullptr, pass_options);
             });
}

/// Caller-owned temporaries for sorts of at most `capacity` pairs (sort_in_workspace): callers that sort
/// many small arrays (the LSM's batches) keep one and so allocate nothing per sort.
template <class K, class V>
struct onesweep_workspace {
  K* keys_temp = nullptr;    ///< capacity keys
  V* values_temp = nullptr;  ///< capacity values
  void* storage = nullptr;   ///< workspace_storage_bytes<K, V>(capacity) bytes
  std::size_t capacity = 0;
};

/// The onesweep passes with output offsets of type Offset (32 bits while n fits: fewer registers), in
/// temporaries from the context's pool, or in the caller's workspace `w` (n ≤ w->capacity).
template <class Offset, class K, class V>
void sort_by_onesweep(context& ctx, const K* keys, const V* values, K* out_keys, V* out_values, std::size_t n,
                      const pass_plan& plan, bool descending, const onesweep_workspace<K, V>* w = nullptr) {
  onesweep_sort<K, V, Offset> onesweep(ctx, keys, n, plan, descending, w ? w->storage : nullptr);
  const auto pass = [&](const K* from, const V* from_values, K* to, V* to_values, radix_digit<K> digit) {
    onesweep.pass(from, from_values, to, to_values, digit);
  };
  if (w) run_passes_through(keys, values, out_keys, out_values, w->keys_temp, w->values_temp, plan, descending, pass);
  else run_passes(ctx, keys, values, out_keys, out_values, n, plan, descending, pass);
}

/// The plan of sort_in_workspace: every bit, ascending, 8-bit passes.
template <class K>
constexpr pass_plan full_key_plan() {
  return plan_passes(0, key_bits<K>, max_pass_bits);
}

/// Bytes of onesweep_workspace::storage for sorts of at most `capacity` pairs: the larger of the layouts
/// of the two offset widths, each growing with n (workspace.hpp).
template <class K, class V>
std::size_t workspace_storage_bytes(std::size_t capacity) {
  using narrow = onesweep::onesweep_shape<K, V, std::uint32_t>;
  using wide = onesweep::onesweep_shape<K, V, unsigned long long>;
  const int passes = full_key_plan<K>().passes;
  const std::size_t a = onesweep::plan_workspace(capacity, passes, narrow::tile, narrow::portion, narrow::digits).bytes;
  const std::size_t b = onesweep::plan_workspace(capacity, passes, wide::tile, wide::portion, wide::digits).bytes;
  return a > b ? a : b;
}

/// out = the n ≤ w.capacity pairs sorted stably by every bit of their keys, ascending (as radix_sort_pairs
/// with default options), by onesweep in the caller's workspace: no pool allocation, one memset, the
/// histogram's two kernels and one kernel a pass. No argument checks (the caller's arrays, out of place;
/// never the packed pairs of sort_packed_by_onesweep, which write the outputs between passes).
template <class K, class V>
void sort_in_workspace(context& ctx, const K* keys, const V* values, K* out_keys, V* out_values, std::size_t n,
                       const onesweep_workspace<K, V>& w) {
  static_assert(sizeof(V) <= onesweep_max_value_bytes, "onesweep moves values of at most 16 bytes");
  if (n == 0) return;
  constexpr pass_plan plan = full_key_plan<K>();
  if (n <= std::numeric_limits<std::uint32_t>::max())
    return sort_by_onesweep<std::uint32_t>(ctx, keys, values, out_keys, out_values, n, plan, false, &w);
  sort_by_onesweep<unsigned long long>(ctx, keys, values, out_keys, out_values, n, plan, false, &w);
}

/// Whether a sort of 4-byte keys with 4-byte values runs its onesweep passes over packed words
/// (sort_packed_by_onesweep): from tuning::packed_pairs_min_passes passes on (the last pass, unpacking,
/// is slower than a separate pass, the others faster; docs/perf-notes.md, onesweep packed pairs), and
/// where both outputs are 8-byte aligned (they hold packed words between passes).
template <class K, class V>
bool packs_pairs(const pass_plan& plan, const K* out_keys, const V* out_values) {
  if constexpr (!packable_pair<K, V>) return false;
  const auto aligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % alignof(packed_word) == 0; };
  return plan.passes >= tuning::packed_pairs_min_passes && aligned(out_keys) && aligned(out_values);
}

/// The onesweep passes of 4-byte keys with 4-byte values, moved as packed words (packed_pairs.cuh): the
/// first pass reads the caller's arrays through a pair_reader, the last writes them through a
/// pair_writer from a temporary of n packed words (+ 1, the spare word of packed_in_outputs), and the
/// passes between alternate between that temporary and the outputs holding packed words
/// (packed_in_outputs). The temporary takes the bytes the separate keys' and values' temporaries would.
template <class Offset, class K, class V>
  requires packable_pair<K, V>
void sort_packed_by_onesweep(context& ctx, const K* keys, const V* values, K* out_keys, V* out_values, std::size_t n,
                             const pass_plan& plan, bool descending) {
  const pass_digits<K> digits = digits_of<K>(plan, descending);
  onesweep_sort<packed_word, no_values, Offset, packed_digit<K>> onesweep(ctx, keys, n, digits);
  scratch<packed_word> temporary(ctx, n + 1);
  const packed_in_outputs in_outputs{reinterpret_cast<packed_word*>(out_keys),
                                     reinterpret_cast<packed_word*>(out_values), temporary.get() + n, n / 2};
  const pair_writer<K, V> out{out_keys, out_values};
  const auto* packed = static_cast<const packed_word*>(temporary.get());
  const auto digit = [&](int p) { return packed_digit<K>{digits.digit[p]}; };
  // The last pass reads the temporary, so pass p writes the temporary where passes − 1 − p is odd, else
  // the outputs.
  const pair_reader<K, V> in{keys, values};
  if (plan.passes % 2 == 0) onesweep.pass_through(in, nullptr, temporary.get(), nullptr, digit(0));
  else onesweep.pass_through(in, nullptr, in_outputs, nullptr, digit(0));
  for (int p = 1; p < plan.passes; ++p) {
    if ((plan.passes - p) % 2 == 0) onesweep.pass_through(in_outputs, nullptr, temporary.get(), nullptr, digit(p));
    else if (p < plan.passes - 1) onesweep.pass_through(packed, nullptr, in_outputs, nullptr, digit(p));
    else onesweep.pass_through(packed, nullptr, out, nullptr, digit(p));
  }
}

/// The split passes with scan indices of type I (32 bits while n fits).
template <class I, class K, class V>
void sort_by_split(context& ctx, const K* keys, const V* values, K* out_keys, V* out_values, std::size_t n,
                   const pass_plan& plan, bool descending) {
  scratch<I> zero(ctx, n);
  run_passes(ctx, keys, values, out_keys, out_values, n, plan, descending,
             [&](const K* from, const V* from_values, K* to, V* to_values, radix_digit<K> bit) {
               split_pass(ctx, from, from_values, to, to_values, n, bit, zero.get());
             });
}

/// The sort of n ≥ 1 keys (and values; V = no_values: none) by a resolved strategy and its plan, without
/// the argument checks.
template <class K, class V>
void run(context& ctx, radix_sort_algorithm algorithm, const pass_plan& plan, const K* keys, const V* values,
         K* out_keys, V* out_values, std::size_t n, const radix_sort_options& options) {
  if (plan.passes == 0) return copy_unsorted(ctx, keys, values, out_keys, out_values, n);
  switch (algorithm) {
    case radix_sort_algorithm::onesweep:
      if constexpr (packable_pair<K, V>) {
        if (packs_pairs(plan, out_keys, out_values)) {
          if (n <= std::numeric_limits<std::uint32_t>::max())
            return sort_packed_by_onesweep<std::uint32_t>(ctx, keys, values, out_keys,
                                                          out_values, n, plan, options.descending);
          return sort_packed_by_onesweep<unsigned long long>(ctx, keys, values, out_keys,
                                                             out_values, n, plan, options.descending);
        }
      }
      if constexpr (sizeof(V) <= onesweep_max_value_bytes) {  // wider values were rejected by checked_plan
        if (n <= std::numeric_limits<std::uint32_t>::max())
          return sort_by_onesweep<std::uint32_t>(ctx, keys, values, out_keys, out_values,
                                                 n, plan, options.descending);
        return sort_by_onesweep<unsigned long long>(ctx, keys, values, out_keys,
                                                    out_values, n, plan, options.descending);
      }
      break;
    case radix_sort_algorithm::automatic: break;  // resolved above
    case radix_sort_algorithm::multisplit:
      return sort_by_multisplit(ctx, keys, values, out_keys, out_values, n, plan, options);
    case radix_sort_algorithm::split:
      if (n <= std::numeric_limits<std::uint32_t>::max())
        return sort_by_split<std::uint32_t>(ctx, keys, values, out_keys, out_values, n,
                                            plan, options.descending);
      return sort_by_split<std::uint64_t>(ctx, keys, values, out_keys, out_values, n, plan,
                                          options.descending);
  }
  throw invalid_argument("radix_sort", "options.algorithm", "is not a radix_sort_algorithm");
}

/// The sort as other families call it: device arrays of n elements (n may be 0), options they know to
/// be valid, the context's device active.
template <class K, class V = no_values>
void sort_arrays(context& ctx, const K* keys, const V* values, K* out_keys, V* out_values, std::size_t n,
                 const radix_sort_options& options) {
  const std::size_t value_bytes = has_values<V> ? sizeof(V) : 0;
  const radix_sort_algorithm algorithm = resolve(options, value_bytes);
  const pass_plan plan = checked_plan<K>("radix_sort", algorithm, options, value_bytes);
  if (n != 0) run(ctx, algorithm, plan, keys, values, out_keys, out_values, n, options);
}

/// The public entry points' sort: the options' plan and the arguments checked, then run().
template <class K, class V>
void sort(context& ctx, const char* function, cuda::std::span<const K> keys, cuda::std::span<const V> values,
          cuda::std::span<K> out_keys, cuda::std::span<V> out_values, const radix_sort_options& options) {
  static_assert(std::is_trivially_copyable_v<V>, "radix_sort_pairs moves trivially copyable values");
  const std::size_t value_bytes = has_values<V> ? sizeof(V) : 0;
  const radix_sort_algorithm algorithm = resolve(options, value_bytes);
  const pass_plan plan = checked_plan<K>(function, algorithm, options, value_bytes);
  check_arguments<K, V>(ctx, function, keys, out_keys, values, out_values);
  const std::size_t n = keys.size();
  if (n == 0) return;
  auto device = ctx.activate();
  run(ctx, algorithm, plan, keys.data(), values.data(), out_keys.data(), out_values.data(), n, options);
}

}  // namespace sluice::detail::radix_sort
