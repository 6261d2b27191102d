// src/model/profile.cpp: the device profile's JSON form. Strict: every field is required and checked
// (type, range), unknown fields are errors (a misspelt key must not fall back to a default), and every
// message names the file and the field.
#include "model/profile.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <sstream>

namespace sluice::model {

namespace {

using json = nlohmann::json;

constexpr std::string_view format_name = "sluice-spt-profile/1";

/// Reads one JSON object's fields, naming `source` and the field's path in every error.
class fields {
 public:
  fields(const json& object, std::string_view source, std::string path, std::initializer_list<std::string_view> known)
      : object_(object), source_(source), path_(std::move(path)) {
    if (!object.is_object()) fail(path_.empty() ? "the document" : path_, "must be a JSON object");
    for (const auto& [key, value] : object.items()) {
      bool found = false;
      for (std::string_view k : known) found = found || k == key;
      if (!found) fail(field(key), "is not a field of a profile (misspelt?)");
    }
  }

  [[nodiscard]] const json& member(std::string_view key) const {
    const auto it = object_.find(key);
    if (it == object_.end()) fail(field(key), "is missing");
    return *it;
  }
  [[nodiscard]] std::string text(std::string_view key, bool non_empty) const {
    const json& v = member(key);
    if (!v.is_string()) fail(field(key), "must be a string");
    auto s = v.get<std::string>();
    if (non_empty && s.empty()) fail(field(key), "must not be empty");
    return s;
  }
  /// A finite number ≥ 0, or > 0 where `positive`.
  [[nodiscard]] double number(std::string_view key, bool positive) const {
    const json& v = member(key);
    if (!v.is_number()) fail(field(key), "must be a number");
    const double x = v.get<double>();
    if (!std::isfinite(x) || x < 0 || (positive && x == 0))
      fail(field(key), std::string("must be a finite number ") + (positive ? "> 0" : ">= 0") + " (is " + v.dump() + ")");
    return x;
  }
  [[nodiscard]] long long integer(std::string_view key) const {
    const json& v = member(key);
    if (!v.is_number_integer() || v.get<long long>() <= 0)
      fail(field(key), "must be a positive integer (is " + v.dump() + ")");
    return v.get<long long>();
  }
  [[nodiscard]] int small_integer(std::string_view key) const {
    const long long x = integer(key);
    if (x > std::numeric_limits<int>::max()) fail(field(key), "is too large");
    return static_cast<int>(x);
  }
  [[nodiscard]] std::size_t size(std::string_view key) const { return static_cast<std::size_t>(integer(key)); }
  [[nodiscard]] fields object(std::string_view key, std::initializer_list<std::string_view> known) const {
    return fields(member(key), source_, field(key), known);
  }
  [[nodiscard]] std::string field(std::string_view key) const {
    return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
  }
  [[noreturn]] void fail(std::string_view field, std::string_view problem) const {
    throw profile_error("sluice model: profile " + std::string(source_) + ": '" + std::string(field) + "' " +
                        std::string(problem));
  }
  [[nodiscard]] const json& raw() const { return object_; }

 private:
  const json& object_;
  std::string_view source_;
  std::string path_;
};

device_limits read_limits(const fields& f) {
  device_limits l;
  l.sm_count = f.small_integer("sm_count");
  l.cores_per_sm = f.small_integer("cores_per_sm");
  l.warp_size = f.small_integer("warp_size");
  l.max_threads_per_sm = f.small_integer("max_threads_per_sm");
  l.max_threads_per_block = f.small_integer("max_threads_per_block");
  l.max_blocks_per_sm = f.small_integer("max_blocks_per_sm");
  l.registers_per_sm = f.small_integer("registers_per_sm");
  l.registers_per_block = f.small_integer("registers_per_block");
  l.max_registers_per_thread = f.small_integer("max_registers_per_thread");
  l.register_allocation_unit = f.small_integer("register_allocation_unit");
  l.register_sub_partitions = f.small_integer("register_sub_partitions");
  l.shared_memory_per_sm = f.size("shared_memory_per_sm");
  l.shared_memory_per_block_optin = f.size("shared_memory_per_block_optin");
  l.shared_memory_reserved_per_block = static_cast<std::size_t>(f.number("shared_memory_reserved_per_block", false));
  l.shared_allocation_unit = f.size("shared_allocation_unit");
  l.shared_banks = f.small_integer("shared_banks");
  if (l.max_threads_per_sm % l.warp_size != 0) f.fail(f.field("max_threads_per_sm"), "must be a multiple of warp_size");
  if (l.registers_per_sm % l.register_sub_partitions != 0)
    f.fail(f.field("registers_per_sm"), "must be a multiple of register_sub_partitions");
  return l;
}

}  // namespace

std::optional<op> op_from_key(std::string_view key) {
  for (int i = 0; i < op_count; ++i)
    if (operations[static_cast<std::size_t>(i)].key == key) return static_cast<op>(i);
  return std::nullopt;
}

const op_cost& device_profile::cost(op o) const {
  const auto& c = ops[static_cast<std::size_t>(o)];
  if (!c)
    throw profile_error("sluice model: the profile of '" + name + "' has no parameters for operation '" +
                        std::string(info(o).key) + "' (" + std::string(info(o).name) + "): run `sluice model calibrate`");
  return *c;
}

device_profile parse_profile(std::string_view json_text, std::string_view source) {
  json document;
  try {
    document = json::parse(json_text.begin(), json_text.end());
  } catch (const json::parse_error& e) {
    throw profile_error("sluice model: profile " + std::string(source) + " is not valid JSON: " + e.what());
  }
  const fields top(document, source, "",
                   {"format", "device", "limits", "operations", "sync_latency_cycles", "random_access_words",
                    "l2_random_access_words", "measured"});
  const std::string format = top.text("format", true);
  if (format != format_name)
    top.fail("format", "is '" + format + "'; this sluice reads '" + std::string(format_name) + "'");

  device_profile p;
  const fields device = top.object("device", {"name", "compute_capability", "driver", "runtime", "clock_hz",
                                              "memory_clock_hz", "memory_bus_bits", "l2_bytes"});
  p.name = device.text("name", true);
  p.compute_capability = device.text("compute_capability", true);
  p.driver = device.text("driver", false);
  p.runtime = device.text("runtime", false);
  p.clock_hz = device.number("clock_hz", true);
  p.memory_clock_hz = device.number("memory_clock_hz", false);
  p.memory_bus_bits = static_cast<int>(device.number("memory_bus_bits", false));
  p.l2_bytes = static_cast<std::size_t>(device.number("l2_bytes", false));
  p.limits = read_limits(top.object(
      "limits", {"sm_count", "cores_per_sm", "warp_size", "max_threads_per_sm", "max_threads_per_block",
                 "max_blocks_per_sm", "registers_per_sm", "registers_per_block", "max_registers_per_thread",
                 "register_allocation_unit", "register_sub_partitions", "shared_memory_per_sm",
                 "shared_memory_per_block_optin", "shared_memory_reserved_per_block", "shared_allocation_unit",
                 "shared_banks"}));

  const json& ops = top.member("operations");
  if (!ops.is_object() || ops.empty()) top.fail("operations", "must be a non-empty object of operation types");
  for (const auto& [key, value] : ops.items()) {
    const auto o = op_from_key(key);
    if (!o) {
      std::string known;
      for (const auto& i : operations) known += (known.empty() ? "" : ", ") + std::string(i.key);
      top.fail("operations." + key, "is not an operation type (known: " + known + ")");
    }
    const fields cost(value, source, "operations." + key, {"latency_cycles", "bandwidth"});
    p.ops[static_cast<std::size_t>(*o)] = op_cost{cost.number("latency_cycles", false), cost.number("bandwidth", true)};
  }
  p.sync_latency_cycles = top.number("sync_latency_cycles", false);
  p.random_access_words = top.number("random_access_words", true);
  p.l2_random_access_words = top.number("l2_random_access_words", true);
  p.measured = top.text("measured", false);
  return p;
}

device_profile load_profile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw profile_error("sluice model: cannot open the profile " + path + " (`sluice model calibrate --out " + path + "` on the GPU writes it)");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_profile(text.str(), path);
}

std::string profile_json(const device_profile& p) {
  const device_limits& l = p.limits;
  json ops = json::object();
  for (int i = 0; i < op_count; ++i)
    if (const auto& c = p.ops[static_cast<std::size_t>(i)])
      ops[std::string(operations[static_cast<std::size_t>(i)].key)] = {{"latency_cycles", c->latency_cycles},
                                                                        {"bandwidth", c->bandwidth}};
  const json document = {
      {"format", format_name},
      {"device",
       {{"name", p.name},
        {"compute_capability", p.compute_capability},
        {"driver", p.driver},
        {"runtime", p.runtime},
        {"clock_hz", p.clock_hz},
        {"memory_clock_hz", p.memory_clock_hz},
        {"memory_bus_bits", p.memory_bus_bits},
        {"l2_bytes", p.l2_bytes}}},
      {"limits",
       {{"sm_count", l.sm_count},
        {"cores_per_sm", l.cores_per_sm},
        {"warp_size", l.warp_size},
        {"max_threads_per_sm", l.max_threads_per_sm},
        {"max_threads_per_block", l.max_threads_per_block},
        {"max_blocks_per_sm", l.max_blocks_per_sm},
        {"registers_per_sm", l.registers_per_sm},
        {"registers_per_block", l.registers_per_block},
        {"max_registers_per_thread", l.max_registers_per_thread},
        {"register_allocation_unit", l.register_allocation_unit},
        {"register_sub_partitions", l.register_sub_partitions},
        {"shared_memory_per_sm", l.shared_memory_per_sm},
        {"shared_memory_per_block_optin", l.shared_memory_per_block_optin},
        {"shared_memory_reserved_per_block", l.shared_memory_reserved_per_block},
        {"shared_allocation_unit", l.shared_allocation_unit},
        {"shared_banks", l.shared_banks}}},
      {"operations", ops},
      {"sync_latency_cycles", p.sync_latency_cycles},
      {"random_access_words", p.random_access_words},
      {"l2_random_access_words", p.l2_random_access_words},
      {"measured", p.measured},
  };
  return document.dump(2) + "\n";
}

void require_device(const device_profile& profile, std::string_view device_name, std::string_view source) {
  if (profile.name != device_name)
    throw profile_error("sluice model: profile " + std::string(source) + " was measured on '" + profile.name +
                        "', not on this '" + std::string(device_name) +
                        "': run `sluice model calibrate` on this device, or pass --foreign-profile");
}

}  // namespace sluice::model
