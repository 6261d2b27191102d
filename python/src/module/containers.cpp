// _sluice: the SlabHash class (containers/slab_hash.cuh; kernels: api_containers.hpp). The table lives in
// the kernels library; this class holds its handle and an array of the table's library (the last keys it
// was given), from which retrieve_all's outputs take their library.
#include "api_containers.hpp"
#include "arrays.hpp"
#include "bindings.hpp"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>

#include <string>

namespace sluice::python::module {
namespace {

using namespace nb::literals;

struct slab_table {
  slab_hash_handle handle;
  nb::object like;  ///< the last keys given: outputs of retrieve_all are of their library
};

dtype dtype_argument(nb::handle type, const char* parameter, const char* owner = "SlabHash") {
  const std::optional<dtype> named = dtype_named(type);
  if (!named)
    raise(error_kind::type, "sluice." + std::string(owner) + ": '" + std::string(parameter) + "' " +
                                nb::cast<std::string>(nb::repr(type)) + " is not a dtype sluice knows");
  return *named;
}

int device_argument(nb::handle device, const char* owner = "SlabHash") {
  if (PyUnicode_Check(device.ptr())) {
    const std::string text = nb::cast<std::string>(device);
    if (text == "cpu") return -1;
    if (text == "cuda") return 0;
    if (text.starts_with("cuda:")) return std::stoi(text.substr(5));
    raise(error_kind::value, "sluice." + std::string(owner) + ": 'device' must be a CUDA ordinal, 'cuda', 'cuda:N' or 'cpu'");
  }
  return nb::cast<int>(device);
}

void make_table(slab_table* self, nb::handle key_dtype, nb::handle value_dtype, std::size_t capacity, bool grow,
                nb::handle device, nb::handle stream) {
  const dtype key = dtype_argument(key_dtype, "key_dtype");
  const std::optional<dtype> value =
      value_dtype.is_none() ? std::nullopt : std::optional<dtype>(dtype_argument(value_dtype, "value_dtype"));
  const call c = call_on(device_argument(device), stream);
  nb::gil_scoped_release unlocked;
  new (self) slab_table{slab_hash_handle(c, key, value, capacity, grow), nb::object()};
}

/// Keys (and values) of one call; remembers the keys as the table's array type.
struct batch {
  invocation inv;
  argument keys;
  std::optional<argument> values;

  batch(slab_table& table, const char* function, nb::handle keys_object, nb::handle values_object, nb::handle stream)
      : inv(function, stream), keys(inv.input(keys_object, "keys")), values(inv.optional_input(values_object, "values")) {
    table.like = keys.object;
  }
};

void insert(slab_table& table, bool unique, nb::handle keys, nb::handle values, nb::handle stream) {
  batch b(table, unique ? "SlabHash.insert_or_assign" : "SlabHash.insert", keys, values, stream);
  nb::gil_scoped_release unlocked;
  if (unique) table.handle.insert_or_assign(b.inv.context(), b.keys.view, b.values ? &b.values->view : nullptr);
  else table.handle.insert(b.inv.context(), b.keys.view, b.values ? &b.values->view : nullptr);
}

void erase(slab_table& table, nb::handle keys, nb::handle stream) {
  batch b(table, "SlabHash.erase", keys, nb::none(), stream);
  nb::gil_scoped_release unlocked;
  table.handle.erase(b.inv.context(), b.keys.view);
}

argument contains_into(slab_table& table, batch& b) {
  argument present = b.inv.allocate(b.keys.shape, dtype::bool_);
  nb::gil_scoped_release unlocked;
  table.handle.contains(b.inv.context(), b.keys.view, present.view);
  return present;
}

nb::object find(slab_table& table, nb::handle keys, nb::handle default_value, nb::handle stream) {
  batch b(table, "SlabHash.find", keys, nb::none(), stream);
  if (!table.handle.value_type()) raise(error_kind::value, "sluice.SlabHash.find: a set has no values; use contains");
  const scalar absent = default_value.is_none() ? scalar::of(std::int64_t{0}) : to_scalar(default_value, "SlabHash.find", "default");
  const argument found = b.inv.allocate(b.keys.shape, *table.handle.value_type());
  {
    nb::gil_scoped_release unlocked;
    table.handle.find(b.inv.context(), b.keys.view, found.view, absent);
  }
  if (!default_value.is_none()) return found.object;
  return nb::make_tuple(found.object, contains_into(table, b).object);
}

nb::object contains(slab_table& table, nb::handle keys, nb::handle stream) {
  batch b(table, "SlabHash.contains", keys, nb::none(), stream);
  return contains_into(table, b).object;
}

nb::object count(slab_table& table, nb::handle keys, nb::handle stream) {
  batch b(table, "SlabHash.count", keys, nb::none(), stream);
  const argument counts = b.inv.allocate(b.keys.shape, dtype::uint32);
  nb::gil_scoped_release unlocked;
  table.handle.count(b.inv.context(), b.keys.view, counts.view);
  return counts.object;
}

std::size_t size(const slab_table& table, nb::handle stream) {
  const call c = call_on(table.handle.device(), stream);
  nb::gil_scoped_release unlocked;
  return table.handle.size(c);
}

nb::object retrieve_all(slab_table& table, nb::handle like, nb::handle stream) {
  const char* function = "SlabHash.retrieve_all";
  nb::handle prototype = like.is_none() ? nb::handle(table.like) : like;
  if (!prototype.is_valid() || prototype.is_none()) {
    if (table.handle.device() >= 0)
      raise(error_kind::type, "sluice.SlabHash.retrieve_all: the table has seen no array to take the output type "
                              "from; pass like= (an array of the table's device)");
    nb::module_::import_("numpy");  // a host table: NumPy outputs
    prototype = nb::module_::import_("numpy").attr("empty")(0, "dtype"_a = "int64");
  }
  invocation inv(function, stream);
  inv.input(prototype, "like");
  if (inv.context().device != table.handle.device())
    raise(error_kind::value, "sluice.SlabHash.retrieve_all: 'like' is not on the table's device");
  std::size_t n = 0;
  {
    nb::gil_scoped_release unlocked;
    n = table.handle.size(inv.context());
  }
  const argument keys = inv.allocate({static_cast<std::int64_t>(n)}, table.handle.key_type());
  const std::optional<argument> values =
      table.handle.value_type()
          ? std::optional<argument>(inv.allocate({static_cast<std::int64_t>(n)}, *table.handle.value_type()))
          : std::nullopt;
  std::size_t got = 0;
  {
    nb::gil_scoped_release unlocked;
    got = table.handle.retrieve_all(inv.context(), keys.view, values ? &values->view : nullptr);
  }
  nb::object out_keys = got == n ? keys.object : prefix(keys, got);
  if (!values) return out_keys;
  return nb::make_tuple(out_keys, got == n ? values->object : prefix(*values, got));
}

void clear(slab_table& table, nb::handle stream) {
  const call c = call_on(table.handle.device(), stream);
  nb::gil_scoped_release unlocked;
  table.handle.clear(c);
}

// ---- Lsm ---------------------------------------------------------------------------------------------------

struct lsm_table {
  lsm_handle handle;
};

void make_lsm(lsm_table* self, nb::handle key_dtype, nb::handle value_dtype, std::size_t batch_size,
              std::size_t capacity, double cleanup_stale_fraction, nb::handle device, nb::handle stream) {
  const dtype key = dtype_argument(key_dtype, "key_dtype", "Lsm");
  const dtype value = dtype_argument(value_dtype, "value_dtype", "Lsm");
  const call c = call_on(device_argument(device, "Lsm"), stream);
  const lsm_handle::options how{.batch_size = batch_size, .capacity = capacity,
                                .cleanup_stale_fraction = cleanup_stale_fraction};
  nb::gil_scoped_release unlocked;
  new (self) lsm_table{lsm_handle(c, key, value, how)};
}

void lsm_update(lsm_table& table, const char* function, nb::handle keys, nb::handle values, nb::handle stream) {
  invocation inv(function, stream);
  const argument k = inv.input(keys, "keys");
  const auto v = inv.optional_input(values, "values");  // None: erase
  nb::gil_scoped_release unlocked;
  if (!v) table.handle.erase(inv.context(), k.view);
  else if (std::string_view(function) == "Lsm.insert") table.handle.insert(inv.context(), k.view, v->view);
  else table.handle.bulk_build(inv.context(), k.view, v->view);
}

nb::object lsm_lookup(lsm_table& table, nb::handle queries, nb::handle default_value, nb::handle stream) {
  invocation inv("Lsm.lookup", stream);
  const argument q = inv.input(queries, "queries");
  const scalar absent = default_value.is_none() ? scalar::of(std::int64_t{0}) : to_scalar(default_value, "Lsm.lookup", "default");
  const argument found = inv.allocate(q.shape, table.handle.value_type());
  {
    nb::gil_scoped_release unlocked;
    table.handle.lookup(inv.context(), q.view, found.view, absent);
  }
  if (!default_value.is_none()) return found.object;
  const argument present = inv.allocate(q.shape, dtype::bool_);
  {
    nb::gil_scoped_release unlocked;
    table.handle.contains(inv.context(), q.view, present.view);
  }
  return nb::make_tuple(found.object, present.object);
}

nb::object lsm_contains(lsm_table& table, nb::handle queries, nb::handle stream) {
  invocation inv("Lsm.contains", stream);
  const argument q = inv.input(queries, "queries");
  const argument present = inv.allocate(q.shape, dtype::bool_);
  nb::gil_scoped_release unlocked;
  table.handle.contains(inv.context(), q.view, present.view);
  return present.object;
}

nb::object lsm_count(lsm_table& table, nb::handle k1, nb::handle k2, nb::handle stream) {
  invocation inv("Lsm.count", stream);
  const argument lo = inv.input(k1, "k1");
  const argument hi = inv.input(k2, "k2");
  const argument counts = inv.allocate(lo.shape, dtype::uint64);
  nb::gil_scoped_release unlocked;
  table.handle.count(inv.context(), lo.view, hi.view, counts.view);
  return counts.object;
}

nb::tuple lsm_range(lsm_table& table, nb::handle k1, nb::handle k2, nb::handle stream) {
  invocation inv("Lsm.range", stream);
  const argument lo = inv.input(k1, "k1");
  const argument hi = inv.input(k2, "k2");
  std::optional<argument> offsets, keys, values;
  const auto allocate = [&](std::size_t pairs) {
    nb::gil_scoped_acquire locked;  // the outputs are made by the caller's library once their size is known
    offsets = inv.allocate({length(lo) + 1}, dtype::uint64);
    keys = inv.allocate({static_cast<std::int64_t>(pairs)}, table.handle.key_type());
    values = inv.allocate({static_cast<std::int64_t>(pairs)}, table.handle.value_type());
    return lsm_handle::range_outputs{offsets->view, keys->view, values->view};
  };
  {
    nb::gil_scoped_release unlocked;
    table.handle.range(inv.context(), lo.view, hi.view, allocate);
  }
  return nb::make_tuple(offsets->object, keys->object, values->object);
}

nb::tuple lsm_neighbour(lsm_table& table, bool successor, nb::handle queries, nb::handle stream) {
  invocation inv(successor ? "Lsm.successor" : "Lsm.predecessor", stream);
  const argument q = inv.input(queries, "queries");
  const argument keys = inv.allocate(q.shape, table.handle.key_type());
  const argument values = inv.allocate(q.shape, table.handle.value_type());
  const argument found = inv.allocate(q.shape, dtype::bool_);
  {
    nb::gil_scoped_release unlocked;
    table.handle.neighbour(inv.context(), successor, q.view, keys.view, values.view, found.view);
  }
  return nb::make_tuple(keys.object, values.object, found.object);
}

void lsm_maintain(lsm_table& table, bool cleanup, nb::handle stream) {
  const call c = call_on(table.handle.device(), stream);
  nb::gil_scoped_release unlocked;
  if (cleanup) table.handle.cleanup(c);
  else table.handle.clear(c);
}

std::size_t lsm_size(const lsm_table& table, nb::handle stream) {
  const call c = call_on(table.handle.device(), stream);
  nb::gil_scoped_release unlocked;
  return table.handle.size(c);
}

// ---- group_by -----------------------------------------------------------------------------------------------

nb::object hash_unique(nb::handle keys, nb::handle stream) {
  invocation inv("hash_unique", stream);
  const argument k = inv.input(keys, "keys");
  const argument out = inv.allocate({length(k)}, k.view.type);  // room for every key distinct
  std::size_t count = 0;
  {
    nb::gil_scoped_release unlocked;
    count = python::hash_unique(inv.context(), k.view, out.view);
  }
  return prefix(out, count);
}

nb::tuple group_by_reduce(nb::handle keys, nb::handle values, std::string_view op, nb::handle stream) {
  invocation inv("group_by_reduce", stream);
  const argument k = inv.input(keys, "keys");
  const argument v = inv.input(values, "values");
  const operator_kind kind = parse_operator(op);
  const argument out_keys = inv.allocate({length(k)}, k.view.type);
  const argument out_values = inv.allocate({length(k)}, v.view.type);
  std::size_t count = 0;
  {
    nb::gil_scoped_release unlocked;
    count = python::group_by_reduce(inv.context(), k.view, v.view, out_keys.view, out_values.view, kind);
  }
  return nb::make_tuple(prefix(out_keys, count), prefix(out_values, count));
}

}  // namespace

void bind_containers(nb::module_& m) {
  const auto none = nb::none();
  nb::class_<slab_table>(
      m, "SlabHash",
      "A GPU hash table (containers/slab_hash.cuh, Ashkiani ch. 5): a map of int32/uint32/int64/uint64 keys to "
      "values of the key's width (int, uint or float), or, with value_dtype=None, a set. Duplicates are kept "
      "by insert (a multimap), one instance a key by insert_or_assign. Keys are hashed and compared as bits: "
      "the bit patterns 0xFF..FF and 0xFF..FE are reserved (-1 and -2 for signed keys): insert and erase "
      "raise ValueError naming 'keys' and the index, queries report them absent. It grows (more buckets) "
      "as it fills unless grow=False; capacity sizes it at first. device: a CUDA ordinal (default 0) or 'cpu' "
      "(a sequential table with the same semantics, NumPy arrays). Every call runs on its stream= or its "
      "keys' library's current stream; changes, size and retrieve_all read a status back (synchronising "
      "that stream), queries (find, contains, count) are asynchronous.")
      .def("__init__", &make_table, "key_dtype"_a, "value_dtype"_a = none, nb::kw_only(), "capacity"_a = 0,
           "grow"_a = true, "device"_a = 0, "stream"_a = none)
      .def("insert", [](slab_table& t, nb::handle k, nb::handle v, nb::handle s) { insert(t, false, k, v, s); },
           "keys"_a, "values"_a = none, nb::kw_only(), "stream"_a = none,
           "Inserts every key (with its value for a map); duplicates are kept.")
      .def("insert_or_assign", [](slab_table& t, nb::handle k, nb::handle v, nb::handle s) { insert(t, true, k, v, s); },
           "keys"_a, "values"_a = none, nb::kw_only(), "stream"_a = none,
           "Sets each key's value, inserting absent keys (equal keys in one batch: one of their values remains); "
           "a set inserts the keys not present.")
      .def("erase", &erase, "keys"_a, nb::kw_only(), "stream"_a = none,
           "Removes each key's least recent instance (absent keys: nothing).")
      .def("find", &find, "keys"_a, "default"_a = none, nb::kw_only(), "stream"_a = none,
           "The value of each key's least recent instance: with default=, the values (default where absent); "
           "without, (values, found) with 0 where absent and found a bool mask (a second query).")
      .def("contains", &contains, "keys"_a, nb::kw_only(), "stream"_a = none, "bool: each key present.")
      .def("count", &count, "keys"_a, nb::kw_only(), "stream"_a = none, "uint32: the instances of each key.")
      .def("size", &size, nb::kw_only(), "stream"_a = none, "Live elements (synchronises the stream).")
      .def("__len__", [](const slab_table& t) { return size(t, nb::none()); })
      .def("retrieve_all", &retrieve_all, nb::kw_only(), "like"_a = none, "stream"_a = none,
           "Every live element in no particular order: keys, or (keys, values) for a map; arrays of the library "
           "of like= or of the last keys the table was given.")
      .def("clear", &clear, nb::kw_only(), "stream"_a = none, "Removes every element.")
      .def_prop_ro("key_dtype", [](const slab_table& t) { return std::string(name(t.handle.key_type())); })
      .def_prop_ro("value_dtype", [](const slab_table& t) -> std::optional<std::string> {
        if (!t.handle.value_type()) return std::nullopt;
        return std::string(name(*t.handle.value_type()));
      })
      .def_prop_ro("is_map", [](const slab_table& t) { return t.handle.value_type().has_value(); })
      .def_prop_ro("device", [](const slab_table& t) { return t.handle.device(); }, "a CUDA ordinal; -1: the host");
  nb::class_<lsm_table>(
      m, "Lsm",
      "A GPU LSM (containers/lsm.cuh, Ashkiani ch. 4): a batched ordered map of int32/uint32/int64/uint64 keys "
      "(every bit pattern usable, ordered as their dtype) to values of the key's width (int, uint or float), "
      "in levels of sorted arrays of batch_size * 2^i elements. Updates apply in batch order (the last "
      "operation on a key in a batch wins); capacity bounds the resident elements (stale copies and "
      "tombstones included: cleanup() drops them; cleanup_stale_fraction > 0 runs it by itself). device: a "
      "CUDA ordinal (default 0) or 'cpu' (a std::map with the same semantics). Calls run as SlabHash's: "
      "updates and lookups asynchronous, count / range / size read sizes back.")
      .def("__init__", &make_lsm, "key_dtype"_a, "value_dtype"_a, nb::kw_only(), "batch_size"_a = std::size_t{1} << 16,
           "capacity"_a = std::size_t{1} << 24, "cleanup_stale_fraction"_a = 0.0, "device"_a = 0, "stream"_a = none)
      .def("insert", [](lsm_table& t, nb::handle k, nb::handle v, nb::handle s) { lsm_update(t, "Lsm.insert", k, v, s); },
           "keys"_a, "values"_a, nb::kw_only(), "stream"_a = none, "k -> v for every pair, replacing.")
      .def("erase", [](lsm_table& t, nb::handle k, nb::handle s) { lsm_update(t, "Lsm.erase", k, nb::none(), s); },
           "keys"_a, nb::kw_only(), "stream"_a = none, "Removes every key (a tombstone each; absent keys: nothing).")
      .def("bulk_build", [](lsm_table& t, nb::handle k, nb::handle v, nb::handle s) {
             lsm_update(t, "Lsm.bulk_build", k, v, s);
           }, "keys"_a, "values"_a, nb::kw_only(), "stream"_a = none,
           "The content replaced by the pairs (the last of equal keys wins): one sort.")
      .def("lookup", &lsm_lookup, "queries"_a, "default"_a = none, nb::kw_only(), "stream"_a = none,
           "Each query's value: with default=, the values (default where absent); without, (values, found).")
      .def("contains", &lsm_contains, "queries"_a, nb::kw_only(), "stream"_a = none, "bool: each query present.")
      .def("count", &lsm_count, "k1"_a, "k2"_a, nb::kw_only(), "stream"_a = none,
           "uint64: the live keys in [k1[i], k2[i]] (0 where k1[i] > k2[i]).")
      .def("range", &lsm_range, "k1"_a, "k2"_a, nb::kw_only(), "stream"_a = none,
           "(offsets uint64, keys, values): query i's live pairs in [k1[i], k2[i]], ascending, at "
           "[offsets[i], offsets[i+1]).")
      .def("successor", [](lsm_table& t, nb::handle q, nb::handle s) { return lsm_neighbour(t, true, q, s); },
           "queries"_a, nb::kw_only(), "stream"_a = none,
           "(keys, values, found): the live pair with the smallest key >= q (found False: none).")
      .def("predecessor", [](lsm_table& t, nb::handle q, nb::handle s) { return lsm_neighbour(t, false, q, s); },
           "queries"_a, nb::kw_only(), "stream"_a = none,
           "(keys, values, found): the live pair with the largest key <= q (found False: none).")
      .def("cleanup", [](lsm_table& t, nb::handle s) { lsm_maintain(t, true, s); }, nb::kw_only(), "stream"_a = none,
           "Drops stale copies and tombstones (the answers do not change).")
      .def("clear", [](lsm_table& t, nb::handle s) { lsm_maintain(t, false, s); }, nb::kw_only(), "stream"_a = none,
           "Removes every element.")
      .def("size", &lsm_size, nb::kw_only(), "stream"_a = none, "Live keys (synchronises the stream).")
      .def("__len__", [](const lsm_table& t) { return lsm_size(t, nb::none()); })
      .def_prop_ro("key_dtype", [](const lsm_table& t) { return std::string(name(t.handle.key_type())); })
      .def_prop_ro("value_dtype", [](const lsm_table& t) { return std::string(name(t.handle.value_type())); })
      .def_prop_ro("device", [](const lsm_table& t) { return t.handle.device(); }, "a CUDA ordinal; -1: the host");
  m.def("hash_unique", &hash_unique, "keys"_a, nb::kw_only(), "stream"_a = none,
        "The distinct keys (int32, uint32, int64, uint64; every value) in no particular order, by a hash table "
        "(containers/group_by.cuh's unique; no sort; the host: first occurrences in order). Flattened; reads the "
        "count back (synchronises the stream). sluice.unique is the sorted-runs one.");
  m.def("group_by_reduce", &group_by_reduce, "keys"_a, "values"_a, "op"_a = "sum", nb::kw_only(), "stream"_a = none,
        "(distinct keys, op over each key's values) in no particular order, by a hash table "
        "(containers/group_by.cuh; no sort; the host: first occurrences in order). Keys as hash_unique's; values "
        "a numeric dtype of the keys' width; op: sum, min, max (float sums round differently run to run). Reads "
        "the count back (synchronises).");
}

}  // namespace sluice::python::module
