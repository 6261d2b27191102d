// libsluice_python_kernels: the LSM (sluice/containers/lsm.cuh) behind an opaque handle; on the host a
// std::map with its semantics (batches applied in order). Keys typed (their order is the map's), values
// as words of the key's width: four instantiations.
#include "api_containers.hpp"
#include "common.hpp"

#include <sluice/containers/lsm.cuh>

#include <iterator>
#include <map>

namespace sluice::python {

struct lsm_handle::impl {
  virtual ~impl() = default;
  /// values null: erase; bulk: the content replaced.
  virtual void update(const call& c, const array& keys, const array* values, bool bulk) = 0;
  virtual void cleanup(const call& c) = 0;
  virtual void clear(const call& c) = 0;
  virtual void lookup(const call& c, const array& queries, const array* found, const array* present,
                      std::uint64_t absent_bits) const = 0;
  virtual void count(const call& c, const array& k1, const array& k2, const array& counts) const = 0;
  virtual void range(const call& c, const array& k1, const array& k2, const range_allocator& allocate) const = 0;
  virtual void neighbour(const call& c, bool successor, const array& queries, const array& keys, const array& values,
                         const array& found) const = 0;
  [[nodiscard]] virtual std::size_t size(const call& c) const = 0;

  dtype key = dtype::uint32;
  dtype value = dtype::uint32;
  int device = -1;
};

namespace {

template <class K, class W>
struct host_lsm final : lsm_handle::impl {
  void update(const call&, const array& keys, const array* values, bool bulk) override {
    if (bulk) items.clear();
    const auto k = host_span<const K>(keys);
    for (std::size_t i = 0; i < k.size(); ++i) {
      if (values) items[k[i]] = host_span<const W>(*values)[i];
      else items.erase(k[i]);
    }
  }
  void cleanup(const call&) override {}
  void clear(const call&) override { items.clear(); }

  void lookup(const call&, const array& queries, const array* found, const array* present,
              std::uint64_t absent_bits) const override {
    const auto q = host_span<const K>(queries);
    for (std::size_t i = 0; i < q.size(); ++i) {
      const auto it = items.find(q[i]);
      if (found) host_span<W>(*found)[i] = it != items.end() ? it->second : static_cast<W>(absent_bits);
      if (present) host_span<std::uint8_t>(*present)[i] = it != items.end();
    }
  }

  /// [first, last) of the live pairs in [lo, hi] (empty when lo > hi).
  auto pairs_in(K lo, K hi) const {
    if (lo > hi) return std::pair{items.end(), items.end()};
    return std::pair{items.lower_bound(lo), items.upper_bound(hi)};
  }

  void count(const call&, const array& k1, const array& k2, const array& counts) const override {
    for (std::size_t i = 0; i < k1.size; ++i) {
      const auto [first, last] = pairs_in(host_span<const K>(k1)[i], host_span<const K>(k2)[i]);
      host_span<std::uint64_t>(counts)[i] = static_cast<std::uint64_t>(std::distance(first, last));
    }
  }

  void range(const call&, const array& k1, const array& k2, const lsm_handle::range_allocator& allocate) const override {
    std::size_t total = 0;
    for (std::size_t i = 0; i < k1.size; ++i) {
      const auto [first, last] = pairs_in(host_span<const K>(k1)[i], host_span<const K>(k2)[i]);
      total += static_cast<std::size_t>(std::distance(first, last));
    }
    const lsm_handle::range_outputs out = allocate(total);
    std::size_t at = 0;
    for (std::size_t i = 0; i < k1.size; ++i) {
      host_span<std::uint64_t>(out.offsets)[i] = at;
      const auto [first, last] = pairs_in(host_span<const K>(k1)[i], host_span<const K>(k2)[i]);
      for (auto it = first; it != last; ++it, ++at) {
        host_span<K>(out.keys)[at] = it->first;
        host_span<W>(out.values)[at] = it->second;
      }
    }
    host_span<std::uint64_t>(out.offsets)[k1.size] = at;
  }

  void neighbour(const call&, bool successor, const array& queries, const array& keys, const array& values,
                 const array& found) const override {
    const auto q = host_span<const K>(queries);
    for (std::size_t i = 0; i < q.size(); ++i) {
      auto it = successor ? items.lower_bound(q[i]) : items.upper_bound(q[i]);
      const bool has = successor ? it != items.end() : it != items.begin();
      if (has && !successor) --it;
      host_span<K>(keys)[i] = has ? it->first : q[i];
      host_span<W>(values)[i] = has ? it->second : W{0};
      host_span<std::uint8_t>(found)[i] = has;
    }
  }

  std::size_t size(const call&) const override { return items.size(); }

  std::map<K, W> items;
};

template <class K, class W>
struct device_lsm final : lsm_handle::impl {
  device_lsm(context& ctx, const lsm_handle::options& how)
      : map(ctx, {.batch_size = how.batch_size, .capacity = how.capacity,
                  .cleanup_stale_fraction = how.cleanup_stale_fraction}) {}

  void update(const call& c, const array& keys, const array* values, bool bulk) override {
    context& ctx = context_for(c);
    const auto k = device_span<const K>(keys);
    if (bulk) map.bulk_build(ctx, k, device_span<const W>(*values));
    else if (values) map.insert(ctx, k, device_span<const W>(*values));
    else map.erase(ctx, k);
  }
  void cleanup(const call& c) override { map.cleanup(context_for(c)); }
  void clear(const call& c) override { map.clear(context_for(c)); }

  void lookup(const call& c, const array& queries, const array* found, const array* present,
              std::uint64_t absent_bits) const override {
    context& ctx = context_for(c);
    if (found) map.lookup(ctx, device_span<const K>(queries), device_span<W>(*found), static_cast<W>(absent_bits));
    if (present) map.contains(ctx, device_span<const K>(queries), device_span<std::uint8_t>(*present));
  }

  void count(const call& c, const array& k1, const array& k2, const array& counts) const override {
    map.count(context_for(c), device_span<const K>(k1), device_span<const K>(k2), device_span<std::uint64_t>(counts));
  }

  void range(const call& c, const array& k1, const array& k2, const lsm_handle::range_allocator& allocate) const override {
    context& ctx = context_for(c);
    const auto result = map.range(ctx, device_span<const K>(k1), device_span<const K>(k2));
    const lsm_handle::range_outputs out = allocate(result.keys.size());
    auto device = ctx.activate();
    const auto copy = [&](void* to, const void* from, std::size_t bytes) {
      if (bytes) SLUICE_CUDA_CHECK(cudaMemcpyAsync(to, from, bytes, cudaMemcpyDeviceToDevice, ctx.stream()));
    };
    copy(out.offsets.data, result.offsets.data(), result.offsets.size() * sizeof(std::uint64_t));
    copy(out.keys.data, result.keys.data(), result.keys.size() * sizeof(K));
    copy(out.values.data, result.values.data(), result.values.size() * sizeof(W));
  }

  void neighbour(const call& c, bool successor, const array& queries, const array& keys, const array& values,
                 const array& found) const override {
    context& ctx = context_for(c);
    const auto q = device_span<const K>(queries);
    if (successor)
      map.successor(ctx, q, device_span<K>(keys), device_span<W>(values), device_span<std::uint8_t>(found));
    else
      map.predecessor(ctx, q, device_span<K>(keys), device_span<W>(values), device_span<std::uint8_t>(found));
  }

  std::size_t size(const call& c) const override { return map.size(context_for(c)); }

  sluice::lsm<K, W> map;
};

std::string where(int device) { return device < 0 ? std::string("host memory") : "cuda:" + std::to_string(device); }

/// The checks of every call: the call on the structure's device, keys of its key dtype.
void check_call(const lsm_handle::impl& t, const call& c, const array& keys, const char* function, const char* parameter) {
  if (c.device != t.device)
    throw error(error_kind::value, "sluice." + std::string(function) + ": '" + parameter + "' is in " + where(c.device) +
                                       " but the LSM in " + where(t.device));
  require_type(keys, t.key, function, parameter);
}

void check_values(const lsm_handle::impl& t, const array& keys, const array& values, const char* function) {
  require_type(values, t.value, function, "values");
  if (values.size != keys.size) throw invalid_argument(function, "values", "must have one value per key");
}

void check_bounds(const lsm_handle::impl& t, const call& c, const array& k1, const array& k2, const char* function) {
  check_call(t, c, k1, function, "k1");
  require_type(k2, t.key, function, "k2");
  if (k2.size != k1.size) throw invalid_argument(function, "k2", "must have one bound per k1");
}

}  // namespace

lsm_handle::lsm_handle(const call& c, dtype key_type, dtype value_type, const options& how) {
  impl_ = guarded([&] {
    return visit(integer_types{}, key_type, "Lsm", "key_dtype", [&]<class K>(type_tag<K>) -> std::unique_ptr<impl> {
      visit(numeric_types{}, value_type, "Lsm", "value_dtype", [&](auto) {});
      if (itemsize(value_type) != sizeof(K))
        throw_unsupported("Lsm", "value_dtype", value_type,
                          "a numeric dtype of the key's width (" + std::to_string(sizeof(K)) + " bytes)");
      using W = word_of<sizeof(K)>;
      if (c.on_host()) return std::make_unique<host_lsm<K, W>>();
      return std::make_unique<device_lsm<K, W>>(context_for(c), how);
    });
  });
  impl_->key = key_type;
  impl_->value = value_type;
  impl_->device = c.device;
}

lsm_handle::~lsm_handle() = default;
lsm_handle::lsm_handle(lsm_handle&&) noexcept = default;
lsm_handle& lsm_handle::operator=(lsm_handle&&) noexcept = default;

void lsm_handle::insert(const call& c, const array& keys, const array& values) {
  guarded([&] {
    check_call(*impl_, c, keys, "Lsm.insert", "keys");
    check_values(*impl_, keys, values, "Lsm.insert");
    impl_->update(c, keys, &values, false);
  });
}

void lsm_handle::erase(const call& c, const array& keys) {
  guarded([&] {
    check_call(*impl_, c, keys, "Lsm.erase", "keys");
    impl_->update(c, keys, nullptr, false);
  });
}

void lsm_handle::bulk_build(const call& c, const array& keys, const array& values) {
  guarded([&] {
    check_call(*impl_, c, keys, "Lsm.bulk_build", "keys");
    check_values(*impl_, keys, values, "Lsm.bulk_build");
    impl_->update(c, keys, &values, true);
  });
}

void lsm_handle::cleanup(const call& c) {
  guarded([&] { impl_->cleanup(c); });
}

void lsm_handle::clear(const call& c) {
  guarded([&] { impl_->clear(c); });
}

void lsm_handle::lookup(const call& c, const array& queries, const array& found, scalar absent) const {
  guarded([&] {
    check_call(*impl_, c, queries, "Lsm.lookup", "queries");
    require_type(found, impl_->value, "Lsm.lookup", "out");
    const std::uint64_t bits = visit(numeric_types{}, impl_->value, "Lsm.lookup", "default", [&]<class T>(type_tag<T>) {
      return static_cast<std::uint64_t>(std::bit_cast<word_of<sizeof(T)>>(scalar_as<T>(absent)));
    });
    impl_->lookup(c, queries, &found, nullptr, bits);
  });
}

void lsm_handle::contains(const call& c, const array& queries, const array& present) const {
  guarded([&] {
    check_call(*impl_, c, queries, "Lsm.contains", "queries");
    require_width(present, 1, "Lsm.contains", "out");
    impl_->lookup(c, queries, nullptr, &present, 0);
  });
}

void lsm_handle::count(const call& c, const array& k1, const array& k2, const array& counts) const {
  guarded([&] {
    check_bounds(*impl_, c, k1, k2, "Lsm.count");
    require_type(counts, dtype::uint64, "Lsm.count", "out");
    impl_->count(c, k1, k2, counts);
  });
}

void lsm_handle::range(const call& c, const array& k1, const array& k2, const range_allocator& allocate) const {
  guarded([&] {
    check_bounds(*impl_, c, k1, k2, "Lsm.range");
    impl_->range(c, k1, k2, allocate);
  });
}

void lsm_handle::neighbour(const call& c, bool successor, const array& queries, const array& keys,
                           const array& values, const array& found) const {
  guarded([&] {
    const char* function = successor ? "Lsm.successor" : "Lsm.predecessor";
    check_call(*impl_, c, queries, function, "queries");
    impl_->neighbour(c, successor, queries, keys, values, found);
  });
}

std::size_t lsm_handle::size(const call& c) const {
  return guarded([&] { return impl_->size(c); });
}

dtype lsm_handle::key_type() const { return impl_->key; }
dtype lsm_handle::value_type() const { return impl_->value; }
int lsm_handle::device() const { return impl_->device; }

}  // namespace sluice::python
