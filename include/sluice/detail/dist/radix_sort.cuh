// sluice/detail/dist/radix_sort.cuh: the distributed radix sort (sluice/dist.cuh's dist::radix_sort and
// radix_sort_pairs): a sample sort that sorts locally first, cuts the sorted keys by binary searches and
// merges what it receives, as detail/dist/splitters.hpp describes; the local sort is the one-GPU radix
// sort (detail/radix_sort/dispatch.cuh's sort_arrays), the merge the pairwise merge (merge_sort.cuh).
//
// Steps (each a gather, so that a failure anywhere is an exception everywhere; steps.hpp):
//   header     the call's signature and each rank's n: mismatched types or options between ranks are an
//              invalid_argument on every rank before any data moves;
//   sample     samples_per_rank(P) words per rank (a kernel reading stratified positions), gathered;
//              every rank picks the same candidate words;
//   local sort sort_arrays of keys (and values), then the 2q' + 2 fine bucket starts of the sorted keys
//              (one binary search each), which are the gathered record; every rank computes the same
//              cut_plan;
//   allocate   each rank's received share and its output (the step a rank short of memory fails);
//   exchange   one NCCL group: rank r sends its contiguous piece of the sorted keys to each other d (keys,
//              then values); its own piece stays in the sorted keys;
//   merge      one sorted run per source rank, in rank order, merged stably in pairwise rounds (ties: the
//              lower source rank): the global stable order. Values wider than the merge moves are sorted
//              again instead (sort_arrays is stable, so the result is the same).
// Memory per rank: the input, its sorted copy (n), the received share and the output (≈ N/P each); the
// local sort's temporary (≈ n) is freed before the share is allocated, and more than two runs to merge
// take a spare share: about four to five times the share, for keys and values alike.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/device_buffer.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/core/memory.hpp>
#include <sluice/core/radix_key.hpp>
#include <sluice/core/values.hpp>
#include <sluice/detail/dist/records.hpp>
#include <sluice/detail/dist/splitters.hpp>
#include <sluice/detail/dist/steps.hpp>
#include <sluice/detail/dist/tuning.hpp>
#include <sluice/detail/dist/world.hpp>
#include <sluice/detail/merge_sort/dispatch.cuh>
#include <sluice/detail/radix_sort/dispatch.cuh>
#include <sluice/options/dist.hpp>
#include <sluice/options/radix_sort.hpp>

#include <cuda/std/span>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sluice::detail::dist {

/// A sort's result on this process: one output per local rank, and the global offsets of every rank's.
template <class K, class V>
struct sort_result {
  std::vector<device_buffer<K>> keys;
  std::vector<device_buffer<V>> values;  ///< empty for keys alone
  std::vector<std::uint64_t> offsets;    ///< P + 1
};

/// Names of the sort signature's parameters.
inline constexpr std::string_view sort_parameter_names[] = {"options.begin_bit", "options.end_bit",
                                                            "options.descending", "options.algorithm",
                                                            "options.bits_per_pass", "options.pass_algorithm",
                                                            "options.splitter_words"};

template <class K, class V>
call_signature sort_signature(const char* function, const sluice::dist::sort_options& options) {
  call_signature s;
  s.operation = tag(function);
  s.first = type_tag<K>();
  s.second = type_tag<V>();
  s.op = tag("none");
  const radix_sort_options& o = options.local;
  const std::uint64_t parameters[] = {static_cast<std::uint64_t>(o.begin_bit), static_cast<std::uint64_t>(o.end_bit),
                                      o.descending ? 1u : 0u, static_cast<std::uint64_t>(o.algorithm),
                                      static_cast<std::uint64_t>(o.bits_per_pass),
                                      static_cast<std::uint64_t>(o.pass_algorithm), options.splitter_words};
  std::copy(std::begin(parameters), std::end(parameters), s.parameters);
  return s;
}

/// The order of the sort's options: key_order over bits [begin_bit, end_bit) (−1: every bit).
template <class K>
key_order<K> order_of(const radix_sort_options& o) {
  const int end = o.end_bit == -1 ? key_bits<K> : o.end_bit;
  return {o.begin_bit, end - o.begin_bit, o.descending};
}

template <class K>
__global__ void sample_kernel(const K* __restrict__ keys, std::uint64_t n, std::uint64_t taken, std::uint64_t seed,
                              key_order<K> order, std::uint64_t* __restrict__ words) {
  for (std::uint64_t k = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; k < taken;
       k += std::uint64_t{gridDim.x} * blockDim.x)
    words[k] = order(keys[sample_position(n, taken, k, seed)]);
}

/// The seed of rank r's sample positions: fixed, so that the same input gives the same shares every run.
constexpr std::uint64_t sample_seed(int rank) { return 0x5eed5a3b1e5ull + static_cast<std::uint64_t>(rank); }

/// starts[b], b ∈ [0, m]: where fine bucket b begins in the n keys sorted by the order.
template <class K>
__global__ void bucket_starts_kernel(const K* __restrict__ sorted, std::uint64_t n,
                                     const std::uint64_t* __restrict__ candidates, std::uint32_t count,
                                     key_order<K> order, std::uint64_t* __restrict__ starts) {
  const std::uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b > fine_bucket_count(count)) return;
  starts[b] = fine_bucket_start(b, candidates, count, n, [&](std::uint64_t p) { return order(sorted[p]); });
}

/// The merge's comparison: by the sort's order words, so that it agrees with the radix sort bit for bit
/// (floats by their order-preserving words, only the sorted bits, descending).
template <class K>
struct order_less {
  key_order<K> order;
  SLUICE_HOST_DEVICE bool operator()(const K& a, const K& b) const { return order(a) < order(b); }
};

/// Keys and their values (null for keys alone) as one rank holds them.
template <class K, class V>
struct pair_arrays {
  K* keys;
  V* values;
  [[nodiscard]] pair_arrays at(std::uint64_t offset) const { return {keys + offset, values ? values + offset : nullptr}; }
};

/// Copies n pairs from `from` to `to` on the context's stream.
template <class K, class V>
void copy_pairs(context& ctx, pair_arrays<K, V> from, pair_arrays<K, V> to, std::uint64_t n) {
  if (n == 0) return;
  SLUICE_CUDA_CHECK(cudaMemcpyAsync(to.keys, from.keys, n * sizeof(K), cudaMemcpyDeviceToDevice, ctx.stream()));
  if constexpr (has_values<V>)
    SLUICE_CUDA_CHECK(cudaMemcpyAsync(to.values, from.values, n * sizeof(V), cudaMemcpyDeviceToDevice, ctx.stream()));
}

/// A sorted run of pairs: where it is and how long.
template <class K, class V>
struct sorted_run {
  pair_arrays<K, V> at;
  std::uint64_t size;
};

/// The stable merge of the sorted runs a and b (ties: a's first) into `to`.
template <class K, class V>
void merge_two(context& ctx, const char* function, sorted_run<K, V> a, sorted_run<K, V> b, pair_arrays<K, V> to,
               key_order<K> order) {
  using values_span = cuda::std::span<const V>;
  const auto values = [](const sorted_run<K, V>& run) {
    if constexpr (has_values<V>) return values_span(run.at.values, run.size);
    else return values_span{};
  };
  const std::uint64_t n = a.size + b.size;
  cuda::std::span<V> out_values{};
  if constexpr (has_values<V>) out_values = cuda::std::span<V>(to.values, n);
  merge_sort::merge<K, V>(ctx, function, cuda::std::span<const K>(a.at.keys, a.size), values(a),
                          cuda::std::span<const K>(b.at.keys, b.size), values(b), cuda::std::span<K>(to.keys, n),
                          out_values, order_less<K>{order});
}

/// Merges the sorted runs, in their order, into `out` stably (ties: the earlier run) by rounds of pairwise
/// merges, each halving the runs; rounds alternate between `out` and a spare so that the last writes `out`.
template <class K, class V>
void merge_runs(context& ctx, const char* function, std::vector<sorted_run<K, V>> runs, pair_arrays<K, V> out,
                key_order<K> order) {
  std::erase_if(runs, [](const sorted_run<K, V>& run) { return run.size == 0; });
  std::uint64_t n = 0;
  for (const auto& run : runs) n += run.size;
  int rounds = 0;
  for (std::size_t count = runs.size(); count > 1; count = (count + 1) / 2) ++rounds;
  if (runs.size() == 1) return copy_pairs(ctx, runs[0].at, out, n);
  device_buffer<K> spare_keys;
  device_buffer<V> spare_values;
  if (rounds > 1) {
    spare_keys = device_buffer<K>(ctx, n);
    if constexpr (has_values<V>) spare_values = device_buffer<V>(ctx, n);
  }
  const pair_arrays<K, V> spare{spare_keys.data(), has_values<V> ? spare_values.data() : nullptr};
  for (int round = 0; round < rounds; ++round) {
    const pair_arrays<K, V> to = (rounds - round) % 2 == 1 ? out : spare;
    std::vector<sorted_run<K, V>> merged;
    std::uint64_t offset = 0;
    for (std::size_t run = 0; run < runs.size(); run += 2) {
      const sorted_run<K, V>& a = runs[run];
      if (run + 1 == runs.size()) copy_pairs(ctx, a.at, to.at(offset), a.size);
      else merge_two(ctx, function, a, runs[run + 1], to.at(offset), order);
      const std::uint64_t size = a.size + (run + 1 < runs.size() ? runs[run + 1].size : 0);
      merged.push_back({to.at(offset), size});
      offset += size;
    }
    runs = std::move(merged);
  }
}

/// A buffer of `size` elements among buffers of about n: allocated with the tuning's slack and truncated,
/// so that the pool's blocks fit one another from call to call (tuning.hpp, pool_slack_divisor).
template <class T>
device_buffer<T> pooled_buffer(context& ctx, std::uint64_t n, std::uint64_t size) {
  const std::uint64_t larger = std::max(n, size);
  device_buffer<T> buffer(ctx, larger + larger / tuning::pool_slack_divisor + tuning::pool_slack_bytes / sizeof(T));
  buffer.truncate(size);
  return buffer;
}

/// One rank's part of the call.
template <class K, class V>
struct sort_rank {
  cuda::std::span<const K> keys;
  cuda::std::span<const V> values;
  device_buffer<K> sorted_keys;
  device_buffer<V> sorted_values;
  device_buffer<K> received_keys;
  device_buffer<V> received_values;
  device_buffer<K> out_keys;
  device_buffer<V> out_values;
};

enum sort_phase : int { sample_phase, local_sort_phase, exchange_phase, merge_phase };

template <class K, class V>
sort_result<K, V> distributed_sort(world& w, const char* function, std::span<const cuda::std::span<const K>> keys,
                       std::span<const cuda::std::span<const V>> values, const sluice::dist::sort_options& options) {
  constexpr bool pairs = has_values<V>;
  constexpr std::size_t value_bytes = pairs ? sizeof(V) : 0;
  call c(w, function, options.report, {"sample", "local_sort", "exchange", "merge"});
  const int world_size = c.world_size();
  std::vector<sort_rank<K, V>> ranks(c.local_count());

  // header: the arguments checked on each rank, the signatures and sizes gathered.
  const call_signature signature = sort_signature<K, V>(function, options);
  const gathered headers = c.gather(sizeof(call_record), [&](std::size_t i, local_rank& l, unsigned char* payload) {
    if (i >= keys.size() || (pairs && i >= values.size()))
      throw invalid_argument(function, "keys", "has fewer parts than the communicator has ranks in this process");
    const radix_sort_algorithm algorithm = radix_sort::resolve(options.local, value_bytes);
    (void)radix_sort::checked_plan<K>(function, algorithm, options.local, value_bytes);
    if (options.splitter_words > max_candidates)
      throw invalid_argument(function, "options.splitter_words",
                             "is " + std::to_string(options.splitter_words) + ": at most 255 (0: the default)");
    require_device_memory(*l.ctx, keys[i], function, "keys");
    ranks[i].keys = keys[i];
    if constexpr (pairs) {
      require_device_memory(*l.ctx, values[i], function, "values");
      if (values[i].size() != keys[i].size())
        throw invalid_argument(function, "values", "must have one value per key on every rank");
      ranks[i].values = values[i];
    }
    const call_record record{signature, keys[i].size(), ~0ull};
    SLUICE_CUDA_CHECK(cudaMemcpyAsync(payload, &record, sizeof(record), cudaMemcpyHostToDevice, l.ctx->stream()));
  });
  std::vector<call_record> records;
  for (int r = 0; r < world_size; ++r) records.push_back(headers.read<call_record>(r));
  require_same_signatures(function, records, "keys", sort_parameter_names);
  std::uint64_t total = 0;
  for (const call_record& r : records) total += r.n;

  sort_result<K, V> result;
  const key_order<K> order = order_of<K>(options.local);
  const auto finish = [&](const std::vector<std::uint64_t>& shares) {
    (void)c.finish([](std::size_t) -> const std::uint64_t* { return nullptr; });
    result.offsets.assign(1, 0);
    for (std::uint64_t s : shares) result.offsets.push_back(result.offsets.back() + s);
    for (auto& r : ranks) {
      result.keys.push_back(std::move(r.out_keys));
      if constexpr (pairs) result.values.push_back(std::move(r.out_values));
    }
    return std::move(result);
  };
  // Sorts the rank's input into `keys_to` and `values_to`, allocated here.
  const auto sort_input = [&](std::size_t i, local_rank& l, device_buffer<K>& keys_to, device_buffer<V>& values_to) {
    const sort_rank<K, V>& r = ranks[i];
    const std::size_t n = r.keys.size();
    keys_to = device_buffer<K>(*l.ctx, n);
    if constexpr (pairs) values_to = device_buffer<V>(*l.ctx, n);
    radix_sort::sort_arrays<K, V>(*l.ctx, r.keys.data(), pairs ? r.values.data() : nullptr, keys_to.data(),
                                  pairs ? values_to.data() : nullptr, n, options.local);
  };

  if (world_size == 1) {  // a world of one: the one-GPU sort
    c.run_local([&](std::size_t i, local_rank& l) {
      c.begin(i, local_sort_phase);
      sort_input(i, l, ranks[i].out_keys, ranks[i].out_values);
      c.end(i, local_sort_phase);
    });
    return finish({total});
  }
  if (total == 0) {
    c.run_local([&](std::size_t i, local_rank& l) {
      ranks[i].out_keys = device_buffer<K>(*l.ctx, 0);
      if constexpr (pairs) ranks[i].out_values = device_buffer<V>(*l.ctx, 0);
    });
    return finish(std::vector<std::uint64_t>(static_cast<std::size_t>(world_size), 0));
  }

  // sample: every rank's words at its stratified positions, sorted (the host merges them).
  const std::uint64_t per_rank = samples_per_rank(world_size);
  radix_sort_options word_order;
  word_order.end_bit = order.bits;
  const gathered samples = c.gather(per_rank * sizeof(std::uint64_t), [&](std::size_t i, local_rank& l, unsigned char* payload) {
    c.begin(i, sample_phase);
    const std::uint64_t n = ranks[i].keys.size();
    const std::uint64_t taken = samples_taken(n, world_size);
    if (taken != 0) {
      device_buffer<std::uint64_t> words(*l.ctx, taken);
      constexpr int threads = 256;
      auto kernel = sample_kernel<K>;
      const std::size_t grid = one_wave_grid(*l.ctx, kernel, threads, ceil_div(taken, threads));
      kernel<<<static_cast<unsigned>(grid), threads, 0, l.ctx->stream()>>>(ranks[i].keys.data(), n, taken,
                                                                         sample_seed(l.rank), order, words.data());
      SLUICE_CHECK_LAUNCH();
      radix_sort::sort_arrays<std::uint64_t, no_values>(*l.ctx, words.data(), nullptr,
                                                        reinterpret_cast<std::uint64_t*>(payload), nullptr, taken,
                                                        word_order);
    }
    c.end(i, sample_phase);
  });
  std::vector<std::vector<std::uint64_t>> words(static_cast<std::size_t>(world_size));
  std::vector<rank_sample> gathered_samples;
  for (int r = 0; r < world_size; ++r) {
    const std::uint64_t n = records[static_cast<std::size_t>(r)].n;
    words[static_cast<std::size_t>(r)] = samples.read_array<std::uint64_t>(r, 0, samples_taken(n, world_size));
    gathered_samples.push_back({n, words[static_cast<std::size_t>(r)]});
  }
  const unsigned q = options.splitter_words != 0 ? options.splitter_words : tuning::default_candidates;
  const std::vector<std::uint64_t> candidates = candidate_words(gathered_samples, q);
  const std::uint32_t m = fine_bucket_count(candidates.size());

  // local sort: each rank's keys sorted, the fine buckets' starts in them gathered.
  std::vector<device_buffer<std::uint64_t>> candidate_buffers(c.local_count());
  const auto count = static_cast<std::uint32_t>(candidates.size());
  const gathered starts = c.gather((m + 1) * sizeof(std::uint64_t), [&](std::size_t i, local_rank& l, unsigned char* payload) {
    c.begin(i, local_sort_phase);
    sort_rank<K, V>& r = ranks[i];
    sort_input(i, l, r.sorted_keys, r.sorted_values);
    candidate_buffers[i] = device_buffer<std::uint64_t>(*l.ctx, std::span<const std::uint64_t>(candidates));
    constexpr int threads = 256;
    bucket_starts_kernel<K><<<static_cast<unsigned>(ceil_div(m + 1, threads)), threads, 0, l.ctx->stream()>>>(
        r.sorted_keys.data(), r.keys.size(), candidate_buffers[i].data(), count, order, reinterpret_cast<std::uint64_t*>(payload));
    SLUICE_CHECK_LAUNCH();
    c.end(i, local_sort_phase);
  });
  std::vector<std::vector<std::uint64_t>> counts(static_cast<std::size_t>(world_size));
  for (int r = 0; r < world_size; ++r) {
    const auto bucket_starts = starts.read_array<std::uint64_t>(r, 0, m + 1);
    for (std::uint32_t b = 0; b < m; ++b) counts[static_cast<std::size_t>(r)].push_back(bucket_starts[b + 1] - bucket_starts[b]);
  }
  const cut_plan plan(std::move(counts));

  // allocate: each rank's received share and its output.
  c.run_local([&](std::size_t i, local_rank& l) {
    const std::uint64_t n = ranks[i].keys.size(), share = plan.share(l.rank);
    ranks[i].received_keys = pooled_buffer<K>(*l.ctx, n, share);
    ranks[i].out_keys = pooled_buffer<K>(*l.ctx, n, share);
    if constexpr (pairs) {
      ranks[i].received_values = pooled_buffer<V>(*l.ctx, n, share);
      ranks[i].out_values = pooled_buffer<V>(*l.ctx, n, share);
    }
  });
  c.vote();

  // exchange: rank r's piece for d is [send_offset(r, d), + piece(r, d)) of its sorted keys; its own
  // piece stays where it is, the merge reads it there.
  for (std::size_t i = 0; i < c.local_count(); ++i) c.begin(i, exchange_phase);
  c.exchange("exchange of the sort's pieces", [&](std::size_t i, local_rank& l, int peer) {
    sort_rank<K, V>& r = ranks[i];
    std::array<piece, 2> moved{};
    if (peer == l.rank) return moved;
    moved[0] = routed_piece(plan, l.rank, peer, r.sorted_keys.data(), r.received_keys.data());
    if constexpr (pairs) moved[1] = routed_piece(plan, l.rank, peer, r.sorted_values.data(), r.received_values.data());
    return moved;
  });
  for (std::size_t i = 0; i < c.local_count(); ++i) c.end(i, exchange_phase);

  // merge: one sorted run per source rank, in rank order (the own one still in the sorted keys), into
  // the output.
  c.run_local([&](std::size_t i, local_rank& l) {
    sort_rank<K, V>& r = ranks[i];
    c.begin(i, merge_phase);
    const pair_arrays<K, V> received{r.received_keys.data(), pairs ? r.received_values.data() : nullptr};
    const pair_arrays<K, V> sorted{r.sorted_keys.data(), pairs ? r.sorted_values.data() : nullptr};
    const pair_arrays<K, V> out{r.out_keys.data(), pairs ? r.out_values.data() : nullptr};
    std::vector<sorted_run<K, V>> runs;
    for (int source = 0; source < world_size; ++source) {
      const std::uint64_t size = plan.piece(source, l.rank);
      runs.push_back(source == l.rank ? sorted_run<K, V>{sorted.at(plan.send_offset(l.rank, l.rank)), size}
                                      : sorted_run<K, V>{received.at(plan.receive_offset(source, l.rank)), size});
    }
    if constexpr (pairs && sizeof(V) > merge_sort::max_value_bytes) {
      const sorted_run<K, V>& own = runs[static_cast<std::size_t>(l.rank)];
      copy_pairs(*l.ctx, own.at, received.at(plan.receive_offset(l.rank, l.rank)), own.size);
      radix_sort::sort_arrays<K, V>(*l.ctx, received.keys, received.values, out.keys, out.values,
                                    r.received_keys.size(), options.local);
    } else {
      merge_runs<K, V>(*l.ctx, function, std::move(runs), out, order);
    }
    r.sorted_keys = device_buffer<K>();
    r.sorted_values = device_buffer<V>();
    c.end(i, merge_phase);
  });
  std::vector<std::uint64_t> shares;
  for (int d = 0; d < world_size; ++d) shares.push_back(plan.share(d));
  return finish(shares);
}

}  // namespace sluice::detail::dist
