// sluice/detail/onesweep/dispatch.cuh: the onesweep LSD radix sort (Adinets & Merrill, "Onesweep: A
// Faster Least Significant Digit Radix Sort for GPUs", 2022), the design of CUB's DeviceRadixSort. It is
// not from sluice's seeds: the seeds' radix sort runs each pass as a whole multisplit (prescan, device
// scan, postscan), which reads the keys twice per pass and cannot reach CUB's speed.
//
//   histograms  once per sort: one read of the keys counts the 8-bit digit of every pass at once, in
//               per-block shared-memory counters (privatised copies against contention), added into
//               passes × 256 global counters; a small kernel turns each pass's counts into digit starts.
//   one pass    one kernel. A block takes the next tile from a counter (so tiles start in order and a
//               look-back never waits for a tile that is not running), loads its keys warp-striped, and
//               ranks them stably by digit within the tile (cub::BlockRadixRankMatchEarlyCounts: per-warp
//               match_any histograms give the tile's digit counts before the ranks). The counts are
//               published at once, one status word per (tile, digit); thread d then looks back over the
//               earlier tiles' words of digit d until it meets an inclusive count, which gives where the
//               tile's run of digit d goes. The keys are staged in shared memory in digit order and
//               written so that consecutive threads write consecutive positions of a digit's run; then
//               the values the same way, staged in the keys' place (or beside them, before the
//               look-back, where the pass ranks precomputed digits: onesweep_storage).
//
// Portions: a status word has 30 bits of count, so the input is sorted in portions of at most 2^30 − 1
// keys (a whole number of tiles), each with zeroed status words; the last tile of a portion writes the
// next portion's digit starts (its own run's start plus its count). Any n works. CUB's portions are
// 2^28 keys, which splits a pass over exactly 2^28 keys into a full launch and one of a single partial
// tile; ours take every n < 2^30 in one (docs/perf-notes.md, onesweep portions).
//
// Work O(n) per pass. Traffic per pass: keys (and values) read once and written once; status words,
// 4 bytes per digit and tile (1 KiB per 7680 u32 keys at 256 digits), zeroed, written twice and read by
// the next tile (mostly in L2). Once per sort: one more read of the keys for the histograms. A u32 sort
// of 32 bits: 4 passes of 8 bytes per key + 4 = 36 bytes per key (the multisplit strategy: 60).
//
// What is CUB's: the design, the tile shapes (onesweep_shape) and the block-level rank. What is ours:
// the kernels around the rank, the digits (radix_digit: any key type, bit range and direction) and the
// padding of partial tiles by radix_key_of. multisplit's onesweep strategy (detail/multisplit/onesweep.cuh)
// runs one pass of this kernel over bucket digits, which may drop keys (drops_digits).
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/core/scratch.hpp>
#include <sluice/core/values.hpp>
#include <sluice/detail/onesweep/histogram.cuh>
#include <sluice/detail/onesweep/pass.cuh>
#include <sluice/detail/onesweep/pass_plan.hpp>
#include <sluice/detail/onesweep/tuning.hpp>
#include <sluice/detail/onesweep/workspace.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

namespace sluice::detail::onesweep {

// ---- the sort --------------------------------------------------------------------------------------------

/// The passes of one onesweep sort of n ≥ 1 keys (and values; V = no_values: none) by `plan`, with
/// output offsets of type Offset (wide enough for n): the constructor counts every pass's digits (one
/// read of the keys), then pass() runs the plan's passes in order, each one kernel per portion.
/// detail/radix_sort/dispatch.cuh's run_passes chooses where each pass reads and writes. Digit: see
/// drops_digits (multisplit's onesweep strategy runs one pass of its bucket digits, DigitBits wide). Packed pairs
/// (K = packed_word, Digit = packed_digit) count the caller's keys and read and write each pass through
/// pointers to packed words or through pair_reader and pair_writer (packed_pairs.cuh).
template <class K, class V, class Offset, class Digit = radix_digit<K>, int DigitBits = max_pass_bits>
class onesweep_sort {
 public:
  using shape = onesweep_shape<K, V, Offset, DigitBits, drops_digits<Digit>>;

  onesweep_sort(context& ctx, const K* keys, std::size_t n, const pass_plan& plan, bool descending,
                void* workspace = nullptr)
      : onesweep_sort(ctx, keys, n, digits_of<K>(plan, descending), workspace) {}

  /// The passes of `digits` (count_digit_starts's Digits, counted over `keys`: K's, or, for packed
  /// pairs, the caller's keys), digits.passes of them. workspace: null (storage from the context's pool),
  /// or a caller's block of plan_workspace(n, …).bytes (workspace.hpp), zeroed here by one memset.
  template <class CountedKey, class Digits>
  onesweep_sort(context& ctx, const CountedKey* keys, std::size_t n, const Digits& digits, void* workspace = nullptr)
      : ctx_(ctx),
        n_(n),
        portions_(ceil_div(n, shape::portion)),
        passes_(static_cast<std::size_t>(digits.passes)),
        layout_(plan_workspace(n, digits.passes, shape::tile, shape::portion, shape::digits)),
        status_per_pass_(workspace != nullptr),
        own_starts_(ctx, workspace ? 0 : portions_ * passes_ * shape::digits),
        own_tile_counters_(ctx, workspace ? 0 : portions_ * passes_),
        own_status_(ctx, workspace ? 0 : layout_.status_words),
        starts_(workspace ? static_cast<unsigned long long*>(workspace) : own_starts_.get()),
        tile_counters_(workspace ? reinterpret_cast<std::uint32_t*>(static_cast<unsigned char*>(workspace) +
                                                                    layout_.tile_counters)
                                 : own_tile_counters_.get()),
        status_(workspace ? reinterpret_cast<std::uint32_t*>(static_cast<unsigned char*>(workspace) + layout_.status)
                          : own_status_.get()) {
    check_storage(ctx);
    if (workspace) {
      SLUICE_CUDA_CHECK(cudaMemsetAsync(workspace, 0, layout_.bytes, ctx.stream()));
    } else {
      SLUICE_CUDA_CHECK(
          cudaMemsetAsync(starts_, 0, passes_ * shape::digits * sizeof(unsigned long long), ctx.stream()));
      SLUICE_CUDA_CHECK(cudaMemsetAsync(tile_counters_, 0, portions_ * passes_ * sizeof(std::uint32_t), ctx.stream()));
    }
    static_assert(Digits::bins == shape::digits, "the histograms count the digits the pass ranks");
    count_digit_starts(ctx, keys, n, digits, starts_);
  }

  /// The next pass of the plan, by `digit`, from (from, from_values) to (to, to_values).
  void pass(const K* from, const V* from_values, K* to, V* to_values, Digit digit) {
    pass_through(from, from_values, to, to_values, digit);
  }

  /// The next pass of the plan, by `digit`, reading the keys through `from` and writing them through
  /// `to` (pointers, or packed_pairs.cuh's pair_reader and pair_writer).
  template <class In, class Out>
  void pass_through(In from, const V* from_values, Out to, V* to_values, Digit digit) {
    const auto kernel = onesweep_kernel<shape, K, V, Digit, In, Out>;
    SLUICE_CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(storage_bytes)));
    // The pass's status array: the workspace's own one for this pass (portion 0's zeroed already), or
    // the one array of the pool's storage.
    std::uint32_t* status = status_ + (status_per_pass_ ? next_pass_ * layout_.status_words : 0);
    for (std::size_t q = 0; q < portions_; ++q) {
      const std::size_t begin = q * shape::portion;
      const auto count = static_cast<std::uint32_t>(std::min(shape::portion, n_ - begin));
      const std::size_t tiles = ceil_div(count, shape::tile);
      if (!status_per_pass_ || q > 0)
        SLUICE_CUDA_CHECK(cudaMemsetAsync(status, 0, tiles * shape::digits * sizeof(std::uint32_t), ctx_.stream()));
      onesweep_portion<K, V, Digit, In, Out> work{from + begin, nullptr, to, to_values, count, digit,
                                                  starts(q, next_pass_),
                                                  q + 1 < portions_ ? starts(q + 1, next_pass_) : nullptr,
                                                  status, tile_counters_ + q * passes_ + next_pass_};
      if constexpr (has_values<V>) work.values_in = from_values + begin;
      kernel<<<static_cast<unsigned>(tiles), shape::threads, storage_bytes, ctx_.stream()>>>(work);
      SLUICE_CHECK_LAUNCH();
    }
    ++next_pass_;
  }

  /// Where each digit begins in pass p's output (shape::digits entries): the histogram's exclusive scan.
  const unsigned long long* digit_starts(std::size_t p) const { return starts(0, p); }

 private:
  static constexpr std::size_t storage_bytes = onesweep_storage_bytes<shape, K, V>;
  static_assert(storage_bytes <= onesweep_max_storage_bytes, "two blocks of the pass kernel fit an SM");
  static_assert(alignof(onesweep_storage<shape, K, V>) <= 16, "the dynamic shared memory is 16-byte aligned");

  /// The pass kernel takes its storage as dynamic shared memory past the 48 KiB a block has without
  /// opting in (each pass_through lets its kernel): a device with less to give is refused with a clear
  /// message.
  static void check_storage(const context& ctx) {
    if (storage_bytes > ctx.properties().shared_memory_per_block_optin)
      throw invalid_argument("onesweep", "values",
                             "this key and value type needs " + std::to_string(storage_bytes) +
                                 " bytes of shared memory per block; the device gives " +
                                 std::to_string(ctx.properties().shared_memory_per_block_optin));
  }

  /// Portion q's digit starts in pass p: portion 0's from the histograms, each later portion's from the
  /// last tile of the portion before it in the same pass.
  unsigned long long* starts(std::size_t q, std::size_t p) const { return starts_ + (q * passes_ + p) * shape::digits; }

  context& ctx_;
  std::size_t n_;
  std::size_t portions_;
  std::size_t passes_;
  workspace_layout layout_;
  bool status_per_pass_;  ///< a caller's workspace: one status array per pass (workspace.hpp)
  scratch<unsigned long long> own_starts_;     ///< without a workspace: the starts from the pool
  scratch<std::uint32_t> own_tile_counters_;  ///< … the tile counters
  scratch<std::uint32_t> own_status_;         ///< … and one status array, zeroed before each kernel
  unsigned long long* starts_;                ///< [portion][pass][digit]
  std::uint32_t* tile_counters_;              ///< [portion][pass], zeroed
  std::uint32_t* status_;                     ///< [tile][digit] of a portion (a pass's, with a workspace)
  std::size_t next_pass_ = 0;
};

}  // namespace sluice::detail::onesweep
