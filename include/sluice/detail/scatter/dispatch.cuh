// sluice/detail/scatter/dispatch.cuh: gather's and scatter's dispatch: the argument checks, index
// validation, and the launches of the direct and partially sorted strategies.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/device_buffer.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/core/memory.hpp>
#include <sluice/core/span.hpp>
#include <sluice/detail/partial_sort/plan.hpp>
#include <sluice/detail/partial_sort/sort.cuh>
#include <sluice/detail/scatter/gather.cuh>
#include <sluice/detail/scatter/plan.hpp>
#include <sluice/detail/scatter/scatter.cuh>
#include <sluice/options/scatter.hpp>

#include <cuda/std/span>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

namespace sluice::detail::scatter {

template <class T, class I>
void check_arguments(const context& ctx, const char* function, cuda::std::span<const T> values,
                     cuda::std::span<const I> indices, cuda::std::span<T> out, std::size_t* skipped) {
  static_assert(std::is_trivially_copyable_v<T>, "gather and scatter move trivially copyable types");
  static_assert(std::is_default_constructible_v<T>, "gather and scatter hold elements in registers");
  require_device_memory(ctx, values, function, "values");
  require_device_memory(ctx, indices, function, "indices");
  require_device_memory(ctx, out, function, "out");
  if (skipped) require_device_memory(ctx, skipped, sizeof(std::size_t), function, "skipped");
  if (detail::overlaps(out, values))
    throw invalid_argument(function, "out", "overlaps values (gather and scatter do not run in place)");
  if (detail::overlaps(out, indices))
    throw invalid_argument(function, "out", "overlaps indices");
}

inline void check_size(const char* function, const char* parameter, std::size_t got, const char* other,
                       std::size_t expected) {
  if (got != expected)
    throw invalid_argument(function, parameter,
                           "has " + std::to_string(got) + " elements but " + other + " has " + std::to_string(expected));
}

/// Strict mode: throws invalid_argument with the first position whose index is outside [0, size).
template <class I>
void require_indices_in_range(context& ctx, const char* function, cuda::std::span<const I> indices, std::size_t size) {
  device_buffer<unsigned long long> first(ctx, 1);
  first.fill_bytes(0xFF);
  auto kernel = find_first_invalid_kernel<I>;
  const std::size_t grid = one_wave_grid(ctx, kernel, block_threads, ceil_div(indices.size(), block_threads));
  kernel<<<static_cast<unsigned>(grid), block_threads, 0, ctx.stream()>>>(indices.data(), indices.size(), size,
                                                                           first.data());
  SLUICE_CHECK_LAUNCH();
  const unsigned long long position = first.to_host()[0];
  if (position != ~0ull)
    throw invalid_argument(function, "indices", "has an index outside [0, " + std::to_string(size) + ")",
                           static_cast<std::size_t>(position));
}

[[nodiscard]] inline bool aligned_to(const void* pointer, std::size_t alignment) {
  return reinterpret_cast<std::uintptr_t>(pointer) % alignment == 0;
}

/// The fast layout (chunks.cuh) applies: indices 16-byte aligned, values and out aligned for whole chunks.
template <class T, class I>
[[nodiscard]] bool fast_layout(const I* indices, const T* values, const T* out) {
  constexpr std::size_t alignment = chunk_alignment<T, chunk_width<I, true>>;
  return aligned_to(indices, 16) && aligned_to(values, alignment) && aligned_to(out, alignment);
}

/// Calls run(std::bool_constant<fast>).
template <class Run>
void with_layout(bool fast, Run run) {
  if (fast) run(std::true_type{});
  else run(std::false_type{});
}

template <class Kernel>
unsigned chunked_grid(const context& ctx, Kernel kernel, std::size_t n) {
  return static_cast<unsigned>(one_wave_grid(ctx, kernel, block_threads, ceil_div(n, block_threads * elements_per_thread)));
}

/// out[i] = values[lookup.position(indices[i])] where lookup.valid(indices[i]); n = indices' length.
template <class T, class I, class Lookup>
void launch_gather(context& ctx, const T* values, const I* indices, T* out, std::size_t n, Lookup lookup,
                   std::size_t* skipped) {
  with_layout(fast_layout(indices, values, out), [&](auto fast) {
    auto kernel = gather_kernel<decltype(fast)::value, T, I, Lookup>;
    kernel<<<chunked_grid(ctx, kernel, n), block_threads, 0, ctx.stream()>>>(
        values, indices, out, n, lookup, reinterpret_cast<unsigned long long*>(skipped));
    SLUICE_CHECK_LAUNCH();
  });
}

template <class T, class I>
void launch_scatter_any_writer(context& ctx, const T* values, const I* indices, std::size_t n, T* out,
                               std::size_t out_size, std::size_t* skipped) {
  with_layout(fast_layout(indices, values, static_cast<const T*>(out)), [&](auto fast) {
    auto kernel = scatter_any_writer_kernel<decltype(fast)::value, T, I>;
    kernel<<<chunked_grid(ctx, kernel, n), block_threads, 0, ctx.stream()>>>(
        values, indices, out, n, out_size, reinterpret_cast<unsigned long long*>(skipped));
    SLUICE_CHECK_LAUNCH();
  });
}

/// Claim pass, then the write pass as a gather by destination over the claims.
template <class W, class T, class I>
void launch_scatter_last_writer(context& ctx, const T* values, const I* indices, std::size_t n, T* out,
                                std::size_t out_size, std::size_t* skipped) {
  device_buffer<W> claims(ctx, out_size);
  claims.fill_bytes(0);
  with_layout(aligned_to(indices, 16), [&](auto fast) {
    auto kernel = claim_last_writer_kernel<decltype(fast)::value, I, W>;
    kernel<<<chunked_grid(ctx, kernel, n), block_threads, 0, ctx.stream()>>>(
        indices, n, out_size, claims.data(), reinterpret_cast<unsigned long long*>(skipped));
    SLUICE_CHECK_LAUNCH();
  });
  launch_gather(ctx, values, static_cast<const W*>(claims.data()), out, out_size, claimed_source<W>{}, nullptr);
}

/// The direct strategy: the scatter kernels straight over (values, indices). out_size bounds the
/// indices' range check only (slots at and beyond it are never touched).
template <class T, class I>
void scatter_direct(context& ctx, scatter_semantics semantics, const T* values, const I* indices, std::size_t n,
                    T* out, std::size_t out_size, std::size_t* skipped) {
  if (semantics == scatter_semantics::any_writer)
    return launch_scatter_any_writer(ctx, values, indices, n, out, out_size, skipped);
  if (n < (std::size_t{1} << 32))
    return launch_scatter_last_writer<unsigned>(ctx, values, indices, n, out, out_size, skipped);
  return launch_scatter_last_writer<unsigned long long>(ctx, values, indices, n, out, out_size, skipped);
}

/// The partial_sort strategy (header comment): the pairs stably sorted by the top bits of the indices'
/// unsigned words, then the direct kernels over the sorted pairs against the reachable slots. With
/// nothing to sort by (at most one reachable slot) it is the direct strategy.
template <class T, class I>
void scatter_partially_sorted(context& ctx, scatter_semantics semantics, const T* values, const I* indices,
                              std::size_t n, T* out, std::size_t out_size, std::size_t* skipped, int requested_bits) {
  using U = std::make_unsigned_t<I>;
  const std::uint64_t slots = reachable_slots<I>(out_size);
  const int bits = partial_sort_bits(requested_bits, slots, sizeof(T), ctx.properties().l2_cache_bytes);
  if (bits == 0) return scatter_direct(ctx, semantics, values, indices, n, out, out_size, skipped);
  const int end_bit = key_bits_below(slots);
  detail::with_partially_sorted_pairs<U>(
      ctx, values, n, end_bit - bits, end_bit,
      [&](auto sort) { sort(reinterpret_cast<const U*>(indices)); },  // a signed index and its word alias
      [&](const U* sorted_indices, const T* sorted_values) {
        scatter_direct(ctx, semantics, sorted_values, sorted_indices, n, out, static_cast<std::size_t>(slots),
                       skipped);
      });
}

/// Zeroes *skipped (the kernels add to it); false when there is nothing else to do.
inline bool start_count(context& ctx, std::size_t* skipped, std::size_t n) {
  static_assert(sizeof(unsigned long long) == sizeof(std::size_t));
  if (skipped) SLUICE_CUDA_CHECK(cudaMemsetAsync(skipped, 0, sizeof(std::size_t), ctx.stream()));
  return n != 0;
}

}  // namespace sluice::detail::scatter
