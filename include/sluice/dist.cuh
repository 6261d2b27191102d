// sluice/dist.cuh: sluice beyond one GPU, over NCCL (docs/dist.md): the communicator, distributed arrays,
// the distributed radix sort and multireduce, and the distributed hash table (dist/slab_hash.cuh). Build with the sluice::dist CMake target (sluice plus
// NCCL). Every call is collective (every rank of the world makes it, with the same options and types)
// and synchronous: it returns when this process's ranks have their results.
//
//   auto comm = sluice::dist::communicator::on_all_devices();          // one process, every GPU
//   auto comm = sluice::dist::communicator::from_environment();        // one process per GPU (launcher)
//
//   distributed_buffer<K> radix_sort(comm, keys, sort_options)
//   sorted_pairs<K, V>    radix_sort_pairs(comm, keys, values, sort_options)
//       the stable sort of all ranks' keys concatenated in rank order, by the radix sort's order
//       (radix_sort.cuh: bits [begin_bit, end_bit) of the order-preserving word, descending when asked;
//       equal keys keep (rank, index) order), dealt to the ranks in order: rank 0 the first share, …
//       Each share is N/P within the tolerance of docs/dist.md ("Balance"; the largest open fine bucket
//       bounds it exactly), also for skewed and all-equal keys (equal keys are split by position). The
//       ranks' outputs concatenated equal the one-GPU radix_sort of the concatenated input bit for bit.
//       Keys: the radix sort's (8- to 64-bit integers, float, double); values: trivially copyable.
//
//   std::uint64_t multireduce(comm, labels, values, out, m, op, multireduce_options)
//       out[k] = (accumulate ? out[k] : e) ⊕ the values labelled k in global index order (all of rank
//       0's, then rank 1's, …), for m buckets; out holds all m buckets on every rank (layout::replicated)
//       or rank r's block owned_buckets(m, P, r) (layout::partitioned). Labels outside [0, m) are dropped;
//       the call returns their number over all ranks (strict: invalid_argument with the first one's
//       global index, on every rank). Exact for every associative operator (non-commutative ones are
//       folded in global index order); float sums differ from one GPU's by rounding only, and are the same
//       from run to run with options.local.deterministic.
//
// Errors: sluice::invalid_argument on every rank for arguments that differ between ranks (types, operator,
// options, m) or break the one-GPU rules on any rank (sluice::invalid_argument thrown by that rank becomes
// dist::rank_failure on all: detail/dist/errors.hpp); dist::rank_failure when a rank fails (memory
// exhausted, a CUDA error); dist::communication_error when NCCL fails or a rank does not answer within
// the communicator's timeout (the communicator is then aborted).
#pragma once

#include <sluice/core/operators.hpp>
#include <sluice/core/radix_key.hpp>
#include <sluice/core/values.hpp>
#include <sluice/detail/dist/errors.hpp>
#include <sluice/detail/dist/multireduce.cuh>
#include <sluice/detail/dist/owners.hpp>
#include <sluice/detail/dist/radix_sort.cuh>
#include <sluice/detail/dist/steps.hpp>
#include <sluice/dist/communicator.hpp>
#include <sluice/dist/slab_hash.cuh>
#include <sluice/dist/span.hpp>
#include <sluice/options/dist.hpp>

#include <cuda/std/span>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

namespace sluice::dist {

template <class K, class V>
struct sorted_pairs {
  distributed_buffer<K> keys;
  distributed_buffer<V> values;
};

using bucket_range = detail::dist::bucket_range;

/// The buckets rank r holds in the partitioned layout: [r·w, min(m, (r+1)·w)), w = ⌈m / P⌉.
[[nodiscard]] constexpr bucket_range owned_buckets(std::uint64_t m, int world_size, int rank) {
  return detail::dist::owned_range(m, world_size, rank);
}

/// The span with its global offsets: every rank's part size, all-gathered (collective).
template <class T>
[[nodiscard]] distributed_span<T> describe(communicator& comm, const distributed_span<T>& span) {
  detail::dist::call c(comm.world(), "dist::describe", nullptr, {});
  const detail::dist::gathered table = c.gather(sizeof(std::uint64_t), [&](std::size_t i, detail::dist::local_rank& l, unsigned char* payload) {
    if (i >= span.local_count())
      throw invalid_argument("dist::describe", "span", "has fewer parts than the communicator has ranks in this process");
    const std::uint64_t n = span.part(i).size();
    SLUICE_CUDA_CHECK(cudaMemcpyAsync(payload, &n, sizeof(n), cudaMemcpyHostToDevice, l.ctx->stream()));
  });
  std::vector<std::uint64_t> offsets{0};
  for (int r = 0; r < c.world_size(); ++r) offsets.push_back(offsets.back() + table.read<std::uint64_t>(r));
  return distributed_span<T>(span.parts(), std::move(offsets));
}

namespace detail_api {
template <class T>
std::vector<cuda::std::span<const std::remove_const_t<T>>> const_parts(const distributed_span<T>& s) {
  std::vector<cuda::std::span<const std::remove_const_t<T>>> parts;
  for (const auto& p : s.parts()) parts.emplace_back(p.data(), p.size());
  return parts;
}
}  // namespace detail_api

/// The distributed stable radix sort of keys (header comment).
template <class KIn, class K = std::remove_const_t<KIn>>
  requires detail::radix_key<K>
[[nodiscard]] distributed_buffer<K> radix_sort(communicator& comm, const distributed_span<KIn>& keys,
                                               const sort_options& options = {}) {
  const auto parts = detail_api::const_parts(keys);
  auto sorted = detail::dist::distributed_sort<K, detail::no_values>(comm.world(), "dist::radix_sort", parts, {}, options);
  return distributed_buffer<K>(std::move(sorted.keys), std::move(sorted.offsets));
}

/// One process per GPU: this rank's keys.
template <class KIn, std::size_t E, class K = std::remove_const_t<KIn>>
  requires detail::radix_key<K>
[[nodiscard]] distributed_buffer<K> radix_sort(communicator& comm, cuda::std::span<KIn, E> keys,
                                               const sort_options& options = {}) {
  return radix_sort(comm, distributed_span<KIn>(cuda::std::span<KIn>(keys)), options);
}

/// The distributed stable radix sort of (key, value) pairs: values move with their keys.
template <class KIn, class VIn, class K = std::remove_const_t<KIn>, class V = std::remove_const_t<VIn>>
  requires detail::radix_key<K> && std::is_trivially_copyable_v<V>
[[nodiscard]] sorted_pairs<K, V> radix_sort_pairs(communicator& comm, const distributed_span<KIn>& keys,
                                                  const distributed_span<VIn>& values, const sort_options& options = {}) {
  const auto key_parts = detail_api::const_parts(keys);
  const auto value_parts = detail_api::const_parts(values);
  auto sorted = detail::dist::distributed_sort<K, V>(comm.world(), "dist::radix_sort_pairs", key_parts, value_parts, options);
  return {distributed_buffer<K>(std::move(sorted.keys), sorted.offsets),
          distributed_buffer<V>(std::move(sorted.values), sorted.offsets)};
}

template <class KIn, std::size_t E1, class VIn, std::size_t E2, class K = std::remove_const_t<KIn>,
          class V = std::remove_const_t<VIn>>
  requires detail::radix_key<K> && std::is_trivially_copyable_v<V>
[[nodiscard]] sorted_pairs<K, V> radix_sort_pairs(communicator& comm, cuda::std::span<KIn, E1> keys,
                                                  cuda::std::span<VIn, E2> values, const sort_options& options = {}) {
  return radix_sort_pairs(comm, distributed_span<KIn>(cuda::std::span<KIn>(keys)),
                          distributed_span<VIn>(cuda::std::span<VIn>(values)), options);
}

/// The distributed multireduce (header comment); returns the labels dropped on all ranks together.
template <class LIn, class TIn, class T, class Op, class L = std::remove_const_t<LIn>>
  requires std::integral<L> && (!std::same_as<L, bool>) && std::same_as<std::remove_const_t<TIn>, T> &&
           std::is_trivially_copyable_v<T>
std::uint64_t multireduce(communicator& comm, const distributed_span<LIn>& labels, const distributed_span<TIn>& values,
                          const distributed_span<T>& out, std::uint64_t m, Op op,
                          const multireduce_options& options = {}) {
  const auto label_parts = detail_api::const_parts(labels);
  const auto value_parts = detail_api::const_parts(values);
  return detail::dist::distributed_multireduce<L, T, Op>(comm.world(), "dist::multireduce", label_parts, value_parts,
                                                         out.parts(), m, op, options);
}

/// One process per GPU: this rank's labels, values and output part.
template <class LIn, std::size_t E1, class TIn, std::size_t E2, class T, std::size_t E3, class Op,
          class L = std::remove_const_t<LIn>>
  requires std::integral<L> && (!std::same_as<L, bool>) && std::same_as<std::remove_const_t<TIn>, T> &&
           std::is_trivially_copyable_v<T>
std::uint64_t multireduce(communicator& comm, cuda::std::span<LIn, E1> labels, cuda::std::span<TIn, E2> values,
                          cuda::std::span<T, E3> out, std::uint64_t m, Op op, const multireduce_options& options = {}) {
  return multireduce(comm, distributed_span<LIn>(cuda::std::span<LIn>(labels)),
                     distributed_span<TIn>(cuda::std::span<TIn>(values)), distributed_span<T>(cuda::std::span<T>(out)), m,
                     op, options);
}

}  // namespace sluice::dist
