// src/cli/simulate.cpp: `sluice simulate`: the cache simulator of Eilers §2.4, extended with what the
// thesis names as its future work (TLB and page walks, memory-level parallelism), against the measured
// time of sluice::host::multireduce on this machine, naive and partially sorted, for m = 2^4 … 2^26.
// docs/simulator.md describes the method and keeps the runs behind each choice made here.
//
// Nothing about the machine is assumed where it can be measured (Eilers §2.4 calibrated the same way):
//   geometry     cache levels, line size and ways from host/cache_info.hpp (what the kernel reports);
//   latencies    a pointer chase through a random cycle of lines sized to each level, on 2 MiB pages
//                (so that the TLB stays out of it), each level corrected for the share of the chase
//                that still hits the level before;
//   sizes        each level's effective size: the chase is swept from half the reported size (the
//                last level: twice the level inside) towards the reported size in steps of 2^(1/4);
//                the largest size whose latency stays below halfway to the next level (the last
//                level: to memory) is the level's. Not the first size above halfway: other processes
//                only ever add time, so one slow probe says less than a fast one past it;
//   simulated    the sizes the simulator gets: random updates (the loop's access kind) over a few
//   sizes        footprints per level, between the updates that surely fit and those the next level
//                (the last: memory) serves, give the capacity an LRU level needs to keep as many
//                (sim::capacity_from_random_updates; update_bytes). The chase sizes only fix where
//                latency and slots are timed. The last level's sweep runs the loop kernel (below),
//                whose losses the model charges there (loop_updates);
//   TLB          first-level entries from CPUID (cache_info); the second level's reach and hit
//                penalty, and the page walk as a function of the pages spanned, from a chase with one
//                line per 4 KiB page minus the same lines packed on 2 MiB pages;
//   MLP          per serving level (each cache past the first, and memory): the library's straight
//                loop itself (host::detail::fold_range, Eilers Alg. 2.2: label stream, bounds check
//                and branch, value stream, buckets[label] += value) over u32 buckets filling half the
//                level's size, on 4 KiB pages as the measured loop's buckets are (memory's footprint
//                on 2 MiB pages: its walks are charged by the walk slots), costs the core its time per
//                element minus the same loop's over 2^10 buckets (all hits: the core time's m);
//                slots = the level's latency over that loss, corrected like the latency for the share
//                served inside. Walks: the update kernel over the memory footprint on 4 KiB pages loses
//                this much more than on 2 MiB pages; walk slots = the walk cost over it;
//   bandwidth    a sequential read of 256 MiB; page faults: allocating, touching and freeing fresh
//                memory, per page (the partial sort pays all three for its temporaries);
//   stores       the partial sort's distribution itself (bucket_plan::visit, Eilers Alg. 2.6) of 2^22 u32
//                labels and values into 2 … 1024 write streams, into memory touched before, minus the
//                same stores kept in the caches (the store sweep): the write streams the core follows
//                (an LRU of K keeps K/S of S streams used in random order) and what a store to memory
//                past them costs (write_streams.hpp);
//   placement    every straight loop timed here (the visits, the loop kernels, the core time) reads its
//                labels and values from one allocation at a fixed distance (stream_pair) and runs from
//                code at a 64-byte boundary (placed_fold_range, placed_multireduce): the loop's time
//                follows both, which the model does not see;
//   core time    the straight loop and the partial sort on inputs that fit the first levels (m = 2^10,
//                n = 2^14), so that every access hits: the part of each iteration the memory model
//                does not explain. m = 2^10 rather than fewer buckets: with 16 the same bucket comes
//                back within the core's window and store-to-load forwarding stalls would be charged to
//                every m. The count pass is timed alone (host::detail::bucket_plan, as label_groups
//                builds it); the distribution pass gets what the partial sort takes beyond it and the
//                straight loop.
// Interleaved rounds (host/simulator/rounds.hpp): on a shared machine other tenants' load moves the
// effective cache sizes, memory's time and the core's speed within seconds, and the measured loop with
// them. So the run is `rounds` rounds; each calibrates the machine once (memory's latency and
// updates, the caches, the core times) and then visits every m once, in an order shuffled per round,
// timing the straight loop and the partial sort (which goes first alternates by round), with the
// straight loop's core time sampled before each visit. Each m reports the median over the rounds, with
// the smallest and the largest; the model gets the median of every calibrated parameter over the same
// rounds, so both sides are taken over the same minutes. The translation sweep (TLB and walks) is
// taken in every round too, the model getting each span's median, memory's updates on 4 KiB pages (the
// walk slots) and the store sweep, since a single draw of each moves several-fold between runs; the
// bandwidth is measured once, before the rounds. The measured runs are single-threaded (a TBB arena of
// one thread), like the simulated core.
#include "simulate.hpp"

#include <sluice/core/operators.hpp>
#include <sluice/data/distributions.hpp>
#include <sluice/host/cache_info.hpp>
#include <sluice/host/detail/bucket_plan.hpp>
#include <sluice/host/huge_pages.hpp>
#include <sluice/host/multireduce.hpp>
#include <sluice/host/simulator/address_streams.hpp>
#include <sluice/host/simulator/rounds.hpp>

#include <fmt/format.h>

#if defined(SLUICE_HAVE_TBB)
#include <tbb/task_arena.h>
#endif

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <numeric>
#include <random>
#include <span>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace sluice::cli {
namespace {

namespace sim = sluice::host::simulator;
using steady = std::chrono::steady_clock;

constexpr std::size_t line_bytes = 64;
constexpr std::size_t small_page = 4096;

double elapsed_ns(steady::time_point since) { return std::chrono::duration<double, std::nano>(steady::now() - since).count(); }

/// The smallest of `tries` timings of f (noise from other processes only ever adds time).
double best_of(int tries, const std::function<double()>& f) {
  double best = f();
  for (int t = 1; t < tries; ++t) best = std::min(best, f());
  return best;
}

/// The median of three timings of f: what a loop costs over whatever the neighbours do, as the
/// measured multireduce reports it (line_pool::update_ns says why not the best).
double median_of_three(const std::function<double()>& f) {
  std::array<double, 3> times{f(), f(), f()};
  std::sort(times.begin(), times.end());
  return times[1];
}

/// Runs f on one thread: the simulated core is one core.
template <class F>
void single_threaded(const F& f) {
#if defined(SLUICE_HAVE_TBB)
  tbb::task_arena one(1);
  one.execute(f);
#else
  f();
#endif
}

/// The straight loop's two input streams, labels and values, in one allocation with the values
/// `distance` bytes past the labels: the loop's time depends on the virtual distance between its two
/// streams (docs/simulator.md, "The streams' distance"), which the model cannot see, so every straight
/// loop the tool times reads streams placed alike: the labels' bytes rounded to a page, plus stream_gap.
/// print_stream_placement shows the loop at this placement beside an aliasing one in every run.
constexpr std::size_t stream_gap = std::size_t{15} << 15;  // 480 KiB: bits 15-18 of the distance set

class stream_pair {
 public:
  explicit stream_pair(std::size_t n) : stream_pair(n, round_up_to_page(n * sizeof(std::uint32_t)) + stream_gap) {}
  stream_pair(std::size_t n, std::size_t distance_bytes)
      : n_(n), values_at_(distance_bytes / sizeof(std::uint32_t)), memory_(values_at_ + n, false) {}

  [[nodiscard]] std::span<std::uint32_t> labels() { return {memory_.data(), n_}; }
  [[nodiscard]] std::span<std::uint32_t> values() { return {memory_.data() + values_at_, n_}; }
  [[nodiscard]] std::span<const std::uint32_t> labels() const { return {memory_.data(), n_}; }
  [[nodiscard]] std::span<const std::uint32_t> values() const { return {memory_.data() + values_at_, n_}; }

 private:
  static std::size_t round_up_to_page(std::size_t bytes) { return (bytes + small_page - 1) / small_page * small_page; }

  std::size_t n_, values_at_;
  host::huge_page_buffer<std::uint32_t> memory_;
};

// ---- where the timed loops' code lands (docs/simulator.md, "Loop placement") ------------------------------

/// host::detail::fold_range inlined whole into a function of its own at a 64-byte boundary: the loop's
/// time follows where its code lands, so every kernel of the tool keeps it at one place.
template <class T, class LabelOf, class ValueOf, class Op>
[[gnu::noinline, gnu::aligned(64), gnu::flatten]] std::size_t placed_fold_range(std::size_t begin, std::size_t end,
                                                                                const LabelOf& label_of,
                                                                                const ValueOf& value_of,
                                                                                std::span<T> buckets, const Op& op) {
  return host::detail::fold_range(begin, end, label_of, value_of, buckets, op);
}

/// host::multireduce inlined whole into a function of its own at a 64-byte boundary, for the same reason.
[[gnu::noinline, gnu::aligned(64), gnu::flatten]] host::multireduce_result placed_multireduce(
    std::span<const std::uint32_t> labels, std::span<const std::uint32_t> values, std::span<std::uint32_t> out,
    const host::multireduce_options& options) {
  return host::multireduce<std::uint32_t, std::uint32_t>(labels, values, out, plus{}, options);
}

// ---- calibration microbenchmarks -------------------------------------------------------------------------

/// A random cyclic order of [0, count) (Sattolo's shuffle): following it visits every element once.
std::vector<std::uint32_t> random_cycle(std::size_t count) {
  std::vector<std::uint32_t> order(count);
  std::iota(order.begin(), order.end(), 0u);
  std::mt19937_64 rng(7);
  for (std::size_t i = count - 1; i > 0; --i) std::swap(order[i], order[std::uniform_int_distribution<std::size_t>(0, i - 1)(rng)]);
  return order;
}

/// `lines` lines, `stride` bytes apart (64: packed; 4096: one per page, at staggered offsets so that
/// they spread over the cache sets), on huge or small pages.
class line_pool {
 public:
  line_pool(std::size_t lines, std::size_t stride, bool huge)
      : lines_(lines), stride_(stride), memory_(lines * stride / 8 + small_page / 8, huge) {
    const auto order = random_cycle(lines);
    for (std::size_t i = 0; i < lines; ++i) memory_[slot(order[i])] = slot(order[(i + 1) % lines]);
  }

  /// ns per step of a pointer chase around the cycle (each load's address is the previous load's value).
  double chase_ns(std::size_t steps) const {
    std::uint64_t at = slot(0);
    for (std::size_t i = 0; i < lines_; ++i) at = memory_[at];  // warm-up: one full round
    const auto start = steady::now();
    for (std::size_t i = 0; i < steps; ++i) at = memory_[at];
    const double ns = elapsed_ns(start);
    keep_ = at;
    return ns / static_cast<double>(steps);
  }

  /// ns per update of independent read-modify-writes at random lines, the line numbers and the addends
  /// read from two arrays (the straight loop's label and value streams); the second word of each line,
  /// so the cycle stays intact.
  double update_ns(std::size_t steps) {
    std::vector<std::uint32_t> at(steps), add(steps);
    std::mt19937_64 rng(3);
    std::uniform_int_distribution<std::uint32_t> line(0, static_cast<std::uint32_t>(lines_ - 1));
    for (std::size_t i = 0; i < steps; ++i) {
      at[i] = static_cast<std::uint32_t>(slot(line(rng)) + 1);
      add[i] = static_cast<std::uint32_t>(i);
    }
    // The median of three, as the measured multireduce reports: a best-of describes the quietest moment.
    return median_of_three([&] {
      const auto start = steady::now();
      for (std::size_t i = 0; i < steps; ++i) memory_[at[i]] += add[i];
      return elapsed_ns(start) / static_cast<double>(steps);
    });
  }

 private:
  [[nodiscard]] std::size_t slot(std::size_t line) const {
    return line * stride_ / 8 + (stride_ >= small_page ? (line % 64) * 8 : 0);
  }

  std::size_t lines_, stride_;
  host::huge_page_buffer<std::uint64_t> memory_;
  mutable std::uint64_t keep_ = 0;  // results the compiler must not drop
};

constexpr std::size_t chase_steps = std::size_t{1} << 20, update_steps = std::size_t{1} << 21;

/// The access mix the measured naive loop has, as the calibration kernel for memory-level parallelism
/// (Eilers §2.4/§6.2: the overlap of misses the thesis's simulator lacked): the library's own loop,
/// host::detail::fold_range (placed_fold_range) with multireduce's label_of (label_bucket: the bounds
/// check) and a value stream, over u32 buckets filling `bytes`. Built like the loop because the loss
/// per access depends on the mix around the bucket update. `huge`: the buckets on 2 MiB pages (memory's
/// footprint, whose walks the walk slots charge); otherwise an ordinary allocation, like the measured
/// loop's buckets.
class loop_kernel {
 public:
  /// `labels`: the labels (and values) one run folds; the buckets fill `bytes`.
  loop_kernel(std::size_t bytes, bool huge, std::size_t labels = update_steps)
      : buckets_(std::max<std::size_t>(bytes / sizeof(std::uint32_t), 16), huge), streams_(labels) {
    std::fill_n(buckets_.data(), buckets_.size(), 0u);  // the pages faulted in here, not in the timing
    std::mt19937_64 rng(5);
    std::uniform_int_distribution<std::uint32_t> label(0, static_cast<std::uint32_t>(buckets_.size() - 1));
    for (std::size_t i = 0; i < labels; ++i) {
      streams_.labels()[i] = label(rng);
      streams_.values()[i] = static_cast<std::uint32_t>(i);
    }
  }

  /// ns per element of the loop over the labels and values: the median of three runs, as update_ns.
  double ns() {
    const std::size_t m = buckets_.size();
    const auto labels = streams_.labels();
    const auto values = streams_.values();
    const auto label_of = [&](std::size_t i) { return host::detail::label_bucket(labels[i], m); };
    const auto value_of = [&](std::size_t i) { return values[i]; };
    const double median = median_of_three([&] {
      const auto start = steady::now();
      dropped_ += placed_fold_range(0, labels.size(), label_of, value_of, buckets_.span(), plus{});
      return elapsed_ns(start) / static_cast<double>(labels.size());
    });
    if (dropped_ != 0) throw invalid_argument("sluice simulate", "loop kernel", "dropped labels that are in range");
    return median;
  }

 private:
  host::huge_page_buffer<std::uint32_t> buckets_;
  stream_pair streams_;
  std::size_t dropped_ = 0;
};

constexpr std::size_t store_elements = std::size_t{1} << 22;
constexpr std::size_t store_cached_elements = std::size_t{1} << 14;  // 64 KiB per array: what the caches keep
constexpr int store_sweep_bits = 9;  // 2^9 groups, 1024 write streams: the default sweep's widest partial sort (m = 2^26)
/// New lines per element of the partial sort's distribution: a u32 label and a u32 value.
constexpr double store_lines_per_element = 2.0 * sizeof(std::uint32_t) / line_bytes;

/// The partial sort's distribution as the store kernel (Eilers §2.4, Alg. 2.6: host::detail::bucket_plan's
/// visit, as label_groups runs it): 2^22 u32 labels and values into 2^bits groups of two arrays, so
/// 2^(bits+1) write streams, on one thread. The destinations are an ordinary allocation (4 KiB pages,
/// as the temporaries) touched before the timing: the fresh pages' faults are charged apart
/// (page_fault_ns), as the two costs add roughly.
class store_kernel {
 public:
  store_kernel()
      : labels_(store_elements), values_(store_elements), labels_out_(store_elements, false),
        values_out_(store_elements, false) {
    std::mt19937_64 rng(13);
    for (std::size_t i = 0; i < labels_.size(); ++i) {
      labels_[i] = static_cast<std::uint32_t>(rng());  // uniform: the groups come in random order
      values_[i] = static_cast<std::uint32_t>(i);
    }
    std::fill_n(labels_out_.data(), labels_out_.size(), 0u);  // the faults here, not in the timing
    std::fill_n(values_out_.data(), values_out_.size(), 0u);
  }

  /// What the stores into memory cost per element beyond the same stores wrapped into 2 × 64 KiB (which
  /// the caches keep), with 2^bits groups: the store sweep's point.
  sim::store_point extra(int bits) {
    const auto group_of = [&](std::size_t i) { return static_cast<std::size_t>(std::uint64_t{labels_[i]} >> (32 - bits)); };
    const std::size_t groups = std::size_t{1} << bits;
    double cached = 0, touched = 0;
    single_threaded([&] {
      const host::detail::bucket_plan plan(labels_.size(), groups, group_of);
      cached = median_of_three([&] {
        return distribute_ns(plan, group_of, [](std::size_t d) { return d % store_cached_elements; });
      });
      touched = median_of_three([&] { return distribute_ns(plan, group_of, [](std::size_t d) { return d; }); });
    });
    return {2 * groups, touched - cached};
  }

 private:
  template <class GroupOf, class Where>
  double distribute_ns(const host::detail::bucket_plan& plan, const GroupOf& group_of, const Where& where) {
    const auto start = steady::now();
    plan.visit(group_of, [&](std::size_t i, std::size_t d) {
      labels_out_[where(d)] = labels_[i];
      values_out_[where(d)] = values_[i];
    });
    return elapsed_ns(start) / static_cast<double>(labels_.size());
  }

  std::vector<std::uint32_t> labels_, values_;
  host::huge_page_buffer<std::uint32_t> labels_out_, values_out_;
};

double chase_ns(std::size_t bytes, std::size_t stride, bool huge) {
  const line_pool pool(std::max<std::size_t>(bytes / stride, 16), stride, huge);
  return best_of(3, [&] { return pool.chase_ns(chase_steps); });
}

/// A level's (or memory's) load-to-use latency and time per independent update, over `bytes` on 2 MiB
/// pages, and the loop kernel's time per element over the same bytes of buckets (the slots' source).
struct level_timing {
  double chase_ns = 0, update_ns = 0, loop_ns = 0;
};
level_timing time_level(std::size_t bytes) {
  line_pool pool(std::max<std::size_t>(bytes / line_bytes, 16), line_bytes, true);
  const double chase = best_of(3, [&] { return pool.chase_ns(chase_steps); });
  const double update = pool.update_ns(update_steps);
  loop_kernel loop(bytes, false);  // 4 KiB pages, as the measured loop's buckets
  return {chase, update, loop.ns()};
}

/// Latency of a level from a chase over `bytes`, given that a share inner/bytes still hits the level
/// inside it (a random chase keeps that share of its lines there).
double corrected_latency(double measured, std::size_t bytes, std::size_t inner_bytes, double inner_latency) {
  const double inner_share = std::min(0.9, static_cast<double>(inner_bytes) / static_cast<double>(bytes));
  return (measured - inner_share * inner_latency) / (1 - inner_share);
}

double sequential_read_ns_per_line(std::size_t bytes) {
  std::vector<std::uint64_t> data(bytes / 8, 1);
  return best_of(3, [&] {
    std::uint64_t a = 0, b = 0, c = 0, d = 0;
    const auto start = steady::now();
    for (std::size_t i = 0; i < data.size(); i += 4) a += data[i], b += data[i + 1], c += data[i + 2], d += data[i + 3];
    const double ns = elapsed_ns(start);
    if (a + b + c + d == 0) std::cout << "";
    return ns / static_cast<double>(bytes / line_bytes);
  });
}

/// ns per page of freshly allocated memory: allocation, first touch (the kernel zeroes and maps the
/// page) and release (it unmaps it again), as the partial sort's temporaries cost.
double page_fault_ns(std::size_t bytes) {
  return best_of(3, [&] {
    const auto start = steady::now();
    {
      host::huge_page_buffer<std::uint8_t> fresh(bytes, false);
      for (std::size_t at = 0; at < bytes; at += small_page) fresh[at] = 1;
    }
    return elapsed_ns(start) / static_cast<double>(bytes / small_page);
  });
}

// ---- the measured multireduce ----------------------------------------------------------------------------

struct problem {
  std::size_t n, m;
  std::uint64_t seed;
  data::distribution_spec label_spec() const { return {data::distribution::uniform, m, 0.0, seed}; }
};

struct measured_run {
  double ns_per_element = 0;
  host::multireduce_result result;
  std::vector<std::uint32_t> out;
};

/// Times host::multireduce over `labels` and `values` into m buckets: one warm-up run (the page faults
/// of out, the code), then `repetitions` timed runs, whose median counts.
measured_run time_multireduce(std::span<const std::uint32_t> labels, std::span<const std::uint32_t> values, std::size_t m,
                              host::multireduce_options options, int repetitions) {
  measured_run run;
  run.out.assign(m, 0);
  std::vector<double> times;
  single_threaded([&] {
    for (int r = 0; r <= repetitions; ++r) {
      const auto start = steady::now();
      run.result = placed_multireduce(labels, values, run.out, options);
      if (r > 0) times.push_back(elapsed_ns(start) / static_cast<double>(labels.size()));
    }
  });
  run.ns_per_element = sim::median(times);
  return run;
}

/// The problem's labels into the pair (a visit's fresh labels over the run's values).
void generate_labels(stream_pair& streams, const problem& p) {
  std::ranges::copy(data::generate_host<std::uint32_t>(p.n, p.label_spec()), streams.labels().begin());
}

/// The values every measured loop adds: uniform in [0, 2^16).
void generate_values(stream_pair& streams, const problem& p) {
  std::ranges::copy(data::generate_host<std::uint32_t>(p.n, {data::distribution::uniform, 1u << 16, 0.0, p.seed + 1}),
                    streams.values().begin());
}

measured_run measure_multireduce(const problem& p, host::multireduce_options options, int repetitions) {
  stream_pair streams(p.n);
  generate_labels(streams, p);
  generate_values(streams, p);
  return time_multireduce(streams.labels(), streams.values(), p.m, options, repetitions);
}

/// The straight loop over 2^10 buckets at the run's n, with the streams placed as every loop the tool
/// times (stream_pair) and a multiple of 2^28 bytes apart (an aliasing distance): each run shows what
/// the placement the model cannot see is worth on the machine at hand.
void print_stream_placement(std::ostream& os, int log2_n) {
  const problem p{std::size_t{1} << log2_n, std::size_t{1} << 10, 1};
  const auto ns_at = [&](stream_pair streams) {
    generate_labels(streams, p);
    generate_values(streams, p);
    return time_multireduce(streams.labels(), streams.values(), p.m, {.algorithm = host::multireduce_algo::naive}, 5)
        .ns_per_element;
  };
  constexpr std::size_t aliasing = std::size_t{1} << 28;
  const std::size_t apart = (p.n * sizeof(std::uint32_t) + aliasing - 1) / aliasing * aliasing;
  const double placed = ns_at(stream_pair(p.n));
  const double aliased = ns_at(stream_pair(p.n, apart));
  os << fmt::format("stream placement (the straight loop over 2^10 buckets, n = 2^{}): {:.2f} ns per element with the values\n"
                    "{} KiB past the labels' page-rounded end, as in every loop timed here; {:.2f} with them 2^{} bytes apart\n\n",
                    log2_n, placed, stream_gap / 1024, aliased, std::bit_width(apart) - 1);
}

// ---- the machine description -----------------------------------------------------------------------------

/// How a level's effective size is searched for (effective_bytes).
struct size_sweep {
  std::string name;
  std::size_t from = 0, reported = 0;
  double threshold = 0;
};

struct walk_point {
  std::size_t pages;
  double ns;
};

struct calibration {
  sim::machine_description machine;
  sim::loop_costs costs;
  std::vector<std::size_t> reported_bytes;  ///< per level, as host::cache_info has them
  std::size_t memory_bytes = 0;             ///< the footprint memory is timed over
  level_timing memory{};                    ///< memory's chase and updates (2 MiB pages)
  std::shared_ptr<line_pool> memory_pool;   ///< kept to time memory's updates again before each row
  std::shared_ptr<line_pool> small_page_pool; ///< the same footprint on 4 KiB pages, timed again in each round
  std::shared_ptr<loop_kernel> memory_loop; ///< the loop kernel over memory's footprint (2 MiB pages)
  double core_update_ns = 0;                ///< independent updates within the first level
  double core_loop_ns = 0;                  ///< the loop kernel within the first level (the slots' baseline)
  std::vector<level_timing> measured;       ///< per level past the first, then memory: as measured
  double small_page_update_ns = 0;          ///< the updates over memory's footprint on 4 KiB pages
  std::vector<walk_point> walks;            ///< page walk cost by pages spanned, beyond the TLB's reach
  std::vector<walk_point> translation;      ///< the translation sweep they came from (the rounds' median)
  std::shared_ptr<store_kernel> stores;     ///< the store kernel, timed again in each round
  std::vector<sim::store_point> store_sweep; ///< its sweep (the rounds' median, for the printout)

  /// The walk cost for random accesses over `bytes` (the nearest measured span, clamped to the ends).
  [[nodiscard]] double walk_ns_for(std::size_t bytes) const {
    const std::size_t pages = bytes / small_page;
    for (const auto& w : walks)
      if (w.pages >= pages) return w.ns;
    return walks.empty() ? 0.0 : walks.back().ns;
  }
};

sim::cache_level_config cache_level_from(const host::cache_level& c, std::size_t bytes, double latency, double slots) {
  const std::size_t ways = c.associativity == 0 ? 1 : c.associativity;
  const std::size_t set_bytes = ways * c.line_bytes;
  return {fmt::format("L{}", c.level), {std::max(bytes / set_bytes, std::size_t{1}) * set_bytes, c.line_bytes, ways},
          latency, slots};
}

/// A level's effective size: the chase swept from `from` towards the reported size by factors of
/// 2^(1/4); the largest size whose latency stays below `threshold` (the sweep ends after three sizes in
/// a row above it).
std::size_t effective_bytes(const size_sweep& sweep, std::ostream& log) {
  const auto& [name, from, reported, threshold] = sweep;
  std::size_t fits = from;
  log << fmt::format("{} sweep (2 MiB pages; threshold {:.1f} ns):", name, threshold);
  int above = 0;
  for (int step = 0; above < 3; ++step) {
    const auto scaled = static_cast<std::size_t>(std::llround(static_cast<double>(from) * std::exp2(step / 4.0)));
    const std::size_t probe = scaled / line_bytes * line_bytes;
    if (probe > reported) break;
    const double ns = chase_ns(probe, line_bytes, true);
    log << fmt::format(" {:.0f} KiB {:.1f} ns;", static_cast<double>(probe) / 1024, ns);
    above = ns > threshold ? above + 1 : 0;
    if (ns <= threshold) fits = probe;
  }
  log << "\n";
  return fits;
}

/// Random updates over a footprint on 2 MiB pages, timed: ns per update.
using update_timer = std::function<double()>;
struct random_updates {
  const char* name;
  std::function<update_timer(std::size_t bytes)> over;
};

/// line_pool::update_ns: one u64 read-modify-write per random line (the private levels' sweeps).
const random_updates update_kernel{"update", [](std::size_t bytes) -> update_timer {
  auto pool = std::make_shared<line_pool>(bytes / line_bytes, line_bytes, true);
  return [pool] { return pool->update_ns(update_steps); };
}};

/// The loop kernel (the library's straight loop) on 2 MiB pages: the last level's sweep. Its loss per
/// L3 hit and per memory access is what the model charges (miss_slots), so the level is sized by the
/// same kernel: the update kernel's capacity would pair with charges it does not pay.
/// Over each footprint it folds the default run's n = 2^24 labels (sweep_labels), so that it re-uses
/// each bucket as often as the measured loop does at m = footprint / 4 bytes (a last level that is not
/// LRU keeps re-used lines).
constexpr std::size_t sweep_labels = std::size_t{1} << 24;
const random_updates loop_updates{"loop kernel", [](std::size_t bytes) -> update_timer {
  auto loop = std::make_shared<loop_kernel>(bytes, true, sweep_labels);
  return [loop] { return loop->ns(); };
}};

/// A level's effective size for the loop's own access kind: random updates of `kind` over `footprints`,
/// on 2 MiB pages; each footprint's time between the updates' over `hit_bytes` (surely fits) and over
/// `miss_bytes` (surely past the level: the next level's, or memory's time, `miss_ns`, with
/// miss_bytes = 0 for "all of it past") says what share of it the level kept, hence the capacity an
/// LRU level needs to keep as much (sim::capacity_from_random_updates).
/// The largest estimate counts (a neighbour only adds time, so every estimate errs low), at least
/// hit_bytes. Each point (the hit, the miss past the level, every footprint) is timed `timings` times,
/// interleaved, and counts at its fastest (sim::capacity_from_update_sweep): a private level's hit and
/// miss differ so little that one slow timing moves its estimate by its whole size.
/// The last level takes one timing: the shared L3's size moves with the other tenants' load, and the
/// loop sees that.
/// Random updates, not a pointer chase: a chase falls off a cliff once its cycle no longer fits and says
/// nothing about the gradual loss of random updates past it, which is what the straight loop sees.
std::size_t update_bytes(const std::string& name, const random_updates& kind, std::size_t hit_bytes,
                         const std::vector<std::size_t>& footprints, std::size_t miss_bytes, double miss_ns,
                         std::size_t reported, int timings, std::ostream& log) {
  const update_timer inside = kind.over(hit_bytes);
  update_timer past;
  if (miss_bytes != 0) past = kind.over(miss_bytes);
  std::vector<update_timer> pools;
  for (const std::size_t footprint : footprints) pools.push_back(kind.over(footprint));
  sim::update_point hit{hit_bytes, {}}, miss{miss_bytes, {}};
  std::vector<sim::update_point> points;
  for (const std::size_t footprint : footprints) points.push_back({footprint, {}});
  for (int t = 0; t < timings; ++t) {  // interleaved: a neighbour's burst lands on one timing of each
    hit.ns.push_back(inside());
    for (std::size_t i = 0; i < pools.size(); ++i) points[i].ns.push_back(pools[i]());
    if (past) miss.ns.push_back(past());
  }
  if (past) miss_ns = sim::fastest(miss.ns);
  const double hit_ns = sim::fastest(hit.ns);
  log << fmt::format("{} {} sweep (2 MiB pages{}; {:.2f} ns at {:.0f} KiB, {:.2f} ns at {}):", name, kind.name,
                     timings > 1 ? fmt::format(", fastest of {}", timings) : std::string(), hit_ns,
                     static_cast<double>(hit_bytes) / 1024, miss_ns,
                     miss_bytes == 0 ? std::string("memory") : fmt::format("{:.0f} KiB", static_cast<double>(miss_bytes) / 1024));
  for (const auto& p : points) {
    const std::size_t holds = sim::capacity_from_random_updates(p.footprint_bytes, sim::fastest(p.ns), hit_ns, miss_ns, miss_bytes);
    log << fmt::format(" {:.0f} KiB {:.2f} ns (holds {:.0f} KiB);", static_cast<double>(p.footprint_bytes) / 1024,
                       sim::fastest(p.ns), static_cast<double>(holds) / 1024);
  }
  const std::size_t best = sim::capacity_from_update_sweep(hit, points, miss_ns, miss_bytes);
  log << "\n";
  return std::min(best, reported);
}

constexpr double max_slots = 64;
/// The walk slots' cap, far above max_slots: the page-table entries mostly hit the caches and the walks
/// overlap the misses, so the updates lose a small part of a walk (docs/simulator.md, "The walk charge").
constexpr double max_walk_slots = 1024;
/// Timings per point of the update sweeps of the levels inside the last (update_bytes).
constexpr int private_update_timings = 3;
constexpr std::size_t core_loop_bytes = (std::size_t{1} << 10) * sizeof(std::uint32_t);  // fold_core_ns's m

/// Loads a level overlaps: its latency over the core time the loop kernel loses there (its time per
/// element beyond its time within the first level, less the share of updates the level inside serves
/// at its loss).
double miss_slots(double latency, double core_loop_ns, const level_timing& measured, std::size_t bytes,
                  std::size_t inner_bytes, double inner_lost_ns) {
  const double lost = corrected_latency(measured.loop_ns - core_loop_ns, bytes, inner_bytes, inner_lost_ns);
  return lost <= latency / max_slots ? max_slots : std::max(latency / lost, 1.0);
}

std::vector<const host::cache_level*> data_caches() {
  const host::cache_info& info = host::machine_cache_info();
  std::vector<const host::cache_level*> levels;
  for (int l = 1; l <= 4; ++l)
    if (const auto* c = info.data_cache(l)) levels.push_back(c);
  if (levels.empty() || levels.front()->line_bytes != line_bytes)
    throw invalid_argument("sluice simulate", "machine", "needs the data caches (64-byte lines) in host::cache_info");
  return levels;
}

/// Memory's latency and time per update, on 2 MiB pages, and the same updates on 4 KiB pages (for the
/// walks), alternated: neighbours on a shared machine move memory times by a third within seconds.
void calibrate_memory(calibration& cal) {
  for (const auto* c : data_caches()) cal.reported_bytes.push_back(c->size_bytes);
  cal.memory_bytes = std::max<std::size_t>(8 * cal.reported_bytes.back(), std::size_t{256} << 20);
  cal.memory_pool = std::make_shared<line_pool>(cal.memory_bytes / line_bytes, line_bytes, true);
  cal.memory_loop = std::make_shared<loop_kernel>(cal.memory_bytes, true);
  cal.memory = {best_of(3, [&] { return cal.memory_pool->chase_ns(chase_steps); }),
                cal.memory_pool->update_ns(update_steps), cal.memory_loop->ns()};
  cal.small_page_pool = std::make_shared<line_pool>(cal.memory_bytes / line_bytes, line_bytes, false);
  line_pool& small = *cal.small_page_pool;
  cal.small_page_update_ns = small.update_ns(update_steps);
  for (int round = 0; round < 2; ++round) {
    cal.memory.update_ns = std::min(cal.memory.update_ns, cal.memory_pool->update_ns(update_steps));
    cal.small_page_update_ns = std::min(cal.small_page_update_ns, small.update_ns(update_steps));
  }
  cal.machine.timing.memory_latency_ns = cal.memory.chase_ns;
}

/// The cache levels: effective sizes, latencies and slots (and memory's slots, which depend on the last
/// level's share). Each level's effective size: the chase swept up from half the reported size (the
/// last level: from twice the level inside), against halfway between a size that surely fits (half
/// the sweep's start) and one that surely does not (twice the reported size; the last level: memory).
/// Then each level is timed over half its effective size (the chase keeps the rest for the code, stack
/// and streams). Cheap enough to repeat before every row: the shared levels change within seconds.
void calibrate_caches(calibration& cal, std::ostream& log) {
  const auto levels = data_caches();
  cal.machine.caches.clear();
  cal.measured.clear();
  std::size_t inner_bytes = 0;
  double inner_latency = 0, inner_lost = 0;
  for (std::size_t i = 0; i < levels.size(); ++i) {
    const bool last = i + 1 == levels.size() && i > 0;
    const std::size_t reported = levels[i]->size_bytes, from = last ? 2 * inner_bytes : std::max(reported / 2, 2 * inner_bytes);
    const double missing = last ? cal.memory.chase_ns : chase_ns(2 * reported, line_bytes, true);
    const std::size_t bytes = effective_bytes(
        {fmt::format("L{}", levels[i]->level), from, reported, (chase_ns(from / 2, line_bytes, true) + missing) / 2}, log);
    const level_timing measured = time_level(bytes / 2);
    double latency = measured.chase_ns, slots = 1;
    if (i == 0) {
      cal.core_update_ns = measured.update_ns;  // every update hits: the kernel's own time
      // The loop kernel's own time over 2^10 buckets (4 KiB), where fold_core_ns takes the model's core
      // time: over half the L1 random u32 buckets already miss it now and then, and a baseline with
      // misses in it would shrink every level's loss.
      cal.core_loop_ns = loop_kernel(core_loop_bytes, false).ns();
    } else {
      latency = corrected_latency(measured.chase_ns, bytes / 2, inner_bytes, inner_latency);
      slots = miss_slots(latency, cal.core_loop_ns, measured, bytes / 2, inner_bytes, inner_lost);
      inner_lost = latency / slots;
      cal.measured.push_back(measured);
    }
    // The last level simulated at what random updates find it holds; its latency and slots stay
    // timed over half the chase's size, which surely fits.
    // Every level simulated at what random updates find it holds (the last: 2, 4, 8 times the sweep's
    // start against memory; the others: the sweep's start and the reported size against four times
    // the reported size, which the next level serves); latency and slots stay timed over half the
    // chase's size, and the next level's sweep starts from the chase's size.
    std::vector<std::size_t> footprints;
    if (last)
      for (std::size_t f = 2 * from; f <= std::min(reported, 8 * from); f *= 2) footprints.push_back(f);
    else
      footprints = {from, reported};
    const std::size_t simulated_bytes =
        update_bytes(fmt::format("L{}", levels[i]->level), last ? loop_updates : update_kernel, last ? from : from / 2,
                     footprints, last ? 0 : 4 * reported, last ? cal.memory.loop_ns : cal.memory.update_ns, reported,
                     last ? 1 : private_update_timings, log);
    cal.machine.caches.push_back(cache_level_from(*levels[i], simulated_bytes, latency, slots));
    inner_bytes = last ? simulated_bytes : bytes;
    inner_latency = latency;
  }
  cal.machine.timing.miss_slots =
      miss_slots(cal.memory.chase_ns, cal.core_loop_ns, cal.memory, cal.memory_bytes, inner_bytes, inner_lost);
  cal.measured.push_back(cal.memory);
}

/// Translation cost of a chase over `pages` pages, one line each: 4 KiB pages minus 2 MiB pages.
double translation_ns(std::size_t pages) {
  return chase_ns(pages * small_page, small_page, false) - chase_ns(pages * line_bytes, line_bytes, true);
}

/// The translation sweep: the cost of a chase with one line per 4 KiB page over 128 … 2^16 pages (one
/// round's; the model gets the median of each span over the rounds, sim::median_by_position).
std::vector<walk_point> translation_sweep(std::ostream& log) {
  log << "translation sweep (one line per 4 KiB page, minus the same lines on 2 MiB pages):";
  std::vector<walk_point> costs;
  for (std::size_t pages = 128; pages <= (std::size_t{1} << 16); pages *= 2) {
    costs.push_back({pages, translation_ns(pages)});
    log << fmt::format(" {} pages {:.1f} ns;", pages, costs.back().ns);
  }
  log << "\n";
  return costs;
}

/// The TLB from a translation sweep: the second level's reach and penalty, the walk cost per span past
/// it, and the walk slots (memory's updates on 4 KiB pages against 2 MiB pages).
void calibrate_tlb(calibration& cal, const std::vector<walk_point>& costs) {
  std::size_t first_entries = 64;  // where CPUID says nothing
  for (const auto& t : host::machine_cache_info().tlbs)
    if (t.level == 1 && t.type == host::cache_type::data && t.page_bytes == small_page) first_entries = t.entries;
  cal.walks.clear();
  // The second level holds up to the largest span whose cost stays near its hit penalty (the first
  // span past the first level's reach); past it the walks start, which cost several times more.
  const double penalty = std::max(0.0, costs[first_entries >= 256 ? 2 : 1].ns);
  std::size_t second_entries = first_entries;
  for (const auto& c : costs)
    if (c.ns < penalty + 3.0) second_entries = std::max(second_entries, c.pages);
  for (const auto& c : costs)
    if (c.pages > second_entries) {
      const double walking_share = 1.0 - static_cast<double>(second_entries) / static_cast<double>(c.pages);
      cal.walks.push_back({c.pages, std::max(penalty, c.ns / walking_share)});
    }
  const double walk = cal.walks.empty() ? penalty : cal.walks.back().ns;  // at the memory footprint's span
  const double lost = cal.small_page_update_ns - cal.memory.update_ns;
  cal.machine.tlb = {small_page,
                     {{"L1 DTLB", first_entries, 0, 0.0}, {"L2 DTLB", second_entries, 8, penalty}},
                     walk,
                     lost <= walk / max_walk_slots ? max_walk_slots : std::max(walk / lost, 1.0)};
}

void calibrate_bandwidth(calibration& cal) {
  cal.machine.timing.memory_ns_per_line = sequential_read_ns_per_line(std::size_t{256} << 20);
}

/// ns per element of the partial sort's counting pass alone: the plan host::detail::label_groups builds
/// (its count, and the offsets, which are few at 2^bits groups), with label_groups' group function.
double count_pass_ns(const problem& p, int bits, int repetitions) {
  const auto labels = data::generate_host<std::uint32_t>(p.n, p.label_spec());
  const int shift = host::detail::label_bits(p.m) - bits;
  const std::size_t groups = std::size_t{1} << bits;
  const auto group_of = [&](std::size_t i) -> std::size_t { return labels[i] < p.m ? labels[i] >> shift : groups; };
  std::vector<double> times;
  std::size_t kept = 0;
  single_threaded([&] {
    for (int r = 0; r <= repetitions; ++r) {
      const auto start = steady::now();
      const host::detail::bucket_plan plan(p.n, groups, group_of);
      kept += plan.kept();
      if (r > 0) times.push_back(elapsed_ns(start) / static_cast<double>(p.n));
    }
  });
  if (kept != (static_cast<std::size_t>(repetitions) + 1) * p.n)
    throw invalid_argument("sluice simulate", "count pass", "dropped labels that are in range");
  std::nth_element(times.begin(), times.begin() + static_cast<std::ptrdiff_t>(times.size() / 2), times.end());
  return times[times.size() / 2];
}

/// Core time per iteration: the loops on inputs that fit the first level (every access hits).
constexpr int core_repetitions = 1001;  // about 10 ms for the straight loop: long enough to average over bursts

/// The straight loop's core time: n = 2^14 elements into 2^10 buckets, everything in the first level.
double fold_core_ns() {
  const problem tiny{std::size_t{1} << 14, std::size_t{1} << 10, 11};
  return measure_multireduce(tiny, {.algorithm = host::multireduce_algo::naive}, core_repetitions).ns_per_element;
}

void calibrate_loops(calibration& cal) {
  const int repetitions = core_repetitions;
  cal.costs.fold_ns = fold_core_ns();
  const problem grouped{std::size_t{1} << 14, 256, 11};
  constexpr int bits = 4;
  const double sorted = measure_multireduce(grouped, {.algorithm = host::multireduce_algo::partial_sort, .partial_sort_bits = bits},
                                            repetitions).ns_per_element;
  cal.costs.count_ns = count_pass_ns(grouped, bits, repetitions);
  cal.costs.distribute_ns = std::max(cal.costs.fold_ns, sorted - cal.costs.count_ns - cal.costs.fold_ns);
  cal.costs.page_fault_ns = page_fault_ns(std::size_t{64} << 20);
}

/// The store sweep, 2 … 1024 write streams, and what the model takes from it (write_streams.hpp): the
/// write streams the core follows and what a store miss past them costs. Taken in every round like the
/// other calibrated values: the machine's load moves it.
std::vector<sim::store_point> calibrate_stores(calibration& cal, std::ostream& log) {
  log << "store sweep (2^22 u32 labels and values distributed into memory touched before, beyond the same stores cached, "
         "ns per element):";
  std::vector<sim::store_point> sweep;
  for (int bits = 0; bits <= store_sweep_bits; ++bits) {
    sweep.push_back(cal.stores->extra(bits));
    log << fmt::format(" {} streams {:.2f};", sweep.back().streams, sweep.back().extra_ns);
  }
  auto& timing = cal.machine.timing;
  timing.write_streams = sim::write_streams_kept(sweep);
  timing.store_miss_ns = sim::store_miss_ns(sweep, timing.write_streams, store_lines_per_element);
  log << fmt::format(" follows {} streams, {:.1f} ns per store miss past them\n", timing.write_streams, timing.store_miss_ns);
  return sweep;
}

/// What is measured once, before the rounds: memory's pools (its latency, its updates on 2 MiB and on
/// 4 KiB pages: the walk slots), the bandwidth, and the store kernel's arrays (timed in every round).
/// The translation sweep (the TLB and the walks) is taken in every round: a single draw moves several-fold.
calibration calibrate_once() {
  calibration cal;
  calibrate_memory(cal);
  calibrate_bandwidth(cal);
  cal.stores = std::make_shared<store_kernel>();
  return cal;
}

/// One round's calibration: memory's latency and updates again, the translation sweep, then the caches
/// (sizes, latencies, slots, and memory's slots), the core times and the store sweep.
struct round_calibration {
  sim::machine_description machine;
  sim::loop_costs costs;
  double core_update_ns = 0, core_loop_ns = 0;
  std::vector<level_timing> measured;  ///< per level past the first, then memory
  std::vector<walk_point> translation; ///< this round's translation sweep
  double small_page_update_ns = 0;     ///< memory's updates on 4 KiB pages (the walk slots), this round
  std::vector<sim::store_point> stores; ///< this round's store sweep
  std::string sweeps;
  double seconds = 0;
};

round_calibration calibrate_round(const calibration& once) {
  const auto start = steady::now();
  calibration here = once;
  here.memory = {best_of(3, [&] { return here.memory_pool->chase_ns(chase_steps); }), here.memory_pool->update_ns(update_steps),
                 here.memory_loop->ns()};
  here.machine.timing.memory_latency_ns = here.memory.chase_ns;
  std::ostringstream sweeps;
  const std::vector<walk_point> translation = translation_sweep(sweeps);
  here.small_page_update_ns = here.small_page_pool->update_ns(update_steps);
  calibrate_tlb(here, translation);
  calibrate_caches(here, sweeps);
  calibrate_loops(here);
  const std::vector<sim::store_point> stores = calibrate_stores(here, sweeps);
  return {here.machine, here.costs, here.core_update_ns, here.core_loop_ns, here.measured, translation,
          here.small_page_update_ns, stores, sweeps.str(), elapsed_ns(start) * 1e-9};
}

/// The description the model gets: every parameter's median over the rounds (sim::median_machine,
/// sim::median_costs); the measured chase and update times likewise, for the printout.
calibration median_calibration(const calibration& once, const std::vector<round_calibration>& rounds) {
  calibration out = once;
  std::vector<sim::machine_description> machines;
  std::vector<sim::loop_costs> costs;
  std::vector<double> core_updates, core_loops;
  for (const auto& r : rounds) {
    machines.push_back(r.machine);
    costs.push_back(r.costs);
    core_updates.push_back(r.core_update_ns);
    core_loops.push_back(r.core_loop_ns);
  }
  out.machine = sim::median_machine(machines);
  out.costs = sim::median_costs(costs);
  out.core_update_ns = sim::median(core_updates);
  out.core_loop_ns = sim::median(core_loops);
  out.measured.assign(rounds.front().measured.size(), {});
  for (std::size_t i = 0; i < out.measured.size(); ++i) {
    std::vector<double> chases, updates, loops;
    for (const auto& r : rounds) {
      chases.push_back(r.measured[i].chase_ns);
      updates.push_back(r.measured[i].update_ns);
      loops.push_back(r.measured[i].loop_ns);
    }
    out.measured[i] = {sim::median(chases), sim::median(updates), sim::median(loops)};
  }
  out.memory = out.measured.back();
  // The TLB and the walks from the median of the rounds' translation sweeps, span by span.
  std::vector<std::vector<double>> sweeps;
  for (const auto& r : rounds) {
    sweeps.emplace_back();
    for (const auto& w : r.translation) sweeps.back().push_back(w.ns);
  }
  const std::vector<double> median_sweep = sim::median_by_position(sweeps);
  std::vector<double> small_page_updates;
  for (const auto& r : rounds) small_page_updates.push_back(r.small_page_update_ns);
  out.small_page_update_ns = sim::median(small_page_updates);
  out.translation.clear();
  for (std::size_t i = 0; i < median_sweep.size(); ++i)
    out.translation.push_back({rounds.front().translation[i].pages, median_sweep[i]});
  calibrate_tlb(out, out.translation);
  // The store sweep's median, span by span, for the printout (the model has each round's write streams
  // and store miss cost, their medians, from median_machine).
  std::vector<std::vector<double>> store_sweeps;
  for (const auto& r : rounds) {
    store_sweeps.emplace_back();
    for (const auto& p : r.stores) store_sweeps.back().push_back(p.extra_ns);
  }
  const std::vector<double> median_stores = sim::median_by_position(store_sweeps);
  out.store_sweep.clear();
  for (std::size_t i = 0; i < median_stores.size(); ++i) out.store_sweep.push_back({rounds.front().stores[i].streams, median_stores[i]});
  return out;
}

void print_calibration(std::ostream& os, const calibration& cal, const std::string& what) {
  const auto& m = cal.machine;
  os << fmt::format("machine description (geometry from host::cache_info; times measured here, each the median of its {}):\n",
                    what);
  for (std::size_t i = 0; i < m.caches.size(); ++i) {
    const auto& c = m.caches[i];
    os << fmt::format("  {:<8} {:>9.0f} KiB {:>3}-way {:>3} B lines  {:6.2f} ns", c.name,
                      static_cast<double>(c.geometry.size_bytes) / 1024, c.geometry.associativity, c.geometry.block_bytes,
                      c.latency_ns);
    if (i == 0)
      os << fmt::format("  (loop kernel {:.2f} ns, independent updates {:.2f} ns each, at half the size)\n",
                        cal.core_loop_ns, cal.core_update_ns);
    else
      os << fmt::format("  {:5.1f} slots (chase {:.2f} ns, loop kernel {:.2f} ns, independent updates {:.2f} ns at half "
                        "the size)\n",
                        c.miss_slots, cal.measured[i - 1].chase_ns, cal.measured[i - 1].loop_ns,
                        cal.measured[i - 1].update_ns);
  }
  os << "  (sizes: the measured effective ones; reported:";
  for (const auto& c : cal.reported_bytes) os << fmt::format(" {} KiB", c / 1024);
  os << ")\n";
  os << fmt::format("  memory   {:6.1f} ns latency, {:5.1f} slots (loop kernel {:.2f} ns, independent updates {:.2f} ns), "
                    "{:.2f} ns per line streamed ({:.1f} GB/s)\n",
                    m.timing.memory_latency_ns, m.timing.miss_slots, cal.measured.back().loop_ns,
                    cal.measured.back().update_ns,
                    m.timing.memory_ns_per_line, static_cast<double>(line_bytes) / m.timing.memory_ns_per_line);
  for (const auto& t : m.tlb.levels)
    os << fmt::format("  {:<8} {:>5} entries × 4 KiB{}  +{:.2f} ns when it translates\n", t.name, t.entries,
                      t.associativity == 0 ? " (fully associative)" : "", t.hit_penalty_ns);
  os << "  translation sweep (median of the rounds' sweeps):";
  for (const auto& w : cal.translation) os << fmt::format(" {} pages {:.1f} ns;", w.pages, w.ns);
  os << "\n  walks   ";
  for (const auto& w : cal.walks) os << fmt::format(" {} pages: {:.1f} ns;", w.pages, w.ns);
  os << fmt::format("\n           {:.1f} slots (independent updates over memory's footprint {:.2f} ns on 4 KiB pages)\n",
                    m.tlb.walk_slots, cal.small_page_update_ns);
  os << "  stores   store sweep (median of the rounds' sweeps; into memory touched before, beyond cached):";
  for (const auto& p : cal.store_sweep) os << fmt::format(" {} streams {:.2f} ns;", p.streams, p.extra_ns);
  os << fmt::format("\n           follows {} write streams, {:.1f} ns per store miss past them (each the median of the "
                    "rounds')\n",
                    m.timing.write_streams, m.timing.store_miss_ns);
  os << fmt::format("  core     fold {:.2f} ns, count {:.2f} ns, distribute {:.2f} ns per element; "
                    "fresh page (fault and release) {:.0f} ns\n",
                    cal.costs.fold_ns, cal.costs.count_ns, cal.costs.distribute_ns, cal.costs.page_fault_ns);
}

// ---- the sweep --------------------------------------------------------------------------------------------

struct sweep_row {
  int log2_m = 0;
  std::size_t n = 0;
  std::vector<double> naive_rounds{}, sorted_rounds{};  ///< ns per element measured in each round (round order)
  std::vector<double> core_rounds{};  ///< the core time around each kept visit (the slower of before and after)
  int redone_visits = 0;     ///< visits timed again because the core loop around them ran slow
  int disturbed_visits = 0;  ///< visits kept disturbed: the core loop still ran slow at the last try
  int sort_bits = 0;
  double naive_simulated = 0, naive_no_mlp = 0, sorted_simulated = 0;
  sim::access_statistics naive_statistics{}, sorted_statistics{};  ///< where the simulated accesses were served
  std::vector<sim::phase_time> sorted_phases{};                     ///< the simulated partial sort, phase by phase

  [[nodiscard]] sim::spread naive() const { return sim::spread_of(naive_rounds); }
  [[nodiscard]] sim::spread sorted() const { return sim::spread_of(sorted_rounds); }
  [[nodiscard]] sim::spread core() const { return sim::spread_of(core_rounds); }
};

double error_percent(double simulated, double measured) { return 100.0 * (simulated - measured) / measured; }

/// How often a visit is tried while the core loop around it runs slow (sim::disturbance_watch); the last
/// try is kept, disturbed or not, and counted as such.
constexpr int visit_tries = 3;

/// The straight loop's core time, taken in by the watch.
double watched_core_ns(sim::disturbance_watch& watch) {
  const double ns = fold_core_ns();
  watch.observe(ns);
  return ns;
}

/// One visit of a round to one m: both loops on the same labels and values (`naive_first` says which
/// goes first), each after its own warm-up run, between two samples of the core time; tried again (up
/// to visit_tries) while the slower sample says a neighbour shared the core. The partial sort's buckets
/// are checked against the straight loop's.
void visit(sweep_row& row, stream_pair& streams, sim::disturbance_watch& watch, int repetitions, bool naive_first) {
  const problem p{row.n, std::size_t{1} << row.log2_m, 1};
  generate_labels(streams, p);
  const auto labels = std::as_const(streams).labels();
  const auto values = std::as_const(streams).values();
  measured_run naive, sorted;
  const auto time_naive = [&] {
    naive = time_multireduce(labels, values, p.m, {.algorithm = host::multireduce_algo::naive}, repetitions);
  };
  const auto time_sorted = [&] {
    sorted = time_multireduce(labels, values, p.m, {.algorithm = host::multireduce_algo::partial_sort}, repetitions);
  };
  for (int attempt = 1;; ++attempt) {
    const double core_before = watched_core_ns(watch);
    if (naive_first) {
      time_naive();
      time_sorted();
    } else {
      time_sorted();
      time_naive();
    }
    const double core = std::max(core_before, watched_core_ns(watch));
    const bool disturbed = watch.disturbed(core);
    if (disturbed && attempt < visit_tries) {
      ++row.redone_visits;
      continue;
    }
    if (naive.out != sorted.out)
      throw invalid_argument("sluice simulate", "partial_sort", "disagrees with naive (the measurement is not valid)");
    row.naive_rounds.push_back(naive.ns_per_element);
    row.sorted_rounds.push_back(sorted.ns_per_element);
    row.core_rounds.push_back(core);
    row.disturbed_visits += disturbed ? 1 : 0;
    row.sort_bits = sorted.result.algorithm == host::multireduce_algo::partial_sort ? sorted.result.partial_sort_bits : 0;
    return;
  }
}

/// The simulated side of a row, on the median description (the walk cost at the row's span).
void simulate_row(sweep_row& row, const calibration& cal, const simulate_arguments& args) {
  const problem p{row.n, std::size_t{1} << row.log2_m, 1};
  sim::machine_description machine = cal.machine;
  machine.tlb.page_walk_ns = cal.walk_ns_for(p.m * sizeof(std::uint32_t));
  const data::sampler<std::uint32_t> labels(p.label_spec(), p.n);
  const auto label_at = [view = labels.host_view()](std::size_t i) { return view(i); };
  const sim::run_shape shape{p.n, p.m, 4, 4, 0, args.log2_sample == 0 ? 0 : std::size_t{1} << args.log2_sample};
  const sim::simulated_run naive_run = sim::simulate_naive(machine, cal.costs, shape, label_at);
  row.naive_simulated = naive_run.ns_per_element(p.n);
  row.naive_statistics = naive_run.statistics;
  sim::machine_description sequential = machine;
  sequential.timing.miss_slots = 1;
  sequential.tlb.walk_slots = 1;
  for (auto& c : sequential.caches) c.miss_slots = 1;
  row.naive_no_mlp = sim::simulate_naive(sequential, cal.costs, shape, label_at).ns_per_element(p.n);

  if (row.sort_bits == 0) {
    row.sorted_simulated = row.naive_simulated;  // partial_sort ran the straight loop: nothing to sort by
    row.sorted_statistics = row.naive_statistics;
  } else {
    sim::run_shape sorted_shape = shape;
    sorted_shape.sort_bits = row.sort_bits;
    const sim::simulated_run sorted_run = sim::simulate_partial_sort(machine, cal.costs, sorted_shape, label_at);
    row.sorted_simulated = sorted_run.ns_per_element(p.n);
    row.sorted_statistics = sorted_run.statistics;
    row.sorted_phases = sorted_run.phases;
  }
}

void print_header(std::ostream& os) {
  os << fmt::format("{:>6} | {:>20} {:>9} {:>7} {:>8} | {:>4} {:>20} {:>9} {:>7} | {}\n", "log2 m", "naive ns/elem", "simulated",
                    "error", "no MLP", "bits", "p.sort ns/elem", "simulated", "error", "core ns/elem");
  os << fmt::format("{:>6} | {:>20} {:>9} {:>7} {:>8} | {:>4} {:>20} {:>9} {:>7} | {}\n", "", "median [min, max]", "ns/elem", "%",
                    "ns/elem", "", "median [min, max]", "ns/elem", "%", "median [min, max]");
}

std::string with_spread(const sim::spread& s) { return fmt::format("{:.2f} [{:.2f}, {:.2f}]", s.median, s.min, s.max); }

void print_row(std::ostream& os, const sweep_row& r) {
  os << fmt::format("{:>6} | {:>20} {:>9.2f} {:>+7.1f} {:>8.2f} | {:>4} {:>20} {:>9.2f} {:>+7.1f} | {}\n", r.log2_m,
                    with_spread(r.naive()), r.naive_simulated, error_percent(r.naive_simulated, r.naive().median),
                    r.naive_no_mlp, r.sort_bits, with_spread(r.sorted()), r.sorted_simulated,
                    error_percent(r.sorted_simulated, r.sorted().median), with_spread(r.core()));
}

/// "a / b / c": each count as a percentage of their sum.
std::string shares(const std::vector<std::uint64_t>& counts) {
  double total = 0;
  for (auto c : counts) total += static_cast<double>(c);
  std::string out;
  for (auto c : counts) out += fmt::format("{}{:5.1f}", out.empty() ? "" : " /", total == 0 ? 0.0 : 100.0 * static_cast<double>(c) / total);
  return out;
}

std::string list(const std::vector<double>& values) {
  std::string out;
  for (double v : values) out += fmt::format("{}{:.2f}", out.empty() ? "" : " ", v);
  return out;
}

/// Each round's machine and the sweeps that found it, each row's rounds, where the simulated accesses
/// were served (L1 / L2 / L3 / memory, TLB levels / walks) and the simulated partial sort phase by
/// phase: the diagnosis behind each row's error.
void print_diagnosis(std::ostream& os, const std::vector<sweep_row>& rows, const std::vector<round_calibration>& rounds,
                     const std::vector<std::vector<std::size_t>>& orders) {
  os << "\neach round's machine: caches (effective size, latency, slots), memory (latency, slots), core ns per element\n"
        "(fold, count, distribute); the model got the median of each:\n";
  for (std::size_t r = 0; r < rounds.size(); ++r) {
    os << fmt::format("{:>6} |", fmt::format("r{}", r + 1));
    for (const auto& c : rounds[r].machine.caches)
      os << fmt::format(" {} {:.0f} KiB {:.1f} ns {:.1f} |", c.name, static_cast<double>(c.geometry.size_bytes) / 1024,
                        c.latency_ns, c.miss_slots);
    os << fmt::format(" memory {:.0f} ns {:.1f} | core {:.2f} {:.2f} {:.2f}\n", rounds[r].machine.timing.memory_latency_ns,
                      rounds[r].machine.timing.miss_slots, rounds[r].costs.fold_ns, rounds[r].costs.count_ns,
                      rounds[r].costs.distribute_ns);
  }
  os << "\nthe sweeps behind them:\n";
  for (std::size_t r = 0; r < rounds.size(); ++r) {
    std::istringstream lines(rounds[r].sweeps);
    for (std::string line; std::getline(lines, line);) os << fmt::format("{:>6} | {}\n", fmt::format("r{}", r + 1), line);
  }
  os << "\nthe order of each round's visits (log2 m; which loop went first):\n";
  for (std::size_t r = 0; r < orders.size(); ++r) {
    os << fmt::format("{:>6} |", fmt::format("r{}", r + 1));
    for (const std::size_t i : orders[r]) os << fmt::format(" {}", rows[i].log2_m);
    os << fmt::format(" ({} first)\n", sim::naive_first(r) ? "naive" : "partial sort");
  }
  os << "\nmeasured ns per element in each round (round order), the core time around each kept visit (the slower\n"
        "of the samples before and after it), the visits timed again and those kept disturbed:\n";
  for (const auto& r : rows)
    os << fmt::format("{:>6} | naive {} | p.sort {} | core {} | redone {}, kept disturbed {}\n", r.log2_m,
                      list(r.naive_rounds), list(r.sorted_rounds), list(r.core_rounds), r.redone_visits,
                      r.disturbed_visits);
  const sim::machine_description& machine = rounds.front().machine;
  std::string levels, translations;
  for (const auto& c : machine.caches) levels += c.name + " / ";
  for (const auto& t : machine.tlb.levels) translations += t.name + " / ";
  os << fmt::format("\nsimulated accesses, % served by {}memory; % translated by {}walk:\n", levels, translations);
  for (const auto& r : rows)
    os << fmt::format("{:>6} | naive {} | {} || p.sort {} | {}\n", r.log2_m, shares(r.naive_statistics.served_by),
                      shares(r.naive_statistics.translated_by), shares(r.sorted_statistics.served_by),
                      shares(r.sorted_statistics.translated_by));
  os << "\nsimulated partial sort by phase, ns per element, and its stores past the followed write streams (charged,\n"
        "per simulated element of the distribution):\n";
  for (const auto& r : rows) {
    if (r.sorted_phases.empty()) continue;
    os << fmt::format("{:>6} |", r.log2_m);
    std::size_t distributed = 0;
    for (const auto& phase : r.sorted_phases) {
      os << fmt::format(" {} {:.2f};", phase.name, phase.ns / static_cast<double>(r.n));
      if (phase.name == "distribute") distributed = phase.simulated;
    }
    os << fmt::format(" stores past the streams {:.3f}\n",
                      distributed == 0 ? 0.0
                                       : static_cast<double>(r.sorted_statistics.untracked_store_misses) /
                                             static_cast<double>(distributed));
  }
}

std::string csv_list(const std::vector<double>& values) {
  std::string out;
  for (double v : values) out += fmt::format("{}{:.4f}", out.empty() ? "" : ";", v);
  return out;
}

void write_csv(const std::string& path, const std::vector<sweep_row>& rows) {
  std::ofstream csv(path);
  csv << "log2_m,naive_measured_ns,naive_simulated_ns,naive_no_mlp_ns,sort_bits,partial_sort_measured_ns,"
         "partial_sort_simulated_ns,naive_measured_min_ns,naive_measured_max_ns,partial_sort_measured_min_ns,"
         "partial_sort_measured_max_ns,core_ns,core_min_ns,core_max_ns,rounds,naive_by_round_ns,partial_sort_by_round_ns,"
         "core_by_round_ns,redone_visits,disturbed_visits\n";
  for (const auto& r : rows) {
    const sim::spread naive = r.naive(), sorted = r.sorted(), core = r.core();
    csv << fmt::format("{},{:.4f},{:.4f},{:.4f},{},{:.4f},{:.4f},{:.4f},{:.4f},{:.4f},{:.4f},{:.4f},{:.4f},{:.4f},{},{},{},{},{},{}\n",
                       r.log2_m, naive.median, r.naive_simulated, r.naive_no_mlp, r.sort_bits, sorted.median,
                       r.sorted_simulated, naive.min, naive.max, sorted.min, sorted.max, core.median, core.min, core.max,
                       r.naive_rounds.size(), csv_list(r.naive_rounds), csv_list(r.sorted_rounds), csv_list(r.core_rounds),
                       r.redone_visits, r.disturbed_visits);
  }
}

}  // namespace

CLI::App* add_simulate_command(CLI::App& app, simulate_arguments& args) {
  auto* cmd = app.add_subcommand("simulate", "Cache simulator (Eilers §2.4 + TLB + MLP) against the measured CPU multireduce");
  cmd->add_flag("--quick", args.quick, "n = 2^22, m = 2^4 … 2^26 in steps of 2^4, 2^19 iterations simulated per loop");
  cmd->add_option("--log2-n", args.log2_n, "Elements of each run (log2)")->check(CLI::Range(14, 28));
  cmd->add_option("--log2-m-first", args.log2_m_first, "Smallest bucket count (log2)")->check(CLI::Range(1, 30));
  cmd->add_option("--log2-m-last", args.log2_m_last, "Largest bucket count (log2)")->check(CLI::Range(1, 30));
  cmd->add_option("--log2-m-step", args.log2_m_step, "Step between bucket counts (log2)")->check(CLI::Range(1, 8));
  cmd->add_option("--log2-sample", args.log2_sample, "Iterations simulated per loop (log2; 0: all)")->check(CLI::Range(0, 30));
  cmd->add_option("--rounds", args.rounds,
                  "Interleaved rounds: each calibrates the machine once and times every m once, in a shuffled order; "
                  "each m reports the median over the rounds (with min and max), the model gets the median calibration")
      ->check(CLI::Range(1, 50));
  cmd->add_option("--repetitions", args.repetitions, "Timed runs per loop and visit, after a warm-up run (their median)")
      ->check(CLI::Range(1, 100));
  cmd->add_option("--csv", args.csv, "Write the table to this CSV file");
  return cmd;
}

int run_simulate(simulate_arguments args) {
  if (args.quick) {
    args.log2_n = 22;
    args.log2_m_step = 4;
    args.log2_sample = 19;
  }
  const auto started = steady::now();
  const auto seconds_since = [](steady::time_point t) { return elapsed_ns(t) * 1e-9; };
  std::cout << "sluice simulate: cache simulator (Eilers §2.4, with TLB and memory-level parallelism) against the\n"
               "measured single-threaded sluice::host::multireduce (u32 labels uniform in [0, m), u32 values, +)\n\n";
  const calibration once = calibrate_once();
  const double once_seconds = seconds_since(started);
  std::cout << fmt::format("(memory's pools and the bandwidth: measured once, {:.1f} s; the translation sweep, the TLB, the\n"
                           " walks, memory's 4 KiB-page updates (the walk slots) and the store sweep: in every round)\n\n",
                           once_seconds);

  std::vector<sweep_row> rows;
  for (int log2_m = args.log2_m_first; log2_m <= args.log2_m_last; log2_m += args.log2_m_step)
    rows.push_back({.log2_m = log2_m, .n = std::size_t{1} << args.log2_n});
  if (rows.empty()) throw invalid_argument("sluice simulate", "--log2-m-first", "is past --log2-m-last: no bucket count to run");
  stream_pair streams(std::size_t{1} << args.log2_n);
  generate_values(streams, {std::size_t{1} << args.log2_n, 1, 1});
  print_stream_placement(std::cout, args.log2_n);

  std::cout << fmt::format("{} interleaved rounds; each calibrates the caches, memory and the core once, then times every m\n"
                           "once (naive and partial sort, {} timed run{} each after a warm-up) in its own shuffled order; a\n"
                           "visit is timed again (up to {} tries) while the core loop on either side of it runs over {:.2f}x\n"
                           "the run's quickest (a neighbour on the core):\n",
                           args.rounds, args.repetitions, args.repetitions == 1 ? "" : "s", visit_tries,
                           sim::disturbance_watch::slow_factor);
  const auto rounds_started = steady::now();
  std::vector<round_calibration> rounds;
  std::vector<std::vector<std::size_t>> orders;
  sim::disturbance_watch watch;
  for (int round = 0; round < args.rounds; ++round) {
    const auto r = static_cast<std::size_t>(round);
    rounds.push_back(calibrate_round(once));
    watch.observe(rounds.back().costs.fold_ns);
    const auto visits_started = steady::now();
    orders.push_back(sim::round_order(rows.size(), r));
    for (const std::size_t i : orders.back()) visit(rows[i], streams, watch, args.repetitions, sim::naive_first(r));
    const auto& c = rounds.back();
    std::cout << fmt::format("  round {}: calibration {:.1f} s (", round + 1, c.seconds);
    for (const auto& level : c.machine.caches)
      std::cout << fmt::format("{} {:.0f} KiB, ", level.name, static_cast<double>(level.geometry.size_bytes) / 1024);
    std::cout << fmt::format("memory {:.0f} ns, core {:.2f} ns), visits {:.1f} s\n", c.machine.timing.memory_latency_ns,
                             c.costs.fold_ns, seconds_since(visits_started));
    std::cout.flush();
  }
  const double rounds_seconds = seconds_since(rounds_started);
  const calibration median = median_calibration(once, rounds);
  std::cout << "\n";
  print_calibration(std::cout, median, fmt::format("{} rounds", args.rounds));

  const auto simulation_started = steady::now();
  std::cout << fmt::format("\nn = 2^{} elements; measured: the median over {} rounds of {} timed run{} each (the median of\n"
                           "them), with the smallest and the largest round; simulated on the median description: {}\n\n",
                           args.log2_n, args.rounds, args.repetitions, args.repetitions == 1 ? "" : "s",
                           args.log2_sample == 0 || args.log2_sample >= args.log2_n
                               ? std::string("every iteration")
                               : fmt::format("the first 2^{} iterations of each loop, scaled to the loop", args.log2_sample));
  print_header(std::cout);
  for (auto& r : rows) {
    simulate_row(r, median, args);
    print_row(std::cout, r);
    std::cout.flush();
  }
  const double simulation_seconds = seconds_since(simulation_started);
  print_diagnosis(std::cout, rows, rounds, orders);

  struct worst {
    double error = -1, width = -1;
    int error_at = 0, width_at = 0, within_target = 0, within_spread = 0;
  } naive, sorted;
  const auto count = [](worst& w, const sweep_row& r, const sim::spread& s, double simulated) {
    const double e = std::abs(error_percent(simulated, s.median));
    if (e > w.error) w.error = e, w.error_at = r.log2_m;
    if (s.relative_width() > w.width) w.width = s.relative_width(), w.width_at = r.log2_m;
    w.within_target += e <= 25.0 ? 1 : 0;
    w.within_spread += s.contains(simulated) ? 1 : 0;
  };
  for (const auto& r : rows) {
    count(naive, r, r.naive(), r.naive_simulated);
    count(sorted, r, r.sorted(), r.sorted_simulated);
  }
  std::cout << fmt::format("\nworst |error| against the median of {} rounds: naive {:.1f}% (m = 2^{}), partial sort {:.1f}% "
                           "(m = 2^{});\n"
                           "within 25%: naive at {} of {} m, partial sort at {} of {}; the simulated time within the rounds' "
                           "[min, max]: naive at {}, partial sort at {}\n",
                           args.rounds, naive.error, naive.error_at, sorted.error, sorted.error_at, naive.within_target,
                           rows.size(), sorted.within_target, rows.size(), naive.within_spread, sorted.within_spread);
  std::cout << fmt::format("the rounds' spread, (max - min) / median: naive up to {:.0f}% (m = 2^{}), partial sort up to {:.0f}% "
                           "(m = 2^{})\n",
                           100 * naive.width, naive.width_at, 100 * sorted.width, sorted.width_at);
  int redone = 0, kept_disturbed = 0, visits = 0;
  std::string disturbed_at;
  for (const auto& r : rows) {
    redone += r.redone_visits;
    kept_disturbed += r.disturbed_visits;
    visits += static_cast<int>(r.core_rounds.size());
    if (r.disturbed_visits > 0) disturbed_at += fmt::format("{}2^{} ({})", disturbed_at.empty() ? "" : ", ", r.log2_m, r.disturbed_visits);
  }
  std::cout << fmt::format("disturbed visits (the core loop around them over {:.2f}x the run's quickest, {:.2f} ns): {} timed "
                           "again; {} of {} kept disturbed after {} tries{}\n",
                           sim::disturbance_watch::slow_factor, watch.quickest(), redone, kept_disturbed, visits, visit_tries,
                           disturbed_at.empty() ? "" : " (m = " + disturbed_at + ")");
  std::cout << fmt::format("time: {:.0f} s once, {:.0f} s rounds, {:.0f} s simulation, {:.0f} s in all\n",
                           once_seconds, rounds_seconds, simulation_seconds, seconds_since(started));
  if (!args.csv.empty()) write_csv(args.csv, rows);
  return 0;
}

}  // namespace sluice::cli
