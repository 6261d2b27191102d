// sluice/detail/multiscan/dispatch.cuh: multiscan's and multitag's dispatch: the argument checks once,
// the automatic choice, then the strategy.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/memory.hpp>
#include <sluice/core/operators.hpp>
#include <sluice/core/span.hpp>
#include <sluice/detail/multireduce/common.cuh>
#include <sluice/detail/multiscan/block_sort_segmented.cuh>
#include <sluice/detail/multiscan/common.cuh>
#include <sluice/detail/multiscan/global_sort_scan_by_key.cuh>
#include <sluice/detail/multiscan/sequential.cuh>
#include <sluice/detail/multiscan/sheffler.cuh>
#include <sluice/detail/multiscan/tuning.hpp>
#include <sluice/options/multiscan.hpp>

#include <cuda/std/span>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>

namespace sluice::detail::multiscan {

template <class T>
multiscan_algorithm resolve(const char* function, std::uint32_t m, const multiscan_options& options) {
  require_known_algorithm(function, options.algorithm, "multiscan_algorithm");
  const bool fits = block_sort_fits<T>(m);
  if (options.algorithm == multiscan_algorithm::block_sort_segmented && !fits)
    throw invalid_argument(function, "options",
                           "block_sort_segmented keeps m · sizeof(T) ≤ " +
                               std::to_string(multireduce::tuning::accumulator_bytes) +
                               " bytes in shared memory, not m = " + std::to_string(m) + " of " +
                               std::to_string(sizeof(T)) + " bytes (global_sort_scan_by_key takes any m)");
  // sequential and sheffler take any m and are only ever chosen explicitly.
  if (options.algorithm != multiscan_algorithm::automatic) return options.algorithm;
  return fits && m <= tuning::automatic_block_sort_max_buckets ? multiscan_algorithm::block_sort_segmented
                                                               : multiscan_algorithm::global_sort_scan_by_key;
}

inline void check_bucket_count(const char* function, std::uint32_t m) {
  if (m == 0) throw invalid_argument(function, "m", "must be at least 1");
  if (m == std::numeric_limits<std::uint32_t>::max())
    throw invalid_argument(function, "m", "must be below 2^32 − 1");
}

/// A per-bucket output: empty or m entries, device memory, overlapping no other argument.
template <class U, class A, class B>
void check_bucket_output(const context& ctx, const char* function, const char* name, cuda::std::span<U> buckets,
                         std::uint32_t m, cuda::std::span<A> a, cuda::std::span<B> b) {
  if (buckets.empty()) return;
  require_device_memory(ctx, buckets, function, name);
  if (buckets.size() != m)
    throw invalid_argument(function, name, "has " + std::to_string(buckets.size()) + " entries: empty or m = " +
                                               std::to_string(m) + " expected");
  if (overlaps(buckets, a) || overlaps(buckets, b)) throw invalid_argument(function, name, "overlaps another argument");
}

/// Strict check, dropped counter, totals fill, then the strategy, on n ≥ 1 labels.
template <class T, class Op, class L, class Values, class O>
void run(context& ctx, const char* function, multiscan_algorithm algorithm, bool strict, const L* labels,
         Values values, std::size_t n, std::uint32_t m, Op op, scan_outputs<T, O> outputs, std::size_t* dropped) {
  auto device = ctx.activate();
  if (strict) multireduce::require_valid_labels(ctx, function, labels, n, m);
  if (dropped) SLUICE_CUDA_CHECK(cudaMemsetAsync(dropped, 0, sizeof(std::size_t), ctx.stream()));
  if (outputs.totals) multireduce::fill_identity<Op>(ctx, outputs.totals, m);
  if (n == 0) return;
  switch (algorithm) {
    case multiscan_algorithm::block_sort_segmented:
      run_block_sort_segmented(ctx, labels, values, n, m, op, outputs, dropped);
      return;
    case multiscan_algorithm::sequential: run_sequential(ctx, labels, values, n, m, op, outputs, dropped); return;
    case multiscan_algorithm::sheffler: run_sheffler(ctx, labels, values, n, m, op, outputs, dropped); return;
    default: run_global_sort_scan_by_key(ctx, labels, values, n, m, op, outputs, dropped);
  }
}

template <class L, class T, class Op>
void multiscan(context& ctx, const char* function, cuda::std::span<const L> labels, cuda::std::span<const T> values,
               cuda::std::span<T> out, std::uint32_t m, Op op, cuda::std::span<T> totals, std::size_t* dropped,
               const multiscan_options& options, bool inclusive) {
  check_bucket_count(function, m);
  require_device_memory(ctx, labels, function, "labels");
  require_device_memory(ctx, values, function, "values");
  require_device_memory(ctx, out, function, "out");
  if (dropped) require_device_memory(ctx, dropped, sizeof(std::size_t), function, "dropped");
  if (values.size() != labels.size())
    throw invalid_argument(function, "values", "has " + std::to_string(values.size()) + " elements but labels has " +
                                                   std::to_string(labels.size()));
  if (out.size() != labels.size()) throw invalid_argument(function, "out", "must have one element per label");
  if (overlaps(out, labels)) throw invalid_argument(function, "out", "overlaps labels");
  if (overlaps(out, values) && out.data() != values.data())
    throw invalid_argument(function, "out", "overlaps values without being them (in place is out = values)");
  check_bucket_output(ctx, function, "totals", totals, m, labels, values);
  if (overlaps(totals, out)) throw invalid_argument(function, "totals", "overlaps out");
  const multiscan_algorithm algorithm = resolve<T>(function, m, options);
  run<T>(ctx, function, algorithm, options.strict, labels.data(), values.data(), labels.size(), m, op,
         scan_outputs<T, T>{out.data(), totals.empty() ? nullptr : totals.data(), inclusive}, dropped);
}

}  // namespace sluice::detail::multiscan
