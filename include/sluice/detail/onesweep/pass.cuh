// sluice/detail/onesweep/pass.cuh: one onesweep pass over one portion: a block takes the next tile from
// a counter, ranks its keys stably by digit (cub::BlockRadixRankMatchEarlyCounts), publishes its digit
// counts at once (one status word per tile and digit), looks back over the earlier tiles' words for each
// digit's global start, stages keys and values in digit order in shared memory and writes them out.
#pragma once

#include <sluice/block/load.cuh>
#include <sluice/core/error.hpp>
#include <sluice/core/radix_key.hpp>
#include <sluice/core/values.hpp>
#include <sluice/detail/onesweep/packed_pairs.cuh>
#include <sluice/detail/onesweep/tuning.hpp>
#include <sluice/detail/scan/look_back.cuh>
#include <sluice/warp/shuffle.cuh>

#include <cub/block/block_load.cuh>
#include <cub/block/block_radix_rank.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/util_type.cuh>

#include <cuda/atomic>
#include <cuda/std/cstddef>
#include <cuda/std/cstdint>
#include <cuda/std/type_traits>

#include <cstddef>
#include <cstdint>

namespace sluice::detail::onesweep {

// ---- the per-digit look-back --------------------------------------------------------------------------

/// The status of one portion's tiles: one 32-bit word per (tile, digit) of Digits digits, the state
/// (scan::tile_state: invalid; aggregate = the tile's own count of the digit; inclusive = its count over
/// this and every earlier tile of the portion) in the top two bits and the count in the low 30, as CUB packs them.
/// State and count travel in one word, so relaxed device-scope atomics suffice: a reader that sees the
/// state sees its count, and nothing else is published through the status (the keys a tile writes are
/// read only by the next pass, after the kernel boundary).
template <int Digits>
struct digit_status {
  cuda::std::uint32_t* words;  ///< [tile][digit], zeroed (invalid) before the portion's kernel

  static constexpr int count_bits = 30;
  static constexpr cuda::std::uint32_t count_mask = (1u << count_bits) - 1;
  static_assert(onesweep_portion_limit <= count_mask, "a portion's counts fit the status word");

  __device__ cuda::atomic_ref<cuda::std::uint32_t, cuda::thread_scope_device> word(cuda::std::uint32_t tile,
                                                                                   cuda::std::uint32_t digit) const {
    return cuda::atomic_ref<cuda::std::uint32_t, cuda::thread_scope_device>(
        words[static_cast<cuda::std::size_t>(tile) * Digits + digit]);
  }
  __device__ void publish(cuda::std::uint32_t tile, cuda::std::uint32_t digit, scan::tile_state state,
                          cuda::std::uint32_t count) const {
    word(tile, digit).store((static_cast<cuda::std::uint32_t>(state) << count_bits) | count,
                            cuda::memory_order_relaxed);
  }
  /// The word of (tile, digit) once the tile has published it: spins while it is invalid.
  __device__ cuda::std::uint32_t published(cuda::std::uint32_t tile, cuda::std::uint32_t digit) const {
    cuda::std::uint32_t bits = 0;
    do bits = word(tile, digit).load(cuda::memory_order_relaxed);
    while (is_invalid(bits));
    return bits;
  }
  __device__ static bool is_invalid(cuda::std::uint32_t bits) { return bits >> count_bits == scan::tile_invalid; }
  __device__ static cuda::std::uint32_t count_of(cuda::std::uint32_t bits) { return bits & count_mask; }
  __device__ static bool is_inclusive(cuda::std::uint32_t bits) { return bits >> count_bits == scan::tile_inclusive; }
  /// What a tile before the portion's first reads as: an inclusive count of 0.
  static constexpr cuda::std::uint32_t before_first = static_cast<cuda::std::uint32_t>(scan::tile_inclusive) << count_bits;
};

/// The count of `digit` in the portion's tiles before `tile` (> 0): one thread walks back, adding
/// aggregates until it meets an inclusive count (CUB's onesweep look-back), reading Ahead earlier tiles'
/// words at once (one round trip to the L2 for Ahead tiles; CUB reads one). A word read while still
/// invalid is read again until its tile publishes; one read as an aggregate that has since become
/// inclusive only lengthens the walk. Tiles are taken in order, so every tile waited on is running, and
/// each publishes its aggregate before it waits for anyone: no cycle. For shapes with two threads or
/// more per digit, count_in_earlier_windows.
template <int Digits, int Ahead>
__device__ __forceinline__ cuda::std::uint32_t count_in_earlier_tiles(const digit_status<Digits>& status,
                                                                      cuda::std::uint32_t tile,
                                                                      cuda::std::uint32_t digit) {
  static_assert(Ahead >= 1, "the walk reads one tile at least");
  cuda::std::uint32_t before = 0;
  for (cuda::std::uint32_t next = tile;; next -= Ahead) {  // tiles [0, next) not yet added
    cuda::std::uint32_t words[Ahead];
#pragma unroll
    for (int j = 0; j < Ahead; ++j)
      words[j] = static_cast<cuda::std::uint32_t>(j) < next ? status.word(next - 1 - j, digit).load(cuda::memory_order_relaxed)
                                                           : digit_status<Digits>::before_first;
#pragma unroll
    for (int j = 0; j < Ahead; ++j) {
      const cuda::std::uint32_t bits =
          digit_status<Digits>::is_invalid(words[j]) ? status.published(next - 1 - j, digit) : words[j];
      before += digit_status<Digits>::count_of(bits);
      if (digit_status<Digits>::is_inclusive(bits)) return before;  // always by next ≤ Ahead (before_first)
    }
  }
}

/// The look-back with the whole block, for W = Window ≥ 2 threads per digit: thread t reads digit
/// t % Digits of the earlier tile t / Digits + 1 back (all at once: one round trip to the L2 for W
/// tiles), the digit's owner (thread d < Digits) adds the window up nearest first until it meets an
/// inclusive count, and the block takes the next W tiles until every owner has met one. Returns the
/// owner's count of its digit in the tiles before `tile`; block-uniform calls only (barriers). Why: the
/// serial walk (count_in_earlier_tiles) kept 11 of 12 warps at the barrier behind one
/// (docs/perf-notes.md, onesweep windowed look-back).
template <int Digits, int Window>
__device__ __forceinline__ cuda::std::uint32_t count_in_earlier_windows(const digit_status<Digits>& status,
                                                                        cuda::std::uint32_t tile,
                                                                        cuda::std::uint32_t (&window)[Window][Digits]) {
  static_assert(Window >= 2, "one thread per digit walks instead (count_in_earlier_tiles)");
  const int thread = static_cast<int>(threadIdx.x);
  const int digit = thread % Digits, back = thread / Digits;  // reads tile next − 1 − back
  cuda::std::uint32_t before = 0;
  bool met = thread >= Digits;  // only the owners add up
  for (cuda::std::uint32_t next = tile;; next = next > Window ? next - Window : 0) {
    if (back < Window)
      window[back][digit] = static_cast<cuda::std::uint32_t>(back) < next
                                ? status.published(next - 1 - static_cast<cuda::std::uint32_t>(back), digit)
                                : digit_status<Digits>::before_first;
    __syncthreads();
    for (int j = 0; j < Window && !met; ++j) {
      before += digit_status<Digits>::count_of(window[j][digit]);
      met = digit_status<Digits>::is_inclusive(window[j][digit]);
    }
    if (__syncthreads_and(met)) return before;  // also keeps the window until everyone has read it
  }
}

// ---- one pass over one portion ------------------------------------------------------------------------

/// What a onesweep kernel splits by. The radix sort's radix_digit<K> keeps every key and pads a partial
/// tile with a key of the largest digit (radix_key_of). Any other Digit is a functor giving every key a
/// digit below the shape's digits, with a member `kept`: digits ≥ kept are dropped (ranked and counted,
/// never written); since no padding key can be made for an arbitrary functor, such tiles rank
/// precomputed digits, the padding given the shape's last digit (multisplit's bucket digits,
/// detail/multisplit/onesweep.cuh). That digit may be a kept one: padding still ranks behind every key
/// of the tile (stable rank, the largest digit, the last positions), so it lands in staged positions
/// ≥ valid, which are never written, and its count only reaches the last tile's status, which no tile
/// reads.
template <class Digit>
inline constexpr bool drops_digits = true;
template <class K>
inline constexpr bool drops_digits<radix_digit<K>> = false;
template <class K>
inline constexpr bool drops_digits<packed_digit<K>> = false;

/// Blocks per SM a pass kernel asks for: more for 4-byte keys without values of a dropping Digit
/// (tuning::dropping_keys_min_blocks_per_sm), whose rank holds digits and ranks only (load_tile_digits)
/// and so fits the fewer registers without spills; the radix sort's own keys-only pass, whose rank holds
/// the keys, spills there, so it keeps the shape's (docs/perf-notes.md, onesweep blocks per SM).
template <class Shape, class Digit>
inline constexpr int onesweep_min_blocks = drops_digits<Digit> && Shape::key_bytes == 4 && Shape::value_bytes == 0
                                               ? tuning::dropping_keys_min_blocks_per_sm
                                               : Shape::min_blocks_per_sm;

/// Whether staged keys of digit d are written.
template <class Digit>
__device__ __forceinline__ bool written(const Digit& digit, cuda::std::uint32_t d) {
  if constexpr (drops_digits<Digit>) return d < digit.kept;
  else return true;
}

/// A onesweep kernel's work: one portion of one pass. V = no_values: keys only (value pointers null).
/// The keys are read through In and written through Out: pointers, or, for packed pairs (K =
/// packed_word), a pair_reader or pair_writer over the caller's separate arrays.
template <class K, class V, class Digit = radix_digit<K>, class In = const K*, class Out = K*>
struct onesweep_portion {
  In keys_in;  ///< the portion's first key
  const V* values_in;
  Out keys_out;  ///< the whole output: positions are global
  V* values_out;
  cuda::std::uint32_t n;  ///< keys in the portion, at most onesweep_shape::portion
  Digit digit;
  const unsigned long long* starts;  ///< where each digit's keys of this portion begin
  unsigned long long* next_starts;   ///< the next portion's starts (written by the last tile); null for the last
  cuda::std::uint32_t* status;       ///< the portion's tiles × the shape's digits status words, zeroed
  cuda::std::uint32_t* next_tile;    ///< the tile counter, zeroed
};

template <class Shape>
using onesweep_rank = cub::BlockRadixRankMatchEarlyCounts<Shape::threads, Shape::digit_bits, false,
                                                          cub::BLOCK_SCAN_RAKING_MEMOIZE, cub::WARP_MATCH_ANY, 1>;

/// A radix digit (radix_digit, packed_digit) in the form cub's rank calls (the digits are already
/// reversed for a descending sort).
template <class DigitOf>
struct rank_digit {
  DigitOf digit;
  template <class K>
  __device__ __forceinline__ cuda::std::uint32_t Digit(K key) const {
    return digit(key);
  }
};

/// The rank's digit of a precomputed digit: itself.
struct rank_precomputed {
  __device__ __forceinline__ cuda::std::uint32_t Digit(cuda::std::uint32_t digit) const { return digit; }
};

/// Whether a pass stages its values before the look-back, beside the keys, so that the ranks are dead
/// across the look-back and the keys' write-out: the passes that rank precomputed digits, whose u32 pairs
/// kernels otherwise spill. The radix sort's passes keep CUB's order, the values loaded while the keys'
/// stores are in flight, which was faster for them (docs/perf-notes.md, onesweep values' staging).
template <class Shape>
inline constexpr bool stages_values_early = Shape::precomputed_digits;

/// A staged position's digit, as the keys' write-out keeps it for the values' (onesweep_storage).
template <class Shape>
using kept_digit = cuda::std::conditional_t<(Shape::digits <= 256), cuda::std::uint8_t, cuda::std::uint16_t>;

/// A block's shared memory. Passes in CUB's order (values loaded after the keys' write-out) stage the
/// values in the keys' place, as CUB does, with each staged position's digit kept as a byte by the keys'
/// write-out for the values' (held in registers across the values' load, as CUB holds them, they
/// spilled; staged beside the keys, the tile took more shared memory and the pass was slower:
/// docs/perf-notes.md, onesweep values' staging). Passes that stage the values before the look-back
/// (stages_values_early) keep them beside the keys, whose digits the write-out reads again.
/// The storage passes the 48 KiB of static shared memory for some shapes, so the kernel takes it as
/// dynamic shared memory (onesweep_storage_bytes).
template <class Shape, class K, class V>
struct onesweep_storage {
  static constexpr bool values_replace_keys = has_values<V> && !stages_values_early<Shape>;
  union {
    typename onesweep_rank<Shape>::TempStorage rank;
    cub::Uninitialized<K[Shape::tile]> keys;  ///< the tile's keys in digit order
    cub::Uninitialized<V[values_replace_keys ? Shape::tile : 1]> values_in_place;
  };
  cub::Uninitialized<V[has_values<V> && !values_replace_keys ? Shape::tile : 1]> values_beside;
  /// The digit of each staged position, kept by the keys' write-out when the values replace the keys.
  kept_digit<Shape> digits[values_replace_keys ? Shape::tile : 1];
  /// Staged position i of digit d goes to offsets[d] + i (modulo 2^bits of the offset: relative to the
  /// digit's first staged position).
  typename Shape::offset offsets[Shape::digits];
  /// The status words of the look-back's window (count_in_earlier_windows), when it has one.
  cuda::std::uint32_t window[Shape::lookback_window >= 2 ? Shape::lookback_window : 1][Shape::digits];
  cuda::std::uint32_t tile;

  /// The tile's values in digit order.
  __device__ __forceinline__ V* values() {
    if constexpr (values_replace_keys) return values_in_place.Alias();
    else return values_beside.Alias();
  }
};

/// The dynamic shared memory of a onesweep kernel: its storage, at most tuning::max_storage_bytes so
/// that two blocks fit an SM (onesweep_sort checks the device).
template <class Shape, class K, class V>
inline constexpr std::size_t onesweep_storage_bytes = sizeof(onesweep_storage<Shape, K, V>);
inline constexpr std::size_t onesweep_max_storage_bytes = tuning::max_storage_bytes;

/// The portion's next tile, for the whole block.
__device__ __forceinline__ cuda::std::uint32_t take_tile(cuda::std::uint32_t* next_tile, cuda::std::uint32_t& shared) {
  if (threadIdx.x == 0) shared = atomicAdd(next_tile, 1u);
  __syncthreads();
  return shared;
}

/// The tile position of a thread's item j in warp-striped arrangement: warp w holds positions
/// [w · 32 · Items, (w + 1) · 32 · Items), lane l position w · 32 · Items + 32 j + l.
template <class Shape>
__device__ __forceinline__ int warp_striped_position(int item) {
  const int thread = static_cast<int>(threadIdx.x);
  return thread / 32 * 32 * Shape::items + item * 32 + thread % 32;
}

/// Loads the tile warp-striped: each load instruction of a warp reads 32 consecutive keys, and the rank,
/// which takes a warp's keys item by item, meets every warp's keys in input order, which is what makes
/// it stable. Positions past `valid` get a key whose digit is the largest of the pass
/// (largest_digit_element), so they rank behind every real key; they are never staged or written.
template <class Shape, class K, class In, class DigitOf>
__device__ __forceinline__ void load_tile_keys(In from, int valid, const DigitOf& digit, K (&keys)[Shape::items]) {
  if (valid == Shape::tile) cub::LoadDirectWarpStriped(static_cast<int>(threadIdx.x), from, keys);
  else cub::LoadDirectWarpStriped(static_cast<int>(threadIdx.x), from, keys, valid, largest_digit_element(digit));
}

/// The tile's keys warp-striped, as load_tile_keys, with positions past `valid` left unloaded (a dropping
/// Digit has no padding key; load_tile_digits gives those positions their digit).
template <class Shape, class K, class In>
__device__ __forceinline__ void load_tile_unpadded(In from, int valid, K (&keys)[Shape::items]) {
  if (valid == Shape::tile) cub::LoadDirectWarpStriped(static_cast<int>(threadIdx.x), from, keys);
  else cub::LoadDirectWarpStriped(static_cast<int>(threadIdx.x), from, keys, valid);
}

/// The digits of the tile's keys, warp-striped, for a dropping Digit: positions past `valid` get the
/// shape's last digit (≥ every kept digit, after every real key of that digit in rank order), so they rank last and are
/// never staged; only the last tile of the last portion has them. The keys die here: only the digits
/// live across the rank (the kernel loads the keys again to stage them).
template <class Shape, class K, class Digit>
__device__ __forceinline__ void load_tile_digits(const K* from, int valid, const Digit& digit,
                                                 cuda::std::uint32_t (&digits)[Shape::items]) {
  K keys[Shape::items];
  load_tile_unpadded<Shape>(from, valid, keys);
  if (valid == Shape::tile) {
#pragma unroll
    for (int j = 0; j < Shape::items; ++j) digits[j] = digit(keys[j]);
  } else {
#pragma unroll
    for (int j = 0; j < Shape::items; ++j)
      digits[j] = warp_striped_position<Shape>(j) < valid ? digit(keys[j]) : Shape::digits - 1;
  }
}

/// Whether tile position `position` holds an element (always, in a full tile: Full, so that the full
/// tiles' code has no bounds check per item, behind which the write-out recomputed the digit functor's
/// loop invariants for every item: docs/perf-notes.md, onesweep full tiles).
template <bool Full>
__device__ __forceinline__ bool in_tile(int position, int valid) {
  return Full || position < valid;
}

/// Writes each loaded element at its rank (its place in the tile sorted by digit), padding left out.
template <class Shape, bool Full, class T>
__device__ __forceinline__ void stage(const T (&items)[Shape::items], const int (&ranks)[Shape::items], int valid,
                                      T* staged) {
#pragma unroll
  for (int j = 0; j < Shape::items; ++j)
    if (in_tile<Full>(warp_striped_position<Shape>(j), valid)) staged[ranks[j]] = items[j];
}

/// The tile's run of `digit` starts at the digit's start in this portion plus `before`, its count in the
/// earlier tiles. Publishes the inclusive count for the tiles after this one, and the portion's last
/// tile hands the next portion its start.
template <class Shape, class K, class V, class Digit, class In, class Out>
__device__ __forceinline__ void place_digit_run(const onesweep_portion<K, V, Digit, In, Out>& portion, cuda::std::uint32_t tile,
                                                cuda::std::uint32_t digit, cuda::std::uint32_t before,
                                                cuda::std::uint32_t count, cuda::std::uint32_t first_staged,
                                                typename Shape::offset* offsets) {
  if (tile > 0) digit_status<Shape::digits>{portion.status}.publish(tile, digit, scan::tile_inclusive, before + count);
  using offset = typename Shape::offset;
  const offset start = static_cast<offset>(portion.starts[digit]) + before;  // < n: fits the offset
  offsets[digit] = start - first_staged;
  if (portion.next_starts != nullptr && tile == (portion.n - 1) / Shape::tile)
    portion.next_starts[digit] = start + count;
}

/// What scatter_staged writes: the staged keys, or the staged values.
enum class staged_items { keys, values };

/// Writes staged position p of `staged` (the tile's keys, or its values) to out[offsets[d] + p], where
/// d is the digit of the key staged at p, if d is written: read again from the staged key, or, where
/// the values replace the keys (onesweep_storage), kept by the keys' write-out for the values'. Thread
/// t writes positions t, t + threads, …, so a warp writes 32 consecutive positions, runs of one digit
/// each (a tile holds ~20-30 keys of a digit at 256 digits on uniform keys). __syncwarp keeps the
/// warp's stores of one round together, as CUB does.
template <class Shape, bool Full, staged_items Items, class T, class To, class K, class V, class Digit, class In,
          class Out>
__device__ __forceinline__ void scatter_staged(const onesweep_portion<K, V, Digit, In, Out>& portion, int valid,
                                               onesweep_storage<Shape, K, V>& s, const T* staged, To out) {
  using offset = typename Shape::offset;
  constexpr bool digits_kept = onesweep_storage<Shape, K, V>::values_replace_keys;
#pragma unroll
  for (int j = 0; j < Shape::items; ++j) {
    const int position = static_cast<int>(threadIdx.x) + j * Shape::threads;
    if (in_tile<Full>(position, valid)) {
      cuda::std::uint32_t d;
      if constexpr (Items == staged_items::values && digits_kept) {
        d = s.digits[position];
      } else {
        d = portion.digit(s.keys.Alias()[position]);
        if constexpr (digits_kept) s.digits[position] = static_cast<kept_digit<Shape>>(d);
      }
      if (written(portion.digit, d)) out[s.offsets[d] + static_cast<offset>(position)] = staged[position];
    }
    __syncwarp(warp::full_mask);
  }
}

/// A thread's items of a tile, as a value (so that load_values can return them).
template <class T, int Items>
struct thread_items {
  T items[Items];
};

/// The tile's values, loaded warp-striped as the keys were (to be staged at the keys' ranks).
template <class Shape, bool Full, class K, class V, class Digit, class In, class Out>
__device__ __forceinline__ thread_items<V, Shape::items> load_values(const onesweep_portion<K, V, Digit, In, Out>& portion,
                                                                     cuda::std::uint32_t first, int valid) {
  thread_items<V, Shape::items> values;
  const V* from = portion.values_in + first;
  if constexpr (Full) cub::LoadDirectWarpStriped(static_cast<int>(threadIdx.x), from, values.items);
  else cub::LoadDirectWarpStriped(static_cast<int>(threadIdx.x), from, values.items, valid);
  return values;
}

/// A thread's digits in the rank and the look-back: thread t tracks digits t · per + u, u < per.
template <class Shape>
struct tracked_digits {
  static constexpr int per = Shape::digits_per_thread;
  cuda::std::uint32_t count[per];  ///< the tile's count of each
  int first_staged[per];           ///< the tile's first staged position of each

  __device__ __forceinline__ static int digit(int u) { return static_cast<int>(threadIdx.x) * per + u; }
};

/// Where each of the tile's digit runs goes (s.offsets), from the look-back over the earlier tiles: the
/// whole block's windows where the shape has two threads or more per digit, else each digit's thread
/// walking back alone (thread t tracks digits t · per + u, whose counts and first staged positions the
/// rank gave).
template <class Shape, class K, class V, class Digit, class In, class Out>
__device__ __forceinline__ void locate_digit_runs(const onesweep_portion<K, V, Digit, In, Out>& portion, cuda::std::uint32_t tile,
                                                  const tracked_digits<Shape>& mine, onesweep_storage<Shape, K, V>& s) {
  const digit_status<Shape::digits> status{portion.status};
  if constexpr (Shape::lookback_window >= 2) {
    static_assert(tracked_digits<Shape>::per == 1, "thread d < digits owns digit d");
    const cuda::std::uint32_t before = tile > 0 ? count_in_earlier_windows(status, tile, s.window) : 0;
    if (const int d = tracked_digits<Shape>::digit(0); d < Shape::digits)
      place_digit_run<Shape>(portion, tile, static_cast<cuda::std::uint32_t>(d), before, mine.count[0],
                             static_cast<cuda::std::uint32_t>(mine.first_staged[0]), s.offsets);
  } else {
#pragma unroll
    for (int u = 0; u < tracked_digits<Shape>::per; ++u)
      if (const int d = tracked_digits<Shape>::digit(u); d < Shape::digits) {
        const auto digit = static_cast<cuda::std::uint32_t>(d);
        const cuda::std::uint32_t before =
            tile > 0 ? count_in_earlier_tiles<Shape::digits, Shape::lookback_ahead>(status, tile, digit) : 0;
        place_digit_run<Shape>(portion, tile, digit, before, mine.count[u],
                               static_cast<cuda::std::uint32_t>(mine.first_staged[u]), s.offsets);
      }
  }
}

/// A ranked tile out: stage the keys in digit order (and the values, stages_values_early), look back
/// for where each digit's run goes, write the keys, then (otherwise load the values, and once every
/// thread is done with the staged keys, stage them in their place) write the values.
template <class Shape, bool Full, class K, class V, class Digit, class In, class Out>
__device__ __forceinline__ void write_tile(const onesweep_portion<K, V, Digit, In, Out>& portion, cuda::std::uint32_t tile,
                                           int valid, const K (&keys)[Shape::items], const int (&ranks)[Shape::items],
                                           const tracked_digits<Shape>& mine, onesweep_storage<Shape, K, V>& s) {
  const cuda::std::uint32_t first = tile * static_cast<cuda::std::uint32_t>(Shape::tile);
  stage<Shape, Full>(keys, ranks, valid, s.keys.Alias());
  if constexpr (has_values<V> && stages_values_early<Shape>)
    stage<Shape, Full>(load_values<Shape, Full>(portion, first, valid).items, ranks, valid, s.values());
  locate_digit_runs<Shape>(portion, tile, mine, s);
  __syncthreads();
  scatter_staged<Shape, Full, staged_items::keys>(portion, valid, s, s.keys.Alias(), portion.keys_out);
  if constexpr (has_values<V>) {
    if constexpr (!stages_values_early<Shape>) {
      const auto values = load_values<Shape, Full>(portion, first, valid);
      __syncthreads();  // the keys' write-out has read the staged keys the values replace
      stage<Shape, Full>(values.items, ranks, valid, s.values());
      __syncthreads();
    }
    scatter_staged<Shape, Full, staged_items::values>(portion, valid, s, s.values(), portion.values_out);
  }
}

/// One tile per block: load, rank (publishing the tile's digit counts early), then write_tile (full
/// tiles without bounds checks).
template <class Shape, class K, class V, class Digit, class In, class Out>
__global__ void __launch_bounds__(Shape::threads, (onesweep_min_blocks<Shape, Digit>))
    onesweep_kernel(onesweep_portion<K, V, Digit, In, Out> portion) {
  using rank_t = onesweep_rank<Shape>;
  static_assert(rank_t::BINS_TRACKED_PER_THREAD == Shape::digits_per_thread, "the rank's digits per thread are ours");
  static_assert(Shape::precomputed_digits == drops_digits<Digit>, "the shape is the one for how the pass ranks");
  extern __shared__ __align__(16) unsigned char onesweep_shared[];
  auto& s = *reinterpret_cast<onesweep_storage<Shape, K, V>*>(onesweep_shared);

  const cuda::std::uint32_t tile = take_tile(portion.next_tile, s.tile);
  const cuda::std::uint32_t first = tile * static_cast<cuda::std::uint32_t>(Shape::tile);
  const int valid = static_cast<int>(cuda::std::min<cuda::std::uint32_t>(Shape::tile, portion.n - first));
  const digit_status<Shape::digits> status{portion.status};

  K keys[Shape::items];
  int ranks[Shape::items];
  tracked_digits<Shape> mine{};
  // Called by the rank as soon as the tile's digit counts are known (each thread gets its digits'):
  // publishing them before the ranks shortens the wait of the tiles behind. Tile 0's counts are already
  // inclusive.
  auto publish_counts = [&](int (&bins)[tracked_digits<Shape>::per]) {
#pragma unroll
    for (int u = 0; u < tracked_digits<Shape>::per; ++u)
      if (const int d = tracked_digits<Shape>::digit(u); d < Shape::digits) {
        mine.count[u] = static_cast<cuda::std::uint32_t>(bins[u]);
        status.publish(tile, static_cast<cuda::std::uint32_t>(d), tile == 0 ? scan::tile_inclusive : scan::tile_aggregate,
                       mine.count[u]);
      }
  };
  if constexpr (drops_digits<Digit>) {
    // Keys, digits and ranks all live across the rank did not fit 80 registers (docs/perf-notes.md,
    // onesweep dropping-digit spills). So the rank holds the digits and ranks only, and the keys are read
    // again afterwards (from L1/L2: the tile was read a moment before).
    cuda::std::uint32_t digits[Shape::items];
    load_tile_digits<Shape>(portion.keys_in + first, valid, portion.digit, digits);
    rank_t(s.rank).RankKeys(digits, ranks, rank_precomputed{}, mine.first_staged, publish_counts);
    load_tile_unpadded<Shape>(portion.keys_in + first, valid, keys);
  } else {
    load_tile_keys<Shape>(portion.keys_in + first, valid, portion.digit, keys);
    rank_t(s.rank).RankKeys(keys, ranks, rank_digit<Digit>{portion.digit}, mine.first_staged, publish_counts);
  }
  __syncthreads();  // the rank's storage becomes the staged keys

  if (valid == Shape::tile) write_tile<Shape, true>(portion, tile, valid, keys, ranks, mine, s);
  else write_tile<Shape, false>(portion, tile, valid, keys, ranks, mine, s);
}

}  // namespace sluice::detail::onesweep
