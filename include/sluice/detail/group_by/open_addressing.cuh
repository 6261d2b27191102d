// sluice/detail/group_by/open_addressing.cuh: group_by_reduce and unique by one flat table of slots with
// linear probing, sized for the distinct keys (detail/group_by/sizing.hpp), in a single pass over the
// input.
//
//   sketch     (when the caller gives no distinct count and n ≥ tuning::sketch_min_keys) one read of the
//              keys into a HyperLogLog sketch: a block's 4096 registers in shared memory (an atomic max
//              only where a rank beats the register), merged into global ones; the host sizes the table.
//   fill       every slot's key the empty word (all ones), its value op's identity; one more slot past the
//              table holds the key whose bits are the empty word itself, with a flag that it occurred,
//              so that every key value is allowed.
//   aggregate  each warp takes 32 consecutive pairs; lanes holding one key (__match_any_sync) fold their
//              values onto the lowest of them (warp::fold_peers), which alone walks the table from the key's
//              home slot: a relaxed load of the slot's key; an empty one is claimed by a compare-and-swap;
//              at the key's slot, value ⊕= v by core/atomics.cuh (a hardware atomic for +, min, max and
//              bit operations). A key never leaves its slot, so a claim that loses to the same key
//              combines there, and a stale empty word only costs a failed compare-and-swap. Claims are
//              counted a block at a time; a walk past every slot (a caller's distinct count far too low)
//              raises a flag, and the host starts over with twice the slots.
//   compact    cub::DeviceSelect::If over the slots writes the occupied ones, in slot order, to the
//              outputs; the empty-word key, if it occurred, goes last.
// Work: per pair one match and one walk of about two slots (one 32-byte sector) by the lanes leading a key,
// one atomic; the table stays in L2 while it fits (2^20 distinct u32 pairs: 14 MB).
#pragma once

#include <sluice/core/atomics.cuh>
#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/core/operators.hpp>
#include <sluice/core/scratch.hpp>
#include <sluice/detail/group_by/sizing.hpp>
#include <sluice/detail/group_by/tuning.hpp>
#include <sluice/warp/reduce.cuh>
#include <sluice/warp/shuffle.cuh>

#include <cub/device/device_select.cuh>
#include <cuda/atomic>
#include <cuda/std/span>
#include <thrust/iterator/transform_output_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/tuple.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace sluice::detail::group_by {

/// The value type of unique's table, which holds keys alone.
struct no_value {};

/// A slot: the key's bits and, for group_by_reduce, its value, in one 8- or 16-byte aligned unit (one
/// sector) so that a walk's load and the atomic touch one sector.
template <class W, class V>
struct alignas(2 * (sizeof(W) > sizeof(V) ? sizeof(W) : sizeof(V))) slot {
  W key;
  V value;
};
template <class W>
struct slot<W, no_value> {
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

/// The table a kernel sees: `slots` + 1 slots, the last one the empty-word key's.
template <class W, class V>
struct table_view {
  slot<W, V>* slots;
  std::size_t size;
  aggregate_report* report;
};

[[nodiscard]] __device__ __forceinline__ std::size_t home_slot(std::uint64_t hash, std::size_t slots) {
  return static_cast<std::size_t>(__umul64hi(hash, static_cast<std::uint64_t>(slots)));
}

// ---- sketch ---------------------------------------------------------------------------------------------

template <class W>
__global__ void __launch_bounds__(tuning::threads) sketch_kernel(const W* __restrict__ keys, std::size_t n,
                                                                 std::uint32_t* __restrict__ registers) {
  constexpr int bits = tuning::sketch_bits;
  __shared__ std::uint32_t local[1u << bits];
  for (unsigned j = threadIdx.x; j < (1u << bits); j += blockDim.x) local[j] = 0;
  __syncthreads();
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += stride) {
    const std::uint64_t h = scramble(static_cast<std::uint64_t>(keys[i]));
    const std::uint32_t j = sketch_register(h, bits);
    const auto rank = static_cast<std::uint32_t>(__clzll((h << bits) | (std::uint64_t{1} << (bits - 1)))) + 1;
    // Registers only grow: a stale read costs one atomic more, never a lost rank.
    if (cuda::atomic_ref<std::uint32_t, cuda::thread_scope_block>(local[j]).load(cuda::std::memory_order_relaxed) < rank)
      atomicMax(&local[j], rank);
  }
  __syncthreads();
  for (unsigned j = threadIdx.x; j < (1u << bits); j += blockDim.x)
    if (local[j] != 0) atomicMax(&registers[j], local[j]);
}

/// The sketch's estimate of the distinct keys (one wait for the stream).
template <class W>
double estimate_distinct_keys(context& ctx, const W* keys, std::size_t n) {
  constexpr std::size_t registers = std::size_t{1} << tuning::sketch_bits;
  scratch<std::uint32_t> device_registers(ctx, registers);
  SLUICE_CUDA_CHECK(cudaMemsetAsync(device_registers.get(), 0, registers * sizeof(std::uint32_t), ctx.stream()));
  const auto kernel = sketch_kernel<W>;
  const auto grid = static_cast<unsigned>(one_wave_grid(ctx, kernel, tuning::threads, ceil_div(n, tuning::threads)));
  kernel<<<grid, tuning::threads, 0, ctx.stream()>>>(keys, n, device_registers.get());
  SLUICE_CHECK_LAUNCH();
  std::vector<std::uint32_t> host(registers);
  SLUICE_CUDA_CHECK(cudaMemcpyAsync(host.data(), device_registers.get(), registers * sizeof(std::uint32_t),
                                    cudaMemcpyDeviceToHost, ctx.stream()));
  SLUICE_CUDA_CHECK(cudaStreamSynchronize(ctx.stream()));
  return estimate_distinct(host);
}

// ---- fill and aggregate ---------------------------------------------------------------------------------

template <class W, class V, class Op>
__global__ void __launch_bounds__(tuning::threads) fill_kernel(table_view<W, V> table) {
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i <= table.size; i += stride) {
    table.slots[i].key = empty_word<W>;
    if constexpr (!cuda::std::is_same_v<V, no_value>) table.slots[i].value = identity<Op, V>();
  }
}

/// Claims or finds `key`'s slot and combines `value` into it; false when every slot holds another key.
template <class W, class V, class Op>
__device__ __forceinline__ bool combine_into_table(const table_view<W, V>& table, W key, const V& value, Op op,
                                                   unsigned& claims) {
  slot<W, V>* target = nullptr;
  if (key == empty_word<W>) {
    target = &table.slots[table.size];
    cuda::atomic_ref<unsigned, cuda::thread_scope_device>(table.report->empty_word_seen)
        .store(1u, cuda::std::memory_order_relaxed);
  } else {
    std::size_t at = home_slot(scramble(static_cast<std::uint64_t>(key)), table.size);
    for (std::size_t walked = 0; target == nullptr; ++walked) {
      if (walked == table.size) return false;
      W seen = cuda::atomic_ref<W, cuda::thread_scope_device>(table.slots[at].key).load(cuda::std::memory_order_relaxed);
      if (seen == empty_word<W>) {
        seen = atomicCAS(&table.slots[at].key, empty_word<W>, key);
        if (seen == empty_word<W>) {
          seen = key;
          ++claims;
        }
      }
      if (seen == key) target = &table.slots[at];
      else if (++at == table.size) at = 0;
    }
  }
  if constexpr (!cuda::std::is_same_v<V, no_value>) atomic_combine(&target->value, value, op);
  return true;
}

/// Warp w of the grid takes pairs [32·w, 32·w + 32), then strides by the grid's warps (header comment).
template <class W, class V, class Op>
__global__ void __launch_bounds__(tuning::threads)
    aggregate_kernel(const W* __restrict__ keys, const V* __restrict__ values, std::size_t n,
                     table_view<W, V> table, Op op) {
  const int lane = warp::lane_id();
  const std::size_t first = (blockIdx.x * std::size_t{blockDim.x} + threadIdx.x) - lane;
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  unsigned claims = 0;
  bool overflow = false;
  for (std::size_t base = first; base < n; base += stride) {  // uniform in the warp: every lane joins the match
    const std::size_t i = base + lane;
    const bool valid = i < n;
    const W key = valid ? keys[i] : W{};
    V value{};
    if constexpr (!cuda::std::is_same_v<V, no_value>) value = valid ? values[i] : identity<Op, V>();
    const unsigned peers = __match_any_sync(warp::full_mask, key) & __ballot_sync(warp::full_mask, valid);
    const unsigned mine = valid ? peers : 0u;
    if constexpr (!cuda::std::is_same_v<V, no_value>) value = warp::fold_peers(mine, value, op);
    if (mine != 0u && __ffs(mine) - 1 == lane) overflow |= !combine_into_table(table, key, value, op, claims);
  }
  __shared__ unsigned long long block_claims;
  if (threadIdx.x == 0) block_claims = 0;
  __syncthreads();
  if (claims != 0) atomicAdd(&block_claims, static_cast<unsigned long long>(claims));
  if (overflow) atomicOr(&table.report->overflow, 1u);
  __syncthreads();
  if (threadIdx.x == 0 && block_claims != 0) atomicAdd(&table.report->claimed, block_claims);
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
  __device__ K operator()(const slot<W, no_value>& s) const { return cuda::std::bit_cast<K>(s.key); }
};

/// The occupied slots, in slot order, to out_keys (and out_values) [0, claimed).
template <class K, class W, class V, class Out>
void compact_table(context& ctx, const table_view<W, V>& table, Out out) {
  std::size_t bytes = 0;
  scratch<unsigned long long> selected(ctx, 1);
  SLUICE_CUDA_CHECK(cub::DeviceSelect::If(nullptr, bytes, table.slots, out, selected.get(),
                                          static_cast<std::int64_t>(table.size), occupied<W, V>{}, ctx.stream()));
  scratch<unsigned char> temp(ctx, bytes);
  SLUICE_CUDA_CHECK(cub::DeviceSelect::If(temp.get(), bytes, table.slots, out, selected.get(),
                                          static_cast<std::int64_t>(table.size), occupied<W, V>{}, ctx.stream()));
}

// ---- the call -------------------------------------------------------------------------------------------

template <class V>
using table_value = cuda::std::conditional_t<cuda::std::is_void_v<V>, no_value, V>;

/// Throws invalid_argument naming `parameter` unless an output of `room` elements holds `distinct` keys.
inline void require_room(const char* function, const char* parameter, std::size_t room, std::size_t distinct) {
  if (room < distinct)
    throw invalid_argument(function, parameter,
                           "holds " + std::to_string(room) + " elements but there are " + std::to_string(distinct) +
                               " distinct keys");
}

/// unique (V = void) or group_by_reduce by the open-addressing table; returns the distinct key count.
/// check_room(distinct) throws when the outputs cannot hold the distinct keys (nothing written then).
template <class V, class K, class Op, class CheckRoom>
std::size_t group_by_open_addressing(context& ctx, cuda::std::span<const K> keys, const table_value<V>* values,
                                     K* out_keys, table_value<V>* out_values, std::size_t distinct_given, Op op,
                                     CheckRoom check_room) {
  using W = atomic_word<K>;
  using TV = table_value<V>;
  const std::size_t n = keys.size();
  const auto* key_words = reinterpret_cast<const W*>(keys.data());
  auto device = ctx.activate();
  const bool sketch = distinct_given == 0 && n >= tuning::sketch_min_keys;
  const double estimate = sketch ? estimate_distinct_keys(ctx, key_words, n) : 0.0;
  std::size_t size = table_slots(distinct_to_size_for(n, distinct_given, estimate));
  scratch<aggregate_report> report(ctx, 1);
  while (true) {
    scratch<slot<W, TV>> slots(ctx, size + 1);
    const table_view<W, TV> table{slots.get(), size, report.get()};
    SLUICE_CUDA_CHECK(cudaMemsetAsync(report.get(), 0, sizeof(aggregate_report), ctx.stream()));
    const auto fill = fill_kernel<W, TV, Op>;
    fill<<<streaming_grid(ctx, fill, size + 1), 256, 0, ctx.stream()>>>(table);
    SLUICE_CHECK_LAUNCH();
    if (n != 0) {
      const auto aggregate = aggregate_kernel<W, TV, Op>;
      const auto grid = static_cast<unsigned>(one_wave_grid(ctx, aggregate, tuning::threads, ceil_div(n, tuning::threads)));
      aggregate<<<grid, tuning::threads, 0, ctx.stream()>>>(key_words, values, n, table, op);
      SLUICE_CHECK_LAUNCH();
    }
    aggregate_report got{};
    SLUICE_CUDA_CHECK(cudaMemcpyAsync(&got, report.get(), sizeof got, cudaMemcpyDeviceToHost, ctx.stream()));
    SLUICE_CUDA_CHECK(cudaStreamSynchronize(ctx.stream()));
    if (got.overflow != 0) {  // more distinct keys than slots: start over with twice the slots
      size *= 2;
      continue;
    }
    const std::size_t distinct = static_cast<std::size_t>(got.claimed) + got.empty_word_seen;
    check_room(distinct);
    if constexpr (cuda::std::is_void_v<V>) {
      compact_table<K>(ctx, table, thrust::make_transform_output_iterator(out_keys, key_of_slot<K, W>{}));
    } else {
      compact_table<K>(ctx, table,
                       thrust::make_transform_output_iterator(thrust::make_zip_iterator(out_keys, out_values),
                                                              split_slot<K, W, V>{}));
    }
    if (got.empty_word_seen != 0) {  // the empty-word key's slot, last
      const std::size_t last = distinct - 1;
      SLUICE_CUDA_CHECK(cudaMemsetAsync(out_keys + last, 0xFF, sizeof(K), ctx.stream()));
      if constexpr (!cuda::std::is_void_v<V>)
        SLUICE_CUDA_CHECK(cudaMemcpyAsync(out_values + last, &slots.get()[size].value, sizeof(V),
                                          cudaMemcpyDeviceToDevice, ctx.stream()));
    }
    return distinct;
  }
}

}  // namespace sluice::detail::group_by
