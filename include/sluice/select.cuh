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
// Counts are written to device memory (asynchronously, like the results). For select_if,
// select_flagged and unique, `out` may be shorter than the input: elements that do not fit are counted
// but not written. pred, classify and eq may be called more than once per element (the partitions'
// counting pass calls them again, and the last tile's padding repeats its first element). Stable. In place is
// not supported (out must not overlap in). Strategy: one counting pass (partitions only), then one
// single-pass scan of class counts whose tiles load once, classify in registers and scatter each class
// as a contiguous run (detail/select/classify_scatter.cuh).
//
//   sluice::select_if(ctx, in.span(), out.span(), count.data(), [] __device__ (unsigned x) { return x & 1; });
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/core/memory.hpp>
#include <sluice/core/span.hpp>
#include <sluice/detail/select/classify_scatter.cuh>
#include <sluice/scan.cuh>

#include <cuda/std/span>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <type_traits>

namespace sluice {

/// The group of stable_partition_3way (Palik's <, =, > split). Values past `third` count as `third`.
enum class group3 : std::uint8_t { first = 0, second = 1, third = 2 };

namespace detail::select {

/// select_if (rejects dropped) and stable_partition (rejects are class 1).
template <class Pred, bool KeepRejects>
struct predicate_class_of {
  Pred pred;
  template <class T>
  __device__ int operator()(const T& value) const { return pred(value) ? 0 : (KeepRejects ? 1 : dropped); }
};

/// stable_partition_3way: the group as a class (values past `third` count as `third`).
template <class Classify>
struct group3_class_of {
  Classify classify;
  template <class T>
  __device__ int operator()(const T& value) const {
    const auto g = static_cast<int>(classify(value));
    return g < 2 ? g : 2;
  }
};

/// The tile of the classify-scatter scan, shaped for the larger of the counts and the elements
/// (registers hold both across the scan): 256 threads with about 64 bytes each, since a larger tile
/// means fewer look-backs and the staging area keeps occupancy bounded anyway (CUB's select tiles are
/// larger still).
constexpr int select_items(int element_bytes) {
  const int items = 64 / element_bytes;
  return items < 1 ? 1 : (items > 16 ? 16 : items);
}
template <class E>
using select_shape = scan::tile_shape<256, select_items(static_cast<int>(sizeof(E)))>;

/// Counts per class (partitions: Classes = Kept + 1), then the scan that scatters. `count_out` receives
/// the number kept (select) or, for partitions, the Kept class sizes.
template <int Kept, int Classes, class T, class Classifier>
void classify_scatter(context& ctx, const T* in, T* out, std::size_t out_size, std::size_t n, Classifier classifier,
                      std::size_t* count_out) {
  static_assert(sizeof(unsigned long long) == sizeof(std::size_t));
  scan::scratch<unsigned long long> totals(ctx, Classes > Kept ? Kept : 0);
  if constexpr (Classes > Kept) {
    constexpr int threads = 256;
    SLUICE_CUDA_CHECK(cudaMemsetAsync(totals.get(), 0, Kept * sizeof(unsigned long long), ctx.stream()));
    auto count = count_classes_kernel<threads, Kept, T, Classifier>;
    count<<<static_cast<unsigned>(one_wave_grid(ctx, count, threads, ceil_div(n, threads))), threads, 0, ctx.stream()>>>(
        in, classifier, n, totals.get());
    SLUICE_CHECK_LAUNCH();
    if (count_out)
      SLUICE_CUDA_CHECK(cudaMemcpyAsync(count_out, totals.get(), Kept * sizeof(std::size_t), cudaMemcpyDeviceToDevice,
                                        ctx.stream()));
  }
  auto run = [&](auto count_type) {
    using C = decltype(count_type);
    using counts = class_counts<C, Kept>;
    using shape = select_shape<cuda::std::conditional_t<(sizeof(T) > sizeof(counts)), T, counts>>;
    const classify_scatter_program<shape, T, C, Kept, Classes, Classifier> program{
        in, out, out_size, classifier, totals.get(), Classes > Kept ? nullptr : count_out, n};
    scan::run_decoupled_look_back<scan::scan_kind::inclusive, false>(ctx, program, n, counts{}, add_counts{});
  };
  if (n < (std::size_t{1} << 32)) run(std::uint32_t{});
  else run(std::uint64_t{});
}

template <class T>
void check_common(const context& ctx, const char* function, cuda::std::span<const T> in, cuda::std::span<T> out,
                  std::size_t* count, bool count_required) {
  require_device_memory(ctx, in, function, "in");
  require_device_memory(ctx, out, function, "out");
  if (count || count_required) require_device_memory(ctx, count, sizeof(std::size_t), function, "count");
  if (!in.empty() && !out.empty() && in.data() < out.data() + out.size() && out.data() < in.data() + in.size())
    throw invalid_argument(function, "out", "overlaps in");
}

}  // namespace detail::select

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
  if (input.empty()) {
    if (counts) SLUICE_CUDA_CHECK(cudaMemsetAsync(counts, 0, 2 * sizeof(std::size_t), ctx.stream()));
    return;
  }
  sel::classify_scatter<2, 3>(ctx, input.data(), out.data(), out.size(), input.size(),
                              sel::value_classes<T, sel::group3_class_of<Classify>>{{classify}}, counts);
}

}  // namespace sluice
