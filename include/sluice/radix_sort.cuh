// sluice/radix_sort.cuh: LSD radix sort of keys or (key, value) pairs by a bit range: onesweep (Adinets
// & Merrill 2022, CUB's design; not from the seeds) by default, and the seeds' strategies for study
// (Ashkiani §3.7.1, "Building a radix sort" on multisplit; the DTU course §5.7 and Palik §5 1-bit split).
//
//   radix_sort(ctx, keys, out_keys, options)
//   radix_sort_pairs(ctx, keys, values, out_keys, out_values, options)
//
// Keys: 8- to 64-bit integers, float, double. The sort is STABLE by bits [begin_bit, end_bit) of each
// key's order-preserving word (core/radix_key.hpp): unsigned integers as they are, signed
// integers with the sign bit flipped, floats with every bit flipped when negative and the sign bit set
// otherwise. Over all bits this is the numeric order, extended to a total order that places
//   −NaN (largest payload first) < −inf < … < −0.0 < +0.0 < … < +inf < +NaN (smallest payload first):
// NaNs by their sign bit, negative ones before −inf and positive ones after +inf, and −0.0 strictly
// before +0.0. Keys with equal fields keep their input order; descending sorts stably by the descending
// field (equal fields still in input order, as CUB's SortKeysDescending), not the reverse of the
// ascending result. Keys and values are moved, never transformed. Exactly reference::radix_sort_keys
// and reference::radix_sort_pairs, which the tests compare bit for bit.
//
//   sluice::radix_sort(ctx, keys.span(), sorted.span());
//   sluice::radix_sort(ctx, keys.span(), sorted.span(), {.begin_bit = 8, .end_bit = 24, .descending = true});
//   sluice::radix_sort_pairs(ctx, keys.span(), values.span(), sorted_keys.span(), sorted_values.span());
//
// Strategies (radix_sort_options::algorithm):
//   automatic    onesweep; multisplit for values over 16 bytes, or when the options ask for what only
//                multisplit does (bits_per_pass other than 0 and 8, a pass_algorithm other than automatic).
//   onesweep     ⌈bits / 8⌉ passes, each one kernel: tiles rank their keys by digit and find their
//                digit runs' places by a decoupled look-back per digit, after one upfront read that
//                counts every pass's digits (detail/radix_sort/onesweep.cuh). Traffic per pass: keys
//                (and values) read once and written once; plus one read of the keys per sort. Values of
//                at most 16 bytes.
//   multisplit   ⌈bits / r⌉ passes, each a stable multisplit into 2^r buckets by the pass's digit
//                (Ashkiani's bit-field buckets f_k(u) = (u >> kr) & (2^r − 1)); r from bits_per_pass,
//                else detail/radix_sort/pass_plan.hpp. Traffic per pass with BMS: keys read twice and
//                written once, values read and written once (the seed's 12 bytes per u32 key, 20 per pair).
//   split        one stable 2-way split per bit by a scan (detail/radix_sort/split.cuh): `bits` passes
//                of 28 bytes per u32 key. For study, not for speed.
// Passes ping-pong between out and one temporary of n keys (+ n values) from the context's pool, so
// that the last pass writes out; one pass needs no temporary, and begin_bit = end_bit copies the input.
// onesweep sorts 4-byte keys with 4-byte values over three passes or more as packed 8-byte words
// (detail/radix_sort/packed_pairs.cuh), held between passes in the temporary and in out_keys and
// out_values themselves where both are 8-byte aligned: the same memory, 4% less time at 2^28 (H100).
// Asynchronous on the context's stream. See docs/radix_sort.md.
//
// Errors (sluice::invalid_argument): begin_bit < 0, end_bit outside [0, 8·sizeof(K)] (−1 means every
// bit), begin_bit > end_bit; bits_per_pass outside [0, 8] (split: 0 or 1; onesweep: 0 or 8); with
// onesweep, a pass_algorithm other than automatic or values over 16 bytes; out_keys, values or
// out_values not of the keys' size; host memory; an output overlapping an input or the other output
// (sort out of place: in place is not supported).
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/memory.hpp>
#include <sluice/core/span.hpp>
#include <sluice/core/radix_key.hpp>
#include <sluice/detail/radix_sort/onesweep.cuh>
#include <sluice/detail/radix_sort/pass_plan.hpp>
#include <sluice/detail/radix_sort/split.cuh>
#include <sluice/multisplit.cuh>
#include <sluice/scan.cuh>

#include <cuda/std/span>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>

namespace sluice {

enum class radix_sort_algorithm {
  automatic,   ///< onesweep; multisplit for what onesweep does not do (see the header comment)
  onesweep,    ///< 8-bit passes of one kernel each, decoupled look-back per digit (Adinets & Merrill; CUB)
  multisplit,  ///< r-bit passes, each a stable multisplit (Ashkiani §3.7.1)
  split,       ///< 1-bit passes, each a stable split by one scan (DTU §5.7, Palik §5.3)
};

/// The enumerator's name ("onesweep"), for reports and test names.
[[nodiscard]] constexpr std::string_view to_string(radix_sort_algorithm algorithm) {
  switch (algorithm) {
    case radix_sort_algorithm::automatic: return "automatic";
    case radix_sort_algorithm::onesweep: return "onesweep";
    case radix_sort_algorithm::multisplit: return "multisplit";
    case radix_sort_algorithm::split: return "split";
  }
  return "?";
}

struct radix_sort_options {
  radix_sort_algorithm algorithm = radix_sort_algorithm::automatic;
  int begin_bit = 0;   ///< the least significant bit sorted on
  int end_bit = -1;    ///< one past the most significant bit sorted on; −1: every bit of the key
  bool descending = false;
  /// multisplit: the widest pass in bits, 1 to 8 (passes are balanced: ⌈bits / r⌉ of them, widths
  /// differing by at most one); 0: automatic. Rerun the seed's Table 3.8 sweep with 4 to 8. onesweep
  /// takes 0 or 8 (its passes are 8 bits); automatic runs multisplit for any other width.
  int bits_per_pass = 0;
  /// multisplit: the strategy of each pass (Ashkiani used BMS). onesweep requires automatic; automatic
  /// runs multisplit for any other.
  multisplit_algorithm pass_algorithm = multisplit_algorithm::automatic;
};

namespace detail::radix_sort {

/// The strategy a call runs: options.algorithm, or automatic's choice, which is onesweep unless the
/// values are wider than onesweep stages or the options ask for what only multisplit does (a pass width
/// other than onesweep's 8 bits, a pass strategy). Measured on the H100 (docs/radix_sort.md): onesweep
/// 1.04× CUB for u32 and u64 keys, 0.99× for u32 pairs; multisplit 0.26–0.35×, split 0.05×.
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
    require_device_memory(ctx, values, function, "values");
    require_device_memory(ctx, out_values, function, "out_values");
    if (values.size() != keys.size()) throw invalid_argument(function, "values", "must have one value per key");
    if (out_values.size() != keys.size())
      throw invalid_argument(function, "out_values", "must have one element per key");
    if (detail::overlaps(out_values, keys) || detail::overlaps(out_values, values))
      throw invalid_argument(function, "out_values", "overlaps an input (radix sort is out of place)");
    if (detail::overlaps(out_keys, values))
      throw invalid_argument(function, "out_keys", "overlaps values (radix sort is out of place)");
    if (detail::overlaps(out_values, out_keys))
      throw invalid_argument(function, "out_values", "overlaps out_keys");
  }
}

/// Runs the plan's passes from (keys, values) to (out_keys, out_values): pass(from, from_values, to,
/// to_values, digit) is one stable pass by `digit`. Destinations alternate between out and one temporary
/// so that the last pass writes out. V = no_values: keys only (the value pointers are null).
template <class K, class V, class Pass>
void run_passes(context& ctx, const K* keys, const V* values, K* out_keys, V* out_values, std::size_t n,
                const pass_plan& plan, bool descending, Pass pass) {
  const bool temporary = plan.passes > 1;
  scan::scratch<K> keys_temp(ctx, temporary ? n : 0);
  scan::scratch<V> values_temp(ctx, has_values<V> && temporary ? n : 0);
  const K* keys_from = keys;
  const V* values_from = values;
  for (int p = 0; p < plan.passes; ++p) {
    const bool to_out = (plan.passes - 1 - p) % 2 == 0;
    K* keys_to = to_out ? out_keys : keys_temp.get();
    V* values_to = nullptr;
    if constexpr (has_values<V>) values_to = to_out ? out_values : values_temp.get();
    pass(keys_from, values_from, keys_to, values_to, radix_digit<K>{plan.shift(p), plan.width(p), descending});
    keys_from = keys_to;
    values_from = values_to;
  }
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
               const auto buckets = std::uint32_t{1} << digit.bits;
               const cuda::std::span<const K> in(from, n);
               const cuda::std::span<K> out(to, n);
               if constexpr (!has_values<V>)
                 sluice::multisplit(ctx, in, out, buckets, digit, {}, nullptr, pass_options);
               else
                 sluice::multisplit_pairs(ctx, in, cuda::std::span<const V>(from_values, n), out,
                                          cuda::std::span<V>(to_values, n), buckets, digit, {}, nullptr,
                                          pass_options);
             });
}

/// The onesweep passes with output offsets of type Offset (32 bits while n fits: fewer registers).
template <class Offset, class K, class V>
void sort_by_onesweep(context& ctx, const K* keys, const V* values, K* out_keys, V* out_values, std::size_t n,
                      const pass_plan& plan, bool descending) {
  onesweep_sort<K, V, Offset> onesweep(ctx, keys, n, plan, descending);
  run_passes(ctx, keys, values, out_keys, out_values, n, plan, descending,
             [&](const K* from, const V* from_values, K* to, V* to_values, radix_digit<K> digit) {
               onesweep.pass(from, from_values, to, to_values, digit);
             });
}

/// Whether a sort of 4-byte keys with 4-byte values runs its onesweep passes over packed words
/// (sort_packed_by_onesweep): from three passes on, and where both outputs are 8-byte aligned (they hold
/// packed words between passes). Measured on the H100 at 2^28 (docs/perf-notes.md, session 14): a pass
/// from the caller's arrays to packed words 1.86 ms, between packed words 1.87, from packed words to the
/// caller's arrays 2.38, the separate pairs pass 2.10-2.11; so two passes cost the same either way
/// (4.24 ms against 4.21) and every pass from the third on gains.
template <class K, class V>
bool packs_pairs(const pass_plan& plan, const K* out_keys, const V* out_values) {
  if constexpr (!packable_pair<K, V>) return false;
  const auto aligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % alignof(packed_word) == 0; };
  return plan.passes >= 3 && aligned(out_keys) && aligned(out_values);
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
  scan::scratch<packed_word> temporary(ctx, n + 1);
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
  scan::scratch<I> zero(ctx, n);
  run_passes(ctx, keys, values, out_keys, out_values, n, plan, descending,
             [&](const K* from, const V* from_values, K* to, V* to_values, radix_digit<K> bit) {
               split_pass(ctx, from, from_values, to, to_values, n, bit, zero.get());
             });
}

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
  if (plan.passes == 0) return copy_unsorted(ctx, keys.data(), values.data(), out_keys.data(), out_values.data(), n);
  switch (algorithm) {
    case radix_sort_algorithm::onesweep:
      if constexpr (packable_pair<K, V>) {
        if (packs_pairs(plan, out_keys.data(), out_values.data())) {
          if (n <= std::numeric_limits<std::uint32_t>::max())
            return sort_packed_by_onesweep<std::uint32_t>(ctx, keys.data(), values.data(), out_keys.data(),
                                                          out_values.data(), n, plan, options.descending);
          return sort_packed_by_onesweep<unsigned long long>(ctx, keys.data(), values.data(), out_keys.data(),
                                                             out_values.data(), n, plan, options.descending);
        }
      }
      if constexpr (sizeof(V) <= onesweep_max_value_bytes) {  // wider values were rejected by checked_plan
        if (n <= std::numeric_limits<std::uint32_t>::max())
          return sort_by_onesweep<std::uint32_t>(ctx, keys.data(), values.data(), out_keys.data(), out_values.data(),
                                                 n, plan, options.descending);
        return sort_by_onesweep<unsigned long long>(ctx, keys.data(), values.data(), out_keys.data(),
                                                    out_values.data(), n, plan, options.descending);
      }
      break;
    case radix_sort_algorithm::automatic: break;  // resolved above
    case radix_sort_algorithm::multisplit:
      return sort_by_multisplit(ctx, keys.data(), values.data(), out_keys.data(), out_values.data(), n, plan, options);
    case radix_sort_algorithm::split:
      if (n <= std::numeric_limits<std::uint32_t>::max())
        return sort_by_split<std::uint32_t>(ctx, keys.data(), values.data(), out_keys.data(), out_values.data(), n,
                                            plan, options.descending);
      return sort_by_split<std::uint64_t>(ctx, keys.data(), values.data(), out_keys.data(), out_values.data(), n, plan,
                                          options.descending);
  }
  throw invalid_argument(function, "options.algorithm", "is not a radix_sort_algorithm");
}

}  // namespace detail::radix_sort

/// out_keys = keys stably sorted by bits [begin_bit, end_bit) of their order-preserving words.
template <class KIn, std::size_t E1, class K, std::size_t E2>
  requires std::same_as<std::remove_const_t<KIn>, K> && detail::radix_key<K>
void radix_sort(context& ctx, cuda::std::span<KIn, E1> keys, cuda::std::span<K, E2> out_keys,
                const radix_sort_options& options = {}) {
  detail::radix_sort::sort<K, detail::radix_sort::no_values>(ctx, "radix_sort", detail::as_const_span(keys), {},
                                                              cuda::std::span<K>(out_keys), {}, options);
}

/// out_keys = keys stably sorted as radix_sort does; out_values[i] = the value of out_keys[i]'s key.
template <class KIn, std::size_t E1, class VIn, std::size_t E2, class K, std::size_t E3, class V, std::size_t E4>
  requires std::same_as<std::remove_const_t<KIn>, K> && std::same_as<std::remove_const_t<VIn>, V> &&
           detail::radix_key<K>
void radix_sort_pairs(context& ctx, cuda::std::span<KIn, E1> keys, cuda::std::span<VIn, E2> values,
                      cuda::std::span<K, E3> out_keys, cuda::std::span<V, E4> out_values,
                      const radix_sort_options& options = {}) {
  detail::radix_sort::sort<K, V>(ctx, "radix_sort_pairs", detail::as_const_span(keys), detail::as_const_span(values),
                                 cuda::std::span<K>(out_keys), cuda::std::span<V>(out_values), options);
}

}  // namespace sluice
