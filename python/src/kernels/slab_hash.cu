// libsluice_python_kernels: the slab hash map and set (sluice/containers/slab_hash.cuh) behind an opaque
// handle, and hash_unique / group_by_reduce on them (containers/group_by.cuh); on the host a sequential
// multimap with the slab hash's semantics (reference/hash_map.hpp's: a key's instances from least to most
// recent). Keys and values as words of their width: four tables (map and set of 4- and 8-byte words),
// which group_by's slab_hash strategy shares (one translation unit, so that they are compiled once);
// group_by_reduce adds its kernels per (key width, value dtype, operator): 18 of each strategy.
#include "api_containers.hpp"
#include "common.hpp"

#include <sluice/containers/group_by.cuh>
#include <sluice/containers/slab_hash.cuh>

#include <bit>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace sluice::python {

struct slab_hash_handle::impl {
  virtual ~impl() = default;
  virtual void insert(const call& c, const array& keys, const array* values, bool unique) = 0;
  virtual void erase(const call& c, const array& keys) = 0;
  virtual void find(const call& c, const array& keys, const array& found, std::uint64_t absent_bits) const = 0;
  virtual void contains(const call& c, const array& keys, const array& present) const = 0;
  virtual void count(const call& c, const array& keys, const array& counts) const = 0;
  [[nodiscard]] virtual std::size_t size(const call& c) const = 0;
  virtual std::size_t retrieve_all(const call& c, const array& out_keys, const array* out_values) const = 0;
  virtual void clear(const call& c) = 0;

  dtype key = dtype::uint32;
  std::optional<dtype> value;
  int device = -1;
};

namespace {

template <class V>
constexpr bool is_map = detail::has_values<V>;

/// The host's check of keys that change a table: the slab hash's empty and erased markers are rejected.
template <class W>
void check_host_keys(const char* function, std::span<const W> keys) {
  for (std::size_t i = 0; i < keys.size(); ++i)
    if (keys[i] >= static_cast<W>(~W{0} - 1))
      throw invalid_argument(function, "keys", "holds a reserved key (0xFF…FF marks empty slots, 0xFF…FE erased ones)", i);
}

/// The sequential table: per key its instances' values, least recent first (a set stores no value).
template <class W, class V>
struct host_table final : slab_hash_handle::impl {
  using stored = std::conditional_t<is_map<V>, V, std::uint8_t>;

  void insert(const call&, const array& keys, const array* values, bool unique) override {
    const auto k = host_span<const W>(keys);
    check_host_keys<W>(unique ? "slab_hash::insert_or_assign" : "slab_hash::insert", k);
    for (std::size_t i = 0; i < k.size(); ++i) {
      stored v{};
      if constexpr (is_map<V>) v = host_span<const V>(*values)[i];
      auto& list = instances[k[i]];
      if (unique && !list.empty()) {
        list.front() = v;
        continue;
      }
      list.push_back(v);
      ++live;
    }
  }

  void erase(const call&, const array& keys) override {
    const auto k = host_span<const W>(keys);
    check_host_keys<W>("slab_hash::erase", k);
    for (const W key : k) {
      const auto it = instances.find(key);
      if (it == instances.end()) continue;
      it->second.erase(it->second.begin());
      --live;
      if (it->second.empty()) instances.erase(it);
    }
  }

  const std::vector<stored>* instances_of(W key) const {
    const auto it = instances.find(key);
    return it == instances.end() ? nullptr : &it->second;
  }

  void find(const call&, const array& keys, const array& found, std::uint64_t absent_bits) const override {
    if constexpr (is_map<V>) {
      const auto k = host_span<const W>(keys);
      const auto to = host_span<V>(found);
      for (std::size_t i = 0; i < k.size(); ++i) {
        const auto* list = instances_of(k[i]);
        to[i] = list ? list->front() : static_cast<V>(absent_bits);
      }
    }
  }

  void contains(const call&, const array& keys, const array& present) const override {
    const auto k = host_span<const W>(keys);
    for (std::size_t i = 0; i < k.size(); ++i) host_span<std::uint8_t>(present)[i] = instances_of(k[i]) != nullptr;
  }

  void count(const call&, const array& keys, const array& counts) const override {
    const auto k = host_span<const W>(keys);
    for (std::size_t i = 0; i < k.size(); ++i) {
      const auto* list = instances_of(k[i]);
      host_span<std::uint32_t>(counts)[i] = list ? static_cast<std::uint32_t>(list->size()) : 0u;
    }
  }

  std::size_t size(const call&) const override { return live; }

  std::size_t retrieve_all(const call&, const array& out_keys, const array* out_values) const override {
    if (out_keys.size < live)
      throw invalid_argument("slab_hash::retrieve_all", "out_keys",
                             "has " + std::to_string(out_keys.size) + " elements but the table holds " + std::to_string(live));
    std::size_t at = 0;
    for (const auto& [key, list] : instances)
      for (const stored& v : list) {
        host_span<W>(out_keys)[at] = key;
        if constexpr (is_map<V>) host_span<V>(*out_values)[at] = v;
        ++at;
      }
    return at;
  }

  void clear(const call&) override {
    instances.clear();
    live = 0;
  }

  std::unordered_map<W, std::vector<stored>> instances;
  std::size_t live = 0;
};

template <class W, class V>
struct device_table final : slab_hash_handle::impl {
  device_table(context& ctx, std::size_t capacity, bool grow) : table(ctx, {.capacity = capacity, .grow = grow}) {}

  void insert(const call& c, const array& keys, const array* values, bool unique) override {
    context& ctx = context_for(c);
    const auto k = device_span<const W>(keys);
    if constexpr (is_map<V>) {
      const auto v = device_span<const V>(*values);
      if (unique) table.insert_or_assign(ctx, k, v);
      else table.insert(ctx, k, v);
    } else {
      if (unique) table.insert_unique(ctx, k);
      else table.insert(ctx, k);
    }
  }

  void erase(const call& c, const array& keys) override { table.erase(context_for(c), device_span<const W>(keys)); }

  void find(const call& c, const array& keys, const array& found, std::uint64_t absent_bits) const override {
    if constexpr (is_map<V>)
      table.find(context_for(c), device_span<const W>(keys), device_span<V>(found), static_cast<V>(absent_bits));
  }

  void contains(const call& c, const array& keys, const array& present) const override {
    table.contains(context_for(c), device_span<const W>(keys), device_span<std::uint8_t>(present));
  }

  void count(const call& c, const array& keys, const array& counts) const override {
    table.count(context_for(c), device_span<const W>(keys), device_span<std::uint32_t>(counts));
  }

  std::size_t size(const call& c) const override { return table.size(context_for(c)); }

  std::size_t retrieve_all(const call& c, const array& out_keys, const array* out_values) const override {
    if constexpr (is_map<V>)
      return table.retrieve_all(context_for(c), device_span<W>(out_keys), device_span<V>(*out_values));
    else
      return table.retrieve_all(context_for(c), device_span<W>(out_keys));
  }

  void clear(const call& c) override { table.clear(context_for(c)); }

  mutable sluice::slab_hash<W, V> table;
};

template <class W, class V>
std::unique_ptr<slab_hash_handle::impl> make_table(const call& c, std::size_t capacity, bool grow) {
  if (c.on_host()) return std::make_unique<host_table<W, V>>();
  return std::make_unique<device_table<W, V>>(context_for(c), capacity, grow);
}

std::string where(int device) { return device < 0 ? std::string("host memory") : "cuda:" + std::to_string(device); }

}  // namespace

slab_hash_handle::slab_hash_handle(const call& c, dtype key_type, std::optional<dtype> value_type, std::size_t capacity,
                                   bool grow) {
  impl_ = guarded([&] {
    return visit(integer_types{}, key_type, "SlabHash", "key_dtype", [&]<class K>(type_tag<K>) {
      using W = word_of<sizeof(K)>;
      if (!value_type) return make_table<W, detail::no_values>(c, capacity, grow);
      visit(numeric_types{}, *value_type, "SlabHash", "value_dtype", [&](auto) {});
      if (itemsize(*value_type) != sizeof(K))
        throw_unsupported("SlabHash", "value_dtype", *value_type,
                          "a numeric dtype of the key's width (" + std::to_string(sizeof(K)) + " bytes)");
      return make_table<W, W>(c, capacity, grow);
    });
  });
  impl_->key = key_type;
  impl_->value = value_type;
  impl_->device = c.device;
}

slab_hash_handle::~slab_hash_handle() = default;
slab_hash_handle::slab_hash_handle(slab_hash_handle&&) noexcept = default;
slab_hash_handle& slab_hash_handle::operator=(slab_hash_handle&&) noexcept = default;

namespace {

/// The checks of every call: the call on the table's device, keys of the table's key dtype.
void check_call(const slab_hash_handle::impl& t, const call& c, const array& keys, const char* function) {
  if (c.device != t.device)
    throw error(error_kind::value, "sluice." + std::string(function) + ": 'keys' is in " + where(c.device) +
                                       " but the table in " + where(t.device));
  require_type(keys, t.key, function, "keys");
}

void check_values(const slab_hash_handle::impl& t, const array& keys, const array* values, const char* function) {
  if (!t.value) {
    if (values) throw error(error_kind::value, "sluice." + std::string(function) + ": a set takes no 'values'");
    return;
  }
  if (!values) throw error(error_kind::value, "sluice." + std::string(function) + ": a map needs 'values'");
  require_type(*values, *t.value, function, "values");
  if (values->size != keys.size) throw invalid_argument(function, "values", "must have one value per key");
}

void check_outputs(const array& keys, const array& out, dtype type, const char* function, const char* parameter) {
  require_type(out, type, function, parameter);
  if (out.size != keys.size) throw invalid_argument(function, parameter, "must have one element per key");
}

}  // namespace

void slab_hash_handle::insert(const call& c, const array& keys, const array* values) {
  guarded([&] {
    check_call(*impl_, c, keys, "SlabHash.insert");
    check_values(*impl_, keys, values, "SlabHash.insert");
    impl_->insert(c, keys, values, false);
  });
}

void slab_hash_handle::insert_or_assign(const call& c, const array& keys, const array* values) {
  guarded([&] {
    check_call(*impl_, c, keys, "SlabHash.insert_or_assign");
    check_values(*impl_, keys, values, "SlabHash.insert_or_assign");
    impl_->insert(c, keys, values, true);
  });
}

void slab_hash_handle::erase(const call& c, const array& keys) {
  guarded([&] {
    check_call(*impl_, c, keys, "SlabHash.erase");
    impl_->erase(c, keys);
  });
}

void slab_hash_handle::find(const call& c, const array& keys, const array& found, scalar absent) const {
  guarded([&] {
    check_call(*impl_, c, keys, "SlabHash.find");
    if (!impl_->value) throw error(error_kind::value, "sluice.SlabHash.find: a set has no values; use contains");
    check_outputs(keys, found, *impl_->value, "SlabHash.find", "out");
    const std::uint64_t bits = visit(numeric_types{}, *impl_->value, "SlabHash.find", "default", [&]<class T>(type_tag<T>) {
      return static_cast<std::uint64_t>(std::bit_cast<word_of<sizeof(T)>>(scalar_as<T>(absent)));
    });
    impl_->find(c, keys, found, bits);
  });
}

void slab_hash_handle::contains(const call& c, const array& keys, const array& present) const {
  guarded([&] {
    check_call(*impl_, c, keys, "SlabHash.contains");
    require_width(present, 1, "SlabHash.contains", "out");
    if (present.size != keys.size) throw invalid_argument("SlabHash.contains", "out", "must have one element per key");
    impl_->contains(c, keys, present);
  });
}

void slab_hash_handle::count(const call& c, const array& keys, const array& counts) const {
  guarded([&] {
    check_call(*impl_, c, keys, "SlabHash.count");
    check_outputs(keys, counts, dtype::uint32, "SlabHash.count", "out");
    impl_->count(c, keys, counts);
  });
}

std::size_t slab_hash_handle::size(const call& c) const {
  return guarded([&] { return impl_->size(c); });
}

std::size_t slab_hash_handle::retrieve_all(const call& c, const array& out_keys, const array* out_values) const {
  return guarded([&] {
    require_type(out_keys, impl_->key, "SlabHash.retrieve_all", "out_keys");
    if (impl_->value && out_values) require_type(*out_values, *impl_->value, "SlabHash.retrieve_all", "out_values");
    return impl_->retrieve_all(c, out_keys, out_values);
  });
}

void slab_hash_handle::clear(const call& c) {
  guarded([&] { impl_->clear(c); });
}

dtype slab_hash_handle::key_type() const { return impl_->key; }
std::optional<dtype> slab_hash_handle::value_type() const { return impl_->value; }
int slab_hash_handle::device() const { return impl_->device; }

// ---- group_by ---------------------------------------------------------------------------------------------

namespace {

/// A typed operator on value words: the table stays slab_hash<W, W> (the instantiation SlabHash maps use);
/// its identity, where op has one, lets group_by_reduce take the open-addressing table.
template <class W, class T, class Op>
struct on_bits {
  static constexpr bool is_commutative = true;
  template <class X>
    requires sluice::has_identity_v<Op, T>
  SLUICE_HOST_DEVICE static constexpr W identity() {
    return cuda::std::bit_cast<W>(sluice::identity<Op, T>());
  }
  Op op;
  SLUICE_HOST_DEVICE W operator()(W a, W b) const {
    return cuda::std::bit_cast<W>(op(cuda::std::bit_cast<T>(a), cuda::std::bit_cast<T>(b)));
  }
};

void check_group_keys(const array& keys, const char* function) {
  visit(integer_types{}, keys.type, function, "keys", [](auto) {});  // the slab hash's keys
}

}  // namespace

std::size_t hash_unique(const call& c, const array& keys, const array& out) {
  return guarded([&] {
    const char* function = "hash_unique";
    require_type(out, keys.type, function, "out");
    return visit(integer_types{}, keys.type, function, "keys", [&]<class K>(type_tag<K>) -> std::size_t {
      using W = word_of<sizeof(K)>;
      if (!c.on_host()) return sluice::unique(context_for(c), device_span<const W>(keys), device_span<W>(out));
      const auto k = host_span<const W>(keys);
      std::unordered_set<W> seen;
      std::size_t count = 0;
      for (const W key : k)
        if (seen.insert(key).second) host_span<W>(out)[count++] = key;
      return count;
    });
  });
}

std::size_t group_by_reduce(const call& c, const array& keys, const array& values, const array& out_keys,
                            const array& out_values, operator_kind op) {
  return guarded([&] {
    const char* function = "group_by_reduce";
    check_group_keys(keys, function);
    require_type(out_keys, keys.type, function, "out_keys");
    require_type(out_values, values.type, function, "out_values");
    if (values.size != keys.size) throw invalid_argument(function, "values", "must have one value per key");
    if (itemsize(values.type) != itemsize(keys.type))
      throw_unsupported(function, "values", values.type,
                        "a numeric dtype of the keys' width (" + std::to_string(itemsize(keys.type)) + " bytes)");
    return visit(numeric_types{}, values.type, function, "values", [&]<class T>(type_tag<T>) {
      using W = word_of<sizeof(T)>;
      return visit_operator<ordered, T>(op, function, values.type, [&]<class Op>(Op f) -> std::size_t {
        if (!c.on_host())
          return sluice::group_by_reduce(context_for(c), device_span<const W>(keys), device_span<const W>(values),
                                         device_span<W>(out_keys), device_span<W>(out_values), on_bits<W, T, Op>{f});
        const auto k = host_span<const W>(keys);
        const auto v = host_span<const T>(values);
        std::unordered_map<W, std::size_t> slot;
        std::size_t count = 0;
        for (std::size_t i = 0; i < k.size(); ++i) {
          const auto [at, fresh] = slot.try_emplace(k[i], count);
          T& reduced = host_span<T>(out_values)[at->second];
          if (fresh) {
            host_span<W>(out_keys)[count++] = k[i];
            reduced = v[i];
          } else {
            reduced = f(reduced, v[i]);
          }
        }
        return count;
      });
    });
  });
}

}  // namespace sluice::python
