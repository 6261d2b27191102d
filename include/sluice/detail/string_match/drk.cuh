// sluice/detail/string_match/drk.cuh: the divide-and-conquer matchers (Ashkiani §2.4, §2.6.2, §2.7):
// drk (F_p rolled mod p), drk_wom32 and drk_wom64 (the window packed, exact), and the skim of drk_2s
// (a subpattern packed; §2.5), all one kernel over a roller.
//
// Thread t owns the positions of bitmap word t (layout.hpp). A block stages the w − 1 + 32·T characters
// its threads read (from position P·b + o) in shared memory with 16-byte loads (layout.hpp's padded,
// conflict-free order); a window too long for shared memory is read from global memory instead (drk at
// very large m, the seed's worst case anyway). Each thread then rolls its window over its characters:
// w − 1 to fill it, then one step and one comparison a position, giving a 32-bit word of candidates. The
// word goes through the verification (verify.cuh, warp-cooperative; none for the exact packed windows)
// and into the sink: the bitmap (one coalesced word store a thread) or the count (a warp sum, one atomic
// a warp at the end of a grid-stride loop over tiles).
//
// Byte windows (w ≤ 8, the packed strategies' and DRK-2S's common case): no staging; each thread loads its
// 32 + w − 1 characters as aligned 16-byte vectors into registers and compares each window as one or two
// masked words (rollers.hpp, byte_windows); threads whose vectors would pass the text's end roll as above.
//
// Work: (32 + w − 1)/32 character steps a position (the seed's g + m − 1 over g). Traffic: the text read
// once (the halo, w − 1 characters a block, again), n/8 bytes of bitmap written or nothing (count).
#pragma once

#include <sluice/core/config.hpp>
#include <sluice/detail/string_match/fingerprint.hpp>
#include <sluice/detail/string_match/layout.hpp>
#include <sluice/detail/string_match/rollers.hpp>
#include <sluice/warp/shuffle.cuh>

#include <cuda/std/cstddef>
#include <cuda/std/cstdint>

namespace sluice::detail::string_match {

// ---- the block's characters --------------------------------------------------------------------------------

/// Copies `count` characters from `from` into shared memory in the padded order (layout.hpp); returns
/// h, the offset that reading uses. Called by every thread of the block.
__device__ inline uint32_t stage_run(unsigned char* shared, const unsigned char* from, uint32_t count) {
  const uint32_t h = static_cast<uint32_t>(reinterpret_cast<cuda::std::uintptr_t>(from) & 15u);
  const unsigned char* aligned = from - h;
  const staging_plan plan = plan_staging(h, count);
  for (uint32_t q = plan.head_begin + threadIdx.x; q < plan.vector_begin; q += blockDim.x) shared[padded(q)] = aligned[q];
  for (uint32_t q = plan.vector_end + threadIdx.x; q < plan.tail_end; q += blockDim.x) shared[padded(q)] = aligned[q];
  const uint4* vectors = reinterpret_cast<const uint4*>(aligned);
  for (uint32_t v = plan.vector_begin / 16 + threadIdx.x; v < plan.vector_end / 16; v += blockDim.x) {
    const uint4 x = vectors[v];
    const uint32_t q = 16 * v;
    *reinterpret_cast<uint32_t*>(shared + padded(q)) = x.x;
    *reinterpret_cast<uint32_t*>(shared + padded(q + 4)) = x.y;
    *reinterpret_cast<uint32_t*>(shared + padded(q + 8)) = x.z;
    *reinterpret_cast<uint32_t*>(shared + padded(q + 12)) = x.w;
  }
  return h;
}

/// Character j of a staged run.
struct staged_run {
  const unsigned char* shared;
  uint32_t h;
  __device__ uint32_t operator[](size_t j) const { return shared[padded(static_cast<uint32_t>(j) + h)]; }
};


// ---- a thread's characters in registers (byte windows) ---------------------------------------------------

/// Aligned 16-byte vectors that hold `words` words of characters from any byte offset.
template <int Words>
inline constexpr int vectors_for = (Words + 3 + 1 + 3) / 4;  // up to 3 words of offset, 1 for the funnel shift

/// Whether the vectors with_words reads from `first` lie inside the text: its 16-byte block and the ones
/// after it up to the text's end (an allocation starts 256-byte aligned, so the first block is its own).
template <int Words>
__device__ bool vectors_inside(const unsigned char* first, const unsigned char* text_end) {
  const cuda::std::uintptr_t block = reinterpret_cast<cuda::std::uintptr_t>(first) & ~cuda::std::uintptr_t{15};
  return block + 16 * vectors_for<Words> <= reinterpret_cast<cuda::std::uintptr_t>(text_end);
}

/// out[i] = raw words [i + Offset, i + Offset + 1) shifted by `bytes` (< 4): the realignment, whose
/// word offset is a template argument so that the registers keep constant indices.
template <int Offset, int Words, int Raw>
__device__ void realign(const uint32_t (&raw)[Raw], int bytes, uint32_t (&out)[Words]) {
#pragma unroll
  for (int i = 0; i < Words; ++i) out[i] = funnel_bytes(raw[i + Offset], raw[i + Offset + 1], bytes);
}

/// f(chars) with chars[i] = characters [4i, 4i + 4) from `first`, little-endian, loaded as 16-byte
/// vectors. The byte offset of `first` is the same for every thread of the grid (runs start at multiples
/// of 16 from the text plus o), so the switch does not diverge; each case calls f with its own word
/// offset as a constant, so the registers are not copied into place.
template <int Words, class F>
__device__ uint32_t with_words(const unsigned char* first, F&& f) {
  const auto address = reinterpret_cast<cuda::std::uintptr_t>(first);
  const uint4* vectors = reinterpret_cast<const uint4*>(address & ~cuda::std::uintptr_t{15});
  uint32_t raw[4 * vectors_for<Words>];
#pragma unroll
  for (int v = 0; v < vectors_for<Words>; ++v) {
    const uint4 x = __ldg(vectors + v);
    raw[4 * v] = x.x;
    raw[4 * v + 1] = x.y;
    raw[4 * v + 2] = x.z;
    raw[4 * v + 3] = x.w;
  }
  const int bytes = static_cast<int>(address & 3);
  uint32_t chars[Words];
  switch ((address >> 2) & 3) {
    case 0: realign<0>(raw, bytes, chars); return f(chars);
    case 1: realign<1>(raw, bytes, chars); return f(chars);
    case 2: realign<2>(raw, bytes, chars); return f(chars);
    default: realign<3>(raw, bytes, chars); return f(chars);
  }
}

// ---- sinks: where a thread's word goes ------------------------------------------------------------------

struct bitmap_sink {
  uint32_t* words;
  size_t count;
  __device__ void put(size_t word, uint32_t bits) {
    if (word < count) words[word] = bits;
  }
  __device__ void finish() const {}
};

/// Adds the matches to *total (zeroed before the launch): a warp sum, one atomic a warp.
struct count_sink {
  unsigned long long* total;
  unsigned long long mine = 0;
  __device__ void put(size_t, uint32_t bits) { mine += static_cast<unsigned long long>(__popc(bits)); }
  __device__ void finish() const {
    unsigned long long sum = mine;
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_xor_sync(warp::full_mask, sum, offset);
    if (warp::lane_id() == 0 && sum != 0) atomicAdd(total, sum);
  }
};

// ---- the kernel ---------------------------------------------------------------------------------------------

struct drk_params {
  const unsigned char* text;
  size_t n;
  size_t positions;   ///< n − m + 1 ≥ 1
  size_t words;       ///< bitmap_words(positions)
  size_t run_offset;  ///< o: the window's offset in the pattern (drk_2s's subpattern), else 0
  size_t window;      ///< w: the characters a fingerprint covers (m, or m̄)
  uint32_t mask;      ///< char_mask(σ)
};

/// Shared memory of a block of Threads threads staging a window of w characters.
template <int Threads>
[[nodiscard]] constexpr size_t drk_shared_bytes(size_t w) {
  return staged_bytes(static_cast<size_t>(Threads) * positions_per_thread + w - 1);
}

/// Where a thread reads its characters: the block's run staged in shared memory, the text in place
/// (windows too long for shared memory), or its own characters in registers (byte windows, w ≤ 8).
enum class run_source { staged, in_place, registers };

/// Grid-stride over tiles of Threads words; every thread of a block runs every round (the staging's
/// barriers and the verification's ballots need them all).
template <int Threads, run_source Source, class Spec, class Verify, class Sink>
__global__ void __launch_bounds__(Threads)
    drk_kernel(drk_params prm, Spec spec, const pattern_summary* summary, Verify verify, Sink sink) {
  extern __shared__ uint4 shared_words[];
  unsigned char* shared = reinterpret_cast<unsigned char*>(shared_words);
  constexpr size_t tile_positions = static_cast<size_t>(Threads) * positions_per_thread;
  const auto roller = spec.bind(*summary);
  [[maybe_unused]] const auto windows = [&] {
    if constexpr (Source == run_source::registers) return spec.bind_windows(*summary);
    else return 0;
  }();
  const size_t tiles = (prm.words + Threads - 1) / Threads;
  const size_t start = static_cast<size_t>(threadIdx.x) * positions_per_thread;
  for (size_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    // The run starts at a position ≤ n − m, plus o, so inside the text; it is cut at the text's end.
    const size_t run_first = tile * tile_positions + prm.run_offset;
    const size_t word = tile * Threads + threadIdx.x;
    const int valid = word_positions(word, prm.positions);
    uint32_t bits;
    if constexpr (Source == run_source::staged) {
      __syncthreads();  // the previous round has read the shared run
      const size_t run_count = cuda::std::min(tile_positions + prm.window - 1, prm.n - run_first);
      const uint32_t h = stage_run(shared, prm.text + run_first, static_cast<uint32_t>(run_count));
      __syncthreads();
      bits = match_word(roller, staged_run{shared, h}, start, valid, prm.window, prm.mask);
    } else if constexpr (Source == run_source::registers) {
      using windows_type = typename Spec::windows;
      const unsigned char* first = prm.text + run_first + start;
      if (valid > 0 && vectors_inside<windows_type::words>(first, prm.text + prm.n)) {
        bits = with_words<windows_type::words>(first, [&](const uint32_t(&chars)[windows_type::words]) {
                 return windows.match(chars);
               }) & low_bits(valid);
      } else {  // the text's last characters: one at a time, never past its end
        bits = match_word(roller, global_run{prm.text + run_first}, start, valid, prm.window, prm.mask);
      }
    } else {
      bits = match_word(roller, global_run{prm.text + run_first}, start, valid, prm.window, prm.mask);
    }
    bits = verify(bits, word * positions_per_thread);
    sink.put(word, bits);
  }
  sink.finish();
}

}  // namespace sluice::detail::string_match
