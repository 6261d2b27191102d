// sluice/containers/slab_hash.cuh: the slab hash (Ashkiani ch. 5), a fully concurrent GPU hash table of
// buckets of slab lists, 128-byte slabs worked on by whole warps; and its device view for users' kernels.
//
//   sluice::slab_hash<std::uint32_t, std::uint32_t> table(ctx, {.capacity = n});   // a map u32 → u32
//   table.insert_or_assign(ctx, keys, values);         // REPLACE: unique keys
//   table.find(ctx, queries, found);                   // absent keys get 0xFFFFFFFF (or the given value)
//   table.erase(ctx, keys);                            // DELETE: the least recent instance
//   table.apply(ctx, ops, keys, values, found, results);  // a mixed batch, one slab_op an element
//   auto view = table.ref(sluice::slab_ops::insert, sluice::slab_ops::find);  // for a user's kernel
//   sluice::slab_set<std::uint64_t> set(ctx, {.capacity = n});                 // a set of u64 keys
//
// Kinds (detail/slab_hash/layout.hpp, docs/containers.md draws them): maps of 4-byte keys to 4-byte values
// (15 pairs a slab), sets of 4-byte keys (30 a slab), sets of 8-byte keys (15), maps of 8-byte keys to
// 8-byte values (7; needs sm_90's 16-byte CAS). Keys are integers; the bit patterns 0xFF…FF (empty) and
// 0xFF…FE (erased) are reserved: the bulk calls that change the table reject them (invalid_argument
// "keys" with the first index), queries report them absent, device inserts of them fail (result false).
// Values are any trivially copyable type of the key's width.
//
// Operations (§5.3.2): insert (duplicates allowed), insert_or_assign / insert_unique (unique keys), erase
// (the least recent instance), erase_all, find (the least recent instance), count, contains, find_all
// (device view), a mixed batch of all of them in one kernel, size, retrieve_all, clear, flush (each list
// compacted, its emptied slabs returned to the pool). Concurrent operations on one key are explained in
// docs/containers.md ("semantics").
//
// Calls run on ctx.stream(). Queries (find, contains, count) are asynchronous. Calls that change the table
// (insert…, erase…, apply, flush, reserve) first read back a small status with one wait for the stream:
// the element count and the pool's units in use (for growth and the pool's size), the device flags (an
// exhausted pool from a user's kernel becomes sluice::out_of_memory here, the table unchanged since), and
// the batch's first reserved key; the batch runs only after every check passed, so a rejected call
// changes nothing.
//
// Growth (not in the seed): a call that may insert k elements into a table of n first grows it if
// (n + k) / (M · B) would pass options.max_slabs_per_bucket: B becomes max(2B, (n + k) / (M · target)),
// every element moves to its new bucket (O(n + B), old and new lists held together while it runs), and
// the instances of a key keep their order. The pool grows (whole super blocks) so that the call cannot
// run out. A device view is valid until the next call that changes the table; a user's kernel that
// inserts through a view cannot grow it (chains get longer; the next bulk call grows).
//
// A slab_hash holds its context (its memory comes from that context's pool; the context must outlive it).
// A moved-from table throws sluice::invalid_argument (parameter "*this") from every call but destruction
// and assignment.
#pragma once

#include <sluice/containers/slab_alloc.cuh>
#include <sluice/core/context.hpp>
#include <sluice/core/device_buffer.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/core/memory.hpp>
#include <sluice/core/operators.hpp>
#include <sluice/core/values.hpp>
#include <sluice/detail/slab_hash/device.cuh>
#include <sluice/detail/slab_hash/hash.hpp>
#include <sluice/detail/slab_hash/kernels.cuh>
#include <sluice/detail/slab_hash/layout.hpp>
#include <sluice/detail/slab_hash/policy.hpp>
#include <sluice/detail/slab_hash/ref.cuh>
#include <sluice/detail/slab_hash/tuning.hpp>
#include <sluice/options/slab_hash.hpp>

#include <cuda/std/span>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

namespace sluice {

/// The default hasher: the seed's universal family ((a·k + b) mod p), p = 2^61 − 1
/// (universal_hash::from_seed(s) draws another member).
using slab_hash_universal_hash = detail::slab_hash::universal_hash;

/// What a table holds and how well it uses its memory (slab_hash::stats).
struct slab_hash_stats {
  std::size_t size = 0;                ///< live elements
  std::uint32_t buckets = 0;           ///< B (base slabs)
  std::uint64_t pool_slabs = 0;        ///< slabs taken from the pool (the lists past their base slabs)
  std::uint64_t pool_capacity = 0;     ///< slabs the pool holds
  double slabs_per_bucket = 0;         ///< β = size / (M · B)
  double memory_utilization = 0;       ///< stored bytes / bytes of every slab, base slabs included (§5.3.3)
};

template <class Key, class Value = detail::no_values, class Hash = slab_hash_universal_hash>
class slab_hash {
  using L = detail::slab_hash::layout<Key, Value>;
  using view_type = detail::slab_hash::table_view<Key, Value, Hash>;
  using slab = detail::slab_hash::slab;
  static_assert(std::is_trivially_copyable_v<Hash>, "a slab hash's hasher is copied into kernels");

  /// A value of all-ones bits: find's default for absent keys.
  template <class T>
  static T all_ones() {
    if constexpr (detail::has_values<T>) return L::template value_of_bits<T>(~typename L::value_bits{0});
    else return T{};
  }

 public:
  using key_type = Key;
  using mapped_type = Value;
  using hasher = Hash;
  static constexpr bool is_map = L::is_map;
  /// The reserved keys: the empty and erased markers.
  static constexpr Key empty_key_sentinel = L::key_of_bits(L::empty_key);
  static constexpr Key erased_key_sentinel = L::key_of_bits(L::tombstone_key);
  /// Data slots a slab (M): 15 pairs, 30 or 15 keys, 7 wide pairs.
  static constexpr std::uint32_t slots_per_slab = L::data_slots;
  template <class... Ops>
  using ref_type = detail::slab_hash::table_ref<Key, Value, Hash, Ops...>;

  /// An empty, unusable table (as a moved-from one): assign a constructed table to it.
  slab_hash() = default;

  /// A table of options.buckets buckets (or enough for options.capacity elements at β =
  /// options.target_slabs_per_bucket), its pool sized for `capacity` too.
  explicit slab_hash(context& ctx, const slab_hash_options& options = {}, Hash hash = {})
      : ctx_(&ctx), options_(checked(options)), hash_(hash), pool_(ctx, pool_options(options_)), state_(ctx, 1) {
    auto device = ctx.activate();
    bucket_count_ = options_.buckets != 0
                        ? options_.buckets
                        : detail::slab_hash::buckets_for(options_.capacity, L::data_slots, options_.target_slabs_per_bucket);
    state_.fill_bytes(0);
    buckets_ = fresh_buckets(ctx, bucket_count_);
  }

  slab_hash(const slab_hash&) = delete;
  slab_hash& operator=(const slab_hash&) = delete;
  slab_hash(slab_hash&& other) noexcept { *this = std::move(other); }
  slab_hash& operator=(slab_hash&& other) noexcept {
    if (this != &other) {
      ctx_ = std::exchange(other.ctx_, nullptr);
      options_ = other.options_;
      hash_ = other.hash_;
      pool_ = std::move(other.pool_);
      state_ = std::move(other.state_);
      buckets_ = std::move(other.buckets_);
      bucket_count_ = std::exchange(other.bucket_count_, 0);
    }
    return *this;
  }
  ~slab_hash() = default;

  // ---- changing the table ----------------------------------------------------------------------------------

  /// INSERT every (key, value) pair; duplicates are kept (a multimap).
  void insert(context& ctx, cuda::std::span<const Key> keys, cuda::std::span<const Value> values)
    requires is_map
  {
    run_inserts<int(slab_op::insert)>(ctx, "slab_hash::insert", keys, values);
  }
  /// REPLACE: each key's value set (the key inserted when absent). Equal keys within one batch: one of
  /// their values remains (which one is not specified), and the key once.
  void insert_or_assign(context& ctx, cuda::std::span<const Key> keys, cuda::std::span<const Value> values)
    requires is_map
  {
    run_inserts<int(slab_op::insert_or_assign)>(ctx, "slab_hash::insert_or_assign", keys, values);
  }
  /// Insert-or-reduce: each key's value becomes op(its value, values[i]), the key inserted with values[i]
  /// where absent. `op` must be associative and commutative (sluice::is_commutative_v): the batch's
  /// values of one key are combined in no particular order (float sums round differently run to run).
  /// A CAS loop on the pair: contention grows with the values a key gets in one batch.
  template <class Op>
  void insert_or_reduce(context& ctx, cuda::std::span<const Key> keys, cuda::std::span<const Value> values, Op op)
    requires is_map
  {
    static_assert(is_commutative_v<Op>, "insert_or_reduce combines values in any order: the operator must be commutative");
    run_inserts<int(slab_op::insert_or_assign)>(ctx, "slab_hash::insert_or_reduce", keys, values,
                                                detail::slab_hash::reduce_bits<L, Value, Op>{op});
  }
  /// INSERT every key; duplicates are kept (a multiset).
  void insert(context& ctx, cuda::std::span<const Key> keys)
    requires(!is_map)
  {
    run_inserts<int(slab_op::insert)>(ctx, "slab_set::insert", keys, {});
  }
  /// Each key inserted unless present (equal keys within one batch: once).
  void insert_unique(context& ctx, cuda::std::span<const Key> keys)
    requires(!is_map)
  {
    run_inserts<int(slab_op::insert_or_assign)>(ctx, "slab_set::insert_unique", keys, {});
  }
  /// DELETE: for each key, its least recent instance (none: nothing). A key twice in the batch erases two.
  void erase(context& ctx, cuda::std::span<const Key> keys) {
    run_changes<int(slab_op::erase)>(ctx, "slab_hash::erase", keys);
  }
  /// DELETEALL: every instance of each key.
  void erase_all(context& ctx, cuda::std::span<const Key> keys) {
    run_changes<int(slab_op::erase_all)>(ctx, "slab_hash::erase_all", keys);
  }

  /// A mixed batch: element i does ops[i] on keys[i] (and values[i]), all in one kernel, in no
  /// particular order between elements. results[i] as slab_op says; found[i] = find's value, or `absent`
  /// where ops[i] is not a find that found one. Codes that are not a slab_op: invalid_argument "ops".
  void apply(context& ctx, cuda::std::span<const slab_op> ops, cuda::std::span<const Key> keys,
             cuda::std::span<const Value> values, cuda::std::span<Value> found, cuda::std::span<std::uint32_t> results,
             Value absent = all_ones<Value>())
    requires is_map
  {
    const char* function = "slab_hash::apply";
    require_usable(function);
    check_keys(ctx, function, keys);
    check_same_size(ctx, function, "ops", ops, keys.size());
    check_same_size(ctx, function, "values", values, keys.size());
    check_same_size(ctx, function, "found", found, keys.size());
    check_same_size(ctx, function, "results", results, keys.size());
    detail::slab_hash::batch<Key, Value> in{ops.data(), keys.data(), values.data(), found.data(), results.data(),
                                            nullptr, keys.size(), L::bits_of_value(absent)};
    mutate<detail::slab_hash::mixed_ops>(ctx, function, in, true);
  }
  /// A mixed batch of a set (find acts as contains).
  void apply(context& ctx, cuda::std::span<const slab_op> ops, cuda::std::span<const Key> keys,
             cuda::std::span<std::uint32_t> results)
    requires(!is_map)
  {
    const char* function = "slab_set::apply";
    require_usable(function);
    check_keys(ctx, function, keys);
    check_same_size(ctx, function, "ops", ops, keys.size());
    check_same_size(ctx, function, "results", results, keys.size());
    detail::slab_hash::batch<Key, Value> in{ops.data(), keys.data(), nullptr, nullptr, results.data(), nullptr,
                                            keys.size(), 0};
    mutate<detail::slab_hash::mixed_ops>(ctx, function, in, true);
  }

  /// FLUSH (§5.4.3.4): every list compacted in place (live elements to the front, in order; erased ones
  /// dropped) and its emptied slabs returned to the pool. Reads and writes every slab once.
  void flush(context& ctx) {
    const char* function = "slab_hash::flush";
    require_usable(function);
    (void)read_status(ctx, function, {}, nullptr);
    launch_per_bucket(ctx, detail::slab_hash::flush_kernel<view_type>, bucket_count_, view());
  }

  /// Every element removed; the pool's slabs all free (O(B + pool) bytes written).
  void clear(context& ctx) {
    require_usable("slab_hash::clear");
    auto device = ctx.activate();
    SLUICE_CUDA_CHECK(cudaMemsetAsync(buckets_.data(), 0xFF, buckets_.size_bytes(), ctx.stream()));
    pool_.reset(ctx);
    SLUICE_CUDA_CHECK(cudaMemsetAsync(&state_.data()->size, 0, sizeof(unsigned long long), ctx.stream()));
  }

  /// Makes room for `elements` elements in all: buckets for them at β ≤ max_slabs_per_bucket (growing
  /// now, even with options.grow false), pool slabs for the ones not there yet. Before a user's kernel inserts.
  void reserve(context& ctx, std::size_t elements) {
    const char* function = "slab_hash::reserve";
    require_usable(function);
    const status s = read_status(ctx, function, {}, nullptr);
    const std::size_t more = elements > s.size ? elements - s.size : 0;
    make_room(ctx, function, s, std::max<std::size_t>(elements, s.size), more, true);
  }

  // ---- queries ---------------------------------------------------------------------------------------------

  /// SEARCH: found[i] = the value of keys[i]'s least recent instance, or `absent`.
  void find(context& ctx, cuda::std::span<const Key> keys, cuda::std::span<Value> found,
            Value absent = all_ones<Value>()) const
    requires is_map
  {
    const char* function = "slab_hash::find";
    require_usable(function);
    check_keys(ctx, function, keys);
    check_same_size(ctx, function, "found", found, keys.size());
    detail::slab_hash::batch<Key, Value> in{};
    in.keys = keys.data();
    in.out_values = found.data();
    in.n = keys.size();
    in.absent = L::bits_of_value(absent);
    query<int(slab_op::find)>(ctx, in);
  }
  /// present[i] = 1 where keys[i] is in the table, else 0 (bytes, as the library's flags are).
  void contains(context& ctx, cuda::std::span<const Key> keys, cuda::std::span<std::uint8_t> present) const {
    const char* function = "slab_hash::contains";
    require_usable(function);
    check_keys(ctx, function, keys);
    check_same_size(ctx, function, "present", present, keys.size());
    detail::slab_hash::batch<Key, Value> in{};
    in.keys = keys.data();
    in.out_flags = present.data();
    in.n = keys.size();
    query<int(slab_op::contains)>(ctx, in);
  }
  /// counts[i] = the instances of keys[i].
  void count(context& ctx, cuda::std::span<const Key> keys, cuda::std::span<std::uint32_t> counts) const {
    const char* function = "slab_hash::count";
    require_usable(function);
    check_keys(ctx, function, keys);
    check_same_size(ctx, function, "counts", counts, keys.size());
    detail::slab_hash::batch<Key, Value> in{};
    in.keys = keys.data();
    in.out_results = counts.data();
    in.n = keys.size();
    query<int(slab_op::count)>(ctx, in);
  }

  /// Live elements (a wait for the stream).
  [[nodiscard]] std::size_t size(context& ctx) const {
    require_usable("slab_hash::size");
    auto device = ctx.activate();
    unsigned long long size = 0;
    SLUICE_CUDA_CHECK(cudaMemcpyAsync(&size, &state_.data()->size, sizeof(size), cudaMemcpyDeviceToHost, ctx.stream()));
    ctx.synchronize();
    return static_cast<std::size_t>(size);
  }

  /// Every live element, in no particular order, to out_keys/out_values[0 … size) (a wait for the stream);
  /// returns size. The outputs must hold size() elements (invalid_argument "out_keys" otherwise).
  std::size_t retrieve_all(context& ctx, cuda::std::span<Key> out_keys, cuda::std::span<Value> out_values) const
    requires is_map
  {
    check_same_size(ctx, "slab_hash::retrieve_all", "out_values", out_values, out_keys.size());
    return retrieve(ctx, "slab_hash::retrieve_all", out_keys, out_values.data());
  }
  std::size_t retrieve_all(context& ctx, cuda::std::span<Key> out_keys) const
    requires(!is_map)
  {
    return retrieve(ctx, "slab_set::retrieve_all", out_keys, nullptr);
  }

  /// Size, slabs and memory utilization (a wait for the stream).
  [[nodiscard]] slab_hash_stats stats(context& ctx) const {
    require_usable("slab_hash::stats");
    slab_hash_stats s;
    s.size = size(ctx);
    s.buckets = bucket_count_;
    s.pool_slabs = pool_.units_in_use(ctx);
    s.pool_capacity = pool_.capacity();
    s.slabs_per_bucket = detail::slab_hash::average_slabs(s.size, bucket_count_, L::data_slots);
    s.memory_utilization = detail::slab_hash::memory_utilization(s.size, element_bytes, s.pool_slabs + bucket_count_,
                                                                  detail::slab_hash::slab_bytes);
    return s;
  }

  [[nodiscard]] std::uint32_t bucket_count() const { return bucket_count_; }
  [[nodiscard]] const slab_hash_options& options() const { return options_; }
  [[nodiscard]] const slab_alloc& allocator() const { return pool_; }

  /// The device view offering the operations named (slab_ops::insert, insert_or_assign, erase, find);
  /// valid until the next call that changes the table.
  template <class... Ops>
    requires(sizeof...(Ops) > 0)
  [[nodiscard]] ref_type<Ops...> ref(Ops...) const {
    require_usable("slab_hash::ref");
    return ref_type<Ops...>(view());
  }

 private:
  static constexpr std::uint32_t element_bytes = is_map ? 2 * sizeof(Key) : sizeof(Key);
  static constexpr int threads = detail::slab_hash::tuning::block_threads;

  /// The table's device-side figures: the element count, the status flags, and the scratch words the
  /// argument check and the unit count write (one copy back reads them all).
  struct device_state {
    unsigned long long size;
    unsigned long long first_reserved_key;
    unsigned long long first_bad_op;
    unsigned long long inserting_ops;
    unsigned long long units_in_use;
    std::uint32_t status;
    std::uint32_t allocator_status;
  };
  /// What a call that changes the table learns before it runs.
  struct status {
    std::size_t size;
    std::uint64_t units_in_use;
    std::uint64_t inserting_ops;
  };

  static slab_hash_options checked(slab_hash_options options) {
    if (!(options.target_slabs_per_bucket > 0))
      throw invalid_argument("slab_hash", "options.target_slabs_per_bucket", "must be positive");
    if (options.grow && !(options.max_slabs_per_bucket >= options.target_slabs_per_bucket))
      throw invalid_argument("slab_hash", "options.max_slabs_per_bucket",
                             "must be at least options.target_slabs_per_bucket when the table grows");
    if (options.buckets > detail::slab_hash::max_buckets)
      throw invalid_argument("slab_hash", "options.buckets", "is more than 2^31");
    return options;
  }

  /// The pool: enough super blocks for the lists of `capacity` elements past their base slabs.
  static slab_alloc_options pool_options(const slab_hash_options& options) {
    slab_alloc_options pool = options.allocator;
    if (pool.blocks_per_super_block == 0) pool.blocks_per_super_block = detail::slab_alloc::tuning::blocks_per_super_block;
    const std::uint64_t units = options.capacity / L::data_slots + 1;
    const std::uint64_t wanted = detail::slab_alloc::super_blocks_for(units, pool.blocks_per_super_block);
    pool.super_blocks = static_cast<std::uint32_t>(std::clamp<std::uint64_t>(
        std::max<std::uint64_t>(wanted, pool.super_blocks), 1, std::max<std::uint32_t>(pool.max_super_blocks, 1)));
    return pool;
  }

  void require_usable(const char* function) const {
    if (ctx_ == nullptr)
      throw invalid_argument(function, "*this", "is a moved-from or default-constructed slab_hash");
  }

  static device_buffer<slab> fresh_buckets(context& ctx, std::uint32_t count) {
    device_buffer<slab> buckets(ctx, count);
    buckets.fill_bytes(0xFF);  // every base slab empty, its link "none"
    return buckets;
  }

  view_type view() const {
    view_type v;
    v.buckets = const_cast<slab*>(buckets_.data());
    v.bucket_count = bucket_count_;
    v.hash = hash_;
    v.pool = pool_.ref();
    v.size = &const_cast<device_state*>(state_.data())->size;
    v.status = &const_cast<device_state*>(state_.data())->status;
    v.max_hops = pool_.capacity();
    return v;
  }

  static void check_keys(const context& ctx, const char* function, cuda::std::span<const Key> keys) {
    require_device_memory(ctx, keys, function, "keys");
  }
  template <class T>
  static void check_same_size(const context& ctx, const char* function, const char* parameter,
                              cuda::std::span<T> range, std::size_t n) {
    require_device_memory(ctx, range, function, parameter);
    if (range.size() != n)
      throw invalid_argument(function, parameter,
                             "has " + std::to_string(range.size()) + " elements but keys has " + std::to_string(n));
  }

  /// Launches `kernel` with one wave of blocks (at most one warp a unit of `work`), or not at all.
  template <class Kernel, class... Args>
  static void launch_per_bucket(context& ctx, Kernel kernel, std::uint64_t work, const Args&... args) {
    if (work == 0) return;
    auto device = ctx.activate();
    const auto grid = static_cast<unsigned>(detail::one_wave_grid(ctx, kernel, threads, detail::ceil_div(work * 32, threads)));
    kernel<<<grid, threads, 0, ctx.stream()>>>(args...);
    SLUICE_CHECK_LAUNCH();
  }

  template <int Op, class Combine = detail::slab_hash::take_new>
  void launch_bulk(context& ctx, const detail::slab_hash::batch<Key, Value>& in, Combine combine = {}) const {
    if (in.n == 0) return;
    auto device = ctx.activate();
    const auto kernel = detail::slab_hash::bulk_kernel<Op, view_type, Key, Value, Combine>;
    const auto grid = static_cast<unsigned>(detail::one_wave_grid(ctx, kernel, threads, detail::ceil_div(in.n, threads)));
    kernel<<<grid, threads, 0, ctx.stream()>>>(view(), in, combine);
    SLUICE_CHECK_LAUNCH();
  }

  template <int Op>
  void query(context& ctx, const detail::slab_hash::batch<Key, Value>& in) const {
    launch_bulk<Op>(ctx, in);
  }

  template <int Op, class Combine = detail::slab_hash::take_new>
  void run_inserts(context& ctx, const char* function, cuda::std::span<const Key> keys,
                   cuda::std::span<const Value> values, Combine combine = {}) {
    require_usable(function);
    check_keys(ctx, function, keys);
    if constexpr (is_map) check_same_size(ctx, function, "values", values, keys.size());
    detail::slab_hash::batch<Key, Value> in{};
    in.keys = keys.data();
    in.values = values.data();
    in.n = keys.size();
    mutate<Op>(ctx, function, in, true, combine);
  }

  template <int Op>
  void run_changes(context& ctx, const char* function, cuda::std::span<const Key> keys) {
    require_usable(function);
    check_keys(ctx, function, keys);
    detail::slab_hash::batch<Key, Value> in{};
    in.keys = keys.data();
    in.n = keys.size();
    mutate<Op>(ctx, function, in, false);
  }

  /// A batch that changes the table: status and arguments checked, room made, then the kernel.
  template <int Op, class Combine = detail::slab_hash::take_new>
  void mutate(context& ctx, const char* function, const detail::slab_hash::batch<Key, Value>& in, bool inserts,
              Combine combine = {}) {
    const status s = read_status(ctx, function, {in.keys, in.n}, in.ops);
    const std::uint64_t inserting = !inserts ? 0 : in.ops != nullptr ? s.inserting_ops : in.n;
    if (inserting != 0) make_room(ctx, function, s, s.size + inserting, inserting, options_.grow);
    launch_bulk<Op>(ctx, in, combine);
  }

  /// Reads the status back (one wait) and throws for what it reports: flags raised by device code, a
  /// reserved key or a bad operation code in the batch. Nothing has changed when it throws.
  status read_status(context& ctx, const char* function, cuda::std::span<const Key> keys, const slab_op* ops) {
    auto device = ctx.activate();
    device_state* state = state_.data();
    SLUICE_CUDA_CHECK(cudaMemsetAsync(&state->first_reserved_key, 0xFF, 2 * sizeof(unsigned long long), ctx.stream()));
    SLUICE_CUDA_CHECK(cudaMemsetAsync(&state->inserting_ops, 0, 2 * sizeof(unsigned long long), ctx.stream()));
    if (!keys.empty()) {
      const auto kernel = detail::slab_hash::check_batch_kernel<L, Key>;
      const auto grid = static_cast<unsigned>(detail::one_wave_grid(ctx, kernel, threads, detail::ceil_div(keys.size(), threads)));
      kernel<<<grid, threads, 0, ctx.stream()>>>(keys.data(), ops, keys.size(), &state->first_reserved_key,
                                                 &state->first_bad_op, &state->inserting_ops);
      SLUICE_CHECK_LAUNCH();
    }
    pool_.count_units_into(ctx, &state->units_in_use);
    SLUICE_CUDA_CHECK(cudaMemcpyAsync(&state->allocator_status, pool_.status_word(), sizeof(std::uint32_t),
                                      cudaMemcpyDeviceToDevice, ctx.stream()));
    device_state host{};
    SLUICE_CUDA_CHECK(cudaMemcpyAsync(&host, state, sizeof(host), cudaMemcpyDeviceToHost, ctx.stream()));
    ctx.synchronize();
    if (host.allocator_status != 0) {
      pool_.clear_status(ctx);
      slab_alloc::throw_for(host.allocator_status, function);
    }
    if (host.status & detail::slab_hash::corrupt_list)
      throw error(std::string("sluice::") + function + ": a slab list is longer than the pool (a corrupted table)");
    if (host.first_reserved_key != ~0ull)
      throw invalid_argument(function, "keys",
                             "holds a reserved key (0xFF…FF marks empty slots, 0xFF…FE erased ones)",
                             static_cast<std::size_t>(host.first_reserved_key));
    if (host.first_bad_op != ~0ull)
      throw invalid_argument(function, "ops", "holds a code that is not a slab_op",
                             static_cast<std::size_t>(host.first_bad_op));
    return {static_cast<std::size_t>(host.size), host.units_in_use, host.inserting_ops};
  }

  /// Grows the buckets (when `grow` and β of `elements` would pass the maximum) and the pool, so that
  /// `inserts` more elements cannot exhaust it.
  void make_room(context& ctx, const char* function, status s, std::uint64_t elements, std::uint64_t inserts, bool grow) {
    const std::uint32_t buckets = detail::slab_hash::grown_buckets(elements, bucket_count_, L::data_slots,
                                                                   options_.target_slabs_per_bucket, options_.max_slabs_per_bucket);
    if (grow && buckets != bucket_count_) {
      rehash(ctx, function, buckets, s);
      s.units_in_use = pool_.units_in_use(ctx);
    }
    pool_.reserve(ctx, s.units_in_use + detail::slab_hash::units_for_inserts(inserts, bucket_count_, L::data_slots,
                                                                             concurrent_warps(ctx, inserts / 32 + 1)));
  }

  /// Warps of a one-wave kernel with `work` warps of work that can run at once: each may hold one slab
  /// it failed to link.
  static std::uint64_t concurrent_warps(const context& ctx, std::uint64_t work) {
    return std::min(work, std::uint64_t(ctx.properties().sm_count) * std::uint64_t(ctx.properties().max_threads_per_sm) / 32);
  }

  /// Every element moved to `buckets` new buckets (instances of a key in order), the old lists freed.
  void rehash(context& ctx, const char* function, std::uint32_t buckets, const status& s) {
    pool_.reserve(ctx, s.units_in_use + detail::slab_hash::units_for_inserts(s.size, buckets, L::data_slots,
                                                                             concurrent_warps(ctx, bucket_count_)));
    device_buffer<slab> fresh;
    detail::naming_out_of_memory(function, "growth", [&] { fresh = fresh_buckets(ctx, buckets); });
    device_buffer<slab> old = std::exchange(buckets_, std::move(fresh));
    const std::uint32_t old_count = std::exchange(bucket_count_, buckets);
    auto device = ctx.activate();
    SLUICE_CUDA_CHECK(cudaMemsetAsync(&state_.data()->size, 0, sizeof(unsigned long long), ctx.stream()));
    launch_per_bucket(ctx, detail::slab_hash::migrate_kernel<view_type>, old_count, view(),
                      static_cast<const slab*>(old.data()), old_count);
    launch_per_bucket(ctx, detail::slab_hash::free_lists_kernel<view_type>, old_count, view(),
                      static_cast<const slab*>(old.data()), old_count);
  }  // `old` is released stream-ordered, after both kernels

  std::size_t retrieve(context& ctx, const char* function, cuda::std::span<Key> out_keys, Value* out_values) const {
    require_usable(function);
    require_device_memory(ctx, out_keys, function, "out_keys");
    const std::size_t n = size(ctx);
    if (out_keys.size() < n)
      throw invalid_argument(function, "out_keys",
                             "has " + std::to_string(out_keys.size()) + " elements but the table holds " + std::to_string(n));
    device_buffer<unsigned long long> cursor(ctx, 1);
    cursor.fill_bytes(0);
    launch_per_bucket(ctx, detail::slab_hash::retrieve_kernel<view_type, Key, Value>, bucket_count_, view(),
                      out_keys.data(), out_values, out_keys.size(), cursor.data());
    return static_cast<std::size_t>(cursor.to_host()[0]);
  }

  context* ctx_ = nullptr;
  slab_hash_options options_{};
  Hash hash_{};
  slab_alloc pool_;
  device_buffer<device_state> state_;
  device_buffer<slab> buckets_;
  std::uint32_t bucket_count_ = 0;
};

/// A set of 4- or 8-byte integer keys (30 or 15 a slab).
template <class Key, class Hash = slab_hash_universal_hash>
using slab_set = slab_hash<Key, detail::no_values, Hash>;

}  // namespace sluice
