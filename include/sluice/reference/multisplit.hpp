// sluice/reference/multisplit.hpp: sequential oracle for multisplit (Ashkiani §3.1).
//
// multisplit(keys, m, bucket_of) permutes the keys so that bucket 0's keys come first, then bucket 1's,
// and so on, keeping input order inside each bucket (stable, as Ashkiani's implementations are). Element i
// of bucket j lands at offsets[j] + |{r < i : bucket_of(keys[r]) = j}| (Ashkiani Eq. 3.1).
//
// bucket_of(key) returns an integer bucket id (normally unsigned) and is called exactly once per key, in
// index order. An id ≥ m (or a negative one, if the functor returns a signed type) is the library's
// default "drop" policy: the key is left out of the output and counted in `dropped`. Hence
//   keys.size() = n − dropped, offsets has m + 1 entries, offsets[0] = 0, offsets[m] = n − dropped,
//   bucket j is keys[offsets[j], offsets[j+1]).
// m = 0 throws invalid_argument("m"); n = 0 gives empty keys and m + 1 zero offsets.
// multisplit_pairs moves values[i] along with keys[i]; values.size() != keys.size() throws
// invalid_argument("values").
#pragma once

#include <sluice/core/error.hpp>

#include <cstddef>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace sluice::reference {

template <class K>
struct multisplit_result {
  std::vector<K> keys;
  std::vector<std::size_t> offsets;  ///< m + 1 entries
  std::size_t dropped = 0;
};

template <class K, class V>
struct multisplit_pairs_result {
  std::vector<K> keys;
  std::vector<V> values;
  std::vector<std::size_t> offsets;  ///< m + 1 entries
  std::size_t dropped = 0;
};

namespace detail {

/// The destination of every element (nullopt = dropped) and the bucket offsets; the common part of
/// multisplit and multisplit_pairs.
struct multisplit_plan {
  std::vector<std::optional<std::size_t>> destination;
  std::vector<std::size_t> offsets;
  std::size_t dropped = 0;
};

template <class K, class BucketOf>
multisplit_plan plan_multisplit(std::span<const K> keys, std::size_t m, BucketOf bucket_of, const char* function) {
  if (m == 0) throw invalid_argument(function, "m", "must be at least 1");
  multisplit_plan plan;
  std::vector<std::optional<std::size_t>> bucket(keys.size());
  std::vector<std::size_t> counts(m, 0);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const auto id = bucket_of(keys[i]);
    if (std::cmp_less(id, 0) || std::cmp_greater_equal(id, m)) {
      ++plan.dropped;
      continue;
    }
    bucket[i] = static_cast<std::size_t>(id);
    ++counts[*bucket[i]];
  }
  plan.offsets.assign(m + 1, 0);
  for (std::size_t j = 0; j < m; ++j) plan.offsets[j + 1] = plan.offsets[j] + counts[j];
  std::vector<std::size_t> next(plan.offsets.begin(), plan.offsets.end() - 1);  // next free slot per bucket
  plan.destination.resize(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i)
    if (bucket[i]) plan.destination[i] = next[*bucket[i]]++;
  return plan;
}

template <class T>
std::vector<T> scatter_planned(std::span<const T> in, const multisplit_plan& plan) {
  std::vector<T> out(plan.offsets.back());
  for (std::size_t i = 0; i < in.size(); ++i)
    if (plan.destination[i]) out[*plan.destination[i]] = in[i];
  return out;
}

}  // namespace detail

template <class K, class BucketOf>
[[nodiscard]] multisplit_result<K> multisplit(std::span<const K> keys, std::size_t m, BucketOf bucket_of) {
  detail::multisplit_plan plan = detail::plan_multisplit(keys, m, bucket_of, "reference::multisplit");
  multisplit_result<K> result;
  result.keys = detail::scatter_planned(keys, plan);
  result.offsets = std::move(plan.offsets);
  result.dropped = plan.dropped;
  return result;
}

template <class K, class V, class BucketOf>
[[nodiscard]] multisplit_pairs_result<K, V> multisplit_pairs(std::span<const K> keys, std::span<const V> values,
                                                             std::size_t m, BucketOf bucket_of) {
  if (values.size() != keys.size())
    throw invalid_argument("reference::multisplit_pairs", "values", "must have one value per key");
  detail::multisplit_plan plan = detail::plan_multisplit(keys, m, bucket_of, "reference::multisplit_pairs");
  multisplit_pairs_result<K, V> result;
  result.keys = detail::scatter_planned(keys, plan);
  result.values = detail::scatter_planned(values, plan);
  result.offsets = std::move(plan.offsets);
  result.dropped = plan.dropped;
  return result;
}

}  // namespace sluice::reference
