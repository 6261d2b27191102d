// sluice/detail/quicksort/palik_rounds.cuh: the driver of Palik's segmented quicksort (§6.2): rounds of
// parallel_partition until no segment is left unsorted.
//
// One round, over all segments at once (head flags mark the segments):
//   seg_copy      segmented scan of the positions with x ⊕ y = x: starts[i] = first position of i's segment
//   pivots        one per segment, by the pivot rule                     (round_kernels.cuh)
//   F             classify every key against its segment's pivot: <, ≡, >
//   seg_split     segmented +-scan of the class counts, the segment totals, the stable 3-way scatter;
//                 the first element of each non-empty class becomes a segment head (new_seg_flags)
// Palik loops `while (!sorted(a))`; here the split reports whether any < or > part has two or more
// elements (a segment that still needs a round): a 4-byte readback and one stream synchronisation per
// round. The ≡ part is final the moment it is formed (all its keys are equivalent), and parts of one
// element are final too; later rounds leave both in place (they split into a lone ≡ part).
//
// Cost per round: two segmented scans (positions, class counts) and four element-wise passes, about
// 53 + 3·sizeof(K) bytes of traffic per element with 32-bit positions (65 for u32 keys), whatever the
// segment sizes, plus the readback. Rounds: the depth of the quicksort recursion under the pivot rule
// (docs/quicksort.md). Storage: 2·sizeof(K) + 26 bytes per element from the context's pool.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/device_buffer.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/detail/quicksort/round_kernels.cuh>
#include <sluice/detail/segmented/dispatch.cuh>


#include <cstddef>
#include <cstdint>
#include <string>

namespace sluice::detail::quicksort {

/// Everything a round needs besides the keys, from the context's pool. C counts positions (32-bit below
/// 2^32 elements).
template <class K, class C>
struct round_storage {
  round_storage(context& ctx, std::size_t n)
      : spare_keys(ctx, n), heads{device_buffer<std::uint8_t>(ctx, n), device_buffer<std::uint8_t>(ctx, n)},
        positions(ctx, n), starts(ctx, n), pivots(ctx, n), one_hot_then_totals(ctx, n), ranks(ctx, n),
        unsorted_left(ctx, 1) {}

  device_buffer<K> spare_keys;            ///< the keys' ping-pong partner of the output
  device_buffer<std::uint8_t> heads[2];   ///< segment heads of this round and the next
  device_buffer<C> positions;             ///< 0, 1, …, n − 1: what seg_copy broadcasts
  device_buffer<C> starts;                ///< start of each element's segment
  device_buffer<K> pivots;                ///< pivots[s] for the segment starting at s
  device_buffer<split_counts<C>> one_hot_then_totals;  ///< class counts; then, at segment starts, (L, E)
  device_buffer<split_counts<C>> ranks;   ///< inclusive class counts within the segment
  device_buffer<unsigned> unsorted_left;  ///< set by the split when some segment needs another round
};

template <class Kernel, class... Args>
void launch_elementwise(context& ctx, Kernel kernel, std::size_t n, Args... args) {
  const std::size_t grid = one_wave_grid(ctx, kernel, block_threads, ceil_div(n, block_threads));
  kernel<<<static_cast<unsigned>(grid), block_threads, 0, ctx.stream()>>>(args...);
  SLUICE_CHECK_LAUNCH();
}

/// One parallel_partition: splits every segment of `keys` (heads) into `keys_out` (heads_out).
template <class K, class C, class Less>
void partition_round(context& ctx, round_storage<K, C>& s, const K* keys, const std::uint8_t* heads, K* keys_out,
                     std::uint8_t* heads_out, std::size_t n, pivot_rule_id rule, Less less) {
  segmented::inclusive_scan_by_flags(ctx, s.positions.data(), heads, s.starts.data(), n, take_first{});
  const C* starts = s.starts.data();
  launch_elementwise(ctx, choose_pivots_kernel<K, C, Less>, n, keys, heads, starts, n, rule, less, s.pivots.data());
  launch_elementwise(ctx, classify_kernel<K, C, Less>, n, keys, starts, static_cast<const K*>(s.pivots.data()), n,
                     less, s.one_hot_then_totals.data());
  segmented::inclusive_scan_by_flags(ctx, s.one_hot_then_totals.data(), heads, s.ranks.data(), n, add_split_counts{});
  const split_counts<C>* ranks = s.ranks.data();
  launch_elementwise(ctx, record_totals_kernel<C>, n, ranks, heads, starts, n, s.one_hot_then_totals.data());
  SLUICE_CUDA_CHECK(cudaMemsetAsync(s.unsorted_left.data(), 0, sizeof(unsigned), ctx.stream()));
  launch_elementwise(ctx, split_kernel<K, C, Less>, n, keys, starts, static_cast<const K*>(s.pivots.data()), ranks,
                     static_cast<const split_counts<C>*>(s.one_hot_then_totals.data()), n, less, keys_out, heads_out,
                     s.unsorted_left.data());
}

/// The first round's segment heads: the caller's, or one segment of everything.
inline void initial_heads(context& ctx, std::uint8_t* heads, const std::uint8_t* given, std::size_t n) {
  if (given) {
    SLUICE_CUDA_CHECK(cudaMemcpyAsync(heads, given, n, cudaMemcpyDeviceToDevice, ctx.stream()));
    return;
  }
  SLUICE_CUDA_CHECK(cudaMemsetAsync(heads, 0, n, ctx.stream()));
  SLUICE_CUDA_CHECK(cudaMemsetAsync(heads, 1, 1, ctx.stream()));
}

[[nodiscard]] inline bool read_flag(context& ctx, const unsigned* flag) {
  unsigned host = 0;
  SLUICE_CUDA_CHECK(cudaMemcpyAsync(&host, flag, sizeof host, cudaMemcpyDeviceToHost, ctx.stream()));
  ctx.synchronize();
  return host != 0;
}

/// Sorts keys[0, n) into out (n ≥ 2; out may equal keys) within the segments `given_heads` marks (null:
/// one segment); returns the number of rounds. After `max_rounds` rounds with segments still unsorted,
/// out holds the permutation reached so far and invalid_argument names options.max_rounds.
template <class C, class K, class Less>
std::size_t sort_by_rounds(context& ctx, const char* function, const K* keys, const std::uint8_t* given_heads, K* out,
                    std::size_t n, pivot_rule_id rule, std::size_t max_rounds, Less less) {
  round_storage<K, C> s(ctx, n);
  launch_elementwise(ctx, fill_positions_kernel<C>, n, s.positions.data(), n);
  initial_heads(ctx, s.heads[0].data(), given_heads, n);
  K* const spare = s.spare_keys.data();
  const K* from = keys;
  K* to = keys == out ? spare : out;
  int heads = 0;
  std::size_t rounds = 0;
  bool unsorted = true;
  while (unsorted) {
    if (rounds == max_rounds) {
      if (from != out) SLUICE_CUDA_CHECK(cudaMemcpyAsync(out, from, n * sizeof(K), cudaMemcpyDeviceToDevice, ctx.stream()));
      throw invalid_argument(function, "options.max_rounds",
                             "(" + std::to_string(max_rounds) +
                                 ") was reached with segments still unsorted: the input defeats the pivot rule "
                                 "(out holds a partly sorted permutation of the keys)");
    }
    partition_round(ctx, s, from, s.heads[heads].data(), to, s.heads[1 - heads].data(), n, rule, less);
    ++rounds;
    from = to;
    to = to == out ? spare : out;
    heads = 1 - heads;
    unsorted = read_flag(ctx, s.unsorted_left.data());
  }
  if (from != out) SLUICE_CUDA_CHECK(cudaMemcpyAsync(out, from, n * sizeof(K), cudaMemcpyDeviceToDevice, ctx.stream()));
  return rounds;
}

}  // namespace sluice::detail::quicksort
