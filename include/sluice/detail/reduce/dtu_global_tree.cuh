// sluice/detail/reduce/dtu_global_tree.cuh: strategy dtu_global_tree, DTU report §5.3 Listing 5.4
// ("global"): the sequential-addressing tree run in global memory, one element per thread, each block
// leaving its segment's fold in the segment's first element; the multi-pass wrapper (Listing 5.5)
// repeats over the partials.
//
// Fixed from the seed: the tree runs on a scratch copy of the input from the context's pool, never on
// the caller's data (the report reduced d_in in place); any segment length (guard t + s < count, not a
// power of two); the wrapper's sizing bugs (segment_passes.cuh). Later passes run in place on the
// partials, which are sluice's own scratch.
//
// Operator: commutative only (sequential addressing reorders).
// Work O(n); depth O(n/(grid·Threads)·log Threads + log n) over ⌈log_Threads n⌉ passes. Traffic: the
// copy (n·sizeof(T) read and written), then at stride s each segment reads 2s elements and writes s:
// up to 2·n·sizeof(T) read and n·sizeof(T) written over the tree (much of it hits L2). The slowest
// strategy by design: the report's comparison point for dtu_shared_tree.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/device_buffer.hpp>
#include <sluice/core/error.hpp>
#include <sluice/detail/reduce/segment_passes.cuh>
#include <sluice/detail/reduce/sequential_addressing.cuh>
#include <sluice/detail/reduce/tuning.hpp>

#include <cuda/std/cstddef>
#include <cuda/std/span>

namespace sluice::detail::reduce {

template <class T, int Threads>
struct dtu_global_tree_block {
  static constexpr int threads = Threads;
  struct TempStorage {};  // the tree lives in global memory

  template <class Op>
  __device__ static T reduce(T* segment, cuda::std::size_t length, Op op, TempStorage&) {
    sequential_addressing_steps(segment, static_cast<int>(length), Threads / 2, 1, op, block_barrier{});
    return segment[0];
  }
};

template <class T, class Op>
void dtu_global_tree(context& ctx, cuda::std::span<const T> in, T* out, T init, Op op) {
  constexpr int threads = tuning::tree_threads;
  device_buffer<T> copy(ctx, in.size());  // stream-ordered from the context's pool
  if (!in.empty())
    SLUICE_CUDA_CHECK(
        cudaMemcpyAsync(copy.data(), in.data(), in.size_bytes(), cudaMemcpyDeviceToDevice, ctx.stream()));
  reduce_in_passes<dtu_global_tree_block<T, threads>>(ctx, copy.data(), in.size(), out, init, op,
                                                      one_element_per_thread<threads>{});
}

}  // namespace sluice::detail::reduce
