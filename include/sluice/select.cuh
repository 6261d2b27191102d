// sluice/select.cuh: stream compaction and stable partitions (DTU §4.5, Palik §5.3 and §6.2).
//
//   select_if(in, out, count, pred)       the elements with pred(x), in input order
//   select_flagged(in, flags, out, count) the elements whose flag is nonzero, in input order
//   unique(in, out, count, eq)            the first element of each run of consecutive equal elements
//   stable_partition(in, out, count, pred)
//                                         pred-true elements in input order, then the rest in input
//                                         order (Palik's split, with "true" first); count = how many
//                                         were true
//   stable_partition_3way(in, out, counts, classify)
//                                         classify(x) → group3::first/second/third: the three groups in
//                                         that order, each in input order; counts[0], counts[1] = the
//                                         sizes of the first two groups
//
// Counts are written to device memory (asynchronously, like the results): select_if, select_flagged
// and unique need `count` (null is an invalid_argument); the partitions' count(s) may be null. For
// select_if, select_flagged and unique, `out` may be shorter than the input: elements that do not fit
// are counted but not written. pred, classify and eq may be called more than once per element (the partitions'
// counting pass calls them again, and the last tile's padding repeats its first element). Stable. In
// place is not supported (out must not overlap in). Strategy: one counting pass (partitions only), then
// one single-pass scan of class counts whose tiles load once, rank each element within its class by
// warp ballots in registers and store it from there (detail/select/classify_scatter.cuh).
//
//   sluice::select_if(ctx, in.span(), out.span(), count.data(), [] __device__ (unsigned x) { return x & 1; });
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/core/memory.hpp>
#include <sluice/core/span.hpp>
#include <sluice/detail/select/dispatch.cuh>
#include <sluice/options/select.hpp>

#include <cuda/std/span>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <type_traits>

namespace sluice {

/// Copies the elements x with pred(x) to out, in order; *count (device) = how many.
template <class In, std::size_t E1, class T, std::size_t E2, class Pred>
  requires std::same_as<std::remove_const_t<In>, T>
void select_if(context& ctx, cuda::std::span<In, E1> in, cuda::std::span<T, E2> out, std::size_t* count, Pred pred) {
  namespace sel = detail::select;
  const auto input = detail::as_const_span(in);
  sel::check_common<T>(ctx, "select_if", input, out, count, true);
  auto device = ctx.activate();
  if (input.empty()) {
    SLUICE_CUDA_CHECK(cudaMemsetAsync(count, 0, sizeof(std::size_t), ctx.stream()));
    return;
  }
  sel::classify_scatter<1, 1>(ctx, input.data(), out.data(), out.size(), input.size(),
                              sel::value_classes<T, sel::predicate_class_of<Pred, false>>{{pred}}, count);
}

/// Copies the elements whose flag is nonzero to out, in order; *count (device) = how many.
template <class In, std::size_t E1, class T, std::size_t E2>
  requires std::same_as<std::remove_const_t<In>, T>
void select_flagged(context& ctx, cuda::std::span<In, E1> in, cuda::std::span<const std::uint8_t> flags,
                    cuda::std::span<T, E2> out, std::size_t* count) {
  namespace sel = detail::select;
  const auto input = detail::as_const_span(in);
  sel::check_common<T>(ctx, "select_flagged", input, out, count, true);
  require_device_memory(ctx, flags, "select_flagged", "flags");
  if (flags.size() != input.size()) throw invalid_argument("select_flagged", "flags", "must have one flag per element");
  auto device = ctx.activate();
  if (input.empty()) {
    SLUICE_CUDA_CHECK(cudaMemsetAsync(count, 0, sizeof(std::size_t), ctx.stream()));
    return;
  }
  sel::classify_scatter<1, 1>(ctx, input.data(), out.data(), out.size(), input.size(), sel::flag_classes<T>{flags.data()},
                              count);
}

/// Copies the first element of each run of consecutive equal elements; *count (device) = how many.
template <class In, std::size_t E1, class T, std::size_t E2, class Eq = std::equal_to<>>
  requires std::same_as<std::remove_const_t<In>, T>
void unique(context& ctx, cuda::std::span<In, E1> in, cuda::std::span<T, E2> out, std::size_t* count, Eq eq = {}) {
  namespace sel = detail::select;
  const auto input = detail::as_const_span(in);
  sel::check_common<T>(ctx, "unique", input, out, count, true);
  auto device = ctx.activate();
  if (input.empty()) {
    SLUICE_CUDA_CHECK(cudaMemsetAsync(count, 0, sizeof(std::size_t), ctx.stream()));
    return;
  }
  sel::classify_scatter<1, 1>(ctx, input.data(), out.data(), out.size(), input.size(),
                              sel::run_head_classes<T, Eq>{input.data(), eq}, count);
}

/// pred-true elements in order, then the others in order; *count (device, may be null) = how many were true.
template <class In, std::size_t E1, class T, std::size_t E2, class Pred>
  requires std::same_as<std::remove_const_t<In>, T>
void stable_partition(context& ctx, cuda::std::span<In, E1> in, cuda::std::span<T, E2> out, std::size_t* count,
                      Pred pred) {
  namespace sel = detail::select;
  const auto input = detail::as_const_span(in);
  sel::check_common<T>(ctx, "stable_partition", input, out, count, false);
  if (out.size() != input.size()) throw invalid_argument("stable_partition", "out", "must have as many elements as in");
  auto device = ctx.activate();
  if (input.empty()) {
    if (count) SLUICE_CUDA_CHECK(cudaMemsetAsync(count, 0, sizeof(std::size_t), ctx.stream()));
    return;
  }
  sel::classify_scatter<1, 2>(ctx, input.data(), out.data(), out.size(), input.size(),
                              sel::value_classes<T, sel::predicate_class_of<Pred, true>>{{pred}}, count);
}

/// Groups first, second, third (each in input order); counts[0..1] (device, may be null) = the sizes of
/// the first two groups.
template <class In, std::size_t E1, class T, std::size_t E2, class Classify>
  requires std::same_as<std::remove_const_t<In>, T>
void stable_partition_3way(context& ctx, cuda::std::span<In, E1> in, cuda::std::span<T, E2> out, std::size_t* counts,
                           Classify classify) {
  namespace sel = detail::select;
  const auto input = detail::as_const_span(in);
  const char* function = "stable_partition_3way";
  require_device_memory(ctx, input, function, "in");
  require_device_memory(ctx, out, function, "out");
  if (counts) require_device_memory(ctx, counts, 2 * sizeof(std::size_t), function, "counts");
  if (out.size() != input.size()) throw invalid_argument(function, "out", "must have as many elements as in");
  if (!input.empty() && input.data() < out.data() + out.size() && out.data() < input.data() + input.size())
    throw invalid_argument(function, "out", "overlaps in");
  auto device = ctx.activate();
  sel::partition_3way(ctx, input.data(), out.data(), input.size(), counts, classify);
}

}  // namespace sluice
