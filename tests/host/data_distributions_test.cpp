// Host tests of sluice/data/distributions.hpp: each distribution has the shape its name promises,
// generation is deterministic in the seed, and bad specs are rejected. (That the device produces
// the same bits is tests/gpu/data_generate_test.cu.)
#include <sluice/data/distributions.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <vector>

namespace {

using sluice::data::distribution;
using sluice::data::distribution_spec;
using sluice::data::generate_host;

TEST(Distributions, SameSeedSameDataOtherSeedOtherData) {
  const distribution_spec a{distribution::uniform, 0, 0.0, 5};
  distribution_spec b = a;
  b.seed = 6;
  EXPECT_EQ(generate_host<std::uint32_t>(1000, a), generate_host<std::uint32_t>(1000, a));
  EXPECT_NE(generate_host<std::uint32_t>(1000, a), generate_host<std::uint32_t>(1000, b));
  // A prefix does not depend on n for the position-free distributions.
  const auto longer = generate_host<std::uint32_t>(2000, a);
  EXPECT_TRUE(std::equal(longer.begin(), longer.begin() + 1000, generate_host<std::uint32_t>(1000, a).begin()));
}

TEST(Distributions, UniformCoversTheRangeEvenly) {
  const std::uint64_t m = 64;
  const auto v = generate_host<std::uint32_t>(1 << 18, {distribution::uniform, m, 0.0, 1});
  std::vector<std::size_t> count(m);
  for (auto x : v) {
    ASSERT_LT(x, m);
    ++count[x];
  }
  const double expected = static_cast<double>(v.size()) / static_cast<double>(m);
  for (auto c : count) EXPECT_NEAR(static_cast<double>(c), expected, 6 * std::sqrt(expected));
}

TEST(Distributions, FullRangeUsesHighBits) {
  const auto v = generate_host<std::uint64_t>(4096, {distribution::uniform, 0, 0.0, 2});
  EXPECT_GT(*std::max_element(v.begin(), v.end()), std::uint64_t{1} << 63);
  const auto s = generate_host<std::int32_t>(4096, {distribution::uniform, 0, 0.0, 2});
  EXPECT_LT(*std::min_element(s.begin(), s.end()), 0);  // signed types get negative values too
}

TEST(Distributions, AllEqualIsOneSeedDependentValue) {
  const auto v = generate_host<std::uint32_t>(1000, {distribution::all_equal, 1000, 0.0, 3});
  EXPECT_TRUE(std::all_of(v.begin(), v.end(), [&](auto x) { return x == v[0]; }));
  EXPECT_LT(v[0], 1000u);
  const auto w = generate_host<std::uint32_t>(1000, {distribution::all_equal, 0, 0.0, 4});
  EXPECT_NE(v[0], w[0]);
}

TEST(Distributions, SortedAndReverseStaircases) {
  const std::size_t n = 1000;
  const auto up = generate_host<std::uint32_t>(n, {distribution::sorted, 10, 0.0, 1});
  const auto down = generate_host<std::uint32_t>(n, {distribution::reverse, 10, 0.0, 1});
  EXPECT_TRUE(std::is_sorted(up.begin(), up.end()));
  EXPECT_TRUE(std::is_sorted(down.rbegin(), down.rend()));
  EXPECT_EQ(up.front(), 0u);
  EXPECT_EQ(up.back(), 9u);
  EXPECT_EQ(std::set<std::uint32_t>(up.begin(), up.end()).size(), 10u);
  for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(down[i], 9u - up[i]);
  const auto full = generate_host<std::uint64_t>(n, {distribution::sorted, 0, 0.0, 1});
  EXPECT_TRUE(std::is_sorted(full.begin(), full.end()));
  EXPECT_GT(full.back(), std::uint64_t{1} << 63);
}

TEST(Distributions, ZipfFrequenciesFollowThePowerLaw) {
  const double s = 1.0;
  const auto v = generate_host<std::uint32_t>(1 << 20, {distribution::zipf, 1024, s, 7});
  std::vector<double> count(1024);
  for (auto x : v) ++count.at(x);
  // P(k) ∝ 1/(k+1): rank 0 is twice rank 1 and ten times rank 9.
  EXPECT_NEAR(count[0] / count[1], 2.0, 0.1);
  EXPECT_NEAR(count[0] / count[9], 10.0, 0.6);
  double harmonic = 0;
  for (int k = 1; k <= 1024; ++k) harmonic += 1.0 / k;
  EXPECT_NEAR(count[0] / static_cast<double>(v.size()), 1.0 / harmonic, 0.005);
}

TEST(Distributions, BinomialIsCentredWithTheRightSpread) {
  const std::uint64_t m = 256;  // B(255, 1/2): mean 127.5, sd 7.98
  const auto v = generate_host<std::uint32_t>(1 << 18, {distribution::binomial, m, 0.0, 8});
  double sum = 0, sq = 0;
  for (auto x : v) {
    sum += x;
    sq += double(x) * x;
  }
  const double mean = sum / static_cast<double>(v.size());
  EXPECT_NEAR(mean, 127.5, 0.1);
  EXPECT_NEAR(std::sqrt(sq / static_cast<double>(v.size()) - mean * mean), std::sqrt(255 / 4.0), 0.1);
  // Ashkiani Table 3.6: about 72% of 256 buckets stay empty at n = 2^25.
  EXPECT_GT(256 - std::set<std::uint32_t>(v.begin(), v.end()).size(), 150u);
}

TEST(Distributions, AlphaUniformPutsTheRestInOneBucket) {
  const auto v = generate_host<std::uint32_t>(1 << 18, {distribution::alpha_uniform, 256, 0.25, 9});
  std::map<std::uint32_t, std::size_t> count;
  for (auto x : v) ++count[x];
  const auto heavy = std::max_element(count.begin(), count.end(), [](auto& a, auto& b) { return a.second < b.second; });
  // 75% in the heavy bucket, plus its share of the uniform quarter.
  EXPECT_NEAR(static_cast<double>(heavy->second) / static_cast<double>(v.size()), 0.75 + 0.25 / 256, 0.01);
  EXPECT_GT(count.size(), 250u);
}

TEST(Distributions, FewUsedValues) {
  const auto v = generate_host<std::uint32_t>(1 << 16, {distribution::few_used, 1 << 20, 5.0, 10});
  const std::set<std::uint32_t> used(v.begin(), v.end());
  EXPECT_EQ(used.size(), 5u);
  EXPECT_TRUE(std::all_of(used.begin(), used.end(), [](auto x) { return x < (1u << 20); }));
}

TEST(Distributions, FloatsAreExactStepsInUnitInterval) {
  const auto f = generate_host<float>(1 << 16, {distribution::uniform, 0, 0.0, 11});
  for (float x : f) {
    ASSERT_GE(x, 0.0f);
    ASSERT_LT(x, 1.0f);
    ASSERT_EQ(x * 16777216.0f, std::floor(x * 16777216.0f));  // a multiple of 2^-24
  }
  const auto d = generate_host<double>(1 << 10, {distribution::sorted, 0, 0.0, 11});
  EXPECT_TRUE(std::is_sorted(d.begin(), d.end()));
}

TEST(Distributions, BadSpecsAreRejected) {
  using sluice::invalid_argument;
  EXPECT_THROW(generate_host<std::uint8_t>(4, {distribution::uniform, 1000, 0.0, 1}), invalid_argument);
  EXPECT_THROW(generate_host<std::uint32_t>(4, {distribution::zipf, std::uint64_t{1} << 25, 1.0, 1}), invalid_argument);
  EXPECT_THROW(generate_host<std::uint32_t>(4, {distribution::alpha_uniform, 16, 1.5, 1}), invalid_argument);
  EXPECT_THROW(generate_host<std::uint32_t>(4, {distribution::few_used, 16, 0.0, 1}), invalid_argument);
  EXPECT_THROW(generate_host<std::uint32_t>(4, {distribution::few_used, 16, 17.0, 1}), invalid_argument);
  EXPECT_THROW(generate_host<float>(4, {distribution::uniform, std::uint64_t{1} << 25, 0.0, 1}), invalid_argument);
}

}  // namespace
