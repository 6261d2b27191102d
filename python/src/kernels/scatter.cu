// libsluice_python_kernels: gather and scatter by index (sluice/scatter.cuh; CPU: sluice/host/scatter.hpp
// for scatter, a loop with the device's semantics for gather). Values are moved as bits (elements of 4 or
// 8 bytes); indices int32 or int64.
#include "common.hpp"

#include <sluice/host/scatter.hpp>
#include <sluice/scatter.cuh>

#include <utility>

namespace sluice::python {

namespace {
template <class I>
bool in_range(I index, std::size_t size) {
  return !std::cmp_less(index, 0) && std::cmp_less(index, size);
}

/// The strict check on the host: the first index outside [0, size) is an invalid_argument.
template <class I>
void require_in_range(const char* function, std::span<const I> indices, std::size_t size) {
  for (std::size_t i = 0; i < indices.size(); ++i)
    if (!in_range(indices[i], size)) throw invalid_argument(function, "indices", "is out of range", i);
}
/// The 4- and 8-byte words the values move as.
template <class F>
decltype(auto) visit_wide(dtype type, const char* function, const char* parameter, F&& f) {
  if (itemsize(type) == 4) return f(type_tag<std::uint32_t>{});
  if (itemsize(type) != 8) throw_unsupported(function, parameter, type, "any dtype of 4 or 8 bytes");
  return f(type_tag<std::uint64_t>{});
}
}  // namespace

std::size_t gather(const call& c, const array& values, const array& indices, const array& out, bool strict,
                   bool count_skipped) {
  return guarded([&] {
    require_type(out, values.type, "gather", "out");
    return visit_wide(values.type, "gather", "values", [&]<class W>(type_tag<W>) {
      return visit(signed_index_types{}, indices.type, "gather", "indices", [&]<class I>(type_tag<I>) -> std::size_t {
        if (c.on_host()) {
          const auto table = host_span<const W>(values);
          const auto index = host_span<const I>(indices);
          const auto to = host_span<W>(out);
          if (to.size() != index.size()) throw invalid_argument("gather", "out", "must have one element per index");
          if (strict) require_in_range("gather", index, table.size());
          std::size_t skipped = 0;
          for (std::size_t i = 0; i < index.size(); ++i) {
            if (in_range(index[i], table.size())) to[i] = table[static_cast<std::size_t>(index[i])];
            else ++skipped;
          }
          return skipped;
        }
        context& ctx = context_for(c);
        if (!count_skipped) {
          sluice::gather(ctx, device_span<const W>(values), device_span<const I>(indices), device_span<W>(out), nullptr,
                         {.strict = strict});
          return 0;
        }
        count_slot skipped(ctx);
        sluice::gather(ctx, device_span<const W>(values), device_span<const I>(indices), device_span<W>(out),
                       skipped.get(), {.strict = strict});
        return skipped.read();
      });
    });
  });
}

std::size_t scatter(const call& c, const array& values, const array& indices, const array& out,
                    scatter_semantics semantics, scatter_algorithm algorithm, bool strict, bool count_skipped) {
  return guarded([&] {
    require_type(out, values.type, "scatter", "out");
    return visit_wide(values.type, "scatter", "values", [&]<class W>(type_tag<W>) {
      return visit(signed_index_types{}, indices.type, "scatter", "indices", [&]<class I>(type_tag<I>) -> std::size_t {
        if (c.on_host()) {
          // Last writer wins on the host, which is one of the outcomes any_writer allows.
          if (strict) require_in_range("scatter", host_span<const I>(indices), out.size);
          return host::scatter(host_span<const W>(values), host_span<const I>(indices), host_span<W>(out)).dropped;
        }
        context& ctx = context_for(c);
        const scatter_options options{.semantics = semantics, .strict = strict, .algorithm = algorithm};
        if (!count_skipped) {
          sluice::scatter(ctx, device_span<const W>(values), device_span<const I>(indices), device_span<W>(out), nullptr,
                          options);
          return 0;
        }
        count_slot skipped(ctx);
        sluice::scatter(ctx, device_span<const W>(values), device_span<const I>(indices), device_span<W>(out),
                        skipped.get(), options);
        return skipped.read();
      });
    });
  });
}

}  // namespace sluice::python
