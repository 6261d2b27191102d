// sluice/detail/group_by/partitioned.cuh: group_by's partitioned strategy. With many distinct keys the
// single pass (open_addressing.cuh) spends about three L2 requests a pair at random sectors, and the L2's
// request rate bounds it; here the atomics happen in shared memory instead:
//   split  the pairs by a 32-bit hash of their key (sizing.hpp's part_hash) into P parts of about
//          fold_max_load × 8192 (~2500) distinct keys each: one multisplit pass; P = 1, no split, when the
//          keys fit one part;
//   fold   each part, in chunks, by blocks holding a table of 64 KiB in shared memory: each lane walks the
//          shared table for its key (find_or_claim in_shared) and combines with a shared atomic; a walk
//          past tuning::fold_max_walk slots (a table too full) sends the key straight to the global table.
//          Then every occupied shared slot is combined into the global table (one walk and one atomic per
//          distinct key of the chunk).
// Work: one multisplit of the pairs (read twice, written once), one more read; atomics in shared memory,
// chunks × distinct keys atomics in L2. Memory: a copy of the pairs (the split's output).
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/core/operators.hpp>
#include <sluice/core/scratch.hpp>
#include <sluice/core/values.hpp>
#include <sluice/detail/group_by/sizing.hpp>
#include <sluice/detail/group_by/table.cuh>
#include <sluice/detail/group_by/tuning.hpp>
#include <sluice/detail/multisplit/dispatch.cuh>
#include <sluice/warp/shuffle.cuh>

#include <cuda/std/span>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace sluice::detail::group_by {

/// The part of a key: a 32-bit hash of it (sizing.hpp's part_hash, independent of the 64-bit one the
/// tables use) scaled to the part count.
template <class W>
struct part_of {
  std::uint32_t parts;
  __device__ std::uint32_t operator()(W key) const {
    return static_cast<std::uint32_t>((std::uint64_t{part_hash(key)} * parts) >> 32);
  }
};

/// A block table's home slot: the 64-bit hash's low 32 bits scaled (the global table takes its high bits).
[[nodiscard]] __device__ __forceinline__ unsigned shared_home(std::uint64_t hash, unsigned slots) {
  return static_cast<unsigned>((static_cast<std::uint64_t>(static_cast<std::uint32_t>(hash)) * slots) >> 32);
}

/// Block b folds chunk b % chunks of part b / chunks (parts: part_offsets[p] … [p + 1]; null: one part,
/// keys[0, n)) into a shared table of `slots` slots, then flushes it into `table`.
template <class W, class V, class Op>
__global__ void __launch_bounds__(tuning::fold_threads)
    fold_kernel(const W* __restrict__ keys, const V* __restrict__ values, std::size_t n,
                const std::size_t* __restrict__ part_offsets, unsigned chunks, unsigned slots, table_view<W, V> table,
                Op op) {
  extern __shared__ __align__(16) unsigned char fold_storage[];
  auto* local = reinterpret_cast<slot<W, V>*>(fold_storage);
  clear_slots<W, V, Op>(local, slots, threadIdx.x, blockDim.x);
  const unsigned part = blockIdx.x / chunks, chunk = blockIdx.x % chunks;
  const std::size_t part_begin = part_offsets != nullptr ? part_offsets[part] : 0;
  const std::size_t length = (part_offsets != nullptr ? part_offsets[part + 1] : n) - part_begin;
  const std::size_t begin = part_begin + length * chunk / chunks, end = part_begin + length * (chunk + 1) / chunks;
  __syncthreads();
  unsigned claims = 0, shared_claims = 0;
  bool overflow = false;
  // Lane by lane, no match: equal keys of a warp meet in the shared atomics, which are cheap. Two windows a
  // round, both loaded first, so that a warp has two of them in flight.
  const std::size_t warp_first = begin + (threadIdx.x - warp::lane_id());
  for (std::size_t base = warp_first; base < end; base += 2 * std::size_t{blockDim.x}) {  // uniform in the warp
    W key[2];
    V value[2];
    bool valid[2];
#pragma unroll
    for (int w = 0; w < 2; ++w) {
      const std::size_t i = base + w * std::size_t{blockDim.x} + warp::lane_id();
      valid[w] = i < end;
      key[w] = valid[w] ? keys[i] : W{};
      if constexpr (has_values<V>) value[w] = valid[w] ? values[i] : V{};
    }
#pragma unroll
    for (int w = 0; w < 2; ++w) {
      if (valid[w] && key[w] == empty_word<W>) combine_empty_word(table, value[w], op);
      const bool walks = valid[w] && key[w] != empty_word<W>;
      const unsigned near = find_or_claim<in_shared>(local, slots, shared_home(mix64(static_cast<std::uint64_t>(key[w])), slots),
                                                     tuning::fold_max_walk, key[w], walks, shared_claims);
      if (near != slots) combine_value(&local[near], value[w], op);
      const bool spills = walks && near == slots;  // a walk too long in the block's table: to the global one
      slot<W, V>* far = find_or_claim_in(table, key[w], spills, claims);
      if (far != nullptr) combine_value(far, value[w], op);
      overflow |= spills && far == nullptr;
    }
  }
  __syncthreads();
  for (unsigned s = threadIdx.x; s < slots; s += blockDim.x) {  // slots is a multiple of the block: uniform
    const slot<W, V> held = local[s];
    const bool occupied = held.key != empty_word<W>;
    slot<W, V>* far = find_or_claim_in(table, held.key, occupied, claims);
    if (far != nullptr) combine_value(far, value_of(held), op);
    overflow |= occupied && far == nullptr;
  }
  report_block(table.report, claims, overflow);
}

/// Splits keys[0, n) into `parts` parts (none when 1) and folds them into `table`.
template <class W, class V, class Op>
void aggregate_partitioned(context& ctx, const char* function, const W* keys, const V* values, std::size_t n,
                           std::uint32_t parts, const table_view<W, V>& table, Op op) {
  if (n == 0) return;
  constexpr unsigned slots = static_cast<unsigned>(fold_slots(sizeof(slot<W, V>)));
  static_assert(slots % tuning::fold_threads == 0, "the flush walks the shared table a block at a time");
  const std::size_t shared_bytes = slots * sizeof(slot<W, V>);
  const auto kernel = fold_kernel<W, V, Op>;
  SLUICE_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared_bytes)));
  const std::size_t wave = static_cast<std::size_t>(ctx.properties().sm_count) *
                           resident_blocks_per_sm(kernel, tuning::fold_threads, shared_bytes);
  const std::size_t chunks = parts == 1 ? wave : ceil_div(tuning::fold_waves * wave, parts);
  const auto launch = [&](const W* k, const V* v, const std::size_t* offsets) {
    kernel<<<static_cast<unsigned>(parts * chunks), tuning::fold_threads, shared_bytes, ctx.stream()>>>(
        k, v, n, offsets, static_cast<unsigned>(chunks), slots, table, op);
    SLUICE_CHECK_LAUNCH();
  };
  if (parts == 1) return launch(keys, values, nullptr);
  scratch<W> split_keys(ctx, n);
  scratch<V> split_values(ctx, has_values<V> ? n : 0);
  scratch<std::size_t> offsets(ctx, parts + 1);
  multisplit::run(ctx, function,
                  multisplit::pass_io<W, V>{keys, values, split_keys.get(), has_values<V> ? split_values.get() : nullptr, n},
                  parts, part_of<W>{parts}, cuda::std::span<std::size_t>(offsets.get(), parts + 1), nullptr, {});
  launch(split_keys.get(), split_values.get(), offsets.get());
}

}  // namespace sluice::detail::group_by
