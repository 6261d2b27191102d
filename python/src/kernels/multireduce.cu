// libsluice_python_kernels: multireduce (sluice/multireduce.cuh; CPU: sluice/host/multireduce.hpp), the
// engine of index_add, scatter_reduce and weighted bincount. Labels int64 (torch's index dtype) with values
// int32, int64, float32, float64 and sum, prod, min, max (and the bit operators, int64 values); labels int32
// with sum (bincount-style inputs); the bit operators on int64 values: to keep the compile time down.
#include "common.hpp"

#include <sluice/host/multireduce.hpp>
#include <sluice/multireduce.cuh>

#include <vector>

namespace sluice::python {

namespace {
using value_types = types<std::int32_t, std::int64_t, float, double>;

/// The operators of int64 labels: every one, the bit operators on int64 values only.
template <class T>
constexpr unsigned int64_label_operators = std::is_same_v<T, std::int64_t> ? with_bits : arithmetic;

template <class L, unsigned Allowed>
std::size_t run(const call& c, const array& labels, const array& values, const array& out, operator_kind op,
                const multireduce_options& options, bool count_dropped) {
  const char* function = std::is_same_v<L, std::int32_t> ? "multireduce (int32 labels)" : "multireduce";
  require_type(out, values.type, function, "out");
  return visit(value_types{}, values.type, function, "values", [&]<class T>(type_tag<T>) {
    constexpr unsigned operators = Allowed == sum_only ? sum_only : int64_label_operators<T>;
    return visit_operator<operators, T>(op, function, values.type, [&]<class Op>(Op f) -> std::size_t {
      if (c.on_host()) {
        const host::multireduce_options host_options{.strict = options.strict};
        const auto to = host_span<T>(out);
        if (!options.accumulate)
          return host::multireduce(host_span<const L>(labels), host_span<const T>(values), to, f, host_options).dropped;
        std::vector<T> folded(to.size());
        const auto result =
            host::multireduce(host_span<const L>(labels), host_span<const T>(values), std::span<T>(folded), f, host_options);
        for (std::size_t k = 0; k < to.size(); ++k) to[k] = f(to[k], folded[k]);
        return result.dropped;
      }
      context& ctx = context_for(c);
      if (!count_dropped) {
        sluice::multireduce(ctx, device_span<const L>(labels), device_span<const T>(values), device_span<T>(out), f,
                            nullptr, options);
        return 0;
      }
      count_slot dropped(ctx);
      sluice::multireduce(ctx, device_span<const L>(labels), device_span<const T>(values), device_span<T>(out), f,
                          dropped.get(), options);
      return dropped.read();
    });
  });
}
}  // namespace

std::size_t multireduce(const call& c, const array& labels, const array& values, const array& out, operator_kind op,
                        const multireduce_options& options, bool count_dropped) {
  return guarded([&] {
    if (labels.type == dtype::int64)
      return run<std::int64_t, with_bits>(c, labels, values, out, op, options, count_dropped);
    if (labels.type == dtype::int32)
      return run<std::int32_t, sum_only>(c, labels, values, out, op, options, count_dropped);
    throw_unsupported("multireduce", "labels", labels.type, "int64 (every operator), int32 (sum)");
  });
}

}  // namespace sluice::python
