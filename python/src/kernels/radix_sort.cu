// libsluice_python_kernels: radix sort of keys and of (key, value) pairs (sluice/radix_sort.cuh; CPU:
// sluice/host/radix_sort.hpp). Keys int32, uint32, int64, uint64, float32, float64; values are moved as
// 8-byte words (argsort sorts int64 positions) or, with 4-byte keys, as 4-byte words.
#include "common.hpp"

#include <sluice/host/radix_sort.hpp>
#include <sluice/radix_sort.cuh>

namespace sluice::python {

namespace {
host::radix_sort_options host_options(const radix_sort_options& options) {
  host::radix_sort_options out{.begin_bit = options.begin_bit, .descending = options.descending};
  if (options.end_bit >= 0) out.end_bit = options.end_bit;
  return out;
}
}  // namespace

void radix_sort(const call& c, const array& keys, const array* values, const array& out_keys, const array* out_values,
                const radix_sort_options& options) {
  guarded([&] {
    const char* function = values ? "radix_sort_pairs" : "radix_sort";
    require_type(out_keys, keys.type, function, "out_keys");
    if ((values == nullptr) != (out_values == nullptr))
      throw error(error_kind::value, "sluice.radix_sort: pass both 'values' and 'out_values', or neither");
    visit(numeric_types{}, keys.type, function, "keys", [&]<class K>(type_tag<K>) {
      if (!values) {
        if (c.on_host()) host::radix_sort_keys(host_span<const K>(keys), host_span<K>(out_keys), host_options(options));
        else sluice::radix_sort(context_for(c), device_span<const K>(keys), device_span<K>(out_keys), options);
        return;
      }
      require_type(*out_values, values->type, function, "out_values");
      if (itemsize(values->type) != 8 && !(itemsize(values->type) == 4 && sizeof(K) == 4))
        throw_unsupported(function, "values", values->type,
                          sizeof(K) == 4 ? "any dtype of 4 or 8 bytes" : "any dtype of 8 bytes (with 8-byte keys)");
      const auto sort_pairs = [&]<class W>(type_tag<W>) {
        if (c.on_host())
          host::radix_sort_pairs(host_span<const K>(keys), host_span<const W>(*values), host_span<K>(out_keys),
                                 host_span<W>(*out_values), host_options(options));
        else
          sluice::radix_sort_pairs(context_for(c), device_span<const K>(keys), device_span<const W>(*values),
                                   device_span<K>(out_keys), device_span<W>(*out_values), options);
      };
      if constexpr (sizeof(K) == 4)
        if (itemsize(values->type) == 4) return sort_pairs(type_tag<std::uint32_t>{});
      sort_pairs(type_tag<std::uint64_t>{});
    });
  });
}

}  // namespace sluice::python
