// Benchmark: the first-order linear recurrence x_i = a_i·x_{i−1} + b_i in float (issue target: ≥ 80% of
// copy bandwidth). Baseline: the same scan of (a, b) pairs through cub::DeviceScan::InclusiveScan with
// fancy iterators. Bytes: a and b read, x written (12 bytes per element).
#include "harness/measure.hpp"

#include <sluice/data/generate.cuh>
#include <sluice/recurrence.cuh>
#include <sluice/reference/recurrence.hpp>

#include <cub/device/device_scan.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/transform_output_iterator.h>

#include <cmath>

namespace {
struct read_step {
  const float* a;
  const float* b;
  __device__ sluice::recurrence_step<float, float> operator()(std::size_t i) const { return {a[i], b[i]}; }
};
struct state_only {
  __device__ float operator()(const sluice::recurrence_step<float, float>& s) const { return s.b; }
};
}  // namespace

SLUICE_BENCH_CASE("recurrence", "first-order linear f32", gpu) {
  using namespace sluice;
  auto& ctx = session.gpu();
  const std::size_t n = std::size_t{1} << 28;
  device_buffer<float> a(ctx, n), b(ctx, n), x(ctx, n);
  data::generate(ctx, a.span(), {data::distribution::uniform, 0, 0.0, 1});
  data::generate(ctx, b.span(), {data::distribution::uniform, 0, 0.0, 2});
  // The oracle in double over a prefix and a suffix window: the recurrence forgets its past at rate a < 1,
  // so checking every element against a float loop would test the loop's rounding, not the scan.
  const auto ha = data::generate_host<float>(n, {data::distribution::uniform, 0, 0.0, 1});
  const auto hb = data::generate_host<float>(n, {data::distribution::uniform, 0, 0.0, 2});
  const std::vector<double> a64(ha.begin(), ha.end()), b64(hb.begin(), hb.end());
  const auto expected = reference::linear_recurrence(std::span<const double>(a64), std::span<const double>(b64), plus{},
                                                     multiplies{});
  auto verify = [&] {
    const auto got = x.to_host();
    for (std::size_t i = 0; i < n; ++i)
      if (!(std::abs(got[i] - expected[i]) <= 1e-4 * std::max(1.0, std::abs(expected[i])))) return false;
    return true;
  };
  const bench::work_description work{"recurrence", "first-order linear f32", n, 12.0 * static_cast<double>(n)};
  bench::work_description modelled = work;
  modelled.model = model::problem{.family = "recurrence", .algorithm = "first_order_linear", .n = n, .key_bytes = 4};
  x.fill_bytes(0xFF);
  bench::measure(session, modelled, "sluice::first_order_linear_recurrence", bench::role::subject, true,
                 [&] { first_order_linear_recurrence(ctx, a.span(), b.span(), x.span()); }, verify);

  auto steps = thrust::make_transform_iterator(thrust::make_counting_iterator<std::size_t>(0), read_step{a.data(), b.data()});
  auto states = thrust::make_transform_output_iterator(x.data(), state_only{});
  const recurrence_step_op<plus, multiplies, multiplies> op{};
  std::size_t temp_bytes = 0;
  SLUICE_CUDA_CHECK(cub::DeviceScan::InclusiveScan(nullptr, temp_bytes, steps, states, op, n, ctx.stream()));
  device_buffer<char> temp(ctx, temp_bytes);
  x.fill_bytes(0xFF);
  bench::measure(session, work, "cub::DeviceScan::InclusiveScan (pairs)", bench::role::baseline, true, [&] {
    SLUICE_CUDA_CHECK(cub::DeviceScan::InclusiveScan(temp.data(), temp_bytes, steps, states, op, n, ctx.stream()));
  }, verify);
}
