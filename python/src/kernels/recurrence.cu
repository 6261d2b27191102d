// libsluice_python_kernels: first-order linear and max-plus recurrences (sluice/recurrence.cuh; CPU: the
// sequential oracle sluice/reference/recurrence.hpp, reference speed) over int32, int64, float32, float64.
#include "common.hpp"

#include <sluice/recurrence.cuh>
#include <sluice/reference/recurrence.hpp>

#include <algorithm>

namespace sluice::python {

void recurrence(const call& c, const array& a, const array& b, const array& x, bool max_plus) {
  guarded([&] {
    const char* function = max_plus ? "max_plus_recurrence" : "first_order_linear_recurrence";
    require_type(b, a.type, function, "b");
    require_type(x, a.type, function, "x");
    visit(types<std::int32_t, std::int64_t, float, double>{}, a.type, function, "a", [&]<class T>(type_tag<T>) {
      if (c.on_host()) {
        const auto from_a = host_span<const T>(a);
        const auto from_b = host_span<const T>(b);
        if (x.size != b.size) throw invalid_argument(function, "x", "must have as many elements as a");
        const auto result = max_plus ? reference::linear_recurrence(from_a, from_b, sluice::max{}, sluice::plus{})
                                     : reference::linear_recurrence(from_a, from_b, sluice::plus{}, multiplies{});
        std::copy(result.begin(), result.end(), host_span<T>(x).begin());
        return;
      }
      context& ctx = context_for(c);
      if (max_plus) max_plus_recurrence(ctx, device_span<const T>(a), device_span<const T>(b), device_span<T>(x));
      else first_order_linear_recurrence(ctx, device_span<const T>(a), device_span<const T>(b), device_span<T>(x));
    });
  });
}

}  // namespace sluice::python
