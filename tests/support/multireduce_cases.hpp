// tests/support/multireduce_cases.hpp: inputs of the multireduce tests and the check of one call against
// sluice::reference::multireduce_into (buckets and dropped count, output poisoned first or, in accumulate
// mode, holding known contents).
#pragma once

#include <sluice/core/device_buffer.hpp>
#include <sluice/data/distributions.hpp>
#include <sluice/multireduce.cuh>
#include <sluice/reference/multireduce.hpp>

#include "support/compare.hpp"
#include "support/gpu_test.hpp"
#include "support/random_operands.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace sluice::testing {

/// Labels of distribution `d` over [0, m) (Zipf s = 1.1; min(5, m) used buckets), every 97th replaced by
/// one outside it (m, m + 1, m + 2: dropped and counted).
template <class L = std::uint32_t>
std::vector<L> multireduce_labels(std::size_t n, std::uint32_t m, data::distribution d, std::uint64_t seed) {
  const double used = m < 5 ? static_cast<double>(m) : 5.0;
  const double parameter = d == data::distribution::zipf ? 1.1 : d == data::distribution::few_used ? used : 0.0;
  const auto drawn = data::generate_host<std::uint32_t>(n, {d, m, parameter, seed});
  std::vector<L> labels(drawn.begin(), drawn.end());
  for (std::size_t i = 13; i < n; i += 97) labels[i] = static_cast<L>(std::uint64_t{m} + i % 3);
  return labels;
}

/// The modulus of the 2x2 matrix products in the ordered tests.
inline constexpr std::uint32_t matrix_modulus = 1000003;

/// n values of T for the ordered tests: 2x2 matrices mod matrix_modulus, affine maps over u32 with odd
/// slopes (invertible, so no product collapses to a constant), or uniform draws.
template <class T>
std::vector<T> ordered_values(std::size_t n, std::uint64_t seed) {
  using affine = sluice::affine<std::uint32_t>;
  if constexpr (std::is_same_v<T, mat2>) return random_matrices(n, seed, matrix_modulus);
  else if constexpr (std::is_same_v<T, affine>) {
    const auto w = data::generate_host<std::uint32_t>(2 * n, {data::distribution::uniform, 0, 0.0, seed});
    std::vector<affine> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = {w[2 * i] | 1u, w[2 * i + 1]};
    return v;
  } else return data::generate_host<T>(n, {data::distribution::uniform, 0, 0.0, seed});
}

/// got == expected, or within `tolerance` for floating point when tolerance ≥ 0.
template <class T>
::testing::AssertionResult matches(const std::vector<T>& got, const std::vector<T>& expected, double tolerance) {
  if constexpr (std::is_floating_point_v<T>)
    if (tolerance >= 0) return all_near(got, expected, tolerance);
  return all_equal(got, expected);
}

/// The (m, n, distribution) cases of an ordered strategy sweep: every m with its sizes (sizes_for(m)),
/// every seed distribution the generator takes at that m (m ≥ 2^20: uniform and few-used only, the
/// output dominating the time). Under a sanitizer (racecheck runs the block sorts 100–1000× slower: one
/// full sweep did not finish in 165 s) only m ∈ {5, 33, 4096, 2^16} — the vector trick, the block sort's
/// shared accumulators, its records path and the global sort — with uniform labels, and m = 33 all-equal.
template <class SizesFor, class Body>
void for_each_sweep_case(std::span<const std::uint32_t> bucket_counts, SizesFor sizes_for, Body body) {
  using data::distribution;
  constexpr distribution distributions[] = {distribution::uniform, distribution::all_equal, distribution::sorted,
                                            distribution::zipf, distribution::few_used};
  const auto sanitizer_keeps = [](std::uint32_t m, distribution d) {
    const bool path_m = m == 5 || m == 33 || m == 4096 || m == (1u << 16);
    return (path_m && d == distribution::uniform) || (m == 33 && d == distribution::all_equal);
  };
  for (std::uint32_t m : bucket_counts)
    for (std::size_t n : sizes_for(m))
      for (distribution d : distributions) {
        if (m >= (1u << 20) && d != distribution::uniform && d != distribution::few_used) continue;
        if (d == distribution::zipf && m > data::max_table_range) continue;
        if (under_sanitizer() && !sanitizer_keeps(m, d)) continue;
        body(m, n, d);
      }
}

/// Runs sluice::multireduce and compares buckets and dropped count with the oracle; tolerance < 0:
/// exact. `start`: accumulate onto these contents instead of a poisoned output.
template <class L, class T, class Op>
void check_multireduce(context& ctx, const multireduce_options& options, const std::vector<L>& labels,
                       const std::vector<T>& values, std::uint32_t m, Op op, double tolerance = -1.0,
                       const std::vector<T>* start = nullptr) {
  const std::span<const L> l(labels);
  const std::span<const T> v(values);
  std::vector<T> expected = start ? *start : std::vector<T>(m, identity<Op, T>());
  const std::size_t expected_dropped = reference::multireduce_into(l, v, op, std::span<T>(expected));
  const device_buffer<L> d_labels(ctx, l);
  const device_buffer<T> d_values(ctx, v);
  device_buffer<T> out(ctx, m);
  device_buffer<std::size_t> dropped(ctx, 1);
  multireduce_options run = options;
  run.accumulate = start != nullptr;
  const std::string where = std::string(to_string(options.algorithm)) + ", n = " + std::to_string(labels.size()) +
                            ", m = " + std::to_string(m);
  for (unsigned char poison : poison_patterns) {
    if (start) out.copy_from_host(std::span<const T>(*start));
    else out.fill_bytes(poison);
    dropped.fill_bytes(poison);
    multireduce(ctx, d_labels.span(), d_values.span(), out.span(), op, dropped.data(), run);
    ASSERT_TRUE(matches(out.to_host(), expected, tolerance)) << where;
    ASSERT_EQ(dropped.to_host()[0], expected_dropped) << where;
  }
}

}  // namespace sluice::testing
