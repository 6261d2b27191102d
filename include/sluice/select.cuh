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
#include <sluice/detail/select/classify_scatter.cuh>
#include <sluice/scan.cuh>

#include <cuda/std/span>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
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

/// Counts per class (partitions: Classes = Kept + 1), then the pass that scatters. `count_out`
/// receives the number kept (select) or, for partitions, the Kept class sizes. Count = the type of the
/// counts the tiles exchange: by default 32 bits below 2^32 elements and 64 above (tests name it).
template <int Kept, int Classes, class Tuning, class Count = void, class T, class Classifier>
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
  const std::size_t tiles = ceil_div(n, Tuning::tile);
  if (tiles > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw invalid_argument("select", "n", "is " + std::to_string(n) + ": more tiles than one grid can hold");
  const scatter_io<T, Classifier> io{in, out, out_size, n, classifier, totals.get(),
                                     Classes > Kept ? nullptr : count_out};
  auto run = [&](auto count_type) {
    using element = class_counts<decltype(count_type), Kept>;
    // Zeroed look-back state: every tile invalid, the tile counter at 0.
    const std::size_t status_bytes = ceil_div(tiles * scan::tile_status<element>::bytes_per_tile, 16) * 16;
    scan::scratch<unsigned char> storage(ctx, status_bytes + sizeof(unsigned long long));
    SLUICE_CUDA_CHECK(cudaMemsetAsync(storage.get(), 0, status_bytes + sizeof(unsigned long long), ctx.stream()));
    classify_scatter_kernel<Tuning, Kept, Classes, decltype(count_type)>
        <<<static_cast<unsigned>(tiles), Tuning::threads, 0, ctx.stream()>>>(
            io, scan::make_tile_status<element>(storage.get(), tiles),
            reinterpret_cast<unsigned long long*>(storage.get() + status_bytes));
    SLUICE_CHECK_LAUNCH();
  };
  if constexpr (!std::is_void_v<Count>) run(Count{});
  else if (n < (std::size_t{1} << 32)) run(std::uint32_t{});
  else run(std::uint64_t{});
}

template <int Kept, int Classes, class T, class Classifier>
void classify_scatter(context& ctx, const T* in, T* out, std::size_t out_size, std::size_t n, Classifier classifier,
                      std::size_t* count_out) {
  classify_scatter<Kept, Classes, default_scatter_tuning<T, Classes>>(ctx, in, out, out_size, n, classifier,
                                                                      count_out);
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
