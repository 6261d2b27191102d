// sluice/detail/multireduce/warp_private_sets.cuh: order-preserving multireduce by the sequential loop
// over private bucket sets (Eilers §4.3, "non-commutative adaptation of the sequential algorithm"), with
// one set per warp where the seed had one per thread. Any associative operator; non-commutative ones
// get the oracle's bits.
//
// The seed's shared-memory version (§4.3b) gave each thread a contiguous sub-segment and a private set
// of m buckets: at 256 buckets one 32-thread block filled an SM (2.46 ns/pair, "a dead end": problem 2,
// too many private sets). Since Volta the 32 lanes of a warp can learn which of them hold the same
// bucket in one instruction (__match_any_sync, warp/bucket.cuh), so a warp can run the sequential
// loop 32 pairs at a time and one set per warp suffices, 32× less shared memory than the seed's:
//   warp   owns a contiguous range of the input and walks it in windows of 32 consecutive pairs, in
//          order (lane l takes pair l: coalesced, no transpose). Lanes holding the same bucket (peers)
//          fold their values in lane order onto the lowest of them, the leader; the leader folds that
//          onto the warp's set, set[b] = set[b] ⊕ fold. Leaders of one window hold distinct buckets,
//          so no atomics. A window whose 32 pairs share one bucket takes the 5-step lane-order warp
//          reduction; otherwise the leaders gather their peers one shuffle at a time, as many rounds as
//          the largest peer group has members after its leader (uniform labels at m ≥ 256: mostly 0–1).
//   block  8 warps over consecutive ranges; their sets fold in warp order into partials[block · m + b].
//   grid   one wave of blocks over consecutive ranges; the partials fold in block order onto out
//          (block_partials.cuh, shared with the vector strategy).
// Work: one match, ⊕ once per pair plus the shuffles of the peer rounds, one shared read and write per
// distinct bucket of a window. Traffic: labels and values read once; blocks · m partials written and
// read once. Shared memory: 8 · m values per block (plan.hpp: warp_sets_shared_bytes), which bounds m.
// Deterministic: every fold's order is fixed by n, m and the launch shape.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/core/operators.hpp>
#include <sluice/core/scratch.hpp>
#include <sluice/detail/multireduce/block_partials.cuh>
#include <sluice/detail/multireduce/common.cuh>
#include <sluice/detail/multireduce/plan.hpp>  // warp_sets_shared_bytes
#include <sluice/detail/multireduce/tuning.hpp>
#include <sluice/warp/bucket.cuh>
#include <sluice/warp/reduce.cuh>

#include <cuda/std/cstddef>
#include <cuda/std/cstdint>
#include <cuda/std/functional>  // cuda::std::min

#include <cstddef>
#include <cstdint>
#include <string>

namespace sluice::detail::multireduce {

inline constexpr int warp_sets_threads = tuning::warp_sets_warps * warp::size;

/// Folds one window of 32 consecutive pairs onto the warp's set in lane order (header comment). Every
/// lane of the warp calls it; `valid`: the lane holds a pair whose bucket b is below m.
template <class T, class Op>
__device__ __forceinline__ void fold_window(T* set, bool valid, std::uint32_t b, T value, Op op) {
  const unsigned peers = warp::match_peers(warp::full_mask, valid, b);
  warp::fold_peers(peers, value, op, [&](const T& fold) { set[b] = op(set[b], fold); });
  __syncwarp();  // the next window's leaders read what this window's wrote
}

/// Warp g = blockIdx.x · warp_sets_warps + w folds pairs [g · pairs_per_warp, (g + 1) · pairs_per_warp)
/// onto its set in dynamic shared memory; the block writes its warps' sets, folded in warp order, to
/// partials[blockIdx.x · m + k].
template <class L, class T, class Op>
__global__ void __launch_bounds__(warp_sets_threads)
    warp_private_sets_kernel(const L* __restrict__ labels, const T* __restrict__ values, cuda::std::size_t n,
                             std::uint32_t m, cuda::std::size_t pairs_per_warp, T* __restrict__ partials, Op op,
                             std::size_t* dropped) {
  constexpr int warps = tuning::warp_sets_warps;
  constexpr int lookahead = tuning::warp_sets_lookahead;  // windows of 32 pairs loaded before the first fold
  extern __shared__ __align__(16) unsigned char warp_sets_storage[];
  T* const sets = reinterpret_cast<T*>(warp_sets_storage);
  for (std::uint32_t k = threadIdx.x; k < warps * m; k += warp_sets_threads) sets[k] = identity<Op, T>();
  __syncthreads();

  const int w = static_cast<int>(threadIdx.x) / warp::size;
  const int lane = warp::lane_id();
  const cuda::std::size_t g = blockIdx.x * cuda::std::size_t{warps} + w;
  const cuda::std::size_t begin = cuda::std::min(n, g * pairs_per_warp);
  const cuda::std::size_t end = cuda::std::min(n, begin + pairs_per_warp);
  constexpr int step = lookahead * warp::size;
  unsigned long long mine_dropped = 0;
  for (cuda::std::size_t base = begin; base < end; base += step) {  // warp-uniform bounds
    L label[lookahead];
    T value[lookahead];
#pragma unroll
    for (int u = 0; u < lookahead; ++u) {
      const cuda::std::size_t i = base + u * warp::size + lane;
      if (i < end) {
        label[u] = labels[i];
        value[u] = values[i];
      }
    }
#pragma unroll
    for (int u = 0; u < lookahead; ++u) {
      const bool in = base + u * warp::size + lane < end;
      const std::uint32_t b = in ? bucket_of(label[u], m) : m;
      mine_dropped += in && b == m;
      fold_window(sets + w * m, b < m, b, in ? value[u] : identity<Op, T>(), op);
    }
  }

  __syncthreads();
  for (std::uint32_t k = threadIdx.x; k < m; k += warp_sets_threads) {
    T total = sets[k];
    for (int v = 1; v < warps; ++v) total = op(total, sets[v * m + k]);
    partials[blockIdx.x * cuda::std::size_t{m} + k] = total;
  }
  add_dropped(mine_dropped, dropped);
}

/// The warp_private_sets strategy. m must fit (plan.hpp: strategy_problem rejects a larger explicit
/// request before out is touched); this check guards callers that bypass it.
template <class L, class T, class Op>
void run_warp_private_sets(context& ctx, const L* labels, const T* values, std::size_t n, T* out, std::uint32_t m,
                           Op op, std::size_t* dropped) {
  constexpr int warps = tuning::warp_sets_warps;
  const std::size_t shared_bytes = warp_sets_shared_bytes(m, sizeof(T));
  const shared_budget budget = device_shared_budget(ctx, 0);
  if (shared_bytes > budget.per_block)
    throw invalid_argument("multireduce", "options",
                           "warp_private_sets keeps " + std::to_string(warps) + " sets of m buckets per block: " +
                               std::to_string(shared_bytes) + " bytes at m = " + std::to_string(m) + ", more than the " +
                               std::to_string(budget.per_block) + " this device gives a block");
  if (n == 0) return;
  auto kernel = warp_private_sets_kernel<L, T, Op>;
  SLUICE_CUDA_CHECK(
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared_bytes)));
  constexpr std::size_t step = std::size_t{tuning::warp_sets_lookahead} * warp::size;
  const std::size_t wave = one_wave_grid(ctx, kernel, warp_sets_threads, ceil_div(n, step * warps), shared_bytes);
  const std::size_t pairs_per_warp = ceil_div(ceil_div(n, wave * warps), step) * step;
  const std::size_t blocks = ceil_div(n, pairs_per_warp * warps);
  scratch<T> partials(ctx, blocks * m);
  kernel<<<static_cast<unsigned>(blocks), warp_sets_threads, shared_bytes, ctx.stream()>>>(
      labels, values, n, m, pairs_per_warp, partials.get(), op, dropped);
  SLUICE_CHECK_LAUNCH();
  fold_block_partials(ctx, partials.get(), blocks, m, out, op);
}

}  // namespace sluice::detail::multireduce
