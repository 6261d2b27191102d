// Benchmarks: multisplit of 2^28 u32 keys or key-value pairs (Ashkiani Tables 3.5, 3.7), every strategy
// (implementation "sluice::multisplit[_pairs] [strategy]") and automatic, against CUB in the same run:
//
//   "delta buckets keys|pairs m = M":     f(u) = u / Δ, keys uniform over M buckets. Baseline: the CUB
//        sort of bucket labels (label every key, cub::DeviceRadixSort::SortPairs of (label, key), or of
//        (label, packed 64-bit key-value) then unpack, over ⌈log2 M⌉ bits): how a CUB user would do a
//        multisplit with a general functor (the seed's RB-sort with CUB's sort, §3.6.1).
//   "bit-field buckets keys|pairs m = M": f(u) = u & (M − 1). Baseline: cub::DeviceRadixSort over those
//        ⌈log2 M⌉ bits, which is itself a stable multisplit (§3.3).
//   "identity buckets keys|pairs m = M":  f(u) = u, keys in [0, M). Baselines: the full 32-bit CUB sort
//        (the ratio; Tables 3.7–3.8 compare against it) and CUB over ⌈log2 M⌉ bits.
//   "warp bucket rank m = M":             the warp building block alone (warp/bucket.cuh): every window of
//        32 ids ranked by ⌈log2 M⌉ ballots (Ashkiani Alg. 4) against one __match_any_sync (the baseline);
//        ids uniform in [0, M), 4 bytes read and 4 written per id (rank and window count packed).
//
// m = 2, 4, …, 256 (--quick: 2, 32, 256). Bytes (the seed's speed of light, §3.6.2): keys 12 per key (read
// for the histogram, read again, written), pairs 20 (the value read and written once more). Every row is
// verified against sluice::host::multisplit_pairs, itself tested against reference::multisplit_pairs
// (values are generated, so a reordering within a bucket fails verification).
#include "harness/measure.hpp"

#include <sluice/core/launch.hpp>
#include <sluice/data/generate.cuh>
#include <sluice/host/multisplit.hpp>
#include <sluice/multisplit.cuh>
#include <sluice/reference/multisplit.hpp>
#include <sluice/warp/bucket.cuh>

#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <array>
#include <span>
#include <string>
#include <vector>

namespace {

using namespace sluice;

constexpr std::size_t items = std::size_t{1} << 28;

std::vector<std::uint32_t> bucket_counts(const bench::case_context& session) {
  if (session.quick()) return {2, 32, 256};
  std::vector<std::uint32_t> ms;
  for (std::uint32_t m = 2; m <= 256; m *= 2) ms.push_back(m);
  return ms;
}

int bits_of(std::uint32_t m) { return detail::multisplit::id_bits(m); }

/// Keys and values on the device, the outputs, and the oracle's result for one bucket functor.
struct operands {
  operands(context& ctx, std::uint64_t key_range, std::uint64_t seed)
      : keys(ctx, items), values(ctx, items), out_keys(ctx, items), out_values(ctx, items),
        key_spec{data::distribution::uniform, key_range, 0.0, seed}, value_spec{data::distribution::uniform, 0, 0.0, seed + 1} {
    data::generate(ctx, keys.span(), key_spec);
    data::generate(ctx, values.span(), value_spec);
  }

  template <class BucketOf>
  void expect(std::uint32_t m, BucketOf bucket_of) {
    const auto host_keys = data::generate_host<std::uint32_t>(items, key_spec);
    const auto host_values = data::generate_host<std::uint32_t>(items, value_spec);
    // sluice::host (all cores; its tests check it against reference::multisplit_pairs): the sequential
    // oracle took most of a device call for the 18 expected results of a quick run.
    expected.keys.resize(items);
    expected.values.resize(items);
    const auto r = host::multisplit_pairs(std::span<const std::uint32_t>(host_keys),
                                          std::span<const std::uint32_t>(host_values), std::span(expected.keys),
                                          std::span(expected.values), m, bucket_of);
    expected.keys.resize(items - r.dropped);
    expected.values.resize(items - r.dropped);
    expected.offsets = r.offsets;
    expected.dropped = r.dropped;
  }

  void poison() {
    out_keys.fill_bytes(0xA5);
    out_values.fill_bytes(0xA5);
  }

  [[nodiscard]] bool verify(bool pairs) const {
    auto got = out_keys.to_host();
    got.resize(expected.keys.size());
    if (got != expected.keys) return false;
    if (!pairs) return true;
    got = out_values.to_host();
    got.resize(expected.values.size());
    return got == expected.values;
  }

  device_buffer<std::uint32_t> keys, values, out_keys, out_values;
  data::distribution_spec key_spec, value_spec;
  reference::multisplit_pairs_result<std::uint32_t, std::uint32_t> expected;
};

bench::work_description work_of(const std::string& buckets, bool pairs, std::uint32_t m) {
  return {"multisplit", buckets + (pairs ? " pairs" : " keys") + " m = " + std::to_string(m), items,
          (pairs ? 20.0 : 12.0) * static_cast<double>(items)};
}

template <class BucketOf>
void measure_strategies(bench::case_context& session, const bench::work_description& work, operands& d,
                        std::uint32_t m, BucketOf bucket_of, bool pairs) {
  auto& ctx = session.gpu();
  for (multisplit_algorithm algorithm : {multisplit_algorithm::automatic, multisplit_algorithm::dms,
                                         multisplit_algorithm::wms, multisplit_algorithm::bms,
                                         multisplit_algorithm::rb_sort, multisplit_algorithm::scan_split,
                                         multisplit_algorithm::onesweep}) {
    if (algorithm == multisplit_algorithm::scan_split && m > 2) continue;
    if (algorithm == multisplit_algorithm::onesweep && m > detail::multisplit::max_onesweep_buckets) continue;
    const multisplit_options options{algorithm};
    const std::string name = std::string(pairs ? "sluice::multisplit_pairs [" : "sluice::multisplit [") +
                             std::string(to_string(algorithm)) + "]";
    const auto resolved = pairs ? detail::multisplit::resolve<std::uint32_t, std::uint32_t>("bench", m, options)
                                : detail::multisplit::resolve<std::uint32_t, detail::no_values>("bench", m, options);
    d.poison();
    bench::measure(session, work.runs(algorithm, resolved), name, bench::role::subject, true, [&] {
      if (pairs)
        multisplit_pairs(ctx, d.keys.span(), d.values.span(), d.out_keys.span(), d.out_values.span(), m, bucket_of, {},
                         nullptr, options);
      else
        multisplit(ctx, d.keys.span(), d.out_keys.span(), m, bucket_of, {}, nullptr, options);
    }, [&] { return d.verify(pairs); });
  }
}

/// cub::DeviceRadixSort over bits [first, first + bits) of the keys (pairs: values follow).
void measure_cub_bits(bench::case_context& session, const bench::work_description& work, operands& d, int first,
                      int bits, bool pairs, const std::string& name) {
  auto& ctx = session.gpu();
  std::size_t bytes = 0;
  auto sort = [&](void* temp) {
    if (pairs)
      return cub::DeviceRadixSort::SortPairs(temp, bytes, d.keys.data(), d.out_keys.data(), d.values.data(),
                                             d.out_values.data(), items, first, first + bits, ctx.stream());
    return cub::DeviceRadixSort::SortKeys(temp, bytes, d.keys.data(), d.out_keys.data(), items, first, first + bits,
                                          ctx.stream());
  };
  SLUICE_CUDA_CHECK(sort(nullptr));
  device_buffer<unsigned char> temp(ctx, bytes);
  d.poison();
  bench::measure(session, work, name, bench::role::baseline, true, [&] { SLUICE_CUDA_CHECK(sort(temp.data())); },
                 [&] { return d.verify(pairs); });
}

template <class BucketOf>
__global__ void label_kernel(const std::uint32_t* keys, const std::uint32_t* values, std::size_t n, BucketOf bucket_of,
                             std::uint32_t* labels, unsigned long long* packed) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x) {
    labels[i] = static_cast<std::uint32_t>(bucket_of(keys[i]));
    if (packed) packed[i] = (static_cast<unsigned long long>(keys[i]) << 32) | values[i];
  }
}

__global__ void unpack_kernel(const unsigned long long* packed, std::size_t n, std::uint32_t* keys, std::uint32_t* values) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x) {
    keys[i] = static_cast<std::uint32_t>(packed[i] >> 32);
    values[i] = static_cast<std::uint32_t>(packed[i]);
  }
}

/// The CUB sort of bucket labels: label, sort (label, key) or (label, packed pair) over ⌈log2 m⌉ bits,
/// unpack. Every key's id is below m here (the inputs drop nothing).
template <class BucketOf>
void measure_cub_labels(bench::case_context& session, const bench::work_description& work, operands& d,
                        std::uint32_t m, BucketOf bucket_of, bool pairs) {
  auto& ctx = session.gpu();
  device_buffer<std::uint32_t> labels(ctx, items), sorted_labels(ctx, items);
  device_buffer<unsigned long long> packed(ctx, pairs ? items : 0), sorted_packed(ctx, pairs ? items : 0);
  const int bits = bits_of(m) > 0 ? bits_of(m) : 1;
  std::size_t bytes = 0;
  auto sort = [&](void* temp) {
    if (pairs)
      return cub::DeviceRadixSort::SortPairs(temp, bytes, labels.data(), sorted_labels.data(), packed.data(),
                                             sorted_packed.data(), items, 0, bits, ctx.stream());
    return cub::DeviceRadixSort::SortPairs(temp, bytes, labels.data(), sorted_labels.data(), d.keys.data(),
                                           d.out_keys.data(), items, 0, bits, ctx.stream());
  };
  SLUICE_CUDA_CHECK(sort(nullptr));
  device_buffer<unsigned char> temp(ctx, bytes);
  constexpr int threads = 256;
  auto label = label_kernel<BucketOf>;
  const auto grid = static_cast<unsigned>(detail::one_wave_grid(ctx, label, threads, detail::ceil_div(items, threads)));
  d.poison();
  bench::measure(session, work, "cub::DeviceRadixSort of bucket labels", bench::role::baseline, true, [&] {
    label<<<grid, threads, 0, ctx.stream()>>>(d.keys.data(), d.values.data(), items, bucket_of, labels.data(),
                                              pairs ? packed.data() : nullptr);
    SLUICE_CHECK_LAUNCH();
    SLUICE_CUDA_CHECK(sort(temp.data()));
    if (pairs) {
      unpack_kernel<<<grid, threads, 0, ctx.stream()>>>(sorted_packed.data(), items, d.out_keys.data(),
                                                        d.out_values.data());
      SLUICE_CHECK_LAUNCH();
    }
  }, [&] { return d.verify(pairs); });
}

void delta_case(bench::case_context& session, bool pairs) {
  for (std::uint32_t m : bucket_counts(session)) {
    const std::uint32_t delta = static_cast<std::uint32_t>((std::uint64_t{1} << 32) / m);
    operands d(session.gpu(), std::uint64_t{delta} * m, m);
    const buckets::delta<std::uint32_t> bucket_of{delta};
    d.expect(m, bucket_of);
    const auto work = work_of("delta buckets", pairs, m);
    measure_cub_labels(session, work, d, m, bucket_of, pairs);
    measure_strategies(session, work, d, m, bucket_of, pairs);
  }
}

void bit_field_case(bench::case_context& session, bool pairs) {
  for (std::uint32_t m : bucket_counts(session)) {
    operands d(session.gpu(), 0, m + 100);
    const buckets::bit_field bucket_of{0, bits_of(m)};
    d.expect(m, bucket_of);
    const auto work = work_of("bit-field buckets", pairs, m);
    measure_cub_bits(session, work, d, 0, bits_of(m), pairs, "cub::DeviceRadixSort over log2(m) bits");
    measure_strategies(session, work, d, m, bucket_of, pairs);
  }
}

void identity_case(bench::case_context& session, bool pairs) {
  for (std::uint32_t m : bucket_counts(session)) {
    operands d(session.gpu(), m, m + 200);
    d.expect(m, buckets::identity{});
    const auto work = work_of("identity buckets", pairs, m);
    measure_cub_bits(session, work, d, 0, 32, pairs, "cub::DeviceRadixSort (32 bits)");
    measure_cub_bits(session, work, d, 0, bits_of(m), pairs, "cub::DeviceRadixSort over log2(m) bits");
    measure_strategies(session, work, d, m, buckets::identity{}, pairs);
  }
}

/// Rank and window count of each id among the equal ids of its window of 32, by ballots or by one match.
template <bool Match>
__global__ void warp_rank_kernel(const std::uint32_t* ids, std::size_t n, int bits, std::uint32_t* ranks) {
  const std::size_t warps = std::size_t{gridDim.x} * blockDim.x / 32;
  const std::size_t lane = static_cast<std::size_t>(warp::lane_id());
  for (std::size_t base = (blockIdx.x * std::size_t{blockDim.x} + threadIdx.x) / 32 * 32; base < n;
       base += warps * 32) {
    const std::size_t i = base + lane;
    const bool valid = i < n;
    const std::uint32_t id = valid ? ids[i] : 0u;
    const unsigned peers =
        Match ? warp::match_peers(warp::full_mask, valid, id) : warp::ballot_peers(warp::full_mask, valid, id, bits);
    if (valid) ranks[i] = static_cast<std::uint32_t>(warp::rank_among(peers)) | (static_cast<std::uint32_t>(__popc(peers)) << 8);
  }
}

/// The packed (rank, window count) of every id (ids below 256), computed window by window on the host.
std::vector<std::uint32_t> expected_ranks(const std::vector<std::uint32_t>& ids) {
  std::vector<std::uint32_t> ranks(ids.size());
  std::array<std::uint32_t, 256> count{}, seen{};
  for (std::size_t base = 0; base < ids.size(); base += 32) {
    const std::size_t end = std::min(ids.size(), base + 32);
    for (std::size_t i = base; i < end; ++i) ++count[ids[i]];
    for (std::size_t i = base; i < end; ++i) ranks[i] = seen[ids[i]]++ | (count[ids[i]] << 8);
    for (std::size_t i = base; i < end; ++i) count[ids[i]] = seen[ids[i]] = 0;
  }
  return ranks;
}

void warp_rank_case(bench::case_context& session) {
  auto& ctx = session.gpu();
  for (std::uint32_t m : bucket_counts(session)) {
    const data::distribution_spec spec{data::distribution::uniform, m, 0.0, m + 300};
    device_buffer<std::uint32_t> ids(ctx, items), ranks(ctx, items);
    data::generate(ctx, ids.span(), spec);
    const auto expected = expected_ranks(data::generate_host<std::uint32_t>(items, spec));
    const bench::work_description work{"multisplit", "warp bucket rank m = " + std::to_string(m), items,
                                       8.0 * static_cast<double>(items)};
    auto run = [&]<bool Match>(const std::string& name, bench::role kind) {
      constexpr int threads = 256;
      auto kernel = warp_rank_kernel<Match>;
      const auto grid = static_cast<unsigned>(detail::one_wave_grid(ctx, kernel, threads, detail::ceil_div(items, threads)));
      ranks.fill_bytes(0xA5);
      bench::measure(session, work, name, kind, true, [&] {
        kernel<<<grid, threads, 0, ctx.stream()>>>(ids.data(), items, bits_of(m), ranks.data());
        SLUICE_CHECK_LAUNCH();
      }, [&] { return ranks.to_host() == expected; });
    };
    run.template operator()<false>("sluice::warp::ballot_peers (log2(m) ballots)", bench::role::subject);
    run.template operator()<true>("sluice::warp::match_peers (__match_any_sync)", bench::role::baseline);
  }
}

}  // namespace

SLUICE_BENCH_CASE("multisplit", "warp bucket rank u32", gpu) { warp_rank_case(session); }
SLUICE_BENCH_CASE("multisplit", "delta buckets keys u32", gpu) { delta_case(session, false); }
SLUICE_BENCH_CASE("multisplit", "delta buckets pairs u32", gpu) { delta_case(session, true); }
SLUICE_BENCH_CASE("multisplit", "bit-field buckets keys u32", gpu) { bit_field_case(session, false); }
SLUICE_BENCH_CASE("multisplit", "bit-field buckets pairs u32", gpu) { bit_field_case(session, true); }
SLUICE_BENCH_CASE("multisplit", "identity buckets keys u32", gpu) { identity_case(session, false); }
SLUICE_BENCH_CASE("multisplit", "identity buckets pairs u32", gpu) { identity_case(session, true); }
