// sluice/warp/reduce.cuh: order-preserving reduction across the lanes of a warp, by shuffles
// (Palik §3.5, the warp level of the three-level reduction, with __shfl_down_sync in place of the
// seed's warp-synchronous shared memory).
//
// Step k (offset 2^k = 1, 2, 4, 8, 16) combines each lane's value with the value of lane + 2^k, own
// value on the left: afterwards lane l holds x[l] ⊕ … ⊕ x[l + 2^(k+1) − 1]. Lane 0 ends with the fold
// of the whole warp in lane order, so non-commutative operators (affine maps, matrix products) keep
// their meaning. Halving offsets (16 down to 1), the usual commutative form, would pair lane 0 with
// lane 16 first and are not used here.
//
// Cost: 5 steps, each ⌈sizeof(T)/4⌉ 32-bit shuffles (warp/shuffle.cuh moves any trivially copyable
// T word by word) and one application of ⊕. Depth 5; no shared memory.
//
// All 32 lanes must call it together (the shuffles use the full mask): a block whose size is a
// multiple of 32, called outside divergent code. Lanes that hold no value take part in the shuffles
// but are never combined, so a partial warp needs no identity element.
//
//   // inside a kernel, every lane holding one value, lanes in index order:
//   const T total = sluice::warp::reduce(value, op);            // valid in lane 0
//   const T head = sluice::warp::reduce(value, op, used_lanes);  // lanes [0, used_lanes) only
//
// fold_peers() reduces groups of lanes instead (peers: the lanes whose item shares this lane's bucket or
// key, warp/bucket.cuh): each group's lowest lane, its leader, ends with the group's values folded in lane
// order. One bucket in all 32 lanes takes reduce(); otherwise the leaders gather their peers one shuffle at
// a time, as many rounds as the largest group has lanes after its leader (none when every key differs).
//
//   const unsigned peers = sluice::warp::match_peers(sluice::warp::full_mask, valid, id);
//   sluice::warp::fold_peers(peers, value, op, [&](T fold) { set[id] = op(set[id], fold); });
#pragma once

#include <sluice/warp/shuffle.cuh>

namespace sluice::warp {

/// x[0] ⊕ x[1] ⊕ … ⊕ x[valid_lanes − 1], where x[l] is the `value` of lane l, combined in lane order;
/// valid in lane 0 (other lanes hold partial folds). valid_lanes in [0, 32]: lanes at or past it
/// contribute nothing (0 leaves every value as it was, which suits a warp with nothing to reduce).
template <class T, class Op>
__device__ __forceinline__ T reduce(T value, Op op, int valid_lanes = size) {
  const int lane = lane_id();
#pragma unroll
  for (int offset = 1; offset < size; offset *= 2) {
    const T later = shuffle_down(value, offset, full_mask);
    if (lane + offset < valid_lanes) value = op(value, later);
  }
  return value;
}

/// For each group of peers (lanes in `peers`, this lane among them; 0 for a lane without an item), the
/// group's values folded in lane order, handed to at_leader(fold) in the group's lowest lane. All 32
/// lanes must call it together.
template <class T, class Op, class AtLeader>
__device__ __forceinline__ void fold_peers(unsigned peers, T value, Op op, AtLeader at_leader) {
  const int lane = lane_id();
  if (__all_sync(full_mask, peers == full_mask)) {  // one group of 32
    value = reduce(value, op);
    if (lane == 0) at_leader(value);
    return;
  }
  const bool leader = peers != 0u && __ffs(peers) - 1 == lane;
  unsigned later = leader ? peers & (peers - 1u) : 0u;  // the leader's peers after it, lowest first
  while (__any_sync(full_mask, later != 0u)) {
    const int source = later != 0u ? __ffs(later) - 1 : lane;
    const T next = broadcast(value, source);  // lanes other than leaders never change `value`
    if (later != 0u) {
      value = op(value, next);
      later &= later - 1u;
    }
  }
  if (leader) at_leader(value);
}

}  // namespace sluice::warp
