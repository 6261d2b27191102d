// _sluice: segmented_sort and merge (merge_sort.cuh's other entry points; kernels: api_sort.hpp).
#include "api_sort.hpp"
#include "arrays.hpp"
#include "bindings.hpp"

#include <optional>

namespace sluice::python::module {
namespace {

using namespace nb::literals;

/// The sorted keys, or (keys, values) when values were given.
nb::object keys_or_pairs(const argument& keys, const std::optional<argument>& values) {
  if (values) return nb::make_tuple(keys.object, values->object);
  return keys.object;
}

nb::object segmented_sort(nb::handle keys, nb::handle offsets, nb::handle values, bool descending,
                          bool validate_offsets, nb::handle out, nb::handle out_values, nb::handle stream) {
  invocation inv("segmented_sort", stream);
  const argument k = inv.input(keys, "keys");
  const argument o = inv.input(offsets, "offsets");
  const auto v = inv.optional_input(values, "values");
  if (!v && !out_values.is_none()) raise(error_kind::value, "sluice.segmented_sort: 'out_values' needs 'values'");
  const argument sorted = inv.output(out, k.shape, k.view.type, "out");
  const std::optional<argument> moved =
      v ? std::optional<argument>(inv.output(out_values, v->shape, v->view.type, "out_values")) : std::nullopt;
  {
    nb::gil_scoped_release unlocked;
    python::segmented_sort(inv.context(), k.view, v ? &v->view : nullptr, o.view, sorted.view,
                           moved ? &moved->view : nullptr, descending, validate_offsets);
  }
  return keys_or_pairs(sorted, moved);
}

nb::object merge(nb::handle a, nb::handle b, nb::handle a_values, nb::handle b_values, bool descending, nb::handle out,
                 nb::handle out_values, nb::handle stream) {
  invocation inv("merge", stream);
  const argument ka = inv.input(a, "a");
  const argument kb = inv.input(b, "b");
  const auto va = inv.optional_input(a_values, "a_values");
  const auto vb = inv.optional_input(b_values, "b_values");
  if (va.has_value() != vb.has_value())
    raise(error_kind::value, "sluice.merge: pass 'a_values' and 'b_values' together, or neither");
  if (!va && !out_values.is_none()) raise(error_kind::value, "sluice.merge: 'out_values' needs 'a_values' and 'b_values'");
  const std::int64_t n = length(ka) + length(kb);
  const argument merged = inv.output(out, {n}, ka.view.type, "out");
  const std::optional<argument> moved =
      va ? std::optional<argument>(inv.output(out_values, {n}, va->view.type, "out_values")) : std::nullopt;
  {
    nb::gil_scoped_release unlocked;
    python::merge(inv.context(), ka.view, va ? &va->view : nullptr, kb.view, vb ? &vb->view : nullptr, merged.view,
                  moved ? &moved->view : nullptr, descending);
  }
  return keys_or_pairs(merged, moved);
}

}  // namespace

void bind_sorting(nb::module_& m) {
  const auto none = nb::none();
  m.def("segmented_sort", &segmented_sort, "keys"_a, "offsets"_a, "values"_a = none, nb::kw_only(),
        "descending"_a = false, "validate_offsets"_a = false, "out"_a = none, "out_values"_a = none, "stream"_a = none,
        "Every segment [offsets[s], offsets[s+1]) of keys stably sorted (keys outside [offsets[0], offsets[-1]) "
        "copied through); with values, (keys, values) each value moving with its key. Keys: int32, uint32, int64, "
        "uint64, float32, float64 in radix_sort's order (-0.0 before +0.0, NaNs by their sign); offsets: int64 or "
        "uint64, segments + 1 non-decreasing entries <= len(keys) (checked on the device, synchronising, with "
        "validate_offsets; always on the host); values: 8-byte dtypes, or 4-byte ones with 4-byte keys.");
  m.def("merge", &merge, "a"_a, "b"_a, nb::kw_only(), "a_values"_a = none, "b_values"_a = none,
        "descending"_a = false, "out"_a = none, "out_values"_a = none, "stream"_a = none,
        "The stable merge of the sorted arrays a and b (ties: a's keys first), flattened, len(a) + len(b) "
        "elements; with a_values and b_values, (keys, values). Keys and values as segmented_sort's. Inputs must be "
        "sorted in that order (descending when descending=True): unsorted ones give an unspecified permutation on "
        "the device and a ValueError naming the input on the host.");
}

}  // namespace sluice::python::module
