// libsluice_python_kernels: out-of-place transpose (sluice/transpose.cuh; CPU: the sequential oracle
// sluice/reference/transpose.hpp, reference speed). Bits are moved, never read: one instantiation per
// element size (1, 2, 4, 8 bytes).
#include "common.hpp"

#include <sluice/reference/transpose.hpp>
#include <sluice/transpose.cuh>

#include <algorithm>

namespace sluice::python {

void transpose(const call& c, const array& in, const array& out, std::size_t rows, std::size_t cols,
               transpose_algorithm algorithm) {
  guarded([&] {
    require_type(out, in.type, "transpose", "out");
    visit_width(in.type, "transpose", "in", [&]<class W>(type_tag<W>) {
      if (c.on_host()) {
        const auto result = reference::transpose(host_span<const W>(in), rows, cols);
        if (out.size != result.size()) throw invalid_argument("transpose", "out", "must have rows * cols elements");
        std::copy(result.begin(), result.end(), host_span<W>(out).begin());
        return;
      }
      sluice::transpose(context_for(c), device_span<const W>(in), device_span<W>(out), rows, cols,
                        {.algorithm = algorithm});
    });
  });
}

}  // namespace sluice::python
