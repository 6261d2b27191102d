// libsluice_python_kernels: comparison sort (sluice/merge_sort.cuh; CPU: std::stable_sort as in
// sluice/reference/sort.hpp, reference speed). Keys float32 and float64 under <, ascending (stable: −0.0
// and +0.0 keep their order, unlike the radix sort's total order; integer keys belong to radix_sort,
// which merge_sort's automatic strategy would run anyway); values moved as 8-byte words.
#include "common.hpp"

#include <sluice/merge_sort.cuh>
#include <sluice/reference/sort.hpp>

#include <algorithm>
#include <numeric>
#include <vector>

namespace sluice::python {

void merge_sort(const call& c, const array& keys, const array* values, const array& out_keys, const array* out_values,
                bool descending, merge_sort_algorithm algorithm) {
  guarded([&] {
    const char* function = values ? "merge_sort_pairs" : "merge_sort";
    if (descending) throw error(error_kind::value, "sluice.merge_sort: descending is not compiled in; use radix_sort");
    require_type(out_keys, keys.type, function, "out_keys");
    if ((values == nullptr) != (out_values == nullptr))
      throw error(error_kind::value, "sluice.merge_sort: pass both 'values' and 'out_values', or neither");
    if (values) {
      require_type(*out_values, values->type, function, "out_values");
      if (itemsize(values->type) != 8) throw_unsupported(function, "values", values->type, "any dtype of 8 bytes");
    }
    visit(types<float, double>{}, keys.type, function, "keys", [&]<class K>(type_tag<K>) {
      const merge_sort_options options{.algorithm = algorithm};
      if (c.on_host()) {
        const auto from = host_span<const K>(keys);
        if (out_keys.size != from.size()) throw invalid_argument(function, "out_keys", "must have one element per key");
        if (!values) {
          const auto sorted = reference::stable_sort(from);
          std::copy(sorted.begin(), sorted.end(), host_span<K>(out_keys).begin());
          return;
        }
        const auto moved = host_span<const std::uint64_t>(*values);
        if (moved.size() != from.size() || out_values->size != from.size())
          throw invalid_argument(function, "values", "must have one value per key");
        std::vector<std::size_t> order(from.size());
        std::iota(order.begin(), order.end(), std::size_t{0});
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return from[a] < from[b]; });
        for (std::size_t i = 0; i < order.size(); ++i) {
          host_span<K>(out_keys)[i] = from[order[i]];
          host_span<std::uint64_t>(*out_values)[i] = moved[order[i]];
        }
        return;
      }
      context& ctx = context_for(c);
      if (!values) {
        sluice::merge_sort(ctx, device_span<const K>(keys), device_span<K>(out_keys), options);
        return;
      }
      sluice::merge_sort_pairs(ctx, device_span<const K>(keys), device_span<const std::uint64_t>(*values),
                               device_span<K>(out_keys), device_span<std::uint64_t>(*out_values), options);
    });
  });
}

}  // namespace sluice::python
