// Benchmarks of the order-preserving multireduce strategies with a non-commutative operator (issue 5
// target: m ≤ 1024 at ≥ 5× the sort + reduce-by-key baseline): 2^28 pairs of a u32 label and an
// affine<u32> value composed per bucket, labels uniform or all equal, m swept. Baselines in the same run:
// the issue's, Thrust's stable_sort_by_key + reduce_by_key on copies of the pairs ("vs base" is against
// it), and CUB's stable radix sort of (label, value) pairs over the bits of m − 1 only, then
// cub::DeviceReduce::ReduceByKey with the same operator (no copies, fewer bits: faster than Thrust).
// Bytes: the pairs read once (12 per pair) and the m buckets written once. Where m ≤ vector_max_buckets
// the vector strategy runs too, and warp_private_sets wherever its sets fit the device's shared memory;
// the tiny-m case (m = 2, 4, 5, 8) sets plan.hpp's vector threshold against block_sort_segmented.
#include "cases/ordered_inputs.hpp"

#include <sluice/detail/multireduce/vector.cuh>
#include <sluice/multireduce.cuh>
#include <sluice/reference/multireduce.hpp>

#include <cub/device/device_reduce.cuh>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/reduce.h>
#include <thrust/sort.h>

#include <string>
#include <vector>

namespace {

using namespace sluice;
using bench::ordered::affine;

/// The issue's baseline, what a Thrust user writes: copies of the pairs (the sort is in place),
/// thrust::stable_sort_by_key, then thrust::reduce_by_key with the same operator. Measured first, so
/// that "vs base" is against it; CUB's sort + ReduceByKey follows as a second baseline row.
void thrust_sort_reduce_by_key(bench::case_context& session, const bench::work_description& work,
                               const device_buffer<std::uint32_t>& labels, const device_buffer<affine>& values,
                               std::uint32_t m, const std::vector<affine>& expected) {
  auto& ctx = session.gpu();
  const std::size_t n = labels.size();
  device_buffer<std::uint32_t> keys(ctx, n), unique(ctx, std::min<std::size_t>(n, m));
  device_buffer<affine> sorted(ctx, n), aggregates(ctx, std::min<std::size_t>(n, m));
  std::size_t runs = 0;
  const auto policy = thrust::cuda::par.on(ctx.stream());
  auto verify = [&] {
    const auto k = unique.to_host();
    const auto v = aggregates.to_host();
    for (std::size_t i = 0; i < runs; ++i)
      if (!(v[i] == expected[k[i]])) return false;
    return runs > 0;
  };
  unique.fill_bytes(0xA5);
  aggregates.fill_bytes(0xA5);
  bench::measure(session, work, "thrust stable_sort_by_key + reduce_by_key", bench::role::baseline, true, [&] {
    SLUICE_CUDA_CHECK(cudaMemcpyAsync(keys.data(), labels.data(), n * sizeof(std::uint32_t), cudaMemcpyDeviceToDevice,
                                      ctx.stream()));
    SLUICE_CUDA_CHECK(
        cudaMemcpyAsync(sorted.data(), values.data(), n * sizeof(affine), cudaMemcpyDeviceToDevice, ctx.stream()));
    thrust::stable_sort_by_key(policy, keys.data(), keys.data() + n, sorted.data());
    const auto ends = thrust::reduce_by_key(policy, keys.data(), keys.data() + n, sorted.data(), unique.data(),
                                            aggregates.data(), thrust::equal_to<std::uint32_t>{}, affine_compose{});
    runs = static_cast<std::size_t>(ends.first - unique.data());
  }, verify);
}

void multireduce_ordered_case(bench::case_context& session, std::uint32_t m, data::distribution d) {
  auto& ctx = session.gpu();
  const std::size_t n = bench::ordered::pair_count(session);
  const auto in = bench::ordered::make_input(n, m, d);
  const auto expected = reference::multireduce(std::span<const std::uint32_t>(in.labels),
                                               std::span<const affine>(in.values), m, affine_compose{}, affine{1, 0});
  const device_buffer<std::uint32_t> labels(ctx, std::span<const std::uint32_t>(in.labels));
  const device_buffer<affine> values(ctx, std::span<const affine>(in.values));
  device_buffer<affine> out(ctx, m);
  const std::string name = "affine u32, m = " + std::to_string(m) + ", " + in.label_name;
  const bench::work_description work{"multireduce", name, n, 12.0 * static_cast<double>(n) + 8.0 * m};
  auto verify = [&] { return out.to_host() == expected.buckets; };
  std::vector<multireduce_algorithm> strategies{multireduce_algorithm::automatic, multireduce_algorithm::block_sort_segmented,
                                                multireduce_algorithm::global_sort_reduce_by_key};
  if (m <= detail::multireduce::tuning::vector_max_buckets) strategies.push_back(multireduce_algorithm::vector);
  const detail::multireduce::problem problem{false, false, sizeof(affine), m,
                                             detail::multireduce::device_shared_budget(ctx, 0)};
  if (detail::multireduce::strategy_problem(multireduce_algorithm::warp_private_sets, problem).empty())
    strategies.push_back(multireduce_algorithm::warp_private_sets);
  for (const multireduce_algorithm algorithm : strategies) {
    out.fill_bytes(0xA5);
    const auto resolved =
        detail::multireduce::resolve<affine, affine_compose>(ctx, "bench", m, n, {.algorithm = algorithm}).algorithm;
    bench::measure(session, work.runs(algorithm, resolved), "sluice::multireduce " + std::string(to_string(algorithm)),
                   bench::role::subject, true,
                   [&] { multireduce(ctx, labels.span(), values.span(), out.span(), affine_compose{}, nullptr, {.algorithm = algorithm}); },
                   verify);
  }
  thrust_sort_reduce_by_key(session, work, labels, values, m, expected.buckets);
  device_buffer<std::uint32_t> sorted_labels(ctx, n), unique(ctx, std::min<std::size_t>(n, m));
  device_buffer<affine> sorted_values(ctx, n), aggregates(ctx, std::min<std::size_t>(n, m));
  device_buffer<std::size_t> runs(ctx, 1);
  bench::ordered::label_sort<affine> sort(ctx, n, m);
  std::size_t temp_bytes = 0;
  SLUICE_CUDA_CHECK(cub::DeviceReduce::ReduceByKey(nullptr, temp_bytes, sorted_labels.data(), unique.data(),
                                                   sorted_values.data(), aggregates.data(), runs.data(),
                                                   affine_compose{}, n, ctx.stream()));
  device_buffer<char> temp(ctx, temp_bytes);
  auto verify_baseline = [&] {
    const auto k = unique.to_host();
    const auto v = aggregates.to_host();
    const std::size_t r = runs.to_host()[0];
    for (std::size_t i = 0; i < r; ++i)
      if (!(v[i] == expected.buckets[k[i]])) return false;
    return true;
  };
  unique.fill_bytes(0xA5);
  aggregates.fill_bytes(0xA5);
  bench::measure(session, work, "cub SortPairs + ReduceByKey", bench::role::baseline, true, [&] {
    sort(labels.data(), values.data(), sorted_labels.data(), sorted_values.data());
    SLUICE_CUDA_CHECK(cub::DeviceReduce::ReduceByKey(temp.data(), temp_bytes, sorted_labels.data(), unique.data(),
                                                     sorted_values.data(), aggregates.data(), runs.data(),
                                                     affine_compose{}, n, ctx.stream()));
  }, verify_baseline);
}

}  // namespace

SLUICE_BENCH_CASE("multireduce", "non-commutative affine u32, m swept", gpu) {
  for (const std::uint32_t m : bench::ordered::bucket_sweep(session))
    for (const data::distribution d : {data::distribution::uniform, data::distribution::all_equal})
      multireduce_ordered_case(session, m, d);
}

SLUICE_BENCH_CASE("multireduce", "non-commutative affine u32, tiny m (vector)", gpu) {
  const std::vector<std::uint32_t> tiny = session.quick() ? std::vector<std::uint32_t>{4, 8}
                                                          : std::vector<std::uint32_t>{2, 4, 5, 8};
  for (const std::uint32_t m : tiny)
    for (const data::distribution d : {data::distribution::uniform, data::distribution::all_equal})
      multireduce_ordered_case(session, m, d);
}
