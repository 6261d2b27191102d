// sluice/detail/slab_hash/ref.cuh: the slab hash's device view for users' kernels (slab_hash::ref(tags…)):
// a trivially copyable wrapper of table_view that offers only the operations named by its tags, as
// cuCollections' refs do (options/slab_hash.hpp: slab_ops::insert, insert_or_assign, erase, find).
//
// Every operation is warp-cooperative: all 32 lanes of the warp call it, converged (blocks of whole warps),
// each with its own task, and `active` false where a lane has none (WCWS, Ashkiani §1.1). Results are per
// lane. Inserting operations take the warp's allocator (make_allocator(), made once by all lanes and kept
// in registers for the kernel, as the seed keeps the resident block). See docs/containers.md for what a
// concurrent find sees of an insert or erase in flight.
#pragma once

#include <sluice/detail/slab_alloc/device.cuh>
#include <sluice/detail/slab_hash/device.cuh>
#include <sluice/detail/slab_hash/layout.hpp>
#include <sluice/options/slab_hash.hpp>

#include <cstdint>
#include <type_traits>

namespace sluice::detail::slab_hash {

template <class Key, class Value, class Hash, class... Ops>
class table_ref {
  using view_type = table_view<Key, Value, Hash>;
  using L = typename view_type::L;
  using value_bits = typename L::value_bits;

  template <class Tag>
  static constexpr bool offers = (std::is_same_v<Tag, Ops> || ...);
  static constexpr bool inserts = offers<slab_ops::insert_tag> || offers<slab_ops::insert_or_assign_tag>;
  static constexpr bool offers_all = offers<slab_ops::insert_tag> && offers<slab_ops::insert_or_assign_tag> &&
                                     offers<slab_ops::erase_tag> && offers<slab_ops::find_tag>;
  static constexpr bool is_map = L::is_map;

 public:
  using key_type = Key;
  using mapped_type = Value;
  using allocator_type = slab_alloc::warp_allocator;
  static_assert(sizeof...(Ops) > 0, "name the operations the view offers: ref(slab_ops::find, …)");

  explicit table_ref(const view_type& view) : view_(view) {}

  /// The warp's allocator for inserting operations: all 32 lanes, once, kept for the kernel.
  [[nodiscard]] __device__ allocator_type make_allocator() const
    requires inserts
  {
    return allocator_type(view_.pool);
  }

  // ---- maps ---------------------------------------------------------------------------------------------
  /// INSERT (duplicates allowed): true, or false where the pool was exhausted (nothing inserted).
  __device__ bool insert(allocator_type& alloc, bool active, Key key, Value value) const
    requires(is_map && offers<slab_ops::insert_tag>)
  {
    return run<int(slab_op::insert)>(active, key, L::bits_of_value(value), &alloc) != 0;
  }
  /// REPLACE: true when the key was absent and is now inserted, false when its value was assigned (or
  /// the pool was exhausted).
  __device__ bool insert_or_assign(allocator_type& alloc, bool active, Key key, Value value) const
    requires(is_map && offers<slab_ops::insert_or_assign_tag>)
  {
    return run<int(slab_op::insert_or_assign)>(active, key, L::bits_of_value(value), &alloc) != 0;
  }
  /// SEARCH: true and `out` = the least recent instance's value, or false and `out` untouched.
  __device__ bool find(bool active, Key key, Value& out) const
    requires(is_map && offers<slab_ops::find_tag>)
  {
    value_bits found = 0;
    const bool hit = view_.template run<int(slab_op::find)>(active, slab_op::find, L::bits_of_key(key), 0, found,
                                                             nullptr, 0, nullptr) != 0;
    if (hit) out = L::value_of_bits(found);
    return hit;
  }
  /// SEARCHALL: the instances of the key; the first min(count, capacity) values (least recent first) go
  /// to out[0 …].
  __device__ std::uint32_t find_all(bool active, Key key, Value* out, std::uint32_t capacity) const
    requires(is_map && offers<slab_ops::find_tag>)
  {
    value_bits unused = 0;
    return view_.template run<int(slab_op::count)>(active, slab_op::count, L::bits_of_key(key), 0, unused, out,
                                                   capacity, nullptr);
  }
  /// A mixed task (slab_op); `found` gets find's value. Result as slab_op says.
  __device__ std::uint32_t apply(allocator_type& alloc, bool active, slab_op op, Key key, Value value, Value& found) const
    requires(is_map && offers_all)
  {
    value_bits bits = 0;
    const std::uint32_t result = view_.template run<mixed_ops>(active, op, L::bits_of_key(key), L::bits_of_value(value),
                                                               bits, nullptr, 0, &alloc);
    if (active && op == slab_op::find && result != 0) found = L::value_of_bits(bits);
    return result;
  }

  // ---- sets ---------------------------------------------------------------------------------------------
  /// INSERT (duplicates allowed): true, or false where the pool was exhausted.
  __device__ bool insert(allocator_type& alloc, bool active, Key key) const
    requires(!is_map && offers<slab_ops::insert_tag>)
  {
    return run<int(slab_op::insert)>(active, key, 0, &alloc) != 0;
  }
  /// Inserts the key unless present (REPLACE of a set): true when it was absent and is now inserted.
  __device__ bool insert_unique(allocator_type& alloc, bool active, Key key) const
    requires(!is_map && offers<slab_ops::insert_or_assign_tag>)
  {
    return run<int(slab_op::insert_or_assign)>(active, key, 0, &alloc) != 0;
  }
  /// A mixed task (slab_op; find acts as contains).
  __device__ std::uint32_t apply(allocator_type& alloc, bool active, slab_op op, Key key) const
    requires(!is_map && offers_all)
  {
    value_bits unused = 0;
    return view_.template run<mixed_ops>(active, op, L::bits_of_key(key), 0, unused, nullptr, 0, &alloc);
  }

  // ---- both ---------------------------------------------------------------------------------------------
  /// DELETE: erases the least recent instance; true when there was one.
  __device__ bool erase(bool active, Key key) const
    requires offers<slab_ops::erase_tag>
  {
    return run<int(slab_op::erase)>(active, key, 0, nullptr) != 0;
  }
  /// DELETEALL: the instances erased.
  __device__ std::uint32_t erase_all(bool active, Key key) const
    requires offers<slab_ops::erase_tag>
  {
    return run<int(slab_op::erase_all)>(active, key, 0, nullptr);
  }
  __device__ bool contains(bool active, Key key) const
    requires offers<slab_ops::find_tag>
  {
    return run<int(slab_op::contains)>(active, key, 0, nullptr) != 0;
  }
  /// The instances of the key.
  __device__ std::uint32_t count(bool active, Key key) const
    requires offers<slab_ops::find_tag>
  {
    return run<int(slab_op::count)>(active, key, 0, nullptr);
  }

  [[nodiscard]] __host__ __device__ std::uint32_t bucket_count() const { return view_.bucket_count; }
  /// The underlying view (the bulk kernels' form).
  [[nodiscard]] __host__ __device__ const view_type& view() const { return view_; }

 private:
  template <int Op>
  __device__ std::uint32_t run(bool active, Key key, value_bits value, allocator_type* alloc) const {
    value_bits unused = 0;
    return view_.template run<Op>(active, static_cast<slab_op>(Op), L::bits_of_key(key), value, unused, nullptr, 0,
                                  alloc);
  }

  view_type view_;
};

}  // namespace sluice::detail::slab_hash
