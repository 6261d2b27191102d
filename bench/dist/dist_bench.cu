// sluice_dist_bench: scaling of the distributed sort, multireduce and hash table, in one process driving
// worlds of 1, 2, 4, … up to the first --gpus visible GPUs (default: all), every figure measured in the
// same run:
//   alltoall     NCCL's own all-to-all (one group of ncclSend/ncclRecv, equal pieces) at each size the
//                sort exchanges: the reference for the exchange phase (target: exchange ≥ 80% of it);
//   sort         u32 keys, uniform; weak scaling at 2^28 and 2^29 keys per GPU, strong scaling at 2^30
//                keys in all (--quick: 2^24, 2^25 and 2^25); rows: the one-GPU sluice::radix_sort (the
//                baseline), dist::radix_sort on each world;
//   pairs        the same for (u32, u32) pairs;
//   multireduce  u32 labels uniform over m = 4096 and 2^24 buckets, u32 values, plus: the one-GPU
//                sluice::multireduce, then each way (automatic, collective, owner_partition) on each
//                world of 2 GPUs or more;
//   hash         distinct u32 keys with u32 values, weak (2^26, 2^27 a GPU) and strong (2^27 in all; one
//                slab hash's 32-bit slab addresses cap its pool below 2^28 pairs; --quick: 2^22, 2^23):
//                build (the inserts into a table made for them) and find of every key, the one-GPU
//                sluice::slab_hash beside dist::slab_hash on each world.
// Each row: the median wall time over the repetitions (a distributed call is synchronous), the slowest
// rank's GPU time in each phase (dist::timings: the split into local work and exchange), weak scaling
// efficiency (one-GPU time / N-GPU time at the same size per GPU) or strong speedup (one-GPU time at the
// total size / N-GPU time), and for the exchange its ratio to NCCL's all-to-all at the same bytes per rank.
// Every result is verified: sorts by sortedness, the multiset of keys (an order-independent hash of the
// input and output) and, for pairs, every value naming an input element with its key and equal keys
// keeping input order; multireduce against the sequential oracle; the hash table by its size and every
// key's value found. A row that fails says so.
// The command line, the table and the JSON: dist_bench_main.cpp.
#include <sluice/core/context.hpp>
#include <sluice/core/device_buffer.hpp>
#include <sluice/core/operators.hpp>
#include <sluice/containers/slab_hash.cuh>
#include <sluice/data/generate.cuh>
#include <sluice/dist.cuh>
#include <sluice/multireduce.cuh>
#include <sluice/radix_sort.cuh>
#include <sluice/reference/multireduce.hpp>

#include "dist/dist_bench.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace sluice::dist_bench {
namespace {

namespace dist = sluice::dist;
using clock_type = std::chrono::steady_clock;

struct timing {
  double median = 0, min = 0, max = 0;
};

/// The median of `repetitions` timed runs after `warmup` untimed ones; setup() before each, untimed.
timing time_runs(int warmup, int repetitions, const std::function<void()>& run,
                 const std::function<void()>& setup = [] {}) {
  for (int i = 0; i < warmup; ++i) {
    setup();
    run();
  }
  std::vector<double> ms;
  for (int i = 0; i < repetitions; ++i) {
    setup();
    const auto start = clock_type::now();
    run();
    ms.push_back(std::chrono::duration<double, std::milli>(clock_type::now() - start).count());
  }
  std::sort(ms.begin(), ms.end());
  return {ms[ms.size() / 2], ms.front(), ms.back()};
}

row make_row(std::string bench, std::string implementation, int gpus, std::uint64_t per_gpu, std::uint64_t total,
             const timing& t) {
  row r;
  r.bench = std::move(bench);
  r.implementation = std::move(implementation);
  r.gpus = gpus;
  r.per_gpu = per_gpu;
  r.total = total;
  r.median_ms = t.median;
  r.min_ms = t.min;
  r.max_ms = t.max;
  return r;
}

/// An order-independent hash of a multiset of keys.
template <class K>
std::uint64_t multiset_hash(const std::vector<K>& keys) {
  std::uint64_t sum = 0;
  for (K k : keys) sum += sluice::data::mix64(static_cast<std::uint64_t>(k) + 0x9e37);
  return sum;
}

std::vector<int> first_devices(int n) {
  std::vector<int> devices;
  for (int d = 0; d < n; ++d) devices.push_back(d);
  return devices;
}

struct session {
  bool quick = false;
  int repetitions = 5;
  int warmup = 2;
  std::vector<row> rows;
  std::vector<std::unique_ptr<dist::communicator>> worlds;  ///< worlds of 1, 2, 4, … and of all GPUs

  [[nodiscard]] dist::communicator& one() { return *worlds.front(); }
};

/// How many items each GPU of a world holds: the same on every world (weak scaling) or a fixed total
/// shared out (strong scaling).
struct sizing {
  std::uint64_t n = 0;
  bool strong = false;
  [[nodiscard]] std::uint64_t per_gpu(int gpus) const { return strong ? n / static_cast<std::uint64_t>(gpus) : n; }
};

/// Per-rank buffers of n keys (and values) generated on each rank's device; seeds differ by rank.
template <class T>
std::vector<sluice::device_buffer<T>> generate(dist::communicator& comm, std::uint64_t n,
                                               const sluice::data::distribution_spec& spec) {
  std::vector<sluice::device_buffer<T>> parts;
  for (std::size_t i = 0; i < comm.local_count(); ++i) {
    parts.emplace_back(comm.ctx(i), n);
    sluice::data::distribution_spec mine = spec;
    mine.seed += static_cast<std::uint64_t>(comm.rank(i)) * 7919;
    sluice::data::generate(comm.ctx(i), parts.back().span(), mine);
  }
  for (std::size_t i = 0; i < comm.local_count(); ++i) comm.ctx(i).synchronize();
  return parts;
}

template <class T>
dist::distributed_span<const T> view(const std::vector<sluice::device_buffer<T>>& parts) {
  std::vector<cuda::std::span<const T>> views;
  for (const auto& p : parts) views.push_back(p.span());
  return dist::distributed_span<const T>(std::move(views));
}

template <class T>
std::vector<T> to_host(const std::vector<sluice::device_buffer<T>>& parts) {
  std::vector<T> all;
  for (const auto& p : parts) {
    const auto mine = p.to_host();
    all.insert(all.end(), mine.begin(), mine.end());
  }
  return all;
}

template <class T>
std::vector<T> to_host(const dist::distributed_buffer<T>& buffer) {
  std::vector<T> all;
  for (std::size_t i = 0; i < buffer.local_count(); ++i) {
    const auto mine = buffer.part(i).to_host();
    all.insert(all.end(), mine.begin(), mine.end());
  }
  return all;
}

/// NCCL's all-to-all of `bytes` per rank in equal pieces on `comm`, timed as the sort's exchange is (wall
/// time of the group and the wait); the median time.
double alltoall_ms(session& s, dist::communicator& comm, std::uint64_t bytes) {
  auto& world = comm.world();
  const int p = comm.world_size();
  const std::uint64_t piece = bytes / static_cast<std::uint64_t>(p);
  std::vector<sluice::device_buffer<unsigned char>> send, receive;
  for (std::size_t i = 0; i < comm.local_count(); ++i) {
    send.emplace_back(comm.ctx(i), piece * p);
    receive.emplace_back(comm.ctx(i), piece * p);
    send.back().fill_bytes(1);
  }
  const timing t = time_runs(s.warmup, s.repetitions, [&] {
    world.group("alltoall", [&](std::size_t i, sluice::detail::dist::local_rank& l) {
      for (int peer = 0; peer < p; ++peer) {
        const std::uint64_t at = piece * static_cast<std::uint64_t>(peer);
        if (peer == l.rank) {
          SLUICE_CUDA_CHECK(cudaMemcpyAsync(receive[i].data() + at, send[i].data() + at, piece,
                                            cudaMemcpyDeviceToDevice, l.ctx->stream()));
          continue;
        }
        world.check(ncclSend(send[i].data() + at, piece, ncclUint8, peer, l.comm, l.ctx->stream()), l, "ncclSend");
        world.check(ncclRecv(receive[i].data() + at, piece, ncclUint8, peer, l.comm, l.ctx->stream()), l, "ncclRecv");
      }
    });
    world.wait("alltoall");
  });
  row r = make_row("alltoall", "NCCL send/recv group", p, bytes, bytes * static_cast<std::uint64_t>(p), t);
  r.verified = true;  // a transport measurement: nothing to verify
  s.rows.push_back(r);
  return t.median;
}

/// Fills a row's phases from a report and the exchange's ratio to NCCL's all-to-all.
void add_phases(row& r, const dist::timings& report, double nccl_ms) {
  r.phases = report.phases;
  for (const std::string& p : report.phases) r.phase_ms.push_back(report.slowest(p));
  const double exchange = report.slowest("exchange");
  if (exchange > 0 && nccl_ms > 0) r.exchange_vs_nccl = nccl_ms / exchange;
}

/// One sort case: the one-GPU sort of `size.n` keys, then the distributed sort on each world with
/// size.per_gpu(world) keys a GPU. `scaling` of a world's row is one-GPU time / its time.
template <class V>
void sort_case(session& s, const std::string& name, sizing size) {
  constexpr bool pairs = !std::is_same_v<V, sluice::detail::no_values>;
  const sluice::data::distribution_spec spec{sluice::data::distribution::uniform, 0, 0.0, 31};
  const std::uint64_t one_gpu_n = size.n;
  double one_gpu_ms = 0;
  {  // the baseline: sluice::radix_sort on GPU 0
    sluice::context& ctx = s.one().ctx();
    sluice::device_buffer<std::uint32_t> keys(ctx, one_gpu_n), out(ctx, one_gpu_n);
    sluice::data::generate(ctx, keys.span(), spec);
    sluice::device_buffer<std::uint32_t> values(ctx, pairs ? one_gpu_n : 0), out_values(ctx, pairs ? one_gpu_n : 0);
    if (pairs) sluice::data::generate(ctx, values.span(), spec);
    const timing t = time_runs(s.warmup, s.repetitions, [&] {
      if constexpr (pairs) sluice::radix_sort_pairs(ctx, keys.span(), values.span(), out.span(), out_values.span());
      else sluice::radix_sort(ctx, keys.span(), out.span());
      ctx.synchronize();
    });
    const auto sorted = out.to_host();
    row r = make_row(name, "sluice::radix_sort (one GPU)", 1, one_gpu_n, one_gpu_n, t);
    r.verified = std::is_sorted(sorted.begin(), sorted.end()) && multiset_hash(sorted) == multiset_hash(keys.to_host());
    s.rows.push_back(r);
    one_gpu_ms = t.median;
  }
  for (auto& world : s.worlds) {
    dist::communicator& comm = *world;
    const std::uint64_t per_gpu = size.per_gpu(comm.world_size());
    const std::uint64_t bytes = per_gpu * (sizeof(std::uint32_t) + (pairs ? sizeof(V) : 0));
    const double nccl_ms = comm.world_size() > 1 ? alltoall_ms(s, comm, bytes) : 0;
    const auto keys = generate<std::uint32_t>(comm, per_gpu, spec);
    std::vector<sluice::device_buffer<std::uint32_t>> values;  // their global index, for the checks
    if constexpr (pairs) {
      for (std::size_t i = 0; i < comm.local_count(); ++i) {
        std::vector<std::uint32_t> index(per_gpu);
        for (std::uint64_t j = 0; j < per_gpu; ++j)
          index[j] = static_cast<std::uint32_t>(static_cast<std::uint64_t>(comm.rank(i)) * per_gpu + j);
        values.emplace_back(comm.ctx(i), std::span<const std::uint32_t>(index));
      }
    }
    dist::timings report;
    dist::sort_options options;
    options.report = &report;
    dist::distributed_buffer<std::uint32_t> out_keys, out_values;
    const timing t = time_runs(s.warmup, s.repetitions, [&] {
      if constexpr (pairs) {
        auto sorted = dist::radix_sort_pairs(comm, view(keys), view(values), options);
        out_keys = std::move(sorted.keys);
        out_values = std::move(sorted.values);
      } else {
        out_keys = dist::radix_sort(comm, view(keys), options);
      }
    });
    const auto in = to_host(keys), got = to_host(out_keys);
    bool verified = std::is_sorted(got.begin(), got.end()) && multiset_hash(got) == multiset_hash(in);
    if constexpr (pairs) {
      const auto index = to_host(out_values);
      for (std::size_t j = 0; verified && j < got.size(); ++j)
        verified = index[j] < in.size() && in[index[j]] == got[j] && (j == 0 || got[j - 1] != got[j] || index[j - 1] < index[j]);
    }
    const int gpus = comm.world_size();
    row r = make_row(name, gpus == 1 ? "dist::radix_sort (world of 1)" : "dist::radix_sort", gpus, per_gpu,
          per_gpu * static_cast<std::uint64_t>(gpus), t);
    add_phases(r, report, gpus > 1 ? nccl_ms : 0);
    r.scaling = one_gpu_ms / t.median;
    r.verified = verified;
    s.rows.push_back(r);
  }
}

/// The multireduce's rows' name and its labels (uniform over m) and values.
std::tuple<std::string, sluice::data::distribution_spec, sluice::data::distribution_spec> multireduce_input(std::uint64_t m) {
  return {"multireduce m = " + std::to_string(m), {sluice::data::distribution::uniform, m, 0.0, 41},
          {sluice::data::distribution::uniform, 0, 0.0, 43}};
}

/// Each way of the multireduce on `comm`, `per_gpu` pairs a GPU, against the one-GPU time.
void multireduce_ways(session& s, dist::communicator& comm, std::uint64_t m, std::uint64_t per_gpu, double one_gpu_ms) {
  const auto [name, labels_spec, values_spec] = multireduce_input(m);
  const auto labels = generate<std::uint32_t>(comm, per_gpu, labels_spec);
  const auto values = generate<std::uint32_t>(comm, per_gpu, values_spec);
  const auto all_labels = to_host(labels), all_values = to_host(values);
  const auto expected = sluice::reference::multireduce(std::span<const std::uint32_t>(all_labels),
                                                       std::span<const std::uint32_t>(all_values), m, sluice::plus{}, 0u);
  for (auto way : {dist::multireduce_algorithm::automatic, dist::multireduce_algorithm::collective,
                   dist::multireduce_algorithm::owner_partition}) {
    std::vector<sluice::device_buffer<std::uint32_t>> out;
    std::vector<cuda::std::span<std::uint32_t>> out_views;
    for (std::size_t i = 0; i < comm.local_count(); ++i) {
      out.emplace_back(comm.ctx(i), m);
      out_views.push_back(out.back().span());
    }
    dist::timings report;
    dist::multireduce_options options;
    options.algorithm = way;
    options.report = &report;
    const timing t = time_runs(s.warmup, s.repetitions, [&] {
      (void)dist::multireduce(comm, view(labels), view(values), dist::distributed_span<std::uint32_t>(out_views), m,
                              sluice::plus{}, options);
    });
    row r = make_row(name, "dist::multireduce [" + std::string(dist::to_string(way)) + "]", comm.world_size(), per_gpu,
          per_gpu * static_cast<std::uint64_t>(comm.world_size()), t);
    add_phases(r, report, 0);
    r.scaling = one_gpu_ms / t.median;
    r.verified = true;
    for (const auto& o : out) r.verified = r.verified && o.to_host() == expected.buckets;
    s.rows.push_back(r);
  }
}

/// One multireduce case at m buckets: the one-GPU multireduce of `per_gpu` pairs, then each way on each
/// world of 2 GPUs or more with `per_gpu` pairs each (weak scaling).
void multireduce_case(session& s, std::uint64_t m, std::uint64_t per_gpu) {
  const auto [name, labels_spec, values_spec] = multireduce_input(m);
  double one_gpu_ms = 0;
  {
    sluice::context& ctx = s.one().ctx();
    sluice::device_buffer<std::uint32_t> labels(ctx, per_gpu), values(ctx, per_gpu), out(ctx, m);
    sluice::data::generate(ctx, labels.span(), labels_spec);
    sluice::data::generate(ctx, values.span(), values_spec);
    const timing t = time_runs(s.warmup, s.repetitions, [&] {
      sluice::multireduce(ctx, labels.span(), values.span(), out.span(), sluice::plus{});
      ctx.synchronize();
    });
    const auto expected = sluice::reference::multireduce(std::span<const std::uint32_t>(labels.to_host()),
                                                         std::span<const std::uint32_t>(values.to_host()), m,
                                                         sluice::plus{}, 0u);
    row r = make_row(name, "sluice::multireduce (one GPU)", 1, per_gpu, per_gpu, t);
    r.verified = out.to_host() == expected.buckets;
    s.rows.push_back(r);
    one_gpu_ms = t.median;
  }
  for (std::size_t w = 1; w < s.worlds.size(); ++w) multireduce_ways(s, *s.worlds[w], m, per_gpu, one_gpu_ms);
}

/// Distinct 31-bit keys (so never the reserved ones): an invertible mix of the global index
/// first + j; each key's value is key ^ 0x5555.
__global__ void hash_input_kernel(std::uint32_t* keys, std::uint32_t* values, std::uint64_t n, std::uint64_t first) {
  constexpr std::uint32_t mask = 0x7FFFFFFFu;
  for (std::uint64_t j = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; j < n; j += std::uint64_t{gridDim.x} * blockDim.x) {
    std::uint32_t x = static_cast<std::uint32_t>(first + j) & mask;
    x = (x * 0x2C1B3C6Du) & mask;
    x ^= x >> 15;
    x = (x * 0x297A2D39u) & mask;
    x ^= x >> 12;
    keys[j] = x;
    values[j] = x ^ 0x5555u;
  }
}

struct hash_input {
  std::vector<sluice::device_buffer<std::uint32_t>> keys, values;
};

/// Each rank's `per_rank` keys and values: rank r's are global indices r·per_rank … (r + 1)·per_rank − 1.
hash_input make_hash_input(dist::communicator& comm, std::uint64_t per_rank) {
  hash_input in;
  for (std::size_t i = 0; i < comm.local_count(); ++i) {
    sluice::context& ctx = comm.ctx(i);
    auto device = ctx.activate();
    in.keys.emplace_back(ctx, per_rank);
    in.values.emplace_back(ctx, per_rank);
    sluice::detail::dist::launch_streaming(ctx, hash_input_kernel, per_rank, in.keys.back().data(),
                                           in.values.back().data(), per_rank,
                                           static_cast<std::uint64_t>(comm.rank(i)) * per_rank);
  }
  for (std::size_t i = 0; i < comm.local_count(); ++i) comm.ctx(i).synchronize();
  return in;
}

/// A table made for `n` elements at the slab hash's default load.
sluice::slab_hash_options hash_options(std::uint64_t n) {
  sluice::slab_hash_options o;
  o.capacity = n;
  return o;
}

/// One hash case: the one-GPU slab hash built from `size.n` keys and queried with them, then the
/// distributed table on each world with size.per_gpu(world) keys a rank. Rows "<name> build" and
/// "<name> find", each verified by the size and every key's value found.
void hash_case(session& s, const std::string& name, sizing size) {
  const std::uint64_t one_gpu_n = size.n;
  double one_build_ms = 0, one_find_ms = 0;
  {
    sluice::context& ctx = s.one().ctx();
    const hash_input in = make_hash_input(s.one(), one_gpu_n);
    std::unique_ptr<sluice::slab_hash<std::uint32_t, std::uint32_t>> table;
    const timing build = time_runs(
        s.warmup, s.repetitions,
        [&] {
          table->insert(ctx, in.keys[0].span(), in.values[0].span());
          ctx.synchronize();
        },
        [&] {
          table.reset();
          table = std::make_unique<sluice::slab_hash<std::uint32_t, std::uint32_t>>(ctx, hash_options(one_gpu_n));
          ctx.synchronize();
        });
    sluice::device_buffer<std::uint32_t> found(ctx, one_gpu_n);
    const timing find = time_runs(s.warmup, s.repetitions, [&] {
      table->find(ctx, in.keys[0].span(), found.span());
      ctx.synchronize();
    });
    const bool verified = table->size(ctx) == one_gpu_n && found.to_host() == in.values[0].to_host();
    for (auto [what, t] : {std::pair{" build", build}, std::pair{" find", find}}) {
      row r = make_row(name + what, "sluice::slab_hash (one GPU)", 1, one_gpu_n, one_gpu_n, t);
      r.verified = verified;
      s.rows.push_back(r);
    }
    one_build_ms = build.median;
    one_find_ms = find.median;
  }
  for (auto& world : s.worlds) {
    dist::communicator& comm = *world;
    const int gpus = comm.world_size();
    const std::uint64_t per_gpu = size.per_gpu(gpus);
    // NCCL's all-to-all at the build's bytes (key + value) and the find's (key + position, then the answer).
    const double nccl_build_ms = gpus > 1 ? alltoall_ms(s, comm, per_gpu * 8) : 0;
    const double nccl_find_ms = gpus > 1 ? alltoall_ms(s, comm, per_gpu * 12) : 0;
    const hash_input in = make_hash_input(comm, per_gpu);
    std::unique_ptr<dist::slab_hash<std::uint32_t, std::uint32_t>> table;
    dist::timings build_report, find_report;
    const timing build = time_runs(
        s.warmup, s.repetitions, [&] { table->insert(view(in.keys), view(in.values), &build_report); },
        [&] {
          table.reset();
          table = std::make_unique<dist::slab_hash<std::uint32_t, std::uint32_t>>(comm, hash_options(per_gpu));
        });
    std::vector<sluice::device_buffer<std::uint32_t>> found;
    std::vector<cuda::std::span<std::uint32_t>> found_views;
    for (std::size_t i = 0; i < comm.local_count(); ++i) {
      found.emplace_back(comm.ctx(i), per_gpu);
      found_views.push_back(found.back().span());
    }
    const timing find = time_runs(s.warmup, s.repetitions, [&] {
      table->find(view(in.keys), dist::distributed_span<std::uint32_t>(found_views), 0u, &find_report);
    });
    const bool verified = table->size() == per_gpu * static_cast<std::uint64_t>(gpus) && to_host(found) == to_host(in.values);
    const std::string implementation = gpus == 1 ? "dist::slab_hash (world of 1)" : "dist::slab_hash";
    const std::uint64_t total = per_gpu * static_cast<std::uint64_t>(gpus);
    row b = make_row(name + " build", implementation, gpus, per_gpu, total, build);
    add_phases(b, build_report, gpus > 1 ? nccl_build_ms : 0);
    b.scaling = one_build_ms / build.median;
    b.verified = verified;
    s.rows.push_back(b);
    row f = make_row(name + " find", implementation, gpus, per_gpu, total, find);
    add_phases(f, find_report, gpus > 1 ? nccl_find_ms : 0);
    f.scaling = one_find_ms / find.median;
    f.verified = verified;
    s.rows.push_back(f);
  }
}

}  // namespace

result run(const options& o) {
  const int visible = sluice::cuda_device_count();
  if (visible == 0) throw sluice::invalid_argument("sluice_dist_bench", "gpus", "no CUDA device is visible");
  const int gpus = o.gpus > 0 ? std::min(o.gpus, visible) : visible;
  session s;
  s.quick = o.quick;
  s.repetitions = o.quick ? std::min(o.repetitions, 3) : o.repetitions;
  for (int size = 1; size < gpus; size *= 2)
    s.worlds.push_back(std::make_unique<dist::communicator>(dist::communicator::on_devices(first_devices(size))));
  s.worlds.push_back(std::make_unique<dist::communicator>(dist::communicator::on_devices(first_devices(gpus))));
  const std::uint64_t n28 = std::uint64_t{1} << (o.quick ? 24 : 28), n29 = std::uint64_t{1} << (o.quick ? 25 : 29);
  const std::uint64_t n30 = std::uint64_t{1} << (o.quick ? 25 : 30);
  const bool all = o.only.empty();
  using none = sluice::detail::no_values;
  if (all || o.only == "alltoall")
    for (std::size_t w = 1; w < s.worlds.size(); ++w)
      for (std::uint64_t n : {n28, n29}) (void)alltoall_ms(s, *s.worlds[w], n * sizeof(std::uint32_t));
  if (all || o.only == "sort") {
    sort_case<none>(s, "sort weak", {n28});
    sort_case<none>(s, "sort weak", {n29});
    sort_case<none>(s, "sort strong", {n30, true});
  }
  if (all || o.only == "pairs") {
    sort_case<std::uint32_t>(s, "pairs weak", {n28});
    sort_case<std::uint32_t>(s, "pairs weak", {n29});
    sort_case<std::uint32_t>(s, "pairs strong", {n30, true});
  }
  if (all || o.only == "multireduce")
    for (std::uint64_t m : {std::uint64_t{4096}, std::uint64_t{1} << 24}) multireduce_case(s, m, n28);
  if (all || o.only == "hash") {  // one slab hash holds at most ~2^27.6 pairs (docs/dist.md): 2^26, 2^27 a GPU
    const std::uint64_t h26 = n28 >> 2, h27 = n29 >> 2;
    hash_case(s, "hash weak", {h26});
    hash_case(s, "hash weak", {h27});
    hash_case(s, "hash strong", {h27, true});
  }
  result r;
  r.device = s.one().ctx().properties().name;
  r.gpus = gpus;
  (void)cudaDriverGetVersion(&r.driver);
  (void)ncclGetVersion(&r.nccl);
  r.rows = std::move(s.rows);
  return r;
}

}  // namespace sluice::dist_bench
