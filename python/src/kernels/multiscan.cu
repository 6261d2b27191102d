// libsluice_python_kernels: multiscan and multitag (sluice/multiscan.cuh; CPU: sluice/host/multiscan.hpp
// and, for the totals, sluice/host/multireduce.hpp). Labels int32 or int64; values int32, int64, float32,
// float64; the sum only (each operator costs 16 instantiations of the heaviest kernels to compile).
#include "common.hpp"

#include <sluice/host/multireduce.hpp>
#include <sluice/host/multiscan.hpp>
#include <sluice/multiscan.cuh>

namespace sluice::python {

std::size_t multiscan(const call& c, const array& labels, const array& values, const array& out, std::uint32_t m,
                      bool inclusive, operator_kind op, const array* totals, multiscan_algorithm algorithm,
                      bool strict, bool count_dropped) {
  return guarded([&] {
    const char* function = inclusive ? "multiscan_inclusive" : "multiscan_exclusive";
    require_type(out, values.type, function, "out");
    if (totals) require_type(*totals, values.type, function, "totals");
    return visit(signed_index_types{}, labels.type, function, "labels", [&]<class L>(type_tag<L>) {
      return visit(types<std::int32_t, std::int64_t, float, double>{}, values.type, function, "values",
                   [&]<class T>(type_tag<T>) {
                     return visit_operator<sum_only, T>(op, function, values.type, [&]<class Op>(Op f) -> std::size_t {
                       const auto l = host_span<const L>(labels);
                       if (c.on_host()) {
                         const host::multireduce_options options{.strict = strict};
                         const auto v = host_span<const T>(values);
                         const auto result = inclusive ? host::multiscan_inclusive(l, v, host_span<T>(out), m, f, options)
                                                       : host::multiscan_exclusive(l, v, host_span<T>(out), m, f, options);
                         if (totals) host::multireduce(l, v, host_span<T>(*totals), f, options);
                         return result.dropped;
                       }
                       context& ctx = context_for(c);
                       const multiscan_options options{.algorithm = algorithm, .strict = strict};
                       const cuda::std::span<T> sums = totals ? device_span<T>(*totals) : cuda::std::span<T>{};
                       const auto scan_into = [&](std::size_t* dropped) {
                         if (inclusive)
                           multiscan_inclusive(ctx, device_span<const L>(labels), device_span<const T>(values),
                                               device_span<T>(out), m, f, sums, dropped, options);
                         else
                           multiscan_exclusive(ctx, device_span<const L>(labels), device_span<const T>(values),
                                               device_span<T>(out), m, f, sums, dropped, options);
                       };
                       if (!count_dropped) {
                         scan_into(nullptr);
                         return 0;
                       }
                       count_slot dropped(ctx);
                       scan_into(dropped.get());
                       return dropped.read();
                     });
                   });
    });
  });
}

std::size_t multitag(const call& c, const array& labels, const array& rank, std::uint32_t m, const array* counts,
                     multiscan_algorithm algorithm, bool strict, bool count_dropped) {
  return guarded([&] {
    const char* function = "multitag";
    require_type(rank, dtype::uint32, function, "rank");
    if (counts && counts->type != dtype::uint64 && counts->type != dtype::int64)
      throw_unsupported(function, "counts", counts->type, "int64, uint64");
    return visit(signed_index_types{}, labels.type, function, "labels", [&]<class L>(type_tag<L>) -> std::size_t {
      if (c.on_host()) {
        std::vector<std::uint64_t> scratch(counts ? 0 : m);
        const auto tally = counts ? host_span<std::uint64_t>(*counts) : std::span<std::uint64_t>(scratch);
        return host::multitag(host_span<const L>(labels), host_span<std::uint32_t>(rank), tally, {.strict = strict})
            .dropped;
      }
      context& ctx = context_for(c);
      const multiscan_options options{.algorithm = algorithm, .strict = strict};
      const cuda::std::span<std::uint64_t> tally =
          counts ? device_span<std::uint64_t>(*counts) : cuda::std::span<std::uint64_t>{};
      if (!count_dropped) {
        sluice::multitag(ctx, device_span<const L>(labels), device_span<std::uint32_t>(rank), m, tally, nullptr, options);
        return 0;
      }
      count_slot dropped(ctx);
      sluice::multitag(ctx, device_span<const L>(labels), device_span<std::uint32_t>(rank), m, tally, dropped.get(),
                       options);
      return dropped.read();
    });
  });
}

}  // namespace sluice::python
