// sluice/options/slab_hash.hpp: the public option types of containers/slab_hash.cuh (Ashkiani ch. 5): the
// table's sizing and growth, the operation codes of a mixed batch, and the tags that choose which device
// operations a view offers.
#pragma once

#include <sluice/options/slab_alloc.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace sluice {

struct slab_hash_options {
  /// Elements expected: sizes the buckets (capacity / (M · target_slabs_per_bucket)) and the pool.
  std::size_t capacity = 0;
  /// B, the bucket count, when nonzero (capacity then only sizes the pool).
  std::uint32_t buckets = 0;
  /// β, the average slabs a bucket, that sizing and growth aim at (§5.6.1: the seed's table is fastest
  /// at β 0.2–0.7, 19–60% memory utilization).
  double target_slabs_per_bucket = 0.7;
  /// Growth: a bulk call that could take β past this first grows the table (more buckets, every element
  /// moved) to target_slabs_per_bucket. The seed's throughput drops sharply past β ≈ 0.9–1.1.
  double max_slabs_per_bucket = 1.0;
  /// false: B stays fixed (the seed's table); chains just get longer.
  bool grow = true;
  /// The slab pool (SlabAlloc); it grows as the table needs, up to allocator.max_super_blocks.
  slab_alloc_options allocator = {};
};

/// The operation of one element of a mixed batch (slab_hash::apply), and of a device view's apply().
/// Each element's result (a 32-bit count) says what it did:
enum class slab_op : std::uint8_t {
  insert,            ///< INSERT (duplicates allowed): 1, or 0 where the pool was exhausted
  insert_or_assign,  ///< REPLACE (unique keys): 1 inserted, 0 assigned to the present key
  erase,             ///< DELETE of the least recent instance: 1 erased, 0 absent
  erase_all,         ///< DELETEALL: the instances erased
  find,              ///< SEARCH of the least recent instance: 1 found (its value written), 0 absent
  contains,          ///< 1 present, 0 absent
  count,             ///< the instances present
};

[[nodiscard]] constexpr std::string_view to_string(slab_op op) {
  switch (op) {
    case slab_op::insert: return "insert";
    case slab_op::insert_or_assign: return "insert_or_assign";
    case slab_op::erase: return "erase";
    case slab_op::erase_all: return "erase_all";
    case slab_op::find: return "find";
    case slab_op::contains: return "contains";
    case slab_op::count: return "count";
  }
  return "?";
}

/// Tags naming what a device view may do (slab_hash::ref(tags...)), as cuCollections' refs do.
namespace slab_ops {
struct insert_tag {};
struct insert_or_assign_tag {};
struct erase_tag {};  ///< erase, erase_all
struct find_tag {};   ///< find, find_all, contains, count
inline constexpr insert_tag insert{};
inline constexpr insert_or_assign_tag insert_or_assign{};
inline constexpr erase_tag erase{};
inline constexpr find_tag find{};
}  // namespace slab_ops

}  // namespace sluice
