// Host tests of the records a distributed call gathers (sluice/detail/dist/records.hpp) and of the
// multireduce's bucket ownership and choice of way (owners.hpp): type names, signatures compared field by
// field with the parameter named, the failure every rank reports (the lowest failed rank, the others
// listed), the kinds of failure; owned blocks tile [0, m), labels find their owner or are dropped, and
// the automatic choice follows its bytes rule.
#include <sluice/core/operators.hpp>
#include <sluice/detail/dist/owners.hpp>
#include <sluice/detail/dist/records.hpp>
#include <sluice/options/dist.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace {

namespace dd = sluice::detail::dist;
using sluice::dist::failure_kind;

TEST(DistRecords, TypeNamesAreReadable) {
  EXPECT_EQ(dd::type_name<unsigned int>(), "unsigned int");
  EXPECT_EQ(dd::type_name<double>(), "double");
  EXPECT_EQ(dd::type_name<sluice::plus>(), "sluice::plus");
  EXPECT_EQ(dd::type_name<sluice::affine<std::uint32_t>>(), "sluice::affine<unsigned int>");
  EXPECT_NE(dd::type_tag<std::uint32_t>().hash, dd::type_tag<std::int32_t>().hash);
  EXPECT_STREQ(dd::type_tag<sluice::detail::no_values>().text, "none");
  EXPECT_EQ(dd::fnv1a(""), 0xcbf29ce484222325ull);
}

dd::call_signature signature(std::string_view operation, dd::name_tag first, dd::name_tag second, dd::name_tag op,
                             std::uint64_t p0) {
  dd::call_signature s;
  s.operation = dd::tag(operation);
  s.first = first;
  s.second = second;
  s.op = op;
  s.parameters[0] = p0;
  return s;
}

TEST(DistRecords, SignaturesNameTheFirstDifference) {
  const std::string_view names[] = {"m"};
  const auto base = signature("dist::multireduce", dd::type_tag<std::uint32_t>(), dd::type_tag<float>(),
                              dd::type_tag<sluice::plus>(), 4096);
  EXPECT_FALSE(dd::compare_signatures(base, base, 1, "labels", names).has_value());

  auto other = base;
  other.first = dd::type_tag<std::uint64_t>();
  auto m = dd::compare_signatures(base, other, 1, "labels", names);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->parameter, "labels");
  EXPECT_NE(m->problem.find(std::string(dd::type_name<std::uint64_t>())), std::string::npos) << m->problem;
  EXPECT_NE(m->problem.find("rank 1"), std::string::npos) << m->problem;

  other = base;
  other.op = dd::type_tag<sluice::max>();
  m = dd::compare_signatures(base, other, 3, "labels", names);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->parameter, "op");
  EXPECT_NE(m->problem.find("sluice::max"), std::string::npos) << m->problem;

  other = base;
  other.parameters[0] = 4097;
  m = dd::compare_signatures(base, other, 2, "labels", names);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->parameter, "m");
  EXPECT_NE(m->problem.find("4097"), std::string::npos) << m->problem;

  other = base;
  other.operation = dd::tag("dist::radix_sort");
  m = dd::compare_signatures(base, other, 1, "labels", names);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->parameter, "operation");

  std::vector<dd::call_record> headers(3);
  for (auto& h : headers) h.signature = base;
  headers[2].signature.second = dd::type_tag<double>();
  try {
    dd::require_same_signatures("dist::multireduce", headers, "labels", names);
    FAIL() << "a mismatch was not reported";
  } catch (const sluice::invalid_argument& e) {
    EXPECT_EQ(e.parameter(), "values");
    EXPECT_NE(std::string(e.what()).find("rank 2"), std::string::npos) << e.what();
  }
}

TEST(DistRecords, EveryRankReportsTheLowestFailedRank) {
  std::vector<dd::status_block> statuses(4);
  EXPECT_NO_THROW(dd::throw_first_failure("dist::radix_sort", statuses));
  statuses[3] = dd::failed_status(failure_kind::cuda, 3, "late");
  statuses[1] = dd::failed_status(failure_kind::out_of_memory, 1, "cudaMallocFromPoolAsync of 4096 bytes failed");
  try {
    dd::throw_first_failure("dist::radix_sort", statuses);
    FAIL() << "no failure reported";
  } catch (const sluice::dist::rank_failure& e) {
    EXPECT_EQ(e.failed_rank(), 1);
    EXPECT_EQ(e.kind(), failure_kind::out_of_memory);
    const std::string what = e.what();
    EXPECT_NE(what.find("rank 1 failed (out of memory)"), std::string::npos) << what;
    EXPECT_NE(what.find("ranks 3 failed too"), std::string::npos) << what;
  }
  const std::string long_message(1000, 'x');
  const dd::status_block cut = dd::failed_status(failure_kind::other, 0, long_message);
  EXPECT_EQ(std::string(cut.message).size(), sizeof(cut.message) - 1);
}

TEST(DistRecords, FailuresKeepTheirKind) {
  const auto kind_of = [](auto&& thrower) {
    try {
      thrower();
    } catch (...) {
      return static_cast<failure_kind>(dd::status_of_current_exception(0).kind);
    }
    return failure_kind::none;
  };
  EXPECT_EQ(kind_of([] { throw sluice::invalid_argument("f", "p", "bad"); }), failure_kind::invalid_argument);
  EXPECT_EQ(kind_of([] { throw sluice::out_of_memory(cudaErrorMemoryAllocation, "alloc", std::source_location::current()); }),
            failure_kind::out_of_memory);
  EXPECT_EQ(kind_of([] { throw sluice::cuda_error(cudaErrorInvalidValue, "call", std::source_location::current()); }),
            failure_kind::cuda);
  EXPECT_EQ(kind_of([] { throw std::runtime_error("x"); }), failure_kind::other);
  EXPECT_EQ(kind_of([] { throw 42; }), failure_kind::other);
}

TEST(DistOwners, BlocksTileTheBucketsAndLabelsFindTheirOwner) {
  for (int world : {1, 2, 3, 4, 7, 8})
    for (std::uint64_t m : {1ull, 2ull, 3ull, 5ull, 7ull, 8ull, 100ull, 4096ull, 4097ull}) {
      std::uint64_t next = 0;
      for (int r = 0; r < world; ++r) {
        const dd::bucket_range range = dd::owned_range(m, world, r);
        EXPECT_EQ(range.begin, next) << "m " << m << " world " << world << " rank " << r;
        EXPECT_LE(range.size(), dd::block_width(m, world));
        next = range.end;
      }
      EXPECT_EQ(next, m);
      const dd::owner_of<std::int64_t> owner{m, dd::block_width(m, world), static_cast<std::uint32_t>(world)};
      for (std::uint64_t k = 0; k < m; ++k) {
        const std::uint32_t o = owner(static_cast<std::int64_t>(k));
        const dd::bucket_range range = dd::owned_range(m, world, static_cast<int>(o));
        ASSERT_TRUE(k >= range.begin && k < range.end) << "label " << k << " m " << m << " world " << world;
      }
      EXPECT_EQ(owner(-1), static_cast<std::uint32_t>(world));
      EXPECT_EQ(owner(static_cast<std::int64_t>(m)), static_cast<std::uint32_t>(world));
      EXPECT_EQ(owner(std::numeric_limits<std::int64_t>::min()), static_cast<std::uint32_t>(world));
    }
}

TEST(DistOwners, AutomaticChoosesByBytes) {
  using sluice::dist::multireduce_algorithm;
  dd::combine_problem p{2, 4096, 4, 4, 1u << 20, true, multireduce_algorithm::automatic};
  EXPECT_EQ(dd::choose_way(p), dd::combine_way::nccl_reduction);
  p.nccl_reducible = false;
  EXPECT_EQ(dd::choose_way(p), dd::combine_way::ordered_exchange);
  p.m = std::uint64_t{1} << 22;  // 16 MiB of partials against 8 MiB of pairs
  EXPECT_EQ(dd::choose_way(p), dd::combine_way::owner_partition);
  p.algorithm = multireduce_algorithm::collective;
  EXPECT_EQ(dd::choose_way(p), dd::combine_way::ordered_exchange);
  p.algorithm = multireduce_algorithm::owner_partition;
  p.m = 16;
  EXPECT_EQ(dd::choose_way(p), dd::combine_way::owner_partition);
  p.world_size = 1;
  EXPECT_EQ(dd::choose_way(p), dd::combine_way::local);
}

TEST(DistOptions, NamesOutsideTheEnumerationAreUnknown) {
  namespace d = sluice::dist;
  EXPECT_EQ(d::to_string(d::layout::replicated), "replicated");
  EXPECT_EQ(d::to_string(d::layout::partitioned), "partitioned");
  EXPECT_EQ(d::to_string(static_cast<d::layout>(99)), "?");  // what dist::multireduce rejects by
}

}  // namespace
