// Benchmarks: radix_sort and radix_sort_pairs (Ashkiani §3.7.1, Table 3.8) against cub::DeviceRadixSort
// on the same uniform keys: full sorts of 2^28 u32 keys, u32 pairs (values = input positions, so the
// check is also one of stability) and u64 keys. Rows: the automatic default, each strategy by name
// (onesweep; multisplit at its automatic width; the split sort), the multisplit strategy at each pass
// width of the seed's sweep (r = 4 … 8; full runs only), and CUB in the same run.
// Bytes: keys (and values) read once and written once, the floor of any sort; the rows' % of copy
// shows how many passes each strategy pays for that.
//
// The expected output comes from sluice::host::radix_sort_keys / _pairs (the CPU backend, on all cores,
// tested equal to reference::radix_sort_keys / _pairs): the sequential oracle's index sort of 2^28 keys
// would take longer than the whole GPU case.
#include "harness/measure.hpp"

#include <sluice/data/generate.cuh>
#include <sluice/host/radix_sort.hpp>
#include <sluice/radix_sort.cuh>

#include <cub/device/device_radix_sort.cuh>

#include <numeric>
#include <string>
#include <vector>

namespace {

using namespace sluice;

constexpr std::size_t keys_count = std::size_t{1} << 28;

struct strategy {
  std::string name;
  radix_sort_options options;
};

/// The strategy a row runs, as the dispatch resolves it (the model's name for it).
std::string resolved(const radix_sort_options& options, std::size_t value_bytes) {
  switch (detail::radix_sort::resolve(options, value_bytes)) {
    case radix_sort_algorithm::onesweep: return "onesweep";
    case radix_sort_algorithm::multisplit: return "multisplit";
    case radix_sort_algorithm::split: return "split";
    case radix_sort_algorithm::automatic: break;
  }
  return "automatic";
}

/// The row's work as one of the strategy sweep: what it asks for ("multisplit r=6"), what runs.
bench::work_description strategy_work(const bench::work_description& work, const radix_sort_options& options,
                                      std::size_t value_bytes) {
  std::string asked(to_string(options.algorithm));
  if (options.bits_per_pass != 0) asked += " r=" + std::to_string(options.bits_per_pass);
  const std::string runs = resolved(options, value_bytes);
  return work.running(runs).runs_strategy(asked, runs);
}

/// The work of a sort of n keys (and values) as the rows and the model see it.
bench::work_description sort_work(const char* name, std::size_t n, std::size_t key_bytes, std::size_t value_bytes) {
  bench::work_description work{"radix_sort", name, n, 2.0 * static_cast<double>(key_bytes + value_bytes) * static_cast<double>(n)};
  work.model = model::problem{.family = "radix_sort", .algorithm = "", .n = n, .key_bytes = key_bytes, .value_bytes = value_bytes};
  return work;
}

/// The sluice rows of a case: automatic, onesweep, multisplit, the seed's r sweep (full runs), the split
/// sort.
std::vector<strategy> strategies(const bench::case_context& session) {
  std::vector<strategy> rows{{"sluice::radix_sort", {}},
                             {"sluice [onesweep]", {.algorithm = radix_sort_algorithm::onesweep}},
                             {"sluice [multisplit]", {.algorithm = radix_sort_algorithm::multisplit}}};
  if (!session.quick())
    for (int r = 4; r <= 8; ++r)
      rows.push_back({"sluice [multisplit r=" + std::to_string(r) + "]",
                      {.algorithm = radix_sort_algorithm::multisplit, .bits_per_pass = r}});
  rows.push_back({"sluice [split]", {.algorithm = radix_sort_algorithm::split}});
  return rows;
}

template <class K>
void sort_keys_case(bench::case_context& session, const char* name) {
  auto& ctx = session.gpu();
  const std::size_t n = keys_count;
  const data::distribution_spec spec{data::distribution::uniform, 0, 0.0, 281};
  device_buffer<K> keys(ctx, n), out(ctx, n);
  data::generate(ctx, keys.span(), spec);
  const auto host = data::generate_host<K>(n, spec);
  std::vector<K> expected(n);
  host::radix_sort_keys<K>(host, expected);
  auto verify = [&] { return out.to_host() == expected; };
  const bench::work_description work = sort_work(name, n, sizeof(K), 0);
  for (const strategy& s : strategies(session)) {
    out.fill_bytes(0xA5);
    bench::measure(session, strategy_work(work, s.options, 0), s.name, bench::role::subject, true,
                   [&] { radix_sort(ctx, keys.span(), out.span(), s.options); }, verify);
  }
  std::size_t temp_bytes = 0;
  const int items = static_cast<int>(n);
  SLUICE_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, keys.data(), out.data(), items, 0,
                                                   static_cast<int>(8 * sizeof(K)), ctx.stream()));
  device_buffer<char> temp(ctx, temp_bytes);
  out.fill_bytes(0xA5);
  bench::measure(session, work, "cub::DeviceRadixSort::SortKeys", bench::role::baseline, true, [&] {
    SLUICE_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp.data(), temp_bytes, keys.data(), out.data(), items, 0,
                                                     static_cast<int>(8 * sizeof(K)), ctx.stream()));
  }, verify);
}

}  // namespace

SLUICE_BENCH_CASE("radix_sort", "sort 2^28 u32 keys", gpu) {
  sort_keys_case<std::uint32_t>(session, "sort 2^28 u32 keys");
}

SLUICE_BENCH_CASE("radix_sort", "sort 2^28 u64 keys", gpu) {
  sort_keys_case<std::uint64_t>(session, "sort 2^28 u64 keys");
}

SLUICE_BENCH_CASE("radix_sort", "sort 2^28 u32 pairs", gpu) {
  auto& ctx = session.gpu();
  const std::size_t n = keys_count;
  const data::distribution_spec spec{data::distribution::uniform, 0, 0.0, 282};
  device_buffer<std::uint32_t> keys(ctx, n), values(ctx, n), out_keys(ctx, n), out_values(ctx, n);
  data::generate(ctx, keys.span(), spec);
  const auto host = data::generate_host<std::uint32_t>(n, spec);
  std::vector<std::uint32_t> positions(n);
  std::iota(positions.begin(), positions.end(), 0u);
  values.copy_from_host(positions);
  std::vector<std::uint32_t> expected_keys(n), expected_values(n);
  host::radix_sort_pairs<std::uint32_t, std::uint32_t>(host, positions, expected_keys, expected_values);
  auto verify = [&] { return out_keys.to_host() == expected_keys && out_values.to_host() == expected_values; };
  auto poison = [&] {
    out_keys.fill_bytes(0xA5);
    out_values.fill_bytes(0xA5);
  };
  const bench::work_description work = sort_work("sort 2^28 u32 pairs", n, 4, 4);
  for (const strategy& s : strategies(session)) {
    poison();
    bench::measure(session, strategy_work(work, s.options, 4), s.name, bench::role::subject, true, [&] {
      radix_sort_pairs(ctx, keys.span(), values.span(), out_keys.span(), out_values.span(), s.options);
    }, verify);
  }
  std::size_t temp_bytes = 0;
  const int items = static_cast<int>(n);
  SLUICE_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, keys.data(), out_keys.data(), values.data(),
                                                    out_values.data(), items, 0, 32, ctx.stream()));
  device_buffer<char> temp(ctx, temp_bytes);
  poison();
  bench::measure(session, work, "cub::DeviceRadixSort::SortPairs", bench::role::baseline, true, [&] {
    SLUICE_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.data(), temp_bytes, keys.data(), out_keys.data(),
                                                      values.data(), out_values.data(), items, 0, 32, ctx.stream()));
  }, verify);
}
