// libsluice_python_kernels: segmented sort by offsets (sluice/merge_sort.cuh's segmented_sort and
// segmented_sort_pairs; CPU: the sequential oracle of sluice/reference/sort.hpp, std::stable_sort per
// segment). Keys of the numeric dtypes as words of their width (word_order.hpp: two sorts, not six);
// values 8-byte words, or 4-byte words with 4-byte keys (as radix_sort's).
#include "api_sort.hpp"
#include "common.hpp"
#include "word_order.hpp"

#include <sluice/merge_sort.cuh>
#include <sluice/reference/sort.hpp>

#include <algorithm>

namespace sluice::python {

namespace {

/// The checks both backends share: dtypes, pairs complete, one output per input.
void check_sort_arguments(const char* function, const array& keys, const array* values, const array& offsets,
                          const array& out_keys, const array* out_values) {
  require_type(out_keys, keys.type, function, "out");
  if (offsets.type != dtype::int64 && offsets.type != dtype::uint64)
    throw_unsupported(function, "offsets", offsets.type, "int64, uint64");
  if ((values == nullptr) != (out_values == nullptr))
    throw error(error_kind::value, "sluice." + std::string(function) + ": pass both 'values' and 'out_values', or neither");
  if (out_keys.size != keys.size) throw invalid_argument(function, "out", "must have one element per key");
  if (!values) return;
  require_type(*out_values, values->type, function, "out_values");
  if (itemsize(values->type) != 8 && !(itemsize(values->type) == 4 && itemsize(keys.type) == 4))
    throw_unsupported(function, "values", values->type,
                      itemsize(keys.type) == 4 ? "any dtype of 4 or 8 bytes" : "any dtype of 8 bytes (with 8-byte keys)");
  if (values->size != keys.size) throw invalid_argument(function, "values", "must have one value per key");
  if (out_values->size != keys.size) throw invalid_argument(function, "out_values", "must have one value per key");
}

template <class W, class V>
void sort_on_host(const char* function, const array& keys, const array* values, const array& offsets,
                  const array& out_keys, const array* out_values, word_order<W> order) {
  const auto o = host_span<const std::size_t>(offsets);
  reference::detail::check_offsets(keys.size, o, function);
  if constexpr (!detail::has_values<V>) {
    const auto sorted = reference::segmented_stable_sort_offsets(host_span<const W>(keys), o, order);
    std::copy(sorted.begin(), sorted.end(), host_span<W>(out_keys).begin());
  } else {
    const auto sorted =
        reference::segmented_stable_sort_pairs_offsets(host_span<const W>(keys), host_span<const V>(*values), o, order);
    std::copy(sorted.keys.begin(), sorted.keys.end(), host_span<W>(out_keys).begin());
    std::copy(sorted.values.begin(), sorted.values.end(), host_span<V>(*out_values).begin());
  }
}

}  // namespace

void segmented_sort(const call& c, const array& keys, const array* values, const array& offsets, const array& out_keys,
                    const array* out_values, bool descending, bool validate_offsets) {
  guarded([&] {
    const char* function = values ? "segmented_sort_pairs" : "segmented_sort";
    check_sort_arguments(function, keys, values, offsets, out_keys, out_values);
    visit_key_word(keys.type, function, "keys", [&]<class W>(type_tag<W>) {
      const auto order = word_order<W>::of(keys.type, descending);
      const auto run = [&]<class V>(type_tag<V>) {
        if (c.on_host()) return sort_on_host<W, V>(function, keys, values, offsets, out_keys, out_values, order);
        context& ctx = context_for(c);
        const segmented_sort_options options{.validate_offsets = validate_offsets};
        const auto o = device_span<const std::size_t>(offsets);
        if constexpr (!detail::has_values<V>)
          sluice::segmented_sort(ctx, device_span<const W>(keys), o, device_span<W>(out_keys), options, order);
        else
          sluice::segmented_sort_pairs(ctx, device_span<const W>(keys), device_span<const V>(*values), o,
                                       device_span<W>(out_keys), device_span<V>(*out_values), options, order);
      };
      if (!values) return run(type_tag<detail::no_values>{});
      if constexpr (sizeof(W) == 4)
        if (itemsize(values->type) == 4) return run(type_tag<std::uint32_t>{});
      run(type_tag<std::uint64_t>{});
    });
  });
}

}  // namespace sluice::python
