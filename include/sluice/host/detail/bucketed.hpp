// sluice/host/detail/bucketed.hpp: the engine behind host multireduce, multiscan, multitag, histogram
// and scatter: three ways of running Eilers' sequential loops (Alg. 2.1–2.3) over n labelled elements
// and m buckets, and the rule that picks one.
//
//   naive         the straight loop of Alg. 2.2/2.3 on one thread: buckets[label] ⊕= value. Fast while
//                 the buckets fit a cache; past that every element is a cache (and TLB) miss (§2.2).
//   privatized    the input cut into contiguous blocks, one per task, each with its own copy of the
//                 buckets (starting at the identity); the copies are then combined bucket by bucket in
//                 block order (multiscan: the copies become each block's carry-in, then each block
//                 rescans). Parallel, and exact for non-commutative operators because blocks are
//                 contiguous and combined in order. Costs blocks × m extra bucket space and work, so it
//                 is for small m. Not in the thesis, which stays sequential (§2.4, last paragraphs).
//   partial_sort  Eilers §2.4: distribute the (label, value) pairs stably by the top `bits` bits of the
//                 label (one pass of Alg. 2.4 with base 2^bits and offset o = ⌈log2 m⌉ − bits), so each
//                 of the 2^bits groups touches only 2^o consecutive buckets, sized to fit a cache; then
//                 run the straight loop over each group. Groups own disjoint bucket ranges, so they run
//                 in parallel with no copies. Multiscan scans each group in place and puts the results
//                 back in input order by replaying the distribution (Alg. 2.5 with Alg. 2.6's replay, so
//                 no (index, value) pairs are stored). Traffic: n · (label + value) read twice, written
//                 and read once more, plus the loop's cache-resident bucket accesses.
//
// Element access is by functors so that the same engine serves spans of labels, bins computed from
// samples (histogram) and constant values (multitag):  label_of(i) → the bucket of element i, any value
// ≥ m meaning "dropped";  value_of(i) → its value.
#pragma once

#include <sluice/core/labels.hpp>
#include <sluice/core/operators.hpp>
#include <sluice/host/cache_info.hpp>
#include <sluice/host/detail/bucket_plan.hpp>
#include <sluice/host/detail/parallel.hpp>
#include <sluice/host/huge_pages.hpp>

#include <algorithm>
#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <type_traits>
#include <vector>

namespace sluice::host::detail {

enum class strategy { naive, privatized, partial_sort };

/// How to run one call: the strategy, the partial sort's bits (0 otherwise), huge-page temporaries.
struct locality {
  strategy kind = strategy::naive;
  int sort_bits = 0;
  bool huge_pages = false;
};

/// The choice thresholds of the bucketed family, in one place (measurements: docs/host.md).
struct bucketed_tuning {
  /// Bits one distribution pass covers: 2^12 groups' write streams stay few enough for the TLB and the WC buffers.
  static constexpr int max_sort_bits = 12;
  /// One group's buckets get this fraction of the largest per-core data cache; the label and value streams the rest.
  static constexpr std::size_t cache_fraction_divisor = 2;
  /// Privatized copies must be cheap next to the loop itself: n ≥ copies × m × this.
  static constexpr std::size_t privatized_work_per_bucket = 8;
  /// Automatic sorts once the buckets fill this fraction of the last-level cache: below, its extra passes cost more.
  static constexpr std::size_t partial_sort_llc_divisor = 2;
};

/// ⌈log2 m⌉: the bits a label < m needs (0 for m = 1).
[[nodiscard]] inline int label_bits(std::size_t m) { return m <= 1 ? 0 : static_cast<int>(std::bit_width(m - 1)); }

/// The bucket of a label, or `dropped_bucket` when it is negative or ≥ m.
inline constexpr std::size_t dropped_bucket = std::numeric_limits<std::size_t>::max();
template <std::integral L>
[[nodiscard]] std::size_t label_bucket(L label, std::size_t m) {
  return sluice::detail::valid_label(label, m) ? static_cast<std::size_t>(label) : dropped_bucket;
}

/// The partial sort's bits for m buckets of `bucket_bytes` on this machine: enough that 2^o buckets
/// fit the target cache (largest per-core data cache / cache_fraction_divisor), at most max_sort_bits.
[[nodiscard]] inline int partial_sort_bits_for(std::size_t m, std::size_t bucket_bytes, const cache_info& caches) {
  const cache_level* target = caches.largest_private_data_cache();
  if (!target) target = caches.data_cache(1);
  if (!target || bucket_bytes == 0) return 0;
  const std::size_t fitting = target->size_bytes / bucketed_tuning::cache_fraction_divisor / bucket_bytes;
  const int offset_bits = fitting == 0 ? 0 : static_cast<int>(std::bit_width(fitting)) - 1;
  return std::clamp(label_bits(m) - offset_bits, 0, bucketed_tuning::max_sort_bits);
}

// ---- the straight loops (Eilers Alg. 2.2 and 2.3) ----------------------------------------------------------

/// buckets[label_of(i)] ⊕= value_of(i) for i in [begin, end), in order; returns the dropped count.
template <class T, class LabelOf, class ValueOf, class Op>
std::size_t fold_range(std::size_t begin, std::size_t end, const LabelOf& label_of, const ValueOf& value_of,
                       std::span<T> buckets, const Op& op) {
  std::size_t dropped = 0;
  for (std::size_t i = begin; i < end; ++i) {
    const std::size_t k = label_of(i);
    if (k < buckets.size()) buckets[k] = op(buckets[k], value_of(i));
    else ++dropped;
  }
  return dropped;
}

/// The multiscan loop over [begin, end): emit(i, the bucket's running value before (exclusive) or
/// after (inclusive) element i); a dropped element emits `identity`. Reads value_of(i) before emit(i),
/// so the output may alias the values.
template <class T, class LabelOf, class ValueOf, class Op, class Emit>
std::size_t scan_range(std::size_t begin, std::size_t end, const LabelOf& label_of, const ValueOf& value_of,
                       std::span<T> buckets, const Op& op, bool inclusive, const T& identity, const Emit& emit) {
  std::size_t dropped = 0;
  for (std::size_t i = begin; i < end; ++i) {
    const std::size_t k = label_of(i);
    if (k >= buckets.size()) {
      emit(i, identity);
      ++dropped;
      continue;
    }
    const T value = value_of(i);
    const T before = buckets[k];
    buckets[k] = op(before, value);
    emit(i, inclusive ? buckets[k] : before);
  }
  return dropped;
}

// ---- privatized ------------------------------------------------------------------------------------------

/// Blocks for the privatized strategy: each needs its own m buckets, so blocks stay few enough that
/// their copies cost little next to the loop (n ≥ blocks × m × privatized_work_per_bucket).
[[nodiscard]] inline block_partition privatized_blocks(std::size_t n, std::size_t m) {
  return partition_blocks(n, std::max(parallel_grain, m * bucketed_tuning::privatized_work_per_bucket),
                          worker_count());
}

/// Per-block bucket arrays, all starting at the identity: copies[b] is block b's.
template <class T>
class bucket_copies {
 public:
  bucket_copies(std::size_t copies, std::size_t m, const T& identity, bool huge_pages)
      : m_(m), storage_(copies * m, huge_pages) {
    parallel_for(copies, [&](std::size_t b) { std::fill(storage_.begin() + b * m, storage_.begin() + (b + 1) * m, identity); });
  }
  [[nodiscard]] std::span<T> operator[](std::size_t b) const { return storage_.span().subspan(b * m_, m_); }

 private:
  std::size_t m_;
  huge_page_buffer<T> storage_;
};

/// Calls f(first, last) on chunks of [0, m) in parallel: the per-bucket combining steps.
template <class F>
void for_bucket_chunks(std::size_t m, const F& f) {
  const block_partition chunks = streaming_blocks(m);
  parallel_for(chunks.count, [&](std::size_t c) { f(chunks.begin(c), chunks.end(c)); });
}

template <class T, class LabelOf, class ValueOf, class Op>
std::size_t privatized_fold(std::size_t n, const LabelOf& label_of, const ValueOf& value_of, std::span<T> buckets,
                            const Op& op, bool huge_pages) {
  const std::size_t m = buckets.size();
  const block_partition blocks = privatized_blocks(n, m);
  // Block 0 folds straight into the buckets (they come first in index order); the others into copies.
  const bucket_copies<T> copies(blocks.count - 1, m, identity<Op, T>(), huge_pages);
  std::vector<std::size_t> dropped(blocks.count, 0);
  parallel_for(blocks.count, [&](std::size_t b) {
    dropped[b] = fold_range(blocks.begin(b), blocks.end(b), label_of, value_of, b == 0 ? buckets : copies[b - 1], op);
  });
  for_bucket_chunks(m, [&](std::size_t first, std::size_t last) {
    for (std::size_t b = 1; b < blocks.count; ++b) {
      const std::span<T> copy = copies[b - 1];
      for (std::size_t k = first; k < last; ++k) buckets[k] = op(buckets[k], copy[k]);
    }
  });
  std::size_t total = 0;
  for (std::size_t d : dropped) total += d;
  return total;
}

template <class T, class LabelOf, class ValueOf, class Op, class Emit>
std::size_t privatized_scan(std::size_t n, const LabelOf& label_of, const ValueOf& value_of, std::span<T> buckets,
                            const Op& op, bool inclusive, const Emit& emit, bool huge_pages) {
  const std::size_t m = buckets.size();
  const T e = identity<Op, T>();
  const block_partition blocks = privatized_blocks(n, m);
  const bucket_copies<T> carry(blocks.count, m, e, huge_pages);
  // Pass 1: each block's per-bucket totals.
  parallel_for(blocks.count, [&](std::size_t b) {
    (void)fold_range(blocks.begin(b), blocks.end(b), label_of, value_of, carry[b], op);
  });
  // Pass 2: totals → carry-in of each block (exclusive, in block order), and the final bucket totals.
  for_bucket_chunks(m, [&](std::size_t first, std::size_t last) {
    for (std::size_t k = first; k < last; ++k) {
      T running = buckets[k];
      for (std::size_t b = 0; b < blocks.count; ++b) {
        const T total = carry[b][k];
        carry[b][k] = running;
        running = op(running, total);
      }
      buckets[k] = running;
    }
  });
  // Pass 3: each block rescans from its carry-in.
  std::vector<std::size_t> dropped(blocks.count, 0);
  parallel_for(blocks.count, [&](std::size_t b) {
    dropped[b] = scan_range(blocks.begin(b), blocks.end(b), label_of, value_of, carry[b], op, inclusive, e, emit);
  });
  std::size_t total = 0;
  for (std::size_t d : dropped) total += d;
  return total;
}

// ---- partial sort (Eilers §2.4) --------------------------------------------------------------------------

/// value_of for label_groups whose values are filled in later, group by group (gather).
struct values_filled_later {};

/// The input distributed by the top `bits` bits of the label: the labels (as 32-bit bucket numbers)
/// and values of the kept elements, grouped, each group in input order; and the plan that made it,
/// which also replays the distribution.
template <class T, class LabelOf>
class label_groups {
 public:
  template <class ValueOf>
  label_groups(std::size_t n, std::size_t m, int bits, const LabelOf& label_of, const ValueOf& value_of, bool huge_pages)
      : label_of_(label_of),
        m_(m),
        shift_(label_bits(m) - bits),
        groups_(std::size_t{1} << bits),
        plan_(n, groups_, group_of()),
        labels_(plan_.kept(), huge_pages),
        values_(plan_.kept(), huge_pages) {
    plan_.visit(group_of(), [&](std::size_t i, std::size_t d) {
      labels_[d] = static_cast<std::uint32_t>(label_of_(i));
      if constexpr (!std::is_same_v<ValueOf, values_filled_later>) values_[d] = value_of(i);
    });
  }

  [[nodiscard]] std::size_t groups() const { return groups_; }
  [[nodiscard]] std::size_t dropped() const { return plan_.dropped(); }
  [[nodiscard]] std::size_t begin(std::size_t g) const { return plan_.bucket_begin(g); }
  [[nodiscard]] std::size_t end(std::size_t g) const { return plan_.bucket_end(g); }
  [[nodiscard]] auto sorted_label() const {
    return [labels = labels_.data()](std::size_t j) -> std::size_t { return labels[j]; };
  }
  [[nodiscard]] auto sorted_value() const {
    return [values = values_.data()](std::size_t j) -> const T& { return values[j]; };
  }
  [[nodiscard]] T* values() const { return values_.data(); }

  /// Alg. 2.6's replay: calls kept(i, sorted position of element i) and dropped(i), in input order per block.
  template <class Kept, class Dropped>
  void replay(const Kept& kept, const Dropped& dropped) const {
    plan_.visit(group_of(), kept, dropped);
  }

  /// Runs f(g) for every group in parallel: groups own disjoint bucket ranges.
  template <class F>
  void for_each_group(const F& f) const {
    parallel_for(groups_, f);
  }

 private:
  [[nodiscard]] auto group_of() const {
    return [this](std::size_t i) {
      const std::size_t k = label_of_(i);
      return k < m_ ? k >> shift_ : groups_;
    };
  }

  const LabelOf& label_of_;
  std::size_t m_;
  int shift_;
  std::size_t groups_;
  bucket_plan plan_;
  huge_page_buffer<std::uint32_t> labels_;
  huge_page_buffer<T> values_;
};

template <class T, class LabelOf, class ValueOf, class Op>
std::size_t partial_sort_fold(std::size_t n, const LabelOf& label_of, const ValueOf& value_of, std::span<T> buckets,
                              const Op& op, int bits, bool huge_pages) {
  const label_groups<T, LabelOf> sorted(n, buckets.size(), bits, label_of, value_of, huge_pages);
  sorted.for_each_group([&](std::size_t g) {
    (void)fold_range(sorted.begin(g), sorted.end(g), sorted.sorted_label(), sorted.sorted_value(), buckets, op);
  });
  return sorted.dropped();
}

template <class T, class LabelOf, class ValueOf, class Op, class Emit>
std::size_t partial_sort_scan(std::size_t n, const LabelOf& label_of, const ValueOf& value_of, std::span<T> buckets,
                              const Op& op, bool inclusive, const Emit& emit, int bits, bool huge_pages) {
  const T e = identity<Op, T>();
  const label_groups<T, LabelOf> sorted(n, buckets.size(), bits, label_of, value_of, huge_pages);
  T* scanned = sorted.values();  // each group is scanned in place
  sorted.for_each_group([&](std::size_t g) {
    (void)scan_range(sorted.begin(g), sorted.end(g), sorted.sorted_label(), sorted.sorted_value(), buckets, op, inclusive,
                     e, [scanned](std::size_t j, const T& v) { scanned[j] = v; });
  });
  sorted.replay([&](std::size_t i, std::size_t j) { emit(i, scanned[j]); }, [&](std::size_t i) { emit(i, e); });
  return sorted.dropped();
}

// ---- dispatch ----------------------------------------------------------------------------------------------

/// Folds every element into `buckets` (m = buckets.size(), which keep their contents as the left
/// operand); returns the dropped count.
template <class T, class LabelOf, class ValueOf, class Op>
std::size_t fold(std::size_t n, const LabelOf& label_of, const ValueOf& value_of, std::span<T> buckets, const Op& op,
                 const locality& how) {
  switch (how.kind) {
    case strategy::privatized:
      // Private copies start at the identity; resolve_locality never picks this without one.
      if constexpr (has_identity_v<Op, T>) return privatized_fold(n, label_of, value_of, buckets, op, how.huge_pages);
      break;
    case strategy::partial_sort:
      return partial_sort_fold(n, label_of, value_of, buckets, op, how.sort_bits, how.huge_pages);
    case strategy::naive: break;
  }
  return fold_range(0, n, label_of, value_of, buckets, op);
}

/// The multiscan of every element through emit(i, value), running `buckets` (which end as the totals).
template <class T, class LabelOf, class ValueOf, class Op, class Emit>
std::size_t scan(std::size_t n, const LabelOf& label_of, const ValueOf& value_of, std::span<T> buckets, const Op& op,
                 bool inclusive, const Emit& emit, const locality& how) {
  switch (how.kind) {
    case strategy::privatized:
      return privatized_scan(n, label_of, value_of, buckets, op, inclusive, emit, how.huge_pages);
    case strategy::partial_sort:
      return partial_sort_scan(n, label_of, value_of, buckets, op, inclusive, emit, how.sort_bits, how.huge_pages);
    case strategy::naive: break;
  }
  return scan_range(0, n, label_of, value_of, buckets, op, inclusive, identity<Op, T>(), emit);
}

/// What `automatic` runs for n elements into m buckets of bucket_bytes on this machine:
///   privatized    when the operator has an identity, the copies are small (they fit the target cache and
///                 n ≥ 2 · m · privatized_work_per_bucket), and there are more workers than the strategy
///                 reads the input (multireduce once; multiscan twice, so it needs 3 workers to gain);
///   partial_sort  when the buckets fill half the last-level cache or more and there are bits to sort by;
///   naive         otherwise (buckets in cache: the straight loop is already as fast as memory allows).
/// Multiscan, multitag and gather pass sort_pays = false: the replay pass their sort adds eats what it saves.
[[nodiscard]] inline strategy automatic_strategy(std::size_t n, std::size_t m, std::size_t bucket_bytes,
                                                 bool has_identity, std::size_t privatized_input_passes,
                                                 bool sort_pays, const cache_info& caches) {
  const std::size_t bucket_array = m * bucket_bytes;
  const cache_level* target = caches.largest_private_data_cache();
  const std::size_t target_bytes = target ? target->size_bytes / bucketed_tuning::cache_fraction_divisor : 0;
  if (worker_count() > privatized_input_passes && has_identity && bucket_array <= target_bytes &&
      n >= 2 * m * bucketed_tuning::privatized_work_per_bucket)
    return strategy::privatized;
  const cache_level* llc = caches.last_level_cache();
  const std::size_t llc_bytes = llc ? llc->size_bytes : target_bytes;
  if (sort_pays && bucket_array >= llc_bytes / bucketed_tuning::partial_sort_llc_divisor &&
      partial_sort_bits_for(m, bucket_bytes, caches) > 0 && m <= (std::size_t{1} << 32))
    return strategy::partial_sort;
  return strategy::naive;
}

}  // namespace sluice::host::detail
