// libsluice_python_kernels: what no family owns: dtype names, the names of operators and strategies (the
// one place that parses them), the context cache, counts read back, device facts.
#include "api_search.hpp"
#include "api_strings.hpp"
#include "common.hpp"

#include <sluice/core/memory.hpp>

#include <cuda/std/__cccl/version.h>

#include <array>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

namespace sluice::python {

namespace {
struct dtype_fact {
  std::string_view name;
  std::size_t size;
};
constexpr std::array<dtype_fact, 12> dtype_facts{{{"bool", 1},
                                                  {"int8", 1},
                                                  {"int16", 2},
                                                  {"int32", 4},
                                                  {"int64", 8},
                                                  {"uint8", 1},
                                                  {"uint16", 2},
                                                  {"uint32", 4},
                                                  {"uint64", 8},
                                                  {"float16", 2},
                                                  {"float32", 4},
                                                  {"float64", 8}}};

/// One name table per enum: (name, value) pairs, the C++ enumerator names.
template <class E, std::size_t N>
E parse_name(std::string_view name, const std::array<std::pair<std::string_view, E>, N>& table, const char* what) {
  for (const auto& [text, value] : table)
    if (text == name) return value;
  std::string known;
  for (const auto& entry : table) known += (known.empty() ? "" : ", ") + std::string(entry.first);
  throw error(error_kind::value, "sluice: unknown " + std::string(what) + " '" + std::string(name) + "' (known: " + known + ")");
}
}  // namespace

std::string_view name(dtype type) { return dtype_facts[static_cast<std::size_t>(type)].name; }
std::size_t itemsize(dtype type) { return dtype_facts[static_cast<std::size_t>(type)].size; }

void throw_unsupported(const char* function, const char* parameter, dtype got, std::string supported) {
  throw error(error_kind::type, "sluice." + std::string(function) + ": '" + parameter + "' has dtype " +
                                    std::string(name(got)) + "; supported: " + supported);
}

void require_type(const array& a, dtype type, const char* function, const char* parameter) {
  if (a.type != type) throw_unsupported(function, parameter, a.type, std::string(name(type)) + " (as the other arrays)");
}

void require_width(const array& a, std::size_t bytes, const char* function, const char* parameter) {
  if (itemsize(a.type) != bytes)
    throw error(error_kind::type, "sluice." + std::string(function) + ": '" + parameter + "' has dtype " +
                                      std::string(name(a.type)) + "; it must have " + std::to_string(bytes) +
                                      "-byte elements like the input");
}

void throw_operator(const char* function, operator_kind op, unsigned allowed, dtype type) {
  static constexpr std::array<std::string_view, 8> names{"sum", "prod", "min", "max", "and", "or", "xor", "mean"};
  const bool integral = type != dtype::float32 && type != dtype::float64 && type != dtype::float16;
  std::string known;
  for (unsigned k = 0; k < names.size(); ++k)
    if ((allowed & (1u << k)) && (integral || k < 4 || k == 7)) known += (known.empty() ? "" : ", ") + std::string(names[k]);
  throw error(error_kind::value, "sluice." + std::string(function) + ": operator '" +
                                     std::string(names[static_cast<unsigned>(op)]) + "' is not available for " +
                                     std::string(name(type)) + " here (available: " + known + ")");
}

operator_kind parse_operator(std::string_view text) {
  static constexpr std::array<std::pair<std::string_view, operator_kind>, 12> table{{
      {"sum", operator_kind::sum},         {"plus", operator_kind::sum},         {"prod", operator_kind::prod},
      {"min", operator_kind::min},         {"max", operator_kind::max},          {"and", operator_kind::bit_and},
      {"bit_and", operator_kind::bit_and}, {"or", operator_kind::bit_or},        {"bit_or", operator_kind::bit_or},
      {"xor", operator_kind::bit_xor},     {"bit_xor", operator_kind::bit_xor},  {"mean", operator_kind::mean},
  }};
  return parse_name(text, table, "operator");
}

comparison parse_comparison(std::string_view text) {
  static constexpr std::array<std::pair<std::string_view, comparison>, 12> table{{
      {"lt", comparison::lt}, {"<", comparison::lt},  {"le", comparison::le}, {"<=", comparison::le},
      {"gt", comparison::gt}, {">", comparison::gt},  {"ge", comparison::ge}, {">=", comparison::ge},
      {"eq", comparison::eq}, {"==", comparison::eq}, {"ne", comparison::ne}, {"!=", comparison::ne},
  }};
  return parse_name(text, table, "comparison");
}

bucket_kind parse_bucket(std::string_view text) {
  static constexpr std::array<std::pair<std::string_view, bucket_kind>, 4> table{{{"identity", bucket_kind::identity},
                                                                                  {"delta", bucket_kind::delta},
                                                                                  {"bit_field", bucket_kind::bit_field},
                                                                                  {"splitters", bucket_kind::splitters}}};
  return parse_name(text, table, "bucket identifier");
}

reduce_algorithm parse_reduce_algorithm(std::string_view text) {
  using a = reduce_algorithm;
  static constexpr std::array<std::pair<std::string_view, a>, 7> table{{
      {"automatic", a::automatic},
      {"two_pass_tiles", a::two_pass_tiles},
      {"dtu_global_tree", a::dtu_global_tree},
      {"dtu_shared_tree", a::dtu_shared_tree},
      {"palik_interleaved", a::palik_interleaved},
      {"palik_sequential_addressing", a::palik_sequential_addressing},
      {"warp_shuffle", a::warp_shuffle},
  }};
  return parse_name(text, table, "reduce algorithm");
}

scan_algorithm parse_scan_algorithm(std::string_view text) {
  using a = scan_algorithm;
  static constexpr std::array<std::pair<std::string_view, a>, 5> table{{{"automatic", a::automatic},
                                                                        {"decoupled_look_back", a::decoupled_look_back},
                                                                        {"reduce_then_scan", a::reduce_then_scan},
                                                                        {"brent_kung", a::brent_kung},
                                                                        {"hillis_steele", a::hillis_steele}}};
  return parse_name(text, table, "scan algorithm");
}

segmented_algorithm parse_segmented_algorithm(std::string_view text) {
  using a = segmented_algorithm;
  static constexpr std::array<std::pair<std::string_view, a>, 3> table{
      {{"automatic", a::automatic}, {"flat", a::flat}, {"merge_path", a::merge_path}}};
  return parse_name(text, table, "segmented algorithm");
}

transpose_algorithm parse_transpose_algorithm(std::string_view text) {
  using a = transpose_algorithm;
  static constexpr std::array<std::pair<std::string_view, a>, 4> table{
      {{"automatic", a::automatic}, {"naive", a::naive}, {"tiled", a::tiled}, {"tiled_padded", a::tiled_padded}}};
  return parse_name(text, table, "transpose algorithm");
}

scatter_algorithm parse_scatter_algorithm(std::string_view text) {
  using a = scatter_algorithm;
  static constexpr std::array<std::pair<std::string_view, a>, 3> table{
      {{"automatic", a::automatic}, {"direct", a::direct}, {"partial_sort", a::partial_sort}}};
  return parse_name(text, table, "scatter algorithm");
}

scatter_semantics parse_scatter_semantics(std::string_view text) {
  using s = scatter_semantics;
  static constexpr std::array<std::pair<std::string_view, s>, 2> table{
      {{"any_writer", s::any_writer}, {"last_writer", s::last_writer}}};
  return parse_name(text, table, "scatter semantics");
}

multisplit_algorithm parse_multisplit_algorithm(std::string_view text) {
  using a = multisplit_algorithm;
  static constexpr std::array<std::pair<std::string_view, a>, 7> table{
      {{"automatic", a::automatic}, {"dms", a::dms}, {"wms", a::wms}, {"bms", a::bms}, {"rb_sort", a::rb_sort},
       {"scan_split", a::scan_split}, {"onesweep", a::onesweep}}};
  return parse_name(text, table, "multisplit algorithm");
}

radix_sort_algorithm parse_radix_sort_algorithm(std::string_view text) {
  using a = radix_sort_algorithm;
  static constexpr std::array<std::pair<std::string_view, a>, 4> table{
      {{"automatic", a::automatic}, {"onesweep", a::onesweep}, {"multisplit", a::multisplit}, {"split", a::split}}};
  return parse_name(text, table, "radix sort algorithm");
}

histogram_algorithm parse_histogram_algorithm(std::string_view text) {
  using a = histogram_algorithm;
  static constexpr std::array<std::pair<std::string_view, a>, 8> table{
      {{"automatic", a::automatic}, {"warp_ballot", a::warp_ballot}, {"shared_per_bank", a::shared_per_bank},
       {"global_atomics", a::global_atomics}, {"bank_trish", a::bank_trish}, {"sort_based", a::sort_based},
       {"coarse_bins", a::coarse_bins}, {"byte_counts", a::byte_counts}}};
  return parse_name(text, table, "histogram algorithm");
}

multireduce_algorithm parse_multireduce_algorithm(std::string_view text) {
  using a = multireduce_algorithm;
  static constexpr std::array<std::pair<std::string_view, a>, 8> table{
      {{"automatic", a::automatic}, {"per_bank_shared", a::per_bank_shared},
       {"per_bank_multi_pass", a::per_bank_multi_pass}, {"global_atomic_sets", a::global_atomic_sets},
       {"block_sort_segmented", a::block_sort_segmented}, {"global_sort_reduce_by_key", a::global_sort_reduce_by_key},
       {"vector", a::vector}, {"warp_private_sets", a::warp_private_sets}}};
  return parse_name(text, table, "multireduce algorithm");
}

multiscan_algorithm parse_multiscan_algorithm(std::string_view text) {
  using a = multiscan_algorithm;
  static constexpr std::array<std::pair<std::string_view, a>, 5> table{
      {{"automatic", a::automatic}, {"block_sort_segmented", a::block_sort_segmented},
       {"global_sort_scan_by_key", a::global_sort_scan_by_key}, {"sequential", a::sequential},
       {"sheffler", a::sheffler}}};
  return parse_name(text, table, "multiscan algorithm");
}

merge_sort_algorithm parse_merge_sort_algorithm(std::string_view text) {
  using a = merge_sort_algorithm;
  static constexpr std::array<std::pair<std::string_view, a>, 4> table{
      {{"automatic", a::automatic}, {"pairwise", a::pairwise}, {"radix", a::radix}, {"gpu_mms", a::gpu_mms}}};
  return parse_name(text, table, "merge sort algorithm");
}

search_algorithm parse_search_algorithm(std::string_view text) {
  using a = search_algorithm;
  static constexpr std::array<std::pair<std::string_view, a>, 6> table{
      {{"automatic", a::automatic}, {"binary_search", a::binary_search}, {"merge_path", a::merge_path},
       {"eytzinger", a::eytzinger}, {"btree", a::btree}, {"sort_queries", a::sort_queries}}};
  return parse_name(text, table, "search algorithm");
}

search_layout parse_search_layout(std::string_view text) {
  using l = search_layout;
  static constexpr std::array<std::pair<std::string_view, l>, 3> table{
      {{"sorted", l::sorted}, {"eytzinger", l::eytzinger}, {"btree", l::btree}}};
  return parse_name(text, table, "search layout");
}

std::string_view name(search_layout layout) {
  switch (layout) {
    case search_layout::sorted: return "sorted";
    case search_layout::eytzinger: return "eytzinger";
    case search_layout::btree: return "btree";
  }
  return "?";
}

string_match_algorithm parse_string_match_algorithm(std::string_view text) {
  using a = string_match_algorithm;
  static constexpr std::array<std::pair<std::string_view, a>, 8> table{
      {{"automatic", a::automatic}, {"crk", a::crk}, {"crk_recurrence", a::crk_recurrence}, {"drk", a::drk},
       {"drk_wom32", a::drk_wom32}, {"drk_wom64", a::drk_wom64}, {"hrk", a::hrk}, {"drk_2s", a::drk_2s}}};
  return parse_name(text, table, "string match algorithm");
}

match_verification parse_match_verification(std::string_view text) {
  using v = match_verification;
  static constexpr std::array<std::pair<std::string_view, v>, 2> table{
      {{"exact", v::exact}, {"fingerprint", v::fingerprint}}};
  return parse_name(text, table, "match verification");
}

// ---- contexts ----------------------------------------------------------------------------------------------

context& context_for(const call& c) {
  // Contexts are never destroyed (see common.hpp): the map only grows, by one entry per (device, stream)
  // a program ever passes, and a context costs a few hundred bytes.
  static std::mutex guard;
  static std::map<std::pair<int, std::uintptr_t>, context*> contexts;
  thread_local std::pair<int, std::uintptr_t> last_key{-1, 0};
  thread_local context* last = nullptr;
  const std::pair key{c.device, c.stream};
  if (last && key == last_key) return *last;
  const std::lock_guard lock(guard);
  context*& slot = contexts[key];
  if (!slot) slot = guarded([&] { return new context(c.device, reinterpret_cast<cudaStream_t>(c.stream)); });
  last_key = key;
  last = slot;
  return *slot;
}

std::size_t read_count(context& ctx, const std::size_t* device_count) {
  std::size_t count = 0;
  SLUICE_CUDA_CHECK(cudaMemcpyAsync(&count, device_count, sizeof count, cudaMemcpyDeviceToHost, ctx.stream()));
  ctx.synchronize();
  return count;
}

count_slot::count_slot(context& ctx)
    : ctx_(ctx), pointer_(static_cast<std::size_t*>(ctx.allocate_bytes(sizeof(std::size_t)))) {}
count_slot::~count_slot() { ctx_.deallocate_bytes(pointer_); }

int device_count(std::string* reason) { return cuda_device_count(reason); }

device_info info(int device) {
  return guarded([&] {
    const device_properties p = device_properties::query(device);
    device_info out;
    out.device = device;
    out.name = p.name;
    out.compute_capability = p.compute_capability_major * 10 + p.compute_capability_minor;
    out.sm_count = p.sm_count;
    out.global_memory_bytes = p.global_memory_bytes;
    out.l2_cache_bytes = p.l2_cache_bytes;
    out.theoretical_bandwidth = p.theoretical_bandwidth();
    out.cccl_version = CCCL_VERSION;
    SLUICE_CUDA_CHECK(cudaRuntimeGetVersion(&out.cuda_runtime_version));
    return out;
  });
}

int pointer_device(const void* pointer) {
  return guarded([&] {
    int device = -1;
    const memory_kind kind = memory_kind_of(pointer, &device);
    return kind == memory_kind::device || kind == memory_kind::managed ? device : -1;
  });
}

void synchronize(const call& c) {
  if (c.on_host()) return;
  guarded([&] { context_for(c).synchronize(); });
}

}  // namespace sluice::python
