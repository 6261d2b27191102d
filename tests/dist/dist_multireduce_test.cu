// Dist* gpu tests of dist::multireduce (sluice/dist.cuh) with however many GPUs are visible, against the
// sequential oracle (reference::multireduce) and, for exact operators, bit for bit: every way (automatic,
// collective by NCCL or by the ordered exchange, owner_partition) and both output layouts; sum, min, max
// of integers (NCCL's reductions); non-commutative affine-map composition and 2x2 matrix products (global
// index order); float sums (within tolerance; the same bits run to run when deterministic); m = 1, 7, 4096
// and 2^20; every deal of the pairs (empty ranks, one rank holding all); labels outside [0, m) dropped and
// counted over all ranks, or, strict, an invalid_argument naming the first one's global index on every
// rank; accumulate; an output of the wrong size on one rank; phase timings.
#include "dist/dist_test.hpp"

#include "support/compare.hpp"

#include <sluice/core/operators.hpp>
#include <sluice/data/distributions.hpp>
#include <sluice/reference/multireduce.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace {

using namespace sluice::testing;
namespace dist = sluice::dist;
using dist::layout;
using dist::multireduce_algorithm;
using sluice::affine;

class DistMultireduce : public dist_test {};

struct reduce_case {
  multireduce_algorithm algorithm = multireduce_algorithm::automatic;
  layout output = layout::replicated;
  deal_layout deal = deal_layout::even;
  bool accumulate = false;
  bool deterministic = false;
};

std::string describe(const reduce_case& c, std::size_t n, std::uint64_t m, const std::string& what) {
  return what + " n=" + std::to_string(n) + " m=" + std::to_string(m) + " " + std::string(dist::to_string(c.algorithm)) +
         " " + std::string(dist::to_string(c.output)) + " deal=" + name(c.deal) + (c.accumulate ? " accumulate" : "") +
         (c.deterministic ? " deterministic" : "");
}

/// Element `k` of the accumulate tests' starting contents.
template <class T>
T start_value(std::uint64_t k) {
  if constexpr (std::is_same_v<T, affine<std::uint32_t>>) return {static_cast<std::uint32_t>(2 * k + 1), static_cast<std::uint32_t>(k)};
  else if constexpr (std::is_same_v<T, sluice::mat2>) return {1, static_cast<std::uint32_t>(k), 0, 1};
  else return static_cast<T>(k % 7);
}

/// Runs the distributed multireduce of (labels, values) dealt by c.deal and returns every bucket in
/// order (for replicated outputs, checks that every rank holds the same); `dropped` gets the count.
template <class L, class T, class Op>
std::vector<T> run_multireduce(const std::vector<L>& labels, const std::vector<T>& values, std::uint64_t m, Op op,
                               const reduce_case& c, std::uint64_t& dropped, dist::timings* report = nullptr) {
  dist::communicator& comm = *suite_communicator();
  const auto offsets = deal(labels.size(), comm.world_size(), c.deal);
  const auto label_parts = scatter_to_ranks(comm, labels, offsets);
  const auto value_parts = scatter_to_ranks(comm, values, offsets);
  std::vector<sluice::device_buffer<T>> out;
  for (std::size_t i = 0; i < comm.local_count(); ++i) {
    const dist::bucket_range mine = dist::owned_buckets(m, comm.world_size(), comm.rank(i));
    const std::uint64_t begin = c.output == layout::replicated ? 0 : mine.begin;
    const std::uint64_t size = c.output == layout::replicated ? m : mine.size();
    std::vector<T> start(size);
    for (std::uint64_t k = 0; k < size; ++k) start[k] = start_value<T>(begin + k);
    out.emplace_back(comm.ctx(i), std::span<const T>(start));
    if (!c.accumulate) out.back().fill_bytes(0xA5);
  }
  dist::multireduce_options o;
  o.algorithm = c.algorithm;
  o.output = c.output;
  o.local.accumulate = c.accumulate;
  o.local.deterministic = c.deterministic;
  o.report = report;
  dropped = dist::multireduce(comm, view(label_parts), view(value_parts), view_mutable(out), m, op, o);
  if (c.output == layout::partitioned) return gather_to_host(out);
  std::vector<T> first = out[0].to_host();
  for (std::size_t i = 1; i < out.size(); ++i)
    EXPECT_TRUE(std::memcmp(out[i].to_host().data(), first.data(), first.size() * sizeof(T)) == 0)
        << "rank " << comm.rank(i) << "'s replicated buckets differ from rank " << comm.rank(0) << "'s";
  return first;
}

/// The oracle's buckets (folded onto the starting contents with accumulate) and dropped count.
template <class L, class T, class Op>
std::vector<T> expected_buckets(const std::vector<L>& labels, const std::vector<T>& values, std::uint64_t m, Op op,
                                bool accumulate, std::size_t& dropped) {
  std::vector<T> buckets(m);
  for (std::uint64_t k = 0; k < m; ++k) buckets[k] = accumulate ? start_value<T>(k) : sluice::identity<Op, T>();
  dropped = sluice::reference::multireduce_into(std::span<const L>(labels), std::span<const T>(values), op,
                                                std::span<T>(buckets));
  return buckets;
}

template <class T>
bool bitwise_equal(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

template <class L, class T, class Op>
void check_exact(const std::vector<L>& labels, const std::vector<T>& values, std::uint64_t m, Op op, const reduce_case& c,
                 const std::string& what) {
  std::uint64_t dropped = 0;
  std::size_t expected_dropped = 0;
  const std::vector<T> got = run_multireduce(labels, values, m, op, c, dropped);
  const std::vector<T> expected = expected_buckets(labels, values, m, op, c.accumulate, expected_dropped);
  const std::string where = describe(c, labels.size(), m, what);
  EXPECT_TRUE(bitwise_equal(got, expected)) << where;
  EXPECT_EQ(dropped, expected_dropped) << where;
}

/// Labels in [0, m) from `shape`, with a few outside planted when `bad` (negative and ≥ m for signed L).
template <class L>
std::vector<L> labels_of(sluice::data::distribution shape, std::size_t n, std::uint64_t m, bool bad, std::uint64_t seed) {
  std::vector<std::uint64_t> drawn = sluice::data::generate_host<std::uint64_t>(
      n, {shape, shape == sluice::data::distribution::zipf ? std::min<std::uint64_t>(m, 1u << 16) : m, 1.1, seed});
  std::vector<L> labels(n);
  for (std::size_t i = 0; i < n; ++i) {
    labels[i] = static_cast<L>(drawn[i] % m);
    if (bad && i % 101 == 3) labels[i] = static_cast<L>(i % 2 ? -1 : static_cast<std::int64_t>(m + i));
  }
  return labels;
}

template <class T>
std::vector<T> values_of(std::size_t n, std::uint64_t seed) {
  std::vector<T> values(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t r = sluice::data::mix64(seed * 0x9e3779b97f4a7c15ull + i);
    if constexpr (std::is_same_v<T, affine<std::uint32_t>>) values[i] = {static_cast<std::uint32_t>(r) | 1u, static_cast<std::uint32_t>(r >> 32)};
    else if constexpr (std::is_same_v<T, sluice::mat2>)
      values[i] = {static_cast<std::uint32_t>(r % 1000003), static_cast<std::uint32_t>((r >> 20) % 1000003),
                   static_cast<std::uint32_t>((r >> 40) % 1000003), 1};
    else if constexpr (std::is_floating_point_v<T>) values[i] = static_cast<T>(static_cast<double>(r >> 40) / 1048576.0);
    else values[i] = static_cast<T>(r);
  }
  return values;
}

const std::vector<multireduce_algorithm> all_ways{multireduce_algorithm::automatic, multireduce_algorithm::collective,
                                                  multireduce_algorithm::owner_partition};
const std::vector<deal_layout> deals{deal_layout::even, deal_layout::empty_ranks, deal_layout::one_rank_all,
                                     deal_layout::uneven};

/// The matrix of an exact operator: every way, layout and deal, at sizes and bucket counts that reach
/// every path (m < world: ranks owning no bucket; m = 2^20: the owner partition's automatic choice).
template <class L, class T, class Op>
void exact_matrix(Op op, const std::string& what) {
  using sluice::data::distribution;
  for (multireduce_algorithm a : all_ways)
    for (layout output : {layout::replicated, layout::partitioned})
      for (deal_layout d : deals)
        for (std::uint64_t m : {std::uint64_t{1}, std::uint64_t{7}, std::uint64_t{4096}})
          for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{1000}, std::size_t{200003}}) {
            const reduce_case c{a, output, d};
            check_exact(labels_of<L>(distribution::uniform, n, m, false, n + m), values_of<T>(n, n), m, op, c, what);
          }
  const std::size_t large = under_sanitizer() ? 1 << 14 : 1 << 21;
  for (multireduce_algorithm a : all_ways)
    for (layout output : {layout::replicated, layout::partitioned})
      check_exact(labels_of<L>(distribution::zipf, large, std::uint64_t{1} << 20, false, 5), values_of<T>(large, 5),
                  std::uint64_t{1} << 20, op, reduce_case{a, output}, what + " zipf");
}

TEST_F(DistMultireduce, SumOfU32) { exact_matrix<std::uint32_t, std::uint32_t>(sluice::plus{}, "u32 sum"); }
TEST_F(DistMultireduce, MinOfI32AndMaxOfI64) {
  exact_matrix<std::int32_t, std::int32_t>(sluice::min{}, "i32 min");
  exact_matrix<std::uint64_t, std::int64_t>(sluice::max{}, "i64 max");
}
TEST_F(DistMultireduce, AffineCompositionInGlobalIndexOrder) {
  exact_matrix<std::uint32_t, affine<std::uint32_t>>(sluice::affine_compose{}, "affine composition");
}
TEST_F(DistMultireduce, MatrixProductsInGlobalIndexOrder) {
  exact_matrix<std::int64_t, sluice::mat2>(sluice::mat2_multiply_mod{}, "mat2 product");
}

TEST_F(DistMultireduce, AccumulateFoldsOntoTheOutput) {
  for (multireduce_algorithm a : all_ways)
    for (layout output : {layout::replicated, layout::partitioned}) {
      const reduce_case c{a, output, deal_layout::uneven, true};
      check_exact(labels_of<std::uint32_t>(sluice::data::distribution::uniform, 50001, 300, false, 1),
                  values_of<std::uint32_t>(50001, 1), 300, sluice::plus{}, c, "u32 sum accumulate");
      check_exact(labels_of<std::uint32_t>(sluice::data::distribution::uniform, 50001, 300, false, 2),
                  values_of<affine<std::uint32_t>>(50001, 2), 300, sluice::affine_compose{}, c, "affine accumulate");
    }
}

TEST_F(DistMultireduce, FloatSumsWithinToleranceAndDeterministicRunToRun) {
  const std::size_t n = 1 << 20;
  const std::uint64_t m = 4096;
  const auto labels = labels_of<std::uint32_t>(sluice::data::distribution::uniform, n, m, false, 3);
  const auto values = values_of<float>(n, 3);
  std::size_t expected_dropped = 0;
  const auto expected = expected_buckets(labels, values, m, sluice::plus{}, false, expected_dropped);
  for (multireduce_algorithm a : all_ways)
    for (layout output : {layout::replicated, layout::partitioned})
      for (bool deterministic : {false, true}) {
        const reduce_case c{a, output, deal_layout::even, false, deterministic};
        std::uint64_t dropped = 0;
        const auto first = run_multireduce(labels, values, m, sluice::plus{}, c, dropped);
        EXPECT_TRUE(all_near(first, expected, 1e-4)) << describe(c, n, m, "float sum");
        if (!deterministic) continue;
        const auto second = run_multireduce(labels, values, m, sluice::plus{}, c, dropped);
        EXPECT_TRUE(bitwise_equal(first, second)) << describe(c, n, m, "float sum, second run");
      }
}

TEST_F(DistMultireduce, LabelsOutsideTheBucketsAreDroppedAndCounted) {
  for (multireduce_algorithm a : all_ways)
    for (layout output : {layout::replicated, layout::partitioned})
      for (deal_layout d : deals) {
        const reduce_case c{a, output, d};
        check_exact(labels_of<std::int32_t>(sluice::data::distribution::uniform, 100003, 1000, true, 4),
                    values_of<std::uint32_t>(100003, 4), 1000, sluice::plus{}, c, "i32 labels with bad ones");
      }
}

TEST_F(DistMultireduce, StrictModeNamesTheFirstBadLabelsGlobalIndex) {
  const std::size_t n = 10000;
  std::vector<std::int32_t> labels(n, 1);
  const std::size_t bad = n - 17;  // on the last rank of an even deal
  labels[bad] = 5000;
  labels[n - 3] = -1;
  const auto values = values_of<std::uint32_t>(n, 1);
  const auto offsets = deal(n, world(), deal_layout::even);
  const auto label_parts = scatter_to_ranks(comm(), labels, offsets);
  const auto value_parts = scatter_to_ranks(comm(), values, offsets);
  std::vector<sluice::device_buffer<std::uint32_t>> out;
  for (std::size_t i = 0; i < comm().local_count(); ++i) out.emplace_back(comm().ctx(i), 16);
  dist::multireduce_options o;
  o.local.strict = true;
  try {
    (void)dist::multireduce(comm(), view(label_parts), view(value_parts), view_mutable(out), 16, sluice::plus{}, o);
    FAIL() << "a bad label passed strict mode";
  } catch (const sluice::invalid_argument& e) {
    EXPECT_EQ(e.parameter(), "labels") << e.what();
    ASSERT_TRUE(e.index().has_value()) << e.what();
    EXPECT_EQ(*e.index(), bad) << e.what();
  }
}

TEST_F(DistMultireduce, WrongOutputSizeOnOneRankFailsOnEveryRank) {
  const auto labels = labels_of<std::uint32_t>(sluice::data::distribution::uniform, 1000, 64, false, 1);
  const auto values = values_of<std::uint32_t>(1000, 1);
  const auto offsets = deal(labels.size(), world(), deal_layout::even);
  const auto label_parts = scatter_to_ranks(comm(), labels, offsets);
  const auto value_parts = scatter_to_ranks(comm(), values, offsets);
  std::vector<sluice::device_buffer<std::uint32_t>> out;
  for (std::size_t i = 0; i < comm().local_count(); ++i)
    out.emplace_back(comm().ctx(i), i + 1 == comm().local_count() ? 63 : 64);
  try {
    (void)dist::multireduce(comm(), view(label_parts), view(value_parts), view_mutable(out), 64, sluice::plus{});
    FAIL() << "a short output was accepted";
  } catch (const dist::rank_failure& e) {
    EXPECT_EQ(e.failed_rank(), comm().rank(comm().local_count() - 1)) << e.what();
    EXPECT_NE(std::string(e.what()).find("'out'"), std::string::npos) << e.what();
  }
}

TEST_F(DistMultireduce, AnUnknownAlgorithmOrLayoutFailsOnEveryRankNamingTheOption) {
  const auto labels = labels_of<std::uint32_t>(sluice::data::distribution::uniform, 1000, 64, false, 3);
  const auto values = values_of<std::uint32_t>(1000, 3);
  const auto offsets = deal(labels.size(), world(), deal_layout::even);
  const auto label_parts = scatter_to_ranks(comm(), labels, offsets);
  const auto value_parts = scatter_to_ranks(comm(), values, offsets);
  std::vector<sluice::device_buffer<std::uint32_t>> out;
  for (std::size_t i = 0; i < comm().local_count(); ++i) out.emplace_back(comm().ctx(i), 64);
  dist::multireduce_options unknown_algorithm;
  unknown_algorithm.algorithm = static_cast<multireduce_algorithm>(99);
  dist::multireduce_options unknown_layout;
  unknown_layout.output = static_cast<dist::layout>(99);
  for (const auto& [options, option] : {std::pair{unknown_algorithm, "options.algorithm"}, std::pair{unknown_layout, "options.output"}}) {
    try {
      (void)dist::multireduce(comm(), view(label_parts), view(value_parts), view_mutable(out), 64, sluice::plus{}, options);
      FAIL() << option << " outside its enumeration was accepted";
    } catch (const dist::rank_failure& e) {
      EXPECT_EQ(e.failed_rank(), 0) << e.what();  // every rank fails it: the lowest is named
      EXPECT_NE(std::string(e.what()).find(option), std::string::npos) << e.what();
    }
  }
}

TEST_F(DistMultireduce, ReportsItsPhases) {
  const auto labels = labels_of<std::uint32_t>(sluice::data::distribution::uniform, 1 << 20, 1 << 16, false, 2);
  const auto values = values_of<std::uint32_t>(labels.size(), 2);
  for (multireduce_algorithm a : {multireduce_algorithm::collective, multireduce_algorithm::owner_partition}) {
    dist::timings report;
    std::uint64_t dropped = 0;
    (void)run_multireduce(labels, values, 1 << 16, sluice::plus{}, reduce_case{a}, dropped, &report);
    ASSERT_EQ(report.ms.size(), static_cast<std::size_t>(world()));
    EXPECT_GT(report.slowest("local"), 0.0) << dist::to_string(a);
    EXPECT_GT(report.slowest_wall(), 0.0) << dist::to_string(a);
  }
}

}  // namespace
