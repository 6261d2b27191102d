// sluice/reference/reduce.hpp: sequential oracle for reduce and transform_reduce (Palik §3.1, Eilers §1.2).
//
// These oracles are the truth that the GPU reductions are tested against, so they are plain left folds
// in index order and assume nothing but associativity of `op` (not commutativity, not an identity):
//
//   reduce(in, init, op)                    = op(...op(op(init, in[0]), in[1])..., in[n-1])
//   transform_reduce(in, init, op, t)       = the same fold over t(in[0]), ..., t(in[n-1])
//
// n = 0 gives init. `init` takes part exactly once, on the left, so it need not be an identity: a GPU
// implementation must not fold it in once per block. `transform` is called once per element, in order.
// Floating-point sums are exactly this sequential order's rounding; compare GPU results within a tolerance.
//
// Call with the element type named (reduce<T>(vector, ...)) or with a std::span: spans are not deduced
// from vectors.
#pragma once

#include <span>

namespace sluice::reference {

template <class T, class Op>
[[nodiscard]] T reduce(std::span<const T> in, T init, Op op) {
  T acc = init;
  for (const T& x : in) acc = op(acc, x);
  return acc;
}

template <class T, class In, class Op, class Transform>
[[nodiscard]] T transform_reduce(std::span<const In> in, T init, Op op, Transform transform) {
  T acc = init;
  for (const In& x : in) acc = op(acc, transform(x));
  return acc;
}

}  // namespace sluice::reference
