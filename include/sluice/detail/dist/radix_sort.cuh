// sluice/detail/dist/radix_sort.cuh: the distributed radix sort (sluice/dist.cuh's dist::radix_sort and
// radix_sort_pairs): a sample sort whose splitting is a multisplit and whose local sort is the one-GPU
// radix sort (detail/radix_sort/dispatch.cuh's sort_arrays), as detail/dist/splitters.hpp describes.
//
// Steps (each a gather, so that a failure anywhere is an exception everywhere; steps.hpp):
//   header     the call's signature and each rank's n: mismatched types or options between ranks are an
//              invalid_argument on every rank before any data moves;
//   sample     samples_per_rank(P) words per rank (a kernel reading stratified positions), gathered;
//              every rank picks the same candidate words;
//   split      a stable multisplit of keys (and values) into the 2q' + 1 fine buckets (onesweep's
//              multisplit for m ≤ 511: keys read twice, keys and values written once), whose bucket
//              offsets are the gathered record; every rank computes the same cut_plan;
//   allocate   each rank's received share and its output (the step a rank short of memory fails);
//   exchange   one NCCL group: rank r sends its contiguous piece to each d (keys, then values);
//   local sort sort_arrays from the received pieces into the output: a stable LSD sort, so the source
//              order of equal keys (rank, then index) is kept: the global stable order.
// Memory per rank: the input, the split copy (n), the received share and the output (≈ N/P each), the
// local sort's temporary (≈ N/P): about five times the share, for keys and values alike.
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
#include <sluice/detail/multisplit/dispatch.cuh>
#include <sluice/detail/radix_sort/dispatch.cuh>
#include <sluice/options/dist.hpp>
#include <sluice/options/radix_sort.hpp>

#include <cuda/std/span>

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

/// One rank's part of the call.
template <class K, class V>
struct sort_rank {
  cuda::std::span<const K> keys;
  cuda::std::span<const V> values;
  device_buffer<K> split_keys;
  device_buffer<V> split_values;
  device_buffer<K> received_keys;
  device_buffer<V> received_values;
  device_buffer<K> out_keys;
  device_buffer<V> out_values;
};

enum sort_phase : int { sample_phase, split_phase, exchange_phase, local_sort_phase };

template <class K, class V>
sort_result<K, V> distributed_sort(world& w, const char* function, std::span<const cuda::std::span<const K>> keys,
                       std::span<const cuda::std::span<const V>> values, const sluice::dist::sort_options& options) {
  constexpr bool pairs = has_values<V>;
  constexpr std::size_t value_bytes = pairs ? sizeof(V) : 0;
  call c(w, function, options.report, {"sample", "split", "exchange", "local_sort"});
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
  const auto sort_locally = [&](std::size_t i, local_rank& l, const K* from_keys, const V* from_values, std::size_t n) {
    c.begin(i, local_sort_phase);
    ranks[i].out_keys = device_buffer<K>(*l.ctx, n);
    if constexpr (pairs) ranks[i].out_values = device_buffer<V>(*l.ctx, n);
    radix_sort::sort_arrays<K, V>(*l.ctx, from_keys, from_values, ranks[i].out_keys.data(),
                                  pairs ? ranks[i].out_values.data() : nullptr, n, options.local);
    c.end(i, local_sort_phase);
  };

  if (world_size == 1) {  // a world of one: the one-GPU sort
    c.run_local([&](std::size_t i, local_rank& l) {
      sort_locally(i, l, ranks[i].keys.data(), pairs ? ranks[i].values.data() : nullptr, ranks[i].keys.size());
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

  // sample: every rank's words at its stratified positions.
  const std::uint64_t per_rank = samples_per_rank(world_size);
  const gathered samples = c.gather(per_rank * sizeof(std::uint64_t), [&](std::size_t i, local_rank& l, unsigned char* payload) {
    c.begin(i, sample_phase);
    const std::uint64_t n = ranks[i].keys.size();
    const std::uint64_t taken = samples_taken(n, world_size);
    if (taken != 0) {
      constexpr int threads = 256;
      auto kernel = sample_kernel<K>;
      const std::size_t grid = one_wave_grid(*l.ctx, kernel, threads, ceil_div(taken, threads));
      kernel<<<static_cast<unsigned>(grid), threads, 0, l.ctx->stream()>>>(
          ranks[i].keys.data(), n, taken, sample_seed(l.rank), order, reinterpret_cast<std::uint64_t*>(payload));
      SLUICE_CHECK_LAUNCH();
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

  // split: the multisplit by fine bucket, its bucket offsets gathered.
  std::vector<device_buffer<std::uint64_t>> candidate_buffers(c.local_count());
  const gathered offsets = c.gather((m + 1) * sizeof(std::size_t), [&](std::size_t i, local_rank& l, unsigned char* payload) {
    c.begin(i, split_phase);
    sort_rank<K, V>& r = ranks[i];
    const std::size_t n = r.keys.size();
    candidate_buffers[i] = device_buffer<std::uint64_t>(*l.ctx, std::span<const std::uint64_t>(candidates));
    r.split_keys = device_buffer<K>(*l.ctx, n);
    if constexpr (pairs) r.split_values = device_buffer<V>(*l.ctx, n);
    const multisplit::pass_io<K, V> io{r.keys.data(), pairs ? r.values.data() : nullptr, r.split_keys.data(),
                                       pairs ? r.split_values.data() : nullptr, n};
    const fine_bucket<K> bucket{candidate_buffers[i].data(), static_cast<std::uint32_t>(candidates.size()), order};
    multisplit::run(*l.ctx, function, io, m, bucket,
                    cuda::std::span<std::size_t>(reinterpret_cast<std::size_t*>(payload), m + 1), nullptr,
                    multisplit_options{});
    c.end(i, split_phase);
  });
  std::vector<std::vector<std::uint64_t>> counts(static_cast<std::size_t>(world_size));
  for (int r = 0; r < world_size; ++r) {
    const auto starts = offsets.read_array<std::uint64_t>(r, 0, m + 1);
    for (std::uint32_t b = 0; b < m; ++b) counts[static_cast<std::size_t>(r)].push_back(starts[b + 1] - starts[b]);
  }
  const cut_plan plan(std::move(counts));

  // allocate: each rank's received share (the output comes with the local sort).
  c.run_local([&](std::size_t i, local_rank& l) {
    ranks[i].received_keys = device_buffer<K>(*l.ctx, plan.share(l.rank));
    if constexpr (pairs) ranks[i].received_values = device_buffer<V>(*l.ctx, plan.share(l.rank));
  });
  c.vote();

  // exchange: rank r's piece for d is [send_offset(r, d), + piece(r, d)) of its split output.
  for (std::size_t i = 0; i < c.local_count(); ++i) c.begin(i, exchange_phase);
  c.exchange("exchange of the sort's pieces", [&](std::size_t i, local_rank& l, int peer) {
    sort_rank<K, V>& r = ranks[i];
    std::array<piece, 2> moved{};
    moved[0] = routed_piece(plan, l.rank, peer, r.split_keys.data(), r.received_keys.data());
    if constexpr (pairs) moved[1] = routed_piece(plan, l.rank, peer, r.split_values.data(), r.received_values.data());
    return moved;
  });
  for (std::size_t i = 0; i < c.local_count(); ++i) c.end(i, exchange_phase);

  // local sort: stable, from the received pieces (in source-rank order) into the output.
  c.run_local([&](std::size_t i, local_rank& l) {
    sort_rank<K, V>& r = ranks[i];
    r.split_keys = device_buffer<K>();
    r.split_values = device_buffer<V>();
    sort_locally(i, l, r.received_keys.data(), pairs ? r.received_values.data() : nullptr, r.received_keys.size());
  });
  std::vector<std::uint64_t> shares;
  for (int d = 0; d < world_size; ++d) shares.push_back(plan.share(d));
  return finish(shares);
}

}  // namespace sluice::detail::dist
