// sluice/dist/slab_hash.cuh: a hash table spread over the ranks of a communicator (docs/dist.md): each rank
// holds a sluice::slab_hash with the keys it owns (the owner is a hash of the key of its own, uniform over
// the ranks), and every bulk call routes its batch to the owners (a multisplit by owner, one all-to-all),
// applies it there, and for queries sends the answers back in the caller's order.
//
//   dist::slab_hash<K, V> table(comm, local_options);   // collective: every rank makes its local table
//   table.insert(keys, values);  table.insert_or_assign(keys, values);  table.erase(keys);
//   table.find(keys, found);     table.contains(keys, present);         table.count(keys, counts);
//   table.size();                table.local(i)   // rank i of this process: its sluice::slab_hash
//
// Every call is collective and synchronous, as dist.cuh's are; each rank passes its own batch (of any
// size, empty included). The semantics are the one-GPU table's (containers/slab_hash.cuh) over the union
// of the ranks' tables: a key lives on one rank only, so find, count and erase see every instance. A
// batch reaches its owners in global index order (rank 0's keys, then rank 1's, …); within a batch the
// one-GPU table promises no order either. Keys: 4- or 8-byte integers other than the two reserved ones
// (a batch that inserts one throws invalid_argument with its global index on every rank, before anything
// moves). local_options apply to each rank's table (capacity and buckets are per rank).
#pragma once

#include <sluice/containers/slab_hash.cuh>
#include <sluice/detail/dist/slab_hash.cuh>
#include <sluice/dist/communicator.hpp>
#include <sluice/dist/span.hpp>
#include <sluice/options/dist.hpp>

#include <cuda/std/span>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

namespace sluice::dist {

template <class Key, class Value = sluice::detail::no_values, class Hash = slab_hash_universal_hash>
class slab_hash {
  using local_table = sluice::slab_hash<Key, Value, Hash>;
  using L = sluice::detail::slab_hash::layout<Key, Value>;
  using no_values = sluice::detail::no_values;

 public:
  using key_type = Key;
  using mapped_type = Value;
  static constexpr bool is_map = local_table::is_map;

  /// Every rank of the communicator makes its local table (collective: a rank that fails, memory
  /// exhausted for one, is a rank_failure on all of them).
  explicit slab_hash(communicator& comm, const slab_hash_options& local_options = {}, Hash hash = {}) : comm_(&comm) {
    detail::dist::call c(comm.world(), "dist::slab_hash", nullptr, {});
    tables_.resize(comm.local_count());
    c.run_local([&](std::size_t i, detail::dist::local_rank& l) { tables_[i] = local_table(*l.ctx, local_options, hash); });
    c.vote();
  }

  /// INSERT every (key, value) pair; duplicates are kept (a multimap).
  void insert(const distributed_span<const Key>& keys, const distributed_span<const Value>& values,
              timings* report = nullptr)
    requires is_map
  {
    update<true, Value>("dist::slab_hash::insert", keys, values, report,
                 [](local_table& t, context& ctx, cuda::std::span<const Key> k, cuda::std::span<const Value> v) {
                   t.insert(ctx, k, v);
                 });
  }
  /// REPLACE: each key's value set, the key inserted when absent (one of a batch's values for a key remains).
  void insert_or_assign(const distributed_span<const Key>& keys, const distributed_span<const Value>& values,
                        timings* report = nullptr)
    requires is_map
  {
    update<true, Value>("dist::slab_hash::insert_or_assign", keys, values, report,
                 [](local_table& t, context& ctx, cuda::std::span<const Key> k, cuda::std::span<const Value> v) {
                   t.insert_or_assign(ctx, k, v);
                 });
  }
  /// INSERT every key; duplicates are kept (a multiset).
  void insert(const distributed_span<const Key>& keys, timings* report = nullptr)
    requires(!is_map)
  {
    update<true, no_values>("dist::slab_hash::insert", keys, {}, report, [](local_table& t, context& ctx,
                                                                  cuda::std::span<const Key> k, auto) {
      t.insert(ctx, k);
    });
  }
  /// Each key inserted unless present (equal keys of one batch: once).
  void insert_unique(const distributed_span<const Key>& keys, timings* report = nullptr)
    requires(!is_map)
  {
    update<true, no_values>("dist::slab_hash::insert_unique", keys, {}, report,
                 [](local_table& t, context& ctx, cuda::std::span<const Key> k, auto) { t.insert_unique(ctx, k); });
  }
  /// DELETE: each key's least recent instance (none: nothing); a key twice in the batch erases two.
  void erase(const distributed_span<const Key>& keys, timings* report = nullptr) {
    update<false, no_values>("dist::slab_hash::erase", keys, {}, report,
                  [](local_table& t, context& ctx, cuda::std::span<const Key> k, auto) { t.erase(ctx, k); });
  }
  /// DELETEALL: every instance of each key.
  void erase_all(const distributed_span<const Key>& keys, timings* report = nullptr) {
    update<false, no_values>("dist::slab_hash::erase_all", keys, {}, report,
                  [](local_table& t, context& ctx, cuda::std::span<const Key> k, auto) { t.erase_all(ctx, k); });
  }

  /// SEARCH: found[i] = the value of keys[i]'s least recent instance, or `absent` (all bits set by default).
  void find(const distributed_span<const Key>& keys, const distributed_span<Value>& found,
            Value absent = L::template value_of_bits<Value>(~typename L::value_bits{0}), timings* report = nullptr) const
    requires is_map
  {
    query("dist::slab_hash::find", "found", keys, found, report,
          [absent](const local_table& t, context& ctx, cuda::std::span<const Key> k, cuda::std::span<Value> out) {
            t.find(ctx, k, out, absent);
          });
  }
  /// present[i] = 1 where keys[i] is in the table, else 0.
  void contains(const distributed_span<const Key>& keys, const distributed_span<std::uint8_t>& present,
                timings* report = nullptr) const {
    query("dist::slab_hash::contains", "present", keys, present, report,
          [](const local_table& t, context& ctx, cuda::std::span<const Key> k, cuda::std::span<std::uint8_t> out) {
            t.contains(ctx, k, out);
          });
  }
  /// counts[i] = the instances of keys[i].
  void count(const distributed_span<const Key>& keys, const distributed_span<std::uint32_t>& counts,
             timings* report = nullptr) const {
    query("dist::slab_hash::count", "counts", keys, counts, report,
          [](const local_table& t, context& ctx, cuda::std::span<const Key> k, cuda::std::span<std::uint32_t> out) {
            t.count(ctx, k, out);
          });
  }

  /// Live elements on all ranks (collective).
  [[nodiscard]] std::uint64_t size() const {
    detail::dist::call c(comm_->world(), "dist::slab_hash::size", nullptr, {});
    const detail::dist::gathered table = c.gather(sizeof(std::uint64_t), [&](std::size_t i, detail::dist::local_rank& l,
                                                                            unsigned char* payload) {
      const std::uint64_t mine = tables_[i].size(*l.ctx);
      SLUICE_CUDA_CHECK(cudaMemcpyAsync(payload, &mine, sizeof(mine), cudaMemcpyHostToDevice, l.ctx->stream()));
    });
    std::uint64_t total = 0;
    for (int r = 0; r < c.world_size(); ++r) total += table.read<std::uint64_t>(r);
    return total;
  }
  /// Every element removed on every rank (collective).
  void clear() {
    detail::dist::call c(comm_->world(), "dist::slab_hash::clear", nullptr, {});
    c.run_local([&](std::size_t i, detail::dist::local_rank& l) { tables_[i].clear(*l.ctx); });
    c.vote();
  }

  /// The table of local rank i: the keys rank comm.rank(i) owns (its stats, retrieve_all, device view).
  [[nodiscard]] local_table& local(std::size_t i = 0) { return tables_.at(i); }
  [[nodiscard]] const local_table& local(std::size_t i = 0) const { return tables_.at(i); }
  /// The rank that owns `key` in a world of `world_size` ranks.
  [[nodiscard]] static int owner(const Key& key, int world_size) {
    return static_cast<int>(detail::dist::owner_of_key<Key>{.world_size = static_cast<std::uint32_t>(world_size)}(key));
  }

 private:
  /// A batch that changes the tables; `Carried` travels with each key (a map's values, or no_values).
  template <bool Inserts, class Carried, class Apply>
  void update(const char* function, const distributed_span<const Key>& keys,
              const distributed_span<const Carried>& values, timings* report, Apply&& apply) {
    detail::dist::call c(comm_->world(), function, report, detail::dist::hash_phase_names());
    const auto key_parts = keys.parts();
    const auto value_parts = values.parts();
    detail::dist::hash_header<Key, Value>(c, function, detail::dist::hash_signature<Key, Value, Hash>(function),
                                          std::span(key_parts), Inserts, [&](std::size_t i, detail::dist::local_rank& l) {
                                            if constexpr (sluice::detail::has_values<Carried>) {
                                              if (i >= value_parts.size())
                                                throw invalid_argument(function, "values",
                                                                       "has fewer parts than the communicator has ranks in this process");
                                              require_device_memory(*l.ctx, value_parts[i], function, "values");
                                              require_same_size(function, "values", value_parts[i].size(), key_parts[i].size());
                                            }
                                          });
    detail::dist::update_owners(c, function, tables_, std::span(key_parts), std::span(value_parts), apply);
  }

  template <class Answer, class Ask>
  void query(const char* function, const char* out_name, const distributed_span<const Key>& keys,
             const distributed_span<Answer>& out, timings* report, Ask&& ask) const {
    detail::dist::call c(comm_->world(), function, report, detail::dist::hash_phase_names());
    const auto key_parts = keys.parts();
    const auto out_parts = out.parts();
    detail::dist::hash_header<Key, Value>(c, function, detail::dist::hash_signature<Key, Value, Hash>(function),
                                          std::span(key_parts), false, [&](std::size_t i, detail::dist::local_rank& l) {
                                            if (i >= out_parts.size())
                                              throw invalid_argument(function, out_name,
                                                                     "has fewer parts than the communicator has ranks in this process");
                                            require_device_memory(*l.ctx, out_parts[i], function, out_name);
                                            require_same_size(function, out_name, out_parts[i].size(), key_parts[i].size());
                                          });
    detail::dist::query_owners(c, function, tables_, std::span(key_parts), std::span(out_parts), ask);
  }

  static void require_same_size(const char* function, const char* parameter, std::size_t size, std::size_t keys) {
    if (size != keys)
      throw invalid_argument(function, parameter,
                             "has " + std::to_string(size) + " elements but keys has " + std::to_string(keys));
  }

  communicator* comm_;
  std::vector<local_table> tables_;
};

}  // namespace sluice::dist
