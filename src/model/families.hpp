// src/model/families.hpp: the SPT counts of sluice's kernels (Karsin's two-phase analysis, §4.8: the
// asymptotic counts of each kernel, then the constants of its dominant regions, read off the code). Each
// function builds the kernels a dispatch launches for a problem, with the launch plan the dispatch would
// choose (grid, block, shared bytes from the same tuning tables, registers from the compiled kernels) and
// the device-wide operation counts of every kernel:
//   pairwise_merge_sort  detail/merge_sort/pairwise.cuh: block sort, then ⌈log2(n/tile)⌉ rounds of
//                        partition + merge (Karsin §7.1, MGPU), β from detail/merge_sort/bank_model.hpp
//   gpu_mms_sort         detail/merge_sort/gpu_mms.cuh: w² base case, K-way MinBlockHeap rounds with their
//                        multiway partitions (§7.3)
//   batched_search       detail/search/kernels.cuh: binary search on the sorted array, or the eytzinger /
//                        B-tree walk with its top levels cached in shared memory (§6.1)
//   streaming            one read (and write) of every element: copy, reduce, an exclusive scan
//   vector_tiled_transpose  detail/transpose/vector_tiled.cuh: 16 KiB swizzled tiles, 16-byte accesses
//   byte_counts_histogram   detail/histogram/byte_counts.cuh: 1-byte samples counted by value
//   direct_gather        detail/scatter/gather.cuh: indices and output coalesced, values by index
//   direct_scatter       detail/scatter/scatter.cuh (any_writer): indices and values coalesced, stores by index
// Global traffic is coalesced words of g (DRAM) or l2 (L2 hits); a random read costs the profile's
// random_access_words (l2_random_access_words), or its whole node when that is larger.
#pragma once

#include "model/spt.hpp"

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace sluice::model {

/// Registers a thread, by kernel key (the names below); the CLI fills it from the compiled kernels on a
/// GPU (kernel_registers.hpp), from ptxas's report otherwise, and --registers KEY=R overrides.
using register_table = std::map<std::string, int>;

/// "pairwise/<kernel>/k<key bytes>v<value bytes>/E<items>" (kernel: block_sort, merge) and
/// "pairwise/partition/k<key bytes>v<value bytes>".
[[nodiscard]] std::string pairwise_kernel_key(const std::string& kernel, std::size_t key_bytes, std::size_t value_bytes,
                                              int items);
/// "gpu_mms/<kernel>/<k|t><item bytes>[/K<ways>]" (kernel: base_case, merge with K, split; k: items are the
/// keys, t: (key, index) items) and "gpu_mms/monotone".
[[nodiscard]] std::string gpu_mms_kernel_key(const std::string& kernel, std::size_t item_bytes, bool tagged, int ways);

/// Registers of the kernels kernel_registers.cu instantiates, as ptxas -v reported them (CUDA 13.0,
/// sm_90): what the model uses where it cannot ask the device.
[[nodiscard]] register_table ptxas_registers();
/// "onesweep/<kernel>/k<key bytes>v<value bytes>" (kernel: pass, histogram; u32 pairs name the packed
/// words' pass "onesweep/pass/k4v4").
[[nodiscard]] std::string onesweep_kernel_key(const std::string& kernel, std::size_t key_bytes, std::size_t value_bytes);
/// "search/tree/k<key bytes>/B<keys a node>" and "search/sorted/k<key bytes>".
[[nodiscard]] std::string search_kernel_key(const std::string& kernel, std::size_t key_bytes, int keys_per_node);

/// block::merge_sort_storage_bytes (block/merge_sort.cuh) for sizes known at run time: the tile's keys, its
/// values and a split a thread, each 16-byte aligned. kernel_registers.cu checks the two agree.
[[nodiscard]] constexpr std::size_t pairwise_shared_bytes(int threads, int items, std::size_t key_bytes,
                                                          std::size_t value_bytes) {
  const auto tile = static_cast<std::size_t>(threads) * static_cast<std::size_t>(items);
  const auto round_up = [](std::size_t bytes) { return (bytes + 15) / 16 * 16; };
  return round_up(tile * key_bytes) + (value_bytes > 0 ? round_up(tile * value_bytes) : 0) +
         round_up(static_cast<std::size_t>(threads) * sizeof(int));
}

/// Rows a warp of GPU-MMS's base case sorts at once (gpu_mms.cuh's rows_in_flight; checked there too).
inline constexpr int gpu_mms_rows_in_flight = 4;

/// Queries a thread of the tree search walks at once (detail/search/kernels.cuh's queries_per_thread for
/// the tuning table's node_words_in_flight and max_queries_per_thread; kernel_registers.cu checks them).
[[nodiscard]] constexpr int tree_queries_per_thread(int keys_per_node, std::size_t key_bytes, int words_in_flight,
                                                    int most) {
  const int node_words = static_cast<int>((static_cast<std::size_t>(keys_per_node) * key_bytes + 3) / 4);
  const int wanted = words_in_flight / node_words;
  return wanted < 1 ? 1 : wanted > most ? most : wanted;
}

/// The registers of `key` in `table`; sluice::invalid_argument naming the key and --registers when absent.
[[nodiscard]] int registers_of(const register_table& table, const std::string& key);

struct merge_sort_problem {
  std::uint64_t n = 0;
  std::size_t key_bytes = 4;
  std::size_t key_align = 4;
  std::size_t value_bytes = 0;          ///< 0: keys only
  bool stability_observable = false;    ///< GPU-MMS tags items with their input index (gpu_mms_plan.hpp)
  int items_per_thread = 0;             ///< pairwise E; 0: the tuning table's
  int ways = 0;                         ///< GPU-MMS K; 0: the tuning table's
  double block_sort_beta = 0;           ///< β of the block sort's serial merges; 0: the bank model's
  double merge_beta = 0;                ///< β of a global round's serial merges; 0: the bank model's
};

/// β of the pairwise merges' serial-merge reads on uniform random keys of `key_bytes`, from the bank
/// model (bank_model.hpp runs block/serial_merge.hpp's code over tiles): the block sort's rounds, or a
/// global round's tile. E must be compiled (tuning::compiled_items).
[[nodiscard]] double pairwise_beta(int items, std::size_t key_bytes, bool block_sort);

[[nodiscard]] algorithm_model pairwise_merge_sort(const device_profile& profile, const merge_sort_problem& problem,
                                                  const register_table& registers);
[[nodiscard]] algorithm_model gpu_mms_sort(const device_profile& profile, const merge_sort_problem& problem,
                                           const register_table& registers);

/// A tuning value and the model's time for it.
struct choice {
  int value = 0;
  double seconds = 0;
};

/// The model over every compiled E (pairwise, tuning::compiled_items) or every K of GPU-MMS (2 … 32);
/// the problem's items_per_thread / ways are ignored. Values whose kernels' registers are unknown are
/// skipped; sluice::invalid_argument when none is left.
[[nodiscard]] std::vector<choice> pairwise_items_sweep(const device_profile& profile, merge_sort_problem problem,
                                                       const register_table& registers);
[[nodiscard]] std::vector<choice> gpu_mms_ways_sweep(const device_profile& profile, merge_sort_problem problem,
                                                     const register_table& registers);

enum class search_layout { sorted, eytzinger, btree };

struct search_problem {
  std::uint64_t keys = 0;
  std::uint64_t queries = 0;
  std::size_t key_bytes = 4;
  std::size_t out_bytes = 4;
  search_layout layout = search_layout::btree;
  std::size_t node_bytes = 0;  ///< btree node; 0: the tuning table's
};

[[nodiscard]] algorithm_model batched_search(const device_profile& profile, const search_problem& problem,
                                             const register_table& registers);

struct radix_sort_problem {
  std::uint64_t n = 0;
  std::size_t key_bytes = 4;    ///< every bit sorted: key_bytes 8-bit passes
  std::size_t value_bytes = 0;  ///< 0: keys only
};

/// The launch plan of the onesweep radix sort (detail/onesweep/tuning.hpp's shapes, 32-bit offsets):
/// u32 pairs of three passes or more move as packed 8-byte words (radix_sort/tuning.hpp).
struct onesweep_plan {
  int passes = 0;
  bool packed = false;
  int threads = 0, items = 0, tile = 0, digits = 0, lookback_ahead = 1;
  std::uint64_t tiles = 0;
  std::size_t shared_bytes = 0;  ///< the pass kernel's onesweep_storage (its size as the model counts it)
  int histogram_threads = 0;
  std::uint64_t histogram_tile = 0;
  std::size_t histogram_shared_bytes = 0;
};
[[nodiscard]] onesweep_plan onesweep_plan_for(const radix_sort_problem& problem);
/// β of a warp's stores of `element_words`-word keys at random positions of the tile (the staging).
[[nodiscard]] double onesweep_staging_beta(int element_words);
[[nodiscard]] algorithm_model onesweep_radix_sort(const device_profile& profile, const radix_sort_problem& problem,
                                                  const register_table& registers);

struct select_problem {
  std::uint64_t n = 0;
  std::size_t element_bytes = 4;
  double kept = 0.5;       ///< the share of the elements selected (select_if) or in the first class
  bool partition = false;  ///< stable_partition: a counting pass first, every element written
  int items_per_thread = 0;  ///< 0: the tuning table's
  bool run_heads = false;    ///< unique: an element is kept where it differs from the one before it
};

/// "select/<kernel>/k<element bytes>" (kernel: scatter, partition_scatter, count).
[[nodiscard]] std::string select_kernel_key(const std::string& kernel, std::size_t element_bytes);

/// select_if, unique and stable_partition as detail/select/dispatch.cuh's classify_scatter runs them.
[[nodiscard]] algorithm_model classify_scatter(const device_profile& profile, const select_problem& problem,
                                               const register_table& registers);

struct transpose_problem {
  std::uint64_t rows = 0;
  std::uint64_t cols = 0;
  std::size_t element_bytes = 4;
};

/// The launch of detail/transpose/vector_tiled.cuh for a problem (tuning.hpp's tile for the element size).
struct vector_tile_plan {
  int tile_rows = 0, tile_cols = 0, threads = 0;
  std::uint64_t tiles = 0;
  std::size_t shared_bytes = 0;
};
[[nodiscard]] vector_tile_plan vector_tile_plan_for(const transpose_problem& problem);
/// "transpose/vector_tiled/k<element bytes>".
[[nodiscard]] std::string transpose_kernel_key(std::size_t element_bytes);

/// The tuned tile transpose (automatic's kernel for 16-byte aligned rows past the skinny threshold).
[[nodiscard]] algorithm_model vector_tiled_transpose(const device_profile& profile, const transpose_problem& problem,
                                                     const register_table& registers);

struct histogram_problem {
  std::uint64_t n = 0;           ///< samples
  std::uint64_t bins = 0;        ///< m
  std::size_t sample_bytes = 1;
};

/// "histogram/<kernel>/k1" (kernel: byte_counts).
[[nodiscard]] std::string histogram_kernel_key(const std::string& kernel);

/// The 1-byte histogram by value counts (detail/histogram/byte_counts.cuh): the bins' memset and one kernel.
[[nodiscard]] algorithm_model byte_counts_histogram(const device_profile& profile, const histogram_problem& problem,
                                                    const register_table& registers);

/// A gather or a scatter by index (detail/scatter/): out[i] = values[indices[i]], or out[indices[i]] =
/// values[i].
struct indexed_problem {
  std::uint64_t n = 0;           ///< indices
  std::size_t value_bytes = 4;
  std::size_t index_bytes = 4;
  bool random_indices = true;    ///< false: consecutive (identity), so the values move as vectors
};

/// "gather/direct/k<value bytes>i<index bytes>", "scatter/direct/…".
[[nodiscard]] std::string gather_kernel_key(std::size_t value_bytes, std::size_t index_bytes);
[[nodiscard]] std::string scatter_kernel_key(std::size_t value_bytes, std::size_t index_bytes);

/// gather (detail/scatter/gather.cuh): one wave, 16 elements a thread a step.
[[nodiscard]] algorithm_model direct_gather(const device_profile& profile, const indexed_problem& problem,
                                            const register_table& registers);
/// The direct any_writer scatter (detail/scatter/scatter.cuh): one wave, 16 elements a thread a step; a
/// random store that misses the L2 also fills its sector.
[[nodiscard]] algorithm_model direct_scatter(const device_profile& profile, const indexed_problem& problem,
                                             const register_table& registers);

/// Where the flat strategy's segments start (detail/segmented/flat.cuh's head sources).
enum class segment_heads { flags, offsets, keys };

struct segmented_problem {
  std::uint64_t n = 0;
  std::uint64_t segments = 0;  ///< segments (offsets, flags) or runs of equal keys
  std::size_t value_bytes = 4;
  segment_heads heads = segment_heads::offsets;
  std::size_t key_bytes = 4;  ///< keys: bytes a key
  bool reduce = true;         ///< a value a segment (reduce, reduce_by_key) or every element (scans)
};

/// The segmented family's flat strategy (detail/segmented/flat.cuh): the single-pass scan over
/// (head count, value) pairs, the head flags made first where segments are given by offsets.
[[nodiscard]] algorithm_model flat_segmented(const device_profile& profile, const segmented_problem& problem,
                                             const register_table& registers);
/// segmented_reduce by offsets' merge_path strategy (detail/segmented/merge_path.cuh), the automatic one:
/// partition, the tiles, the tile carries' Brent–Kung scan and the fix.
[[nodiscard]] algorithm_model merge_path_segmented_reduce(const device_profile& profile,
                                                          const segmented_problem& problem,
                                                          const register_table& registers);

enum class streaming_kind { copy, reduce, scan, recurrence };

/// One pass over n elements of `element_bytes` at full occupancy: copy reads and writes each once,
/// reduce reads each once, the single-pass scan reads and writes each once (its look-back is lower order),
/// the first-order recurrence (detail/recurrence/) scans its steps [a_i, b_i]: two elements read, the
/// state written.
[[nodiscard]] algorithm_model streaming(const device_profile& profile, streaming_kind kind, std::uint64_t n,
                                        std::size_t element_bytes);

}  // namespace sluice::model
