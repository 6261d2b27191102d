// sluice/detail/reduce/segment_passes.cuh: the multi-pass wrapper of the seed strategies (DTU
// Listing 5.5, Palik §3.5 "grid level by a second launch"), written once.
//
// A pass cuts its input into segments of a strategy-chosen length and reduces each to one partial,
// in segment order; the partials are the next pass's input, until a pass has a single segment, which
// applies `init` and writes the result. A block reduction strategy is a class
//
//   struct Block {
//     static constexpr int threads;                      // block size (a power of two, ≥ 64)
//     struct TempStorage;                                // its shared memory
//     template <class P, class Op>                       // P: const T* or T* (the global tree writes)
//     __device__ static T reduce(P segment, size_t length, Op op, TempStorage&);  // length ≥ 1,
//   };                                                   // result valid in thread 0
//
// Fixes of the DTU wrapper (Appendix B): segments per pass by ceiling division, the final pass over
// exactly the partials left, no cudaMalloc/cudaFree in the loop (two stream-ordered buffers from the
// context's pool, alternating: pass k + 2 has fewer partials than pass k), and never the caller's
// input as scratch.
//
// Grids: at most one wave of resident blocks (from the occupancy calculator and the SM count); a block
// takes segments blockIdx.x, blockIdx.x + gridDim.x, … so that any number of segments (n ≥ 2^31 with
// one element per thread gives 2^23 of them) fits in a grid the device can hold.
//
// Traffic of a pass over m elements with segments of L: m·sizeof(T) read, ⌈m/L⌉·sizeof(T) written.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/device_buffer.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/detail/reduce/common.cuh>

#include <cuda/std/cstddef>

#include <algorithm>
#include <cstddef>

namespace sluice::detail::reduce {

/// out[s] = Block::reduce of segment s of in[0, count) (segments of `segment` elements, the last one
/// shorter); with ApplyInit (a single segment), op(init, total).
template <class Block, bool ApplyInit, class P, class T, class Op>
__global__ void __launch_bounds__(Block::threads)
    reduce_segments_kernel(P in, cuda::std::size_t count, cuda::std::size_t segment, T* __restrict__ out, T init,
                           Op op) {
  __shared__ typename Block::TempStorage temp;
  const cuda::std::size_t segments = (count + segment - 1) / segment;
  for (cuda::std::size_t s = blockIdx.x; s < segments; s += gridDim.x) {
    const cuda::std::size_t begin = s * segment;
    const cuda::std::size_t length = count - begin < segment ? count - begin : segment;
    const T total = Block::reduce(in + begin, length, op, temp);
    if (threadIdx.x == 0) out[s] = ApplyInit ? op(init, total) : total;
    __syncthreads();  // temp is reused by the next segment
  }
}

/// Segment length of the DTU strategies: one element per thread, as many passes as it takes
/// (⌈log_Threads n⌉).
template <int Threads>
struct one_element_per_thread {
  [[nodiscard]] std::size_t operator()(std::size_t, std::size_t) const { return Threads; }
};

/// Segment length of the Palik strategies (§3.4/§3.5, two levels): at most one wave of blocks, each
/// over a contiguous segment; one block once the input is no larger than a wave (or a block), so the
/// second pass, over at most a wave of partials, is the last.
template <int Threads>
struct one_wave_of_segments {
  [[nodiscard]] std::size_t operator()(std::size_t count, std::size_t wave) const {
    if (count <= std::max<std::size_t>(wave, Threads)) return count;
    return ceil_div(count, std::min(wave, ceil_div(count, Threads)));
  }
};

template <class Block, bool ApplyInit, class P, class T, class Op>
void launch_segments(context& ctx, P in, std::size_t count, std::size_t segment, T* out, T init, Op op) {
  const auto kernel = reduce_segments_kernel<Block, ApplyInit, P, T, Op>;
  const std::size_t grid = one_wave_grid(ctx, kernel, Block::threads, ceil_div(count, segment));
  kernel<<<static_cast<unsigned>(grid), Block::threads, 0, ctx.stream()>>>(in, count, segment, out, init, op);
  SLUICE_CHECK_LAUNCH();
}

/// *out = init ⊕ (fold of in[0, n)) by passes of Block over segments of segment_length(count, wave)
/// elements (wave: resident blocks of the kernel on the whole device). segment_length must be ≥ 2 for
/// count ≥ 2 and return count for the last pass.
template <class Block, class P, class T, class Op, class SegmentLength>
void reduce_in_passes(context& ctx, P in, std::size_t n, T* out, T init, Op op, SegmentLength segment_length) {
  if (n == 0) {
    store_init(ctx, out, init);
    return;
  }
  const std::size_t wave = static_cast<std::size_t>(ctx.properties().sm_count) *
                           resident_blocks_per_sm(reduce_segments_kernel<Block, false, P, T, Op>, Block::threads);
  auto partials_after = [&](std::size_t count) { return ceil_div(count, segment_length(count, wave)); };
  const std::size_t first = partials_after(n);
  if (first == 1) {
    launch_segments<Block, true>(ctx, in, n, n, out, init, op);
    return;
  }
  const std::size_t second = partials_after(first);
  device_buffer<T> scratch(ctx, first + (second > 1 ? second : 0));  // stream-ordered from the context's pool
  T* const buffers[2] = {scratch.data(), scratch.data() + first};
  P source = in;
  std::size_t count = n;
  for (int pass = 0;; ++pass) {
    const std::size_t segment = segment_length(count, wave);
    if (segment >= count) {
      launch_segments<Block, true>(ctx, source, count, count, out, init, op);
      return;
    }
    T* const target = buffers[pass % 2];
    launch_segments<Block, false>(ctx, source, count, segment, target, init, op);
    source = target;
    count = ceil_div(count, segment);
  }
}

}  // namespace sluice::detail::reduce
