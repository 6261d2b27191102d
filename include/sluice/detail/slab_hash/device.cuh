// sluice/detail/slab_hash/device.cuh: the slab hash on the device (Ashkiani §5.3–5.4): a trivially
// copyable view of the table, and its warp-cooperative operations (WCWS, §1.1 and §5.4.1). Every lane of
// the warp calls; `active` says which lanes have a task; the warp serves the tasks in turn (the
// seed's next_prior = __ffs of the ballot of active lanes), all 32 lanes reading each slab of the task's
// list together (one 128-byte read), deciding with ballots, moving values with shuffles. find, contains,
// insert, insert_or_assign and erase take the tasks a group at a time (tuning.hpp; mixed batches a class
// at a time), reading the group's base slabs together, so that a warp has several reads in flight
// (serve_finds, serve_changes); where a slab's slots are 8 or 16 bytes, 16 or 8 lanes read it whole, and
// each such tile of the warp serves its own group. Tasks whose base slab has no answer walk after the
// groups, so the changes of one call land in no particular order, unless the caller asks for lane order
// (task_order; growth's migration does).
//
// One task, from its bucket's base slab down the list (§5.4.3; layout.hpp for the slots):
//   find, contains      the first slot holding the key (the least recent instance), or the end
//   count, find_all     every slot holding the key, to the end (find_all writes up to `capacity` values)
//   erase               the first slot holding the key, CAS to the tombstone; a lost CAS reads the slab again
//   erase_all           every such slot, each lane CASing its own; lost CASes read the slab again
//   insert              the first empty slot, CAS from empty to the pair; full list: append a slab
//   insert_or_assign    the first slot that is empty or holds the key, CAS from what was read to the
//                       pair (errata §10.10: against the slot as read, not against "empty", so that an
//                       assignment can win); full list: append a slab
// Appending (§5.3.2.2): the warp allocates a slab (SlabAlloc: all lanes), lane 31 CASes the tail's link
// from "none" to it; a lost CAS frees the slab (untouched, still empty) and the warp goes on down the
// list, which now has a next slab. A pool with no free unit fails the insert (result 0) after three tries
// (re-reading the tail between them: units held by warps that lost a race come back) and leaves the
// table as it was; the pool's `exhausted` flag tells the host.
//
// Memory order: slots are read by relaxed device-scope loads of their whole width and changed by CAS of
// their whole width, so a lane never sees a torn pair nor a stale L1 line. A slot only goes empty → key
// → tombstone while operations run, so a read that saw a slot non-empty stays right. The only other
// writes are the allocator's (a slab's reset before it is freed, fenced in deallocate) and flush's and
// growth's, which run alone. A walk down a list is bounded by the pool's size (`max_hops`): a longer one
// can only be a corrupted list, which raises `corrupt_list` instead of looping.
#pragma once

#include <sluice/core/config.hpp>
#include <sluice/detail/slab_alloc/device.cuh>
#include <sluice/detail/slab_hash/hash.hpp>
#include <sluice/detail/slab_hash/layout.hpp>
#include <sluice/detail/slab_hash/tuning.hpp>
#include <sluice/options/slab_hash.hpp>

#include <cuda/atomic>
#include <cuda/std/bit>
#include <cuda/std/cstring>

#include <cstdint>

namespace sluice::detail::slab_hash {

using slab = slab_alloc::unit_words_t;
using slab_alloc::lane;

inline constexpr unsigned full_mask = 0xFFFFFFFFu;

/// Bits of the table's status word.
enum status_bit : std::uint32_t {
  corrupt_list = 1u,  ///< a list longer than the pool (never expected: a bug, reported not looped on)
};

// ---- slot access: loads and CAS of a slot's whole width -------------------------------------------------

template <class Slot>
[[nodiscard]] __device__ __forceinline__ Slot load_slot(const Slot* address) {
  if constexpr (sizeof(Slot) == 16) {
    // One 16-byte load (PTX ISA 8.3, sm_70+): a key is never seen apart from its value.
    std::uint64_t key, value;
    asm volatile(
        "{\n\t.reg .b128 pair;\n\tld.relaxed.gpu.global.b128 pair, [%2];\n\tmov.b128 {%0, %1}, pair;\n\t}"
        : "=l"(key), "=l"(value)
        : "l"(__cvta_generic_to_global(address))
        : "memory");
    return Slot{key, value};
  } else {
    return slab_alloc::load_relaxed(address);
  }
}

/// CAS of a whole slot; true when it held `expected` and now holds `desired`.
template <class Slot>
[[nodiscard]] __device__ __forceinline__ bool cas_slot(Slot* address, const Slot& expected, const Slot& desired) {
  if constexpr (sizeof(Slot) == 16) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
    return atomicCAS(address, expected, desired) == expected;  // the 16-byte CAS of sm_90
#else
    static_assert(sizeof(Slot) != 16, "maps of 64-bit keys and values need sm_90 (a 16-byte atomicCAS)");
    return false;
#endif
  } else if constexpr (sizeof(Slot) == 8) {
    using word = unsigned long long;
    return atomicCAS(reinterpret_cast<word*>(address), static_cast<word>(expected), static_cast<word>(desired)) ==
           static_cast<word>(expected);
  } else {
    return atomicCAS(reinterpret_cast<unsigned*>(address), expected, desired) == expected;
  }
}

/// An integer or pointer of lane `source`, to every lane.
template <class T>
[[nodiscard]] __device__ __forceinline__ T broadcast(T value, std::uint32_t source) {
  if constexpr (sizeof(T) == 8)
    return cuda::std::bit_cast<T>(__shfl_sync(full_mask, cuda::std::bit_cast<unsigned long long>(value), static_cast<int>(source)));
  else
    return static_cast<T>(__shfl_sync(full_mask, static_cast<unsigned>(value), static_cast<int>(source)));
}

[[nodiscard]] __device__ __forceinline__ std::uint32_t first_lane(std::uint32_t ballot) { return __ffs(ballot) - 1; }
[[nodiscard]] __device__ __forceinline__ std::uint32_t lanes_below() { return (1u << lane()) - 1u; }

/// The first `count` ≤ Tasks tasks of a tile's queue (a ballot of its lanes with a task, bit t for the
/// tile's lane t), in lane order, as warp lanes (`base`: the tile's first lane): the tasks a tile serves as
/// one group. Entries past `count` repeat the first (the tile's first lane when it has none).
template <int Tasks>
struct task_group {
  std::uint32_t source[Tasks];
  int count = 0;
  __device__ __forceinline__ task_group(std::uint32_t queue, std::uint32_t base) {
    #pragma unroll
    for (int j = 0; j < Tasks; ++j) {
      source[j] = queue != 0 ? base + first_lane(queue) : j == 0 ? base : source[0];
      count += queue != 0 ? 1 : 0;
      queue &= queue - 1;
    }
  }
};

/// What one task did: its result (slab_op's meaning), the value found, the change of the element count.
template <class ValueBits>
struct task_outcome {
  std::uint32_t result;
  ValueBits value;
  long long delta;
};

/// Operation codes known at compile time (a kernel for one operation), or `mixed_ops` (one a lane).
inline constexpr int mixed_ops = -1;

/// The order a warp's changes of one call land in: `any` (bulk calls and refs: instances of a key that
/// one call inserts land in no particular order), or `lanes` (growth's migration, whose lanes hold an old
/// list's slots: a task that walks is walked before the next group, so a key's instances keep list order).
enum class task_order { any, lanes };

/// What insert_or_assign stores over a present key's value: the new value (REPLACE). group_by_reduce
/// passes op(old, new) instead, turning it into insert-or-reduce (a CAS loop on the pair).
struct take_new {
  template <class Bits>
  [[nodiscard]] __device__ Bits operator()(Bits, Bits fresh) const {
    return fresh;
  }
};

// ---- the table as device code sees it ---------------------------------------------------------------------

template <class Key, class Value, class Hash>
struct table_view {
  using L = layout<Key, Value>;
  using key_bits = typename L::key_bits;
  using value_bits = typename L::value_bits;
  using slot_type = typename L::slot_type;
  using outcome = task_outcome<value_bits>;

  slab* buckets = nullptr;                ///< the base slabs, one a bucket
  std::uint32_t bucket_count = 0;
  Hash hash{};
  slab_alloc::pool_view pool{};
  unsigned long long* size = nullptr;     ///< live elements (two's-complement sums of the changes)
  std::uint32_t* status = nullptr;        ///< status_bit flags
  std::uint64_t max_hops = 0;             ///< slabs a list can have at most: the pool's units

  /// The key's bucket: each lane hashes its own task's key once, before the warp serves the tasks (a
  /// hash in the task loop would run 32 times an element, once in every lane).
  [[nodiscard]] __device__ __forceinline__ std::uint32_t bucket(key_bits key) const {
    return bucket_of(hash(L::key_of_bits(key)), bucket_count);
  }
  [[nodiscard]] __device__ __forceinline__ static slot_type* slots(slab* s) {
    return reinterpret_cast<slot_type*>(s->words);
  }
  /// The lane's slot of slab `s` (one coalesced 128-byte read for the warp).
  [[nodiscard]] __device__ __forceinline__ static slot_type read(slab* s) {
    return load_slot(slots(s) + L::slot_of_lane(lane()));
  }
  /// The next pointer, from the link slot the last lane of this lane's tile read.
  [[nodiscard]] __device__ __forceinline__ static std::uint32_t next_of(const slot_type& mine) {
    return __shfl_sync(full_mask, L::link_of(mine), static_cast<int>(tile_base() + L::link_slot));
  }

  // A slab of 8- or 16-byte slots is read whole by 16 or 8 lanes (a slot a lane): the group paths serve
  // one task a tile of that many lanes, two or four side by side in a warp, where the seed's warp serves
  // one (its 32 words, §5.4.2). The walks past a base slab stay one task a warp (run_one).
  static constexpr std::uint32_t tile_lanes = L::slots;
  static constexpr std::uint32_t tile_mask = tile_lanes == warp_lanes ? full_mask : (1u << tile_lanes) - 1u;
  [[nodiscard]] __device__ __forceinline__ static std::uint32_t tile_base() { return lane() & ~(tile_lanes - 1u); }
  /// This lane's tile's part of a warp ballot over a slab: bit s for data slot s.
  [[nodiscard]] __device__ __forceinline__ static std::uint32_t tile_slots(std::uint32_t ballot) {
    return (ballot >> tile_base()) & L::data_lanes;
  }
  /// This lane's tile's part of a warp ballot over tasks: bit t for the tile's lane t.
  [[nodiscard]] __device__ __forceinline__ static std::uint32_t tile_tasks(std::uint32_t ballot) {
    return (ballot >> tile_base()) & tile_mask;
  }
  /// The tasks of the lanes with `walking` set, one after another for the whole warp: `walk(source)` (all
  /// lanes) gives the outcome delivered to lane `source`. Kept out of the group loops, so that their
  /// registers do not live across the walk's calls into SlabAlloc.
  template <class Walk, class Deliver>
  __device__ __forceinline__ static void walk_one_at_a_time(bool walking, const Walk& walk, const Deliver& deliver) {
    for (std::uint32_t walkers = __ballot_sync(full_mask, walking); walkers != 0; walkers &= walkers - 1) {
      const std::uint32_t source = first_lane(walkers);
      deliver(walk(source), source);
    }
  }
  /// A map's value in slot `slot` of the slab this lane's tile read (sets: 0).
  [[nodiscard]] __device__ __forceinline__ static value_bits value_in(const slot_type& mine, std::uint32_t slot) {
    if constexpr (L::is_map) return broadcast(L::value_bits_of(mine), tile_base() + slot);
    else return 0;
  }

  /// Appends a slab to the list whose tail `tail` lane 31 read as `mine` (its link "none"), unless another
  /// warp does first. False when the pool has no unit and the tail still has no next slab after
  /// `append_attempts` tries: then the pool's `exhausted` flag is raised and nothing has changed. A try can
  /// fail while the pool is not full for good: warps that lost a race to link hold units for a moment
  /// (one a warp); the tail's link is read again between tries, as another warp may have linked meanwhile.
  /// All lanes.
  __device__ bool append(slab* tail, slot_type mine, slab_alloc::warp_allocator& alloc) const {
    for (int attempt = 0; attempt < append_attempts; ++attempt) {
      if (attempt > 0) {
        mine = read(tail);
        if (next_of(mine) != no_address) return true;  // linked by another warp
      }
      const std::uint32_t address = alloc.try_allocate();
      if (address == slab_alloc::empty_address) continue;
      bool linked = false;
      if (lane() == address_lane) linked = cas_slot(slots(tail) + L::link_slot, mine, L::link_to(address));
      linked = __shfl_sync(full_mask, linked, static_cast<int>(address_lane));
      if (!linked && lane() == 0) pool.deallocate(address);  // another warp linked first; ours is untouched
      return true;
    }
    if (lane() == 0) pool.raise(slab_alloc::exhausted);
    return false;
  }
  static constexpr int append_attempts = 3;

  /// find/contains of `key`, whose list the warp has read down to `current` (as `mine`): the first
  /// instance from there on, or none. All lanes; the outcome is the same in every lane.
  __device__ __forceinline__ outcome find_from(key_bits key, slab* current, slot_type mine) const {
    for (std::uint64_t hops = 0;;) {
      const std::uint32_t match = __ballot_sync(full_mask, L::key_of(mine) == key) & L::data_lanes;
      if (match) return {1, broadcast(L::value_bits_of(mine), first_lane(match)), 0};
      const std::uint32_t next = next_of(mine);
      if (next == no_address) return {0, 0, 0};
      if (++hops > max_hops) {
        if (lane() == 0) atomicOr(status, corrupt_list);
        return {0, 0, 0};
      }
      current = pool.unit(next);
      mine = read(current);
    }
  }

  /// One task of the warp, all lanes together: `op` on `key` (and `value`), from the key's bucket down
  /// its list; the outcome is the same in every lane. count with `all_out` is find_all: the values of the
  /// instances go to all_out[0 … capacity) in list order (the count goes on past capacity).
  template <class Combine>
  __device__ __forceinline__ outcome run_one(slab_op op, key_bits key, std::uint32_t bucket, value_bits value,
                                             void* all_out, std::uint32_t capacity,
                                             slab_alloc::warp_allocator* alloc, const Combine& combine) const {
    slab* current = buckets + bucket;
    if (op == slab_op::find || op == slab_op::contains) return find_from(key, current, read(current));
    std::uint32_t seen = 0;  // count, erase_all: instances so far
    for (std::uint64_t hops = 0;;) {
      const slot_type mine = read(current);
      const key_bits k = L::key_of(mine);
      const std::uint32_t match = __ballot_sync(full_mask, k == key) & L::data_lanes;
      const std::uint32_t next = next_of(mine);
      switch (op) {
        case slab_op::find:
        case slab_op::contains:
          break;  // find_from above
        case slab_op::count:
          if (all_out != nullptr && ((match >> lane()) & 1u)) {
            const std::uint32_t at = seen + __popc(match & lanes_below());
            const value_bits found = L::value_bits_of(mine);
            if (at < capacity) cuda::std::memcpy(static_cast<unsigned char*>(all_out) + at * sizeof(found), &found, sizeof(found));
          }
          seen += __popc(match);
          break;
        case slab_op::erase:
          if (match) {
            const std::uint32_t f = first_lane(match);
            bool erased = false;
            if (lane() == f) erased = cas_slot(slots(current) + f, mine, L::make_slot(L::tombstone_key, L::value_bits_of(mine)));
            if (__shfl_sync(full_mask, erased, static_cast<int>(f))) return {1, 0, -1};
            continue;  // the slot changed under us: read the slab again
          }
          break;
        case slab_op::erase_all:
          if (match) {
            bool erased = false;
            if ((match >> lane()) & 1u)
              erased = cas_slot(slots(current) + lane(), mine, L::make_slot(L::tombstone_key, L::value_bits_of(mine)));
            const std::uint32_t done = __ballot_sync(full_mask, erased);
            seen += __popc(done);
            if (match & ~done) continue;  // some slots changed: read the slab again (erased ones match no more)
          }
          break;
        case slab_op::insert:
        case slab_op::insert_or_assign: {
          const bool assign = op == slab_op::insert_or_assign;
          const std::uint32_t target =
              __ballot_sync(full_mask, k == L::empty_key || (assign && k == key)) & L::data_lanes;
          if (target) {
            const std::uint32_t f = first_lane(target);
            const bool fresh = __shfl_sync(full_mask, k == L::empty_key, static_cast<int>(f));
            if (!fresh && !L::is_map) return {0, 0, 0};  // a set already holds the key
            bool won = false;
            if (lane() == f)
              won = cas_slot(slots(current) + f, mine,
                             L::make_slot(key, fresh ? value : combine(L::value_bits_of(mine), value)));
            if (__shfl_sync(full_mask, won, static_cast<int>(f))) return {fresh ? 1u : 0u, 0, fresh ? 1 : 0};
            continue;  // another warp took or changed the slot: read the slab again
          }
          if (next == no_address) {
            if (alloc == nullptr || !append(current, mine, *alloc)) return {0, 0, 0};  // exhausted: nothing inserted
            continue;  // the tail has a next slab now (ours or another warp's)
          }
          break;
        }
      }
      if (next == no_address) return {seen, 0, op == slab_op::erase_all ? -static_cast<long long>(seen) : 0};
      if (++hops > max_hops) {
        if (lane() == 0) atomicOr(status, corrupt_list);
        return {seen, 0, 0};
      }
      current = pool.unit(next);
    }
  }

  /// The warp's tasks, one a lane (WCWS): lanes with `active` set are served (changes landing in the
  /// order `Order` asks); each gets its result and (find) value. `Op` is the operation of every lane, or
  /// mixed_ops for each lane's own `op`. Keys equal to a marker (layout.hpp) match nothing and insert
  /// nothing: result 0. The element count changes by one atomic a warp. `combine` is what
  /// insert_or_assign stores over a present value. All 32 lanes call, converged.
  template <int Op, task_order Order = task_order::any, class Combine = take_new>
  __device__ __forceinline__ std::uint32_t run(bool active, slab_op op, key_bits key, value_bits value,
                                               value_bits& found, void* all_out, std::uint32_t capacity,
                                               slab_alloc::warp_allocator* alloc, const Combine& combine = {}) const {
    std::uint32_t result = 0;
    long long delta = 0;
    if (L::is_reserved(key)) active = false;
    const std::uint32_t my_bucket = active ? bucket(key) : 0;
    const auto deliver = [&](const outcome& o, std::uint32_t source) {
      if (lane() == source) {
        result = o.result;
        found = o.value;
        delta = o.delta;
        active = false;
      }
    };
    // find, contains, insert, insert_or_assign and erase serve their tasks in groups (mixed batches: each
    // class in turn, which their "any order" allows); count and erase_all one task at a time, below.
    constexpr bool finds = Op == int(slab_op::find) || Op == int(slab_op::contains);
    if constexpr (finds || Op == mixed_ops) {
      serve_finds(active, finds || op == slab_op::find || op == slab_op::contains, key, my_bucket, deliver);
      if constexpr (finds) return result;
    }
    if constexpr (Op == mixed_ops) {
      serve_changes<Order>(slab_op::insert, active, op == slab_op::insert, key, my_bucket, value, alloc, combine,
                           deliver);
      serve_changes<Order>(slab_op::insert_or_assign, active, op == slab_op::insert_or_assign, key, my_bucket, value,
                           alloc, combine, deliver);
      serve_changes<Order>(slab_op::erase, active, op == slab_op::erase, key, my_bucket, value, alloc, combine,
                           deliver);
    } else if constexpr (Op == int(slab_op::insert) || Op == int(slab_op::insert_or_assign) ||
                         Op == int(slab_op::erase)) {
      serve_changes<Order>(static_cast<slab_op>(Op), active, true, key, my_bucket, value, alloc, combine, deliver);
      add_to_size(delta);
      return result;
    }
    constexpr bool counts = Op == mixed_ops || Op == int(slab_op::count);  // only count reads all_out
    for (std::uint32_t queue = __ballot_sync(full_mask, active); queue != 0; queue = __ballot_sync(full_mask, active)) {
      const std::uint32_t source = first_lane(queue);
      const slab_op task = Op == mixed_ops ? static_cast<slab_op>(__shfl_sync(full_mask, static_cast<unsigned>(op),
                                                                              static_cast<int>(source)))
                                           : static_cast<slab_op>(Op);
      const bool writes_value = L::is_map && (task == slab_op::insert || task == slab_op::insert_or_assign);
      const outcome o = run_one(task, broadcast(key, source), broadcast(my_bucket, source),
                                writes_value ? broadcast(value, source) : value_bits{0},
                                counts ? broadcast(all_out, source) : nullptr,
                                counts ? broadcast(capacity, source) : 0u, alloc, combine);
      deliver(o, source);
    }
    add_to_size(delta);
    return result;
  }

  /// find / contains of the lanes with `active && takes`, in groups, a group a tile: every base slab of a
  /// group read before any is searched, so that many reads are in flight a warp rather than one (the find
  /// is latency-bound at one; docs/perf-notes.md). A task whose key is not in its base slab and whose list
  /// goes on walks it afterwards, a task at a time for the whole warp (find_from).
  template <class Deliver>
  __device__ __forceinline__ void serve_finds(const bool& active, bool takes, key_bits key, std::uint32_t my_bucket,
                                              const Deliver& deliver) const {
    constexpr int tiles = int(warp_lanes / tile_lanes);
    constexpr int tasks = tuning::find_tasks_in_flight > tiles ? tuning::find_tasks_in_flight / tiles : 1;
    bool walks = false;  // this lane's task walks on past its base slab, after the groups
    for (std::uint32_t queue = __ballot_sync(full_mask, active && takes && !walks); queue != 0;
         queue = __ballot_sync(full_mask, active && takes && !walks)) {
      const task_group<tasks> group(tile_tasks(queue), tile_base());
      slot_type base[tasks];
      #pragma unroll
      for (int j = 0; j < tasks; ++j) base[j] = read(buckets + broadcast(my_bucket, group.source[j]));
      #pragma unroll
      for (int j = 0; j < tasks; ++j) {
        const key_bits task_key = broadcast(key, group.source[j]);
        const std::uint32_t match = tile_slots(__ballot_sync(full_mask, L::key_of(base[j]) == task_key));
        const value_bits value = value_in(base[j], match != 0 ? first_lane(match) : 0);
        const std::uint32_t next = next_of(base[j]);  // every lane: the tiles' matches differ
        if (j >= group.count) continue;
        if (match != 0 || next == no_address) deliver(outcome{match != 0 ? 1u : 0u, value, 0}, group.source[j]);
        else if (lane() == group.source[j]) walks = true;
      }
    }
    walk_one_at_a_time(active && takes && walks, [&](std::uint32_t source) {
      slab* head = buckets + broadcast(my_bucket, source);
      return find_from(broadcast(key, source), head, read(head));
    }, deliver);
  }

  /// What a change stores over `old`, the slot it targets: erase the tombstone (the value kept), insert
  /// the pair, insert_or_assign over a present key combine(old value, value).
  template <class Combine>
  [[nodiscard]] __device__ __forceinline__ static slot_type changed_slot(slab_op op, const slot_type& old, key_bits key,
                                                                         value_bits value, const Combine& combine) {
    if (op == slab_op::erase) return L::make_slot(L::tombstone_key, L::value_bits_of(old));
    return L::make_slot(key, L::key_of(old) == L::empty_key ? value : combine(L::value_bits_of(old), value));
  }

  /// insert, insert_or_assign or erase (`op`) of the lanes with `active && takes`, in groups, a group a
  /// tile. Every base slab of a group is read, then every task whose base slab has its target slot (insert:
  /// the first empty one; insert_or_assign: the first that is empty or holds the key; erase: the first
  /// holding the key) CASes it, all before any outcome is looked at: reads, then CASes, in flight together.
  /// A task whose base slab has no target, or whose CAS lost (another task, of this warp or another,
  /// changed the slot since the read), runs the one-task walk from its base slab, so every change is still
  /// one CAS of a slot that held what the task read; sets meeting their key take the walk too (it returns
  /// "present"). The walks run after the warp's groups (task_order::any), or after the group that needed
  /// them, before the next (task_order::lanes).
  template <task_order Order, class Combine, class Deliver>
  __device__ __forceinline__ void serve_changes(slab_op op, const bool& active, bool takes, key_bits key,
                                                std::uint32_t my_bucket, value_bits value,
                                                slab_alloc::warp_allocator* alloc, const Combine& combine,
                                                const Deliver& deliver) const {
    constexpr int tasks = tuning::insert_tasks_in_flight;
    const bool assign = op == slab_op::insert_or_assign, erasing = op == slab_op::erase;
    constexpr bool in_lane_order = Order == task_order::lanes;
    bool walks = false;  // this lane's task takes the one-task walk, after the groups (or the group)
    do {
      for (std::uint32_t queue = __ballot_sync(full_mask, active && takes && !walks); queue != 0;
           queue = __ballot_sync(full_mask, active && takes && !walks)) {
        if (in_lane_order && __any_sync(full_mask, active && walks)) break;  // walk them before the next group
        const task_group<tasks> group(tile_tasks(queue), tile_base());
        key_bits task_key[tasks];
        value_bits task_value[tasks];
        std::uint32_t task_bucket[tasks];
        slot_type base[tasks];
        #pragma unroll
        for (int j = 0; j < tasks; ++j) {
          task_key[j] = broadcast(key, group.source[j]);
          task_value[j] = L::is_map ? broadcast(value, group.source[j]) : value_bits{0};
          task_bucket[j] = broadcast(my_bucket, group.source[j]);
        }
        #pragma unroll
        for (int j = 0; j < tasks; ++j) base[j] = read(buckets + task_bucket[j]);
        std::uint32_t target_lane[tasks];  // warp_lanes: no target in the base slab (or a set's key found)
        bool fresh[tasks], won[tasks];
        #pragma unroll
        for (int j = 0; j < tasks; ++j) {
          const key_bits k = L::key_of(base[j]);
          const bool holds_key = k == task_key[j], empty = k == L::empty_key && !erasing;
          const bool aimed = empty || ((assign || erasing) && holds_key);
          const std::uint32_t target = tile_slots(__ballot_sync(full_mask, aimed));
          const std::uint32_t f = target != 0 ? first_lane(target) : 0;
          fresh[j] = __shfl_sync(full_mask, empty, static_cast<int>(tile_base() + f));
          target_lane[j] =
              j < group.count && target != 0 && (fresh[j] || L::is_map || erasing) ? tile_base() + f : warp_lanes;
          won[j] = false;
          if (lane() == target_lane[j])
            won[j] = cas_slot(slots(buckets + task_bucket[j]) + f, base[j],
                              changed_slot(op, base[j], task_key[j], task_value[j], combine));
        }
        #pragma unroll
        for (int j = 0; j < tasks; ++j) {
          const bool done = __shfl_sync(full_mask, won[j], static_cast<int>(target_lane[j] % warp_lanes)) &&
                            target_lane[j] != warp_lanes;
          if (j >= group.count) continue;
          const outcome changed = erasing ? outcome{1, 0, -1} : outcome{fresh[j] ? 1u : 0u, 0, fresh[j] ? 1 : 0};
          if (done) deliver(changed, group.source[j]);
          else if (lane() == group.source[j]) walks = true;
        }
      }
      walk_one_at_a_time(active && takes && walks, [&](std::uint32_t source) {
        return run_one(op, broadcast(key, source), broadcast(my_bucket, source),
                       L::is_map ? broadcast(value, source) : value_bits{0}, nullptr, 0, alloc, combine);
      }, deliver);
    } while (in_lane_order && __any_sync(full_mask, active && takes));
  }

  /// size += the warp's changes: one atomic a warp, none when they cancel.
  __device__ __forceinline__ void add_to_size(long long delta) const {
    for (int offset = 16; offset > 0; offset /= 2) delta += __shfl_xor_sync(full_mask, delta, offset);
    if (delta != 0 && lane() == 0) atomicAdd(size, static_cast<unsigned long long>(delta));
  }
};

}  // namespace sluice::detail::slab_hash
