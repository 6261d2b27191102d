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

dtype dtype_argument(nb::handle type, const char* parameter) {
  const std::optional<dtype> named = dtype_named(type);
  if (!named)
    raise(error_kind::type, "sluice.SlabHash: '" + std::string(parameter) + "' " +
                                nb::cast<std::string>(nb::repr(type)) + " is not a dtype sluice knows");
  return *named;
}

int device_argument(nb::handle device) {
  if (PyUnicode_Check(device.ptr())) {
    const std::string text = nb::cast<std::string>(device);
    if (text == "cpu") return -1;
    if (text == "cuda") return 0;
    if (text.starts_with("cuda:")) return std::stoi(text.substr(5));
    raise(error_kind::value, "sluice.SlabHash: 'device' must be a CUDA ordinal, 'cuda', 'cuda:N' or 'cpu'");
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
  m.def("hash_unique", &hash_unique, "keys"_a, nb::kw_only(), "stream"_a = none,
        "The distinct keys (int32, uint32, int64, uint64; SlabHash's reserved words rejected) in no particular "
        "order, by a slab set (containers/group_by.cuh's unique; no sort; the host: first occurrences in order). "
        "Flattened; reads the count back (synchronises the stream). sluice.unique is the sorted-runs one.");
  m.def("group_by_reduce", &group_by_reduce, "keys"_a, "values"_a, "op"_a = "sum", nb::kw_only(), "stream"_a = none,
        "(distinct keys, op over each key's values) in no particular order, by a slab hash insert-or-reduce "
        "(containers/group_by.cuh; no sort; the host: first occurrences in order). Keys as hash_unique's; values "
        "a numeric dtype of the keys' width; op: sum, min, max (float sums round differently run to run). Reads "
        "the count back (synchronises).");
}

}  // namespace sluice::python::module
