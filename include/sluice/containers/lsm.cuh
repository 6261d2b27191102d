// sluice/containers/lsm.cuh: the GPU LSM (Ashkiani ch. 4), a batched dynamic ordered dictionary: levels
// of sorted arrays of b·2^i elements, full or empty, that batches of inserts and erases (tombstones)
// reach by sort-and-merge, queried by lookup, count, range, successor and predecessor.
//
//   sluice::lsm<std::uint32_t, std::uint32_t> map(ctx, {.batch_size = 1 << 16, .capacity = 1 << 24});
//   map.insert(ctx, keys, values);              // INSERT: k → v, replacing
//   map.erase(ctx, keys);                       // DELETE: tombstones
//   map.apply(ctx, ops, keys, values);          // a mixed batch, applied in its own order
//   map.lookup(ctx, queries, found);            // absent keys get 0xFF…FF (or the given value)
//   map.count(ctx, k1, k2, counts);             // keys in [k1[i], k2[i]]
//   auto r = map.range(ctx, k1, k2);            // r.offsets (Q + 1), r.keys, r.values: query i's pairs in
//                                               // [r.offsets[i], r.offsets[i+1]), ascending keys
//   map.successor(ctx, queries, keys, values, found);   // the smallest live key ≥ q (predecessor: ≤ q)
//   map.cleanup(ctx);                           // stale copies and tombstones dropped, levels rebuilt
//
// Keys: 32- or 64-bit integers, signed or not, every bit pattern usable (the status sits beside the value,
// not in a key bit as in §4.4.1). Values: any trivially copyable type of 4 or 8 bytes.
//
// Semantics (docs/lsm.md lists them against §4.3.1): an update batch is applied in its own order, so the
// last operation on a key in a batch wins (insert-then-erase: deleted; erase-then-insert: present; of
// several inserts, the last value); a later batch overrides an earlier one; erasing an absent key is
// harmless. Batches may have any size: the elements, in order, fill units of b that enter the levels as
// the seed's batches do (sort, then newer-before-older merges down the carry), and the rest waits in a
// partial buffer P of fewer than b elements, the newest of all, searched first. A batch's elements are
// sorted stably by key after reversing it (a key's last operation first), by the project's radix sort;
// merges are the project's merge by merge path (ties: the newer run's elements first). Copies that a
// newer one hides stay until cleanup (they are never visible).
//
// Costs (docs/lsm.md): an update of m elements sorts them (O(m)) and merges P (O(p + m)); each unit of b
// it completes costs the seed's T_sort + (2^ffz(r) − 1)·T_merge, O(b log r) amortised. lookup and
// successor/predecessor: one thread a query, a binary search a run, runs newest first. count: the
// seed's step 1 (batched search a run), then a warp a query judges its candidates where they lie (its
// key searched in the newer runs' candidates), no wait. range: the seed's five steps (batched search a
// run, scan, gather, segmented sort, validate), waiting for the stream twice (the candidates' total
// sizes a buffer, then the result's size). cleanup merges every run, marks and compacts in one pass
// (O(n): the runs read once, the live elements written once) and lays the result out as P and levels
// (§4.4.5 without placebos: the remainder of n mod b goes to P; the levels are slices of the result),
// waiting once. bulk_build replaces the content with one sort, laid out the same way.
//
// Errors (sluice::invalid_argument naming the parameter): spans not in device memory or of mismatched
// sizes ('values', 'ops', 'k2', 'counts', 'found', …); op codes that are not an lsm_op ('ops', with the
// first index; the check waits for the stream); an update or bulk build that would pass capacity()
// ('keys': nothing changed); bad options. Queries with k1 > k2 are empty (count 0, no pairs), not
// errors; batches and query batches of size 0 do nothing. A moved-from or default-constructed lsm throws
// ('*this') from every call but destruction and assignment.
//
// Calls run on ctx.stream(); updates without the automatic cleanup policy and lookup/contains/count/
// successor/predecessor are asynchronous; temporaries come from the context's pool, except an update's:
// the object keeps its update buffers (staging, the sort's workspace, unit, P's second buffer, the carry temporary,
// merge splits), grown on first need and reused, so that a batch makes no pool call (docs/lsm.md
// "working storage"). An lsm holds its context (its level storage comes from that context's pool; the
// context must outlive it).
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/device_buffer.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/core/memory.hpp>
#include <sluice/core/operators.hpp>
#include <sluice/core/scratch.hpp>
#include <sluice/detail/lsm/cleanup.cuh>
#include <sluice/detail/lsm/kernels.cuh>
#include <sluice/detail/lsm/plan.hpp>
#include <sluice/detail/lsm/tuning.hpp>
#include <sluice/detail/merge_sort/dispatch.cuh>
#include <sluice/detail/radix_sort/dispatch.cuh>
#include <sluice/merge_sort.cuh>
#include <sluice/options/lsm.hpp>
#include <sluice/radix_sort.cuh>
#include <sluice/scan.cuh>
#include <sluice/search.cuh>
#include <sluice/select.cuh>

#include <cuda/std/span>

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>

namespace sluice {

/// range()'s result: query i's live pairs are keys/values[offsets[i], offsets[i+1]), in ascending key order.
template <class Key, class Value>
struct lsm_range_result {
  device_buffer<std::uint64_t> offsets;  ///< Q + 1 entries
  device_buffer<Key> keys;
  device_buffer<Value> values;
};

template <class Key, class Value>
class lsm {
  static_assert(std::is_integral_v<Key> && !std::is_same_v<Key, bool> && (sizeof(Key) == 4 || sizeof(Key) == 8),
                "lsm keys are 32- or 64-bit integers");
  static_assert(std::is_trivially_copyable_v<Value> && (sizeof(Value) == 4 || sizeof(Value) == 8),
                "lsm values are trivially copyable types of 4 or 8 bytes");
  using index_t = detail::lsm::index_t;
  using entry = detail::lsm::entry<Value>;
  using runs_type = detail::lsm::run_list<Key, Value>;
  using merger = detail::merge_sort::merge_shape<Key, entry, std::less<>>;
  using split_index = detail::merge_sort::index_t;
  static constexpr int threads = detail::lsm::tuning::block_threads;

  /// A value of all-ones bits: lookup's default for absent keys.
  static Value all_ones() {
    using bits = std::conditional_t<sizeof(Value) == 4, std::uint32_t, std::uint64_t>;
    return std::bit_cast<Value>(~bits{0});
  }

 public:
  using key_type = Key;
  using mapped_type = Value;

  /// An empty, unusable LSM (as a moved-from one): assign a constructed one to it.
  lsm() = default;

  explicit lsm(context& ctx, const lsm_options& options = {}) : ctx_(&ctx), options_(checked(options)) {
    b_ = options_.batch_size;
    levels_ = detail::lsm::levels_for(options_.capacity, b_);
    auto device = ctx.activate();
    p_keys_ = device_buffer<Key>(ctx, b_);
    p_entries_ = device_buffer<entry>(ctx, b_);
    stage_wave_ = static_cast<std::size_t>(ctx.properties().sm_count) *
                  detail::resident_blocks_per_sm(detail::lsm::stage_kernel<Key, Value>, threads);
  }

  lsm(const lsm&) = delete;
  lsm& operator=(const lsm&) = delete;
  lsm(lsm&& other) noexcept { *this = std::move(other); }
  lsm& operator=(lsm&& other) noexcept {
    if (this != &other) {
      ctx_ = std::exchange(other.ctx_, nullptr);
      options_ = other.options_;
      b_ = other.b_;
      levels_ = other.levels_;
      r_ = std::exchange(other.r_, 0);
      p_ = std::exchange(other.p_, 0);
      live_ = std::exchange(other.live_, 0);
      stage_wave_ = other.stage_wave_;
      p_keys_ = std::move(other.p_keys_);
      p_entries_ = std::move(other.p_entries_);
      work_ = std::move(other.work_);
      laid_out_keys_ = std::move(other.laid_out_keys_);
      laid_out_entries_ = std::move(other.laid_out_entries_);
      level_slots_ = std::move(other.level_slots_);
    }
    return *this;
  }
  ~lsm() = default;

  // ---- updates -------------------------------------------------------------------------------------------

  /// INSERT every (key, value): k → v, replacing (the last of equal keys in the batch wins).
  void insert(context& ctx, cuda::std::span<const Key> keys, cuda::std::span<const Value> values) {
    const char* function = "lsm::insert";
    check_keys(ctx, function, keys);
    check_same_size(ctx, function, "values", values, keys.size());
    update(ctx, function, keys, values.data(), nullptr, detail::lsm::regular);
  }
  /// DELETE every key (a tombstone each; absent keys are harmless).
  void erase(context& ctx, cuda::std::span<const Key> keys) {
    const char* function = "lsm::erase";
    check_keys(ctx, function, keys);
    update(ctx, function, keys, nullptr, nullptr, detail::lsm::tombstone);
  }
  /// A mixed batch: element i does ops[i] on keys[i] (values[i] for inserts), in batch order.
  void apply(context& ctx, cuda::std::span<const lsm_op> ops, cuda::std::span<const Key> keys,
             cuda::std::span<const Value> values) {
    const char* function = "lsm::apply";
    check_keys(ctx, function, keys);
    check_same_size(ctx, function, "ops", ops, keys.size());
    check_same_size(ctx, function, "values", values, keys.size());
    update(ctx, function, keys, values.data(), ops.data(), detail::lsm::regular);
  }

  /// The content replaced by (keys, values) (the last of equal keys wins): one sort, then the sorted
  /// array laid out as P and the levels of r = n / b (§4.5.2 "bulk build"; the levels are slices of it,
  /// only P is copied). Over capacity(): 'keys', nothing changed.
  void bulk_build(context& ctx, cuda::std::span<const Key> keys, cuda::std::span<const Value> values) {
    const char* function = "lsm::bulk_build";
    check_keys(ctx, function, keys);
    check_same_size(ctx, function, "values", values, keys.size());
    const index_t n = keys.size();
    if (n > capacity())
      throw invalid_argument(function, "keys", "has " + std::to_string(n) + " elements, more than the capacity of " +
                                                   std::to_string(capacity()));
    auto device = ctx.activate();
    device_buffer<Key> sorted_keys(ctx, n);
    device_buffer<entry> sorted_entries(ctx, n);
    sort_slice(ctx, keys, values.data(), nullptr, detail::lsm::regular, {0, n}, sorted_keys.data(), sorted_entries.data());
    if (policy_on()) live_ = count_live(ctx, sorted_keys.data(), sorted_entries.data(), n);
    lay_out(ctx, std::move(sorted_keys), std::move(sorted_entries), n);
  }

  /// CLEANUP (§4.3.6, §4.4.5): every run merged newest first, the live elements (each key's newest copy,
  /// if not a tombstone) kept, the rest dropped, and the result laid out as P and levels; in one pass
  /// (detail/lsm/cleanup.cuh) that writes the live elements once, into one array of resident_size()
  /// elements whose slices become the levels (its unused tail stays until the next cleanup or bulk
  /// build). Query answers are unchanged; resident_size() becomes the live count. Waits for the stream once.
  void cleanup(context& ctx) {
    require_usable("lsm::cleanup");
    const index_t n = resident_size();
    if (n == 0) return;
    auto device = ctx.activate();
    const cleanup_input in = cleanup_runs(ctx);
    device_buffer<Key> keys(ctx, n);
    device_buffer<entry> entries(ctx, n);
    const index_t live = keep_live<true>(ctx, in.list, keys.data(), entries.data());
    lay_out(ctx, std::move(keys), std::move(entries), live);
    live_ = live;
  }

  /// Every element removed (no device work; level storage is kept for reuse).
  void clear(context& ctx) {
    require_usable("lsm::clear");
    (void)ctx;
    r_ = p_ = live_ = 0;
  }

  // ---- queries ------------------------------------------------------------------------------------------

  /// LOOKUP (§4.4.2): found[i] = the value of queries[i]'s newest copy, or `absent` where there is none
  /// or it is a tombstone.
  void lookup(context& ctx, cuda::std::span<const Key> queries, cuda::std::span<Value> found,
              Value absent = all_ones()) const {
    const char* function = "lsm::lookup";
    check_queries(ctx, function, "queries", queries);
    check_same_size(ctx, function, "found", found, queries.size());
    launch(ctx, detail::lsm::lookup_kernel<Key, Value>, queries.size(), runs(), queries.data(), index_t{queries.size()},
           found.data(), static_cast<std::uint8_t*>(nullptr), absent);
  }
  /// present[i] = 1 where queries[i] is live, else 0.
  void contains(context& ctx, cuda::std::span<const Key> queries, cuda::std::span<std::uint8_t> present) const {
    const char* function = "lsm::contains";
    check_queries(ctx, function, "queries", queries);
    check_same_size(ctx, function, "present", present, queries.size());
    launch(ctx, detail::lsm::lookup_kernel<Key, Value>, queries.size(), runs(), queries.data(), index_t{queries.size()},
           static_cast<Value*>(nullptr), present.data(), Value{});
  }

  /// COUNT (§4.4.3 step 1, then each candidate judged where it lies instead of steps 2–5): counts[i] =
  /// the live keys in [k1[i], k2[i]] (0 when k1[i] > k2[i]). No wait.
  void count(context& ctx, cuda::std::span<const Key> k1, cuda::std::span<const Key> k2,
             cuda::std::span<std::uint64_t> counts) const {
    const char* function = "lsm::count";
    check_queries(ctx, function, "k1", k1);
    check_same_size(ctx, function, "k2", k2, k1.size());
    check_same_size(ctx, function, "counts", counts, k1.size());
    if (k1.empty()) return;
    auto device = ctx.activate();
    const runs_type list = runs();
    const index_t q = k1.size();
    if (list.count == 0) {
      SLUICE_CUDA_CHECK(cudaMemsetAsync(counts.data(), 0, q * sizeof(std::uint64_t), ctx.stream()));
      return;
    }
    const bounds b = run_bounds(ctx, k1, k2);
    const auto kernel = detail::lsm::count_in_place_kernel<threads, Key, Value>;
    const std::size_t resident_warps = static_cast<std::size_t>(ctx.properties().sm_count) *
                                       detail::resident_blocks_per_sm(kernel, threads) * (threads / 32);
    const int per_warp = detail::lsm::count_queries_per_warp(q, resident_warps);
    const std::size_t warps = detail::ceil_div(q, static_cast<std::size_t>(per_warp));
    const auto grid =
        static_cast<unsigned>(detail::one_wave_grid(ctx, kernel, threads, detail::ceil_div(warps * 32, threads)));
    kernel<<<grid, threads, 0, ctx.stream()>>>(list, q, per_warp, b.lower.data(), b.upper.data(), counts.data());
    SLUICE_CHECK_LAUNCH();
  }

  /// RANGE (§4.4.4): per query the live pairs in [k1[i], k2[i]] in ascending key order, after per-query
  /// offsets. Waits for the stream twice (the candidates' and the result's sizes).
  lsm_range_result<Key, Value> range(context& ctx, cuda::std::span<const Key> k1, cuda::std::span<const Key> k2) const {
    const char* function = "lsm::range";
    check_queries(ctx, function, "k1", k1);
    check_same_size(ctx, function, "k2", k2, k1.size());
    auto device = ctx.activate();
    const index_t q = k1.size();
    lsm_range_result<Key, Value> result{device_buffer<std::uint64_t>(ctx, q + 1), {}, {}};
    if (q == 0) {
      result.offsets.fill_bytes(0);
      return result;
    }
    const candidates c = gather_candidates(ctx, k1, k2);
    device_buffer<std::uint8_t> flags(ctx, c.total);
    device_buffer<std::uint64_t> counts(ctx, q + 1);
    SLUICE_CUDA_CHECK(cudaMemsetAsync(counts.data() + q, 0, sizeof(std::uint64_t), ctx.stream()));
    validate(ctx, c, q, flags.data(), counts.data());
    sluice::exclusive_scan(ctx, counts.span(), result.offsets.span(), std::uint64_t{0}, plus{});
    const index_t total = read_back(ctx, result.offsets.data() + q);
    result.keys = device_buffer<Key>(ctx, total);
    result.values = device_buffer<Value>(ctx, total);
    if (total == 0) return result;
    device_buffer<entry> live_entries(ctx, total);
    detail::scratch<std::size_t> selected(ctx, 1);
    const cuda::std::span<const std::uint8_t> f(flags.data(), c.total);
    sluice::select_flagged(ctx, cuda::std::span<const Key>(c.keys.data(), c.total), f, result.keys.span(), selected.get());
    sluice::select_flagged(ctx, cuda::std::span<const entry>(c.entries.data(), c.total), f, live_entries.span(), selected.get());
    launch(ctx, detail::lsm::extract_values_kernel<Value>, total, static_cast<const entry*>(live_entries.data()), total,
           result.values.data());
    return result;
  }

  /// SUCCESSOR (not built in the seed, §4.3 fn. 3): the live pair with the smallest key ≥ queries[i];
  /// found[i] = 0 (keys[i] = queries[i], values[i] = Value{}) where there is none.
  void successor(context& ctx, cuda::std::span<const Key> queries, cuda::std::span<Key> keys,
                 cuda::std::span<Value> values, cuda::std::span<std::uint8_t> found) const {
    neighbour<true>(ctx, "lsm::successor", queries, keys, values, found);
  }
  /// PREDECESSOR: the live pair with the largest key ≤ queries[i] (as Karsin's Def 6.0.1), as successor.
  void predecessor(context& ctx, cuda::std::span<const Key> queries, cuda::std::span<Key> keys,
                   cuda::std::span<Value> values, cuda::std::span<std::uint8_t> found) const {
    neighbour<false>(ctx, "lsm::predecessor", queries, keys, values, found);
  }

  // ---- shape ----------------------------------------------------------------------------------------------

  /// The live keys: with the automatic cleanup policy on, its exact running count; otherwise counted by
  /// cleanup's pass without its stores (O(n) reads, one wait).
  [[nodiscard]] std::size_t size(context& ctx) const {
    require_usable("lsm::size");
    if (policy_on()) return live_;
    if (resident_size() == 0) return 0;
    auto device = ctx.activate();
    const cleanup_input in = cleanup_runs(ctx);
    return keep_live<false>(ctx, in.list, nullptr, nullptr);
  }
  /// Resident elements, stale copies and tombstones included: r·b + the partial buffer's.
  [[nodiscard]] std::size_t resident_size() const noexcept { return r_ * b_ + p_; }
  /// r, the whole units in the levels: level i is full exactly when bit i of r is set (§4.3.2).
  [[nodiscard]] std::uint64_t resident_batches() const noexcept { return r_; }
  /// Elements in the partial buffer P (fewer than b).
  [[nodiscard]] std::size_t partial_size() const noexcept { return p_; }
  /// The full levels.
  [[nodiscard]] int occupied_levels() const noexcept { return std::popcount(r_); }
  /// L, the levels the capacity allows.
  [[nodiscard]] int level_count() const noexcept { return levels_; }
  [[nodiscard]] std::size_t batch_size() const noexcept { return b_; }
  /// The most resident elements: b·(2^L − 1) in the levels and b − 1 in P.
  [[nodiscard]] std::size_t capacity() const noexcept { return detail::lsm::max_elements(b_, levels_); }
  [[nodiscard]] const lsm_options& options() const noexcept { return options_; }

 private:
  /// Level i's storage: a buffer of its own (allocated when a carry first fills the level) or a slice of
  /// the array that the last cleanup or bulk build laid out (lay_out). Either holds b·2^i elements, apart
  /// from every other level's, so a carry writes a slice as it writes a buffer.
  struct level_slot {
    device_buffer<Key> own_keys;
    device_buffer<entry> own_entries;
    Key* keys = nullptr;
    entry* entries = nullptr;

    void own(context& ctx, index_t size) {
      own_keys = device_buffer<Key>(ctx, size);
      own_entries = device_buffer<entry>(ctx, size);
      keys = own_keys.data();
      entries = own_entries.data();
    }
    void view(Key* slice_keys, entry* slice_entries) {
      own_keys = {};
      own_entries = {};
      keys = slice_keys;
      entries = slice_entries;
    }
    /// Forgets a slice (its array is about to go); a buffer of its own is kept for reuse.
    void drop_view() {
      if (keys != own_keys.data()) keys = nullptr, entries = nullptr;
    }
  };
  /// cleanup's runs: the structure's, or (more than cleanup_ways runs) the newest merged into one.
  struct cleanup_input {
    runs_type list{};
    device_buffer<Key> merged_keys;
    device_buffer<entry> merged_entries;
  };
  struct bounds {
    device_buffer<std::uint64_t> lower;  ///< run-major: j·Q + q
    device_buffer<std::uint64_t> upper;
  };
  struct candidates {
    device_buffer<Key> keys;
    device_buffer<entry> entries;
    device_buffer<std::size_t> segments;  ///< Q + 1
    index_t total = 0;
  };
  /// What updates keep between batches, so that once these have grown a batch allocates nothing and
  /// zeroes nothing but the sort's state (reserve_update; docs/lsm.md "working storage").
  struct update_buffers {
    device_buffer<Key> staged_keys;  ///< a slice reversed before its sort: b
    device_buffer<entry> staged_entries;
    device_buffer<Key> sort_keys;  ///< the sort's temporary: b
    device_buffer<entry> sort_entries;
    device_buffer<unsigned char> sort_state;  ///< onesweep's counters and status words (workspace.hpp)
    device_buffer<Key> unit_keys;             ///< a unit before its carry: b, once a unit completes
    device_buffer<entry> unit_entries;
    device_buffer<Key> sorted_keys;  ///< a slice sorted before it merges with P: b, once P is not empty
    device_buffer<entry> sorted_entries;
    device_buffer<Key> spare_p_keys;  ///< P's other buffer (double-buffered): b, once a tail merges into P
    device_buffer<entry> spare_p_entries;
    device_buffer<Key> carry_keys;  ///< the carry's temporary: for the deepest carry so far (plan.hpp)
    device_buffer<entry> carry_entries;
    device_buffer<split_index> splits;     ///< a merge's splits: for the largest merge so far
    device_buffer<unsigned> merge_state;  ///< two words, zeroed once; every merge leaves them zeroed
  };

  static lsm_options checked(const lsm_options& options) {
    if (const char* bad = detail::lsm::bad_option(options.batch_size, options.capacity, options.cleanup_stale_fraction))
      throw invalid_argument("lsm", bad,
                             "must give 1 ≤ batch_size ≤ 2^40, 1 ≤ capacity ≤ 2^50 with at most 40 levels, and "
                             "0 ≤ cleanup_stale_fraction < 1");
    return options;
  }
  [[nodiscard]] bool policy_on() const { return options_.cleanup_stale_fraction > 0; }

  void require_usable(const char* function) const {
    if (ctx_ == nullptr) throw invalid_argument(function, "*this", "is a moved-from or default-constructed lsm");
  }
  void check_keys(const context& ctx, const char* function, cuda::std::span<const Key> keys) const {
    require_usable(function);
    require_device_memory(ctx, keys, function, "keys");
  }
  void check_queries(const context& ctx, const char* function, const char* parameter,
                     cuda::std::span<const Key> queries) const {
    require_usable(function);
    require_device_memory(ctx, queries, function, parameter);
  }
  template <class T>
  static void check_same_size(const context& ctx, const char* function, const char* parameter, cuda::std::span<T> range,
                              std::size_t n) {
    require_device_memory(ctx, range, function, parameter);
    if (range.size() != n)
      throw invalid_argument(function, parameter,
                             "has " + std::to_string(range.size()) + " elements but the batch has " + std::to_string(n));
  }

  template <class Kernel, class... Args>
  static void launch(context& ctx, Kernel kernel, std::size_t work, const Args&... args) {
    if (work == 0) return;
    auto device = ctx.activate();
    const auto grid = static_cast<unsigned>(detail::one_wave_grid(ctx, kernel, threads, detail::ceil_div(work, threads)));
    kernel<<<grid, threads, 0, ctx.stream()>>>(args...);
    SLUICE_CHECK_LAUNCH();
  }

  template <class T>
  static T read_back(context& ctx, const T* device_value) {
    T host{};
    SLUICE_CUDA_CHECK(cudaMemcpyAsync(&host, device_value, sizeof(T), cudaMemcpyDeviceToHost, ctx.stream()));
    ctx.synchronize();
    return host;
  }

  [[nodiscard]] runs_type runs() const {
    runs_type list{};
    if (p_ != 0) add_run(list, p_keys_.data(), p_entries_.data(), p_);
    for (int i = 0; i < levels_; ++i)
      if (detail::lsm::level_full(r_, i))
        add_run(list, level_slots_[i].keys, level_slots_[i].entries, detail::lsm::level_size(b_, i));
    return list;
  }
  static void add_run(runs_type& list, const Key* keys, const entry* entries, index_t size) {
    list.keys[list.count] = keys;
    list.entries[list.count] = entries;
    list.sizes[list.count] = size;
    ++list.count;
  }

  /// Level i's storage, allocated when it first fills (a slice left by lay_out serves as well).
  void ensure_level(context& ctx, int level) {
    if (level_slots_[level].keys == nullptr) level_slots_[level].own(ctx, detail::lsm::level_size(b_, level));
  }

  /// buffer holds at least `size` elements: reallocated (its content dropped) where it holds fewer.
  template <class T>
  static void grow(context& ctx, device_buffer<T>& buffer, std::size_t size) {
    if (buffer.size() < size) buffer = device_buffer<T>(ctx, size);
  }

  /// The update buffers an update of `split` needs, grown before anything changes (so an out_of_memory
  /// leaves the structure as it was); after the first batches of each kind they have their sizes.
  void reserve_update(context& ctx, const detail::lsm::batch_split& split, int carry) {
    update_buffers& w = work_;
    grow(ctx, w.staged_keys, b_);
    grow(ctx, w.staged_entries, b_);
    grow(ctx, w.sort_keys, b_);
    grow(ctx, w.sort_entries, b_);
    grow(ctx, w.sort_state, detail::radix_sort::workspace_storage_bytes<Key, entry>(b_));
    if (split.units() != 0) {
      grow(ctx, w.unit_keys, b_);
      grow(ctx, w.unit_entries, b_);
      grow(ctx, w.carry_keys, detail::lsm::carry_temp_size(b_, carry));
      grow(ctx, w.carry_entries, detail::lsm::carry_temp_size(b_, carry));
    }
    if (p_ != 0) {
      grow(ctx, w.sorted_keys, b_);
      grow(ctx, w.sorted_entries, b_);
    }
    if (split.tail_joins_p() && p_ != 0) {
      grow(ctx, w.spare_p_keys, b_);
      grow(ctx, w.spare_p_entries, b_);
    }
    grow(ctx, w.splits, merger::merge_splits(static_cast<split_index>(detail::lsm::largest_merge(b_, carry))));
    if (w.merge_state.empty()) {
      w.merge_state = device_buffer<unsigned>(ctx, 2);
      w.merge_state.fill_bytes(0);
    }
  }

  /// A slice of a batch reversed into a staging buffer, then stably radix-sorted by key into out: a
  /// key's last operation in the slice comes first. Slices of at most b (an update's) sort in the update
  /// buffers, allocating nothing; longer ones (bulk build, the policy's whole batch) in the pool's.
  void sort_slice(context& ctx, cuda::std::span<const Key> keys, const Value* values, const lsm_op* ops,
                  std::uint32_t status, detail::lsm::slice s, Key* out_keys, entry* out_entries) {
    if (s.count == 0) return;
    update_buffers& w = work_;
    const bool reserved = s.count <= w.staged_keys.size();
    detail::scratch<Key> pool_keys(ctx, reserved ? 0 : s.count);
    detail::scratch<entry> pool_entries(ctx, reserved ? 0 : s.count);
    Key* staged_keys = reserved ? w.staged_keys.data() : pool_keys.get();
    entry* staged_entries = reserved ? w.staged_entries.data() : pool_entries.get();
    const auto grid = static_cast<unsigned>(std::min<std::size_t>(stage_wave_, detail::ceil_div(s.count, threads)));
    detail::lsm::stage_kernel<Key, Value><<<grid, threads, 0, ctx.stream()>>>(keys.data(), values, ops, status, s.first,
                                                                              s.count, staged_keys, staged_entries);
    SLUICE_CHECK_LAUNCH();
    if (reserved) {
      const detail::radix_sort::onesweep_workspace<Key, entry> workspace{w.sort_keys.data(), w.sort_entries.data(),
                                                                          w.sort_state.data(), w.sort_keys.size()};
      detail::radix_sort::sort_in_workspace(ctx, static_cast<const Key*>(staged_keys),
                                            static_cast<const entry*>(staged_entries), out_keys, out_entries, s.count,
                                            workspace);
    } else {
      detail::radix_sort::sort_arrays(ctx, static_cast<const Key*>(staged_keys),
                                      static_cast<const entry*>(staged_entries), out_keys, out_entries, s.count,
                                      radix_sort_options{});
    }
  }

  /// out = the stable merge of newer (ties first) and older: one partition and one merge kernel, in the
  /// update buffers' splits and state (reserve_update sized them for the call's merges).
  void merge_runs_into(context& ctx, const Key* newer_keys, const entry* newer_entries, index_t newer_n,
                       const Key* older_keys, const entry* older_entries, index_t older_n, Key* out_keys,
                       entry* out_entries) {
    const detail::merge_sort::run_pair<Key, entry> pair{newer_keys,    newer_entries, static_cast<split_index>(newer_n),
                                                        older_keys,    older_entries, static_cast<split_index>(older_n),
                                                        0};
    merger::merge(ctx, pair, out_keys, out_entries, work_.splits.data(), work_.merge_state.data(), std::less<>{});
  }

  /// An update batch (insert, erase, apply): checks, the policy's bookkeeping, then the units and the tail.
  void update(context& ctx, const char* function, cuda::std::span<const Key> keys, const Value* values,
              const lsm_op* ops, std::uint32_t status) {
    const index_t m = keys.size();
    if (m == 0) return;
    auto device = ctx.activate();
    if (ops != nullptr) check_ops(ctx, function, ops, m);
    const detail::lsm::batch_split split{b_, p_, m};
    if (!detail::lsm::units_fit(r_, split.units(), levels_))
      throw invalid_argument(function, "keys",
                             "has " + std::to_string(m) + " elements: with the " + std::to_string(resident_size()) +
                                 " resident it would pass the capacity of " + std::to_string(capacity()) +
                                 " (options.capacity; cleanup may make room)");
    // Every buffer the call needs, before anything changes (an out_of_memory leaves the structure as it was).
    if (split.units() != 0)
      for (int i = 0; i < detail::lsm::bit_width(r_ + split.units()); ++i) ensure_level(ctx, i);
    const int carry = split.units() == 0 ? 0 : detail::lsm::largest_carry(r_, split.units());
    reserve_update(ctx, split, carry);
    const long long delta = policy_on() ? live_delta(ctx, keys, values, ops, status) : 0;

    update_buffers& w = work_;
    for (index_t u = 0; u < split.units(); ++u) {
      const bool direct = detail::lsm::unit_goes_to_level0(r_);
      Key* dest_keys = direct ? level_slots_[0].keys : w.unit_keys.data();
      entry* dest_entries = direct ? level_slots_[0].entries : w.unit_entries.data();
      const detail::lsm::slice s = split.unit(u);
      if (u == 0 && p_ != 0) {  // P's elements are older than the batch's: the unit is the newer-first merge
        sort_slice(ctx, keys, values, ops, status, s, w.sorted_keys.data(), w.sorted_entries.data());
        merge_runs_into(ctx, w.sorted_keys.data(), w.sorted_entries.data(), s.count, p_keys_.data(), p_entries_.data(),
                        p_, dest_keys, dest_entries);
        p_ = 0;
      } else {
        sort_slice(ctx, keys, values, ops, status, s, dest_keys, dest_entries);
      }
      carry_unit(ctx, dest_keys, dest_entries, w.carry_keys.data(), w.carry_entries.data());
    }
    // The tail: merged with P into P's other buffer (then the two swap), or sorted into P where P is
    // empty or was consumed by unit 0 (earlier on the stream).
    const detail::lsm::slice tail = split.tail();
    if (split.tail_joins_p() && p_ != 0) {
      sort_slice(ctx, keys, values, ops, status, tail, w.sorted_keys.data(), w.sorted_entries.data());
      merge_runs_into(ctx, w.sorted_keys.data(), w.sorted_entries.data(), tail.count, p_keys_.data(), p_entries_.data(),
                      p_, w.spare_p_keys.data(), w.spare_p_entries.data());
      std::swap(p_keys_, w.spare_p_keys);
      std::swap(p_entries_, w.spare_p_entries);
    } else {
      sort_slice(ctx, keys, values, ops, status, tail, p_keys_.data(), p_entries_.data());
    }
    p_ = split.new_p();
    if (policy_on()) {
      live_ = static_cast<index_t>(static_cast<long long>(live_) + delta);
      if (detail::lsm::should_cleanup(options_.cleanup_stale_fraction, resident_size(), live_)) cleanup(ctx);
    }
  }

  /// §4.4.1: the sorted unit (in level 0 already, or in the unit buffer) merged newer-first with levels
  /// 0 … k−1 into level k = ffz(r), ping-ponging between level k and the temporary (plan.hpp).
  void carry_unit(context& ctx, const Key* unit_keys, const entry* unit_entries, Key* temp_keys, entry* temp_entries) {
    const int k = detail::lsm::first_empty_level(r_);
    const Key* cur_keys = unit_keys;
    const entry* cur_entries = unit_entries;
    for (int i = 0; i < k; ++i) {
      const bool to_level = detail::lsm::step_writes_level(k, i);
      Key* out_keys = to_level ? level_slots_[k].keys : temp_keys;
      entry* out_entries = to_level ? level_slots_[k].entries : temp_entries;
      const index_t size = detail::lsm::level_size(b_, i);
      merge_runs_into(ctx, cur_keys, cur_entries, size, level_slots_[i].keys, level_slots_[i].entries, size, out_keys,
                      out_entries);
      cur_keys = out_keys;
      cur_entries = out_entries;
    }
    ++r_;
  }

  void check_ops(context& ctx, const char* function, const lsm_op* ops, index_t m) const {
    detail::scratch<unsigned long long> first_bad(ctx, 1);
    SLUICE_CUDA_CHECK(cudaMemsetAsync(first_bad.get(), 0xFF, sizeof(unsigned long long), ctx.stream()));
    launch(ctx, detail::lsm::check_ops_kernel, m, ops, m, first_bad.get());
    const unsigned long long bad = read_back(ctx, static_cast<const unsigned long long*>(first_bad.get()));
    if (bad != ~0ull) throw invalid_argument(function, "ops", "holds a code that is not an lsm_op", static_cast<std::size_t>(bad));
  }

  /// The automatic policy's exact bookkeeping: the whole batch sorted (a key's last operation first) and
  /// each key's newest copy looked up in the structure before the batch lands. One wait.
  long long live_delta(context& ctx, cuda::std::span<const Key> keys, const Value* values, const lsm_op* ops,
                       std::uint32_t status) {
    const index_t m = keys.size();
    device_buffer<Key> sorted_keys(ctx, m);
    device_buffer<entry> sorted_entries(ctx, m);
    sort_slice(ctx, keys, values, ops, status, {0, m}, sorted_keys.data(), sorted_entries.data());
    detail::scratch<unsigned long long> delta(ctx, 1);
    SLUICE_CUDA_CHECK(cudaMemsetAsync(delta.get(), 0, sizeof(unsigned long long), ctx.stream()));
    launch(ctx, detail::lsm::live_delta_kernel<Key, Value>, m, runs(), static_cast<const Key*>(sorted_keys.data()),
           static_cast<const entry*>(sorted_entries.data()), m, delta.get());
    return static_cast<long long>(read_back(ctx, static_cast<const unsigned long long*>(delta.get())));
  }

  /// The live elements of a sorted array (each key's first copy, not a tombstone). One wait.
  static index_t count_live(context& ctx, const Key* keys, const entry* entries, index_t n) {
    if (n == 0) return 0;
    detail::scratch<unsigned long long> live(ctx, 1);
    SLUICE_CUDA_CHECK(cudaMemsetAsync(live.get(), 0, sizeof(unsigned long long), ctx.stream()));
    launch(ctx, detail::lsm::mark_live_kernel<Key, Value>, n, keys, entries, n, live.get());
    return read_back(ctx, static_cast<const unsigned long long*>(live.get()));
  }

  /// cleanup's runs (cleanup.cuh merges at most cleanup_ways in its pass): the structure's, with the
  /// newest merged into one first where there are more (r with 32 set bits or more), newest first so
  /// that a key's copies stay newest first. Those are the smallest runs.
  cleanup_input cleanup_runs(context& ctx) const {
    cleanup_input in{runs(), {}, {}};
    const int fold = in.list.count - detail::lsm::cleanup_ways + 1;  // the newest `fold` runs become one
    if (fold <= 1) return in;
    index_t total = 0;
    for (int j = 0; j < fold; ++j) total += in.list.sizes[j];
    std::array<device_buffer<Key>, 2> keys{device_buffer<Key>(ctx, total), device_buffer<Key>(ctx, total)};
    std::array<device_buffer<entry>, 2> entries{device_buffer<entry>(ctx, total), device_buffer<entry>(ctx, total)};
    const Key* merged_keys = in.list.keys[0];
    const entry* merged_entries = in.list.entries[0];
    index_t merged_n = in.list.sizes[0];
    for (int j = 1; j < fold; ++j) {
      const int side = j % 2;
      const index_t n = merged_n + in.list.sizes[j];
      sluice::merge_pairs(ctx, cuda::std::span<const Key>(merged_keys, merged_n),
                          cuda::std::span<const entry>(merged_entries, merged_n),
                          cuda::std::span<const Key>(in.list.keys[j], in.list.sizes[j]),
                          cuda::std::span<const entry>(in.list.entries[j], in.list.sizes[j]),
                          cuda::std::span<Key>(keys[side].data(), n), cuda::std::span<entry>(entries[side].data(), n));
      merged_keys = keys[side].data();
      merged_entries = entries[side].data();
      merged_n = n;
    }
    in.merged_keys = std::move(keys[(fold - 1) % 2]);
    in.merged_entries = std::move(entries[(fold - 1) % 2]);
    runs_type list{};
    add_run(list, in.merged_keys.data(), in.merged_entries.data(), merged_n);
    for (int j = fold; j < in.list.count; ++j) add_run(list, in.list.keys[j], in.list.entries[j], in.list.sizes[j]);
    in.list = list;
    return in;
  }

  /// cleanup's pass (cleanup.cuh) over `list` (at most cleanup_ways runs): the live elements
  /// in merge order into out (Write), and their count. The partition: the runs sampled, the sample
  /// radix-sorted (stable: runs in order, so it is in merge order), a binary search a run a tile. One wait.
  template <bool Write>
  static index_t keep_live(context& ctx, const runs_type& list, Key* out_keys, entry* out_entries) {
    constexpr int tile_threads = detail::lsm::tuning::cleanup_threads;
    constexpr int items = detail::lsm::tuning::cleanup_items<Key, Value>;
    constexpr index_t tile = index_t{tile_threads} * items;
    const detail::lsm::sample_layout layout = sample_layout_of(list, tile);
    const index_t samples = layout.starts[list.count];
    const index_t tile_samples = detail::lsm::cleanup_tile_samples(tile, list.count);
    const index_t tiles = detail::ceil_div(samples, tile_samples);
    device_buffer<Key> sample_keys(ctx, samples), sorted_keys(ctx, samples);
    device_buffer<index_t> positions(ctx, samples), sorted_positions(ctx, samples);
    launch(ctx, detail::lsm::cleanup_sample_kernel<Key, Value>, samples, list, layout, sample_keys.data(),
           positions.data());
    sluice::radix_sort_pairs(ctx, cuda::std::span<const Key>(sample_keys.span()),
                             cuda::std::span<const index_t>(positions.span()), sorted_keys.span(),
                             sorted_positions.span());
    const index_t boundaries = (tiles + 1) * static_cast<index_t>(list.count);
    detail::scratch<index_t> splits(ctx, boundaries);
    launch(ctx, detail::lsm::cleanup_split_kernel<Key, Value>, boundaries, list, layout,
           static_cast<const Key*>(sorted_keys.data()), static_cast<const index_t*>(sorted_positions.data()),
           tile_samples, tiles, splits.get());
    const std::size_t status_bytes = Write ? tiles * detail::lsm::cleanup_status::bytes_per_tile : 0;
    detail::scratch<unsigned char> status(ctx, status_bytes);
    detail::scratch<unsigned long long> live(ctx, 1);
    SLUICE_CUDA_CHECK(cudaMemsetAsync(live.get(), 0, sizeof(unsigned long long), ctx.stream()));
    if (Write) SLUICE_CUDA_CHECK(cudaMemsetAsync(status.get(), 0, status_bytes, ctx.stream()));
    detail::lsm::cleanup_tile_kernel<Write, tile_threads, items, Key, Value>
        <<<static_cast<unsigned>(tiles), tile_threads, 0, ctx.stream()>>>(
            list, static_cast<const index_t*>(splits.get()), detail::scan::make_tile_status<index_t>(status.get(), tiles),
            out_keys, out_entries, live.get());
    SLUICE_CHECK_LAUNCH();
    return read_back(ctx, static_cast<const unsigned long long*>(live.get()));
  }
  /// Where each run's samples start in cleanup's sample (every S-th element, runs in order).
  static detail::lsm::sample_layout sample_layout_of(const runs_type& list, index_t tile) {
    detail::lsm::sample_layout layout{};
    layout.stride = detail::lsm::cleanup_sample_stride(tile);
    layout.runs = list.count;
    for (int j = 0; j < list.count; ++j)
      layout.starts[j + 1] = layout.starts[j] + detail::lsm::cleanup_samples_of(list.sizes[j], layout.stride);
    return layout;
  }

  /// A sorted array of n elements (bulk build's, cleanup's) made the content, laid out as plan.hpp's
  /// redistribution says: P gets a copy of its first n mod b, each full level of r = n / b becomes a
  /// slice of the array, which the object keeps (none is kept when no level is full). Levels that were
  /// slices of the array laid out before let it go.
  void lay_out(context& ctx, device_buffer<Key>&& keys, device_buffer<entry>&& entries, index_t n) {
    const index_t r = n / b_;
    copy_slice(ctx, keys.data(), entries.data(), detail::lsm::redistributed_p(n, b_), p_keys_.data(), p_entries_.data());
    for (int i = 0; i < levels_; ++i) {
      if (!detail::lsm::level_full(r, i)) {
        level_slots_[i].drop_view();
        continue;
      }
      const index_t first = detail::lsm::redistributed_level(n, b_, i).first;
      level_slots_[i].view(keys.data() + first, entries.data() + first);
    }
    laid_out_keys_ = r == 0 ? device_buffer<Key>() : std::move(keys);
    laid_out_entries_ = r == 0 ? device_buffer<entry>() : std::move(entries);
    r_ = r;
    p_ = n % b_;
  }
  static void copy_slice(context& ctx, const Key* keys, const entry* entries, detail::lsm::slice s, Key* out_keys,
                         entry* out_entries) {
    if (s.count == 0) return;
    SLUICE_CUDA_CHECK(cudaMemcpyAsync(out_keys, keys + s.first, s.count * sizeof(Key), cudaMemcpyDeviceToDevice, ctx.stream()));
    SLUICE_CUDA_CHECK(cudaMemcpyAsync(out_entries, entries + s.first, s.count * sizeof(entry), cudaMemcpyDeviceToDevice,
                                      ctx.stream()));
  }

  /// §4.4.3 step 1: lower_bound(k1) and upper_bound(k2) per (query, run), run-major (j·Q + q), by the
  /// batched search. At least one run.
  bounds run_bounds(context& ctx, cuda::std::span<const Key> k1, cuda::std::span<const Key> k2) const {
    const runs_type list = runs();
    const index_t q = k1.size(), m = static_cast<index_t>(list.count);
    bounds b{device_buffer<std::uint64_t>(ctx, q * m), device_buffer<std::uint64_t>(ctx, q * m)};
    for (index_t j = 0; j < m; ++j) {
      const cuda::std::span<const Key> run(list.keys[j], list.sizes[j]);
      sluice::lower_bound(ctx, run, k1, b.lower.span().subspan(j * q, q));
      sluice::upper_bound(ctx, run, k2, b.upper.span().subspan(j * q, q));
    }
    return b;
  }

  /// §4.4.3 steps 1–4: bounds per (query, run) by the batched search, their scan, the gather, and the
  /// segmented sort per query (stable: a key's copies stay newest first). One wait (the total).
  candidates gather_candidates(context& ctx, cuda::std::span<const Key> k1, cuda::std::span<const Key> k2) const {
    const runs_type list = runs();
    const index_t q = k1.size(), m = static_cast<index_t>(list.count);
    candidates c{{}, {}, device_buffer<std::size_t>(ctx, q + 1), 0};
    if (m == 0) {
      c.segments.fill_bytes(0);
      return c;
    }
    const bounds b = run_bounds(ctx, k1, k2);  // step 1
    const device_buffer<std::uint64_t>& lower = b.lower;
    device_buffer<std::uint64_t> sizes(ctx, q * m + 1), starts(ctx, q * m + 1);
    launch(ctx, detail::lsm::candidate_sizes_kernel<Key>, q * m + 1, k1.data(), k2.data(), q, m,
           static_cast<const std::uint64_t*>(lower.data()), static_cast<const std::uint64_t*>(b.upper.data()),
           sizes.data());
    sluice::exclusive_scan(ctx, sizes.span(), starts.span(), std::uint64_t{0}, plus{});  // step 2
    c.total = read_back(ctx, starts.data() + q * m);
    launch(ctx, detail::lsm::segment_offsets_kernel<std::size_t>, q + 1, static_cast<const std::uint64_t*>(starts.data()),
           q, m, c.segments.data());
    c.keys = device_buffer<Key>(ctx, c.total);
    c.entries = device_buffer<entry>(ctx, c.total);
    if (c.total == 0) return c;
    launch(ctx, detail::lsm::gather_kernel<Key, Value>, c.total, list, static_cast<const std::uint64_t*>(starts.data()),
           static_cast<const std::uint64_t*>(lower.data()), q, c.total, c.keys.data(), c.entries.data());  // step 3
    sluice::segmented_sort_pairs(ctx, c.keys.span(), c.entries.span(), cuda::std::span<const std::size_t>(c.segments.span()),
                         c.keys.span(), c.entries.span());  // step 4
    return c;
  }

  /// Step 5: live flags and per-query counts, a warp a query.
  static void validate(context& ctx, const candidates& c, index_t q, std::uint8_t* flags, std::uint64_t* counts) {
    const auto kernel = detail::lsm::validate_kernel<Key, Value, std::size_t>;
    auto device = ctx.activate();
    const auto grid = static_cast<unsigned>(detail::one_wave_grid(ctx, kernel, threads, detail::ceil_div(q * 32, threads)));
    kernel<<<grid, threads, 0, ctx.stream()>>>(c.keys.data(), c.entries.data(), c.segments.data(), q, flags, counts);
    SLUICE_CHECK_LAUNCH();
  }

  template <bool Up>
  void neighbour(context& ctx, const char* function, cuda::std::span<const Key> queries, cuda::std::span<Key> keys,
                 cuda::std::span<Value> values, cuda::std::span<std::uint8_t> found) const {
    check_queries(ctx, function, "queries", queries);
    check_same_size(ctx, function, "keys", keys, queries.size());
    check_same_size(ctx, function, "values", values, queries.size());
    check_same_size(ctx, function, "found", found, queries.size());
    launch(ctx, detail::lsm::neighbour_kernel<Up, Key, Value>, queries.size(), runs(), queries.data(),
           index_t{queries.size()}, keys.data(), values.data(), found.data());
  }

  context* ctx_ = nullptr;
  lsm_options options_{};
  index_t b_ = 1;
  int levels_ = 0;
  std::size_t stage_wave_ = 1;  ///< blocks of stage_kernel in one wave (counted once: no query a batch)
  index_t r_ = 0;     ///< whole units in the levels
  index_t p_ = 0;     ///< elements in P
  index_t live_ = 0;  ///< live keys (kept only with the automatic cleanup policy)
  device_buffer<Key> p_keys_;
  device_buffer<entry> p_entries_;
  device_buffer<Key> laid_out_keys_;  ///< the array whose slices full levels may be (lay_out)
  device_buffer<entry> laid_out_entries_;
  std::array<level_slot, detail::lsm::max_levels> level_slots_;
  update_buffers work_;
};

}  // namespace sluice
