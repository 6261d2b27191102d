// sluice/host/simulator/address_streams.hpp: the address streams of the sequential multireduce and of
// its partial-sort variant (Eilers Alg. 2.2 and §2.4), generated from the algorithms as sluice::host
// runs them on one thread (host/detail/bucketed.hpp, bucket_plan.hpp), and fed to the memory model.
//
//   naive          fill out[0..m) with the identity; then for each i: read labels[i] and values[i]
//                  (sequential), read and write out[labels[i]] (random).
//   partial_sort   fill out; count: read labels[i], increment the block's counter of its group (the top
//                  `bits` bits); distribute: read labels[i] and values[i], bump the group's next slot,
//                  write both to the group's next slot of two fresh temporaries (2^bits write streams,
//                  page faults on first touch); then the straight loop over the temporaries, group by
//                  group, whose random accesses stay within the group's 2^(log2 m − bits) buckets.
//
// Labels come from a callable label_at(i), the same counter-based generator the measurement fills its
// array from (sluice/data), so nothing of size n or m is stored: the partial sort's group order is
// produced in batches of groups, one pass over label_at per batch, into a buffer of bounded size.
// Sequential arrays issue one access per cache line (the other elements of the line hit the first
// level by construction). Sampling: each loop simulates its first `sample` iterations (all of them
// when sample = 0) and is scaled by iterations / simulated; the result says how many were simulated.
#pragma once

#include <sluice/host/detail/parallel.hpp>
#include <sluice/host/simulator/memory_model.hpp>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace sluice::host::simulator {

/// Core time per loop iteration when every access hits the first level (measured by `sluice simulate`).
struct loop_costs {
  double fill_ns = 0;        ///< one bucket of the initial fill
  double fold_ns = 1;        ///< one iteration of the straight loop (Alg. 2.2)
  double count_ns = 1;       ///< one iteration of the partial sort's counting pass
  double distribute_ns = 2;  ///< one iteration of its distribution pass
  double page_fault_ns = 0;  ///< a page of freshly allocated memory: its first touch and, later, its release
};

struct run_shape {
  std::size_t n = 0;            ///< elements
  std::size_t m = 1;            ///< buckets
  std::size_t label_bytes = 4;  ///< the label type
  std::size_t value_bytes = 4;  ///< the value (and bucket) type
  int sort_bits = 0;            ///< partial_sort: bits of the label it distributes by
  std::size_t sample = 0;       ///< iterations simulated per loop (0: all)
};

struct phase_time {
  std::string name;
  std::size_t iterations = 0;
  std::size_t simulated = 0;
  double ns = 0;  ///< scaled to all iterations
};

struct simulated_run {
  std::vector<phase_time> phases;
  access_statistics statistics;
  double total_ns = 0;
  [[nodiscard]] double ns_per_element(std::size_t n) const { return n == 0 ? 0 : total_ns / static_cast<double>(n); }
};

namespace detail {

/// Disjoint regions of the simulated address space, one per array, 64 GiB apart.
enum class array : std::uint64_t { labels, values, out, counters, next, sorted_labels, sorted_values };
inline constexpr std::uint64_t address_of(array a, std::size_t index, std::size_t element_bytes) {
  return ((static_cast<std::uint64_t>(a) + 1) << 36) + static_cast<std::uint64_t>(index) * element_bytes;
}

/// The load and store instructions of the loops: the prefetcher's history is per site.
enum site : std::size_t { label_load, value_load, bucket_load, bucket_store, fill_store, counter_rmw, sorted_label_store,
                          sorted_value_store };

/// A walk through an array in index order: an access only when the walk enters a new line.
class sequential_walk {
 public:
  sequential_walk(array a, std::size_t element_bytes, std::size_t site) : array_(a), bytes_(element_bytes), site_(site) {}

  void at(memory_model& model, std::size_t index, bool write) {
    const std::uint64_t address = address_of(array_, index, bytes_);
    const std::uint64_t line = address / model.line_bytes();
    if (line == line_) return;
    line_ = line;
    model.access(address, write, site_);
  }

 private:
  array array_;
  std::size_t bytes_;
  std::size_t site_;
  std::uint64_t line_ = ~std::uint64_t{0};
};

/// Records a phase of `iterations` of which `simulated` were simulated in `ns`, scaled to the whole loop.
inline void record_phase(simulated_run& run, std::string name, std::size_t iterations, std::size_t simulated, double ns) {
  const double scale = simulated == 0 ? 0.0 : static_cast<double>(iterations) / static_cast<double>(simulated);
  run.phases.push_back({std::move(name), iterations, simulated, ns * scale});
}

/// Runs body(i) for the simulated prefix of a loop and records its time (record_phase).
template <class Body>
void run_loop(memory_model& model, simulated_run& run, std::string name, std::size_t iterations, std::size_t sample,
              const Body& body) {
  const std::size_t simulated = sample == 0 ? iterations : std::min(iterations, sample);
  const double before = model.elapsed_ns();
  for (std::size_t i = 0; i < simulated; ++i) body(i);
  record_phase(run, std::move(name), iterations, simulated, model.elapsed_ns() - before);
}

inline void fill_buckets(memory_model& model, simulated_run& run, const run_shape& shape, const loop_costs& costs) {
  sequential_walk out(array::out, shape.value_bytes, fill_store);
  run_loop(model, run, "fill", shape.m, shape.sample, [&](std::size_t k) {
    model.next_iteration(costs.fill_ns);
    out.at(model, k, true);
  });
}

/// One iteration of the straight loop: the bucket update after the label and value reads.
inline void update_bucket(memory_model& model, std::uint64_t label, std::size_t value_bytes) {
  const std::uint64_t bucket = address_of(array::out, label, value_bytes);
  const double loaded = model.load(bucket, bucket_load);
  model.store(bucket, bucket_store, loaded);
}

/// Pages of a fresh temporary touched so far: the first touch of each is a page fault.
class first_touch {
 public:
  first_touch(std::size_t bytes, std::size_t page_bytes) : page_bytes_(page_bytes), touched_(bytes / page_bytes + 1) {}
  void at(memory_model& model, std::size_t offset_bytes, double fault_ns) {
    const std::size_t page = offset_bytes / page_bytes_;
    if (touched_[page]) return;
    touched_[page] = true;
    model.stall(fault_ns);
  }

 private:
  std::size_t page_bytes_;
  std::vector<bool> touched_;
};

/// The labels in the partial sort's group order (stable within a group), produced batch by batch.
template <class LabelAt>
class group_order {
 public:
  group_order(const LabelAt& label_at, std::size_t n, int shift, std::vector<std::size_t> group_sizes,
              std::size_t buffer_limit)
      : label_at_(label_at), n_(n), shift_(shift), sizes_(std::move(group_sizes)), limit_(buffer_limit) {}

  /// f(label) for the first `count` elements of the group order.
  template <class F>
  void for_each(std::size_t count, const F& f) const {
    std::size_t done = 0, first = 0;
    while (done < count && first < sizes_.size()) {
      std::size_t last = first, held = 0;
      while (last < sizes_.size() && (last == first || held + sizes_[last] <= limit_)) held += sizes_[last++];
      for (auto label : batch(first, last, held)) {
        if (done++ == count) return;
        f(label);
      }
      first = last;
    }
  }

 private:
  std::vector<std::uint64_t> batch(std::size_t first, std::size_t last, std::size_t held) const {
    std::vector<std::size_t> next(last - first + 1, 0);
    for (std::size_t g = first; g < last; ++g) next[g - first + 1] = next[g - first] + sizes_[g];
    std::vector<std::uint64_t> labels(held);
    for (std::size_t i = 0; i < n_; ++i) {
      const std::uint64_t label = label_at_(i);
      const std::size_t g = static_cast<std::size_t>(label >> shift_);
      if (g >= first && g < last) labels[next[g - first]++] = label;
    }
    return labels;
  }

  const LabelAt& label_at_;
  std::size_t n_;
  int shift_;
  std::vector<std::size_t> sizes_;
  std::size_t limit_;
};

}  // namespace detail

/// Simulates sluice::host::multireduce with multireduce_algo::naive on one thread.
template <class LabelAt>
simulated_run simulate_naive(const machine_description& machine, const loop_costs& costs, const run_shape& shape,
                             const LabelAt& label_at) {
  using namespace detail;
  memory_model model(machine);
  simulated_run run;
  fill_buckets(model, run, shape, costs);
  sequential_walk labels(array::labels, shape.label_bytes, label_load), values(array::values, shape.value_bytes, value_load);
  run_loop(model, run, "fold", shape.n, shape.sample, [&](std::size_t i) {
    model.next_iteration(costs.fold_ns);
    labels.at(model, i, false);
    values.at(model, i, false);
    update_bucket(model, label_at(i), shape.value_bytes);
  });
  run.statistics = model.statistics();
  for (const auto& p : run.phases) run.total_ns += p.ns;
  return run;
}

/// Simulates sluice::host::multireduce with multireduce_algo::partial_sort (shape.sort_bits > 0) on one
/// thread: the blocks of the distribution are host::detail's partition for one worker.
template <class LabelAt>
simulated_run simulate_partial_sort(const machine_description& machine, const loop_costs& costs,
                                    const run_shape& shape, const LabelAt& label_at) {
  using namespace detail;
  namespace host_detail = sluice::host::detail;
  const int label_bits = shape.m <= 1 ? 0 : static_cast<int>(std::bit_width(shape.m - 1));
  const int shift = label_bits - shape.sort_bits;
  const std::size_t groups = std::size_t{1} << shape.sort_bits;
  const auto group_of = [&](std::size_t i) { return static_cast<std::size_t>(label_at(i) >> shift); };
  const host_detail::block_partition blocks = host_detail::partition_blocks(
      shape.n, std::max(host_detail::parallel_grain, groups), host_detail::blocks_per_worker);

  memory_model model(machine);
  simulated_run run;
  fill_buckets(model, run, shape, costs);

  // Counting pass: each block's counters are one row of a blocks × groups table of size_t.
  std::vector<std::size_t> block_counts(blocks.count * groups, 0);
  {
    sequential_walk labels(array::labels, shape.label_bytes, label_load);
    run_loop(model, run, "count", shape.n, shape.sample, [&](std::size_t i) {
      model.next_iteration(costs.count_ns);
      labels.at(model, i, false);
      const std::size_t b = i / blocks.size;
      const std::uint64_t counter = address_of(array::counters, b * groups + group_of(i), sizeof(std::size_t));
      model.store(counter, counter_rmw, model.load(counter, counter_rmw));
    });
    for (std::size_t i = 0; i < shape.n; ++i) ++block_counts[i / blocks.size * groups + group_of(i)];
  }

  // Destinations: bucket-major, block-minor (the stable layout of bucket_plan).
  std::vector<std::size_t> next(blocks.count * groups), group_sizes(groups, 0);
  std::size_t running = 0;
  for (std::size_t g = 0; g < groups; ++g)
    for (std::size_t b = 0; b < blocks.count; ++b) {
      next[b * groups + g] = running;
      running += block_counts[b * groups + g];
      group_sizes[g] += block_counts[b * groups + g];
    }

  {
    sequential_walk labels(array::labels, shape.label_bytes, label_load), values(array::values, shape.value_bytes, value_load);
    first_touch fresh_labels(shape.n * 4, machine.tlb.page_bytes), fresh_values(shape.n * shape.value_bytes, machine.tlb.page_bytes);
    run_loop(model, run, "distribute", shape.n, shape.sample, [&](std::size_t i) {
      model.next_iteration(costs.distribute_ns);
      labels.at(model, i, false);
      values.at(model, i, false);
      const std::size_t slot = i / blocks.size * groups + group_of(i);
      const std::uint64_t next_address = address_of(array::next, slot % groups, sizeof(std::size_t));
      model.store(next_address, counter_rmw, model.load(next_address, counter_rmw));
      const std::size_t d = next[slot]++;
      fresh_labels.at(model, d * 4, costs.page_fault_ns);
      fresh_values.at(model, d * shape.value_bytes, costs.page_fault_ns);
      model.store(address_of(array::sorted_labels, d, 4), sorted_label_store);
      model.store(address_of(array::sorted_values, d, shape.value_bytes), sorted_value_store);
    });
  }

  {
    sequential_walk labels(array::sorted_labels, 4, label_load), values(array::sorted_values, shape.value_bytes, value_load);
    const group_order<LabelAt> order(label_at, shape.n, shift, group_sizes, std::size_t{1} << 22);
    const std::size_t simulated = shape.sample == 0 ? shape.n : std::min(shape.n, shape.sample);
    std::size_t j = 0;
    const double before = model.elapsed_ns();
    order.for_each(simulated, [&](std::uint64_t label) {
      model.next_iteration(costs.fold_ns);
      labels.at(model, j, false);
      values.at(model, j, false);
      update_bucket(model, label, shape.value_bytes);
      ++j;
    });
    record_phase(run, "fold groups", shape.n, j, model.elapsed_ns() - before);
  }
  run.statistics = model.statistics();
  for (const auto& p : run.phases) run.total_ns += p.ns;
  return run;
}

}  // namespace sluice::host::simulator
