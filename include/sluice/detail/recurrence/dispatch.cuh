// sluice/detail/recurrence/dispatch.cuh: a linear recurrence as one single-pass scan of its steps
// c_i = [a_i, b_i] (Palik §4.5): the tile program that pairs a and b in registers and stores the states,
// and run(), which other families may call without the entry points' checks.
#pragma once

#include <sluice/core/config.hpp>
#include <sluice/core/context.hpp>
#include <sluice/core/operators.hpp>
#include <sluice/detail/recurrence/tuning.hpp>
#include <sluice/detail/scan/dispatch.cuh>

#include <cuda/std/cstddef>

#include <cstddef>
#include <cstdint>

namespace sluice::detail::recurrence {

/// One step c_i = [a_i, b_i] of a recurrence.
template <class A, class B>
struct step {
  A a;
  B b;
};

/// c_i * c_j = [a_i ⊙ a_j, (b_i ⊗ a_j) ⊕ b_j] (index order: i before j).
template <class OPlus, class OTimes, class Companion>
struct step_op {
  OPlus oplus;
  OTimes otimes;
  Companion companion;
  template <class A, class B>
  SLUICE_HOST_DEVICE step<A, B> operator()(const step<A, B>& ci, const step<A, B>& cj) const {
    return {companion(ci.a, cj.a), oplus(otimes(ci.b, cj.a), cj.b)};
  }
};

/// The tile program of a recurrence: a and b are loaded as two coalesced streams, paired in registers
/// as the steps c_i = [a_i, b_i], and the scanned steps' b (the states x_i) are stored.
template <class Shape, class A, class B>
struct recurrence_program {
  using shape = Shape;
  using element = step<A, B>;
  struct loaded {};
  union temp_storage {
    typename scan::block_load_t<Shape, A>::TempStorage load_a;
    typename scan::block_load_t<Shape, B>::TempStorage load_b;
    typename scan::block_store_t<Shape, B>::TempStorage store;
  };

  const A* a;
  const B* b;
  B* x;

  __device__ void load(cuda::std::size_t offset, int valid, loaded&, element (&steps)[Shape::items],
                       temp_storage& temp) const {
    A as[Shape::items];
    B bs[Shape::items];
    scan::load_tile<Shape>(a + offset, valid, as, temp.load_a);
    __syncthreads();
    scan::load_tile<Shape>(b + offset, valid, bs, temp.load_b);
#pragma unroll
    for (int j = 0; j < Shape::items; ++j) steps[j] = {as[j], bs[j]};
  }
  __device__ void store(cuda::std::size_t offset, int valid, const loaded&, element (&steps)[Shape::items],
                        temp_storage& temp) const {
    scan::store_projected_tile<Shape>(x + offset, valid, steps, [](const element& s) { return s.b; }, temp.store);
  }
};

/// x[0, n) of the recurrence with steps (a_i, b_i) combined by op; n ≥ 1.
template <class A, class B, class StepOp>
void run(context& ctx, const A* a, const B* b, B* x, std::size_t n, StepOp op) {
  using shape = tuning::tile<step<A, B>>;
  scan::run_decoupled_look_back<scan::scan_kind::inclusive, false>(ctx, recurrence_program<shape, A, B>{a, b, x}, n,
                                                                   step<A, B>{}, op);
}

/// x ⊗ f = f ? identity : x: a head flag resets the running value (Palik §4.6).
template <class Op>
struct reset_at_head {
  template <class T>
  SLUICE_HOST_DEVICE T operator()(const T& x, std::uint8_t head) const {
    return head ? identity<Op, T>() : x;
  }
};
struct logical_or {
  SLUICE_HOST_DEVICE std::uint8_t operator()(std::uint8_t f, std::uint8_t g) const { return f | g; }
};

}  // namespace sluice::detail::recurrence
