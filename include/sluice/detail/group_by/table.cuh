// sluice/detail/group_by/table.cuh: the flat table both open-addressing strategies of group_by build
// (detail/group_by/open_addressing.cuh, partitioned.cuh), and the call around them.
//
//   slots     key and value in one 8- or 16-byte unit (one sector for a probe and its atomic); the key the
//             empty word (all ones) until claimed; the value op's identity until combined into. One more
//             slot past the table holds the key whose bits are the empty word itself, with a flag that it
//             occurred, so that every key value is allowed.
//   walk      find_or_claim: linear probing from a home slot; an empty key claimed by a compare-and-swap. A
//             key never leaves its slot, so a claim lost to the same key finds it there, and a stale empty
//             word only costs a failed compare-and-swap. The warp walks round by round (a vote heads each
//             round), so that its lanes' probes issue together instead of one divergent group after another.
//   call      fill, aggregate (the strategy's kernels), read back the claims (one wait); a walk past every
//             slot (a distinct count given far too low) starts over with twice the slots; then the occupied
//             slots, in slot order, to the outputs by cub::DeviceSelect::If, the empty-word key last.
#pragma once

#include <sluice/core/atomics.cuh>
#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/core/operators.hpp>
#include <sluice/core/scratch.hpp>
#include <sluice/core/values.hpp>
#include <sluice/detail/group_by/sizing.hpp>
#include <sluice/warp/shuffle.cuh>

#include <cub/device/device_select.cuh>
#include <cuda/atomic>
#include <cuda/std/bit>
#include <cuda/std/span>
#include <thrust/iterator/transform_output_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/tuple.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace sluice::detail::group_by {

/// A slot: the key's bits and, for group_by_reduce, its value (V = no_values: unique's table).
template <class W, class V>
struct alignas(2 * (sizeof(W) > sizeof(V) ? sizeof(W) : sizeof(V))) slot {
  W key;
  V value;
};
template <class W>
struct slot<W, no_values> {
  W key;
};

template <class W>
inline constexpr W empty_word = ~W(0);

/// What the aggregation reports back to the host (one copy).
struct aggregate_report {
  unsigned long long claimed;  ///< slots claimed in the table (not counting the empty-word key's)
  unsigned empty_word_seen;    ///< the key whose bits are the empty word occurred
  unsigned overflow;           ///< a walk found every slot taken by other keys
};

/// The table a kernel sees: `size` + 1 slots, the last one the empty-word key's.
template <class W, class V>
struct table_view {
  slot<W, V>* slots;
  std::size_t size;
  aggregate_report* report;
};

/// The global table's home slot: the hash's high bits scaled to the slot count.
[[nodiscard]] __device__ __forceinline__ std::size_t home_slot(std::uint64_t hash, std::size_t slots) {
  return static_cast<std::size_t>(__umul64hi(hash, static_cast<std::uint64_t>(slots)));
}

/// How a walk reads a slot's key: a relaxed device-scope load in the global table, a volatile shared load
/// (LDS) in a block's table, which only the block writes.
struct in_global {
  template <class W>
  [[nodiscard]] __device__ static W key_at(W* key) {
    return cuda::atomic_ref<W, cuda::thread_scope_device>(*key).load(cuda::std::memory_order_relaxed);
  }
};
struct in_shared {
  template <class W>
  [[nodiscard]] __device__ static W key_at(W* key) {
    return *static_cast<volatile W*>(key);
  }
};

/// The index of `key`'s slot in slots[0, size), claimed if absent, walking from `at` at most `limit` slots
/// (≤ size); `size` where the walk ends without it, and for lanes not `pending`. Every lane of the warp
/// calls it together, so that its lanes' probes issue together, round by round.
template <class Memory, class Index, class W, class V>
__device__ __forceinline__ Index find_or_claim(slot<W, V>* slots, Index size, Index at, Index limit, W key, bool pending,
                                               unsigned& claims) {
  Index found = size;
  Index walked = 0;
  while (__any_sync(warp::full_mask, pending)) {
    if (pending) {
      W seen = Memory::key_at(&slots[at].key);
      if (seen == empty_word<W>) {
        seen = atomicCAS(&slots[at].key, empty_word<W>, key);
        if (seen == empty_word<W>) {
          seen = key;
          ++claims;
        }
      }
      if (seen == key) {
        found = at;
        pending = false;
      } else if (++walked == limit) {
        pending = false;
      } else if (++at == size) {
        at = 0;
      }
    }
  }
  return found;
}

/// find_or_claim in the global table from the key's home slot: the slot, or null where every slot holds
/// another key (and for lanes not pending).
template <class W, class V>
__device__ __forceinline__ slot<W, V>* find_or_claim_in(const table_view<W, V>& table, W key, bool pending,
                                                        unsigned& claims) {
  if (!__any_sync(warp::full_mask, pending)) return nullptr;
  const std::size_t at = find_or_claim<in_global>(
      table.slots, table.size, home_slot(mix64(static_cast<std::uint64_t>(key)), table.size), table.size, key,
      pending, claims);
  return at != table.size ? &table.slots[at] : nullptr;
}

/// A slot's value (nothing for unique's table).
template <class W, class V>
[[nodiscard]] __device__ __forceinline__ V value_of(const slot<W, V>& s) {
  if constexpr (has_values<V>) return s.value;
  else return V{};
}

/// target->value ⊕= value (nothing for unique's table).
template <class W, class V, class Op>
__device__ __forceinline__ void combine_value(slot<W, V>* target, const V& value, Op op) {
  if constexpr (has_values<V>) atomic_combine(&target->value, value, op);
}

/// The empty-word key's own slot: flag it, combine its value.
template <class W, class V, class Op>
__device__ __forceinline__ void combine_empty_word(const table_view<W, V>& table, const V& value, Op op) {
  cuda::atomic_ref<unsigned, cuda::thread_scope_device>(table.report->empty_word_seen)
      .store(1u, cuda::std::memory_order_relaxed);
  combine_value(&table.slots[table.size], value, op);
}

/// Adds the block's claims to the report and raises its overflow flag; every thread of the block calls it.
__device__ __forceinline__ void report_block(aggregate_report* report, unsigned claims, bool overflow) {
  __shared__ unsigned long long block_claims;
  if (threadIdx.x == 0) block_claims = 0;
  __syncthreads();
  if (claims != 0) atomicAdd(&block_claims, static_cast<unsigned long long>(claims));
  if (overflow) atomicOr(&report->overflow, 1u);
  __syncthreads();
  if (threadIdx.x == 0 && block_claims != 0) atomicAdd(&report->claimed, block_claims);
}

/// Every slot's key the empty word, its value the identity.
template <class W, class V, class Op>
__device__ __forceinline__ void clear_slots(slot<W, V>* slots, std::size_t count, std::size_t first, std::size_t stride) {
  for (std::size_t i = first; i < count; i += stride) {
    slots[i].key = empty_word<W>;
    if constexpr (has_values<V>) slots[i].value = identity<Op, V>();
  }
}

template <class W, class V, class Op>
__global__ void __launch_bounds__(256) fill_kernel(table_view<W, V> table) {
  clear_slots<W, V, Op>(table.slots, table.size + 1, blockIdx.x * std::size_t{blockDim.x} + threadIdx.x,
                        std::size_t{gridDim.x} * blockDim.x);
}

// ---- compact --------------------------------------------------------------------------------------------

template <class W, class V>
struct occupied {
  __device__ bool operator()(const slot<W, V>& s) const { return s.key != empty_word<W>; }
};

template <class K, class W, class V>
struct split_slot {
  __device__ thrust::tuple<K, V> operator()(const slot<W, V>& s) const {
    return thrust::make_tuple(cuda::std::bit_cast<K>(s.key), s.value);
  }
};

template <class K, class W>
struct key_of_slot {
  __device__ K operator()(const slot<W, no_values>& s) const { return cuda::std::bit_cast<K>(s.key); }
};

/// The occupied slots, in slot order, to `out`.
template <class W, class V, class Out>
void compact_table(context& ctx, const table_view<W, V>& table, Out out) {
  std::size_t bytes = 0;
  scratch<unsigned long long> selected(ctx, 1);
  const auto items = static_cast<std::int64_t>(table.size);
  SLUICE_CUDA_CHECK(cub::DeviceSelect::If(nullptr, bytes, table.slots, out, selected.get(), items, occupied<W, V>{},
                                          ctx.stream()));
  scratch<unsigned char> temp(ctx, bytes);
  SLUICE_CUDA_CHECK(cub::DeviceSelect::If(temp.get(), bytes, table.slots, out, selected.get(), items,
                                          occupied<W, V>{}, ctx.stream()));
}

// ---- the call -------------------------------------------------------------------------------------------

/// Throws invalid_argument naming `parameter` unless an output of `room` elements holds `distinct` keys.
inline void require_room(const char* function, const char* parameter, std::size_t room, std::size_t distinct) {
  if (room < distinct)
    throw invalid_argument(function, parameter,
                           "holds " + std::to_string(room) + " elements but there are " + std::to_string(distinct) +
                               " distinct keys");
}

/// Builds a table of `size` slots with aggregate(table) (the strategy's launches), doubling the slots until
/// no walk overflows, then writes the distinct keys (and values) out; returns their count.
/// check_room(distinct) throws when the outputs cannot hold them (nothing written then).
template <class K, class W, class V, class Op, class Aggregate, class CheckRoom>
std::size_t build_and_compact(context& ctx, std::size_t size, K* out_keys, V* out_values, Aggregate aggregate,
                              CheckRoom check_room) {
  scratch<aggregate_report> report(ctx, 1);
  while (true) {
    scratch<slot<W, V>> slots(ctx, size + 1);
    const table_view<W, V> table{slots.get(), size, report.get()};
    SLUICE_CUDA_CHECK(cudaMemsetAsync(report.get(), 0, sizeof(aggregate_report), ctx.stream()));
    const auto fill = fill_kernel<W, V, Op>;
    fill<<<streaming_grid(ctx, fill, size + 1), 256, 0, ctx.stream()>>>(table);
    SLUICE_CHECK_LAUNCH();
    aggregate(table);
    aggregate_report got{};
    SLUICE_CUDA_CHECK(cudaMemcpyAsync(&got, report.get(), sizeof got, cudaMemcpyDeviceToHost, ctx.stream()));
    SLUICE_CUDA_CHECK(cudaStreamSynchronize(ctx.stream()));
    if (got.overflow != 0) {  // more distinct keys than slots
      size *= 2;
      continue;
    }
    const std::size_t distinct = static_cast<std::size_t>(got.claimed) + got.empty_word_seen;
    check_room(distinct);
    if constexpr (has_values<V>) {
      compact_table(ctx, table, thrust::make_transform_output_iterator(thrust::make_zip_iterator(out_keys, out_values),
                                                                      split_slot<K, W, V>{}));
    } else {
      compact_table(ctx, table, thrust::make_transform_output_iterator(out_keys, key_of_slot<K, W>{}));
    }
    if (got.empty_word_seen != 0) {  // the empty-word key's slot, last
      SLUICE_CUDA_CHECK(cudaMemsetAsync(out_keys + distinct - 1, 0xFF, sizeof(K), ctx.stream()));
      if constexpr (has_values<V>)
        SLUICE_CUDA_CHECK(cudaMemcpyAsync(out_values + distinct - 1, &slots.get()[size].value, sizeof(V),
                                          cudaMemcpyDeviceToDevice, ctx.stream()));
    }
    return distinct;
  }
}

}  // namespace sluice::detail::group_by
