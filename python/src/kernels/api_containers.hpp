// sluice/python/api_containers.hpp: the type-erased API (as api.hpp's) of the slab hash
// (containers/slab_hash.cuh). The table lives in the kernels library behind slab_hash_handle, so that the
// module stays host C++. Apart from api.hpp so that the translation units bound first do not depend on it.
#pragma once

#include "api.hpp"

#include <functional>
#include <memory>
#include <optional>

namespace sluice::python {

/// A slab hash map (keys → values of the key's width) or set of 4- or 8-byte integer keys (int32, uint32,
/// int64, uint64; values int32, uint32, float32 or int64, uint64, float64). Keys and values move as words
/// of their width: hashing and equality are on the bits, so signed and unsigned keys behave alike, and the
/// words 0xFF…FF and 0xFF…FE are reserved (−1 and −2 of the signed dtypes, the two largest of the
/// unsigned): calls that change the table reject them (value error naming 'keys' and the first index),
/// queries report them absent. Four instantiations: map and set of 4- and 8-byte words.
///
/// Device −1: a sequential multimap with the same semantics (instances of a key from least to most
/// recent, as reference/hash_map.hpp), at reference speed. Otherwise the slab hash on that device, its
/// memory from the pool of the (device, stream) it was made on; every call runs on its own call's stream
/// (which must be on the table's device); calls that change the table and size / retrieve_all read a
/// status back (synchronising that stream), queries are asynchronous.
class slab_hash_handle {
 public:
  slab_hash_handle(const call& c, dtype key_type, std::optional<dtype> value_type, std::size_t capacity, bool grow);
  ~slab_hash_handle();
  slab_hash_handle(slab_hash_handle&&) noexcept;
  slab_hash_handle& operator=(slab_hash_handle&&) noexcept;

  /// INSERT every key (and value): duplicates are kept (a multimap / multiset).
  void insert(const call& c, const array& keys, const array* values);
  /// REPLACE: each key's value set, the key inserted where absent (a set: inserted unless present).
  void insert_or_assign(const call& c, const array& keys, const array* values);
  /// DELETE: for each key its least recent instance (absent: nothing).
  void erase(const call& c, const array& keys);
  /// found[i] = the value of keys[i]'s least recent instance, or `absent` (converted to the value dtype).
  void find(const call& c, const array& keys, const array& found, scalar absent) const;
  /// present[i] (1 byte) = 1 where keys[i] is in the table, else 0.
  void contains(const call& c, const array& keys, const array& present) const;
  /// counts[i] (uint32) = the instances of keys[i].
  void count(const call& c, const array& keys, const array& counts) const;
  /// Live elements (synchronises).
  [[nodiscard]] std::size_t size(const call& c) const;
  /// Every live element to out_keys / out_values[0 … size), in no particular order; returns size. The
  /// outputs must hold size() elements.
  std::size_t retrieve_all(const call& c, const array& out_keys, const array* out_values) const;
  void clear(const call& c);

  [[nodiscard]] dtype key_type() const;
  [[nodiscard]] std::optional<dtype> value_type() const;
  /// −1: the host table.
  [[nodiscard]] int device() const;

  struct impl;

 private:
  std::unique_ptr<impl> impl_;
};

/// An LSM (containers/lsm.cuh, Ashkiani ch. 4): an ordered map of int32, uint32, int64 or uint64 keys (every
/// bit pattern usable, ordered as their dtype) to values of the key's width (int, uint or float; moved as
/// words): four instantiations. Updates apply in batch order (the last operation on a key in a batch wins).
/// Device −1: a std::map with the same semantics. On the device as slab_hash_handle's: memory from the
/// pool of the (device, stream) it was made on, each call on its own call's stream.
class lsm_handle {
 public:
  struct options {
    std::size_t batch_size = std::size_t{1} << 16;
    std::size_t capacity = std::size_t{1} << 24;
    double cleanup_stale_fraction = 0;
  };
  /// The arrays a range query writes, made once its size is known: offsets (uint64, Q + 1), keys, values.
  struct range_outputs {
    array offsets, keys, values;
  };
  using range_allocator = std::function<range_outputs(std::size_t pairs)>;

  lsm_handle(const call& c, dtype key_type, dtype value_type, const options& how);
  ~lsm_handle();
  lsm_handle(lsm_handle&&) noexcept;
  lsm_handle& operator=(lsm_handle&&) noexcept;

  void insert(const call& c, const array& keys, const array& values);
  void erase(const call& c, const array& keys);
  /// The content replaced by (keys, values) (the last of equal keys wins).
  void bulk_build(const call& c, const array& keys, const array& values);
  void cleanup(const call& c);
  void clear(const call& c);
  /// found[i] = queries[i]'s value, or `absent` (converted to the value dtype).
  void lookup(const call& c, const array& queries, const array& found, scalar absent) const;
  void contains(const call& c, const array& queries, const array& present) const;
  /// counts[i] (uint64) = the live keys in [k1[i], k2[i]].
  void count(const call& c, const array& k1, const array& k2, const array& counts) const;
  /// The live pairs in [k1[i], k2[i]], ascending, per query after offsets; outputs from `allocate`, called
  /// once with the number of pairs (synchronises).
  void range(const call& c, const array& k1, const array& k2, const range_allocator& allocate) const;
  /// The live pair with the smallest key ≥ q (successor) or the largest ≤ q; found[i] = 0 where none
  /// (keys[i] = queries[i], values[i] = 0 there).
  void neighbour(const call& c, bool successor, const array& queries, const array& keys, const array& values,
                 const array& found) const;
  /// Live keys (synchronises, unless cleanup_stale_fraction keeps the count).
  [[nodiscard]] std::size_t size(const call& c) const;

  [[nodiscard]] dtype key_type() const;
  [[nodiscard]] dtype value_type() const;
  [[nodiscard]] int device() const;

  struct impl;

 private:
  std::unique_ptr<impl> impl_;
};

/// The distinct keys (int32, uint32, int64, uint64, every value) to out[0 … count), in no particular order
/// (containers/group_by.cuh's unique; the host: first occurrences in order). Returns count (synchronises).
std::size_t hash_unique(const call& c, const array& keys, const array& out);

/// The distinct keys and op (sum, min, max) over the values of each (a numeric dtype of the key's width) to
/// out_keys / out_values[0 … count), in no particular order (containers/group_by.cuh's group_by_reduce; the
/// host: first occurrences in order). Returns count (synchronises).
std::size_t group_by_reduce(const call& c, const array& keys, const array& values, const array& out_keys,
                            const array& out_values, operator_kind op);

}  // namespace sluice::python
