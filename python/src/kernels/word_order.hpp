// libsluice_python_kernels: the order of a numeric dtype on the unsigned words of its width, chosen at run
// time, so that the comparison families (segmented_sort, merge) instantiate one sort per key width (two)
// instead of one per dtype (six). The order is the radix sort's (core/radix_key.hpp):
//   unsigned integers   the words' order
//   signed integers     the sign bit flipped
//   float32, float64    negative (sign bit set): every bit flipped; otherwise: the sign bit set
// so −NaN < −inf < … < −0.0 < +0.0 < … < +inf < +NaN, as radix_sort orders them; descending reverses it
// (every bit of the mapped word flipped), ties keeping their input order either way.
#pragma once

#include "common.hpp"

#include <sluice/core/config.hpp>

#include <cstdint>

namespace sluice::python {

template <class W>
struct word_order {
  W flip_negative = 0;  ///< XORed into a word whose top bit is set
  W flip_positive = 0;  ///< XORed into the others

  /// The unsigned word whose order is the dtype's.
  [[nodiscard]] SLUICE_HOST_DEVICE W mapped(W word) const {
    constexpr W top = static_cast<W>(W{1} << (8 * sizeof(W) - 1));
    return static_cast<W>(word ^ ((word & top) != 0 ? flip_negative : flip_positive));
  }
  SLUICE_HOST_DEVICE bool operator()(W a, W b) const { return mapped(a) < mapped(b); }

  /// The order of `type` (a numeric dtype of W's width; callers check the width).
  static word_order of(dtype type, bool descending) {
    constexpr W top = static_cast<W>(W{1} << (8 * sizeof(W) - 1));
    constexpr W all = static_cast<W>(~W{0});
    word_order order;
    if (type == dtype::float32 || type == dtype::float64) order = {all, top};
    else if (type == dtype::int32 || type == dtype::int64) order = {top, top};
    if (descending) {
      order.flip_negative = static_cast<W>(order.flip_negative ^ all);
      order.flip_positive = static_cast<W>(order.flip_positive ^ all);
    }
    return order;
  }
};

/// The key dtypes of the comparison families, compared as words of their width.
using ordered_key_types = numeric_types;

/// Calls f(type_tag<W>{}) with the unsigned word of a numeric key dtype, else a type error naming them.
template <class F>
decltype(auto) visit_key_word(dtype type, const char* function, const char* parameter, F&& f) {
  return visit(ordered_key_types{}, type, function, parameter, [&]<class K>(type_tag<K>) {
    return f(type_tag<word_of<sizeof(K)>>{});
  });
}

}  // namespace sluice::python
