// libsluice_python_kernels: the stable merge of two sorted arrays (sluice/merge_sort.cuh's merge and
// merge_pairs: one merge-path round; CPU: a sequential merge that first checks both inputs are sorted).
// Keys of the numeric dtypes as words of their width (word_order.hpp); values as segmented_sort's.
#include "api_sort.hpp"
#include "common.hpp"
#include "word_order.hpp"

#include <sluice/merge_sort.cuh>

namespace sluice::python {

namespace {

void check_merge_arguments(const char* function, const array& a, const array* a_values, const array& b,
                           const array* b_values, const array& out_keys, const array* out_values) {
  require_type(b, a.type, function, "b");
  require_type(out_keys, a.type, function, "out");
  if ((a_values == nullptr) != (b_values == nullptr) || (a_values == nullptr) != (out_values == nullptr))
    throw error(error_kind::value, "sluice.merge: pass 'a_values' and 'b_values' together, or neither");
  if (out_keys.size != a.size + b.size)
    throw invalid_argument(function, "out", "must have len(a) + len(b) = " + std::to_string(a.size + b.size) + " elements");
  if (!a_values) return;
  require_type(*b_values, a_values->type, function, "b_values");
  require_type(*out_values, a_values->type, function, "out_values");
  if (itemsize(a_values->type) != 8 && !(itemsize(a_values->type) == 4 && itemsize(a.type) == 4))
    throw_unsupported(function, "a_values", a_values->type,
                      itemsize(a.type) == 4 ? "any dtype of 4 or 8 bytes" : "any dtype of 8 bytes (with 8-byte keys)");
  if (a_values->size != a.size) throw invalid_argument(function, "a_values", "must have one value per key of a");
  if (b_values->size != b.size) throw invalid_argument(function, "b_values", "must have one value per key of b");
  if (out_values->size != out_keys.size) throw invalid_argument(function, "out_values", "must have one value per key");
}

template <class W>
void require_sorted(const char* function, const char* parameter, std::span<const W> keys, word_order<W> order) {
  for (std::size_t i = 1; i < keys.size(); ++i)
    if (order(keys[i], keys[i - 1])) throw invalid_argument(function, parameter, "is not sorted", i);
}

/// The sequential merge: b's key goes first only when strictly smaller (ties keep a's keys in front).
template <class W, class V>
void merge_on_host(const char* function, const array& a, const array* a_values, const array& b, const array* b_values,
                   const array& out_keys, const array* out_values, word_order<W> order) {
  const auto ka = host_span<const W>(a), kb = host_span<const W>(b);
  require_sorted(function, "a", ka, order);
  require_sorted(function, "b", kb, order);
  const auto to = host_span<W>(out_keys);
  std::size_t i = 0, j = 0;
  for (std::size_t k = 0; k < to.size(); ++k) {
    const bool from_b = j < kb.size() && (i == ka.size() || order(kb[j], ka[i]));
    to[k] = from_b ? kb[j] : ka[i];
    if constexpr (detail::has_values<V>)
      host_span<V>(*out_values)[k] = from_b ? host_span<const V>(*b_values)[j] : host_span<const V>(*a_values)[i];
    (from_b ? j : i) += 1;
  }
}

}  // namespace

void merge(const call& c, const array& a, const array* a_values, const array& b, const array* b_values,
           const array& out_keys, const array* out_values, bool descending) {
  guarded([&] {
    const char* function = a_values ? "merge_pairs" : "merge";
    check_merge_arguments(function, a, a_values, b, b_values, out_keys, out_values);
    visit_key_word(a.type, function, "a", [&]<class W>(type_tag<W>) {
      const auto order = word_order<W>::of(a.type, descending);
      const auto run = [&]<class V>(type_tag<V>) {
        if (c.on_host()) return merge_on_host<W, V>(function, a, a_values, b, b_values, out_keys, out_values, order);
        context& ctx = context_for(c);
        if constexpr (!detail::has_values<V>)
          sluice::merge(ctx, device_span<const W>(a), device_span<const W>(b), device_span<W>(out_keys), order);
        else
          sluice::merge_pairs(ctx, device_span<const W>(a), device_span<const V>(*a_values), device_span<const W>(b),
                              device_span<const V>(*b_values), device_span<W>(out_keys), device_span<V>(*out_values),
                              order);
      };
      if (!a_values) return run(type_tag<detail::no_values>{});
      if constexpr (sizeof(W) == 4)
        if (itemsize(a_values->type) == 4) return run(type_tag<std::uint32_t>{});
      run(type_tag<std::uint64_t>{});
    });
  });
}

}  // namespace sluice::python
