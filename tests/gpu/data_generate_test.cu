// GPU test: sluice::data::generate produces the same bits as generate_host, for every distribution
// and element type (so oracles may regenerate device inputs on the host).
#include <sluice/data/generate.cuh>

#include "support/compare.hpp"
#include "support/gpu_test.hpp"

#include <cstdint>

namespace {

using sluice::data::distribution;
using sluice::testing::gpu_test;

class DataGenerate : public gpu_test {};

template <class T>
void expect_device_matches_host(sluice::context& ctx, std::size_t n, const sluice::data::distribution_spec& spec) {
  sluice::device_buffer<T> out(ctx, n);
  out.fill_bytes(0xA5);
  sluice::data::generate(ctx, out.span(), spec);
  EXPECT_TRUE(sluice::testing::all_equal(out.to_host(), sluice::data::generate_host<T>(n, spec)))
      << to_string(spec.kind) << " range " << spec.range;
}

TEST_F(DataGenerate, DeviceEqualsHostForEveryDistribution) {
  const std::size_t n = sluice::testing::scaled_size((1 << 20) + 3, 4099);
  const std::pair<distribution, double> kinds[] = {
      {distribution::uniform, 0},  {distribution::all_equal, 0}, {distribution::sorted, 0},
      {distribution::reverse, 0},  {distribution::zipf, 1.1},    {distribution::binomial, 0},
      {distribution::alpha_uniform, 0.25}, {distribution::few_used, 7}};
  for (auto [kind, parameter] : kinds) {
    for (std::uint64_t range : {std::uint64_t{1}, std::uint64_t{33}, std::uint64_t{1} << 16}) {
      const sluice::data::distribution_spec spec{kind, range, parameter, 12345};
      if (kind == distribution::few_used && parameter > double(range)) continue;
      expect_device_matches_host<std::uint32_t>(ctx(), n, spec);
      expect_device_matches_host<std::int64_t>(ctx(), n, spec);
      expect_device_matches_host<float>(ctx(), n, spec);
      expect_device_matches_host<double>(ctx(), n, spec);
    }
  }
  for (distribution kind : {distribution::uniform, distribution::sorted, distribution::reverse}) {
    expect_device_matches_host<std::uint64_t>(ctx(), n, {kind, 0, 0.0, 99});
    expect_device_matches_host<std::uint8_t>(ctx(), n, {kind, 0, 0.0, 99});
    expect_device_matches_host<float>(ctx(), n, {kind, 0, 0.0, 99});
  }
}

TEST_F(DataGenerate, EmptyOutputIsANoOp) {
  sluice::device_buffer<std::uint32_t> none(ctx(), 0);
  EXPECT_NO_THROW(sluice::data::generate(ctx(), none.span(), {}));
}

}  // namespace
