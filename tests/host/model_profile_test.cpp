// The device profile's JSON form (src/model/profile.hpp): a round trip keeps every field; malformed
// text, missing, misspelt, mistyped and out-of-range fields, unknown operation types, another format
// version and a profile of another device are rejected with a message naming the field.
#include "model/profile.hpp"
#include "model/report.hpp"
#include "model_test_profiles.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

namespace {

using namespace sluice::model;
using namespace sluice::model::testing;
using json = nlohmann::json;

/// The message of the profile_error that parsing `text` throws ("" when it does not throw).
std::string parse_error(const std::string& text) {
  try {
    (void)parse_profile(text, "test.json");
  } catch (const profile_error& e) {
    return e.what();
  }
  return "";
}

std::string with(const std::function<void(json&)>& edit) {
  json document = json::parse(profile_json(synthetic_profile()));
  edit(document);
  return document.dump();
}

void expect_error(const std::string& text, const std::string& fragment) {
  const std::string message = parse_error(text);
  EXPECT_NE(message.find(fragment), std::string::npos) << "message: " << message << "\nexpected: " << fragment;
  EXPECT_NE(message.find("test.json"), std::string::npos) << message;
}

TEST(ModelProfile, RoundTripKeepsEveryField) {
  const device_profile p = synthetic_profile();
  const device_profile q = parse_profile(profile_json(p), "round trip");
  EXPECT_EQ(profile_json(q), profile_json(p));
  EXPECT_EQ(q.name, p.name);
  EXPECT_EQ(q.limits.register_sub_partitions, 4);
  EXPECT_EQ(q.limits.shared_memory_per_sm, 233472u);
  EXPECT_DOUBLE_EQ(q.cost(op::v).latency_cycles, 108);
  EXPECT_DOUBLE_EQ(q.cost(op::g).bandwidth, 0.5);
  EXPECT_DOUBLE_EQ(q.random_access_words, 16);
}

TEST(ModelProfile, OperationsMayBeASubset) {
  const std::string text = with([](json& d) { d["operations"].erase("ag"); });
  const device_profile p = parse_profile(text, "test.json");
  EXPECT_THROW((void)p.cost(op::ag), profile_error);
  EXPECT_NO_THROW((void)p.cost(op::g));
}

TEST(ModelProfile, RejectsMalformedProfiles) {
  expect_error("{ \"format\": ", "is not valid JSON");
  expect_error("[1, 2]", "must be a JSON object");
  expect_error(with([](json& d) { d["format"] = "sluice-spt-profile/2"; }), "'format' is 'sluice-spt-profile/2'");
  expect_error(with([](json& d) { d.erase("sync_latency_cycles"); }), "'sync_latency_cycles' is missing");
  expect_error(with([](json& d) { d["device"].erase("name"); }), "'device.name' is missing");
  expect_error(with([](json& d) { d["device"]["name"] = ""; }), "'device.name' must not be empty");
  expect_error(with([](json& d) { d["device"]["clock_hz"] = "1.5 GHz"; }), "'device.clock_hz' must be a number");
  expect_error(with([](json& d) { d["device"]["clock_hz"] = 0; }), "'device.clock_hz' must be a finite number > 0");
  expect_error(with([](json& d) { d["limits"]["sm_count"] = -132; }), "'limits.sm_count' must be a positive integer");
  expect_error(with([](json& d) { d["limits"]["sm_count"] = 13.5; }), "'limits.sm_count' must be a positive integer");
  expect_error(with([](json& d) { d["limits"]["max_threads_per_sm"] = 2047; }),
               "'limits.max_threads_per_sm' must be a multiple of warp_size");
  expect_error(with([](json& d) { d["limits"]["sm_cont"] = 132; }), "'limits.sm_cont' is not a field");
  expect_error(with([](json& d) { d["operations"]["q"] = {{"latency_cycles", 1}, {"bandwidth", 1}}; }),
               "'operations.q' is not an operation type (known: g, l2, s, r, y, ag, as, x, v)");
  expect_error(with([](json& d) { d["operations"]["g"]["bandwidth"] = 0; }), "'operations.g.bandwidth' must be a finite number > 0");
  expect_error(with([](json& d) { d["operations"]["s"]["latency_cycles"] = -1; }),
               "'operations.s.latency_cycles' must be a finite number >= 0");
  expect_error(with([](json& d) { d["operations"]["s"].erase("bandwidth"); }), "'operations.s.bandwidth' is missing");
  expect_error(with([](json& d) { d["operations"] = json::object(); }), "'operations' must be a non-empty object");
}

TEST(ModelProfile, RejectsAProfileOfAnotherDevice) {
  const device_profile p = synthetic_profile();
  EXPECT_NO_THROW(require_device(p, "Synthetic Test GPU", "p.json"));
  try {
    require_device(p, "NVIDIA H100 80GB HBM3", "p.json");
    FAIL() << "expected a profile_error";
  } catch (const profile_error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("measured on 'Synthetic Test GPU', not on this 'NVIDIA H100 80GB HBM3'"), std::string::npos)
        << message;
  }
}

TEST(ModelProfile, LoadsFilesAndNamesMissingOnes) {
  const std::string path = ::testing::TempDir() + "/sluice_model_profile_test.json";
  {
    std::ofstream out(path);
    out << profile_json(synthetic_profile());
  }
  EXPECT_EQ(load_profile(path).name, "Synthetic Test GPU");
  std::remove(path.c_str());
  try {
    (void)load_profile(path);
    FAIL() << "expected a profile_error";
  } catch (const profile_error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot open the profile " + path), std::string::npos) << e.what();
  }
}

TEST(ModelProfile, PrintsEveryOperation) {
  std::ostringstream out;
  print_profile(out, synthetic_profile());
  for (const op_info& o : operations) EXPECT_NE(out.str().find(std::string(o.name)), std::string::npos) << o.name;
}

}  // namespace
