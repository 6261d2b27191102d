// src/model/problem.cpp: a described problem onto the families' counts (see problem.hpp).
#include "model/problem.hpp"

#include <string>

namespace sluice::model {

namespace {

[[noreturn]] void no_counts(const problem& q, const std::string& why) {
  throw not_modelled(q.family + (q.algorithm.empty() ? "" : " [" + q.algorithm + "]") + ": " + why);
}

algorithm_model merge_sort_model(const device_profile& p, const problem& q, const register_table& regs) {
  if (q.algorithm == "radix") return onesweep_radix_sort(p, {q.n, q.key_bytes, q.value_bytes}, regs);
  merge_sort_problem s;
  s.n = q.n;
  s.key_bytes = q.key_bytes;
  s.key_align = q.key_bytes >= 8 ? 8 : q.key_bytes;
  s.value_bytes = q.value_bytes;
  s.stability_observable = q.stability_observable;
  s.items_per_thread = q.items_per_thread;
  s.ways = q.ways;
  if (q.algorithm == "pairwise") return pairwise_merge_sort(p, s, regs);
  if (q.algorithm == "gpu_mms") return gpu_mms_sort(p, s, regs);
  no_counts(q, "no counts for this strategy");
}

algorithm_model radix_sort_model(const device_profile& p, const problem& q, const register_table& regs) {
  if (q.algorithm == "onesweep") return onesweep_radix_sort(p, {q.n, q.key_bytes, q.value_bytes}, regs);
  no_counts(q, "only the onesweep strategy has counts (multisplit and split passes are not modelled)");
}

algorithm_model search_model(const device_profile& p, const problem& q, const register_table& regs) {
  search_problem s;
  s.keys = q.n;
  s.queries = q.m;
  s.key_bytes = q.key_bytes;
  s.out_bytes = 4;
  s.node_bytes = static_cast<std::size_t>(q.keys_per_node) * q.key_bytes;
  if (q.algorithm == "binary_search") s.layout = search_layout::sorted;
  else if (q.algorithm == "eytzinger") s.layout = search_layout::eytzinger;
  else if (q.algorithm == "btree") s.layout = search_layout::btree;
  else no_counts(q, "no counts for this strategy (merge_path, sort_queries and the layouts' builds are not modelled)");
  return batched_search(p, s, regs);
}

algorithm_model streaming_model(const device_profile& p, const problem& q, streaming_kind kind, const char* only) {
  if (q.algorithm != only) no_counts(q, std::string("only the ") + only + " strategy has counts");
  return streaming(p, kind, q.n, q.key_bytes);
}

algorithm_model transpose_model(const device_profile& p, const problem& q, const register_table& regs) {
  if (q.algorithm != "vector_tiled")
    no_counts(q, "only the vector_tiled kernel has counts (skinny, scalar_tiled and the seed's strategies are not "
                 "modelled)");
  if (q.m == 0 || q.n % q.m != 0)
    throw invalid_argument("model transpose", "--m", "must be the column count, dividing n");
  return vector_tiled_transpose(p, {q.n / q.m, q.m, q.key_bytes}, regs);
}

algorithm_model histogram_model(const device_profile& p, const problem& q, const register_table& regs) {
  if (q.algorithm != "byte_counts") no_counts(q, "only the byte_counts strategy has counts");
  return byte_counts_histogram(p, {q.n, q.m, q.key_bytes}, regs);
}

}  // namespace

std::string describe(const problem& q) {
  std::string text = q.family + (q.algorithm.empty() ? "" : " [" + q.algorithm + "]") + ", n = " + std::to_string(q.n);
  if (q.m != 0) text += ", m = " + std::to_string(q.m);
  return text;
}

algorithm_model model_of(const device_profile& p, const problem& q, const register_table& regs) {
  if (q.family == "merge_sort") return merge_sort_model(p, q, regs);
  if (q.family == "radix_sort") return radix_sort_model(p, q, regs);
  if (q.family == "search") return search_model(p, q, regs);
  if (q.family == "copy") return streaming_model(p, q, streaming_kind::copy, "copy");
  if (q.family == "reduce") return streaming_model(p, q, streaming_kind::reduce, "two_pass_tiles");
  if (q.family == "scan") return streaming_model(p, q, streaming_kind::scan, "decoupled_look_back");
  if (q.family == "recurrence") return streaming_model(p, q, streaming_kind::recurrence, "first_order_linear");
  if (q.family == "select") {
    if (q.algorithm != "select_if" && q.algorithm != "unique" && q.algorithm != "stable_partition")
      no_counts(q, "only select_if, unique and stable_partition have counts");
    return classify_scatter(p,
                            {q.n, q.key_bytes, q.kept, q.algorithm == "stable_partition", q.items_per_thread,
                             q.algorithm == "unique"},
                            regs);
  }
  if (q.family == "segmented_reduce" || q.family == "segmented_scan") {
    const segmented_problem s{q.n, q.m, q.key_bytes, q.heads, q.value_bytes, q.family == "segmented_reduce"};
    if (q.algorithm == "flat") return flat_segmented(p, s, regs);
    if (q.algorithm == "merge_path") return merge_path_segmented_reduce(p, s, regs);
    no_counts(q, "no counts for this strategy");
  }
  if (q.family == "transpose") return transpose_model(p, q, regs);
  if (q.family == "histogram") return histogram_model(p, q, regs);
  if (q.family == "gather") {
    if (q.algorithm != "direct") no_counts(q, "only the direct gather has counts");
    return direct_gather(p, {q.n, q.key_bytes, q.value_bytes, q.random_indices}, regs);
  }
  if (q.family == "scatter") {
    if (q.algorithm != "direct") no_counts(q, "only the direct scatter has counts");
    if (q.last_writer) no_counts(q, "last_writer (claims, then a gather by destination) has no counts");
    return direct_scatter(p, {q.n, q.key_bytes, q.value_bytes, q.random_indices}, regs);
  }
  no_counts(q, "the family has no counts (docs/model.md lists what is modelled)");
}

}  // namespace sluice::model
