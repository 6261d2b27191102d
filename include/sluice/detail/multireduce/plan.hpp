// sluice/detail/multireduce/plan.hpp: the host-side decisions of multireduce: which strategy
// `automatic` runs, whether an explicit strategy can run the operator and value, and the shared-memory
// layout of the per-bank strategy (Eilers §4.4c on a device with far more shared memory than the
// seed's 48 KiB). Pure C++ over numbers read from the device, so the host tests cover every rule.
//
// The automatic choice (Eilers §4.7's summary; its thresholds, and what measured them, in tuning.hpp):
//   order required (non-commutative operator, or options.deterministic), or a value that is not 4 or 8
//   bytes (no atomic word):   vector for m ≤ 4, warp_private_sets for m ≤ 1024 while its sets leave two
//                             blocks per SM, block_sort_segmented for m ≤ 4096,
//                             global_sort_reduce_by_key beyond (the seed's order-preserving ladder);
//   commutative, 4/8 bytes:   per_bank_shared while one block holds one set of m buckets,
//                             per_bank_multi_pass while that takes at most a few passes (tuning.hpp),
//                             global_atomic_sets beyond (Table 4.1: in-L2 global sets stay fast), with
//                             the partial radix sort once its sets leave half the L2 (Table 4.2;
//                             choose_partial_sort_bits).
//
// The per-bank layout: `sets` bucket sets of the window's buckets per block, set s of bucket b at
// b·sets + s, so that with 32 sets and 4-byte values set s lives in bank s (Alg. 4.10). More sets
// spread a warp's atomics over more addresses (fewer same-address collisions on skewed input); more
// resident blocks per SM hide more latency. The rule puts occupancy first (docs/perf-notes.md, "Buckets
// past one block"): the most sets (a power of two ≤ 32) with which four blocks fit an SM; where not
// even one set leaves four, the most with two blocks; then the most one block holds (down to a single
// set: the block-privatised histogram of CUB, up to shared_per_block / sizeof(T) buckets, 58 112 u32 on
// an H100). Runs of equal labels are folded before their atomic (pair_walk.cuh), so fewer sets cost
// little on degenerate input.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/operators.hpp>
#include <sluice/detail/multireduce/tuning.hpp>
#include <sluice/detail/onesweep/pass_plan.hpp>
#include <sluice/detail/partial_sort/plan.hpp>
#include <sluice/options/multireduce.hpp>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <string>

namespace sluice::detail::multireduce {

/// The dynamic shared memory of one warp_private_sets block: a set of m buckets per warp.
[[nodiscard]] constexpr std::size_t warp_sets_shared_bytes(std::uint64_t m, std::size_t value_bytes) {
  return static_cast<std::size_t>(tuning::warp_sets_warps * m * value_bytes);
}

/// Bucket sets of the per-bank strategy: at most one per shared-memory bank.
inline constexpr unsigned per_bank_max_sets = 32;

/// The most sets (a power of two ≤ 32) of `buckets` values of `value_bytes` within `budget` bytes; 0 if
/// not even one set fits.
[[nodiscard]] constexpr unsigned sets_within(std::uint64_t buckets, std::size_t value_bytes, std::size_t budget) {
  unsigned sets = per_bank_max_sets;
  while (sets > 0 && std::uint64_t{sets} * buckets * value_bytes > budget) sets /= 2;
  return sets;
}

/// The per-bank shared-memory layout of one block.
struct per_bank_layout {
  unsigned sets = 0;           ///< 0: the window does not fit
  std::size_t shared_bytes = 0;
  friend constexpr bool operator==(const per_bank_layout&, const per_bank_layout&) = default;
};

/// Shared memory a kernel may use: per block (after opting in), and each of two or four blocks resident
/// on one SM, all net of what the kernel's static shared memory and the system's per-block reserve take.
struct shared_budget {
  std::size_t per_block = 0;
  std::size_t two_blocks_each = 0;
  std::size_t four_blocks_each = 0;
};

/// The layout for a window of `buckets` values (header comment: the most sets that leave four blocks an
/// SM, else two, else one).
[[nodiscard]] constexpr per_bank_layout choose_per_bank_layout(std::uint32_t buckets, std::size_t value_bytes,
                                                               const shared_budget& budget) {
  for (const std::size_t each : {budget.four_blocks_each, budget.two_blocks_each, budget.per_block}) {
    const unsigned sets = sets_within(buckets, value_bytes, each);
    if (sets != 0) return {sets, std::size_t{sets} * buckets * value_bytes};
  }
  return {};
}

/// The most buckets per_bank_shared holds in one pass (one set).
[[nodiscard]] constexpr std::uint64_t per_bank_capacity(std::size_t value_bytes, const shared_budget& budget) {
  return budget.per_block / value_bytes;
}

/// Passes per_bank_multi_pass makes over the input for m buckets: the fewest whose windows one block
/// holds in one set (each pass reads every pair; one more pass costs more than the occupancy that
/// smaller windows would buy: docs/perf-notes.md, "Buckets past one block"). At least one.
[[nodiscard]] constexpr std::uint32_t multi_pass_count(std::uint32_t m, std::size_t value_bytes,
                                                       const shared_budget& budget) {
  const std::uint64_t capacity = std::max<std::uint64_t>(per_bank_capacity(value_bytes, budget), 1);
  return static_cast<std::uint32_t>(std::max<std::uint64_t>((m + capacity - 1) / capacity, 1));
}

/// Buckets per pass of per_bank_multi_pass: m split evenly over multi_pass_count passes.
[[nodiscard]] constexpr std::uint32_t multi_pass_window(std::uint32_t m, std::size_t value_bytes,
                                                        const shared_budget& budget) {
  const std::uint32_t passes = multi_pass_count(m, value_bytes, budget);
  return static_cast<std::uint32_t>((std::uint64_t{m} + passes - 1) / passes);
}

/// The sets global_atomic_sets chooses (options.sets = 0): the most, up to 8, whose sets · m values
/// stay within half the L2 (Table 4.1: time is a function of sets · m, with a cliff once it leaves
/// the L2); one set, straight into out, where even one set does not fit.
[[nodiscard]] constexpr unsigned choose_global_sets(std::uint32_t m, std::size_t value_bytes, std::size_t l2_bytes) {
  unsigned sets = tuning::global_max_chosen_sets;
  while (sets > 1 && std::uint64_t{sets} * m * value_bytes > l2_bytes / tuning::global_sets_l2_divisor) sets /= 2;
  return sets;
}

/// ⌈log2 m⌉: the bits of a label below m (0 for m = 1). The partial sort takes its top bits.
[[nodiscard]] constexpr int label_bits(std::uint32_t m) { return key_bits_below(m); }

/// The partial sort bits global_atomic_sets chooses (options.partial_sort_bits = −1) for m buckets in
/// `sets` sets of `value_bytes`, on an L2 of `l2_bytes` (read from the device). Derived from the seed's
/// tables; measured on uniform labels only (tuning.hpp, global_sets_l2_divisor).
///   - 0 while sets · m values fit half the L2, the budget of choose_global_sets: Table 4.1 is fast
///     there, and Table 4.2's best at log2 m = 14 (2^16 four-byte buckets in all sets: half the seed's
///     512 KiB L2) sorted by 0 bits, at log2 m = 16 (the whole L2) by 2; a sort would only add passes.
///   - Beyond, enough top bits that one window, sets · 2^(log2 m − b) values, fits the same budget
///     (the cliff of Table 4.1 is where sets · m leaves the L2; the sort's job is to bring what the
///     grid touches at once back under it), rounded up to whole digits of the radix sort (8 bits for
///     onesweep): the seed's "sortBits should be a multiple of five", SRTS's digit, since sorting by
///     fewer bits than a whole digit costs the same pass. The rounding also leaves the windows far
///     below the budget, the margin for warps that drift apart along the sorted pairs. At most
///     log2 m bits (a full sort).
/// The seed's best "rest complexity" log2(sets · m) − b was 6 to 8 on a 512 KiB L2 (windows of 1/1024
/// of it), with blocks in their own segments of the input, whose current windows all had to fit at once
/// (§4.5.1, the sorted scatter; a strided walk there tolerated one bit more). This rule gives 16 on an
/// H100 at m = 2^24 (b = 8, one pass): the whole grid walks the sorted pairs together (pair_walk.cuh's
/// grid stride), so the atomics touch about one grid step's stretch of sorted pairs at a time, plus
/// however far the warps drift apart; windows smaller than that stretch buy nothing. For 2^28 pairs at
/// m = 2^24, a step (about 2^21 pairs on an H100) spans m / 128 buckets, and b = 8 windows are m / 256.
/// The seed warns that the scheduler, not the code, decides the drift: bench/cases/multireduce.cu
/// measures 8 and 16 bits beside this choice. The rule itself is detail/partial_sort/plan.hpp's
/// window_sort_bits with a bucket's sets as the slot, shared with scatter's partial_sort.
[[nodiscard]] constexpr int choose_partial_sort_bits(std::uint32_t m, unsigned sets, std::size_t value_bytes,
                                                     std::size_t l2_bytes) {
  return window_sort_bits(m, std::uint64_t{sets} * value_bytes, l2_bytes / tuning::global_sets_l2_divisor);
}

/// What the choice depends on.
struct problem {
  bool commutative = true;
  bool deterministic = false;
  std::size_t value_bytes = 4;
  std::uint32_t m = 1;
  shared_budget shared;
};

[[nodiscard]] constexpr bool is_atomic_strategy(multireduce_algorithm a) {
  return a == multireduce_algorithm::per_bank_shared || a == multireduce_algorithm::per_bank_multi_pass ||
         a == multireduce_algorithm::global_atomic_sets;
}

/// The strategy `automatic` runs (header comment).
[[nodiscard]] constexpr multireduce_algorithm choose(const problem& p) {
  const bool atomic_word = p.value_bytes == 4 || p.value_bytes == 8;
  if (!p.commutative || p.deterministic || !atomic_word) {
    if (p.m <= tuning::automatic_vector_max_buckets) return multireduce_algorithm::vector;
    if (p.m <= tuning::automatic_warp_sets_max_buckets &&
        warp_sets_shared_bytes(p.m, p.value_bytes) <= p.shared.two_blocks_each)
      return multireduce_algorithm::warp_private_sets;
    if (p.m <= tuning::automatic_block_sort_max_buckets) return multireduce_algorithm::block_sort_segmented;
    return multireduce_algorithm::global_sort_reduce_by_key;
  }
  if (sets_within(p.m, p.value_bytes, p.shared.per_block) >= tuning::automatic_per_bank_min_sets)
    return multireduce_algorithm::per_bank_shared;
  if (multi_pass_count(p.m, p.value_bytes, p.shared) <= tuning::automatic_multi_pass_max_passes)
    return multireduce_algorithm::per_bank_multi_pass;
  return multireduce_algorithm::global_atomic_sets;
}

/// Why an explicit strategy cannot run this problem; empty when it can.
[[nodiscard]] inline std::string strategy_problem(multireduce_algorithm a, const problem& p) {
  const std::string name(to_string(a));
  if (is_atomic_strategy(a)) {
    if (!p.commutative)
      return name + " combines values by atomics in any order: it needs a commutative operator "
                    "(sluice::is_commutative_v)";
    if (p.deterministic)
      return name + " combines values by atomics in a scheduling-dependent order: not options.deterministic";
    if (p.value_bytes != 4 && p.value_bytes != 8)
      return name + " combines 4- or 8-byte values by atomics, not " + std::to_string(p.value_bytes) + "-byte ones";
  }
  if (a == multireduce_algorithm::vector && p.m > tuning::vector_max_buckets)
    return "vector keeps m accumulators per thread: at most " + std::to_string(tuning::vector_max_buckets) +
           " buckets, not m = " + std::to_string(p.m);
  if (a == multireduce_algorithm::warp_private_sets && warp_sets_shared_bytes(p.m, p.value_bytes) > p.shared.per_block)
    return "warp_private_sets keeps " + std::to_string(tuning::warp_sets_warps) +
           " sets of m buckets per block: at most " +
           std::to_string(p.shared.per_block / (tuning::warp_sets_warps * p.value_bytes)) + " buckets of " +
           std::to_string(p.value_bytes) + " bytes on this device, not m = " + std::to_string(p.m);
  if (a == multireduce_algorithm::per_bank_shared && p.m > per_bank_capacity(p.value_bytes, p.shared))
    return "per_bank_shared holds at most " + std::to_string(per_bank_capacity(p.value_bytes, p.shared)) +
           " buckets of " + std::to_string(p.value_bytes) + " bytes in this device's shared memory, not m = " +
           std::to_string(p.m) + " (per_bank_multi_pass and global_atomic_sets take any m)";
  return {};
}

/// Why the global_atomic_sets parameters are invalid for m buckets (whatever the strategy); empty when
/// they are not.
[[nodiscard]] inline std::string options_problem(const multireduce_options& options, std::uint32_t m) {
  if (options.sets != 0 && (options.sets > per_bank_max_sets || (options.sets & (options.sets - 1)) != 0))
    return "sets = " + std::to_string(options.sets) + ": must be 0 (chosen) or a power of two up to 32";
  if (options.partial_sort_bits < -1)
    return "partial_sort_bits = " + std::to_string(options.partial_sort_bits) + ": must be -1 (chosen) or >= 0";
  if (options.partial_sort_bits > label_bits(m))
    return "partial_sort_bits = " + std::to_string(options.partial_sort_bits) + ": a label below m = " +
           std::to_string(m) + " has " + std::to_string(label_bits(m)) + " bits, so at most " +
           std::to_string(label_bits(m)) + " (a full sort)";
  return {};
}

/// The shared memory a kernel with `static_bytes` of its own may take on the context's device.
[[nodiscard]] inline shared_budget device_shared_budget(const context& ctx, std::size_t static_bytes) {
  const device_properties& p = ctx.properties();
  int reserved = 0;
  SLUICE_CUDA_CHECK(cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, p.device));
  const std::size_t per_block_overhead = static_bytes + static_cast<std::size_t>(reserved);
  auto net = [&](std::size_t bytes) { return bytes > per_block_overhead ? bytes - per_block_overhead : 0; };
  return {net(p.shared_memory_per_block_optin + static_cast<std::size_t>(reserved)),
          net(p.shared_memory_per_sm / 2), net(p.shared_memory_per_sm / 4)};
}

/// What a call runs, decided once before it runs: the strategy and, for global_atomic_sets, its sets
/// and partial sort bits.
struct plan {
  multireduce_algorithm algorithm = multireduce_algorithm::automatic;
  unsigned sets = 1;          ///< global_atomic_sets: options.sets, or choose_global_sets's
  int partial_sort_bits = 0;  ///< global_atomic_sets: options.partial_sort_bits, or choose_partial_sort_bits's
};

/// The plan: options.algorithm checked against the problem, or automatic's choice; for global_atomic_sets
/// the options' sets and sort bits, or those chosen from m and the device's L2.
template <class T, class Op>
[[nodiscard]] plan resolve(const context& ctx, const char* function, std::uint32_t m, std::size_t /*n*/,
                           const multireduce_options& options) {
  require_known_algorithm(function, options.algorithm, "multireduce_algorithm");
  const problem p{is_commutative_v<Op>, options.deterministic, sizeof(T), m, device_shared_budget(ctx, 0)};
  std::string why = options_problem(options, m);
  if (why.empty() && options.algorithm != multireduce_algorithm::automatic) why = strategy_problem(options.algorithm, p);
  if (!why.empty()) throw invalid_argument(function, "options", why);
  plan chosen{options.algorithm == multireduce_algorithm::automatic ? choose(p) : options.algorithm};
  if (chosen.algorithm == multireduce_algorithm::global_atomic_sets) {
    const std::size_t l2_bytes = ctx.properties().l2_cache_bytes;
    chosen.sets = options.sets != 0 ? options.sets : choose_global_sets(m, sizeof(T), l2_bytes);
    chosen.partial_sort_bits = options.partial_sort_bits >= 0
                                   ? options.partial_sort_bits
                                   : choose_partial_sort_bits(m, chosen.sets, sizeof(T), l2_bytes);
  }
  return chosen;
}

}  // namespace sluice::detail::multireduce
