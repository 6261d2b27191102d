// GPU tests of select_if, select_flagged, unique and the stable partitions against the reference:
// selectivities from none to all, element sizes 1 to 16 bytes, stability (values carry their index),
// Palik's split and 3-way split examples, truncated outputs, bad arguments, 2^31 + 5 elements; sizes
// around the warp segments and tiles of the classify-scatter pass, the tile tunings the bench times,
// and the 64-bit counts of inputs past 2^32 elements (forced on small inputs).
#include <sluice/core/operators.hpp>
#include <sluice/data/generate.cuh>
#include <sluice/reference/select.hpp>
#include <sluice/select.cuh>

#include "support/compare.hpp"
#include "support/gpu_test.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace {

using sluice::testing::all_equal;
using sluice::testing::gpu_test;

class Select : public gpu_test {};

namespace sel = sluice::detail::select;

/// Sizes around a classify-scatter tiling: a warp's segment ± 1, the tile ± 1, and several tiles whose
/// last one ends one warp and five elements in (a partial warp, then warps without elements).
template <class Tuning>
void add_tile_sizes(std::vector<std::size_t>& sizes) {
  const std::size_t segment = Tuning::warp_items, tile = Tuning::tile;
  for (const std::size_t n : {segment - 1, segment + 1, tile - 1, tile, tile + 1, 3 * tile + segment + 5})
    sizes.push_back(n);
}

std::vector<std::size_t> select_sizes() {
  std::vector<std::size_t> sizes{0, 1, 2, 31, 32, 33, 100003, (std::size_t{1} << 20) + 7};
  struct sixteen_bytes {
    std::uint64_t a, b;
  };
  add_tile_sizes<sel::default_scatter_tuning<std::uint8_t>>(sizes);
  add_tile_sizes<sel::default_scatter_tuning<std::uint32_t>>(sizes);
  add_tile_sizes<sel::default_scatter_tuning<std::uint64_t>>(sizes);
  add_tile_sizes<sel::default_scatter_tuning<sixteen_bytes>>(sizes);
  add_tile_sizes<sel::default_scatter_tuning<std::uint32_t, 2>>(sizes);  // partitions: fewer items
  add_tile_sizes<sel::default_scatter_tuning<std::uint64_t, 2>>(sizes);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

const std::vector<std::size_t> sizes = select_sizes();

template <class T>
std::vector<T> uniform(std::size_t n, std::uint64_t seed, std::uint64_t range = 0) {
  return sluice::data::generate_host<T>(n, {sluice::data::distribution::uniform, range, 0.0, seed});
}

/// Keeps x when x mod 100 < percent.
struct below_percent {
  std::uint32_t percent;
  __host__ __device__ bool operator()(std::uint32_t x) const { return x % 100 < percent; }
};

struct is_even {
  __host__ __device__ bool operator()(std::uint32_t x) const { return x % 2 == 0; }
};

/// An element that remembers where it came from: equal keys expose any instability.
struct tagged {
  std::uint32_t key;
  std::uint32_t index;
  friend bool operator==(const tagged&, const tagged&) = default;
};
struct key_is_even {
  __host__ __device__ bool operator()(const tagged& t) const { return t.key % 2 == 0; }
};
struct compare_with_pivot {
  std::uint32_t pivot;
  __host__ __device__ sluice::group3 operator()(const tagged& t) const {
    return t.key < pivot ? sluice::group3::first : t.key == pivot ? sluice::group3::second : sluice::group3::third;
  }
};
struct group_of_pivot {  // the reference's classify: 0, 1, 2
  std::uint32_t pivot;
  int operator()(const tagged& t) const { return t.key < pivot ? 0 : t.key == pivot ? 1 : 2; }
};

std::vector<tagged> tagged_values(std::size_t n, std::uint64_t seed, std::uint64_t key_range) {
  const auto keys = uniform<std::uint32_t>(n, seed, key_range);
  std::vector<tagged> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = {keys[i], static_cast<std::uint32_t>(i)};
  return v;
}

template <class T>
std::vector<T> first(const std::vector<T>& v, std::size_t count) {
  return std::vector<T>(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(count));
}

TEST_F(Select, SelectIfAcrossSelectivities) {
  for (std::size_t n : sluice::testing::sweep_sizes(sizes))
    for (std::uint32_t percent : {0u, 1u, 50u, 99u, 100u}) {
      const auto host = uniform<std::uint32_t>(n, n + percent);
      const auto expected = sluice::reference::select_if(std::span<const std::uint32_t>(host), below_percent{percent});
      const sluice::device_buffer<std::uint32_t> in(ctx(), std::span<const std::uint32_t>(host));
      sluice::device_buffer<std::uint32_t> out(ctx(), n);
      sluice::device_buffer<std::size_t> count(ctx(), 1);
      for (unsigned char poison : sluice::testing::poison_patterns) {
        out.fill_bytes(poison);
        count.fill_bytes(poison);
        sluice::select_if(ctx(), in.span(), out.span(), count.data(), below_percent{percent});
        ASSERT_EQ(count.to_host()[0], expected.size()) << "n = " << n << ", " << percent << "%";
        ASSERT_TRUE(all_equal(first(out.to_host(), expected.size()), expected)) << "n = " << n << ", " << percent << "%";
      }
    }
}

TEST_F(Select, SelectFlaggedAndSixteenByteElements) {
  for (std::size_t n : sluice::testing::sweep_sizes(sizes)) {
    const auto words = uniform<std::uint32_t>(4 * n, n + 1);
    std::vector<sluice::mat2> host(n);
    for (std::size_t i = 0; i < n; ++i) host[i] = {words[4 * i], words[4 * i + 1], words[4 * i + 2], words[4 * i + 3]};
    const auto r = uniform<std::uint8_t>(n, n + 2, 3);
    std::vector<std::uint8_t> flags(r.begin(), r.end());  // 0, 1, 2: two thirds selected
    const auto expected = sluice::reference::select_flagged(std::span<const sluice::mat2>(host),
                                                            std::span<const std::uint8_t>(flags));
    const sluice::device_buffer<sluice::mat2> in(ctx(), std::span<const sluice::mat2>(host));
    const sluice::device_buffer<std::uint8_t> d_flags(ctx(), std::span<const std::uint8_t>(flags));
    sluice::device_buffer<sluice::mat2> out(ctx(), n);
    sluice::device_buffer<std::size_t> count(ctx(), 1);
    out.fill_bytes(0xA5);
    sluice::select_flagged(ctx(), in.span(), d_flags.span(), out.span(), count.data());
    ASSERT_EQ(count.to_host()[0], expected.size());
    ASSERT_TRUE(all_equal(first(out.to_host(), expected.size()), expected)) << "n = " << n;
  }
}

TEST_F(Select, UniqueOfRunsAndOfBytes) {
  for (std::size_t n : sluice::testing::sweep_sizes(sizes)) {
    const auto runs = sluice::data::generate_host<std::uint32_t>(n, {sluice::data::distribution::sorted, n / 7 + 1, 0.0, 1});
    const auto bytes = uniform<std::uint8_t>(n, n + 3, 3);
    {
      const auto& host = runs;
      const auto expected = sluice::reference::unique(std::span<const std::uint32_t>(host));
      const sluice::device_buffer<std::uint32_t> in(ctx(), std::span<const std::uint32_t>(host));
      sluice::device_buffer<std::uint32_t> out(ctx(), n);
      sluice::device_buffer<std::size_t> count(ctx(), 1);
      out.fill_bytes(0xA5);
      sluice::unique(ctx(), in.span(), out.span(), count.data());
      ASSERT_EQ(count.to_host()[0], expected.size());
      ASSERT_TRUE(all_equal(first(out.to_host(), expected.size()), expected)) << "n = " << n;
    }
    const auto expected = sluice::reference::unique(std::span<const std::uint8_t>(bytes));
    const sluice::device_buffer<std::uint8_t> in(ctx(), std::span<const std::uint8_t>(bytes));
    sluice::device_buffer<std::uint8_t> out(ctx(), n);
    sluice::device_buffer<std::size_t> count(ctx(), 1);
    out.fill_bytes(0xA5);
    sluice::unique(ctx(), in.span(), out.span(), count.data());
    ASSERT_EQ(count.to_host()[0], expected.size());
    ASSERT_TRUE(all_equal(first(out.to_host(), expected.size()), expected)) << "bytes, n = " << n;
  }
}

TEST_F(Select, PalikSplit) {
  const std::vector<std::uint32_t> a{5, 7, 3, 1, 4, 2, 7, 2};
  const sluice::device_buffer<std::uint32_t> in(ctx(), std::span<const std::uint32_t>(a));
  sluice::device_buffer<std::uint32_t> out(ctx(), a.size());
  sluice::device_buffer<std::size_t> count(ctx(), 1);
  sluice::stable_partition(ctx(), in.span(), out.span(), count.data(), is_even{});
  EXPECT_EQ(out.to_host(), (std::vector<std::uint32_t>{4, 2, 2, 5, 7, 3, 1, 7}));
  EXPECT_EQ(count.to_host()[0], 3u);
}

TEST_F(Select, StablePartitionsKeepInputOrder) {
  for (std::size_t n : sluice::testing::sweep_sizes(sizes))
    for (std::uint64_t key_range : {std::uint64_t{1}, std::uint64_t{3}, std::uint64_t{1000}}) {
      const auto host = tagged_values(n, n + key_range, key_range);
      const std::span<const tagged> view(host);
      const sluice::device_buffer<tagged> in(ctx(), view);
      sluice::device_buffer<tagged> out(ctx(), n);
      sluice::device_buffer<std::size_t> counts(ctx(), 2);

      const auto two = sluice::reference::stable_partition(view, key_is_even{});
      out.fill_bytes(0xA5);
      sluice::stable_partition(ctx(), in.span(), out.span(), counts.data(), key_is_even{});
      ASSERT_TRUE(all_equal(out.to_host(), two.out)) << "2-way, n = " << n;
      ASSERT_EQ(counts.to_host()[0], two.selected);

      const std::uint32_t pivot = static_cast<std::uint32_t>(key_range / 2);
      const auto three = sluice::reference::stable_partition_3way(view, group_of_pivot{pivot});
      out.fill_bytes(0x5A);
      sluice::stable_partition_3way(ctx(), in.span(), out.span(), counts.data(), compare_with_pivot{pivot});
      ASSERT_TRUE(all_equal(out.to_host(), three.out)) << "3-way, n = " << n;
      const auto c = counts.to_host();
      ASSERT_EQ(c[0], three.first);
      ASSERT_EQ(c[1], three.second);
    }
}

TEST_F(Select, TruncatedOutputIsCountedNotOverrun) {
  // Outputs ending in the first warp, inside a later tile, and in the last tile; nothing past the
  // end of `out` may be written (the poisoned words behind it).
  const auto host = uniform<std::uint32_t>(20000, 3);
  const auto expected = sluice::reference::select_if(std::span<const std::uint32_t>(host), below_percent{50});
  const sluice::device_buffer<std::uint32_t> in(ctx(), std::span<const std::uint32_t>(host));
  sluice::device_buffer<std::size_t> count(ctx(), 1);
  constexpr std::size_t behind = 64;
  for (const std::size_t room : {std::size_t{0}, std::size_t{100}, std::size_t{7000}, expected.size() - 7}) {
    sluice::device_buffer<std::uint32_t> out(ctx(), room + behind);
    out.fill_bytes(0xA5);
    sluice::select_if(ctx(), in.span(), out.span().first(room), count.data(), below_percent{50});
    EXPECT_EQ(count.to_host()[0], expected.size()) << "room " << room;
    const auto got = out.to_host();
    EXPECT_TRUE(all_equal(first(got, room), first(expected, room))) << "room " << room;
    EXPECT_TRUE(all_equal(std::vector<std::uint32_t>(got.begin() + static_cast<std::ptrdiff_t>(room), got.end()),
                          std::vector<std::uint32_t>(behind, 0xA5A5A5A5u)))
        << "written past the end, room " << room;
  }
}

/// Sizes around a tuning's tile and past one look-back window of tiles.
template <class Tuning>
std::vector<std::size_t> tuning_sizes() {
  std::vector<std::size_t> sizes{1, 33};
  add_tile_sizes<Tuning>(sizes);
  sizes.push_back(40 * std::size_t{Tuning::tile} + Tuning::warp_items + 3);
  return sluice::testing::sweep_sizes(sizes);
}

/// select_if (50%) through one tuning of the classify-scatter pass, at tuning_sizes.
template <class Tuning>
void check_select_tuning(sluice::context& ctx, const char* name) {
  for (std::size_t n : tuning_sizes<Tuning>()) {
    const auto host = uniform<std::uint32_t>(n, n + 11);
    const auto expected = sluice::reference::select_if(std::span<const std::uint32_t>(host), below_percent{50});
    const sluice::device_buffer<std::uint32_t> in(ctx, std::span<const std::uint32_t>(host));
    sluice::device_buffer<std::uint32_t> out(ctx, n);
    sluice::device_buffer<std::size_t> count(ctx, 1);
    out.fill_bytes(0xA5);
    sel::classify_scatter<1, 1, Tuning>(
        ctx, in.data(), out.data(), n, n,
        sel::value_classes<std::uint32_t, sel::predicate_class_of<below_percent, false>>{{below_percent{50}}},
        count.data());
    ASSERT_EQ(count.to_host()[0], expected.size()) << name << ", n = " << n;
    ASSERT_TRUE(all_equal(first(out.to_host(), expected.size()), expected)) << name << ", n = " << n;
  }
}

/// stable_partition (even first) of u32 through one tuning, at the same sizes.
template <class Tuning>
void check_partition_tuning(sluice::context& ctx, const char* name) {
  for (std::size_t n : tuning_sizes<Tuning>()) {
    const auto host = uniform<std::uint32_t>(n, n + 13);
    const auto expected = sluice::reference::stable_partition(std::span<const std::uint32_t>(host), is_even{});
    const sluice::device_buffer<std::uint32_t> in(ctx, std::span<const std::uint32_t>(host));
    sluice::device_buffer<std::uint32_t> out(ctx, n);
    sluice::device_buffer<std::size_t> count(ctx, 1);
    out.fill_bytes(0xA5);
    sel::classify_scatter<1, 2, Tuning>(ctx, in.data(), out.data(), n, n,
                                        sel::value_classes<std::uint32_t, sel::predicate_class_of<is_even, true>>{{}},
                                        count.data());
    ASSERT_EQ(count.to_host()[0], expected.selected) << name << ", n = " << n;
    ASSERT_TRUE(all_equal(out.to_host(), expected.out)) << name << ", n = " << n;
  }
}

// The tunings that bench/cases/select.cu times ("... tile tuning"), and the tile counter.
TEST_F(Select, TileTuningsOfTheBench) {
  using sluice::detail::scan::look_back_tuning;
  using sluice::detail::scan::tile_order;
  check_select_tuning<sel::scatter_tuning<256, 16>>(ctx(), "256 x 16");
  check_select_tuning<sel::scatter_tuning<256, 20>>(ctx(), "256 x 20");
  check_select_tuning<sel::scatter_tuning<128, 16>>(ctx(), "128 x 16");
  check_select_tuning<sel::scatter_tuning<384, 16, look_back_tuning<tile_order::block_index, 1000, 650>>>(
      ctx(), "384 x 16, first poll 1000 ns");
  check_select_tuning<sel::scatter_tuning<384, 16, look_back_tuning<tile_order::atomic_counter, 2000, 650>>>(
      ctx(), "384 x 16, tile counter");
  check_partition_tuning<sel::scatter_tuning<384, 12>>(ctx(), "partition 384 x 12");
  check_partition_tuning<sel::scatter_tuning<384, 16>>(ctx(), "partition 384 x 16");
  check_partition_tuning<sel::scatter_tuning<128, 16>>(ctx(), "partition 128 x 16");
}

// Inputs of 2^32 elements or more exchange 64-bit counts between tiles; the same pass with 64-bit
// counts, forced on small inputs, for select and both partitions.
TEST_F(Select, SixtyFourBitCounts) {
  using tuning_u32 = sel::default_scatter_tuning<std::uint32_t>;
  using tuning_tagged = sel::default_scatter_tuning<tagged, 2>;
  for (std::size_t n : sluice::testing::sweep_sizes(
           std::vector<std::size_t>{1, 33, tuning_u32::tile + 1, 3 * std::size_t{tuning_tagged::tile} + 5, 100003})) {
    {
      const auto host = uniform<std::uint32_t>(n, n + 5);
      const auto expected = sluice::reference::select_if(std::span<const std::uint32_t>(host), below_percent{50});
      const sluice::device_buffer<std::uint32_t> in(ctx(), std::span<const std::uint32_t>(host));
      sluice::device_buffer<std::uint32_t> out(ctx(), n);
      sluice::device_buffer<std::size_t> count(ctx(), 1);
      out.fill_bytes(0xA5);
      sel::classify_scatter<1, 1, tuning_u32, std::uint64_t>(
          ctx(), in.data(), out.data(), n, n,
          sel::value_classes<std::uint32_t, sel::predicate_class_of<below_percent, false>>{{below_percent{50}}},
          count.data());
      ASSERT_EQ(count.to_host()[0], expected.size()) << "select, n = " << n;
      ASSERT_TRUE(all_equal(first(out.to_host(), expected.size()), expected)) << "select, n = " << n;
    }
    const auto host = tagged_values(n, n + 9, 3);
    const std::span<const tagged> view(host);
    const sluice::device_buffer<tagged> in(ctx(), view);
    sluice::device_buffer<tagged> out(ctx(), n);
    sluice::device_buffer<std::size_t> counts(ctx(), 2);

    const auto two = sluice::reference::stable_partition(view, key_is_even{});
    out.fill_bytes(0xA5);
    sel::classify_scatter<1, 2, tuning_tagged, std::uint64_t>(
        ctx(), in.data(), out.data(), n, n, sel::value_classes<tagged, sel::predicate_class_of<key_is_even, true>>{{}},
        counts.data());
    ASSERT_TRUE(all_equal(out.to_host(), two.out)) << "2-way, n = " << n;
    ASSERT_EQ(counts.to_host()[0], two.selected);

    const auto three = sluice::reference::stable_partition_3way(view, group_of_pivot{1});
    out.fill_bytes(0x5A);
    sel::classify_scatter<2, 3, sel::default_scatter_tuning<tagged, 3>, std::uint64_t>(
        ctx(), in.data(), out.data(), n, n, sel::value_classes<tagged, sel::group3_class_of<compare_with_pivot>>{{{1}}},
        counts.data());
    ASSERT_TRUE(all_equal(out.to_host(), three.out)) << "3-way, n = " << n;
    const auto c = counts.to_host();
    ASSERT_EQ(c[0], three.first);
    ASSERT_EQ(c[1], three.second);
  }
}

TEST_F(Select, BadArgumentsAreRejected) {
  sluice::device_buffer<std::uint32_t> a(ctx(), 100), b(ctx(), 99);
  sluice::device_buffer<std::size_t> count(ctx(), 1);
  EXPECT_THROW(sluice::stable_partition(ctx(), a.span(), b.span(), count.data(), below_percent{5}), sluice::invalid_argument);
  EXPECT_THROW(sluice::select_if(ctx(), a.span(), a.span(), count.data(), below_percent{5}), sluice::invalid_argument);
  EXPECT_THROW(sluice::select_if(ctx(), a.span(), b.span(), nullptr, below_percent{5}), sluice::invalid_argument);
}

TEST_F(Select, LargeBeyond32BitIndexing) {
  const std::size_t n = (std::size_t{1} << 31) + 5;
  if (ctx().properties().global_memory_bytes < 3 * n * sizeof(std::uint32_t))
    GTEST_SKIP() << "needs " << 3 * n * sizeof(std::uint32_t) << " bytes of device memory";
  const sluice::data::distribution_spec spec{sluice::data::distribution::uniform, 0, 0.0, 21};
  sluice::device_buffer<std::uint32_t> in(ctx(), n), out(ctx(), n);
  sluice::data::generate(ctx(), in.span(), spec);
  sluice::device_buffer<std::size_t> count(ctx(), 1);
  out.fill_bytes(0xA5);
  sluice::select_if(ctx(), in.span(), out.span(), count.data(), below_percent{30});
  std::vector<std::uint32_t> expected;
  {
    const auto host = sluice::data::generate_host<std::uint32_t>(n, spec);
    expected = sluice::reference::select_if(std::span<const std::uint32_t>(host), below_percent{30});
  }
  ASSERT_EQ(count.to_host()[0], expected.size());
  EXPECT_TRUE(all_equal(first(out.to_host(), expected.size()), expected));
}

}  // namespace
