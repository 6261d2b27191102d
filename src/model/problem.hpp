// src/model/problem.hpp: a problem as a caller describes it (family, the strategy the dispatch runs, sizes,
// element bytes) and the SPT model of it: the one place that maps such a description onto the families'
// counts (families.hpp). `sluice bench`'s model column describes each sluice row this way, so that no
// benchmark case repeats the model's logic.
#pragma once

#include "model/families.hpp"

#include <sluice/core/error.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace sluice::model {

/// A problem the model has no counts for (a family or a strategy not modelled); what() says which.
class not_modelled : public sluice::error {
 public:
  using sluice::error::error;
};

/// What a kernel sequence works on. Sizes by family:
///   merge_sort, radix_sort  n keys (key_bytes, value_bytes: 0 for keys only)
///   search                  n keys, m queries (key_bytes; keys_per_node for the B-tree)
///   copy, reduce, scan      n elements of key_bytes
///   recurrence              n states of key_bytes (a and b of the same size)
///   select                  n elements of key_bytes, `kept` of them selected (a share; unique: the runs)
///   transpose               n = rows × columns elements of key_bytes, m columns
///   histogram               n samples of key_bytes, m bins
///   multisplit              n keys (value_bytes: pairs), m buckets
///   segmented_reduce        n elements of key_bytes, m segments given by `heads` (keys of value_bytes)
///   segmented_scan          the same, every element's scan stored
///   gather                  n indices of value_bytes (4 or 8) into values of key_bytes; random_indices
///   scatter                 the same, values stored by index; last_writer for the strict semantics
struct problem {
  std::string family;
  /// The strategy the dispatch runs for it, as the options name it (merge_sort: pairwise, gpu_mms, radix;
  /// radix_sort: onesweep, multisplit, split; search: binary_search, eytzinger, btree; …): the caller
  /// resolves automatic through the dispatch, so the model describes what runs.
  std::string algorithm;
  std::uint64_t n = 0;
  std::uint64_t m = 0;
  std::size_t key_bytes = 4;
  std::size_t value_bytes = 0;
  bool stability_observable = false;  ///< merge_sort: GPU-MMS tags items with their input index
  int items_per_thread = 0;           ///< 0: the tuning table's (pairwise E; select's items)
  int ways = 0;                       ///< GPU-MMS K; 0: the tuning table's
  int keys_per_node = 0;              ///< search B-tree B; 0: the tuning table's
  double kept = 0.5;                  ///< select: the share of the elements kept
  bool random_indices = true;         ///< gather, scatter: random indices (false: consecutive, as identity)
  bool last_writer = false;           ///< scatter: Eilers' strict semantics (a claims pass, then a gather)
  segment_heads heads = segment_heads::offsets;  ///< segmented_*: where segments start
};

/// "family [algorithm], n = …" for messages.
[[nodiscard]] std::string describe(const problem& q);

/// The model of `q`. Throws not_modelled when the family or the strategy has no counts, and what the
/// families throw otherwise (sluice::invalid_argument for a size or register out of range).
[[nodiscard]] algorithm_model model_of(const device_profile& profile, const problem& q, const register_table& registers);

}  // namespace sluice::model
