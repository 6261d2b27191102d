// `sluice bench --compare` and the automatic-strategy summary (bench/harness/compare.hpp, strategies.hpp).
#include "harness/compare.hpp"
#include "harness/strategies.hpp"

#include <sluice/core/error.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace {

using sluice::bench::change;
using sluice::bench::compare_runs;
using sluice::bench::result_row;

nlohmann::json row(const std::string& name, const std::string& implementation, double median, double q1, double q3,
                   bool verified = true) {
  return {{"family", "reduce"}, {"case", name},   {"implementation", implementation}, {"role", "subject"},
          {"n", 1 << 20},       {"median_ms", median}, {"q1_ms", q1}, {"q3_ms", q3}, {"verified", verified}};
}

nlohmann::json run(const std::string& commit, nlohmann::json rows) {
  return {{"environment", {{"device", "H100"}, {"commit", commit}, {"date", "2026-11-29"}}}, {"rows", std::move(rows)}};
}

TEST(BenchCompare, VerdictsFollowTheThresholdAndTheNoise) {
  const auto before = run("a", {row("quiet slower", "sluice", 1.0, 0.99, 1.01), row("quiet faster", "sluice", 1.0, 0.99, 1.01),
                                row("small move", "sluice", 1.0, 0.99, 1.01), row("noisy", "sluice", 1.0, 0.8, 1.2)});
  const auto after = run("b", {row("quiet slower", "sluice", 1.10, 1.09, 1.11), row("quiet faster", "sluice", 0.90, 0.89, 0.91),
                               row("small move", "sluice", 1.03, 1.02, 1.04), row("noisy", "sluice", 1.3, 1.1, 1.5)});
  const auto c = compare_runs(before, after, 0.05);
  ASSERT_EQ(c.rows.size(), 4u);
  EXPECT_EQ(c.rows[0].verdict, change::slower);
  EXPECT_EQ(c.rows[1].verdict, change::faster);
  EXPECT_NEAR(c.rows[1].speedup(), 1.0 / 0.9, 1e-12);
  EXPECT_EQ(c.rows[2].verdict, change::same);  // 3% is under the 5% threshold
  EXPECT_EQ(c.rows[3].verdict, change::same);  // 30% is under the after run's 36% spread
  EXPECT_NEAR(c.rows[3].after_noise, 0.4 / 1.3, 1e-12);
  EXPECT_EQ(c.count(change::slower), 1u);
  EXPECT_EQ(c.count(change::faster), 1u);
  EXPECT_EQ(c.count(change::same), 2u);
  // A zero threshold leaves only the noise: the 3% move is now a regression.
  EXPECT_EQ(compare_runs(before, after, 0.0).rows[2].verdict, change::slower);
}

TEST(BenchCompare, FasterIsTheSameFactorAsSlower) {
  // 1/1.05 of the time is exactly the threshold: not faster; a little less is.
  const auto before = run("a", {row("x", "s", 1.0, 1.0, 1.0), row("y", "s", 1.0, 1.0, 1.0)});
  const auto after = run("b", {row("x", "s", 1.0 / 1.05 + 1e-9, 1.0, 1.0), row("y", "s", 1.0 / 1.05 - 1e-6, 1.0, 1.0)});
  const auto c = compare_runs(before, after, 0.05);
  EXPECT_EQ(c.rows[0].verdict, change::same);
  EXPECT_EQ(c.rows[1].verdict, change::faster);
}

TEST(BenchCompare, RowsOnOneSideAndRepeatedKeysAreReported) {
  const auto before = run("a", {row("kept", "s", 1, 1, 1), row("dropped", "s", 1, 1, 1), row("twice", "s", 1, 1, 1),
                                row("twice", "s", 2, 2, 2)});
  const auto after = run("b", {row("twice", "s", 2, 2, 2), row("kept", "s", 1, 1, 1), row("new", "s", 1, 1, 1),
                               row("twice", "s", 1, 1, 1), row("twice", "s", 5, 5, 5)});
  const auto c = compare_runs(before, after, 0.05);
  ASSERT_EQ(c.rows.size(), 3u);
  EXPECT_EQ(c.rows[0].before_ms, 1);  // the first "twice" with the first, in file order
  EXPECT_EQ(c.rows[0].after_ms, 2);
  EXPECT_EQ(c.rows[2].before_ms, 2);
  ASSERT_EQ(c.only_before.size(), 1u);
  EXPECT_NE(c.only_before[0].find("dropped"), std::string::npos);
  ASSERT_EQ(c.only_after.size(), 2u);  // "new" and the third "twice"
  EXPECT_NE(c.only_after[0].find("new"), std::string::npos);
  EXPECT_NE(c.only_after[1].find("#3"), std::string::npos);
}

TEST(BenchCompare, OldFilesWithoutQuartilesUseHalfTheRange) {
  nlohmann::json old = {{"family", "reduce"}, {"case", "x"}, {"implementation", "s"}, {"n", 8},
                        {"median_ms", 2.0},   {"min_ms", 1.8}, {"max_ms", 2.6}};
  const auto c = compare_runs(run("a", {old}), run("b", {old}), 0.05);
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_NEAR(c.rows[0].before_noise, 0.2, 1e-12);
  EXPECT_TRUE(c.rows[0].before_verified);
}

TEST(BenchCompare, AFailedCheckAfterIsCountedAndPrinted) {
  const auto c = compare_runs(run("a", {row("x", "s", 1, 1, 1)}), run("b", {row("x", "s", 1, 1, 1, false)}), 0.05);
  EXPECT_EQ(c.unverified(), 1u);
  std::ostringstream out;
  print_comparison(out, c);
  EXPECT_NE(out.str().find("NOT VERIFIED"), std::string::npos);
  EXPECT_NE(out.str().find("1 not verified after"), std::string::npos);
  EXPECT_NE(out.str().find("commit a"), std::string::npos);
}

TEST(BenchCompare, BadDocumentsAndFilesAreNamed) {
  const auto good = run("a", {row("x", "s", 1, 1, 1)});
  try {
    (void)compare_runs(good, nlohmann::json{{"something", 1}}, 0.05);
    FAIL() << "expected invalid_argument";
  } catch (const sluice::invalid_argument& e) {
    EXPECT_EQ(e.parameter(), "AFTER");
  }
  try {
    (void)compare_runs(run("a", {nlohmann::json{{"family", "f"}}}), good, 0.05);
    FAIL() << "expected invalid_argument";
  } catch (const sluice::invalid_argument& e) {
    EXPECT_EQ(e.parameter(), "BEFORE");
  }
  EXPECT_THROW((void)compare_runs(good, good, -0.1), sluice::invalid_argument);
  EXPECT_THROW((void)sluice::bench::compare_files("/nonexistent/before.json", "/nonexistent/after.json"),
               sluice::invalid_argument);
  const auto path = std::filesystem::temp_directory_path() / "sluice_bench_compare_not_json.json";
  std::ofstream(path) << "{ not json";
  try {
    (void)sluice::bench::compare_files(path.string(), path.string());
    FAIL() << "expected invalid_argument";
  } catch (const sluice::invalid_argument& e) {
    EXPECT_EQ(e.parameter(), "BEFORE");
  }
  std::filesystem::remove(path);
}

result_row sweep_row(const std::string& strategy, const std::string& took, double ms, std::size_t n = 1024) {
  result_row r;
  r.family = "multisplit";
  r.name = "keys m = 32 [" + strategy + "]";
  r.work = "keys m = 32";
  r.implementation = "sluice::multisplit";
  r.items = n;
  r.median_ms = ms;
  r.strategy = strategy;
  r.took = took;
  return r;
}

TEST(BenchStrategies, AutomaticIsComparedWithTheFastestOfItsSweep) {
  std::vector<result_row> rows{sweep_row("dms", "", 1.0), sweep_row("bms", "", 0.5), sweep_row("automatic", "bms", 0.51),
                               sweep_row("dms", "", 2.0, 4096), sweep_row("bms", "", 1.0, 4096),
                               sweep_row("automatic", "dms", 2.0, 4096)};
  result_row baseline = sweep_row("", "", 0.1);
  baseline.kind = sluice::bench::role::baseline;  // baselines never join a sweep
  rows.push_back(baseline);
  result_row lone = sweep_row("automatic", "bms", 1.0, 8);  // no other strategy at this n: no verdict
  rows.push_back(lone);
  const auto verdicts = sluice::bench::automatic_verdicts(rows);
  ASSERT_EQ(verdicts.size(), 2u);
  EXPECT_EQ(verdicts[0].fastest, "bms");
  EXPECT_EQ(verdicts[0].took, "bms");
  EXPECT_NEAR(verdicts[0].slowdown(), 1.02, 1e-12);
  EXPECT_EQ(verdicts[0].strategies, 3);
  EXPECT_EQ(verdicts[1].items, 4096u);
  EXPECT_NEAR(verdicts[1].slowdown(), 2.0, 1e-12);
  std::ostringstream out;
  sluice::bench::print_automatic_summary(out, verdicts);
  EXPECT_NE(out.str().find("automatic: 1 of 2 strategy sweeps within 5% of the fastest strategy; 1 not"),
            std::string::npos)
      << out.str();
  EXPECT_NE(out.str().find("took dms"), std::string::npos) << out.str();
}

TEST(BenchStrategies, RowsWithoutStrategiesPrintNothing) {
  result_row r;
  r.family = "reduce";
  r.name = "sum";
  r.median_ms = 1;
  EXPECT_TRUE(sluice::bench::automatic_verdicts({r}).empty());
  std::ostringstream out;
  sluice::bench::print_automatic_summary(out, {});
  EXPECT_TRUE(out.str().empty());
}

}  // namespace
