// Every public header in one translation unit, each family instantiated once, compiled as a user's file
// would be with warnings as errors on the host and the device side (tests/CMakeLists.txt): a header
// that warns breaks this build. Compiled only, never run.
#include <sluice/containers/group_by.cuh>
#include <sluice/containers/lsm.cuh>
#include <sluice/containers/slab_alloc.cuh>
#include <sluice/containers/slab_hash.cuh>
#include <sluice/core/context.hpp>
#include <sluice/core/device_buffer.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/operators.hpp>
#include <sluice/core/span.hpp>
#include <sluice/data/generate.cuh>
#include <sluice/histogram.cuh>
#include <sluice/merge_sort.cuh>
#include <sluice/multireduce.cuh>
#include <sluice/multiscan.cuh>
#include <sluice/multisplit.cuh>
#include <sluice/quicksort.cuh>
#include <sluice/radix_sort.cuh>
#include <sluice/recurrence.cuh>
#include <sluice/reduce.cuh>
#include <sluice/scan.cuh>
#include <sluice/scatter.cuh>
#include <sluice/search.cuh>
#include <sluice/segmented.cuh>
#include <sluice/select.cuh>
#include <sluice/string_match.cuh>
#include <sluice/transpose.cuh>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>

namespace {

struct is_odd {
  __host__ __device__ bool operator()(std::uint32_t x) const { return (x & 1u) != 0; }
};

template <class T>
cuda::std::span<const T> read(const sluice::device_buffer<T>& buffer) {
  return buffer.span();
}

}  // namespace

void instantiate_every_family(sluice::context& ctx) {
  constexpr std::size_t n = 1024;
  constexpr std::uint32_t m = 16;
  sluice::device_buffer<std::uint32_t> keys(ctx, n), out(ctx, n), values(ctx, n), out_values(ctx, n), bins(ctx, m);
  sluice::device_buffer<std::uint8_t> flags(ctx, n);
  sluice::device_buffer<std::size_t> offsets(ctx, m + 1), count(ctx, 2);
  sluice::device_buffer<float> a(ctx, n), b(ctx, n), x(ctx, n);
  const auto in = read(keys);

  sluice::reduce(ctx, in, out.data(), 0u);
  sluice::inclusive_scan(ctx, in, out.span(), sluice::plus{});
  sluice::segmented_inclusive_scan(ctx, in, read(flags), out.span(), sluice::plus{});
  sluice::select_if(ctx, in, out.span(), count.data(), is_odd{});
  sluice::first_order_linear_recurrence(ctx, read(a), read(b), x.span());
  sluice::transpose(ctx, in, out.span(), 32, 32);
  sluice::gather(ctx, in, read(values), out.span());
  sluice::segmented_quicksort(ctx, in, out.span());
  sluice::merge_sort_pairs(ctx, in, read(values), out.span(), out_values.span());
  sluice::multisplit<std::uint32_t>(ctx, in, out.span(), m, sluice::buckets::bit_field{0, 4}, offsets.span());
  sluice::radix_sort_pairs(ctx, in, read(values), out.span(), out_values.span());
  sluice::histogram_even(ctx, in, bins.span(), 0u, 1024u);
  sluice::multireduce(ctx, in, read(values), bins.span(), sluice::plus{});
  sluice::multiscan_inclusive(ctx, in, read(values), out.span(), m, sluice::plus{});
  sluice::merge_sort_pairs(ctx, in, read(values), out.span(), out_values.span(), {.algorithm = sluice::merge_sort_algorithm::gpu_mms});
  sluice::segmented_sort_pairs(ctx, in, read(values), read(offsets), out.span(), out_values.span());
  const sluice::search_index<std::uint32_t> index(ctx, in, sluice::search_layout::btree);
  index.lower_bound(ctx, in, out.span());
  sluice::slab_alloc pool(ctx, {.variant = sluice::slab_alloc_variant::regular, .blocks_per_super_block = 1});
  pool.reserve(ctx, 2048);
  (void)pool.units_in_use(ctx);
  sluice::slab_hash<std::uint32_t, std::uint32_t> table(ctx, {.capacity = n});
  sluice::device_buffer<sluice::slab_op> codes(ctx, n);
  table.insert_or_assign(ctx, in, read(values));
  table.find(ctx, in, out_values.span());
  table.apply(ctx, read(codes), in, read(values), out_values.span(), out.span());
  table.flush(ctx);
  sluice::slab_set<std::uint64_t> set(ctx, {.capacity = n});
  sluice::device_buffer<std::uint64_t> wide(ctx, n);
  set.insert_unique(ctx, read(wide));
  set.contains(ctx, read(wide), flags.span());
  (void)table.ref(sluice::slab_ops::insert, sluice::slab_ops::find);
  (void)sluice::group_by_reduce(ctx, in, read(values), out.span(), out_values.span(), sluice::plus{});
  (void)sluice::unique(ctx, in, out.span());
  sluice::lower_bound(ctx, in, in, out.span(), {.algorithm = sluice::search_algorithm::sort_queries});
  sluice::string_match(ctx, read(flags), read(flags).first(3), sluice::match_count{count.data()});
  const std::string_view patterns[] = {"ab", "abc"};
  const sluice::pattern_set prepared(ctx, patterns);
  sluice::multi_string_match(ctx, read(flags), prepared, sluice::match_bitmap{out.span()});
  sluice::lsm<std::uint32_t, std::uint32_t> lsm(ctx, {.batch_size = 256, .capacity = n});
  lsm.insert(ctx, in, read(values));
  lsm.lookup(ctx, in, out.span());
  (void)lsm.range(ctx, in, in);
}
