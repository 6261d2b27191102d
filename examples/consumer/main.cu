// A minimal program built on sluice: sums a million generated integers on the GPU and checks the
// result on the host. Without a GPU it says so and exits successfully (it runs in CI).
#include <sluice/core/device_buffer.hpp>
#include <sluice/data/generate.cuh>
#include <sluice/reduce.cuh>

#include <cstdio>
#include <numeric>

int main() {
  std::string reason;
  if (sluice::cuda_device_count(&reason) == 0) {
    std::printf("consumer: built against sluice; no GPU to run on (%s)\n", reason.c_str());
    return 0;
  }
  sluice::context ctx;
  const std::size_t n = 1 << 20;
  const sluice::data::distribution_spec spec{sluice::data::distribution::uniform, 1000, 0.0, 1};
  sluice::device_buffer<unsigned> values(ctx, n), sum(ctx, 1);
  sluice::data::generate(ctx, values.span(), spec);
  sluice::reduce(ctx, values.span(), sum.data(), 0u);
  const auto host = sluice::data::generate_host<unsigned>(n, spec);
  const unsigned expected = std::accumulate(host.begin(), host.end(), 0u);
  const unsigned got = sum.to_host()[0];
  std::printf("consumer: sum of %zu values = %u (%s)\n", n, got, got == expected ? "correct" : "WRONG");
  return got == expected ? 0 : 1;
}
