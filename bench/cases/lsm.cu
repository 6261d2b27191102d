// Benchmark: the GPU LSM (Ashkiani ch. 4, §4.5's experiments), u32 keys → u32 values, distinct random keys
// (data/distinct_keys.hpp).
//
//   batch insert (Table 4.2)   N = 2^27 (quick 2^24) keys inserted in batches of b = 2^15 … 2^26 (quick
//                              2^16, 2^20, 2^23), every batch timed; rows: min, max and harmonic mean over r
//                              (the mean row: N over the total time), for the LSM and for the sorted array
//                              (SA: the batch radix-sorted, then merged with the array into a new one);
//                              before each side's timed pass, one untimed pass of the same inserts on a
//                              throwaway map (array), so that neither side pays the pool's first growth
//                              (the side that ran first did: one LSM batch of 38 ms at a135ad5)
//   lookups (Table 4.3)        n = 2^24 (quick 2^22) resident, b = 2^16 … 2^24 (quick 2^18, 2^22): the LSM
//                              at r = 1, 2, 3, then 2^k − 1 and 2^k up to n / b, n lookups all present and
//                              none present at each; rows: min, max, harmonic mean over those r; SA: one
//                              binary search a query over the sorted n; cuco::static_map at load 0.5
//                              (SLUICE_HAVE_CUCO)
//   count and range (Table 4.4) n = 2^24 (quick 2^22), b = 2^16 … 2^20 (quick 2^18), r = n / b (every level
//                              of r's bits), Q = 2^20 ranges of expected size L = 8 and Q = 2^14 of L =
//                              1024; SA: the same bounds on the sorted array, a scan, a copy
//   cleanup                    n = (2^6 − 1)·2^20 (quick (2^6 − 1)·2^16) resident of which 10% and 50%
//                              stale (overwrites of live keys), b = 2^20 (quick 2^16); baseline: a copy of
//                              the same bytes (cudaMemcpyAsync)
//   bulk build                 n = 2^24, 2^26 (quick 2^22): lsm::bulk_build (b = 2^16) against the project's
//                              radix_sort_pairs of the same pairs
//
// Bytes (the GB/s column): inputs read and outputs written once: 8 B a pair inserted or built, 8 B a
// lookup, 8 + 8 B a count query, + 8 B an output pair for range; cleanup 12 B an element read and 12 B a
// live one written.
//
// Verification: the LSM after the insert sweep answers lookups of every key with its value; the SA is
// sorted and holds N keys; lookups against the host's values (absent: the sentinel); count and range
// against the SA's answers computed on the host for every query; cleanup by size and lookups of a sample;
// bulk build by lookups of every key. Nothing here has run on a GPU yet (docs/lsm.md).
#include "harness/measure.hpp"

#include <sluice/containers/lsm.cuh>
#include <sluice/data/distinct_keys.hpp>
#include <sluice/merge_sort.cuh>
#include <sluice/radix_sort.cuh>
#include <sluice/scan.cuh>
#include <sluice/search.cuh>

#if defined(SLUICE_HAVE_CUCO)
#include <cuco/static_map.cuh>
#endif

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace {

using namespace sluice;
using map_type = lsm<std::uint32_t, std::uint32_t>;
constexpr std::uint32_t absent_value = 0xFFFFFFFFu;

using bench::power_name;

/// Keys [0, n) and n absent ones, values key·3 + 1, on the host and the device.
struct key_set {
  std::vector<std::uint32_t> keys, values, absent;
  device_buffer<std::uint32_t> d_keys, d_values, d_absent;
  key_set(context& ctx, std::size_t n)
      : keys(data::distinct_keys<std::uint32_t>(0, n)), absent(data::distinct_keys<std::uint32_t>(data::absent_keys, n)) {
    values.reserve(n);
    for (auto k : keys) values.push_back(k * 3u + 1u);
    d_keys = device_buffer<std::uint32_t>(ctx, std::span<const std::uint32_t>(keys));
    d_values = device_buffer<std::uint32_t>(ctx, std::span<const std::uint32_t>(values));
    d_absent = device_buffer<std::uint32_t>(ctx, std::span<const std::uint32_t>(absent));
  }
};

/// Milliseconds of `work` on the context's stream (one run, CUDA events).
template <class Work>
double time_once(context& ctx, Work&& work) {
  cudaEvent_t start, stop;
  SLUICE_CUDA_CHECK(cudaEventCreate(&start));
  SLUICE_CUDA_CHECK(cudaEventCreate(&stop));
  SLUICE_CUDA_CHECK(cudaEventRecord(start, ctx.stream()));
  work();
  SLUICE_CUDA_CHECK(cudaEventRecord(stop, ctx.stream()));
  SLUICE_CUDA_CHECK(cudaEventSynchronize(stop));
  float ms = 0;
  SLUICE_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  (void)cudaEventDestroy(start);
  (void)cudaEventDestroy(stop);
  return ms;
}

/// Rows min / max / harmonic mean over r from per-batch times of `items_each` items.
void record_over_r(bench::case_context& session, const std::string& family, const std::string& name,
                   const std::string& implementation, bench::role kind, const std::vector<double>& ms,
                   const std::vector<std::size_t>& items, double bytes_per_item, bool verified) {
  std::size_t slowest = 0, fastest = 0, total_items = 0;
  double total_ms = 0;
  for (std::size_t i = 0; i < ms.size(); ++i) {
    const double rate = items[i] / ms[i];
    if (rate < items[slowest] / ms[slowest]) slowest = i;
    if (rate > items[fastest] / ms[fastest]) fastest = i;
    total_items += items[i];
    total_ms += ms[i];
  }
  const auto row = [&](const std::string& which, std::size_t n, double t) {
    const bench::work_description work{family, name + ", " + which, n, bytes_per_item * static_cast<double>(n)};
    bench::record_verified(session, work, implementation, kind, true, bench::one_figure(t), [&] { return verified; });
  };
  row("min over r", items[slowest], ms[slowest]);
  row("max over r", items[fastest], ms[fastest]);
  row("harmonic mean over r", total_items, total_ms);  // Σ items / Σ time: the harmonic mean of the rates
}

/// values[i] = the value of queries[i] in the sorted array, or absent (the SA's lookup).
__global__ void sa_lookup_kernel(const std::uint32_t* keys, const std::uint32_t* values, std::size_t n,
                                 const std::uint32_t* queries, std::size_t q, std::uint32_t* out) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < q; i += std::size_t{gridDim.x} * blockDim.x) {
    const std::uint32_t x = queries[i];
    std::size_t first = 0, length = n;
    while (length > 0) {
      const std::size_t half = length / 2;
      if (keys[first + half] < x) {
        first += half + 1;
        length -= half + 1;
      } else {
        length = half;
      }
    }
    out[i] = first < n && keys[first] == x ? values[first] : absent_value;
  }
}

/// The sorted array baseline: sorted keys and values, grown by sort-and-merge.
struct sorted_array {
  device_buffer<std::uint32_t> keys, values;
  std::size_t n = 0;
  void insert(context& ctx, cuda::std::span<const std::uint32_t> k, cuda::std::span<const std::uint32_t> v) {
    device_buffer<std::uint32_t> bk(ctx, k.size()), bv(ctx, k.size());
    sluice::radix_sort_pairs(ctx, k, v, bk.span(), bv.span());
    device_buffer<std::uint32_t> nk(ctx, n + k.size()), nv(ctx, n + k.size());
    sluice::merge_pairs(ctx, bk.span(), bv.span(), cuda::std::span<const std::uint32_t>(keys.data(), n),
                cuda::std::span<const std::uint32_t>(values.data(), n), nk.span(), nv.span());
    keys = std::move(nk);
    values = std::move(nv);
    n += k.size();
  }
  void lookup(context& ctx, cuda::std::span<const std::uint32_t> q, std::uint32_t* out) const {
    sa_lookup_kernel<<<detail::streaming_grid(ctx, sa_lookup_kernel, q.size()), 256, 0, ctx.stream()>>>(
        keys.data(), values.data(), n, q.data(), q.size(), out);
    SLUICE_CHECK_LAUNCH();
  }
};

/// The n keys inserted into `target` (an lsm or a sorted_array) in batches of b; each batch timed where
/// `ms` is given (its size into `items`).
template <class Target>
void insert_batches(context& ctx, const key_set& set, std::size_t n, std::size_t b, Target& target,
                    std::vector<double>* ms = nullptr, std::vector<std::size_t>* items = nullptr) {
  for (std::size_t first = 0; first < n; first += b) {
    const auto insert = [&] {
      target.insert(ctx, set.d_keys.span().subspan(first, b), set.d_values.span().subspan(first, b));
    };
    if (ms == nullptr) {
      insert();
      continue;
    }
    ms->push_back(time_once(ctx, insert));
    items->push_back(b);
  }
}

bool lookups_match(const device_buffer<std::uint32_t>& found, const std::vector<std::uint32_t>& expected) {
  return found.to_host() == expected;
}

SLUICE_BENCH_CASE("lsm", "batch insert rate over r (Table 4.2)", gpu) {
  auto& ctx = session.gpu();
  const std::size_t n = session.quick() ? std::size_t{1} << 24 : std::size_t{1} << 27;
  const key_set set(ctx, n);
  const auto sizes = session.quick() ? std::vector<std::size_t>{std::size_t{1} << 16, std::size_t{1} << 20, std::size_t{1} << 23}
                                     : bench::powers_of_two(15, 26, 1);
  for (std::size_t b : sizes) {
    const std::string name = "batch insert, N = " + power_name(n) + ", b = " + power_name(b);
    std::vector<double> ms;
    std::vector<std::size_t> items;
    if (session.runs("sluice::lsm", bench::role::subject)) {
      {  // the pool warmed (untimed)
        map_type warm(ctx, {.batch_size = b, .capacity = n});
        insert_batches(ctx, set, n, b, warm);
      }
      map_type map(ctx, {.batch_size = b, .capacity = n});
      insert_batches(ctx, set, n, b, map, &ms, &items);
      device_buffer<std::uint32_t> found(ctx, n);
      found.fill_bytes(0xA5);
      map.lookup(ctx, set.d_keys.span(), found.span(), absent_value);
      record_over_r(session, "lsm", name, "sluice::lsm", bench::role::subject, ms, items, 8, lookups_match(found, set.values));
    }
    if (session.runs("sorted array (radix sort + merge)", bench::role::baseline)) {
      ms.clear();
      items.clear();
      {  // the pool warmed (untimed)
        sorted_array warm;
        insert_batches(ctx, set, n, b, warm);
      }
      sorted_array sa;
      insert_batches(ctx, set, n, b, sa, &ms, &items);
      const auto k = sa.keys.to_host();
      const bool ok = k.size() == n && std::is_sorted(k.begin(), k.end());
      record_over_r(session, "lsm", name, "sorted array (radix sort + merge)", bench::role::baseline, ms, items, 8, ok);
    }
  }
}

/// The r at which Table 4.3's lookups are measured: 1, 2, 3, then 2^k − 1 and 2^k, up to r_max.
std::vector<std::size_t> sampled_r(std::size_t r_max) {
  std::vector<std::size_t> rs{1, 2, 3};
  for (std::size_t p = 4; p <= r_max; p *= 2) {
    rs.push_back(p - 1);
    rs.push_back(p);
  }
  std::sort(rs.begin(), rs.end());
  rs.erase(std::unique(rs.begin(), rs.end()), rs.end());
  while (!rs.empty() && rs.back() > r_max) rs.pop_back();
  return rs;
}

#if defined(SLUICE_HAVE_CUCO)
using cuco_map = cuco::static_map<std::uint32_t, std::uint32_t>;
using cuco_pair = cuco::pair<std::uint32_t, std::uint32_t>;

__global__ void make_pairs_kernel(const std::uint32_t* keys, const std::uint32_t* values, std::size_t n, cuco_pair* out) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
    out[i] = cuco_pair{keys[i], values[i]};
}
#endif

SLUICE_BENCH_CASE("lsm", "lookups, none and all present (Table 4.3)", gpu) {
  auto& ctx = session.gpu();
  const std::size_t n = session.quick() ? std::size_t{1} << 22 : std::size_t{1} << 24;
  const key_set set(ctx, n);
  const auto sizes = session.quick() ? std::vector<std::size_t>{std::size_t{1} << 18, std::size_t{1} << 22}
                                     : bench::powers_of_two(16, 24, 1);
  device_buffer<std::uint32_t> found(ctx, n);
  for (std::size_t b : sizes) {
    for (bool all : {false, true}) {
      const std::string name = std::string("lookup, ") + (all ? "all" : "none") + " present, n ≤ " + power_name(n) +
                               ", b = " + power_name(b);
      std::vector<double> ms;
      std::vector<std::size_t> items;
      bool ok = true;
      map_type map(ctx, {.batch_size = b, .capacity = n});
      std::size_t r = 0;
      for (std::size_t target : sampled_r(n / b)) {
        for (; r < target; ++r)
          map.insert(ctx, set.d_keys.span().subspan(r * b, b), set.d_values.span().subspan(r * b, b));
        const std::size_t m = r * b;
        const auto queries = (all ? set.d_keys : set.d_absent).span().first(m);
        found.fill_bytes(0xA5);
        const auto t = bench::time_device(ctx, [&] { map.lookup(ctx, queries, found.span().first(m), absent_value); },
                                          session.policy());
        ms.push_back(t.median_ms);
        items.push_back(m);
        const auto got = found.to_host();
        for (std::size_t i = 0; ok && i < m; ++i) ok = got[i] == (all ? set.values[i] : absent_value);
      }
      record_over_r(session, "lsm", name, "sluice::lsm", bench::role::subject, ms, items, 8, ok);
    }
  }
  // The SA and cuco at n (the seed reports the SA's harmonic mean; at r = n / b both hold the same keys).
  sorted_array sa;
  sa.insert(ctx, set.d_keys.span(), set.d_values.span());
  for (bool all : {false, true}) {
    const std::string name = std::string("lookup, ") + (all ? "all" : "none") + " present, n = " + power_name(n);
    const bench::work_description work{"lsm", name, n, 8.0 * static_cast<double>(n)};
    const auto queries = (all ? set.d_keys : set.d_absent).span();
    const std::vector<std::uint32_t> none(n, absent_value);
    found.fill_bytes(0xA5);
    bench::measure(session, work, "sorted array (binary search)", bench::role::baseline, true,
                   [&] { sa.lookup(ctx, queries, found.data()); },
                   [&] { return lookups_match(found, all ? set.values : none); });
#if defined(SLUICE_HAVE_CUCO)
    cuco_map table{n, 0.5, cuco::empty_key<std::uint32_t>{0xFFFFFFFFu}, cuco::empty_value<std::uint32_t>{absent_value},
                   {}, {}, {}, {}, {}, cuda::stream_ref{ctx.stream()}};
    device_buffer<cuco_pair> pairs(ctx, n);
    make_pairs_kernel<<<1024, 256, 0, ctx.stream()>>>(set.d_keys.data(), set.d_values.data(), n, pairs.data());
    SLUICE_CHECK_LAUNCH();
    table.insert(pairs.data(), pairs.data() + n, cuda::stream_ref{ctx.stream()});
    found.fill_bytes(0xA5);
    bench::measure(session, work, "cuco::static_map (load 0.5)", bench::role::baseline, true,
                   [&] { table.find_async(queries.data(), queries.data() + n, found.data(), cuda::stream_ref{ctx.stream()}); },
                   [&] { return lookups_match(found, all ? set.values : none); });
#else
    static bool said = false;
    if (!said) std::cerr << "bench: lsm: cuCollections baseline rows skipped (built without SLUICE_CUCO_DIR / cuco)\n";
    said = true;
#endif
  }
}

/// SA count: counts[i] = upper_bound(k2) − lower_bound(k1) (0 when k1 > k2).
__global__ void sa_count_kernel(const std::uint64_t* lower, const std::uint64_t* upper, std::size_t q, std::uint64_t* counts) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < q; i += std::size_t{gridDim.x} * blockDim.x)
    counts[i] = upper[i] > lower[i] ? upper[i] - lower[i] : 0;
}
/// SA range: query i's pairs copied to offsets[i].
__global__ void sa_copy_kernel(const std::uint32_t* keys, const std::uint32_t* values, const std::uint64_t* lower,
                               const std::uint64_t* offsets, std::size_t q, std::uint32_t* out_keys, std::uint32_t* out_values) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < q; i += std::size_t{gridDim.x} * blockDim.x)
    for (std::uint64_t t = offsets[i]; t < offsets[i + 1]; ++t) {
      out_keys[t] = keys[lower[i] + t - offsets[i]];
      out_values[t] = values[lower[i] + t - offsets[i]];
    }
}

SLUICE_BENCH_CASE("lsm", "count and range, L = 8 and 1024 (Table 4.4)", gpu) {
  auto& ctx = session.gpu();
  const std::size_t n = session.quick() ? std::size_t{1} << 22 : std::size_t{1} << 24;
  const key_set set(ctx, n);
  sorted_array sa;
  sa.insert(ctx, set.d_keys.span(), set.d_values.span());
  const auto sorted = sa.keys.to_host();
  const auto sizes = session.quick() ? std::vector<std::size_t>{std::size_t{1} << 18} : bench::powers_of_two(16, 20, 1);
  for (std::size_t expected : {std::size_t{8}, std::size_t{1024}}) {
    const std::size_t q = expected == 8 ? std::size_t{1} << 20 : std::size_t{1} << 14;
    const std::uint64_t width = expected * ((std::uint64_t{1} << 32) / n);  // keys are uniform over 2^32
    std::mt19937_64 rng(expected);
    std::vector<std::uint32_t> k1(q), k2(q);
    std::vector<std::uint64_t> answer(q);
    for (std::size_t i = 0; i < q; ++i) {
      k1[i] = static_cast<std::uint32_t>(rng());
      k2[i] = static_cast<std::uint32_t>(std::min<std::uint64_t>(k1[i] + width - 1, 0xFFFFFFFFu));
      answer[i] = static_cast<std::uint64_t>(std::upper_bound(sorted.begin(), sorted.end(), k2[i]) -
                                             std::lower_bound(sorted.begin(), sorted.end(), k1[i]));
    }
    const device_buffer<std::uint32_t> d1(ctx, std::span<const std::uint32_t>(k1)), d2(ctx, std::span<const std::uint32_t>(k2));
    device_buffer<std::uint64_t> counts(ctx, q), lower(ctx, q), upper(ctx, q), offsets(ctx, q + 1), sizes_plus(ctx, q + 1);
    std::uint64_t total = 0;
    for (auto a : answer) total += a;
    const std::string tail = ", L = " + std::to_string(expected) + ", Q = " + power_name(q) + ", n = " + power_name(n);
    const bench::work_description count_work{"lsm", "count" + tail, q, 16.0 * static_cast<double>(q)};
    const bench::work_description range_work{"lsm", "range" + tail, q, 16.0 * static_cast<double>(q) + 8.0 * static_cast<double>(total)};
    for (std::size_t b : sizes) {
      map_type map(ctx, {.batch_size = b, .capacity = n});
      for (std::size_t first = 0; first < n; first += b)
        map.insert(ctx, set.d_keys.span().subspan(first, b), set.d_values.span().subspan(first, b));
      const std::string label = "sluice::lsm (b = " + power_name(b) + ", r = " + std::to_string(n / b) + ")";
      counts.fill_bytes(0xA5);
      bench::measure(session, count_work, label, bench::role::subject, true,
                     [&] { map.count(ctx, d1.span(), d2.span(), counts.span()); }, [&] { return counts.to_host() == answer; });
      lsm_range_result<std::uint32_t, std::uint32_t> result;
      bench::measure(session, range_work, label, bench::role::subject, true,
                     [&] { result = map.range(ctx, d1.span(), d2.span()); }, [&] {
                       const auto off = result.offsets.to_host();
                       bool ok = off.size() == q + 1 && off[q] == total;
                       for (std::size_t i = 0; ok && i < q; ++i) ok = off[i + 1] - off[i] == answer[i];
                       return ok;
                     });
    }
    // The SA: bounds, count; for range also a scan and a copy.
    const auto sa_bounds = [&] {
      sluice::lower_bound(ctx, sa.keys.span(), d1.span(), lower.span());
      sluice::upper_bound(ctx, sa.keys.span(), d2.span(), upper.span());
      sa_count_kernel<<<detail::streaming_grid(ctx, sa_count_kernel, q), 256, 0, ctx.stream()>>>(lower.data(), upper.data(), q,
                                                                                               sizes_plus.data());
      SLUICE_CHECK_LAUNCH();
    };
    SLUICE_CUDA_CHECK(cudaMemsetAsync(sizes_plus.data() + q, 0, sizeof(std::uint64_t), ctx.stream()));
    bench::measure(session, count_work, "sorted array", bench::role::baseline, true, sa_bounds, [&] {
      auto got = sizes_plus.to_host();
      got.pop_back();
      return got == answer;
    });
    device_buffer<std::uint32_t> out_keys(ctx, total), out_values(ctx, total);
    bench::measure(session, range_work, "sorted array", bench::role::baseline, true, [&] {
      sa_bounds();
      sluice::exclusive_scan(ctx, sizes_plus.span(), offsets.span(), std::uint64_t{0}, plus{});
      sa_copy_kernel<<<detail::streaming_grid(ctx, sa_copy_kernel, q), 256, 0, ctx.stream()>>>(
          sa.keys.data(), sa.values.data(), lower.data(), offsets.data(), q, out_keys.data(), out_values.data());
      SLUICE_CHECK_LAUNCH();
    }, [&] { return offsets.to_host().back() == total; });
  }
}

SLUICE_BENCH_CASE("lsm", "cleanup rate, 10% and 50% stale", gpu) {
  auto& ctx = session.gpu();
  const std::size_t b = session.quick() ? std::size_t{1} << 16 : std::size_t{1} << 20;
  const std::size_t n = 63 * b;  // (2^6 − 1)·b resident
  for (int percent : {10, 50}) {
    const std::size_t stale = n * percent / 100, live = n - stale;
    const key_set set(ctx, live);
    // Resident: the live keys, then `stale` overwrites of the first ones (so the first copies are stale).
    const auto build = [&](map_type& map) {
      map.clear(ctx);
      map.insert(ctx, set.d_keys.span(), set.d_values.span());
      for (std::size_t done = 0; done < stale;) {
        const std::size_t m = std::min(stale - done, live);
        map.insert(ctx, set.d_keys.span().first(m), set.d_values.span().first(m));
        done += m;
      }
    };
    map_type map(ctx, {.batch_size = b, .capacity = n});
    const bench::work_description work{"lsm", "cleanup, n = 63·" + power_name(b) + ", " + std::to_string(percent) + "% stale", n,
                                       12.0 * static_cast<double>(n + live)};
    if (session.runs("sluice::lsm", bench::role::subject)) {
      const auto t = bench::time_device(ctx, [&] { build(map); }, [&] { map.cleanup(ctx); }, session.policy());
      bench::record_verified(session, work, "sluice::lsm", bench::role::subject, true, t, [&] {
        if (map.resident_size() != live) return false;
        device_buffer<std::uint32_t> found(ctx, live);
        found.fill_bytes(0xA5);
        map.lookup(ctx, set.d_keys.span(), found.span(), absent_value);
        return lookups_match(found, set.values);
      });
    }
    device_buffer<std::uint8_t> from(ctx, 12 * n), to(ctx, 12 * n);
    from.fill_bytes(1);
    bench::measure(session, work, "copy of the same bytes", bench::role::baseline, true, [&] {
      SLUICE_CUDA_CHECK(cudaMemcpyAsync(to.data(), from.data(), 12 * (n + live) / 2, cudaMemcpyDeviceToDevice, ctx.stream()));
    }, [] { return true; });
  }
}

SLUICE_BENCH_CASE("lsm", "bulk build vs radix sort pairs", gpu) {
  auto& ctx = session.gpu();
  const auto sizes = session.quick() ? std::vector<std::size_t>{std::size_t{1} << 22} : bench::powers_of_two(24, 26, 2);
  for (std::size_t n : sizes) {
    const key_set set(ctx, n);
    const bench::work_description work{"lsm", "bulk build, n = " + power_name(n), n, 16.0 * static_cast<double>(n)};
    map_type map(ctx, {.batch_size = std::size_t{1} << 16, .capacity = n});
    device_buffer<std::uint32_t> found(ctx, n);
    bench::measure(session, work, "sluice::lsm (b = 2^16)", bench::role::subject, true,
                   [&] { map.bulk_build(ctx, set.d_keys.span(), set.d_values.span()); }, [&] {
                     found.fill_bytes(0xA5);
                     map.lookup(ctx, set.d_keys.span(), found.span(), absent_value);
                     return lookups_match(found, set.values);
                   });
    device_buffer<std::uint32_t> sorted_keys(ctx, n), sorted_values(ctx, n);
    bench::measure(session, work, "sluice::radix_sort_pairs", bench::role::baseline, true,
                   [&] { sluice::radix_sort_pairs(ctx, set.d_keys.span(), set.d_values.span(), sorted_keys.span(), sorted_values.span()); },
                   [&] {
                     const auto k = sorted_keys.to_host();
                     return std::is_sorted(k.begin(), k.end());
                   });
  }
}

}  // namespace
