// sluice/detail/quicksort/dispatch.cuh: the segmented quicksort's dispatch: argument checks, the round
// limit, then Palik's rounds (palik_rounds.cuh).
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/memory.hpp>
#include <sluice/core/span.hpp>
#include <sluice/detail/quicksort/palik_rounds.cuh>
#include <sluice/detail/quicksort/tuning.hpp>
#include <sluice/options/quicksort.hpp>

#include <cuda/std/span>

#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <type_traits>

namespace sluice::detail::quicksort {

/// options.max_rounds, or the automatic limit (tuning.hpp): 64 + 8·⌈log2(n + 1)⌉.
[[nodiscard]] inline std::size_t round_limit(const quicksort_options& options, std::size_t n) {
  if (options.max_rounds != 0) return options.max_rounds;
  return tuning::round_limit_base + tuning::round_limit_per_bit * static_cast<std::size_t>(std::bit_width(n));
}

template <class K, class Less>
std::size_t sort(context& ctx, const char* function, cuda::std::span<const K> keys, const std::uint8_t* heads,
          cuda::std::span<K> out, const quicksort_options& options, Less less) {
  static_assert(std::is_trivially_copyable_v<K>, "segmented_quicksort moves trivially copyable keys");
  require_device_memory(ctx, keys, function, "keys");
  require_device_memory(ctx, out, function, "out");
  if (out.size() != keys.size())
    throw invalid_argument(function, "out", "has " + std::to_string(out.size()) + " elements but keys has " +
                                                std::to_string(keys.size()));
  const K* in = keys.data();
  if (in != out.data() && detail::overlaps(keys, out))
    throw invalid_argument(function, "out", "partially overlaps keys (in place means out.data() == keys.data())");
  const pivot_rule_id rule =
      options.pivot == quicksort_pivot::first ? pivot_rule_id::first : pivot_rule_id::median_of_three;
  const std::size_t n = keys.size();
  auto device = ctx.activate();
  if (n < 2) {
    if (n == 1 && in != out.data())
      SLUICE_CUDA_CHECK(cudaMemcpyAsync(out.data(), in, sizeof(K), cudaMemcpyDeviceToDevice, ctx.stream()));
    return 0;
  }
  const std::size_t limit = round_limit(options, n);
  if (n < (std::size_t{1} << 32))
    return sort_by_rounds<std::uint32_t>(ctx, function, in, heads, out.data(), n, rule, limit, less);
  return sort_by_rounds<std::uint64_t>(ctx, function, in, heads, out.data(), n, rule, limit, less);
}

}  // namespace sluice::detail::quicksort
