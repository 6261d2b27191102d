// sluice/reference/scan.hpp: sequential oracle for inclusive and exclusive scans (Palik §4.1–4.2,
// Eilers §1.2).
//
// Every output element is a left fold in index order, so non-commutative operators (affine maps, matrix
// products) have one right answer and the GPU scans must reproduce it bit-exactly:
//
//   inclusive_scan(in, op)         out[i] = in[0] ⊕ in[1] ⊕ … ⊕ in[i]            (needs no identity)
//   inclusive_scan(in, op, init)   out[i] = init ⊕ in[0] ⊕ … ⊕ in[i]
//   exclusive_scan(in, init, op)   out[0] = init, out[i] = init ⊕ in[0] ⊕ … ⊕ in[i-1]
//
// All return n elements (n = 0 gives an empty vector); the exclusive scan's total in[0..n-1] is not
// returned (it is reduce(in, init, op)). Note the argument order: the inclusive scan takes init last
// because it is optional; the exclusive scan takes it before op, as std::exclusive_scan does.
#pragma once

#include <span>
#include <vector>

namespace sluice::reference {

template <class T, class Op>
[[nodiscard]] std::vector<T> inclusive_scan(std::span<const T> in, Op op) {
  std::vector<T> out;
  out.reserve(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) out.push_back(i == 0 ? in[0] : op(out[i - 1], in[i]));
  return out;
}

template <class T, class Op>
[[nodiscard]] std::vector<T> inclusive_scan(std::span<const T> in, Op op, T init) {
  std::vector<T> out;
  out.reserve(in.size());
  T acc = init;
  for (const T& x : in) {
    acc = op(acc, x);
    out.push_back(acc);
  }
  return out;
}

template <class T, class Op>
[[nodiscard]] std::vector<T> exclusive_scan(std::span<const T> in, T init, Op op) {
  std::vector<T> out;
  out.reserve(in.size());
  T acc = init;
  for (const T& x : in) {
    out.push_back(acc);
    acc = op(acc, x);
  }
  return out;
}

}  // namespace sluice::reference
