// sluice/detail/multiscan/sheffler.cuh: Sheffler's work-efficient PRAM multiprefix (SPAA '93) as Eilers
// adapted it (§5.4), in the variant with partitioning in global memory (§5.4.2) inside the partitioning
// scheme (Alg. 5.2). Order-preserving for any associative operator; any m. A research strategy, kept so
// that the thesis's experiment can be rerun: automatic never picks it, because it is slow (below).
//
// A segment of side² elements (side = 32: one warp, one block) is a square of nodes, row r holding the
// elements r · side … r · side + side − 1 (row 0 at the bottom: the earliest elements, column c the c-th
// of its row). Every node and every bucket has a spinerec {rowsum, spinesum, spine, is_spine} in global
// memory; labels and values are staged in shared memory, since the phases use each twice, once by row
// and once by column (§5.4). The phases, every step of which ends in a barrier (the thesis's PRAM steps;
// __syncwarp, the block being one warp):
//   init       each node's and each present bucket's rowsum and spinesum = e; a bucket's spine = itself.
//   spinetree  rows top to bottom, lane = column: node.spine = bucket.spine, then bucket.spine = node
//              (a row's concurrent writes to one bucket: any one wins, ARBITRARY CRCW). Every node now
//              points at a node of its label in the nearest row above that has one, or at its bucket;
//              the nodes of a label in one row share that target, and different rows have different ones.
//   rowsum     columns left to right, lane = row: node.spine→rowsum ⊕= value (columns in order: index
//              order), and node.spine→is_spine = true. No step writes one spinerec twice.
//   spinesum   rows bottom to top, lane = column: every spine node (one pointed at) sets
//              node.spine→spinesum = node.spinesum ⊕ node.rowsum; a row's nodes of a label point at one
//              target, and only the winner among them is a spine node, so each target gets one write.
//              A spine node's spinesum is now the ⊕ of its label over the rows below the row pointing at it.
//   multisum   columns left to right, lane = row: result = node.spine→spinesum (the segment's exclusive
//              multiscan), node.spine→spinesum ⊕= value; each bucket's spinesum ends as the segment's total.
// The identity bug (§5.4): Sheffler tests "rowsum ≠ e" to find the spine nodes in the spinesum phase. A
// spine node whose row below holds only identities of its label (+ over zeros, identity maps) fails that
// test and does not pass its spinesum up, so every row above loses everything below it: the algorithm as
// published is correct only when no value equals the identity. Here the rowsum phase marks every spinerec
// it updates with an explicit is_spine flag, which the spinesum phase tests instead.
// Partitioning: each block owns a contiguous range of segments and a running bucket set,
// partials[block · m + k] in global memory. After a segment's phases every element's result is
// running[k] ⊕ local (the prefix on the left), then each present bucket's running value advances by the
// segment's total (done by one node: the bucket's final spine, the winner of the bottom row holding it).
// The blocks' sets are scanned across blocks and the prefixes folded in (common.cuh). The thesis wrote
// every segment's bucket set out (nSegments · m partials: "shorter segments run out of global memory");
// the running set shrinks that by the segments per block, as block_sort_segmented does with its tiles.
// The thesis's best was side = 16 (256-element segments), where the partitioning did most of the work;
// side = 32 here fills the warp (a 16-thread block leaves half of it idle, and sm_90's 32 resident blocks
// per SM would cap residency at 512 threads) and makes every barrier a __syncwarp.
// Memory: per block side² + m spinerecs and m running values; one wave of blocks, within
// bucket_set_budget. The segment's elements are staged before any result is written, so out may be values.
// Traffic: labels and values read once, out written once, then step 3 as for every partitioned strategy;
// per element a constant number of spinerec accesses, but each phase step is a dependent global access
// followed by a barrier: 5 · side steps per segment. O(n) work, O(side) steps per segment.
// Why it is slow (the thesis: > 4 ns per pair even with few buckets in global memory, and in shared memory
// slightly worse than the sequential CPU in every case; abandoned): pointer chasing with hardly any
// arithmetic between the accesses; a barrier after every row or column step, which leaves the scheduler
// little to hide the latency with; the column phases touch spinerecs a row apart, so no layout of them
// serves both the row and the column phases (only the staged labels and values, skewed by a slot per row,
// are conflict-free both ways); label and value are each used twice.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/core/operators.hpp>
#include <sluice/core/scratch.hpp>
#include <sluice/detail/multireduce/common.cuh>
#include <sluice/detail/multireduce/sorted_tile.cuh>
#include <sluice/detail/multiscan/common.cuh>
#include <sluice/warp/shuffle.cuh>

#include <cuda/std/cstddef>
#include <cuda/std/cstdint>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace sluice::detail::multiscan {

/// Side of a segment's square of nodes, and the threads of a block (one warp).
inline constexpr int sheffler_side = 32;
inline constexpr int sheffler_area = sheffler_side * sheffler_side;

/// A spine pointer to the node's own label's bucket (a bucket's spine starts as itself).
inline constexpr std::uint32_t to_bucket = 0xffffffffu;

/// Listing 5.1, with the pointer as a node index (or to_bucket) and the flag that fixes the identity bug.
template <class T>
struct spinerec {
  T rowsum;
  T spinesum;
  std::uint32_t spine;
  std::uint32_t is_spine;  ///< some node points here (set in the rowsum phase)
};

/// A block's spinerecs: side² nodes, m buckets.
template <class T>
struct spine_forest {
  spinerec<T>* nodes;
  spinerec<T>* buckets;

  /// The spinerec that node i (of bucket k) points at.
  SLUICE_HOST_DEVICE spinerec<T>& spine_of(std::uint32_t i, std::uint32_t k) const {
    const std::uint32_t spine = nodes[i].spine;
    return spine == to_bucket ? buckets[k] : nodes[spine];
  }
};

// One lane's part of one step of each phase (header comment), on node i of bucket k < m.

template <class T, class Op>
SLUICE_HOST_DEVICE void sheffler_init(spine_forest<T> forest, std::uint32_t i, std::uint32_t k) {
  const T e = identity<Op, T>();
  forest.nodes[i] = {e, e, to_bucket, 0};
  forest.buckets[k] = {e, e, to_bucket, 0};  // the same bits from every node of bucket k
}

/// Spinetree, first half of a row's step: where the row's nodes of bucket k will point.
template <class T>
SLUICE_HOST_DEVICE std::uint32_t spinetree_target(spine_forest<T> forest, std::uint32_t k) {
  return forest.buckets[k].spine;
}

/// Spinetree, second half: node i points there, and the bucket at (one of) the row's nodes.
template <class T>
SLUICE_HOST_DEVICE void spinetree_link(spine_forest<T> forest, std::uint32_t i, std::uint32_t k, std::uint32_t target) {
  forest.nodes[i].spine = target;
  forest.buckets[k].spine = i;
}

template <class T, class Op>
SLUICE_HOST_DEVICE void rowsum_step(spine_forest<T> forest, std::uint32_t i, std::uint32_t k, const T& value, Op op) {
  spinerec<T>& target = forest.spine_of(i, k);
  target.rowsum = op(target.rowsum, value);
  target.is_spine = 1;
}

/// Spinesum with the fix: the is_spine flag, not Sheffler's rowsum ≠ e.
template <class T, class Op>
SLUICE_HOST_DEVICE void spinesum_step(spine_forest<T> forest, std::uint32_t i, std::uint32_t k, Op op) {
  const spinerec<T>& node = forest.nodes[i];
  if (node.is_spine) forest.spine_of(i, k).spinesum = op(node.spinesum, node.rowsum);
}

/// Multisum: node i's exclusive result within the segment.
template <class T, class Op>
SLUICE_HOST_DEVICE T multisum_step(spine_forest<T> forest, std::uint32_t i, std::uint32_t k, const T& value, Op op) {
  spinerec<T>& target = forest.spine_of(i, k);
  const T before = target.spinesum;
  target.spinesum = op(before, value);
  return before;
}

/// The segment's shared-memory staging: bucket ids (m: dropped or past n), and the values, which the
/// multisum phase replaces by the local results. Node i = row · side + column lies at slot
/// row · (side + 1) + column, so that a row (the row phases) and a column (the column phases) both fall
/// into distinct banks.
template <class T>
struct sheffler_storage {
  static constexpr int pitch = sheffler_side + 1;
  std::uint32_t id_slots[sheffler_side * pitch];
  alignas(T) unsigned char value_bytes[sheffler_side * pitch * sizeof(T)];

  __device__ static unsigned slot(std::uint32_t i) { return i + i / sheffler_side; }
  __device__ std::uint32_t& id(std::uint32_t i) { return id_slots[slot(i)]; }
  __device__ std::uint32_t id(std::uint32_t i) const { return id_slots[slot(i)]; }
  __device__ T& value(std::uint32_t i) { return reinterpret_cast<T*>(value_bytes)[slot(i)]; }
  __device__ const T& value(std::uint32_t i) const { return reinterpret_cast<const T*>(value_bytes)[slot(i)]; }
};

__device__ __forceinline__ void sheffler_barrier() { __syncwarp(warp::full_mask); }

/// The segment at `offset` into shared memory; returns how many of its labels are dropped.
template <class L, class Values, class T>
__device__ unsigned stage_segment(const L* labels, Values values, cuda::std::size_t n, std::uint32_t m,
                                  cuda::std::size_t offset, sheffler_storage<T>& storage) {
  unsigned dropped = 0;
  for (unsigned i = threadIdx.x; i < sheffler_area; i += sheffler_side) {
    const cuda::std::size_t g = offset + i;
    std::uint32_t k = m;
    if (g < n) {
      k = multireduce::bucket_of(labels[g], m);
      dropped += k == m;
      storage.value(i) = values[g];
    }
    storage.id(i) = k;
  }
  return dropped;
}

template <class T, class Op>
__device__ void init_spinerecs(spine_forest<T> forest, const sheffler_storage<T>& storage, std::uint32_t m) {
  for (unsigned i = threadIdx.x; i < sheffler_area; i += sheffler_side)
    if (storage.id(i) < m) sheffler_init<T, Op>(forest, i, storage.id(i));
}

/// Rows top to bottom, lane = column; two barriers per row: the row reads before any of it writes.
template <class T>
__device__ void build_spinetree(spine_forest<T> forest, const sheffler_storage<T>& storage, std::uint32_t m) {
  for (int row = sheffler_side - 1; row >= 0; --row) {
    const std::uint32_t i = row * sheffler_side + threadIdx.x;
    const std::uint32_t k = storage.id(i);
    const std::uint32_t target = k < m ? spinetree_target(forest, k) : to_bucket;
    sheffler_barrier();
    if (k < m) spinetree_link(forest, i, k, target);
    sheffler_barrier();
  }
}

/// Columns left to right, lane = row.
template <class T, class Op>
__device__ void sum_rows(spine_forest<T> forest, sheffler_storage<T>& storage, std::uint32_t m, Op op) {
  for (int column = 0; column < sheffler_side; ++column) {
    const std::uint32_t i = threadIdx.x * sheffler_side + column;
    if (storage.id(i) < m) rowsum_step(forest, i, storage.id(i), storage.value(i), op);
    sheffler_barrier();
  }
}

/// Rows bottom to top, lane = column.
template <class T, class Op>
__device__ void sum_spines(spine_forest<T> forest, const sheffler_storage<T>& storage, std::uint32_t m, Op op) {
  for (int row = 0; row < sheffler_side; ++row) {
    const std::uint32_t i = row * sheffler_side + threadIdx.x;
    if (storage.id(i) < m) spinesum_step(forest, i, storage.id(i), op);
    sheffler_barrier();
  }
}

/// Columns left to right, lane = row: each staged value becomes its local exclusive (or inclusive) result.
template <class T, class Op>
__device__ void multisum(spine_forest<T> forest, sheffler_storage<T>& storage, std::uint32_t m, bool inclusive, Op op) {
  for (int column = 0; column < sheffler_side; ++column) {
    const std::uint32_t i = threadIdx.x * sheffler_side + column;
    if (storage.id(i) < m) {
      T& value = storage.value(i);
      const T before = multisum_step(forest, i, storage.id(i), value, op);
      value = inclusive ? op(before, value) : before;
    }
    sheffler_barrier();
  }
}

/// Alg. 5.2 within the block: out = running[k] ⊕ local, then the running set advances by the segment's
/// bucket totals (each by the bucket's final spine node, one per present bucket).
template <class T, class O, class Op>
__device__ void fold_segment(spine_forest<T> forest, const sheffler_storage<T>& storage, std::uint32_t m, T* running,
                             cuda::std::size_t offset, cuda::std::size_t n, O* out, Op op) {
  for (unsigned i = threadIdx.x; i < sheffler_area && offset + i < n; i += sheffler_side) {
    const std::uint32_t k = storage.id(i);
    out[offset + i] = static_cast<O>(k < m ? op(running[k], storage.value(i)) : identity<Op, T>());
  }
  sheffler_barrier();  // every result has read its bucket's running value
  for (unsigned i = threadIdx.x; i < sheffler_area; i += sheffler_side) {
    const std::uint32_t k = storage.id(i);
    if (k < m && forest.buckets[k].spine == i) running[k] = op(running[k], forest.buckets[k].spinesum);
  }
  sheffler_barrier();  // before the next segment restages and reinitialises
}

/// Step 1: one warp per block runs the phases over each of its segments in order (header comment).
template <class L, class Values, class T, class O, class Op>
__global__ void __launch_bounds__(sheffler_side)
    sheffler_multiscan_kernel(const L* __restrict__ labels, Values values, cuda::std::size_t n, std::uint32_t m,
                              cuda::std::size_t segments_per_block, spinerec<T>* __restrict__ records,
                              T* __restrict__ partials, scan_outputs<T, O> outputs, Op op, std::size_t* dropped) {
  extern __shared__ __align__(16) unsigned char dynamic_shared[];
  auto& storage = *reinterpret_cast<sheffler_storage<T>*>(dynamic_shared);
  spinerec<T>* mine = records + blockIdx.x * (cuda::std::size_t{sheffler_area} + m);
  const spine_forest<T> forest{mine, mine + sheffler_area};
  T* running = partials + blockIdx.x * cuda::std::size_t{m};
  for (std::uint32_t k = threadIdx.x; k < m; k += sheffler_side) running[k] = identity<Op, T>();
  unsigned long long mine_dropped = 0;
  const multireduce::block_tiles segments(n, sheffler_area, segments_per_block);
  for (cuda::std::size_t s = segments.first; s < segments.last; ++s) {
    const cuda::std::size_t offset = s * sheffler_area;
    mine_dropped += stage_segment(labels, values, n, m, offset, storage);
    sheffler_barrier();  // staged (and, the first time, the running set is the identity)
    init_spinerecs<T, Op>(forest, storage, m);
    sheffler_barrier();
    build_spinetree(forest, storage, m);
    sum_rows(forest, storage, m, op);
    sum_spines(forest, storage, m, op);
    multisum(forest, storage, m, outputs.inclusive, op);
    fold_segment(forest, storage, m, running, offset, n, outputs.out, op);
  }
  multireduce::add_dropped(mine_dropped, dropped);
}

template <class L, class Values, class T, class O, class Op>
void run_sheffler(context& ctx, const L* labels, Values values, std::size_t n, std::uint32_t m, Op op,
                  scan_outputs<T, O> outputs, std::size_t* dropped) {
  auto kernel = sheffler_multiscan_kernel<L, Values, T, O, Op>;
  constexpr std::size_t shared_bytes = sizeof(sheffler_storage<T>);
  SLUICE_CUDA_CHECK(
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared_bytes)));
  const std::size_t segments = ceil_div(n, sheffler_area);
  const std::size_t block_bytes = (sheffler_area + std::size_t{m}) * sizeof(spinerec<T>) + std::size_t{m} * sizeof(T);
  const std::size_t most = std::max<std::size_t>(1, bucket_set_budget(ctx) / block_bytes);
  const std::size_t segments_per_block =
      ceil_div(segments, std::min(most, one_wave_grid(ctx, kernel, sheffler_side, segments, shared_bytes)));
  const std::size_t blocks = ceil_div(segments, segments_per_block);
  scratch<spinerec<T>> records(ctx, blocks * (sheffler_area + std::size_t{m}));
  scratch<T> partials(ctx, blocks * m);
  kernel<<<static_cast<unsigned>(blocks), sheffler_side, shared_bytes, ctx.stream()>>>(
      labels, values, n, m, segments_per_block, records.get(), partials.get(), outputs, op, dropped);
  SLUICE_CHECK_LAUNCH();
  scan_and_fold_segments(ctx, labels, n, m, partials.get(), partial_layout::segment_major(m), blocks,
                         segments_per_block * sheffler_area, outputs, op);
}

}  // namespace sluice::detail::multiscan
