// libsluice_python_kernels: stable multisplit of keys or (key, value) pairs (sluice/multisplit.cuh; CPU:
// sluice/host/multisplit.hpp). Keys int32, uint32, int64, uint64, moved as 4- or 8-byte words; values of
// the keys' size. The bucket identifier is chosen at run time among the seed's (options/multisplit.hpp
// buckets::), signedness included: four instantiations in all (the multisplit dispatch is the heaviest
// to compile).
#include "common.hpp"

#include <sluice/host/multisplit.hpp>
#include <sluice/multisplit.cuh>

#include <algorithm>

namespace sluice::python {

namespace {
/// identity, delta (key / delta), bit_field (bits of the key) or splitters (upper bound among sorted
/// splitters) of the key held in the word W, read as signed or unsigned at run time (one instantiation
/// per word size); ids negative or ≥ m drop the key.
template <class W>
struct chosen_bucket {
  bucket_kind kind;
  bool is_signed;
  W delta;
  int first_bit;
  int bits;
  const W* splitters;
  std::uint32_t splitter_count;

  template <class K>
  SLUICE_HOST_DEVICE std::int64_t id(K key) const {
    switch (kind) {
      case bucket_kind::identity: return static_cast<std::int64_t>(key);
      case bucket_kind::delta: return static_cast<std::int64_t>(buckets::delta<K>{static_cast<K>(delta)}(key));
      case bucket_kind::bit_field: return static_cast<std::int64_t>(buckets::bit_field{first_bit, bits}(static_cast<W>(key)));
      case bucket_kind::splitters:
        return buckets::splitters<K>{reinterpret_cast<const K*>(splitters), splitter_count}(key);
    }
    return -1;
  }
  SLUICE_HOST_DEVICE std::int64_t operator()(const W& word) const {
    return is_signed ? id(static_cast<std::make_signed_t<W>>(word)) : id(word);
  }
};
}  // namespace

std::size_t multisplit(const call& c, const array& keys, const array* values, const array& out_keys,
                       const array* out_values, std::uint32_t m, const bucket_spec& bucket, const array& offsets,
                       multisplit_algorithm algorithm, bool strict, bool count_dropped) {
  return guarded([&] {
    const char* function = values ? "multisplit_pairs" : "multisplit";
    require_type(out_keys, keys.type, function, "out_keys");
    if (offsets.type != dtype::int64 && offsets.type != dtype::uint64)
      throw_unsupported(function, "offsets", offsets.type, "int64, uint64");
    if ((values == nullptr) != (out_values == nullptr))
      throw error(error_kind::value, "sluice.multisplit: pass both 'values' and 'out_values', or neither");
    if (values) {
      require_type(*out_values, values->type, function, "out_values");
      if (itemsize(values->type) != 4 && itemsize(values->type) != 8)
        throw_unsupported(function, "values", values->type, "any dtype of 4 or 8 bytes");
    }
    const bool is_signed = keys.type == dtype::int32 || keys.type == dtype::int64;
    if (keys.type != dtype::int32 && keys.type != dtype::uint32 && keys.type != dtype::int64 && keys.type != dtype::uint64)
      throw_unsupported(function, "keys", keys.type, "int32, uint32, int64, uint64");
    if (values && itemsize(values->type) != itemsize(keys.type))
      throw_unsupported(function, "values", values->type, "any dtype of the keys' size (" +
                                                              std::to_string(itemsize(keys.type)) + " bytes)");
    if (bucket.kind == bucket_kind::splitters) {
      if (!bucket.splitters) throw error(error_kind::value, "sluice.multisplit: bucket 'splitters' needs splitters");
      require_type(*bucket.splitters, keys.type, function, "splitters");
    }
    const auto split = [&]<class W>(type_tag<W>) -> std::size_t {
      const W delta = is_signed ? static_cast<W>(scalar_as<std::make_signed_t<W>>(bucket.delta)) : scalar_as<W>(bucket.delta);
      if (bucket.kind == bucket_kind::delta && delta == W{0}) throw invalid_argument(function, "delta", "must not be zero");
      const chosen_bucket<W> bucket_of{bucket.kind,
                                       is_signed,
                                       delta,
                                       bucket.first_bit,
                                       bucket.bits,
                                       bucket.splitters ? static_cast<const W*>(bucket.splitters->data) : nullptr,
                                       bucket.splitters ? static_cast<std::uint32_t>(bucket.splitters->size) : 0u};
      if (c.on_host()) {
        const auto result =
            values ? host::multisplit_pairs(host_span<const W>(keys), host_span<const W>(*values), host_span<W>(out_keys),
                                            host_span<W>(*out_values), m, bucket_of)
                   : host::multisplit(host_span<const W>(keys), host_span<W>(out_keys), m, bucket_of);
        if (strict && result.dropped)
          throw invalid_argument(function, "keys", "has a key whose bucket is outside [0, m)");
        if (offsets.size != result.offsets.size()) throw invalid_argument(function, "bucket_offsets", "needs m + 1 entries");
        std::copy(result.offsets.begin(), result.offsets.end(), host_span<std::size_t>(offsets).begin());
        return result.dropped;
      }
      context& ctx = context_for(c);
      const multisplit_options options{.algorithm = algorithm, .strict = strict};
      const auto run = [&](std::size_t* dropped) {
        if (values)
          sluice::multisplit_pairs<W, W>(ctx, device_span<const W>(keys), device_span<const W>(*values),
                                         device_span<W>(out_keys), device_span<W>(*out_values), m, bucket_of,
                                         device_span<std::size_t>(offsets), dropped, options);
        else
          sluice::multisplit<W>(ctx, device_span<const W>(keys), device_span<W>(out_keys), m, bucket_of,
                                device_span<std::size_t>(offsets), dropped, options);
      };
      if (!count_dropped) {
        run(nullptr);
        return 0;
      }
      count_slot dropped(ctx);
      run(dropped.get());
      return dropped.read();
    };
    if (itemsize(keys.type) == 4) return split(type_tag<std::uint32_t>{});
    return split(type_tag<std::uint64_t>{});
  });
}

}  // namespace sluice::python
