// sluice/detail/multireduce/dispatch.cuh: multireduce's dispatch: the plan (plan.hpp's resolve) run by
// the chosen strategy; multiscan and histogram call its pieces.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/memory.hpp>
#include <sluice/core/operators.hpp>
#include <sluice/core/span.hpp>
#include <sluice/detail/multireduce/block_sort_segmented.cuh>
#include <sluice/detail/multireduce/common.cuh>
#include <sluice/detail/multireduce/global_atomic_sets.cuh>
#include <sluice/detail/multireduce/global_sort_reduce_by_key.cuh>
#include <sluice/detail/multireduce/per_bank.cuh>
#include <sluice/detail/multireduce/plan.hpp>
#include <sluice/detail/multireduce/vector.cuh>
#include <sluice/detail/multireduce/warp_private_sets.cuh>
#include <sluice/options/multireduce.hpp>

#include <cuda/std/span>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace sluice::detail::multireduce {

/// Every strategy has this contract: fold each bucket's values, in index order for the order-preserving
/// ones, onto out[k] (which holds the identity or, with accumulate, the caller's contents), skip labels
/// outside [0, m) and add their number to *dropped (device memory; may be null; zeroed by the caller).
/// The atomic ones instantiate no kernel for an operator or value they cannot run (runs_atomically,
/// core/atomics.cuh); resolve has refused those already.
template <class L, class T, class Op>
void run(context& ctx, const plan& chosen, const L* labels, const T* values, std::size_t n, T* out, std::uint32_t m,
         Op op, std::size_t* dropped) {
  switch (chosen.algorithm) {
    case multireduce_algorithm::per_bank_shared: return run_per_bank_shared(ctx, labels, values, n, out, m, op, dropped);
    case multireduce_algorithm::per_bank_multi_pass:
      return run_per_bank_multi_pass(ctx, labels, values, n, out, m, op, dropped);
    case multireduce_algorithm::global_atomic_sets:
      return run_global_atomic_sets(ctx, labels, values, n, out, m, op, dropped, chosen.sets,
                                    chosen.partial_sort_bits);
    case multireduce_algorithm::block_sort_segmented:
      return run_block_sort_segmented(ctx, labels, values, n, out, m, op, dropped);
    case multireduce_algorithm::global_sort_reduce_by_key:
      return run_global_sort_reduce_by_key(ctx, labels, values, n, out, m, op, dropped);
    case multireduce_algorithm::vector: return run_vector(ctx, labels, values, n, out, m, op, dropped);
    case multireduce_algorithm::warp_private_sets:
      return run_warp_private_sets(ctx, labels, values, n, out, m, op, dropped);
    case multireduce_algorithm::automatic: break;  // resolved by the caller
  }
}

}  // namespace sluice::detail::multireduce
