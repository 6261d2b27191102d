// sluice/detail/merge_sort/segmented.cuh: segmented_sort, a stable comparison sort of every segment
// (offsets, as segmented.cuh defines them) with many tiny segments and a few huge ones in one call.
//
// Segments are bucketed by size as cub::DeviceSegmentedSort does (tiers in segmented_plan.hpp, limits in
// tuning.hpp), so that a tiny segment never holds a whole block:
//   classify   a stable three-way partition of the segment ids by tier (detail/select's
//              partition_3way; one counting pass and one scatter pass over the ids)
//   lanes      a few lanes of a warp sort a segment of up to lanes × E keys (block::sort_tile over a
//              lane_group: odd-even network in registers, merge rounds in shared memory)
//   warp       a whole warp sorts a segment of up to 32 × E keys, the same way
//   tiles      larger segments: the tiles of every such segment get consecutive slots (an inclusive scan
//              of their tile counts, and each slot's segment by binary search); the pairwise block sort
//              sorts every tile (pairwise.cuh's sort_block_tile), then ⌈log2 tiles⌉ merge rounds run
//              within each segment (pairwise.cuh's partition_tile and merge_tile) in one cooperative
//              kernel that reads the number of rounds from the device and passes a grid barrier between
//              the partition and the merge of each round; a segment that needs fewer rounds than the
//              largest drops out of the later ones, its block sort having written where its last
//              round would (rounds.hpp's writes_output)
//   outside    the positions outside [offsets.front(), offsets.back()) are copied through
// Nothing is read back to the host: every grid is sized by a bound the host knows (segment count, n) and
// every kernel loops over the counts the previous ones left on the device.
//
// Traffic: each key (and value) read and written once by its tier, and once more per merge round in
// segments of more than one tile; per segment the offsets read three times (the partition's two passes,
// the tier: 16 bytes each, half of it shared with the neighbour) and 20 bytes of ids. Temporary memory:
// 8 bytes per segment, n keys and values where n exceeds one tile (the rounds' other buffer), 32 bytes
// per tile-tier slot (its place and its split).
#pragma once

#include <sluice/block/merge_sort.cuh>
#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/core/operators.hpp>
#include <sluice/core/scratch.hpp>
#include <sluice/core/values.hpp>
#include <sluice/detail/merge_sort/pairwise.cuh>
#include <sluice/detail/merge_sort/rounds.hpp>
#include <sluice/detail/merge_sort/segmented_plan.hpp>
#include <sluice/detail/merge_sort/tuning.hpp>
#include <sluice/detail/scan/dispatch.cuh>
#include <sluice/detail/select/dispatch.cuh>

#include <cooperative_groups.h>
#include <cuda/std/cstdint>
#include <cuda/std/span>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace sluice::detail::merge_sort::segmented_sort {

using segment_id = cuda::std::uint32_t;  // segments are numbered below 2^32 − 1 (dispatch.cuh checks)

/// What every kernel reads: the keys (values) in and out and the segments.
template <class K, class V>
struct sort_io {
  const K* keys;
  const V* values;
  K* out;
  V* out_values;
  const std::size_t* offsets;
  std::size_t segments;
  std::size_t n;

  [[nodiscard]] __device__ segment_bounds bounds(segment_id s) const {
    return clamped_segment(offsets[s], offsets[std::size_t{s} + 1], n);
  }
};

/// The partition's classifier: a segment id's tier.
struct tier_of_segment {
  const std::size_t* offsets;
  std::size_t n;
  tier_limits limits;

  __device__ int operator()(segment_id s) const {
    return tier_of(clamped_segment(offsets[s], offsets[std::size_t{s} + 1], n).size, limits);
  }
};

template <class I>
__global__ void segment_ids_kernel(I* ids, std::size_t count) {
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count; i += stride)
    ids[i] = static_cast<I>(i);
}

/// Copies the positions outside [offsets.front(), offsets.back()) to the outputs.
template <class K, class V>
__global__ void copy_outside_kernel(sort_io<K, V> io) {
  const outside_span outside = outside_of(io.offsets[0], io.offsets[io.segments], io.n);
  const index_t count = outside.size();
  for (index_t i = blockIdx.x * index_t{blockDim.x} + threadIdx.x; i < count; i += index_t{gridDim.x} * blockDim.x) {
    const index_t at = outside.position(i);
    io.out[at] = io.keys[at];
    if constexpr (has_values<V>) io.out_values[at] = io.values[at];
  }
}

// ---- the group tiers -------------------------------------------------------------------------------------

/// A group tier's segments: ids[first, first + count) of the partition's output, the counts of the
/// classes before it on the device (counts[0]: tiles, counts[1]: warp; lanes are the rest).
struct tier_list {
  const segment_id* ids;
  const std::size_t* counts;
  std::size_t segments;
  tier tier_number;

  [[nodiscard]] __device__ std::size_t first() const {
    return tier_number == warp_tier ? counts[0] : counts[0] + counts[1];
  }
  [[nodiscard]] __device__ std::size_t count() const {
    return tier_number == warp_tier ? counts[1] : segments - counts[0] - counts[1];
  }
};

/// Bytes of shared memory a block of the group tier (Width lanes × Items keys a group) takes.
template <int Threads, int Width, int Items, class K, class V>
[[nodiscard]] constexpr std::size_t group_tier_shared_bytes() {
  return static_cast<std::size_t>(Threads / Width) * block::merge_sort_storage_bytes<K, V>(Width, Items);
}

/// Each group of Width lanes sorts segments of its tier, one at a time: the segment is copied into the
/// group's tile in shared memory (striped over its lanes), sorted by block::sort_tile, and stored back
/// through shared memory. Groups loop over the tier's list with the grid's group count as stride.
template <int Threads, int Width, int Items, class K, class V, class Less>
__global__ void __launch_bounds__(Threads) group_tier_kernel(sort_io<K, V> io, tier_list list, Less less) {
  using group = block::lane_group<Width>;
  extern __shared__ __align__(16) unsigned char shared[];
  constexpr int groups_per_block = Threads / Width;
  const int group_in_block = static_cast<int>(threadIdx.x) / Width;
  const auto s = block::merge_sort_storage<K, V>::carve(
      shared + static_cast<std::size_t>(group_in_block) * block::merge_sort_storage_bytes<K, V>(Width, Items), Width,
      Items);
  const int rank = group::rank();
  const std::size_t first = list.first();
  const std::size_t count = list.count();
  for (std::size_t i = std::size_t{blockIdx.x} * groups_per_block + static_cast<std::size_t>(group_in_block); i < count;
       i += std::size_t{gridDim.x} * groups_per_block) {
    const segment_bounds segment = io.bounds(list.ids[first + i]);
    constexpr index_t capacity = index_t{Width} * Items;
    const int size = static_cast<int>(segment.size < capacity ? segment.size : capacity);  // = size (its tier)
    if (size == 0) continue;  // the same for the whole group
#pragma unroll
    for (int k = 0; k < Items; ++k) {
      const int at = k * Width + rank;
      if (at < size) {
        s.keys[at] = io.keys[segment.begin + at];
        if constexpr (has_values<V>) s.values[at] = io.values[segment.begin + at];
      }
    }
    group::sync();
    K sorted[Items];
    V sorted_values[Items];
    block::sort_tile(group{}, s, size, sorted, sorted_values, less);  // ends with a barrier after its reads
    block::registers_to_shared(group{}, s, size, sorted, sorted_values);
    group::sync();
#pragma unroll
    for (int k = 0; k < Items; ++k) {
      const int at = k * Width + rank;
      if (at < size) {
        io.out[segment.begin + at] = s.keys[at];
        if constexpr (has_values<V>) io.out_values[segment.begin + at] = s.values[at];
      }
    }
    group::sync();  // the stores' shared reads are done before the next segment's loads
  }
}

// ---- the tile tier -------------------------------------------------------------------------------------------

/// The tile tier's bookkeeping on the device.
struct tile_tier_state {
  index_t* tile_end;         ///< [capacity.segments]: inclusive scan of the segments' tile counts
  slot* slots;               ///< [capacity.slots]
  unsigned long long* most;  ///< [2]: the most tiles of one segment, then the slots in use
};

/// tile_end[j] = the tiles of the tile tier's j-th segment (0 past the tier's count); most[0] = the most.
template <class K, class V>
__global__ void count_tiles_kernel(sort_io<K, V> io, const segment_id* ids, const std::size_t* counts, index_t capacity,
                                   index_t tile, tile_tier_state state) {
  const auto tier_count = static_cast<index_t>(counts[0]);
  const index_t count = tier_count < capacity ? tier_count : capacity;
  for (index_t j = blockIdx.x * index_t{blockDim.x} + threadIdx.x; j < capacity; j += index_t{gridDim.x} * blockDim.x) {
    const index_t tiles = j < count ? tiles_of(io.bounds(ids[j]).size, tile) : 0;
    state.tile_end[j] = tiles;
    if (tiles > 0) atomicMax(state.most, static_cast<unsigned long long>(tiles));
  }
}

/// slots[t] for every slot in use (slots_in_use; slot t of the tier's segment owner_of(t)); most[1] = the
/// slots in use.
template <class K, class V>
__global__ void assign_slots_kernel(sort_io<K, V> io, const segment_id* ids, const std::size_t* counts,
                                    tile_tier_capacity capacity, index_t tile, tile_tier_state state) {
  const auto tier_count = static_cast<index_t>(counts[0]);
  const index_t count = tier_count < capacity.segments ? tier_count : capacity.segments;
  const index_t used = slots_in_use(state.tile_end, count, capacity.slots);
  if (blockIdx.x == 0 && threadIdx.x == 0) state.most[1] = static_cast<unsigned long long>(used);
  for (index_t t = blockIdx.x * index_t{blockDim.x} + threadIdx.x; t < used; t += index_t{gridDim.x} * blockDim.x) {
    const index_t j = owner_of(state.tile_end, count, t);
    const segment_bounds segment = io.bounds(ids[j]);
    const index_t first_slot = state.tile_end[j] - tiles_of(segment.size, tile);
    state.slots[t] = {segment.begin, segment.size, (t - first_slot) * tile};
  }
}

/// The rounds' two buffers: the outputs and a temporary as large; a segment's block sort writes to the
/// one its last round would write (writes_output), so that its last round lands in the outputs.
template <class K, class V>
struct buffers {
  K* out;
  V* out_values;
  K* temp;
  V* temp_values;

  [[nodiscard]] SLUICE_HOST_DEVICE K* keys(int remaining) const { return writes_output(remaining) ? out : temp; }
  [[nodiscard]] SLUICE_HOST_DEVICE V* values(int remaining) const {
    return writes_output(remaining) ? out_values : temp_values;
  }
};

/// The block sort's tile source over the slots (pairwise.cuh's persistent_block_sort_kernel).
template <class K, class V>
struct slot_tiles {
  const K* keys;
  const V* values;
  buffers<K, V> to;
  const slot* slots;
  const unsigned long long* most;
  index_t tile;

  [[nodiscard]] __device__ index_t tiles() const { return static_cast<index_t>(most[1]); }
  [[nodiscard]] __device__ block_tile<K, V> tile_at(index_t t) const {
    const slot s = slots[t];
    const index_t first = s.begin + s.local;
    const int remaining = segment_rounds(s, tile);
    block_tile<K, V> job{keys + first, nullptr, static_cast<int>(tile_keys(s, tile)), to.keys(remaining) + first,
                         nullptr};
    if constexpr (has_values<V>) {
      job.in_values = values + first;
      job.out_values = to.values(remaining) + first;
    }
    return job;
  }
};

/// Round k of the tile tier (a round type of pairwise.cuh): a slot's tile merges within its segment, as
/// the pairwise sort of that segment alone would in its round k; segments that need k rounds or fewer
/// have nothing to do.
template <class K, class V>
struct slot_round {
  buffers<K, V> to;
  const slot* slots;
  index_t used;
  index_t tile;
  int round;

  [[nodiscard]] __device__ index_t tiles() const { return used; }
  [[nodiscard]] __device__ round_tile<K, V> tile_at(index_t t) const {
    const slot s = slots[t];
    const int rounds = segment_rounds(s, tile);
    if (round >= rounds) return {{}, 0, 0, nullptr, nullptr};
    const int remaining = rounds - round;
    const V* values = nullptr;
    V* out_values = nullptr;
    if constexpr (has_values<V>) {
      values = to.values(remaining) + s.begin;
      out_values = to.values(remaining - 1) + s.begin + s.local;
    }
    const runs_of_width<K, V> runs{to.keys(remaining) + s.begin, values, s.size, tile << round};
    const run_pair<K, V> pair = runs.pair_at(s.local);
    K* out = to.keys(remaining - 1) + s.begin + s.local;
    return {pair, s.local - pair.start, static_cast<int>(tile_keys(s, tile)), out, out_values};
  }
};

/// Every merge round of the tile tier in one cooperative launch: most[0] (the most tiles of a segment)
/// gives the rounds; each round partitions (a thread per slot), passes a grid barrier, repairs the splits
/// if a bad comparator made any inconsistent (block 0; another barrier), merges (a block per slot) and
/// passes a barrier. `inconsistent` holds one zeroed flag per possible round.
template <int Threads, int Items, class K, class V, class Less>
__global__ void __launch_bounds__(Threads)
    tile_rounds_kernel(buffers<K, V> to, const slot* slots, const unsigned long long* most, index_t tile,
                       index_t* splits, unsigned* inconsistent, Less less) {
  extern __shared__ __align__(16) unsigned char shared[];
  const auto s = block::merge_sort_storage<K, V>::carve(shared, Threads, Items);
  cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  const int rounds = rounds_for(static_cast<index_t>(most[0]));
  const auto used = static_cast<index_t>(most[1]);
  for (int k = 0; k < rounds; ++k) {
    const slot_round<K, V> round{to, slots, used, tile, k};
    bool bad = false;
    for (index_t t = blockIdx.x * index_t{Threads} + threadIdx.x; t < used; t += index_t{gridDim.x} * Threads)
      bad = partition_tile(round, t, splits, less) || bad;
    if (__syncthreads_or(bad) && threadIdx.x == 0) atomicOr(inconsistent + k, 1u);
    grid.sync();
    if (*static_cast<volatile unsigned*>(inconsistent + k) != 0) {  // the same in every block: set before the barrier
      if (blockIdx.x == 0) repair_round(round, splits, used);
      grid.sync();
    }
    for (index_t t = blockIdx.x; t < used; t += gridDim.x) {
      merge_tile<Threads, Items>(s, round, splits, t, less);
      __syncthreads();  // the store's shared reads are done before the next tile's loads
    }
    grid.sync();
  }
}

// ---- the plan -------------------------------------------------------------------------------------------------

/// The tier limits and launches for keys K, values V and comparator Less.
template <class K, class V, class Less>
struct sorter {
  static constexpr int threads = tuning::segment_group_threads;
  static constexpr int lanes = tuning::segment_lanes;
  static constexpr int lanes_items = tuning::segment_lanes_items(sizeof(K));
  static constexpr int warp_items = tuning::segment_warp_items(sizeof(K));
  static constexpr int tile_items = tuning::items_per_thread(sizeof(K));
  using tiles_shape = pairwise<tuning::block_threads, tile_items, K, V, Less>;
  static constexpr index_t tile = tiles_shape::tile;
  static constexpr tier_limits limits{index_t{lanes} * lanes_items, index_t{warp::size} * warp_items};
  /// Rounds a segment can need: ⌈log2⌉ of 2^63 keys in one-key tiles, at most.
  static constexpr int max_rounds = 64;

  template <int Width, int Items>
  static void run_group_tier(context& ctx, const sort_io<K, V>& io, const tier_list& list, Less less) {
    const auto kernel = group_tier_kernel<threads, Width, Items, K, V, Less>;
    constexpr std::size_t bytes = group_tier_shared_bytes<threads, Width, Items, K, V>();
    SLUICE_CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
    const std::size_t blocks = one_wave_grid(ctx, kernel, threads, ceil_div(io.segments, threads / Width), bytes);
    kernel<<<static_cast<unsigned>(blocks), threads, bytes, ctx.stream()>>>(io, list, less);
    SLUICE_CHECK_LAUNCH();
  }

  /// The tile tier: slots, block sort, rounds.
  static void run_tile_tier(context& ctx, const sort_io<K, V>& io, const segment_id* ids, const std::size_t* counts,
                            tile_tier_capacity capacity, Less less) {
    const auto segment_capacity = static_cast<std::size_t>(capacity.segments);
    const auto slot_capacity = static_cast<std::size_t>(capacity.slots);
    scratch<index_t> tile_end(ctx, segment_capacity);
    scratch<slot> slots(ctx, slot_capacity);
    scratch<unsigned long long> most(ctx, 2);
    const tile_tier_state state{tile_end.get(), slots.get(), most.get()};
    SLUICE_CUDA_CHECK(cudaMemsetAsync(most.get(), 0, 2 * sizeof(unsigned long long), ctx.stream()));
    count_tiles_kernel<<<streaming_grid(ctx, count_tiles_kernel<K, V>, segment_capacity), 256, 0, ctx.stream()>>>(
        io, ids, counts, capacity.segments, tile, state);
    SLUICE_CHECK_LAUNCH();
    scan::run_single_pass_scan<scan::scan_kind::inclusive, false>(ctx, static_cast<const index_t*>(tile_end.get()),
                                                                  tile_end.get(), segment_capacity, index_t{0}, plus{});
    assign_slots_kernel<<<streaming_grid(ctx, assign_slots_kernel<K, V>, slot_capacity), 256, 0, ctx.stream()>>>(
        io, ids, counts, capacity, tile, state);
    SLUICE_CHECK_LAUNCH();

    // A segment of two tiles or more needs the rounds' second buffer; only n > tile allows one.
    const bool rounds = io.n > static_cast<std::size_t>(tile);
    scratch<K> temp(ctx, rounds ? io.n : 0);
    scratch<V> temp_values(ctx, rounds && has_values<V> ? io.n : 0);
    const buffers<K, V> to{io.out, io.out_values, temp.get(), temp_values.get()};
    const slot_tiles<K, V> tiles{io.keys, io.values, to, slots.get(), most.get(), tile};
    tiles_shape::block_sort_persistent(ctx, tiles, slot_capacity, less);
    if (rounds) run_rounds(ctx, to, slots.get(), most.get(), slot_capacity, less);
  }

  static void run_rounds(context& ctx, const buffers<K, V>& to, const slot* slots, const unsigned long long* most,
                         std::size_t slot_capacity, Less less) {
    scratch<index_t> splits(ctx, slot_capacity);
    scratch<unsigned> inconsistent(ctx, max_rounds);
    SLUICE_CUDA_CHECK(cudaMemsetAsync(inconsistent.get(), 0, max_rounds * sizeof(unsigned), ctx.stream()));
    const auto kernel = tile_rounds_kernel<tuning::block_threads, tile_items, K, V, Less>;
    tiles_shape::allow_shared(kernel);
    // Cooperative: every block must be resident at once, so the grid is one wave at most.
    const std::size_t blocks =
        one_wave_grid(ctx, kernel, tuning::block_threads, slot_capacity, tiles_shape::shared_bytes());
    cudaLaunchAttribute cooperative{};
    cooperative.id = cudaLaunchAttributeCooperative;
    cooperative.val.cooperative = 1;
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(static_cast<unsigned>(blocks));
    config.blockDim = dim3(tuning::block_threads);
    config.dynamicSmemBytes = tiles_shape::shared_bytes();
    config.stream = ctx.stream();
    config.attrs = &cooperative;
    config.numAttrs = 1;
    SLUICE_CUDA_CHECK(
        cudaLaunchKernelEx(&config, kernel, to, slots, most, tile, splits.get(), inconsistent.get(), less));
  }

  /// Sorts every segment of io (n ≥ 1, segments ≥ 1); the caller has activated the device.
  static void run(context& ctx, const sort_io<K, V>& io, Less less) {
    if (io.out != io.keys || static_cast<const void*>(io.out_values) != static_cast<const void*>(io.values)) {
      const auto kernel = copy_outside_kernel<K, V>;
      kernel<<<streaming_grid(ctx, kernel, io.n), 256, 0, ctx.stream()>>>(io);
      SLUICE_CHECK_LAUNCH();
    }
    scratch<segment_id> ids(ctx, io.segments), by_tier(ctx, io.segments);
    scratch<std::size_t> counts(ctx, 2);
    segment_ids_kernel<<<streaming_grid(ctx, segment_ids_kernel<segment_id>, io.segments), 256, 0, ctx.stream()>>>(
        ids.get(), io.segments);
    SLUICE_CHECK_LAUNCH();
    select::partition_3way(ctx, static_cast<const segment_id*>(ids.get()), by_tier.get(), io.segments, counts.get(),
                           tier_of_segment{io.offsets, io.n, limits});
    run_group_tier<lanes, lanes_items>(ctx, io, {by_tier.get(), counts.get(), io.segments, lanes_tier}, less);
    run_group_tier<warp::size, warp_items>(ctx, io, {by_tier.get(), counts.get(), io.segments, warp_tier}, less);
    const tile_tier_capacity capacity = capacity_of(io.n, io.segments, limits, tile);
    if (capacity.segments > 0) run_tile_tier(ctx, io, by_tier.get(), counts.get(), capacity, less);
  }
};

}  // namespace sluice::detail::merge_sort::segmented_sort
