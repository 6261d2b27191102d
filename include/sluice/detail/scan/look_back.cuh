// sluice/detail/scan/look_back.cuh: tile status and decoupled look-back (Merrill & Garland, "Single-pass
// Parallel Prefix Scan with Decoupled Look-back", 2016), the state that lets one pass over the input
// produce a device-wide scan.
//
// Each tile publishes its aggregate as soon as it has reduced itself (state `aggregate`), and its
// inclusive prefix once it knows it (state `inclusive`). A tile finds its exclusive prefix by walking
// back over its predecessors one warp-wide window of 32 tiles at a time, combining aggregates until it
// meets an inclusive prefix. Combining keeps index order (earlier ⊕ later), so non-commutative
// operators are exact.
//
// Storage: for T of at most 4 bytes, state and value share one 64-bit word, up to 8 bytes one 16-byte word (one
// load sees both); otherwise a 32-bit state word with release/acquire ordering guards separate aggregate
// and inclusive slots (separate, so that a reader who saw `aggregate` never reads a slot being
// overwritten). A warp that finds a predecessor not yet published backs off briefly before polling
// again, so that spinning warps do not crowd the L2 slices the publishers write to (CUB does the same).
// Traffic per tile: one or two status writes, a few reads; negligible beside the tile's data.
#pragma once

#include <sluice/core/config.hpp>
#include <sluice/detail/scan/tuning.hpp>
#include <sluice/warp/shuffle.cuh>

#include <cuda/atomic>
#include <cuda/std/cstdint>
#include <cuda/std/cstring>

namespace sluice::detail::scan {

enum tile_state : cuda::std::uint32_t { tile_invalid = 0, tile_aggregate = 1, tile_inclusive = 2 };

/// Reads a T written by another block without going through this SM's L1 (which could hold a stale copy).
template <class T>
__device__ __forceinline__ T load_uncached(const T* from) {
  constexpr int words = static_cast<int>(sizeof(T)) / 4;
  static_assert(sizeof(T) % 4 == 0, "tile values are moved as 32-bit words");
  unsigned bits[words];
  const unsigned* source = reinterpret_cast<const unsigned*>(from);
#pragma unroll
  for (int w = 0; w < words; ++w) bits[w] = __ldcg(source + w);
  T value;
  cuda::std::memcpy(&value, bits, sizeof(T));
  return value;
}

/// Status of values of at most 4 bytes: (state << 32) | value bits, in one 64-bit word per tile.
template <class T>
struct packed_tile_status {
  cuda::std::uint64_t* words;

  static constexpr cuda::std::size_t bytes_per_tile = sizeof(cuda::std::uint64_t);

  __device__ void publish(cuda::std::size_t tile, tile_state state, const T& value) const {
    cuda::std::uint32_t bits = 0;
    cuda::std::memcpy(&bits, &value, sizeof(T));
    cuda::atomic_ref<cuda::std::uint64_t, cuda::thread_scope_device>(words[tile])
        .store((cuda::std::uint64_t{state} << 32) | bits, cuda::memory_order_relaxed);
  }
  __device__ tile_state read(cuda::std::size_t tile, T& value) const {
    const cuda::std::uint64_t word =
        cuda::atomic_ref<cuda::std::uint64_t, cuda::thread_scope_device>(words[tile]).load(cuda::memory_order_relaxed);
    const auto bits = static_cast<cuda::std::uint32_t>(word);
    cuda::std::memcpy(&value, &bits, sizeof(T));
    return static_cast<tile_state>(word >> 32);
  }
};

/// Status of values of 5 to 8 bytes: state and value side by side in one 16-byte word, written and read by one
/// 16-byte access each, so a reader sees both from the same write (as CUB's tile descriptors do; an
/// aligned 16-byte global access is not split on sm_70 and later). One load per predecessor instead of
/// the split form's two dependent ones.
template <class T>
struct wide_packed_tile_status {
  ulonglong2* words;

  static constexpr cuda::std::size_t bytes_per_tile = sizeof(ulonglong2);

  __device__ void publish(cuda::std::size_t tile, tile_state state, const T& value) const {
    unsigned long long bits = 0;
    cuda::std::memcpy(&bits, &value, sizeof(T));
    const unsigned long long state_word = state;
    asm volatile("st.relaxed.gpu.global.v2.u64 [%0], {%1, %2};" ::"l"(words + tile), "l"(state_word), "l"(bits)
                 : "memory");
  }
  __device__ tile_state read(cuda::std::size_t tile, T& value) const {
    unsigned long long state_word, bits;
    asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];" : "=l"(state_word), "=l"(bits) : "l"(words + tile)
                 : "memory");
    cuda::std::memcpy(&value, &bits, sizeof(T));
    return static_cast<tile_state>(state_word);
  }
};

/// Status of larger values: a state word ordered (release/acquire) after separate value slots.
template <class T>
struct split_tile_status {
  cuda::std::uint32_t* states;
  T* aggregates;
  T* inclusives;

  static constexpr cuda::std::size_t bytes_per_tile = sizeof(cuda::std::uint32_t) + 2 * sizeof(T);

  __device__ void publish(cuda::std::size_t tile, tile_state state, const T& value) const {
    (state == tile_inclusive ? inclusives : aggregates)[tile] = value;
    cuda::atomic_ref<cuda::std::uint32_t, cuda::thread_scope_device>(states[tile]).store(state, cuda::memory_order_release);
  }
  __device__ tile_state read(cuda::std::size_t tile, T& value) const {
    const auto state = static_cast<tile_state>(
        cuda::atomic_ref<cuda::std::uint32_t, cuda::thread_scope_device>(states[tile]).load(cuda::memory_order_acquire));
    if (state != tile_invalid) value = load_uncached(state == tile_inclusive ? inclusives + tile : aggregates + tile);
    return state;
  }
};

template <class T>
inline constexpr bool packs_into_status_word = sizeof(T) <= 4;
template <class T>
inline constexpr bool packs_into_wide_status_word = sizeof(T) > 4 && sizeof(T) <= 8;

template <class T>
using tile_status = cuda::std::conditional_t<
    packs_into_status_word<T>, packed_tile_status<T>,
    cuda::std::conditional_t<packs_into_wide_status_word<T>, wide_packed_tile_status<T>, split_tile_status<T>>>;

/// Carves a tile_status for `tiles` tiles out of `storage` (which must be zeroed: all tiles invalid).
template <class T>
SLUICE_HOST_DEVICE tile_status<T> make_tile_status(void* storage, cuda::std::size_t tiles) {
  if constexpr (packs_into_status_word<T>) {
    return {static_cast<cuda::std::uint64_t*>(storage)};
  } else if constexpr (packs_into_wide_status_word<T>) {
    return {static_cast<ulonglong2*>(storage)};
  } else {
    auto* values = static_cast<T*>(storage);
    auto* states = reinterpret_cast<cuda::std::uint32_t*>(values + 2 * tiles);
    return {states, values, values + tiles};
  }
}

/// The look-back tuning of the single pass (tile_order, look_back_tuning and the value: tuning.hpp).
using default_look_back_tuning = tuning::look_back;

/// In-order reduction of lanes [0, last] where lane i holds the value of tile (base − i): the result,
/// v_last ⊕ … ⊕ v_0 (earliest tile first), is returned in every lane.
template <class T, class Op>
__device__ __forceinline__ T reduce_window(T value, int last, Op op) {
  const int lane = warp::lane_id();
#pragma unroll
  for (int offset = 1; offset < warp::size; offset *= 2) {
    const T earlier = warp::shuffle_down(value, offset);
    if (lane + offset <= last) value = op(earlier, value);
  }
  return warp::broadcast(value, 0);
}

/// The exclusive prefix of `tile` (> 0): called by all 32 lanes of one warp; the result is in every lane.
template <class T, class Tuning = default_look_back_tuning, class Status, class Op>
__device__ T look_back(const Status& status, cuda::std::size_t tile, Op op) {
  if constexpr (Tuning::first_poll_delay_ns > 0) __nanosleep(Tuning::first_poll_delay_ns);
  const int lane = warp::lane_id();
  T prefix{};
  bool have_prefix = false;
  long long window_end = static_cast<long long>(tile);  // this window: tiles window_end−1−lane
  while (true) {
    const long long mine = window_end - 1 - lane;
    T value{};
    unsigned ready_inclusive, waiting;
    do {
      // Tiles before tile 0 do not exist; tile 0 is always found first (it only ever publishes
      // `inclusive`), so the stand-in state here is never used.
      const tile_state state = mine >= 0 ? status.read(static_cast<cuda::std::size_t>(mine), value) : tile_inclusive;
      ready_inclusive = __ballot_sync(warp::full_mask, state == tile_inclusive);
      const unsigned invalid = __ballot_sync(warp::full_mask, state == tile_invalid);
      // Only the tiles up to the nearest inclusive prefix matter.
      const unsigned relevant = ready_inclusive ? (2u << (__ffs(ready_inclusive) - 1)) - 1 : warp::full_mask;
      waiting = invalid & relevant;
      if (waiting != 0) __nanosleep(Tuning::poll_delay_ns);
    } while (waiting != 0);
    const int last = ready_inclusive ? __ffs(ready_inclusive) - 1 : warp::size - 1;
    const T window = reduce_window(value, last, op);
    prefix = have_prefix ? op(window, prefix) : window;
    have_prefix = true;
    if (ready_inclusive) return prefix;
    window_end -= warp::size;
  }
}

}  // namespace sluice::detail::scan
