// libsluice_python_kernels: segmented scans and reductions by head flags or offsets (sluice/segmented.cuh;
// CPU: the sequential oracles of sluice/reference/segmented.hpp, reference speed) over int32, int64,
// float32 and float64 with sum, min and max, and the run heads that turn the by-key forms into flag forms.
#include "common.hpp"

#include <sluice/core/launch.hpp>
#include <sluice/reference/segmented.hpp>
#include <sluice/segmented.cuh>

#include <algorithm>
#include <vector>

namespace sluice::python {

namespace {
using segmented_types = types<std::int32_t, std::int64_t, float, double>;

template <class T>
void copy_out(const std::vector<T>& from, const array& out) {
  std::copy_n(from.begin(), std::min(from.size(), out.size), host_span<T>(out).begin());
}

template <class W>
__global__ void run_heads_kernel(const W* keys, std::uint8_t* flags, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
    flags[i] = i == 0 || keys[i] != keys[i - 1];
}

void check_segments(const char* function, const array& values, const array* flags, const array* offsets) {
  if ((flags == nullptr) == (offsets == nullptr))
    throw error(error_kind::value, "sluice." + std::string(function) + ": pass exactly one of 'flags' and 'offsets'");
  if (flags) require_width(*flags, 1, function, "flags");
  if (offsets && offsets->type != dtype::int64 && offsets->type != dtype::uint64)
    throw_unsupported(function, "offsets", offsets->type, "int64, uint64");
  (void)values;
}
}  // namespace

void segmented_scan(const call& c, const array& values, const array* flags, const array* offsets, const array& out,
                    bool inclusive, operator_kind op, std::optional<scalar> init, segmented_algorithm algorithm) {
  guarded([&] {
    const char* function = inclusive ? "segmented_inclusive_scan" : "segmented_exclusive_scan";
    check_segments(function, values, flags, offsets);
    require_type(out, values.type, function, "out");
    if (inclusive && init) throw error(error_kind::value, "sluice.segmented_inclusive_scan: takes no 'init'");
    visit(segmented_types{}, values.type, function, "values", [&]<class T>(type_tag<T>) {
      visit_operator<ordered, T>(op, function, values.type, [&]<class Op>(Op f) {
        const T start = init ? scalar_as<T>(*init) : identity<Op, T>();
        if (c.on_host()) {
          const auto v = host_span<const T>(values);
          if (flags) {
            const auto h = host_span<const std::uint8_t>(*flags);
            copy_out(inclusive ? reference::segmented_inclusive_scan_flags(v, h, f)
                               : reference::segmented_exclusive_scan_flags(v, h, start, f), out);
          } else {
            const auto o = host_span<const std::size_t>(*offsets);
            copy_out(inclusive ? reference::segmented_inclusive_scan_offsets(v, o, f)
                               : reference::segmented_exclusive_scan_offsets(v, o, start, f), out);
          }
          return;
        }
        context& ctx = context_for(c);
        const segmented_options options{.algorithm = algorithm};
        const auto v = device_span<const T>(values);
        if (flags) {
          const auto h = device_span<const std::uint8_t>(*flags);
          if (inclusive) segmented_inclusive_scan(ctx, v, h, device_span<T>(out), f, options);
          else segmented_exclusive_scan(ctx, v, h, device_span<T>(out), start, f, options);
        } else {
          const auto o = device_span<const std::size_t>(*offsets);
          if (inclusive) segmented_inclusive_scan(ctx, v, o, device_span<T>(out), f, options);
          else segmented_exclusive_scan(ctx, v, o, device_span<T>(out), start, f, options);
        }
      });
    });
  });
}

std::size_t segmented_reduce(const call& c, const array& values, const array* flags, const array* offsets,
                             const array& out, operator_kind op, std::optional<scalar> init,
                             segmented_algorithm algorithm) {
  return guarded([&] {
    const char* function = "segmented_reduce";
    check_segments(function, values, flags, offsets);
    require_type(out, values.type, function, "out");
    return visit(segmented_types{}, values.type, function, "values", [&]<class T>(type_tag<T>) {
      return visit_operator<ordered, T>(op, function, values.type, [&]<class Op>(Op f) -> std::size_t {
        const T start = init ? scalar_as<T>(*init) : identity<Op, T>();
        if (c.on_host()) {
          const auto v = host_span<const T>(values);
          const std::vector<T> result =
              flags ? reference::segmented_reduce_flags(v, host_span<const std::uint8_t>(*flags), start, f)
                    : reference::segmented_reduce_offsets(v, host_span<const std::size_t>(*offsets), start, f);
          copy_out(result, out);
          return result.size();
        }
        context& ctx = context_for(c);
        const segmented_options options{.algorithm = algorithm};
        const auto v = device_span<const T>(values);
        if (offsets) {
          sluice::segmented_reduce(ctx, v, device_span<const std::size_t>(*offsets), device_span<T>(out), start, f,
                                   options);
          return offsets->size == 0 ? 0 : offsets->size - 1;
        }
        count_slot segments(ctx);
        sluice::segmented_reduce(ctx, v, device_span<const std::uint8_t>(*flags), device_span<T>(out), start, f,
                                 segments.get(), options);
        return segments.read();
      });
    });
  });
}

void run_heads(const call& c, const array& keys, const array& flags) {
  guarded([&] {
    require_width(flags, 1, "run_heads", "flags");
    if (flags.size != keys.size) throw error(error_kind::value, "sluice.run_heads: one flag per key");
    visit(types<std::int32_t, std::uint32_t, std::int64_t, std::uint64_t, std::int16_t, std::uint16_t, std::int8_t,
                std::uint8_t, bool>{},
          keys.type, "run_heads", "keys", [&]<class K>(type_tag<K>) {
            using W = word_of<sizeof(K)>;  // equality of integers is equality of their bits
            if (c.on_host()) {
              const auto k = host_span<const W>(keys);
              const auto h = host_span<std::uint8_t>(flags);
              for (std::size_t i = 0; i < k.size(); ++i) h[i] = i == 0 || k[i] != k[i - 1];
              return;
            }
            if (keys.size == 0) return;
            context& ctx = context_for(c);
            auto device = ctx.activate();
            run_heads_kernel<<<detail::streaming_grid(ctx, run_heads_kernel<W>, keys.size), 256, 0, ctx.stream()>>>(
                static_cast<const W*>(keys.data), static_cast<std::uint8_t*>(flags.data), keys.size);
            SLUICE_CHECK_LAUNCH();
          });
  });
}

}  // namespace sluice::python
