// bench/cases/ordered_inputs.hpp: the input of the order-preserving multireduce and multiscan benchmarks
// (issue 5 targets: 2^28 pairs of a u32 label and an affine<u32> value, labels uniform or all equal over
// m buckets), and the CUB baseline's first step that both share: a stable radix sort of the labels with
// a payload over the bits of m − 1 (Thrust's stable_sort_by_key on integer keys is this sort).
#pragma once

#include "harness/measure.hpp"

#include <sluice/core/device_buffer.hpp>
#include <sluice/core/operators.hpp>
#include <sluice/data/distributions.hpp>

#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace sluice::bench::ordered {

using affine = sluice::affine<std::uint32_t>;

inline std::size_t pair_count(const case_context& session) { return std::size_t{1} << (session.quick() ? 24 : 28); }

/// Bucket counts of the sweep (quick: three).
inline std::vector<std::uint32_t> bucket_sweep(const case_context& session) {
  if (session.quick()) return {32, 1024, 1u << 16};
  return {1, 32, 256, 1024, 4096, 1u << 16, 1u << 20, 1u << 24};
}

struct input {
  std::vector<std::uint32_t> labels;
  std::vector<affine> values;
  std::string label_name;  ///< "uniform" / "all equal"
};

inline input make_input(std::size_t n, std::uint32_t m, data::distribution d) {
  input in;
  in.labels = data::generate_host<std::uint32_t>(n, {d, m, 0.0, m});
  const auto words = data::generate_host<std::uint32_t>(2 * n, {data::distribution::uniform, 0, 0.0, 7});
  in.values.resize(n);
  for (std::size_t i = 0; i < n; ++i) in.values[i] = {words[2 * i] | 1u, words[2 * i + 1]};
  in.label_name = d == data::distribution::all_equal ? "all equal" : "uniform";
  return in;
}

/// cub::DeviceRadixSort::SortPairs of (labels, payload) over the bits that labels < m use.
template <class P>
class label_sort {
 public:
  label_sort(context& ctx, std::size_t n, std::uint32_t m) : ctx_(ctx), n_(n), bits_(std::max(1, static_cast<int>(std::bit_width(m - 1)))) {
    SLUICE_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes_, static_cast<const std::uint32_t*>(nullptr),
                                                      static_cast<std::uint32_t*>(nullptr), static_cast<const P*>(nullptr),
                                                      static_cast<P*>(nullptr), n_, 0, bits_, ctx.stream()));
    temp_ = device_buffer<char>(ctx, bytes_);
  }
  void operator()(const std::uint32_t* labels, const P* payload, std::uint32_t* sorted_labels, P* sorted_payload) {
    SLUICE_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp_.data(), bytes_, labels, sorted_labels, payload,
                                                      sorted_payload, n_, 0, bits_, ctx_.stream()));
  }

 private:
  context& ctx_;
  std::size_t n_;
  int bits_;
  std::size_t bytes_ = 0;
  device_buffer<char> temp_;
};

}  // namespace sluice::bench::ordered
