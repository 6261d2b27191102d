// sluice/detail/slab_hash/layout.hpp: what the 32 words of a 128-byte slab hold for each kind of table
// (Ashkiani §5.4.2), as pure arithmetic for the host and the device. docs/containers.md draws them.
//
// A slab is an array of `slots`, each the unit one atomic compare-and-swap replaces: a key (sets) or a
// key and its value together (maps). The last slot is the link slot; its last 4 bytes (word 31, the
// seed's ADDRESS_LANE) hold the next slab's SlabAlloc address, the rest is reserved (all 0xFF).
//
//   kind                         slot          slots   data slots  key lanes         seed
//   set of 32-bit keys           key (4 B)     32      30          0 … 29            §5.4.2 (lane 30 aux)
//   map of 32-bit → 32-bit       key|value 8 B 16      15          0 … 14            §5.4.2 (15 pairs)
//   set of 64-bit keys           key (8 B)     16      15          0 … 14            extension
//   map of 64-bit → 64-bit       key,value 16B 8       7           0 … 6             extension (sm_90)
//
// Lane l of a warp reads slot l mod slots: for 8- and 16-byte slots several lanes read the same slot, and
// only the first copy (lanes below `data slots`) takes part in ballots. Each slot is read with one load
// of its full width, so a key is never seen without its value, nor a value without its key: the seed's
// layout (keys in even words, values in odd ones, one 4-byte load a lane) can tear a pair.
//
// Keys: 0xFF…FF marks an empty slot, 0xFF…FE an erased one (tombstone); both are reserved (bulk
// calls reject them). A slot goes empty → key → tombstone (→ empty only when flush or growth rebuilds
// the list, alone in their kernels): never back to empty while other operations run, which is what
// keeps insert_or_assign from creating a duplicate (docs/containers.md, "why tombstones stay").
#pragma once

#include <sluice/core/config.hpp>
#include <sluice/core/values.hpp>

#include <cuda/std/bit>

#include <cstdint>
#include <type_traits>

namespace sluice::detail::slab_hash {

inline constexpr std::uint32_t slab_bytes = 128;
inline constexpr std::uint32_t warp_lanes = 32;
inline constexpr std::uint32_t address_lane = 31;  ///< the lane whose slot holds the next pointer
inline constexpr std::uint32_t no_address = 0xFFFFFFFFu;

/// The slot of the 64-bit maps: a key and its value, replaced together by one 16-byte CAS (sm_90).
struct alignas(16) pair_slot {
  std::uint64_t key;
  std::uint64_t value;
  friend SLUICE_HOST_DEVICE constexpr bool operator==(const pair_slot& a, const pair_slot& b) {
    return a.key == b.key && a.value == b.value;
  }
};

/// Keys a slab hash takes: 4- or 8-byte integers (signed ones reserve −1 and −2).
template <class K>
inline constexpr bool slab_key = std::is_integral_v<K> && !std::is_same_v<K, bool> && (sizeof(K) == 4 || sizeof(K) == 8);

/// Values a slab map takes: trivially copyable, the key's size.
template <class K, class V>
inline constexpr bool slab_value = !has_values<V> || (std::is_trivially_copyable_v<V> && sizeof(V) == sizeof(K));

template <class Key, class Value>
struct layout {
  static_assert(slab_key<Key>, "slab hash keys are 4- or 8-byte integers");
  static_assert(slab_value<Key, Value>, "slab map values are trivially copyable and as wide as the key");

  static constexpr bool is_map = has_values<Value>;
  using key_bits = std::conditional_t<sizeof(Key) == 4, std::uint32_t, std::uint64_t>;
  using value_bits = key_bits;  ///< a map's value as raw bits (sets: unused)
  static constexpr std::uint32_t slot_bytes = is_map ? 2 * sizeof(Key) : sizeof(Key);
  using slot_type =
      std::conditional_t<slot_bytes == 4, std::uint32_t, std::conditional_t<slot_bytes == 8, std::uint64_t, pair_slot>>;

  static constexpr std::uint32_t slots = slab_bytes / slot_bytes;  ///< 32, 16 or 8
  static constexpr std::uint32_t link_slot = slots - 1;
  /// 4-byte slots leave word 30 to the seed's auxiliary lane; wider ones share the link slot with it.
  static constexpr std::uint32_t data_slots = slot_bytes == 4 ? 30 : slots - 1;
  /// Ballot bits of the lanes that stand for the data slots (the first copy of each).
  static constexpr std::uint32_t data_lanes = (1u << data_slots) - 1u;

  static constexpr key_bits empty_key = ~key_bits{0};
  static constexpr key_bits tombstone_key = ~key_bits{0} - 1;

  [[nodiscard]] SLUICE_HOST_DEVICE static constexpr std::uint32_t slot_of_lane(std::uint32_t lane) {
    return lane % slots;
  }

  [[nodiscard]] SLUICE_HOST_DEVICE static constexpr key_bits bits_of_key(Key key) { return static_cast<key_bits>(key); }
  [[nodiscard]] SLUICE_HOST_DEVICE static constexpr Key key_of_bits(key_bits bits) { return static_cast<Key>(bits); }

  [[nodiscard]] SLUICE_HOST_DEVICE static constexpr bool is_reserved(key_bits key) {
    return key == empty_key || key == tombstone_key;
  }

  /// A slot holding `key` (and, for maps, `value`).
  [[nodiscard]] SLUICE_HOST_DEVICE static constexpr slot_type make_slot(key_bits key, value_bits value = 0) {
    if constexpr (slot_bytes == 16) return pair_slot{key, value};
    else if constexpr (is_map) return static_cast<std::uint64_t>(key) | (static_cast<std::uint64_t>(value) << 32);
    else return key;
  }

  /// Every byte 0xFF: an empty data slot, or a link slot at the end of its list.
  [[nodiscard]] SLUICE_HOST_DEVICE static constexpr slot_type empty_slot() {
    if constexpr (slot_bytes == 16) return pair_slot{~std::uint64_t{0}, ~std::uint64_t{0}};
    else return static_cast<slot_type>(~slot_type{0});
  }

  [[nodiscard]] SLUICE_HOST_DEVICE static constexpr key_bits key_of(const slot_type& slot) {
    if constexpr (slot_bytes == 16) return slot.key;
    else if constexpr (is_map) return static_cast<key_bits>(slot & 0xFFFFFFFFu);  // word 2p: the key (§5.4.2)
    else return slot;
  }

  [[nodiscard]] SLUICE_HOST_DEVICE static constexpr value_bits value_bits_of(const slot_type& slot) {
    if constexpr (slot_bytes == 16) return slot.value;
    else if constexpr (is_map) return static_cast<value_bits>(slot >> 32);  // word 2p + 1: the value
    else return 0;
  }

  /// The next pointer in a link slot (word 31 of the slab).
  [[nodiscard]] SLUICE_HOST_DEVICE static constexpr std::uint32_t link_of(const slot_type& slot) {
    if constexpr (slot_bytes == 16) return static_cast<std::uint32_t>(slot.value >> 32);
    else if constexpr (slot_bytes == 8) return static_cast<std::uint32_t>(slot >> 32);
    else return slot;
  }

  /// The link slot pointing at `address` (the reserved bytes stay 0xFF).
  [[nodiscard]] SLUICE_HOST_DEVICE static constexpr slot_type link_to(std::uint32_t address) {
    if constexpr (slot_bytes == 16) return pair_slot{~std::uint64_t{0}, (std::uint64_t{address} << 32) | 0xFFFFFFFFu};
    else if constexpr (slot_bytes == 8) return (std::uint64_t{address} << 32) | 0xFFFFFFFFu;
    else return address;
  }

  /// A map's value from its bits and back (trivially copyable values of the key's width).
  template <class V = Value>
  [[nodiscard]] SLUICE_HOST_DEVICE static constexpr value_bits bits_of_value(const V& value) {
    return cuda::std::bit_cast<value_bits>(value);
  }
  template <class V = Value>
  [[nodiscard]] SLUICE_HOST_DEVICE static constexpr V value_of_bits(value_bits bits) {
    return cuda::std::bit_cast<V>(bits);
  }
};

}  // namespace sluice::detail::slab_hash
