// sluice/scatter.cuh: gather and scatter by index (Eilers §1.2 definitions, §3.3 GPU strategy; Palik
// §5.3's permute).
//
//   gather(values, indices, out):  out[i] = values[indices[i]]      out.size() == indices.size()
//   scatter(values, indices, out): out[indices[i]] = values[i]      values.size() == indices.size()
//
// Indices are 32- or 64-bit integers, signed or unsigned; values any trivially copyable type. An index
// outside [0, size) — size = values.size() for gather, out.size() for scatter; negative counts as
// outside — is skipped: its out slot (gather) or its value (scatter) is left alone, and the number
// skipped is written to *skipped (device memory, may be null), asynchronously like the result.
// With `strict`, indices are checked first on the device and an out-of-range one throws
// sluice::invalid_argument naming 'indices' and the first offending position; this reads the indices
// once more and synchronises the stream once; on a throw, out is untouched.
//
// Duplicate destinations in scatter (scatter_options::semantics):
//   any_writer (default): one of the values aimed at a slot ends up there, which one is unspecified —
//     Thrust's and the hardware's behaviour, one pass. A slot receives one rival's whole value when T's
//     size is 1, 2, 4, 8 or 16 bytes and the arrays are 16-byte aligned (device_buffer and cudaMalloc
//     memory are): each value is then one store instruction. Otherwise rivals' bytes may mix.
//   last_writer: the value with the largest source position wins (Eilers' strict scatter, what
//     sluice::reference::scatter computes): a claim pass of atomicMax, then a write pass; deterministic.
// Slots that no valid index names keep their contents. out must not overlap values or indices (no in
// place). Asynchronous on the context's stream (strict mode aside).
//
// Scatter strategies (scatter_options::algorithm; the same results, semantics and counts):
//   direct:       the kernels of detail/scatter/scatter.cuh straight over (values, indices).
//   partial_sort: (index, value) first sorted STABLY by the index's top partial_sort_bits bits (one
//     8-bit onesweep pass up to 2^30 four-byte slots on a 50 MiB L2; detail/partial_sort/sort.cuh, shared
//     with multireduce), then the direct kernels over the sorted pairs, which visit the destination in
//     L2-sized windows (Eilers §4.5.1). The sort's key is the index's own unsigned word, so nothing is
//     computed first, and against min(out.size(), max(I) + 1) slots that word is in range exactly when
//     the index is (a negative index's word is at least max(I) + 1): each out-of-range index is skipped
//     and counted once, by the kernel that meets it in the sorted array. last_writer stays exact because
//     the sort is stable: the values aimed at one slot keep their order, so the largest sorted position
//     among them is the largest source position. Scratch from the context's pool: n indices and n
//     values (twice that beyond 8 bits).
//   automatic:    direct (detail/scatter/plan.hpp: partial_sort paid only 1.62× at 2^24 and nothing at
//     2^28 on a random permutation, and cost 2.8× on local indices, which automatic cannot tell apart).
//
//   sluice::gather(ctx, table.span(), indices.span(), out.span());
//   sluice::scatter(ctx, values.span(), indices.span(), out.span(), skipped.data(),
//                   {.semantics = sluice::scatter_semantics::last_writer});
//   sluice::scatter(ctx, values.span(), indices.span(), out.span(), nullptr,
//                   {.algorithm = sluice::scatter_algorithm::partial_sort, .partial_sort_bits = 8});
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/device_buffer.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/core/memory.hpp>
#include <sluice/core/span.hpp>
#include <sluice/detail/scatter/dispatch.cuh>
#include <sluice/options/scatter.hpp>

#include <cuda/std/span>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

namespace sluice {

/// Index types of gather and scatter: 32- and 64-bit integers, signed or unsigned.
template <class I>
concept scatter_index = std::integral<I> && !std::same_as<I, bool> && (sizeof(I) == 4 || sizeof(I) == 8);

/// out[i] = values[indices[i]]; out-of-range indices leave out[i] alone and are counted in *skipped
/// (device memory, may be null), or throw with options.strict.
template <class VIn, std::size_t E1, class IIn, std::size_t E2, class T, std::size_t E3>
  requires std::same_as<std::remove_const_t<VIn>, T> && scatter_index<std::remove_const_t<IIn>>
void gather(context& ctx, cuda::std::span<VIn, E1> values, cuda::std::span<IIn, E2> indices,
            cuda::std::span<T, E3> out, std::size_t* skipped = nullptr, const gather_options& options = {}) {
  namespace sc = detail::scatter;
  using I = std::remove_const_t<IIn>;
  const char* function = "gather";
  const auto table = detail::as_const_span(values);
  const auto index = detail::as_const_span(indices);
  sc::check_arguments<T, I>(ctx, function, table, index, cuda::std::span<T>(out), skipped);
  sc::check_size(function, "out", out.size(), "indices", index.size());
  auto device = ctx.activate();
  if (!sc::start_count(ctx, skipped, index.size())) return;
  if (options.strict) sc::require_indices_in_range(ctx, function, index, table.size());
  sc::launch_gather(ctx, table.data(), index.data(), out.data(), index.size(), sc::checked_index<I>{table.size()},
                    skipped);
}

/// out[indices[i]] = values[i]; out-of-range indices are skipped and counted in *skipped (device
/// memory, may be null), or throw with options.strict. Duplicates: see scatter_semantics. Strategy:
/// options.algorithm (header comment).
template <class VIn, std::size_t E1, class IIn, std::size_t E2, class T, std::size_t E3>
  requires std::same_as<std::remove_const_t<VIn>, T> && scatter_index<std::remove_const_t<IIn>>
void scatter(context& ctx, cuda::std::span<VIn, E1> values, cuda::std::span<IIn, E2> indices,
             cuda::std::span<T, E3> out, std::size_t* skipped = nullptr, const scatter_options& options = {}) {
  namespace sc = detail::scatter;
  using I = std::remove_const_t<IIn>;
  const char* function = "scatter";
  const auto source = detail::as_const_span(values);
  const auto index = detail::as_const_span(indices);
  sc::check_arguments<T, I>(ctx, function, source, index, cuda::std::span<T>(out), skipped);
  sc::check_size(function, "indices", index.size(), "values", source.size());
  sc::check_options(function, options);
  auto device = ctx.activate();
  if (!sc::start_count(ctx, skipped, index.size())) return;
  if (options.strict) sc::require_indices_in_range(ctx, function, index, out.size());
  const std::size_t n = index.size();
  if (sc::resolve(options) == scatter_algorithm::partial_sort)
    return sc::scatter_partially_sorted(ctx, options.semantics, source.data(), index.data(), n, out.data(), out.size(),
                                        skipped, options.partial_sort_bits);
  sc::scatter_direct(ctx, options.semantics, source.data(), index.data(), n, out.data(), out.size(), skipped);
}

}  // namespace sluice
