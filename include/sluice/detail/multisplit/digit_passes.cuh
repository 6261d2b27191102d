// sluice/detail/multisplit/digit_passes.cuh: a direct strategy over any m, as passes over base-255
// digits of the bucket id, least significant first (plan.hpp says why this is stable and why it works
// for every bucket functor; it takes the place of the seed's super-buckets, §3.6.3).
//
// m ≤ 256 is one pass straight from keys to out_keys. Otherwise passes alternate between out_keys and
// one scratch copy (n keys, n values) so that the last one lands in out_keys; only the last pass drops.
// The bucket offsets of the whole ids then come from one more read of the output (bucket_starts_kernel),
// only when asked for. Traffic per pass: keys read twice (prescan, postscan), values read once, both
// written once.
#pragma once

#include <sluice/detail/multisplit/direct_pass.cuh>

#include <vector>

namespace sluice::detail::multisplit {

/// The label of output element i for bucket_starts_kernel: its whole bucket id, or m past the kept ones.
template <class K, class BucketOf>
struct output_label {
  const K* keys;
  const std::size_t* kept;
  pass_ids<BucketOf> ids;
  __device__ std::uint32_t operator()(std::size_t i) const { return i < *kept ? ids(keys[i]) : ids.m; }
};

template <class S, class K, class V, class BucketOf>
void run_digit_passes(context& ctx, const pass_io<K, V>& io, BucketOf bucket_of, std::uint32_t m, std::size_t* offsets,
                      std::size_t* dropped) {
  const std::vector<digit_pass> passes = digit_passes(m);
  if (passes.size() == 1) {
    run_direct_pass<S>(ctx, io, whole_ids(bucket_of, m), m, offsets, nullptr, dropped);
    return;
  }
  scratch<K> spare_keys(ctx, io.n);
  scratch<V> spare_values(ctx, has_values<V> ? io.n : 0);
  scratch<std::size_t> kept(ctx, 1);
  const std::size_t count = passes.size();
  const K* keys_from = io.keys_in;
  const V* values_from = io.values_in;
  for (std::size_t p = 0; p < count; ++p) {
    const bool last = p + 1 == count;
    const bool into_out = (count - 1 - p) % 2 == 0;
    K* keys_to = into_out ? io.keys_out : spare_keys.get();
    V* values_to = into_out ? io.values_out : spare_values.get();
    run_direct_pass<S>(ctx, pass_io<K, V>{keys_from, values_from, keys_to, values_to, io.n},
                       pass_ids<BucketOf>{bucket_of, m, passes[p]}, passes[p].buckets, nullptr,
                       last ? kept.get() : nullptr, last ? dropped : nullptr);
    keys_from = keys_to;
    values_from = values_to;
  }
  if (offsets)
    write_bucket_starts(ctx, output_label<K, BucketOf>{io.keys_out, kept.get(), whole_ids(bucket_of, m)}, io.n, m, 0,
                        offsets);
}

}  // namespace sluice::detail::multisplit
