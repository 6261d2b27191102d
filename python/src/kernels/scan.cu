// libsluice_python_kernels: inclusive and exclusive scans (sluice/scan.cuh; CPU: sluice/host/scan.hpp) over
// the numeric dtypes with sum, prod, min and max.
#include "common.hpp"

#include <sluice/host/scan.hpp>
#include <sluice/scan.cuh>

namespace sluice::python {

void scan(const call& c, const array& in, const array& out, bool inclusive, operator_kind op,
          std::optional<scalar> init, scan_algorithm algorithm) {
  guarded([&] {
    const char* function = inclusive ? "inclusive_scan" : "exclusive_scan";
    require_type(out, in.type, function, "out");
    visit(numeric_types{}, in.type, function, "in", [&]<class T>(type_tag<T>) {
      visit_operator<arithmetic, T>(op, function, in.type, [&]<class Op>(Op f) {
        const T start = init ? scalar_as<T>(*init) : identity<Op, T>();
        if (c.on_host()) {
          const auto from = host_span<const T>(in);
          const auto to = host_span<T>(out);
          if (!inclusive) host::exclusive_scan(from, to, start, f);
          else if (init) host::inclusive_scan(from, to, f, start);
          else host::inclusive_scan(from, to, f);
          return;
        }
        context& ctx = context_for(c);
        const auto from = device_span<const T>(in);
        const auto to = device_span<T>(out);
        const scan_options options{.algorithm = algorithm};
        if (!inclusive) sluice::exclusive_scan(ctx, from, to, start, f, options);
        else if (init) sluice::inclusive_scan(ctx, from, to, f, start, options);
        else sluice::inclusive_scan(ctx, from, to, f, options);
      });
    });
  });
}

}  // namespace sluice::python
