// libsluice_python_kernels: reduce (sluice/reduce.cuh; CPU: sluice/host/reduce.hpp) over the numeric
// dtypes with sum, prod, min and max, and the C++ timing entry point that measures the binding's overhead.
#include "common.hpp"

#include <sluice/host/reduce.hpp>
#include <sluice/reduce.cuh>

#include <algorithm>
#include <chrono>
#include <vector>

namespace sluice::python {

void reduce(const call& c, const array& in, const array& out, operator_kind op, reduce_algorithm algorithm) {
  guarded([&] {
    require_type(out, in.type, "reduce", "out");
    if (out.size != 1) throw error(error_kind::value, "sluice.reduce: 'out' must have one element");
    visit(numeric_types{}, in.type, "reduce", "in", [&]<class T>(type_tag<T>) {
      visit_operator<arithmetic, T>(op, "reduce", in.type, [&]<class Op>(Op f) {
        const T init = identity<Op, T>();
        if (c.on_host()) {
          host_span<T>(out)[0] = host::reduce(host_span<const T>(in), init, f);
          return;
        }
        sluice::reduce(context_for(c), device_span<const T>(in), static_cast<T*>(out.data), init, f,
                       {.algorithm = algorithm});
      });
    });
  });
}

double time_cpp_reduce(const call& c, const array& in, const array& out, int repetitions) {
  return guarded([&] {
    require_type(in, dtype::float32, "time_cpp_reduce", "in");
    require_type(out, dtype::float32, "time_cpp_reduce", "out");
    context& ctx = context_for(c);
    const auto input = device_span<const float>(in);
    auto* result = static_cast<float*>(out.data);
    std::vector<double> seconds;
    for (int r = 0; r < std::max(repetitions, 1); ++r) {
      // What a C++ caller pays per call: the entry point (argument checks, launch); the stream is
      // drained between calls so that the queue never fills.
      const auto start = std::chrono::steady_clock::now();
      sluice::reduce(ctx, input, result, 0.0f, sluice::plus{});
      const auto stop = std::chrono::steady_clock::now();
      seconds.push_back(std::chrono::duration<double>(stop - start).count());
      ctx.synchronize();
    }
    std::nth_element(seconds.begin(), seconds.begin() + static_cast<std::ptrdiff_t>(seconds.size() / 2), seconds.end());
    return seconds[seconds.size() / 2];
  });
}

}  // namespace sluice::python
