// _sluice: predecessor and SearchIndex (search.cuh; kernels: api_search.hpp).
#include "api_search.hpp"
#include "arrays.hpp"
#include "bindings.hpp"

#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>

#include <string>

namespace sluice::python::module {
namespace {

using namespace nb::literals;

nb::object predecessor(nb::handle sorted_keys, nb::handle queries, std::string_view algorithm, bool queries_sorted,
                       nb::handle out, nb::handle stream) {
  invocation inv("predecessor", stream);
  const argument k = inv.input(sorted_keys, "sorted_keys");
  const argument q = inv.input(queries, "queries");
  const argument result = inv.output(out, q.shape, dtype::int64, "out");
  const search_algorithm how = parse_search_algorithm(algorithm);
  {
    nb::gil_scoped_release unlocked;
    python::predecessor(inv.context(), k.view, q.view, result.view, how, queries_sorted);
  }
  return result.object;
}

/// SearchIndex: the handle, built from an array of the caller's library (kept by the handle on the device,
/// copied on the host).
void make_index(search_index_handle* self, nb::handle sorted_keys, std::string_view layout, int btree_keys_per_node,
                nb::handle stream) {
  invocation inv("SearchIndex", stream);
  const argument k = inv.input(sorted_keys, "sorted_keys");
  const search_layout how = parse_search_layout(layout);
  nb::gil_scoped_release unlocked;
  new (self) search_index_handle(inv.context(), k.view, how, btree_keys_per_node);
}

nb::object index_search(const search_index_handle& index, bound kind, nb::handle queries, nb::handle out,
                        nb::handle stream) {
  static constexpr const char* functions[] = {"SearchIndex.lower_bound", "SearchIndex.upper_bound",
                                              "SearchIndex.predecessor"};
  invocation inv(functions[static_cast<int>(kind)], stream);
  const argument q = inv.input(queries, "queries");
  const argument result = inv.output(out, q.shape, dtype::int64, "out");
  {
    nb::gil_scoped_release unlocked;
    index.search(inv.context(), q.view, result.view, kind);
  }
  return result.object;
}

}  // namespace

void bind_search(nb::module_& m) {
  const auto none = nb::none();
  m.def("predecessor", &predecessor, "sorted_keys"_a, "queries"_a, nb::kw_only(), "algorithm"_a = "automatic",
        "queries_sorted"_a = false, "out"_a = none, "stream"_a = none,
        "int64: the largest index j with sorted_keys[j] <= q for each query, or -1 where no key is <= q (and "
        "for a NaN query): upper_bound - 1 (Karsin Def 6.0.1). Arguments as lower_bound's.");
  const auto search_method = [](bound kind) {
    return [kind](const search_index_handle& index, nb::handle queries, nb::handle out, nb::handle stream) {
      return index_search(index, kind, queries, out, stream);
    };
  };
  nb::class_<search_index_handle>(
      m, "SearchIndex",
      "Sorted keys laid out for batched search (search.cuh's search_index, Karsin 6.1): layout 'sorted' (binary "
      "search), 'eytzinger' (level-order binary tree) or 'btree' (level-order B-tree of btree_keys_per_node "
      "keys a node; 0: the device's tuning). Built on the device of sorted_keys, on the call's stream, which "
      "the constructor then waits for, so that any stream may query it; it owns a copy of the keys (the "
      "argument is no longer needed). Host (NumPy) keys are copied and searched by binary search whatever the "
      "layout. Queries of the keys' dtype on the index's device; answers int64 indices into the sorted order.")
      .def("__init__", &make_index, "sorted_keys"_a, "layout"_a = "eytzinger", nb::kw_only(),
           "btree_keys_per_node"_a = 0, "stream"_a = none)
      .def("lower_bound", search_method(bound::lower), "queries"_a, nb::kw_only(), "out"_a = none, "stream"_a = none,
           "int64: the first index j with keys[j] >= q for each query (len(self) if none).")
      .def("upper_bound", search_method(bound::upper), "queries"_a, nb::kw_only(), "out"_a = none, "stream"_a = none,
           "int64: the first index j with keys[j] > q for each query (len(self) if none).")
      .def("predecessor", search_method(bound::predecessor), "queries"_a, nb::kw_only(), "out"_a = none,
           "stream"_a = none, "int64: upper_bound - 1 for each query (-1 where no key is <= q, and for NaN).")
      .def("__len__", &search_index_handle::size)
      .def_prop_ro("layout", [](const search_index_handle& index) { return std::string(name(index.layout())); })
      .def_prop_ro("keys_per_node", &search_index_handle::keys_per_node, "B of a btree; 1 for the other layouts")
      .def_prop_ro("dtype", [](const search_index_handle& index) { return std::string(name(index.key_type())); })
      .def_prop_ro("device", &search_index_handle::device, "the CUDA device of the keys; -1: host memory")
      .def("__repr__", [](const search_index_handle& index) {
        return "sluice.SearchIndex(" + std::to_string(index.size()) + " " + std::string(name(index.key_type())) +
               " keys, layout='" + std::string(name(index.layout())) + "', device=" + std::to_string(index.device()) + ")";
      });
}

}  // namespace sluice::python::module
