// libsluice_python_kernels: batched lower_bound / upper_bound over sorted keys (sluice/search.cuh; CPU:
// std::lower_bound / std::upper_bound per query, as sluice/reference/search.hpp, without its sortedness
// check). Keys and queries of one of the numeric dtypes; answers int64 (torch.searchsorted's default).
#include "common.hpp"

#include <sluice/search.cuh>

#include <algorithm>

namespace sluice::python {

void search(const call& c, const array& sorted_keys, const array& queries, const array& out, bool upper,
            search_algorithm algorithm, bool queries_sorted) {
  guarded([&] {
    const char* function = upper ? "upper_bound" : "lower_bound";
    require_type(queries, sorted_keys.type, function, "queries");
    visit(numeric_types{}, sorted_keys.type, function, "sorted_keys", [&]<class K>(type_tag<K>) {
      visit(types<std::int64_t>{}, out.type, function, "out", [&]<class O>(type_tag<O>) {
        if (c.on_host()) {
          const auto keys = host_span<const K>(sorted_keys);
          const auto qs = host_span<const K>(queries);
          const auto to = host_span<O>(out);
          if (to.size() != qs.size()) throw invalid_argument(function, "out", "must have one element per query");
          for (std::size_t i = 0; i < qs.size(); ++i) {
            const auto at = upper ? std::upper_bound(keys.begin(), keys.end(), qs[i])
                                  : std::lower_bound(keys.begin(), keys.end(), qs[i]);
            to[i] = static_cast<O>(at - keys.begin());
          }
          return;
        }
        context& ctx = context_for(c);
        const search_options options{.queries_sorted = queries_sorted, .algorithm = algorithm};
        if (upper)
          sluice::upper_bound(ctx, device_span<const K>(sorted_keys), device_span<const K>(queries), device_span<O>(out),
                              options);
        else
          sluice::lower_bound(ctx, device_span<const K>(sorted_keys), device_span<const K>(queries), device_span<O>(out),
                              options);
      });
    });
  });
}

}  // namespace sluice::python
