// sluice/block/run_scan.cuh: the inclusive scan of every run of a tile held in registers, runs given by
// head flags (Eilers Alg. 4.13 phases 1–3 and Alg. 5.4: a serial scan over each thread's items, a block
// scan of the threads' carries, the carry folded in on the left).
//
// The runs are scanned as one ordinary scan of (head count, value) pairs under counted_op
// (core/counted.hpp, Palik §4.6 "segmented scan → scan"): the value restarts at every head, and
// the head count numbers the runs, so an element also learns its run's index within the tile. The block
// scan is cub::BlockScan (warp scans: order-preserving), so non-commutative operators stay exact.
// Cost: Items operator applications per thread, one block scan of pairs; no extra shared memory beyond
// the scan's.
#pragma once

#include <sluice/core/counted.hpp>

#include <cub/block/block_scan.cuh>

namespace sluice::block {

template <class T, int Threads, int Items>
struct run_scan {
  using pair = sluice::detail::counted<unsigned, T>;
  using block_scan = cub::BlockScan<pair, Threads, cub::BLOCK_SCAN_WARP_SCANS>;
  using TempStorage = typename block_scan::TempStorage;

  /// values[j] ← the ⊕ of j's run from its head up to j (blocked arrangement: thread t holds items
  /// t·Items …); run[j] ← the index of j's run in the tile. heads[0] of thread 0 must be set. Returns
  /// the number of runs in the tile (to every thread).
  template <class Op>
  __device__ static unsigned inclusive(TempStorage& temp, const bool (&heads)[Items], T (&values)[Items],
                                       unsigned (&run)[Items], Op op) {
    const sluice::detail::counted_op<Op> pair_op{op};
    pair items[Items];
    items[0] = {heads[0] ? 1u : 0u, values[0]};
#pragma unroll
    for (int j = 1; j < Items; ++j) items[j] = pair_op(items[j - 1], pair{heads[j] ? 1u : 0u, values[j]});
    pair carry, total;
    block_scan(temp).ExclusiveScan(items[Items - 1], carry, pair_op, total);  // thread 0's carry is undefined
#pragma unroll
    for (int j = 0; j < Items; ++j) {
      const pair scanned = threadIdx.x == 0 ? items[j] : pair_op(carry, items[j]);
      values[j] = scanned.value;
      run[j] = scanned.heads - 1;
    }
    return total.heads;
  }
};

}  // namespace sluice::block
