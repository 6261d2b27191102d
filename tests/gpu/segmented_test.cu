// GPU tests of the segmented family against the reference: head flags and offsets (empty segments,
// elements outside every segment), runs of keys, commutative and non-commutative operators (exact),
// segment lengths from 1 to one huge segment, output truncation, and bad input.
#include <sluice/data/generate.cuh>
#include <sluice/reference/by_key.hpp>
#include <sluice/reference/segmented.hpp>
#include <sluice/segmented.cuh>

#include "support/compare.hpp"
#include "support/gpu_test.hpp"
#include "support/tile_sizes.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

namespace {

using sluice::testing::gpu_test;
using sluice::testing::all_equal;

class Segmented : public gpu_test {};

using affine = sluice::affine<std::uint32_t>;

template <class T>
std::vector<T> uniform(std::size_t n, std::uint64_t seed, std::uint64_t range = 0) {
  return sluice::data::generate_host<T>(n, {sluice::data::distribution::uniform, range, 0.0, seed});
}

std::vector<affine> affine_values(std::size_t n, std::uint64_t seed) {
  const auto w = uniform<std::uint32_t>(2 * n, seed);
  std::vector<affine> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = {w[2 * i] | 1u, w[2 * i + 1]};
  return v;
}

/// Head flags with a head every `mean_length` elements on average (flags[0] left random on purpose:
/// the library treats it as set).
std::vector<std::uint8_t> random_flags(std::size_t n, std::size_t mean_length, std::uint64_t seed) {
  const auto r = uniform<std::uint32_t>(n, seed, mean_length);
  std::vector<std::uint8_t> flags(n);
  for (std::size_t i = 0; i < n; ++i) flags[i] = r[i] == 0;
  return flags;
}

/// Offsets over [front, back) with random segment lengths in [0, 2·mean] (so some are empty).
std::vector<std::size_t> random_offsets(std::size_t n, std::size_t mean_length, std::size_t front, std::size_t back,
                                        std::uint64_t seed) {
  std::vector<std::size_t> offsets{front};
  const auto r = uniform<std::uint32_t>(n + 2, seed, 2 * mean_length + 1);
  for (std::size_t k = 0; offsets.back() < back; ++k) offsets.push_back(std::min(back, offsets.back() + r[k % r.size()]));
  return offsets;
}

const std::vector<std::size_t> sizes =
    sluice::testing::with_single_pass_tile_sizes(std::vector<std::size_t>{1, 2, 31, 33, 2047, 2049, 4097, 100003, (std::size_t{1} << 20) + 7});
const std::size_t mean_lengths[] = {1, 3, 16, 256, 5000, std::size_t{1} << 30};

template <class T, class Op>
void check_flags_forms(sluice::context& ctx, const std::vector<T>& host, const std::vector<std::uint8_t>& flags, T init,
                       Op op) {
  const std::span<const T> v(host);
  const std::span<const std::uint8_t> f(flags);
  sluice::device_buffer<T> values(ctx, v), out(ctx, host.size());
  const sluice::device_buffer<std::uint8_t> d_flags(ctx, f);
  sluice::device_buffer<std::size_t> count(ctx, 1);
  for (unsigned char poison : sluice::testing::poison_patterns) {
    out.fill_bytes(poison);
    sluice::segmented_inclusive_scan(ctx, values.span(), d_flags.span(), out.span(), op);
    ASSERT_TRUE(all_equal(out.to_host(), sluice::reference::segmented_inclusive_scan_flags(v, f, op)))
        << "inclusive, n = " << host.size();
    out.fill_bytes(poison);
    sluice::segmented_exclusive_scan(ctx, values.span(), d_flags.span(), out.span(), init, op);
    ASSERT_TRUE(all_equal(out.to_host(), sluice::reference::segmented_exclusive_scan_flags(v, f, init, op)))
        << "exclusive, n = " << host.size();
    const auto expected = sluice::reference::segmented_reduce_flags(v, f, init, op);
    sluice::device_buffer<T> sums(ctx, expected.size());
    sums.fill_bytes(poison);
    count.fill_bytes(poison);
    sluice::segmented_reduce(ctx, values.span(), d_flags.span(), sums.span(), init, op, count.data());
    ASSERT_TRUE(all_equal(sums.to_host(), expected)) << "reduce, n = " << host.size();
    ASSERT_EQ(count.to_host()[0], expected.size());
  }
}

constexpr sluice::segmented_algorithm reduce_algorithms[] = {
    sluice::segmented_algorithm::automatic, sluice::segmented_algorithm::flat, sluice::segmented_algorithm::merge_path};

template <class T, class Op>
void check_offsets_forms(sluice::context& ctx, const std::vector<T>& host, const std::vector<std::size_t>& offsets,
                         T init, Op op) {
  const std::span<const T> v(host);
  const std::span<const std::size_t> o(offsets);
  sluice::device_buffer<T> values(ctx, v), out(ctx, host.size()), sums(ctx, offsets.size() - 1);
  const sluice::device_buffer<std::size_t> d_offsets(ctx, o);
  for (unsigned char poison : sluice::testing::poison_patterns) {
    out.fill_bytes(poison);
    sluice::segmented_inclusive_scan(ctx, values.span(), d_offsets.span(), out.span(), op);
    ASSERT_TRUE(all_equal(out.to_host(), sluice::reference::segmented_inclusive_scan_offsets(v, o, op)))
        << "inclusive, n = " << host.size() << ", segments " << offsets.size() - 1;
    out.fill_bytes(poison);
    sluice::segmented_exclusive_scan(ctx, values.span(), d_offsets.span(), out.span(), init, op);
    ASSERT_TRUE(all_equal(out.to_host(), sluice::reference::segmented_exclusive_scan_offsets(v, o, init, op)))
        << "exclusive, n = " << host.size();
    const auto expected = sluice::reference::segmented_reduce_offsets(v, o, init, op);
    for (auto algorithm : reduce_algorithms) {
      sums.fill_bytes(poison);
      sluice::segmented_reduce(ctx, values.span(), d_offsets.span(), sums.span(), init, op, {.algorithm = algorithm});
      ASSERT_TRUE(all_equal(sums.to_host(), expected))
          << "reduce (" << static_cast<int>(algorithm) << "), n = " << host.size() << ", segments "
          << offsets.size() - 1;
    }
  }
}

TEST_F(Segmented, PalikTable) {
  const std::vector<std::uint32_t> a{5, 1, 3, 4, 3, 9, 2, 6};
  const std::vector<std::uint8_t> f{1, 0, 1, 0, 0, 0, 1, 0};
  check_flags_forms(ctx(), a, f, 0u, sluice::plus{});
  check_flags_forms(ctx(), a, f, 0u, sluice::max{});
  sluice::device_buffer<std::uint32_t> values(ctx(), std::span<const std::uint32_t>(a)), out(ctx(), a.size());
  const sluice::device_buffer<std::uint8_t> flags(ctx(), std::span<const std::uint8_t>(f));
  sluice::segmented_inclusive_scan(ctx(), values.span(), flags.span(), out.span(), sluice::plus{});
  EXPECT_EQ(out.to_host(), (std::vector<std::uint32_t>{5, 6, 3, 7, 10, 19, 2, 8}));
}

TEST_F(Segmented, FlagsSumAndAffineAcrossLengths) {
  for (std::size_t n : sluice::testing::sweep_sizes(sizes))
    for (std::size_t mean : mean_lengths) {
      const auto flags = random_flags(n, mean, n + mean);
      check_flags_forms(ctx(), uniform<std::uint32_t>(n, n), flags, 7u, sluice::plus{});
      check_flags_forms(ctx(), affine_values(n, n + 1), flags, affine{3, 5}, sluice::affine_compose{});
    }
}

TEST_F(Segmented, FlagsEdgeCases) {
  const std::size_t n = 10007;
  const auto values = uniform<std::uint32_t>(n, 1);
  check_flags_forms(ctx(), values, std::vector<std::uint8_t>(n, 1), 0u, sluice::plus{});  // every element alone
  check_flags_forms(ctx(), values, std::vector<std::uint8_t>(n, 0), 0u, sluice::plus{});  // one segment, flag[0] = 0
}

TEST_F(Segmented, OffsetsWithEmptySegmentsAndOutsideElements) {
  for (std::size_t n : sluice::testing::sweep_sizes(sizes))
    for (std::size_t mean : mean_lengths) {
      const std::size_t front = n > 10 ? n / 10 : 0, back = n - front / 2;
      const auto offsets = random_offsets(n, std::min<std::size_t>(mean, n), front, back, n * 3 + mean);
      check_offsets_forms(ctx(), uniform<std::uint32_t>(n, n + 2), offsets, 11u, sluice::plus{});
      check_offsets_forms(ctx(), affine_values(n, n + 3), offsets, affine{1, 0}, sluice::affine_compose{});
    }
}

TEST_F(Segmented, OffsetsEdgeCases) {
  const std::size_t n = 5000;
  const auto values = uniform<std::uint32_t>(n, 2);
  check_offsets_forms(ctx(), values, {0, n}, 1u, sluice::plus{});                      // one segment
  check_offsets_forms(ctx(), values, {0, 0, 0, n, n, n}, 1u, sluice::plus{});          // empties around it
  check_offsets_forms(ctx(), values, {100, 100}, 1u, sluice::plus{});                  // one empty segment
  check_offsets_forms(ctx(), values, {n}, 1u, sluice::plus{});                         // no segment at all
  std::vector<std::size_t> all_single(n + 1);
  for (std::size_t i = 0; i <= n; ++i) all_single[i] = i;
  check_offsets_forms(ctx(), values, all_single, 1u, sluice::plus{});
}

// The merge path gives every tile the same number of merged items (ends + elements): runs of empty
// segments longer than a tile, a segment spanning many tiles, and lists whose length is a tile ± 1.
TEST_F(Segmented, OffsetsSkewedAcrossMergeTiles) {
  const std::size_t tile = sluice::detail::segmented::merge_path::default_shape<std::uint32_t>::tile;
  std::vector<std::size_t> offsets(5000, 0);  // 4999 empty segments before any element
  auto add = [&](std::size_t length, std::size_t count) {
    for (std::size_t c = 0; c < count; ++c) offsets.push_back(offsets.back() + length);
  };
  add(100000, 1);
  add(tile, 3);
  add(1, 8000);
  add(0, 2 * tile);
  add(tile - 1, 2);
  add(7, 1000);
  const std::size_t n = offsets.back();
  check_offsets_forms(ctx(), uniform<std::uint32_t>(n, 5), offsets, 3u, sluice::plus{});
  check_offsets_forms(ctx(), affine_values(n, 6), offsets, affine{3, 1}, sluice::affine_compose{});
  // Merged lists of a whole number of tiles, and one item more or less (segments of 1 and 0).
  for (std::size_t items : {tile, tile - 1, tile + 1, 3 * tile, 3 * tile + 1}) {
    std::vector<std::size_t> mixed{0};
    while (mixed.size() - 1 + mixed.back() < items) mixed.push_back(mixed.back() + (mixed.size() % 3 == 0 ? 0 : 1));
    check_offsets_forms(ctx(), uniform<std::uint32_t>(mixed.back(), items), mixed, 0u, sluice::plus{});
  }
}

/// segmented_reduce by offsets (merge_path, the default) fixes its combining order: one float segment
/// over thousands of merge tiles (more than one Brent–Kung tile of carries, so the carries' scan
/// recurses) gives the same bits on three runs, and matches a double oracle within rounding; the
/// non-commutative affine composition over as many tiles stays exact.
TEST_F(Segmented, OffsetsReduceOfOneHugeFloatSegmentIsBitIdenticalAcrossRuns) {
  const std::size_t n = sluice::testing::scaled_size((std::size_t{1} << 23) + 11, 100003);
  const std::vector<std::size_t> offsets{3, n - 2};  // elements outside the segment at both ends
  const auto host = uniform<float>(n, 41);
  const std::vector<double> wide(host.begin(), host.end());
  const auto exact = sluice::reference::segmented_reduce_offsets(std::span<const double>(wide),
                                                                 std::span<const std::size_t>(offsets), 0.5,
                                                                 sluice::plus{});
  const std::vector<float> expected(exact.begin(), exact.end());
  const sluice::device_buffer<float> values(ctx(), std::span<const float>(host));
  const sluice::device_buffer<std::size_t> d_offsets(ctx(), std::span<const std::size_t>(offsets));
  sluice::device_buffer<float> sums(ctx(), 1);
  for (auto algorithm : {sluice::segmented_algorithm::automatic, sluice::segmented_algorithm::merge_path}) {
    std::vector<float> first;
    for (int run = 0; run < 3; ++run) {
      sums.fill_bytes(sluice::testing::poison_patterns[run % 2]);
      sluice::segmented_reduce(ctx(), values.span(), d_offsets.span(), sums.span(), 0.5f, sluice::plus{},
                               {.algorithm = algorithm});
      const auto got = sums.to_host();
      if (run == 0) {
        ASSERT_TRUE(sluice::testing::all_near(got, expected, 1e-4)) << static_cast<int>(algorithm);
        first = got;
      } else {
        ASSERT_EQ(std::memcmp(got.data(), first.data(), sizeof(float)), 0)
            << "run " << run << ", algorithm " << static_cast<int>(algorithm);
      }
    }
  }
  const std::size_t m = sluice::testing::scaled_size((std::size_t{1} << 22) + 5, 100003);
  check_offsets_forms(ctx(), affine_values(m, 42), {0, 1, m / 2, m - 1, m}, affine{3, 1}, sluice::affine_compose{});
}

TEST_F(Segmented, MergePathIsForReductionsByOffsets) {
  sluice::device_buffer<std::uint32_t> values(ctx(), 10), out(ctx(), 10);
  const std::vector<std::size_t> o{0, 10};
  const sluice::device_buffer<std::size_t> offsets(ctx(), std::span<const std::size_t>(o));
  const sluice::segmented_options merge_path{.algorithm = sluice::segmented_algorithm::merge_path};
  EXPECT_THROW(sluice::segmented_inclusive_scan(ctx(), values.span(), offsets.span(), out.span(), sluice::plus{}, merge_path),
               sluice::invalid_argument);
}

TEST_F(Segmented, ByKey) {
  for (std::size_t n : sluice::testing::sweep_sizes(sizes))
    for (std::uint64_t key_range : {std::uint64_t{2}, std::uint64_t{1000}}) {
      // Sorted keys make long runs; uniform keys over a small range make short, random ones.
      for (auto kind : {sluice::data::distribution::sorted, sluice::data::distribution::uniform}) {
        const auto keys = sluice::data::generate_host<std::int32_t>(n, {kind, key_range, 0.0, n});
        const auto values = affine_values(n, n + 9);
        const std::span<const std::int32_t> k(keys);
        const std::span<const affine> v(values);
        sluice::device_buffer<std::int32_t> d_keys(ctx(), k), unique(ctx(), n);
        sluice::device_buffer<affine> d_values(ctx(), v), out(ctx(), n), aggregates(ctx(), n);
        sluice::device_buffer<std::size_t> runs(ctx(), 1);
        out.fill_bytes(0xA5);
        sluice::inclusive_scan_by_key(ctx(), d_keys.span(), d_values.span(), out.span(), sluice::affine_compose{});
        ASSERT_TRUE(all_equal(out.to_host(), sluice::reference::inclusive_scan_by_key(k, v, sluice::affine_compose{})));
        out.fill_bytes(0xA5);
        sluice::exclusive_scan_by_key(ctx(), d_keys.span(), d_values.span(), out.span(), affine{1, 0},
                                      sluice::affine_compose{});
        ASSERT_TRUE(all_equal(out.to_host(),
                              sluice::reference::exclusive_scan_by_key(k, v, affine{1, 0}, sluice::affine_compose{})));
        unique.fill_bytes(0xA5);
        aggregates.fill_bytes(0xA5);
        sluice::reduce_by_key(ctx(), d_keys.span(), d_values.span(), unique.span(), aggregates.span(), runs.data(),
                              sluice::affine_compose{});
        const auto expected = sluice::reference::reduce_by_key(k, v, sluice::affine_compose{});
        const std::size_t r = runs.to_host()[0];
        ASSERT_EQ(r, expected.keys.size());
        auto got_keys = unique.to_host();
        auto got_values = aggregates.to_host();
        got_keys.resize(r);
        got_values.resize(r);
        ASSERT_TRUE(all_equal(got_keys, expected.keys));
        ASSERT_TRUE(all_equal(got_values, expected.values));
      }
    }
}

TEST_F(Segmented, TruncatedOutputsAreCountedNotOverrun) {
  const std::size_t n = 10000;
  const auto values = uniform<std::uint32_t>(n, 4);
  const auto flags = random_flags(n, 10, 5);
  const auto expected = sluice::reference::segmented_reduce_flags(std::span<const std::uint32_t>(values),
                                                                  std::span<const std::uint8_t>(flags), 0u, sluice::plus{});
  sluice::device_buffer<std::uint32_t> d_values(ctx(), std::span<const std::uint32_t>(values));
  const sluice::device_buffer<std::uint8_t> d_flags(ctx(), std::span<const std::uint8_t>(flags));
  sluice::device_buffer<std::uint32_t> small(ctx(), 10);
  sluice::device_buffer<std::size_t> count(ctx(), 1);
  sluice::segmented_reduce(ctx(), d_values.span(), d_flags.span(), small.span(), 0u, sluice::plus{}, count.data());
  EXPECT_EQ(count.to_host()[0], expected.size());
  EXPECT_TRUE(all_equal(small.to_host(), std::vector<std::uint32_t>(expected.begin(), expected.begin() + 10)));
}

TEST_F(Segmented, BadOffsetsAreReportedWhenValidated) {
  const std::size_t n = 100;
  sluice::device_buffer<std::uint32_t> values(ctx(), n), sums(ctx(), 3);
  values.fill_bytes(1);
  const std::vector<std::size_t> decreasing{0, 50, 40, 100};
  const sluice::device_buffer<std::size_t> bad(ctx(), std::span<const std::size_t>(decreasing));
  try {
    sluice::segmented_reduce(ctx(), values.span(), bad.span(), sums.span(), 0u, sluice::plus{}, {.validate_offsets = true});
    FAIL() << "decreasing offsets were accepted";
  } catch (const sluice::invalid_argument& e) {
    EXPECT_EQ(e.parameter(), "offsets");
    EXPECT_EQ(e.index(), std::optional<std::size_t>(2));
  }
  // Unvalidated, the same offsets give unspecified sums but no access out of bounds (sanitizer runs).
  EXPECT_NO_THROW(sluice::segmented_reduce(ctx(), values.span(), bad.span(), sums.span(), 0u, sluice::plus{}));
  EXPECT_NO_THROW(ctx().synchronize());
  const std::vector<std::size_t> beyond{0, 50, 1000};
  const sluice::device_buffer<std::size_t> past_end(ctx(), std::span<const std::size_t>(beyond));
  sluice::device_buffer<std::uint32_t> two(ctx(), 2);
  EXPECT_THROW(sluice::segmented_reduce(ctx(), values.span(), past_end.span(), two.span(), 0u, sluice::plus{},
                                        {.validate_offsets = true}),
               sluice::invalid_argument);
  EXPECT_THROW(sluice::segmented_reduce(ctx(), values.span(), past_end.span(), sums.span(), 0u, sluice::plus{}),
               sluice::invalid_argument);  // out has 3 entries for 2 segments
}

// 2^31 + 5 elements by offsets through both reduction strategies: 64-bit element and merge indices.
TEST_F(Segmented, LargeBeyond32BitIndexing) {
  const std::size_t n = (std::size_t{1} << 31) + 5;
  sluice::device_buffer<std::uint32_t> values(ctx(), n), sums(ctx(), 4);
  values.fill_bytes(1);  // every value 0x01010101
  const std::vector<std::size_t> o{0, 5, std::size_t{1} << 31, std::size_t{1} << 31, n};
  const sluice::device_buffer<std::size_t> offsets(ctx(), std::span<const std::size_t>(o));
  std::vector<std::uint32_t> expected;
  for (std::size_t s = 0; s + 1 < o.size(); ++s) expected.push_back(static_cast<std::uint32_t>((o[s + 1] - o[s]) * 0x01010101u));
  for (auto algorithm : reduce_algorithms) {
    sums.fill_bytes(0xA5);
    sluice::segmented_reduce(ctx(), values.span(), offsets.span(), sums.span(), 0u, sluice::plus{}, {.algorithm = algorithm});
    EXPECT_EQ(sums.to_host(), expected) << static_cast<int>(algorithm);
  }
}

}  // namespace
