// src/model/calibrate/kernel_registers.cu: see kernel_registers.hpp. Compiling this file with
// -Xptxas -v prints the same table (how families.cpp's ptxas table was made).
#include "model/calibrate/kernel_registers.hpp"

#include <sluice/core/error.hpp>
#include <sluice/core/binning.hpp>
#include <sluice/detail/histogram/byte_counts.cuh>
#include <sluice/detail/merge_sort/gpu_mms.cuh>
#include <sluice/detail/merge_sort/pairwise.cuh>
#include <sluice/detail/onesweep/dispatch.cuh>
#include <sluice/detail/onesweep/packed_pairs.cuh>
#include <sluice/detail/scatter/gather.cuh>
#include <sluice/detail/scatter/scatter.cuh>
#include <sluice/detail/search/dispatch.cuh>
#include <sluice/detail/select/dispatch.cuh>
#include <sluice/detail/transpose/vector_tiled.cuh>

#include <cstdint>
#include <functional>
#include <type_traits>

namespace sluice::model {

namespace {

namespace ms = sluice::detail::merge_sort;
namespace mms = sluice::detail::merge_sort::gpu_mms;
namespace se = sluice::detail::search;
namespace os = sluice::detail::onesweep;
using sluice::detail::no_values;

/// The bench's 16-byte key and its order (bench/cases/merge_sort.cu).
struct key16 {
  std::uint64_t a;
  std::uint64_t b;
};
struct by_a_then_b {
  __host__ __device__ bool operator()(const key16& x, const key16& y) const { return x.a != y.a ? x.a < y.a : x.b < y.b; }
};

template <class Kernel>
void add(register_table& table, const std::string& key, Kernel kernel) {
  cudaFuncAttributes attributes{};
  SLUICE_CUDA_CHECK(cudaFuncGetAttributes(&attributes, reinterpret_cast<const void*>(kernel)));
  table[key] = attributes.numRegs;
}

/// A sort round of the pairwise strategy (pairwise::merge_round's round type).
template <class K, class V>
using sort_round = ms::contiguous_round<ms::runs_of_width<K, V>, K, V>;

template <class K, class V, class Less, int Items>
void add_pairwise_items(register_table& table) {
  const std::size_t value_bytes = sluice::detail::has_values<V> ? sizeof(V) : 0;
  add(table, pairwise_kernel_key("block_sort", sizeof(K), value_bytes, Items),
      ms::block_sort_kernel<ms::tuning::block_threads, Items, K, V, ms::contiguous_tiles<K, V>, Less>);
  add(table, pairwise_kernel_key("merge", sizeof(K), value_bytes, Items),
      ms::merge_kernel<ms::tuning::block_threads, Items, sort_round<K, V>, K, V, Less>);
}

template <class K, class V, class Less>
void add_pairwise(register_table& table) {
  add_pairwise_items<K, V, Less, 7>(table);
  add_pairwise_items<K, V, Less, 11>(table);
  add_pairwise_items<K, V, Less, 17>(table);
  add(table, pairwise_kernel_key("partition", sizeof(K), sluice::detail::has_values<V> ? sizeof(V) : 0, 0),
      ms::partition_kernel<sort_round<K, V>, Less>);
}

template <class Order>
inline constexpr bool tagged = !std::is_same_v<typename Order::item, typename Order::key_type>;

template <class Order, int LogWays>
void add_gpu_mms_merge(register_table& table) {
  using item = typename Order::item;
  add(table, gpu_mms_kernel_key("merge", sizeof(item), tagged<Order>, 1 << LogWays),
      mms::merge_kernel<Order, LogWays, mms::item_sink<item>>);
}

template <class Order>
void add_gpu_mms(register_table& table) {
  using item = typename Order::item;
  add(table, gpu_mms_kernel_key("base_case", sizeof(item), tagged<Order>, 0),
      mms::base_case_kernel<Order, mms::item_sink<item>>);
  add_gpu_mms_merge<Order, 1>(table);
  add_gpu_mms_merge<Order, 2>(table);
  add_gpu_mms_merge<Order, 3>(table);
  add_gpu_mms_merge<Order, 4>(table);
  add_gpu_mms_merge<Order, 5>(table);
  add(table, gpu_mms_kernel_key("split", sizeof(item), tagged<Order>, 0), mms::split_kernel<Order, 4>);
}

template <int B>
void add_tree(register_table& table) {
  add(table, search_kernel_key("tree", 4, B), se::tree_search_kernel<B, std::uint32_t, std::less<>, std::int32_t>);
}

/// The onesweep pass kernel the radix sort launches for K keys (V values) with 32-bit offsets, and its
/// histogram kernel (radix_sort/dispatch.cuh's sort_by_onesweep).
template <class K, class V>
void add_onesweep(register_table& table) {
  using shape = typename os::onesweep_sort<K, V, std::uint32_t>::shape;
  add(table, onesweep_kernel_key("pass", sizeof(K), sluice::detail::has_values<V> ? sizeof(V) : 0),
      os::onesweep_kernel<shape, K, V, sluice::detail::radix_digit<K>, const K*, K*>);
  add(table, onesweep_kernel_key("histogram", sizeof(K), 0), os::onesweep_histogram_kernel<K, os::pass_digits<K>>);
}

/// The packed u32 pairs' middle passes (sort_packed_by_onesweep: packed words in the outputs to the
/// temporary), the pass kernel of most of that sort's passes.
void add_onesweep_packed(register_table& table) {
  using digit = os::packed_digit<std::uint32_t>;
  using shape = typename os::onesweep_sort<os::packed_word, no_values, std::uint32_t, digit>::shape;
  add(table, onesweep_kernel_key("pass", 4, 4),
      os::onesweep_kernel<shape, os::packed_word, no_values, digit, os::packed_in_outputs, os::packed_word*>);
}

/// The bench's select predicate (bench/cases/select.cu).
struct is_odd {
  __host__ __device__ bool operator()(std::uint32_t x) const { return (x & 1u) != 0; }
};

/// select_if's (Partition false) or stable_partition's kernels for u32 elements and 32-bit counts.
template <bool Partition>
void add_select(register_table& table) {
  namespace sel = sluice::detail::select;
  using classes = sel::value_classes<std::uint32_t, sel::predicate_class_of<is_odd, Partition>>;
  constexpr int classes_count = Partition ? 2 : 1;
  using tuning = sel::default_scatter_tuning<std::uint32_t, classes_count>;
  using status = std::conditional_t<Partition, sel::known_prefixes<1>,
                                    decltype(sluice::detail::scan::make_tile_status<sel::class_counts<std::uint32_t, 1>>(
                                        nullptr, 0))>;
  add(table, select_kernel_key(Partition ? "partition_scatter" : "scatter", 4),
      sel::classify_scatter_kernel<tuning, 1, classes_count, std::uint32_t, std::uint32_t, classes, status>);
  if constexpr (Partition)
    add(table, select_kernel_key("count", 4), sel::count_tile_classes_kernel<tuning, 1, std::uint32_t, classes>);
}

/// The bench's byte histogram bin function (bench/cases/histogram.cu: every byte value its own bin).
struct byte_bin {
  __host__ __device__ int operator()(std::uint8_t x) const { return x; }
};

/// The tile transpose of `Bytes`-byte elements (transpose/dispatch.cuh's with_storage: native words) and
/// the byte histogram by value counts with the bench's bin function and 32-bit counters.
template <std::size_t Bytes>
void add_vector_tiled(register_table& table) {
  namespace tr = sluice::detail::transpose;
  using shape = typename tr::tuned_vector_tile<Bytes>::type;
  add(table, transpose_kernel_key(Bytes), tr::vector_tiled_kernel<shape, tr::native_word<Bytes>>);
}
/// gather and the any_writer scatter of u32 values by u32 indices in the 16-byte layout
/// (scatter/dispatch.cuh's launch_gather, launch_scatter_any_writer).
void add_gather_and_scatter(register_table& table) {
  namespace sc = sluice::detail::scatter;
  add(table, gather_kernel_key(4, 4),
      sc::gather_kernel<true, std::uint32_t, std::uint32_t, sc::checked_index<std::uint32_t>>);
  add(table, scatter_kernel_key(4, 4), sc::scatter_any_writer_kernel<true, std::uint32_t, std::uint32_t>);
}
void add_byte_counts(register_table& table) {
  namespace hi = sluice::detail::histogram;
  add(table, histogram_kernel_key("byte_counts"),
      hi::byte_counts_kernel<std::uint8_t, sluice::detail::functor_binning<byte_bin>, unsigned>);
}

// The host-side copies of device constants that the counts use (families.hpp) agree with the kernels'.
static_assert(pairwise_shared_bytes(256, 17, 4, 0) == sluice::block::merge_sort_storage_bytes<std::uint32_t, no_values>(256, 17));
static_assert(pairwise_shared_bytes(256, 11, 4, 4) == sluice::block::merge_sort_storage_bytes<std::uint32_t, std::uint32_t>(256, 11));
static_assert(pairwise_shared_bytes(256, 7, 16, 0) == sluice::block::merge_sort_storage_bytes<key16, no_values>(256, 7));
static_assert(gpu_mms_rows_in_flight == mms::rows_in_flight);
static_assert(tree_queries_per_thread(1, 4, se::tuning::node_words_in_flight, se::tuning::max_queries_per_thread) ==
              se::queries_per_thread<std::uint32_t>(1));
static_assert(tree_queries_per_thread(16, 4, se::tuning::node_words_in_flight, se::tuning::max_queries_per_thread) ==
              se::queries_per_thread<std::uint32_t>(16));
static_assert(tree_queries_per_thread(4, 8, se::tuning::node_words_in_flight, se::tuning::max_queries_per_thread) ==
              se::queries_per_thread<std::uint64_t>(4));

}  // namespace

register_table compiled_registers() {
  register_table table;
  add_pairwise<std::uint32_t, no_values, std::less<>>(table);
  add_pairwise<std::uint64_t, no_values, std::less<>>(table);
  add_pairwise<std::uint32_t, std::uint32_t, std::less<>>(table);
  add_pairwise<key16, no_values, by_a_then_b>(table);
  add_gpu_mms<mms::untagged_order<std::uint32_t, std::less<>>>(table);
  add_gpu_mms<mms::tagged_order<std::uint32_t, std::uint32_t, std::less<>>>(table);
  add(table, gpu_mms_kernel_key("monotone", 0, false, 0), mms::splits_monotone_kernel<8>);
  add_tree<1>(table);
  add_tree<8>(table);
  add_tree<16>(table);
  add_tree<32>(table);
  add(table, search_kernel_key("sorted", 4, 0), se::sorted_search_kernel<std::uint32_t, std::less<>, std::int32_t>);
  add_onesweep<std::uint32_t, no_values>(table);
  add_onesweep<std::uint64_t, no_values>(table);
  add_onesweep_packed(table);
  add_select<false>(table);
  add_select<true>(table);
  add_vector_tiled<4>(table);
  add_byte_counts(table);
  add_gather_and_scatter(table);
  return table;
}

}  // namespace sluice::model
