// sluice/detail/slab_alloc/device.cuh: SlabAlloc on the device (Ashkiani §5.5): the trivially copyable
// view of a pool (decode a 32-bit address, free a unit) and the warp-synchronous allocator whose resident
// memory block's bitmap sits in registers, one 32-bit word a lane.
//
// allocate_each (all 32 lanes, a unit for each lane that wants one): every lane claims, with one atomicOr
// on its own word, the free bits the warp's requests need, so one round trip serves up to 32 units.
//
// allocate (all 32 lanes, same address returned to all): lanes ballot whether their word has a free bit;
// the lowest such lane sets its lowest free bit with one atomicOr on the global bitmap word. The old word
// says whether the unit was still free; either way the lane's register copy is refreshed from it. A full
// resident block makes the warp change residency (address.hpp: hashed changes, then a sweep of every
// block); a sweep that finds nothing raises the pool's `exhausted` flag and returns empty_address. Cost
// with low contention: one atomic an allocation; a resident change reads one 128-byte bitmap.
// Every loop is bounded: each failed atomicOr sets a bit of the register copy (≤ 1024 per residency), and
// one allocation makes at most hashed_changes + (blocks in the pool) changes before it reports exhaustion.
//
// deallocate (any lane): one atomicAnd clearing the unit's bit, after a fence, so that the caller's reset
// of the unit (all bytes 0xFF: every free unit is an empty slab) is visible before another warp can take it.
// An address outside the pool, or a unit already free, is not written: it raises `bad_free` or
// `double_free` instead.
#pragma once

#include <sluice/core/config.hpp>
#include <sluice/detail/slab_alloc/address.hpp>
#include <sluice/detail/slab_alloc/tuning.hpp>

#include <cuda/atomic>
#include <cuda/ptx>

#include <cstdint>

namespace sluice::detail::slab_alloc {

/// One unit: a slab of 32 words, lane i's word i.
struct alignas(unit_bytes) unit_words_t {
  std::uint32_t words[unit_words];
};

/// Bits of the pool's device-visible status word.
enum status_bit : std::uint32_t {
  exhausted = 1u,    ///< an allocation found no free unit
  bad_free = 2u,     ///< deallocate of an address outside the pool
  double_free = 4u,  ///< deallocate of a unit that was free
};

/// Relaxed loads at device scope: never a stale L1 line, so a retry after a failed atomic sees the new word.
template <class T>
[[nodiscard]] __device__ __forceinline__ T load_relaxed(const T* address) {
  return cuda::atomic_ref<T, cuda::thread_scope_device>(*const_cast<T*>(address)).load(cuda::std::memory_order_relaxed);
}

/// A pool seen from the device: where super block s starts, and the status word. Trivially copyable.
struct pool_view {
  unsigned char* base = nullptr;                  ///< light: the array of all super blocks
  unsigned char* const* super_block_table = nullptr;  ///< regular: the super blocks' base pointers
  std::uint64_t stride = 0;                       ///< light: bytes of one super block
  std::uint32_t super_blocks = 0;                 ///< N_S in use
  std::uint32_t blocks_per_super_block = 0;       ///< N_M
  std::uint32_t* status = nullptr;                ///< status_bit flags
  bool light = true;

  [[nodiscard]] __device__ __forceinline__ unsigned char* super_block(std::uint32_t s) const {
    return light ? base + s * stride : super_block_table[s];  // §5.5: the regular variant's extra read
  }

  /// The unit at `address` (which must be one of the pool's).
  [[nodiscard]] __device__ __forceinline__ unit_words_t* unit(std::uint32_t address) const {
    const unit_location where = decode_address(address);
    return reinterpret_cast<unit_words_t*>(super_block(where.super_block) + unit_offset(where));
  }

  /// The 32-word bitmap of memory block `block` (global numbering).
  [[nodiscard]] __device__ __forceinline__ std::uint32_t* bitmap(std::uint32_t block) const {
    const std::uint32_t s = block / blocks_per_super_block;
    return reinterpret_cast<std::uint32_t*>(super_block(s) +
                                            bitmap_offset(blocks_per_super_block, block - s * blocks_per_super_block));
  }

  [[nodiscard]] __device__ __forceinline__ bool owns(std::uint32_t address) const {
    return is_unit_of(address, super_blocks, blocks_per_super_block);
  }

  __device__ __forceinline__ void raise(std::uint32_t bit) const { atomicOr(status, bit); }

  /// Frees the unit at `address`; the caller has reset it to all-ones bytes. Any lane, alone.
  __device__ void deallocate(std::uint32_t address) const {
    if (!owns(address)) {
      raise(bad_free);
      return;
    }
    const unit_location where = decode_address(address);
    std::uint32_t* word =
        bitmap(global_block(where.super_block, where.block, blocks_per_super_block)) + word_of_unit(where.unit);
    const std::uint32_t bit = 1u << bit_of_unit(where.unit);
    __threadfence();  // the unit's reset before its bit: a warp that takes it must see an empty slab
    if ((atomicAnd(word, ~bit) & bit) == 0) raise(double_free);
  }
};

/// The calling thread's lane in its warp (the hardware's numbering: right for any block shape).
[[nodiscard]] __device__ __forceinline__ std::uint32_t lane() { return cuda::ptx::get_sreg_laneid(); }

/// The linear id of the calling thread's warp in the grid (any grid and block shape; blocks of whole warps).
[[nodiscard]] __device__ __forceinline__ std::uint32_t global_warp_id() {
  const std::uint64_t block = (std::uint64_t{blockIdx.z} * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
  const std::uint32_t thread = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  const std::uint32_t threads = blockDim.x * blockDim.y * blockDim.z;
  return static_cast<std::uint32_t>((block * threads + thread) / 32);
}

/// A warp's allocator: its resident memory block and that block's bitmap in registers (lane l: word l).
/// Made inside a kernel by all 32 lanes; lives in registers for as long as the warp allocates.
class warp_allocator {
 public:
  __device__ explicit warp_allocator(const pool_view& pool) : pool_(pool), warp_(global_warp_id()) {}

  /// A free unit's address, the same in every lane, or empty_address when the pool has none (then the
  /// pool's `exhausted` flag is raised). All 32 lanes call, converged.
  __device__ std::uint32_t allocate() {
    const std::uint32_t address = try_allocate();
    if (address == empty_address && lane() == 0) pool_.raise(exhausted);
    return address;
  }

  /// allocate() without the flag: for callers that may retry (a unit can be free again a moment later,
  /// released by a warp that lost a race) and raise it themselves only if they give up.
  __device__ std::uint32_t try_allocate() {
    const std::uint64_t first_change = changes_;
    std::uint32_t attempt = 0;  // resident changes made by this allocation
    while (true) {
      if (!resident_ && !change_resident(first_change, attempt++)) return empty_address;
      const std::uint32_t free_lanes = __ballot_sync(0xFFFFFFFFu, bitmap_ != 0xFFFFFFFFu);
      if (free_lanes == 0) {
        resident_ = false;
        continue;
      }
      const std::uint32_t source = __ffs(free_lanes) - 1;
      std::uint32_t address = empty_address;
      if (lane() == source) {
        const std::uint32_t index = lowest_free_bit(bitmap_);
        const std::uint32_t bit = 1u << index;
        const std::uint32_t before = atomicOr(pool_.bitmap(block_) + source, bit);
        bitmap_ = before | bit;  // the word as it is now: other warps' units too
        if ((before & bit) == 0)
          address = encode_address({block_ / pool_.blocks_per_super_block, block_ % pool_.blocks_per_super_block,
                                    unit_of_bit(source, index)});
      }
      address = __shfl_sync(0xFFFFFFFFu, address, static_cast<int>(source));
      if (address != empty_address) {
        __threadfence();  // acquire: the unit's reset by its last owner (deallocate) before our use of it
        return address;
      }
    }
  }

  /// A free unit for every lane with `wants` set, its own (empty_address where the pool has none left:
  /// then the pool's `exhausted` flag is raised). All 32 lanes call, converged. Each round, the lanes'
  /// free bits of the resident block are ranked in lane order; every lane claims the bits the requests
  /// need from its word with one atomicOr (all lanes at once: up to 32 units a round trip, where
  /// allocate() takes one), the units won go to the requests in rank order, and requests left (bits
  /// another warp took first) take the next round. One fence a call.
  __device__ std::uint32_t allocate_each(bool wants = true) {
    const std::uint64_t first_change = changes_;
    std::uint32_t attempt = 0;
    std::uint32_t mine = empty_address;
    for (std::uint32_t needing = __ballot_sync(0xFFFFFFFFu, wants); needing != 0;
         needing = __ballot_sync(0xFFFFFFFFu, wants && mine == empty_address)) {
      if (!resident_ && !change_resident(first_change, attempt++)) {
        if (lane() == 0) pool_.raise(exhausted);
        break;
      }
      const std::uint32_t free_bits = ~bitmap_;
      const std::uint32_t free_before = exclusive_lane_sum(__popc(free_bits));
      const std::uint32_t free_total = __shfl_sync(0xFFFFFFFFu, free_before + __popc(free_bits), 31);
      if (free_total == 0) {
        resident_ = false;
        continue;
      }
      // This lane's share of the requests: ranks [free_before, free_before + take) of the free bits.
      const std::uint32_t requests = __popc(needing);
      const std::uint32_t free_here = __popc(free_bits);
      const std::uint32_t wanted_here = requests > free_before ? requests - free_before : 0u;
      const std::uint32_t take = wanted_here < free_here ? wanted_here : free_here;
      const std::uint32_t claim = lowest_bits(free_bits, take);
      std::uint32_t won = 0;
      if (claim != 0) {
        const std::uint32_t before = atomicOr(pool_.bitmap(block_) + lane(), claim);
        bitmap_ = before | claim;  // the word as it is now: other warps' units too
        won = claim & ~before;
      }
      // The request of rank r takes the won unit of rank r, in lane order, then bit order.
      const std::uint32_t won_before = exclusive_lane_sum(__popc(won));
      const bool requesting = ((needing >> lane()) & 1u) != 0;
      const std::uint32_t rank = __popc(needing & ((1u << lane()) - 1u));
      const std::uint32_t owner = lane_holding_rank(won_before, rank);  // the last lane with won_before ≤ rank
      const std::uint32_t owner_won = __shfl_sync(0xFFFFFFFFu, won, static_cast<int>(owner));
      const std::uint32_t owner_before = __shfl_sync(0xFFFFFFFFu, won_before, static_cast<int>(owner));
      if (requesting && rank - owner_before < static_cast<std::uint32_t>(__popc(owner_won))) {
        const std::uint32_t bit = __fns(owner_won, 0, static_cast<int>(rank - owner_before) + 1);
        mine = encode_address({block_ / pool_.blocks_per_super_block, block_ % pool_.blocks_per_super_block,
                               unit_of_bit(owner, bit)});
      }
    }
    if (__any_sync(0xFFFFFFFFu, mine != empty_address)) __threadfence();  // acquire, as allocate()'s
    return mine;
  }

  [[nodiscard]] __device__ const pool_view& pool() const { return pool_; }

 private:
  /// The sum of `value` over the lanes below this one.
  [[nodiscard]] __device__ static std::uint32_t exclusive_lane_sum(std::uint32_t value) {
    std::uint32_t sum = value;
    for (int offset = 1; offset < 32; offset *= 2) {
      const std::uint32_t below = __shfl_up_sync(0xFFFFFFFFu, sum, offset);
      if (static_cast<int>(lane()) >= offset) sum += below;
    }
    return sum - value;
  }
  /// The `count` lowest set bits of `bits`.
  [[nodiscard]] __device__ static std::uint32_t lowest_bits(std::uint32_t bits, std::uint32_t count) {
    return count >= static_cast<std::uint32_t>(__popc(bits)) ? bits : bits & ((1u << __fns(bits, 0, count + 1)) - 1u);
  }
  /// The last lane whose `starts` (non-decreasing over the lanes) is ≤ `rank`: a binary search by shuffles.
  [[nodiscard]] __device__ static std::uint32_t lane_holding_rank(std::uint32_t starts, std::uint32_t rank) {
    std::uint32_t low = 0;  // starts of lane 0 is 0 ≤ rank
    for (std::uint32_t step = 16; step > 0; step /= 2) {
      const std::uint32_t probe = __shfl_sync(0xFFFFFFFFu, starts, static_cast<int>(low + step));
      if (probe <= rank) low += step;
    }
    return low;
  }

  /// Makes the block of this allocation's `attempt`-th change resident and loads its bitmap; false once
  /// the allocation has tried every block.
  __device__ bool change_resident(std::uint64_t first_change, std::uint32_t attempt) {
    if (attempt >= changes_to_exhaustion(tuning::hashed_changes, pool_.super_blocks, pool_.blocks_per_super_block))
      return false;
    block_ = resident_block(warp_, first_change, attempt, tuning::hashed_changes, pool_.super_blocks,
                            pool_.blocks_per_super_block);
    ++changes_;
    bitmap_ = load_relaxed(pool_.bitmap(block_) + lane());
    resident_ = true;
    return true;
  }

  pool_view pool_;
  std::uint32_t warp_;
  std::uint64_t changes_ = 0;  ///< resident changes so far, over every allocation (the seed's hash input)
  std::uint32_t block_ = 0;    ///< resident block, global numbering
  std::uint32_t bitmap_ = 0xFFFFFFFFu;
  bool resident_ = false;
};

}  // namespace sluice::detail::slab_alloc
