// sluice/detail/select/dispatch.cuh: the select family's plan: for partitions the class counts of every
// tile and their scan, then the pass that ranks and scatters each tile (classify_scatter.cuh), and the
// checks the entry points share. Other families (multisplit's scan_split) call classify_scatter directly.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/core/memory.hpp>
#include <sluice/core/scratch.hpp>
#include <sluice/detail/select/classify_scatter.cuh>
#include <sluice/detail/select/tuning.hpp>

#include <cub/device/device_scan.cuh>

#include <cuda/std/span>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

namespace sluice::detail::select {

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

/// The partitions' tile prefixes: the counting pass (one count per kept class and tile), an inclusive
/// scan of those counts in place, and the class sizes (its last entry) copied to count_out (if not null).
template <int Kept, class Tuning, class T, class Classifier>
[[nodiscard]] known_prefixes<Kept> count_tile_prefixes(context& ctx, const T* in, std::size_t n,
                                                       const Classifier& classifier, std::size_t tiles,
                                                       typename known_prefixes<Kept>::counts* counts,
                                                       std::size_t* count_out) {
  static_assert(sizeof(unsigned long long) == sizeof(std::size_t));
  count_tile_classes_kernel<Tuning, Kept><<<static_cast<unsigned>(tiles), Tuning::threads, 0, ctx.stream()>>>(
      in, n, classifier, counts);
  SLUICE_CHECK_LAUNCH();
  std::size_t bytes = 0;
  SLUICE_CUDA_CHECK(cub::DeviceScan::InclusiveScan(nullptr, bytes, counts, counts, add_counts{}, tiles, ctx.stream()));
  scratch<unsigned char> temp(ctx, bytes);
  SLUICE_CUDA_CHECK(cub::DeviceScan::InclusiveScan(temp.get(), bytes, counts, counts, add_counts{}, tiles, ctx.stream()));
  if (count_out)
    SLUICE_CUDA_CHECK(cudaMemcpyAsync(count_out, counts + (tiles - 1), Kept * sizeof(std::size_t),
                                      cudaMemcpyDeviceToDevice, ctx.stream()));
  return {counts, tiles};
}

/// Select: the single pass that ranks, looks back and scatters. Partitions (Classes = Kept + 1): the
/// tile prefixes first (count_tile_prefixes), then the pass that scatters. `count_out` receives the
/// number kept (select) or, for partitions, the Kept class sizes. Count = the type of the counts the
/// tiles exchange: by default 32 bits below 2^32 elements and 64 above (tests name it).
template <int Kept, int Classes, class Tuning, class Count = void, class T, class Classifier>
void classify_scatter(context& ctx, const T* in, T* out, std::size_t out_size, std::size_t n, Classifier classifier,
                      std::size_t* count_out) {
  const std::size_t tiles = ceil_div(n, Tuning::tile);
  if (tiles > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw invalid_argument("select", "n", "is " + std::to_string(n) + ": more tiles than one grid can hold");
  const scatter_io<T, Classifier> io{in, out, out_size, n, classifier, Classes > Kept ? nullptr : count_out};
  auto run = [&](auto count_type) {
    using element = class_counts<decltype(count_type), Kept>;
    if constexpr (Classes > Kept) {
      scratch<typename known_prefixes<Kept>::counts> counts(ctx, tiles);
      const auto prefixes = count_tile_prefixes<Kept, Tuning>(ctx, in, n, classifier, tiles, counts.get(), count_out);
      classify_scatter_kernel<Tuning, Kept, Classes, decltype(count_type)>
          <<<static_cast<unsigned>(tiles), Tuning::threads, 0, ctx.stream()>>>(io, prefixes, nullptr);
      SLUICE_CHECK_LAUNCH();
    } else {
      // Zeroed look-back state: every tile invalid, the tile counter at 0.
      const std::size_t status_bytes = ceil_div(tiles * scan::tile_status<element>::bytes_per_tile, 16) * 16;
      scratch<unsigned char> storage(ctx, status_bytes + sizeof(unsigned long long));
      SLUICE_CUDA_CHECK(cudaMemsetAsync(storage.get(), 0, status_bytes + sizeof(unsigned long long), ctx.stream()));
      classify_scatter_kernel<Tuning, Kept, Classes, decltype(count_type)>
          <<<static_cast<unsigned>(tiles), Tuning::threads, 0, ctx.stream()>>>(
              io, scan::make_tile_status<element>(storage.get(), tiles),
              reinterpret_cast<unsigned long long*>(storage.get() + status_bytes));
      SLUICE_CHECK_LAUNCH();
    }
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

/// Palik's three-way split of in[0, n): groups first, second, third, each in input order; counts[0..1]
/// (device, may be null) = the sizes of the first two groups.
template <class T, class Classify>
void partition_3way(context& ctx, const T* in, T* out, std::size_t n, std::size_t* counts, Classify classify) {
  if (n == 0) {
    if (counts) SLUICE_CUDA_CHECK(cudaMemsetAsync(counts, 0, 2 * sizeof(std::size_t), ctx.stream()));
    return;
  }
  classify_scatter<2, 3>(ctx, in, out, n, n, value_classes<T, group3_class_of<Classify>>{{classify}}, counts);
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

}  // namespace sluice::detail::select
