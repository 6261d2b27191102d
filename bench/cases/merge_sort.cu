// Benchmarks: merge_sort and merge_sort_pairs (Karsin ch. 7) against cub::DeviceMergeSort on the same
// keys: u32 and u64 keys, u32 keys with u32 values, and a 16-byte struct {u64 a; u64 b} under a
// two-field comparator; uniform keys and the conflict-heavy permutation of data/merge_conflicts.hpp
// (built against the pairwise strategy's tuned E). Rows: the automatic default, pairwise, gpu_mms, radix
// where it applies (integral keys under std::less), and CUB's SortKeysCopy / SortPairsCopy in the same
// run; full mode adds pairwise at every compiled E and gpu_mms at every K.
// Sizes: 2^24 (quick), 2^20 … 2^28 step 2 (full).
// Bytes: keys (and values) read once and written once, the floor of any sort (8 per u32 key).
//
// Every row is verified against std::stable_sort of the same input generated on the host; CUB's
// *Copy sorts do not promise stability, so its pair rows are checked for sorted keys that each carry a
// value pointing back at an equal input key (a permutation of the pairs).
#include "harness/measure.hpp"

#include <sluice/data/generate.cuh>
#include <sluice/data/merge_conflicts.cuh>
#include <sluice/detail/merge_sort/tuning.hpp>
#include <sluice/merge_sort.cuh>

#include <cub/device/device_merge_sort.cuh>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

namespace {

using namespace sluice;

std::vector<std::size_t> sizes(const bench::case_context& session) {
  return session.quick() ? std::vector<std::size_t>{std::size_t{1} << 24} : bench::powers_of_two(20, 28, 2);
}

struct key16 {
  std::uint64_t a;
  std::uint64_t b;
  friend bool operator==(const key16&, const key16&) = default;
};
struct by_a_then_b {
  __host__ __device__ bool operator()(const key16& x, const key16& y) const {
    return x.a != y.a ? x.a < y.a : x.b < y.b;
  }
};

enum class input { uniform, conflict_heavy };

/// n 64-bit draws: uniform, or the conflict-heavy ranks for K's tuned E.
template <class K>
std::vector<std::uint64_t> draws(input kind, std::size_t n, std::uint64_t seed) {
  if (kind == input::uniform)
    return data::generate_host<std::uint64_t>(n, {data::distribution::uniform, 0, 0.0, seed});
  const data::merge_conflict_shape shape{detail::merge_sort::tuning::items_per_thread(sizeof(K)),
                                         static_cast<int>(128 / std::max<std::size_t>(sizeof(K), 4))};
  return data::generate_merge_conflicts_host<std::uint64_t>(n, shape);
}

/// Keys from the draws: integers take the low bits (conflict-heavy ranks stay distinct), the struct
/// takes a = the draw's top 24 bits (uniform: many equal a, ordered by b) and b = the draw.
template <class K>
std::vector<K> keys_of(input kind, std::size_t n, std::uint64_t seed) {
  const std::vector<std::uint64_t> d = draws<K>(kind, n, seed);
  std::vector<K> keys(n);
  for (std::size_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<K, key16>) keys[i] = kind == input::uniform ? key16{d[i] >> 40, d[i]} : key16{d[i], ~d[i]};
    else keys[i] = static_cast<K>(d[i]);
  }
  return keys;
}

/// The rows every case times: automatic, pairwise and gpu_mms at their tuned E and K; in full mode also
/// pairwise at every compiled E and gpu_mms at every K (Karsin Figs. 7.1 and 7.7: throughput against E, K).
std::vector<std::pair<std::string, merge_sort_options>> strategy_rows(const bench::case_context& session) {
  std::vector<std::pair<std::string, merge_sort_options>> rows{
      {"sluice::merge_sort", {}},
      {"sluice [pairwise]", {.algorithm = merge_sort_algorithm::pairwise}},
      {"sluice [gpu_mms]", {.algorithm = merge_sort_algorithm::gpu_mms}}};
  if (session.quick()) return rows;
  for (int items : detail::merge_sort::tuning::compiled_items)
    rows.push_back({"sluice [pairwise E=" + std::to_string(items) + "]",
                    {.algorithm = merge_sort_algorithm::pairwise, .items_per_thread = items}});
  for (int ways : {2, 4, 8, 16, 32})
    rows.push_back({"sluice [gpu_mms K=" + std::to_string(ways) + "]", {.algorithm = merge_sort_algorithm::gpu_mms, .ways = ways}});
  return rows;
}

/// The strategy a row runs as the dispatch resolves it, by the model's name.
template <class K, class Less>
std::string resolved(const merge_sort_options& options) {
  switch (detail::merge_sort::resolve<K, Less>("bench", options)) {
    case merge_sort_algorithm::pairwise: return "pairwise";
    case merge_sort_algorithm::gpu_mms: return "gpu_mms";
    case merge_sort_algorithm::radix: return "radix";
    case merge_sort_algorithm::automatic: break;
  }
  return "automatic";
}

/// The work of a sort of n keys of K (and values of V, no_values: none) under Less, for the rows and the
/// model: GPU-MMS tags its items where the order's stability is observable (gpu_mms.cuh's sort).
template <class K, class V, class Less>
bench::work_description sort_work(const std::string& name, std::size_t n) {
  constexpr std::size_t value_bytes = detail::has_values<V> ? sizeof(V) : 0;
  bench::work_description work{"merge_sort", name, n, 2.0 * static_cast<double>(sizeof(K) + value_bytes) * static_cast<double>(n)};
  work.model = model::problem{.family = "merge_sort",
                              .algorithm = "",
                              .n = n,
                              .key_bytes = sizeof(K),
                              .value_bytes = value_bytes,
                              .stability_observable = !detail::merge_sort::gpu_mms::stability_unobservable<K, Less>};
  return work;
}

/// The work of one strategy row: its resolved strategy, E and K.
template <class K, class Less>
bench::work_description row_work(const bench::work_description& work, const merge_sort_options& options) {
  std::string asked(to_string(options.algorithm));
  if (options.items_per_thread != 0) asked += " E=" + std::to_string(options.items_per_thread);
  if (options.ways != 0) asked += " K=" + std::to_string(options.ways);
  const std::string runs = resolved<K, Less>(options);
  bench::work_description w = work.running(runs).runs_strategy(asked, runs);
  w.model->items_per_thread = options.items_per_thread;
  w.model->ways = options.ways;
  return w;
}

template <class K, class Less>
void sort_keys_case(bench::case_context& session, const std::string& name, input kind, Less less) {
  auto& ctx = session.gpu();
  for (std::size_t n : sizes(session)) {
    const auto host = keys_of<K>(kind, n, n + 17);
    device_buffer<K> keys(ctx, std::span<const K>(host)), out(ctx, n);
    std::vector<K> expected(host);
    std::stable_sort(expected.begin(), expected.end(), less);
    auto verify = [&] { return out.to_host() == expected; };
    const bench::work_description work = sort_work<K, detail::no_values, Less>(name, n);
    auto rows = strategy_rows(session);
    if (detail::merge_sort::radix_orders<K, Less>) rows.push_back({"sluice [radix]", {.algorithm = merge_sort_algorithm::radix}});
    for (const auto& [row, options] : rows) {
      out.fill_bytes(0xA5);
      bench::measure(session, row_work<K, Less>(work, options), row, bench::role::subject, true,
                     [&] { merge_sort(ctx, keys.span(), out.span(), options, less); }, verify);
    }
    std::size_t temp_bytes = 0;
    const auto items = static_cast<std::int64_t>(n);
    SLUICE_CUDA_CHECK(cub::DeviceMergeSort::SortKeysCopy(nullptr, temp_bytes, keys.data(), out.data(), items, less,
                                                         ctx.stream()));
    device_buffer<char> temp(ctx, temp_bytes);
    out.fill_bytes(0xA5);
    bench::measure(session, work, "cub::DeviceMergeSort::SortKeysCopy", bench::role::baseline, true, [&] {
      SLUICE_CUDA_CHECK(cub::DeviceMergeSort::SortKeysCopy(temp.data(), temp_bytes, keys.data(), out.data(), items,
                                                           less, ctx.stream()));
    }, verify);
  }
}

void sort_pairs_case(bench::case_context& session, const std::string& name, input kind) {
  auto& ctx = session.gpu();
  for (std::size_t n : sizes(session)) {
    const auto host = keys_of<std::uint32_t>(kind, n, n + 19);
    std::vector<std::uint32_t> index(n);
    std::iota(index.begin(), index.end(), 0u);
    device_buffer<std::uint32_t> keys(ctx, std::span<const std::uint32_t>(host)),
        values(ctx, std::span<const std::uint32_t>(index)), out(ctx, n), out_values(ctx, n);
    std::vector<std::uint32_t> expected_values(index);
    std::stable_sort(expected_values.begin(), expected_values.end(),
                     [&](std::uint32_t x, std::uint32_t y) { return host[x] < host[y]; });
    std::vector<std::uint32_t> expected_keys(n);
    for (std::size_t i = 0; i < n; ++i) expected_keys[i] = host[expected_values[i]];
    auto verify = [&] { return out.to_host() == expected_keys && out_values.to_host() == expected_values; };
    auto verify_unstable = [&] {
      const auto got_values = out_values.to_host();
      if (out.to_host() != expected_keys) return false;
      std::vector<bool> seen(n);
      for (std::size_t i = 0; i < n; ++i) {
        const std::uint32_t v = got_values[i];
        if (v >= n || seen[v] || host[v] != expected_keys[i]) return false;
        seen[v] = true;
      }
      return true;
    };
    const bench::work_description work = sort_work<std::uint32_t, std::uint32_t, std::less<>>(name, n);
    auto rows = strategy_rows(session);
    rows.front().first = "sluice::merge_sort_pairs";
    rows.push_back({"sluice [radix]", {.algorithm = merge_sort_algorithm::radix}});
    for (const auto& [row, options] : rows) {
      out.fill_bytes(0xA5);
      out_values.fill_bytes(0xA5);
      bench::measure(session, row_work<std::uint32_t, std::less<>>(work, options), row, bench::role::subject, true, [&] {
        merge_sort_pairs(ctx, keys.span(), values.span(), out.span(), out_values.span(), options);
      }, verify);
    }
    std::size_t temp_bytes = 0;
    const auto items = static_cast<std::int64_t>(n);
    SLUICE_CUDA_CHECK(cub::DeviceMergeSort::SortPairsCopy(nullptr, temp_bytes, keys.data(), values.data(), out.data(),
                                                          out_values.data(), items, std::less<>{}, ctx.stream()));
    device_buffer<char> temp(ctx, temp_bytes);
    out.fill_bytes(0xA5);
    out_values.fill_bytes(0xA5);
    bench::measure(session, work, "cub::DeviceMergeSort::SortPairsCopy", bench::role::baseline, true, [&] {
      SLUICE_CUDA_CHECK(cub::DeviceMergeSort::SortPairsCopy(temp.data(), temp_bytes, keys.data(), values.data(),
                                                            out.data(), out_values.data(), items, std::less<>{},
                                                            ctx.stream()));
    }, verify_unstable);
  }
}

}  // namespace

SLUICE_BENCH_CASE("merge_sort", "sort u32 keys, uniform", gpu) {
  sort_keys_case<std::uint32_t>(session, "sort u32 keys, uniform", input::uniform, std::less<>{});
}
SLUICE_BENCH_CASE("merge_sort", "sort u32 keys, conflict-heavy", gpu) {
  sort_keys_case<std::uint32_t>(session, "sort u32 keys, conflict-heavy", input::conflict_heavy, std::less<>{});
}
SLUICE_BENCH_CASE("merge_sort", "sort u64 keys, uniform", gpu) {
  sort_keys_case<std::uint64_t>(session, "sort u64 keys, uniform", input::uniform, std::less<>{});
}
SLUICE_BENCH_CASE("merge_sort", "sort u64 keys, conflict-heavy", gpu) {
  sort_keys_case<std::uint64_t>(session, "sort u64 keys, conflict-heavy", input::conflict_heavy, std::less<>{});
}
SLUICE_BENCH_CASE("merge_sort", "sort u32/u32 pairs, uniform", gpu) {
  sort_pairs_case(session, "sort u32/u32 pairs, uniform", input::uniform);
}
SLUICE_BENCH_CASE("merge_sort", "sort u32/u32 pairs, conflict-heavy", gpu) {
  sort_pairs_case(session, "sort u32/u32 pairs, conflict-heavy", input::conflict_heavy);
}
SLUICE_BENCH_CASE("merge_sort", "sort 16-byte {a, b} keys by (a, b), uniform", gpu) {
  sort_keys_case<key16>(session, "sort 16-byte {a, b} keys by (a, b), uniform", input::uniform, by_a_then_b{});
}
SLUICE_BENCH_CASE("merge_sort", "sort 16-byte {a, b} keys by (a, b), conflict-heavy", gpu) {
  sort_keys_case<key16>(session, "sort 16-byte {a, b} keys by (a, b), conflict-heavy", input::conflict_heavy,
                        by_a_then_b{});
}
