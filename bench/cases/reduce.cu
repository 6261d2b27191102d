// Benchmarks: sluice::reduce against cub::DeviceReduce on the same data. Bytes: n·sizeof(T) read (the
// single output is negligible); strategies that move more (dtu_global_tree's copy and global tree,
// the multi-pass partials) show it as a lower % of copy.
//
//   "sum u32":               the automatic choice against cub::DeviceReduce::Sum over a sweep of n
//                            (2^20, 2^24, 2^28 with --quick; 2^10 … 2^30 otherwise, issue 3).
//   "sum u32 by strategy":   every strategy (implementation "sluice::reduce [strategy]") against the same
//                            CUB baseline; n = 2^28 with --quick, 2^16 … 2^28 otherwise.
//   "affine composition u32x2": a non-commutative operator on 8-byte elements, the order-preserving
//                            strategies only. No baseline: cub::DeviceReduce documents that it "does not
//                            support binary reduction operators that are non-commutative"
//                            (cub/device/device_reduce.cuh), so it would not be the same work.
#include "harness/measure.hpp"

#include <sluice/core/launch.hpp>
#include <sluice/data/generate.cuh>
#include <sluice/reduce.cuh>
#include <sluice/reference/reduce.hpp>

#include <cub/device/device_reduce.cuh>

#include <span>
#include <string>
#include <vector>

namespace {

using namespace sluice;

std::string implementation_name(reduce_algorithm algorithm) {
  return "sluice::reduce [" + std::string(to_string(algorithm)) + "]";
}

std::vector<std::size_t> strategy_sizes(const bench::case_context& session) {
  return session.quick() ? std::vector<std::size_t>{std::size_t{1} << 28} : bench::powers_of_two(16, 28, 2);
}

/// A u32 sum problem: uniform input generated on the device, its oracle sum, and a 1-element output.
struct sum_u32_input {
  device_buffer<std::uint32_t> in, out;
  std::uint32_t expected;

  sum_u32_input(context& ctx, std::size_t n) : in(ctx, n), out(ctx, 1) {
    const data::distribution_spec spec{data::distribution::uniform, 0, 0.0, n + 17};
    data::generate(ctx, in.span(), spec);
    const auto host = data::generate_host<std::uint32_t>(n, spec);
    expected = reference::reduce<std::uint32_t>(host, 0u, plus{});
  }
  [[nodiscard]] bool verify() const { return out.to_host()[0] == expected; }
};

void measure_sluice_sum(bench::case_context& session, const bench::work_description& work, sum_u32_input& problem,
                        const std::string& implementation, reduce_options options) {
  auto& ctx = session.gpu();
  problem.out.fill_bytes(0xA5);
  // The model's name of the strategy the dispatch runs (automatic runs two_pass_tiles).
  const reduce_algorithm runs =
      options.algorithm == reduce_algorithm::automatic ? reduce_algorithm::two_pass_tiles : options.algorithm;
  bench::work_description modelled = work;
  modelled.model = model::problem{.family = "reduce", .algorithm = std::string(to_string(runs)), .n = work.items,
                                  .key_bytes = sizeof(std::uint32_t)};
  // "sum u32" (automatic) and "sum u32 by strategy" are one sweep of the strategies.
  bench::measure(session, modelled.runs(options.algorithm, runs, "sum u32"), implementation, bench::role::subject, true,
                 [&] { reduce(ctx, problem.in.span(), problem.out.data(), 0u, plus{}, options); },
                 [&] { return problem.verify(); });
}

void measure_cub_sum(bench::case_context& session, const bench::work_description& work, sum_u32_input& problem) {
  auto& ctx = session.gpu();
  const std::size_t n = problem.in.size();
  std::size_t temp_bytes = 0;
  SLUICE_CUDA_CHECK(
      cub::DeviceReduce::Sum(nullptr, temp_bytes, problem.in.data(), problem.out.data(), n, ctx.stream()));
  device_buffer<char> temp(ctx, temp_bytes);
  problem.out.fill_bytes(0xA5);
  bench::measure(session, work, "cub::DeviceReduce::Sum", bench::role::baseline, true, [&] {
    SLUICE_CUDA_CHECK(
        cub::DeviceReduce::Sum(temp.data(), temp_bytes, problem.in.data(), problem.out.data(), n, ctx.stream()));
  }, [&] { return problem.verify(); });
}

using affine_u32 = affine<std::uint32_t>;

/// maps[i] = (words[2i] | 1)·x + words[2i + 1]: odd multipliers, so that no prefix of the composition
/// collapses to a constant and every map takes part in the verified result.
__global__ void affine_maps_kernel(const std::uint32_t* words, affine_u32* maps, std::size_t n) {
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += stride)
    maps[i] = {words[2 * i] | 1u, words[2 * i + 1]};
}

}  // namespace

SLUICE_BENCH_CASE("reduce", "sum u32", gpu) {
  const auto sizes = session.quick()
                         ? std::vector<std::size_t>{std::size_t{1} << 20, std::size_t{1} << 24, std::size_t{1} << 28}
                         : bench::powers_of_two(10, 30, 2);
  for (std::size_t n : sizes) {
    sum_u32_input problem(session.gpu(), n);
    const bench::work_description work{"reduce", "sum u32", n, 4.0 * static_cast<double>(n)};
    measure_sluice_sum(session, work, problem, "sluice::reduce", {});
    measure_cub_sum(session, work, problem);
  }
}

SLUICE_BENCH_CASE("reduce", "sum u32 by strategy", gpu) {
  constexpr reduce_algorithm strategies[] = {
      reduce_algorithm::two_pass_tiles,    reduce_algorithm::dtu_global_tree,
      reduce_algorithm::dtu_shared_tree,   reduce_algorithm::palik_interleaved,
      reduce_algorithm::palik_sequential_addressing,
      reduce_algorithm::warp_shuffle,
  };
  for (std::size_t n : strategy_sizes(session)) {
    sum_u32_input problem(session.gpu(), n);
    const bench::work_description work{"reduce", "sum u32 by strategy", n, 4.0 * static_cast<double>(n)};
    for (reduce_algorithm algorithm : strategies)
      measure_sluice_sum(session, work, problem, implementation_name(algorithm), {algorithm});
    measure_cub_sum(session, work, problem);
  }
}

SLUICE_BENCH_CASE("reduce", "affine composition u32x2", gpu) {
  constexpr reduce_algorithm strategies[] = {reduce_algorithm::two_pass_tiles, reduce_algorithm::palik_interleaved,
                                             reduce_algorithm::warp_shuffle};
  auto& ctx = session.gpu();
  for (std::size_t n : strategy_sizes(session)) {
    const data::distribution_spec spec{data::distribution::uniform, 0, 0.0, n + 29};
    device_buffer<affine_u32> in(ctx, n), out(ctx, 1);
    {
      device_buffer<std::uint32_t> words(ctx, 2 * n);
      data::generate(ctx, words.span(), spec);
      const std::size_t grid = detail::one_wave_grid(ctx, affine_maps_kernel, 256, detail::ceil_div(n, 256));
      affine_maps_kernel<<<static_cast<unsigned>(grid), 256, 0, ctx.stream()>>>(words.data(), in.data(), n);
      SLUICE_CHECK_LAUNCH();
    }
    const affine_u32 init{1u, 0u};
    affine_u32 expected;
    {
      const auto words = data::generate_host<std::uint32_t>(2 * n, spec);
      std::vector<affine_u32> maps(n);
      for (std::size_t i = 0; i < n; ++i) maps[i] = {words[2 * i] | 1u, words[2 * i + 1]};
      expected = reference::reduce<affine_u32>(maps, init, affine_compose{});
    }
    const bench::work_description work{"reduce", "affine composition u32x2", n,
                                       static_cast<double>(n * sizeof(affine_u32))};
    for (reduce_algorithm algorithm : strategies) {
      out.fill_bytes(0xA5);
      bench::measure(session, work, implementation_name(algorithm), bench::role::subject, true,
                     [&] { reduce(ctx, in.span(), out.data(), init, affine_compose{}, {algorithm}); },
                     [&] { return out.to_host()[0] == expected; });
    }
  }
}
