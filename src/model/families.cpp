// src/model/families.cpp: kernel keys and the register lookup shared by the families' counts.
#include "model/families.hpp"

#include <string>

namespace sluice::model {

std::string pairwise_kernel_key(const std::string& kernel, std::size_t key_bytes, std::size_t value_bytes, int items) {
  std::string key = "pairwise/" + kernel + "/k" + std::to_string(key_bytes) + "v" + std::to_string(value_bytes);
  if (kernel != "partition") key += "/E" + std::to_string(items);
  return key;
}

std::string gpu_mms_kernel_key(const std::string& kernel, std::size_t item_bytes, bool tagged, int ways) {
  if (kernel == "monotone") return "gpu_mms/monotone";
  std::string key = "gpu_mms/" + kernel + "/" + (tagged ? "t" : "k") + std::to_string(item_bytes);
  if (kernel == "merge") key += "/K" + std::to_string(ways);
  return key;
}

std::string search_kernel_key(const std::string& kernel, std::size_t key_bytes, int keys_per_node) {
  std::string key = "search/" + kernel + "/k" + std::to_string(key_bytes);
  if (kernel == "tree") key += "/B" + std::to_string(keys_per_node);
  return key;
}

std::string onesweep_kernel_key(const std::string& kernel, std::size_t key_bytes, std::size_t value_bytes) {
  return "onesweep/" + kernel + "/k" + std::to_string(key_bytes) + "v" + std::to_string(value_bytes);
}

std::string select_kernel_key(const std::string& kernel, std::size_t element_bytes) {
  return "select/" + kernel + "/k" + std::to_string(element_bytes);
}

int registers_of(const register_table& table, const std::string& key) {
  const auto it = table.find(key);
  if (it == table.end())
    throw invalid_argument("model", "registers",
                           "of kernel '" + key + "' are not known (not one of the compiled instantiations): pass "
                           "--registers " + key + "=R (from ptxas -v or cudaFuncGetAttributes)");
  return it->second;
}

}  // namespace sluice::model

namespace sluice::model {

register_table ptxas_registers() {
  // ptxas -v of src/model/calibrate/kernel_registers.cu (CUDA 13.0, sm_90, -O3), at the commit that
  // added this table; no kernel spills, except the 16-byte keys' kernels at E = 7, which are bounded to
  // three blocks an SM since b46728c (80 and 78 registers, 16–192 bytes spilled). `sluice model` on a GPU
  // reads the compiled kernels instead.
  return {
      {"pairwise/block_sort/k4v0/E7", 48},   {"pairwise/block_sort/k4v0/E11", 64},  {"pairwise/block_sort/k4v0/E17", 79},
      {"pairwise/merge/k4v0/E7", 34},        {"pairwise/merge/k4v0/E11", 48},       {"pairwise/merge/k4v0/E17", 80},
      {"pairwise/partition/k4v0", 40},
      {"pairwise/block_sort/k8v0/E7", 57},   {"pairwise/block_sort/k8v0/E11", 74},  {"pairwise/block_sort/k8v0/E17", 110},
      {"pairwise/merge/k8v0/E7", 48},        {"pairwise/merge/k8v0/E11", 80},       {"pairwise/merge/k8v0/E17", 111},
      {"pairwise/partition/k8v0", 40},
      {"pairwise/block_sort/k4v4/E7", 56},   {"pairwise/block_sort/k4v4/E11", 72},  {"pairwise/block_sort/k4v4/E17", 128},
      {"pairwise/merge/k4v4/E7", 39},        {"pairwise/merge/k4v4/E11", 61},       {"pairwise/merge/k4v4/E17", 80},
      {"pairwise/partition/k4v4", 40},
      {"pairwise/block_sort/k16v0/E7", 78}, {"pairwise/block_sort/k16v0/E11", 171}, {"pairwise/block_sort/k16v0/E17", 198},
      {"pairwise/merge/k16v0/E7", 80},       {"pairwise/merge/k16v0/E11", 136},     {"pairwise/merge/k16v0/E17", 190},
      {"pairwise/partition/k16v0", 40},
      {"gpu_mms/base_case/k4", 99},          {"gpu_mms/split/k4", 52},
      {"gpu_mms/merge/k4/K2", 48},           {"gpu_mms/merge/k4/K4", 52},           {"gpu_mms/merge/k4/K8", 56},
      {"gpu_mms/merge/k4/K16", 56},          {"gpu_mms/merge/k4/K32", 63},
      {"gpu_mms/base_case/t8", 48},          {"gpu_mms/split/t8", 56},
      {"gpu_mms/merge/t8/K2", 48},           {"gpu_mms/merge/t8/K4", 54},           {"gpu_mms/merge/t8/K8", 63},
      {"gpu_mms/merge/t8/K16", 72},          {"gpu_mms/merge/t8/K32", 83},
      {"gpu_mms/monotone", 19},
      {"search/tree/k4/B1", 60},             {"search/tree/k4/B8", 51},             {"search/tree/k4/B16", 38},
      {"search/tree/k4/B32", 54},            {"search/sorted/k4", 20},
      {"onesweep/pass/k4v0", 80},            {"onesweep/pass/k8v0", 80},            {"onesweep/pass/k4v4", 80},
      {"onesweep/histogram/k4v0", 32},       {"onesweep/histogram/k8v0", 48},
      {"select/scatter/k4", 56},             {"select/partition_scatter/k4", 56},   {"select/count/k4", 37},
      {"transpose/vector_tiled/k4", 48},     {"histogram/byte_counts/k1", 32},     {"gather/direct/k4i4", 61},
      {"scatter/direct/k4i4", 64},
  };
}

}  // namespace sluice::model
