// libsluice_python_kernels: exact string matching (sluice/string_match.cuh; CPU: sluice/host/string_match.hpp,
// Knuth–Morris–Pratt for one pattern and the GPU's pattern table for many). No template parameters reach
// the matchers (bytes are bytes): one instantiation of each strategy.
#include "api_strings.hpp"
#include "common.hpp"

#include <sluice/core/launch.hpp>
#include <sluice/core/scratch.hpp>
#include <sluice/host/string_match.hpp>
#include <sluice/string_match.cuh>

#include <algorithm>
#include <vector>

namespace sluice::python {

namespace {

using byte_span = cuda::std::span<const unsigned char>;

void require_bytes(const array& a, const char* function, const char* parameter) {
  if (a.type != dtype::uint8 && a.type != dtype::int8) throw_unsupported(function, parameter, a.type, "uint8, int8");
}

void check_alphabet_bits(const char* function, int alphabet_bits) {
  if (alphabet_bits < 1 || alphabet_bits > 8) throw invalid_argument(function, "alphabet_bits", "must be 1 to 8");
}

/// The checks both backends share.
void check_single(const char* function, const array& text, const array& pattern, const string_match_spec& spec) {
  require_bytes(text, function, "text");
  require_bytes(pattern, function, "pattern");
  check_alphabet_bits(function, spec.alphabet_bits);
  if (pattern.size == 0) throw invalid_argument(function, "pattern", "is empty: every position would match");
}

byte_span bytes_of(const array& a) { return {static_cast<const unsigned char*>(a.data), a.size}; }

/// Runs run(pattern) with the pattern in device memory: a host pattern of a device call is copied into the
/// context's pool first (patterns are short; the copy is stream-ordered and freed after the call's work).
template <class Run>
void with_device_pattern(context& ctx, const array& pattern, Run&& run) {
  if (pattern.device >= 0) return run(bytes_of(pattern));
  detail::scratch<unsigned char> copy(ctx, pattern.size);
  SLUICE_CUDA_CHECK(cudaMemcpyAsync(copy.get(), pattern.data, pattern.size, cudaMemcpyHostToDevice, ctx.stream()));
  run(byte_span(copy.get(), pattern.size));
}

/// A host string as the host searchers compare it: for σ < 8 either checked (invalid_argument naming the
/// first character with bits above σ, as the device's check) or masked to its low σ bits.
std::vector<std::uint8_t> host_string(const char* function, const char* parameter, const array& a, int sigma, bool check) {
  const auto bytes = host_span<const std::uint8_t>(a);
  std::vector<std::uint8_t> out(bytes.begin(), bytes.end());
  if (sigma >= 8) return out;
  const auto mask = static_cast<std::uint8_t>((1u << sigma) - 1);
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (check && (out[i] & ~mask) != 0)
      throw invalid_argument(function, parameter, "has a character with bits above alphabet_bits", i);
    out[i] &= mask;
  }
  return out;
}

__global__ void split_hits_kernel(const string_match_hit* hits, std::size_t n, std::int64_t* positions,
                                  std::int32_t* pattern_ids) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x) {
    positions[i] = static_cast<std::int64_t>(hits[i].position);
    pattern_ids[i] = static_cast<std::int32_t>(hits[i].pattern);
  }
}

}  // namespace

std::size_t string_match(const call& c, const array& text, const array& pattern, const array* positions,
                         const string_match_spec& spec) {
  return guarded([&]() -> std::size_t {
    const char* function = "string_match";
    check_single(function, text, pattern, spec);
    if (positions) visit(types<std::int64_t>{}, positions->type, function, "out", [](auto) {});
    const std::size_t capacity = positions ? positions->size : 0;
    if (c.on_host()) {
      const auto t = host_string(function, "text", text, spec.alphabet_bits, spec.check_alphabet);
      const auto p = host_string(function, "pattern", pattern, spec.alphabet_bits, spec.check_alphabet);
      std::size_t written = 0;
      return host::fixed_string_searcher(p).for_each(t, [&](std::size_t r) {
        if (written < capacity) host_span<std::int64_t>(*positions)[written++] = static_cast<std::int64_t>(r);
      });
    }
    context& ctx = context_for(c);
    const string_match_options options{.algorithm = spec.algorithm, .alphabet_bits = spec.alphabet_bits,
                                       .verification = spec.verification, .check_alphabet = spec.check_alphabet};
    count_slot count(ctx);
    with_device_pattern(ctx, pattern, [&](byte_span p) {
      if (positions)
        sluice::string_match(ctx, bytes_of(text), p, match_positions{device_span<std::size_t>(*positions), count.get()},
                             options);
      else
        sluice::string_match(ctx, bytes_of(text), p, match_count{count.get()}, options);
    });
    return count.read();
  });
}

std::size_t string_match_bitmap_words(std::size_t n, std::size_t m) { return sluice::string_match_bitmap_words(n, m); }

void string_match_bitmap(const call& c, const array& text, const array& pattern, const array& words,
                         const string_match_spec& spec) {
  guarded([&] {
    const char* function = "string_match_bitmap";
    check_single(function, text, pattern, spec);
    visit(types<std::uint32_t>{}, words.type, function, "out", [](auto) {});
    const std::size_t needed = sluice::string_match_bitmap_words(text.size, pattern.size);
    if (words.size != needed)
      throw invalid_argument(function, "out", "must have " + std::to_string(needed) + " words");
    if (c.on_host()) {
      const auto t = host_string(function, "text", text, spec.alphabet_bits, spec.check_alphabet);
      const auto p = host_string(function, "pattern", pattern, spec.alphabet_bits, spec.check_alphabet);
      const auto to = host_span<std::uint32_t>(words);
      std::fill(to.begin(), to.end(), 0u);
      host::fixed_string_searcher(p).for_each(t, [&](std::size_t r) { to[r / 32] |= 1u << (r % 32); });
      return;
    }
    context& ctx = context_for(c);
    const string_match_options options{.algorithm = spec.algorithm, .alphabet_bits = spec.alphabet_bits,
                                       .verification = spec.verification, .check_alphabet = spec.check_alphabet};
    with_device_pattern(ctx, pattern, [&](byte_span p) {
      sluice::string_match(ctx, bytes_of(text), p, match_bitmap{device_span<std::uint32_t>(words)}, options);
    });
  });
}

std::size_t multi_string_match(const call& c, const array& text, std::span<const std::string_view> patterns,
                               const array* positions, const array* pattern_ids, int alphabet_bits,
                               bool check_alphabet) {
  return guarded([&]() -> std::size_t {
    const char* function = "multi_string_match";
    require_bytes(text, function, "text");
    check_alphabet_bits(function, alphabet_bits);
    if ((positions == nullptr) != (pattern_ids == nullptr))
      throw error(error_kind::value, "sluice.multi_string_match: pass both 'positions' and 'pattern_ids', or neither");
    const std::size_t capacity = positions ? positions->size : 0;
    if (positions) {
      visit(types<std::int64_t>{}, positions->type, function, "positions", [](auto) {});
      visit(types<std::int32_t>{}, pattern_ids->type, function, "pattern_ids", [](auto) {});
      if (pattern_ids->size != capacity) throw invalid_argument(function, "pattern_ids", "must have one entry per position");
    }
    if (c.on_host()) {
      const auto t = host_string(function, "text", text, alphabet_bits, check_alphabet);
      std::size_t written = 0;
      return host::pattern_matcher(patterns, alphabet_bits).for_each(t, [&](std::size_t r, std::uint32_t id) {
        if (written >= capacity) return;
        host_span<std::int64_t>(*positions)[written] = static_cast<std::int64_t>(r);
        host_span<std::int32_t>(*pattern_ids)[written++] = static_cast<std::int32_t>(id);
      });
    }
    context& ctx = context_for(c);
    const pattern_set set(ctx, patterns, {.alphabet_bits = alphabet_bits, .check_alphabet = check_alphabet});
    count_slot count(ctx);
    detail::scratch<string_match_hit> hits(ctx, capacity);
    sluice::multi_string_match(ctx, bytes_of(text), set, cuda::std::span<string_match_hit>(hits.get(), capacity),
                               count.get());
    const std::size_t found = count.read();
    const std::size_t kept = std::min(found, capacity);
    if (kept > 0) {
      auto device = ctx.activate();
      split_hits_kernel<<<detail::streaming_grid(ctx, split_hits_kernel, kept), 256, 0, ctx.stream()>>>(
          hits.get(), kept, static_cast<std::int64_t*>(positions->data), static_cast<std::int32_t*>(pattern_ids->data));
      SLUICE_CHECK_LAUNCH();
    }
    return found;
  });
}

}  // namespace sluice::python
