// sluice/detail/multisplit/onesweep.cuh: multisplit for m ≤ 511 as one pass of the onesweep radix sort's
// machinery (detail/onesweep/; Adinets & Merrill 2022, CUB's DeviceRadixSort), the
// bucket digit taking the place of a radix digit. Not from the seed, whose strategies run prescan →
// scan → postscan (direct_pass.cuh).
//
//   histogram  one read of the keys counts the bucket digits (bucket id, or m for a dropped key) in
//              per-block shared-memory counters added into 32, 64, 256 or 512 global ones (the fewest
//              that hold the digits 0 … m − 1, and m unless the functor never drops a key: plan.hpp's
//              onesweep_digit_bits); their exclusive scan gives the start of every bucket, and the
//              start of bin m is the kept count.
//   one pass   one kernel (onesweep::onesweep_kernel): a block takes the next tile in order, computes
//              the digits of its keys (padding: the last digit), ranks them stably within the tile
//              (cub::BlockRadixRankMatchEarlyCounts), publishes its per-digit counts, looks back per
//              digit over earlier tiles for its runs' global starts, stages keys (then values) in digit
//              order and writes them so that consecutive threads write consecutive positions of a
//              bucket. Keys of digit m (dropped) and padding are staged but never written.
//
// Traffic: keys read twice (histogram, pass), written once; values read once, written once: 12 bytes
// per u32 key, 20 per u32 pair, the seed's speed of light, as BMS, but one pass kernel instead of
// prescan + scan of the m × L count matrix + postscan. Status words: 4 bytes per digit and tile.
// bucket_of is called three times per key (histogram, rank, write-out; values: once more).
#pragma once

#include <sluice/detail/multisplit/common.cuh>
#include <sluice/detail/onesweep/dispatch.cuh>

#include <limits>

namespace sluice::detail::multisplit {

// The limits (plan.hpp, where the automatic choice reads them) are the radix kernel's.
static_assert(max_onesweep_buckets == (1u << onesweep::max_onesweep_digit_bits) - 1);
static_assert(onesweep_digit_bits(max_onesweep_buckets, true) == onesweep::max_onesweep_digit_bits);
static_assert(max_onesweep_value_bytes == onesweep::onesweep_max_value_bytes);

/// The onesweep digit of a key: its bucket id, or `kept` (= m) for a dropped key (onesweep::drops_digits).
/// Computed on its own rather than through pass_ids, whose divisor and radix (digit passes) cost the pass
/// kernel two never-taken division branches per key (docs/perf-notes.md, multisplit bucket digit).
template <class BucketOf>
struct bucket_digit {
  BucketOf bucket_of;
  std::uint32_t kept;

  template <class K>
  __device__ __forceinline__ std::uint32_t operator()(const K& key) const {
    std::uint32_t id = 0;
    return checked_id(bucket_of, key, kept, id) ? id : kept;
  }
};

/// The one histogram pass of bucket digits (count_digit_starts's Digits), 2^DigitBits of them.
template <class BucketOf, int DigitBits>
struct bucket_digits {
  static constexpr int max_passes = 1;
  static constexpr int bins = 1 << DigitBits;
  bucket_digit<BucketOf> digit[1];
  int passes = 1;
};

/// offsets[b] = starts[b] for b < m and offsets[m] = the kept count: starts[m], the start of the drop
/// digit, or n where m = Digits (no drop digit, none dropped); dropped = n − kept. Each may be null. One
/// block of Digits ≥ m threads.
template <std::uint32_t Digits>
__global__ void onesweep_counts_kernel(const unsigned long long* starts, std::uint32_t m, std::size_t n,
                                       std::size_t* offsets, std::size_t* dropped) {
  if (offsets && threadIdx.x < m) offsets[threadIdx.x] = starts[threadIdx.x];
  if (threadIdx.x == 0) {
    const std::size_t kept = m < Digits ? starts[m] : n;
    if (offsets) offsets[m] = kept;
    if (dropped) *dropped = n - kept;
  }
}

template <class Offset, int DigitBits, class K, class V, class BucketOf>
void run_onesweep_with(context& ctx, const pass_io<K, V>& io, BucketOf bucket_of, std::uint32_t m,
                       std::size_t* offsets, std::size_t* dropped) {
  const bucket_digit<BucketOf> digit{bucket_of, m};
  onesweep::onesweep_sort<K, V, Offset, bucket_digit<BucketOf>, DigitBits> onesweep(
      ctx, io.keys_in, io.n, bucket_digits<BucketOf, DigitBits>{{digit}});
  onesweep.pass(io.keys_in, io.values_in, io.keys_out, io.values_out, digit);
  if (offsets || dropped) {
    constexpr std::uint32_t digits = 1u << DigitBits;
    onesweep_counts_kernel<digits><<<1, digits, 0, ctx.stream()>>>(onesweep.digit_starts(0), m, io.n, offsets, dropped);
    SLUICE_CHECK_LAUNCH();
  }
}

template <int DigitBits, class K, class V, class BucketOf>
void run_onesweep_digits(context& ctx, const pass_io<K, V>& io, BucketOf bucket_of, std::uint32_t m,
                         std::size_t* offsets, std::size_t* dropped) {
  if (io.n <= std::numeric_limits<std::uint32_t>::max())
    run_onesweep_with<std::uint32_t, DigitBits>(ctx, io, bucket_of, m, offsets, dropped);
  else run_onesweep_with<unsigned long long, DigitBits>(ctx, io, bucket_of, m, offsets, dropped);
}

/// The onesweep strategy for 1 ≤ m ≤ 511 buckets and n ≥ 1 elements: the digits 0 … m − 1 (and m, the
/// dropped keys, if may_drop) ranked at the narrowest compiled width (plan.hpp's onesweep_digit_bits: 32,
/// 64, 256 or 512 digits, the last two per thread of the rank and the look-back); 32-bit output offsets
/// while n fits them (fewer registers, as the radix sort). Without a drop digit, a partial tile's padding
/// takes the last real digit; it ranks behind every key of the tile and is never written.
template <class K, class V, class BucketOf>
void run_onesweep(context& ctx, const pass_io<K, V>& io, BucketOf bucket_of, std::uint32_t m, bool may_drop,
                  std::size_t* offsets, std::size_t* dropped) {
  constexpr const int(&widths)[4] = tuning::onesweep_digit_widths;
  switch (onesweep_digit_bits(m, may_drop)) {
    case widths[0]: return run_onesweep_digits<widths[0]>(ctx, io, bucket_of, m, offsets, dropped);
    case widths[1]: return run_onesweep_digits<widths[1]>(ctx, io, bucket_of, m, offsets, dropped);
    case widths[2]: return run_onesweep_digits<widths[2]>(ctx, io, bucket_of, m, offsets, dropped);
    default: return run_onesweep_digits<widths[3]>(ctx, io, bucket_of, m, offsets, dropped);
  }
}

}  // namespace sluice::detail::multisplit
