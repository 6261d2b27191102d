// sluice/host/multisplit.hpp: stable multisplit on the CPU (Ashkiani §3.1, Eq. 3.1).
//
// Permutes the keys so that bucket 0's keys come first, then bucket 1's, and so on, each bucket in
// input order: element i of bucket j lands at offsets[j] + |{r < i : bucket_of(keys[r]) = j}|.
// bucket_of(key) returns an integer; a negative id or one ≥ m drops the key (counted, not written).
// Hence out receives n − dropped keys at its front; offsets has m + 1 entries, bucket j is
// out[offsets[j], offsets[j+1]). bucket_of must be pure: it is called twice per key (count, move).
//
//   auto r = sluice::host::multisplit<std::uint32_t>(keys, out, 4, [](std::uint32_t k) { return k % 4; });
//   // out[r.offsets[j] .. r.offsets[j+1]) holds the keys with k % 4 == j, in input order
//
// All cores: contiguous blocks count their keys per bucket, the counts are laid out bucket-major,
// block-minor (which keeps the order), and each block moves its keys (host/detail/bucket_plan.hpp).
// Traffic: keys read twice, written once (pairs: values read and written once more).
//
// Errors: m = 0 → invalid_argument("m"); out.size() != keys.size() → invalid_argument("out");
// values (pairs) → invalid_argument("values" / "values_out").
#pragma once

#include <sluice/core/error.hpp>
#include <sluice/host/detail/bucket_plan.hpp>
#include <sluice/host/detail/bucketed.hpp>

#include <concepts>
#include <cstddef>
#include <span>
#include <vector>

namespace sluice::host {

struct multisplit_result {
  std::vector<std::size_t> offsets;  ///< m + 1 entries
  std::size_t dropped = 0;
};

namespace detail {

/// Moves keys (and values, when given) from `from` to `to` in the plan's stable order.
template <class K, class V, class BucketOf>
void distribute(const bucket_plan& plan, const BucketOf& bucket_of, std::span<const K> keys_from, std::span<K> keys_to,
                std::span<const V> values_from, std::span<V> values_to) {
  plan.visit(bucket_of, [&](std::size_t i, std::size_t d) {
    keys_to[d] = keys_from[i];
    if (!values_to.empty()) values_to[d] = values_from[i];
  });
}

template <class K, class V, class BucketOf>
multisplit_result multisplit(const char* function, std::span<const K> keys, std::span<K> out, std::span<const V> values,
                             std::span<V> values_out, std::size_t m, const BucketOf& bucket_of) {
  if (m == 0) throw invalid_argument(function, "m", "must be at least 1");
  if (out.size() != keys.size()) throw invalid_argument(function, "out", "must have one element per key");
  const auto bucket = [&](std::size_t i) {
    const auto id = bucket_of(keys[i]);
    static_assert(std::integral<decltype(id)>, "bucket_of returns an integer bucket id");
    return label_bucket(id, m);
  };
  const bucket_plan plan(keys.size(), m, bucket);
  distribute(plan, bucket, keys, out, values, values_out);
  multisplit_result result;
  result.offsets.resize(m + 1);
  for (std::size_t k = 0; k < m; ++k) result.offsets[k] = plan.bucket_begin(k);
  result.offsets[m] = plan.kept();
  result.dropped = plan.dropped();
  return result;
}

}  // namespace detail

/// Stable multisplit of keys into m buckets; see the header comment.
template <class K, class BucketOf>
multisplit_result multisplit(std::span<const K> keys, std::span<K> out, std::size_t m, BucketOf bucket_of) {
  return detail::multisplit<K, K>("host::multisplit", keys, out, {}, {}, m, bucket_of);
}

/// Stable multisplit of (key, value) pairs by the keys' buckets.
template <class K, class V, class BucketOf>
multisplit_result multisplit_pairs(std::span<const K> keys, std::span<const V> values, std::span<K> keys_out,
                                   std::span<V> values_out, std::size_t m, BucketOf bucket_of) {
  if (values.size() != keys.size())
    throw invalid_argument("host::multisplit_pairs", "values", "must have one value per key");
  if (values_out.size() != keys.size())
    throw invalid_argument("host::multisplit_pairs", "values_out", "must have one element per key");
  return detail::multisplit<K, V>("host::multisplit_pairs", keys, keys_out, values, values_out, m, bucket_of);
}

}  // namespace sluice::host
