// sluice/detail/slab_hash/kernels.cuh: the slab hash's kernels (Ashkiani §5.4): the bulk operations (one
// element a thread, the warp's 32 elements served as its tasks, warps striding over the batch, §5.6.1's
// "bulk mode"), the argument check that finds reserved keys and bad operation codes, and the kernels that
// run alone on the table: flush (§5.4.3.4), growth's move to new buckets, the release of old lists, and
// retrieve_all. Every list walk is bounded by the pool's size (table_view::max_hops).
//
// Traffic: a bulk operation reads Θ(1 + β) slabs of 128 bytes an element (one for a hit in the base slab)
// and writes its input and output once; an insert adds one CAS. Flush and growth read every slab once
// and write the ones they keep.
#pragma once

#include <sluice/core/config.hpp>
#include <sluice/detail/slab_alloc/device.cuh>
#include <sluice/detail/slab_hash/device.cuh>
#include <sluice/detail/slab_hash/layout.hpp>
#include <sluice/detail/slab_hash/tuning.hpp>
#include <sluice/options/slab_hash.hpp>

#include <cstddef>
#include <cstdint>

namespace sluice::detail::slab_hash {

/// op(old, new) on a map's value bits: insert_or_assign as insert-or-reduce.
template <class L, class Value, class Op>
struct reduce_bits {
  Op op;
  [[nodiscard]] __device__ typename L::value_bits operator()(typename L::value_bits old, typename L::value_bits fresh) const {
    return L::bits_of_value(op(L::template value_of_bits<Value>(old), L::template value_of_bits<Value>(fresh)));
  }
};

/// The inputs and outputs of a bulk call (null where the operation has none).
template <class Key, class Value>
struct batch {
  using value_bits = typename layout<Key, Value>::value_bits;
  const slab_op* ops = nullptr;     ///< mixed batches: one code an element
  const Key* keys = nullptr;
  const Value* values = nullptr;    ///< map inserts, and mixed batches of maps
  Value* out_values = nullptr;      ///< find, mixed: the value found, else `absent`
  std::uint32_t* out_results = nullptr;  ///< count, mixed: the result (slab_op)
  std::uint8_t* out_flags = nullptr;  ///< contains: 1 found, 0 not
  std::size_t n = 0;
  value_bits absent = 0;
};

/// The warps of the grid and this warp's index among them (1-D grids of whole warps).
struct warp_walk {
  std::uint64_t first;
  std::uint64_t step;
  [[nodiscard]] __device__ static warp_walk here() {
    return {(blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x) / warp_lanes,
            std::uint64_t{gridDim.x} * blockDim.x / warp_lanes};
  }
};

/// A bulk call: every element one task (operation `Op`, or each element's own for mixed_ops); `combine`:
/// what insert_or_assign stores over a present value (device.cuh's take_new, or a reduction).
/// Blocks an SM the compiler must leave room for: the inserting kernels' (tuning.hpp), else one. Mixed
/// batches keep one: capped at 48 registers their kernel spills 394 bytes a thread.
template <int Op>
inline constexpr int bulk_min_blocks =
    Op == int(slab_op::insert) || Op == int(slab_op::insert_or_assign) ? tuning::insert_min_blocks : 1;

template <int Op, class View, class Key, class Value, class Combine>
__global__ void __launch_bounds__(tuning::block_threads, bulk_min_blocks<Op>)
    bulk_kernel(View table, batch<Key, Value> in, Combine combine) {
  using L = typename View::L;
  constexpr bool inserts = Op == mixed_ops || Op == int(slab_op::insert) || Op == int(slab_op::insert_or_assign);
  slab_alloc::warp_allocator alloc(table.pool);  // registers only; no memory touched until it allocates
  const warp_walk walk = warp_walk::here();
  for (std::uint64_t base = walk.first * warp_lanes; base < in.n; base += walk.step * warp_lanes) {
    const std::uint64_t i = base + lane();
    const bool active = i < in.n;
    const slab_op op = Op != mixed_ops ? static_cast<slab_op>(Op) : active ? in.ops[i] : slab_op::find;
    const typename L::key_bits key = active ? L::bits_of_key(in.keys[i]) : L::empty_key;
    typename L::value_bits value = 0, found = 0;
    if constexpr (L::is_map)
      if (active && in.values != nullptr) value = L::bits_of_value(in.values[i]);
    const std::uint32_t result =
        table.template run<Op>(active, op, key, value, found, nullptr, 0, inserts ? &alloc : nullptr, combine);
    if (!active) continue;
    if constexpr (L::is_map)
      if (in.out_values != nullptr)
        in.out_values[i] = L::value_of_bits(op == slab_op::find && result != 0 ? found : in.absent);
    if (in.out_results != nullptr) in.out_results[i] = result;
    if (in.out_flags != nullptr) in.out_flags[i] = result != 0 ? 1 : 0;
  }
}

/// *first_key = the least index of a reserved key (a marker), *first_op = of an operation code that is
/// not a slab_op (both stay ~0 when there is none); *inserting += the insert and insert_or_assign codes.
template <class L, class Key>
__global__ void __launch_bounds__(tuning::block_threads)
    check_batch_kernel(const Key* keys, const slab_op* ops, std::size_t n, unsigned long long* first_key,
                       unsigned long long* first_op, unsigned long long* inserting) {
  const warp_walk walk = warp_walk::here();
  for (std::uint64_t base = walk.first * warp_lanes; base < n; base += walk.step * warp_lanes) {
    const std::uint64_t i = base + lane();
    const bool active = i < n;
    if (active && L::is_reserved(L::bits_of_key(keys[i]))) atomicMin(first_key, i);
    if (ops == nullptr) continue;
    const unsigned code = active ? static_cast<unsigned>(ops[i]) : static_cast<unsigned>(slab_op::find);
    if (code > static_cast<unsigned>(slab_op::count)) atomicMin(first_op, i);
    const std::uint32_t inserts = __ballot_sync(full_mask, code == static_cast<unsigned>(slab_op::insert) ||
                                                               code == static_cast<unsigned>(slab_op::insert_or_assign));
    if (lane() == 0 && inserts != 0) atomicAdd(inserting, static_cast<unsigned long long>(__popc(inserts)));
  }
}

/// Every lane writes its word of `s` to 0xFF (an empty slab), then fences, so the slab can be freed.
__device__ __forceinline__ void reset_slab(slab* s) {
  s->words[lane()] = 0xFFFFFFFFu;
  __threadfence();
  __syncwarp();
}

/// Frees the list that starts at `address` (the slabs after a base slab), resetting each. One warp.
template <class View>
__device__ void free_list(const View& table, std::uint32_t address) {
  for (std::uint64_t hops = 0; address != no_address; ++hops) {
    if (hops > table.max_hops || !table.pool.owns(address)) {
      if (lane() == 0) atomicOr(table.status, corrupt_list);
      return;
    }
    slab* s = table.pool.unit(address);
    const std::uint32_t next = View::next_of(View::read(s));
    __syncwarp();  // every lane has read the link before any lane resets the slab
    reset_slab(s);
    if (lane() == 0) table.pool.deallocate(address);
    address = next;
  }
}

/// Growth, step 1: every live element of the old buckets' lists inserted into `table` (the new buckets),
/// one warp a list, in list order (so the instances of a key keep their order: they share a list).
template <class View>
__global__ void __launch_bounds__(tuning::block_threads)
    migrate_kernel(View table, const slab* old_buckets, std::uint32_t old_count) {
  using L = typename View::L;
  slab_alloc::warp_allocator alloc(table.pool);
  const warp_walk walk = warp_walk::here();
  for (std::uint64_t bucket = walk.first; bucket < old_count; bucket += walk.step) {
    slab* current = const_cast<slab*>(old_buckets) + bucket;
    for (std::uint64_t hops = 0;; ++hops) {
      const typename L::slot_type mine = View::read(current);
      const auto key = L::key_of(mine);
      const bool live = lane() < L::data_slots && !L::is_reserved(key);
      typename L::value_bits unused = 0;
      table.template run<int(slab_op::insert), task_order::lanes>(live, slab_op::insert, key, L::value_bits_of(mine),
                                                                  unused, nullptr, 0, &alloc);
      const std::uint32_t next = View::next_of(mine);
      if (next == no_address) break;
      if (hops > table.max_hops) {
        if (lane() == 0) atomicOr(table.status, corrupt_list);
        break;
      }
      current = table.pool.unit(next);
    }
  }
}

/// Growth, step 2 (and clear): the slabs after each of `count` base slabs freed.
template <class View>
__global__ void __launch_bounds__(tuning::block_threads)
    free_lists_kernel(View table, const slab* buckets, std::uint32_t count) {
  const warp_walk walk = warp_walk::here();
  for (std::uint64_t bucket = walk.first; bucket < count; bucket += walk.step)
    free_list(table, View::next_of(View::read(const_cast<slab*>(buckets) + bucket)));
}

/// FLUSH (§5.4.3.4): each list compacted in place, in order (live slots moved to the front, tombstones
/// dropped), the emptied slabs after the last one kept freed. One warp a list; runs alone on the table.
template <class View>
__global__ void __launch_bounds__(tuning::block_threads) flush_kernel(View table) {
  using L = typename View::L;
  constexpr std::uint32_t m = L::data_slots;
  const warp_walk walk = warp_walk::here();
  for (std::uint64_t bucket = walk.first; bucket < table.bucket_count; bucket += walk.step) {
    slab* const head = table.buckets + bucket;
    slab* dest = head;       // where the next live slot goes: slab `dest`, slot `fill`
    std::uint32_t fill = 0;  // 0 … m (m: dest is full)
    slab* source = head;
    bool broken = false;
    for (std::uint64_t hops = 0;; ++hops) {
      const typename L::slot_type mine = View::read(source);
      const std::uint32_t live = __ballot_sync(full_mask, !L::is_reserved(L::key_of(mine))) & L::data_lanes;
      const std::uint32_t next = View::next_of(mine);
      const std::uint32_t count = __popc(live);
      // The slab after dest, where slots past m go: it exists (the live slots so far fit in the slabs
      // read so far), and it is at most `source`, which the warp has read whole.
      const std::uint32_t after = fill + count > m ? View::next_of(View::read(dest)) : no_address;
      if (fill + count > m && !table.pool.owns(after)) {
        broken = true;
        break;
      }
      __syncwarp();  // `source` read by every lane before any lane writes into it
      if ((live >> lane()) & 1u) {
        const std::uint32_t at = fill + __popc(live & lanes_below());
        View::slots(at < m ? dest : table.pool.unit(after))[at < m ? at : at - m] = mine;
      }
      if (fill + count > m) {
        dest = table.pool.unit(after);
        fill = fill + count - m;
      } else {
        fill += count;
      }
      __syncwarp();
      if (next == no_address) break;
      if (hops > table.max_hops || !table.pool.owns(next)) {
        broken = true;
        break;
      }
      source = table.pool.unit(next);
    }
    if (broken) {
      if (lane() == 0) atomicOr(table.status, corrupt_list);
      continue;
    }
    if (lane() >= fill && lane() < m) View::slots(dest)[lane()] = L::empty_slot();
    const std::uint32_t rest = View::next_of(View::read(dest));
    __syncwarp();
    if (lane() == address_lane) View::slots(dest)[L::link_slot] = L::link_to(no_address);
    __syncwarp();
    free_list(table, rest);
  }
}

/// Every live element written to out_keys/out_values[*cursor …] (below `capacity`); *cursor ends at the
/// number of live elements. One warp a list; one atomic a slab.
template <class View, class Key, class Value>
__global__ void __launch_bounds__(tuning::block_threads)
    retrieve_kernel(View table, Key* out_keys, Value* out_values, std::size_t capacity, unsigned long long* cursor) {
  using L = typename View::L;
  const warp_walk walk = warp_walk::here();
  for (std::uint64_t bucket = walk.first; bucket < table.bucket_count; bucket += walk.step) {
    slab* current = table.buckets + bucket;
    for (std::uint64_t hops = 0;; ++hops) {
      const typename L::slot_type mine = View::read(current);
      const std::uint32_t live = __ballot_sync(full_mask, !L::is_reserved(L::key_of(mine))) & L::data_lanes;
      unsigned long long base = 0;
      if (lane() == 0 && live != 0) base = atomicAdd(cursor, static_cast<unsigned long long>(__popc(live)));
      base = __shfl_sync(full_mask, base, 0);
      if ((live >> lane()) & 1u) {
        const std::uint64_t at = base + __popc(live & lanes_below());
        if (at < capacity) {
          out_keys[at] = L::key_of_bits(L::key_of(mine));
          if constexpr (L::is_map) out_values[at] = L::value_of_bits(L::value_bits_of(mine));
        }
      }
      const std::uint32_t next = View::next_of(mine);
      if (next == no_address) break;
      if (hops > table.max_hops || !table.pool.owns(next)) {
        if (lane() == 0) atomicOr(table.status, corrupt_list);
        break;
      }
      current = table.pool.unit(next);
    }
  }
}

}  // namespace sluice::detail::slab_hash
