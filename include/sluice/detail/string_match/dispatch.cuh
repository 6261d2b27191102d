// sluice/detail/string_match/dispatch.cuh: string_match's dispatch: the argument checks and the plan
// (once), the alphabet check, the pattern's fingerprints on the device, the strategy's kernels, and
// the outputs: a count, sorted positions or a bitmap (outputs.cuh). run_bitmap and run_count are what
// other code (the streaming driver) calls without the checks.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/core/memory.hpp>
#include <sluice/core/scratch.hpp>
#include <sluice/core/span.hpp>
#include <sluice/detail/scan/dispatch.cuh>
#include <sluice/detail/string_match/crk.cuh>
#include <sluice/detail/string_match/drk.cuh>
#include <sluice/detail/string_match/hrk.cuh>
#include <sluice/detail/string_match/multi.cuh>
#include <sluice/detail/string_match/outputs.cuh>
#include <sluice/detail/string_match/pattern_table.hpp>
#include <sluice/detail/string_match/plan.hpp>
#include <sluice/detail/string_match/stream.cuh>
#include <sluice/detail/string_match/summary.cuh>
#include <sluice/detail/string_match/tuning.hpp>
#include <sluice/detail/string_match/verify.cuh>
#include <sluice/options/string_match.hpp>

#include <cuda/std/span>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <type_traits>

namespace sluice::detail::string_match {

/// Any one-byte character type (char, unsigned char, std::byte, their const forms), read as bytes.
template <class C>
concept byte_like = sizeof(C) == 1 && std::is_trivially_copyable_v<C>;

template <class C, std::size_t E>
cuda::std::span<const unsigned char> as_bytes(cuda::std::span<C, E> s) {
  return {reinterpret_cast<const unsigned char*>(s.data()), s.size()};
}

/// The text and pattern of one call, in device memory; n may be below m.
struct match_input {
  const unsigned char* text;
  std::size_t n;
  const unsigned char* pattern;
  std::size_t m;
};

// ---- checks ------------------------------------------------------------------------------------------------

/// Device memory, a non-empty pattern and the plan. An empty pattern is an error: every position (and
/// grep's every line) would match, which callers mean in different ways (`sluice grep` treats it as grep
/// does; docs/string_match.md).
inline match_plan check_arguments(const context& ctx, const char* function, cuda::std::span<const unsigned char> text,
                                  cuda::std::span<const unsigned char> pattern, const string_match_options& options) {
  require_device_memory(ctx, text, function, "text");
  require_device_memory(ctx, pattern, function, "pattern");
  if (pattern.empty())
    throw invalid_argument(function, "pattern",
                           "is empty: every position would match (sluice grep matches every line, as grep does)");
  return make_plan(function, pattern.size(), options);
}

/// Throws invalid_argument naming the first character of text or pattern (m may be 0: none) with bits
/// above σ. Waits for the device (one synchronisation of ctx's stream): the documented cost of
/// check_alphabet.
inline void check_alphabet(context& ctx, const char* function, const match_input& in, int sigma) {
  if (sigma >= 8) return;
  scratch<unsigned long long> first(ctx, 2);
  SLUICE_CUDA_CHECK(cudaMemsetAsync(first.get(), 0xFF, 2 * sizeof(unsigned long long), ctx.stream()));
  const uint32_t mask = char_mask(sigma);
  const unsigned char* sources[2] = {in.text, in.pattern};
  const std::size_t sizes[2] = {in.n, in.m};
  for (int k = 0; k < 2; ++k) {
    if (sizes[k] == 0) continue;
    first_outside_kernel<<<streaming_grid(ctx, first_outside_kernel, sizes[k]), 256, 0, ctx.stream()>>>(
        sources[k], sizes[k], mask, first.get() + k);
    SLUICE_CHECK_LAUNCH();
  }
  unsigned long long found[2] = {};
  SLUICE_CUDA_CHECK(cudaMemcpyAsync(found, first.get(), sizeof(found), cudaMemcpyDeviceToHost, ctx.stream()));
  ctx.synchronize();
  const std::string problem = "has a character outside the alphabet of " + std::to_string(sigma) +
                              "-bit characters (options.alphabet_bits; options.check_alphabet = false compares low bits)";
  if (found[1] != ~0ull) throw invalid_argument(function, "pattern", problem, static_cast<std::size_t>(found[1]));
  if (found[0] != ~0ull) throw invalid_argument(function, "text", problem, static_cast<std::size_t>(found[0]));
}

// ---- the pattern's fingerprints ------------------------------------------------------------------------------

[[nodiscard]] inline summary_request request_for(const match_plan& plan) {
  summary_request r;
  r.sigma = plan.sigma;
  switch (plan.algorithm) {
    case string_match_algorithm::drk_wom32:
    case string_match_algorithm::drk_wom64:
      r.packed = true;
      r.packed_length = static_cast<int>(plan.m);
      break;
    case string_match_algorithm::drk_2s:
      r.packed = true;
      r.packed_offset = plan.subpattern_offset;
      r.packed_length = plan.subpattern_length;
      break;
    case string_match_algorithm::drk: r.modular_prime = plan.drk_prime; break;
    case string_match_algorithm::crk:
    case string_match_algorithm::hrk: r.matrix_prime = plan.crk_prime; break;
    case string_match_algorithm::crk_recurrence:
      r.mersenne = true;
      r.base61 = plan.base61;
      break;
    case string_match_algorithm::automatic: break;
  }
  return r;
}

/// The plan's fingerprints of the pattern, into `summary` (device).
inline void summarize(context& ctx, const match_plan& plan, const match_input& in, pattern_summary* summary) {
  summarize_pattern_kernel<<<1, summary_threads, 0, ctx.stream()>>>(in.pattern, in.m, request_for(plan), summary);
  SLUICE_CHECK_LAUNCH();
}

// ---- verification -------------------------------------------------------------------------------------------

[[nodiscard]] inline exact_chunks exact_for(const match_plan& plan, const match_input& in) {
  return {in.text, in.pattern, in.m, char_mask(plan.sigma)};
}

/// f(no_verification) or f(warp_verification<exact_chunks>): drk's choice.
template <class F>
void with_exact_verification(const match_plan& plan, const match_input& in, F&& f) {
  if (plan.verify) f(warp_verification<exact_chunks>{exact_for(plan, in)});
  else f(no_verification{});
}

/// drk_2s's: none (the subpattern is the pattern), exact bytes, or the pattern's chunk fingerprints
/// (computed here, on the device, by the verification's own warp function).
template <class F>
void with_skim_verification(context& ctx, const match_plan& plan, const match_input& in, F&& f) {
  if (!plan.verify) return f(no_verification{});
  if (plan.verification == match_verification::exact) return f(warp_verification<exact_chunks>{exact_for(plan, in)});
  const std::size_t chunks = ceil_div(in.m, verify_step_chars);
  scratch<uint32_t> pattern_chunks(ctx, chunks + warp::size);  // the chunks, then the lanes' weights
  uint32_t* weights = pattern_chunks.get() + chunks;
  constexpr unsigned threads = 256;
  const std::size_t blocks = ceil_div(chunks * warp::size, threads);
  pattern_chunks_kernel<<<static_cast<unsigned>(blocks), threads, 0, ctx.stream()>>>(
      in.pattern, in.m, plan.sigma, plan.chunk_prime, pattern_chunks.get(), chunks, weights);
  SLUICE_CHECK_LAUNCH();
  f(warp_verification<fingerprint_chunks>{
      {in.text, in.m, pattern_chunks.get(), weights, plan.sigma, plan.chunk_prime}});
}

// ---- the DRK family ---------------------------------------------------------------------------------------------

/// One launch of drk_kernel<Source>: a grid of one wave over the tiles.
template <run_source Source, class Spec, class Verify, class Sink>
void launch_drk_from(context& ctx, const drk_params& prm, const Spec& spec, const pattern_summary* summary,
                     const Verify& verify, const Sink& sink, std::size_t shared) {
  constexpr int threads = tuning::drk_threads;
  auto kernel = drk_kernel<threads, Source, Spec, Verify, Sink>;
  if (shared > ctx.properties().shared_memory_per_block)
    SLUICE_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
  const std::size_t grid = one_wave_grid(ctx, kernel, threads, ceil_div(prm.words, threads), shared);
  kernel<<<static_cast<unsigned>(grid), threads, shared, ctx.stream()>>>(prm, spec, summary, verify, sink);
  SLUICE_CHECK_LAUNCH();
}

/// The DRK kernel for a spec: packed windows of at most 8 characters from registers (byte windows), other
/// windows from the run staged in shared memory where it fits the device, else read in place.
template <class Spec, class Verify, class Sink>
void launch_drk(context& ctx, const drk_params& prm, const Spec& spec, const pattern_summary* summary,
                const Verify& verify, const Sink& sink) {
  constexpr bool packed = !std::is_same_v<Spec, modular_spec>;  // packed windows are at most 64 characters
  if constexpr (packed) {
    using word = typename Spec::roller::state;
    if (prm.window <= 4)
      return launch_drk_from<run_source::registers>(ctx, prm, byte_window_spec<word, uint32_t>{spec.sigma, spec.w},
                                                    summary, verify, sink, 0);
    if (prm.window <= byte_window_max)
      return launch_drk_from<run_source::registers>(
          ctx, prm, byte_window_spec<word, unsigned long long>{spec.sigma, spec.w}, summary, verify, sink, 0);
  }
  const std::size_t shared = drk_shared_bytes<tuning::drk_threads>(prm.window);
  if (packed || shared <= ctx.properties().shared_memory_per_block_optin)
    return launch_drk_from<run_source::staged>(ctx, prm, spec, summary, verify, sink, shared);
  if constexpr (!packed) launch_drk_from<run_source::in_place>(ctx, prm, spec, summary, verify, sink, 0);
}

[[nodiscard]] constexpr bool is_drk_family(string_match_algorithm a) {
  return a == string_match_algorithm::drk || a == string_match_algorithm::drk_wom32 ||
         a == string_match_algorithm::drk_wom64 || a == string_match_algorithm::drk_2s;
}

/// A DRK-family strategy into `sink` (bitmap or count); n ≥ m.
template <class Sink>
void run_drk_family(context& ctx, const match_plan& plan, const match_input& in, const pattern_summary* summary,
                    const Sink& sink) {
  const std::size_t positions = match_positions(in.n, in.m);
  drk_params prm{in.text, in.n, positions, bitmap_words(positions), 0, in.m, char_mask(plan.sigma)};
  const int sigma = plan.sigma;
  const int m = static_cast<int>(plan.m <= 64 ? plan.m : 64);  // the packed strategies' m (checked ≤ 64/σ)
  switch (plan.algorithm) {
    case string_match_algorithm::drk_wom32:
      return launch_drk(ctx, prm, packed_spec<uint32_t>{sigma, m}, summary, no_verification{}, sink);
    case string_match_algorithm::drk_wom64:
      return launch_drk(ctx, prm, packed_spec<unsigned long long>{sigma, m}, summary, no_verification{}, sink);
    case string_match_algorithm::drk:
      return with_exact_verification(plan, in, [&](const auto& verify) {
        launch_drk(ctx, prm, modular_spec{plan.drk_prime, sigma, in.m}, summary, verify, sink);
      });
    case string_match_algorithm::drk_2s:
      prm.run_offset = plan.subpattern_offset;
      prm.window = static_cast<std::size_t>(plan.subpattern_length);
      return with_skim_verification(ctx, plan, in, [&](const auto& verify) {
        if (plan.skim_in_32)
          launch_drk(ctx, prm, packed_spec<uint32_t>{sigma, plan.subpattern_length}, summary, verify, sink);
        else
          launch_drk(ctx, prm, packed_spec<unsigned long long>{sigma, plan.subpattern_length}, summary, verify, sink);
      });
    default: break;
  }
  throw invalid_argument("string_match", "options.algorithm", "is not a DRK-family strategy");
}

// ---- the cooperative strategies ---------------------------------------------------------------------------------

/// crk, crk_recurrence or hrk into `words` (zeroed here), then the exact verification if planned.
inline void run_cooperative(context& ctx, const match_plan& plan, const match_input& in, const pattern_summary* summary,
                            uint32_t* words) {
  const std::size_t positions = match_positions(in.n, in.m);
  const std::size_t word_count = bitmap_words(positions);
  SLUICE_CUDA_CHECK(cudaMemsetAsync(words, 0, word_count * sizeof(uint32_t), ctx.stream()));
  using tile = tuning::crk_tile;
  switch (plan.algorithm) {
    case string_match_algorithm::crk: {
      const mat2_multiply_mod multiply(plan.crk_prime);
      scratch<mat2> prefixes(ctx, in.n);
      scan::run_decoupled_look_back<scan::scan_kind::inclusive, false>(
          ctx, crk_prefix_program<tile>{in.text, prefixes.get(), plan.sigma}, in.n, mat2{1, 0, 0, 1}, multiply);
      scan::run_decoupled_look_back<scan::scan_kind::exclusive, true>(
          ctx, crk_match_program<tile>{in.text, prefixes.get(), in.m, plan.sigma, multiply, summary, words}, positions,
          mat2{1, 0, 0, 1}, reversed_product{multiply});
      break;
    }
    case string_match_algorithm::crk_recurrence:
      scan::run_decoupled_look_back<scan::scan_kind::inclusive, false>(
          ctx, crk_recurrence_program<tile>{in.text, in.m, plan.sigma, plan.base61, plan.base61_m, summary, words}, in.n,
          step61{1, 0}, step61_op{});
      break;
    case string_match_algorithm::hrk: {
      using shape = tuning::hrk_tile;
      const std::size_t blocks = ceil_div(positions, shape::tile);
      hrk_kernel<shape><<<static_cast<unsigned>(blocks), shape::threads, 0, ctx.stream()>>>(
          hrk_params{in.text, positions, in.m, plan.sigma, plan.crk_prime, words}, summary);
      SLUICE_CHECK_LAUNCH();
      break;
    }
    default: throw invalid_argument("string_match", "options.algorithm", "is not a cooperative strategy");
  }
  if (!plan.verify) return;
  auto kernel = verify_bitmap_kernel<exact_chunks>;
  const unsigned grid = streaming_grid(ctx, kernel, word_count);
  kernel<<<grid, 256, 0, ctx.stream()>>>(words, word_count, exact_for(plan, in));
  SLUICE_CHECK_LAUNCH();
}

// ---- outputs ------------------------------------------------------------------------------------------------------

/// The match bitmap of n ≥ m into words[0, bitmap_words(n − m + 1)).
inline void run_bitmap(context& ctx, const match_plan& plan, const match_input& in, uint32_t* words) {
  scratch<pattern_summary> summary(ctx, 1);
  summarize(ctx, plan, in, summary.get());
  const std::size_t word_count = bitmap_words(match_positions(in.n, in.m));
  if (is_drk_family(plan.algorithm)) run_drk_family(ctx, plan, in, summary.get(), bitmap_sink{words, word_count});
  else run_cooperative(ctx, plan, in, summary.get(), words);
}

/// *count = the matches (n ≥ m), written on the device.
inline void run_count(context& ctx, const match_plan& plan, const match_input& in, unsigned long long* count) {
  SLUICE_CUDA_CHECK(cudaMemsetAsync(count, 0, sizeof(unsigned long long), ctx.stream()));
  if (is_drk_family(plan.algorithm)) {
    scratch<pattern_summary> summary(ctx, 1);
    summarize(ctx, plan, in, summary.get());
    return run_drk_family(ctx, plan, in, summary.get(), count_sink{count});
  }
  const std::size_t word_count = bitmap_words(match_positions(in.n, in.m));
  scratch<uint32_t> words(ctx, word_count);
  run_bitmap(ctx, plan, in, words.get());
  count_bitmap_kernel<<<streaming_grid(ctx, count_bitmap_kernel, word_count), 256, 0, ctx.stream()>>>(words.get(),
                                                                                                       word_count, count);
  SLUICE_CHECK_LAUNCH();
}

/// The sorted positions (the first `capacity` of them) and *count (n ≥ m).
inline void run_positions(context& ctx, const match_plan& plan, const match_input& in, unsigned long long* positions,
                          std::size_t capacity, unsigned long long* count) {
  const std::size_t word_count = bitmap_words(match_positions(in.n, in.m));
  scratch<uint32_t> words(ctx, word_count);
  run_bitmap(ctx, plan, in, words.get());
  using shape = scan::single_pass_shape<unsigned long long>;
  scan::run_decoupled_look_back<scan::scan_kind::exclusive, true>(
      ctx, positions_program<shape>{words.get(), word_count, positions, capacity, count}, word_count, 0ull, plus{});
}

// ---- the entry points' dispatch ---------------------------------------------------------------------------------------

/// What a call writes.
struct match_output {
  std::size_t* count = nullptr;      ///< count and positions
  std::size_t* positions = nullptr;  ///< positions
  std::size_t capacity = 0;
  uint32_t* words = nullptr;  ///< bitmap
  std::size_t word_capacity = 0;
  enum class kind { count, positions, bitmap } what = kind::count;
};

inline void check_output(const context& ctx, const char* function, const match_output& out,
                         cuda::std::span<const unsigned char> text, cuda::std::span<const unsigned char> pattern) {
  static_assert(sizeof(std::size_t) == sizeof(unsigned long long));
  if (out.what != match_output::kind::bitmap) require_device_memory(ctx, out.count, sizeof(std::size_t), function, "count");
  if (out.what == match_output::kind::positions) {
    const cuda::std::span<const std::size_t> positions(out.positions, out.capacity);
    require_device_memory(ctx, positions, function, "positions");
    if (overlaps(positions, text) || overlaps(positions, pattern))
      throw invalid_argument(function, "positions", "overlaps the text or the pattern");
  }
  if (out.what == match_output::kind::bitmap) {
    const cuda::std::span<const uint32_t> words(out.words, out.word_capacity);
    require_device_memory(ctx, words, function, "bitmap");
    const std::size_t needed = bitmap_words(match_positions(text.size(), pattern.size()));
    if (out.word_capacity < needed)
      throw invalid_argument(function, "bitmap",
                             "has " + std::to_string(out.word_capacity) + " words but the " +
                                 std::to_string(match_positions(text.size(), pattern.size())) + " positions need " +
                                 std::to_string(needed));
    if (overlaps(words, text) || overlaps(words, pattern))
      throw invalid_argument(function, "bitmap", "overlaps the text or the pattern");
  }
}

inline void dispatch(context& ctx, const char* function, cuda::std::span<const unsigned char> text,
                     cuda::std::span<const unsigned char> pattern, const match_output& out,
                     const string_match_options& options) {
  const match_plan plan = check_arguments(ctx, function, text, pattern, options);
  check_output(ctx, function, out, text, pattern);
  auto device = ctx.activate();
  const match_input in{text.data(), text.size(), pattern.data(), pattern.size()};
  if (options.check_alphabet) check_alphabet(ctx, function, in, plan.sigma);
  auto* count = reinterpret_cast<unsigned long long*>(out.count);
  if (in.n < in.m) {  // no position: nothing to match, the count is 0
    if (count) SLUICE_CUDA_CHECK(cudaMemsetAsync(count, 0, sizeof(unsigned long long), ctx.stream()));
    return;
  }
  switch (out.what) {
    case match_output::kind::count: return run_count(ctx, plan, in, count);
    case match_output::kind::positions:
      return run_positions(ctx, plan, in, reinterpret_cast<unsigned long long*>(out.positions), out.capacity, count);
    case match_output::kind::bitmap: return run_bitmap(ctx, plan, in, out.words);
  }
}

// ---- many patterns -----------------------------------------------------------------------------------------

/// multi_string_match's checks, the alphabet check and the text's length against the shortest pattern:
/// false when no position can match (the outputs then say so).
inline bool multi_prologue(context& ctx, const char* function, cuda::std::span<const unsigned char> text,
                           const device_pattern_table& table, bool check) {
  require_device_memory(ctx, text, function, "text");
  if (check) check_alphabet(ctx, function, match_input{text.data(), text.size(), nullptr, 0}, table.host().sigma);
  return text.size() >= table.host().shortest;
}

inline void multi_hits_dispatch(context& ctx, const char* function, cuda::std::span<const unsigned char> text,
                                const device_pattern_table& table, bool check, cuda::std::span<multi_hit> hits,
                                std::size_t* count) {
  require_device_memory(ctx, count, sizeof(std::size_t), function, "count");
  require_device_memory(ctx, hits, function, "hits");
  if (overlaps(hits, text)) throw invalid_argument(function, "hits", "overlaps the text");
  auto device = ctx.activate();
  auto* total = reinterpret_cast<unsigned long long*>(count);
  if (!multi_prologue(ctx, function, text, table, check)) {
    SLUICE_CUDA_CHECK(cudaMemsetAsync(total, 0, sizeof(unsigned long long), ctx.stream()));
    return;
  }
  run_multi_hits(ctx, table, text.data(), text.size(), hits.data(), hits.size(), total);
}

inline void multi_bitmap_dispatch(context& ctx, const char* function, cuda::std::span<const unsigned char> text,
                                  const device_pattern_table& table, bool check, cuda::std::span<uint32_t> words) {
  require_device_memory(ctx, words, function, "bitmap");
  const std::size_t needed = bitmap_words(match_positions(text.size(), table.host().shortest));
  if (words.size() < needed)
    throw invalid_argument(function, "bitmap", "has " + std::to_string(words.size()) + " words; the text needs " +
                                                   std::to_string(needed));
  if (overlaps(words, text)) throw invalid_argument(function, "bitmap", "overlaps the text");
  auto device = ctx.activate();
  if (!multi_prologue(ctx, function, text, table, check)) return;
  run_multi_bitmap(ctx, table, text.data(), text.size(), words.data());
}

// ---- streaming ---------------------------------------------------------------------------------------------

/// Throws invalid_argument("text", index) for the first of a chunk's new characters with bits above σ.
inline void check_chunk_alphabet(const char* function, std::span<const unsigned char> chars, std::size_t offset,
                                 int sigma) {
  if (sigma >= 8) return;
  const auto high = static_cast<unsigned char>(~char_mask(sigma));
  for (std::size_t i = 0; i < chars.size(); ++i)
    if (chars[i] & high)
      throw invalid_argument(function, "text",
                             "has a character outside the alphabet of " + std::to_string(sigma) + "-bit characters",
                             offset + i);
}

/// string_match_stream: the pattern (host memory) checked, planned and copied to the device once.
template <class Read, class OnChunk>
std::size_t stream_dispatch(context& ctx, Read& read, std::span<const unsigned char> pattern,
                            const string_match_options& options, const stream_options& stream, OnChunk& on_chunk) {
  const char* function = "string_match_stream";
  if (pattern.empty())
    throw invalid_argument(function, "pattern",
                           "is empty: every position would match (sluice grep matches every line, as grep does)");
  const match_plan plan = make_plan(function, pattern.size(), options);
  const bool check = options.check_alphabet && plan.sigma < 8;
  if (check) {
    for (std::size_t i = 0; i < pattern.size(); ++i)
      if (pattern[i] & ~char_mask(plan.sigma))
        throw invalid_argument(function, "pattern",
                               "has a character outside the alphabet of " + std::to_string(plan.sigma) + "-bit characters", i);
  }
  auto device = ctx.activate();
  const device_buffer<unsigned char> device_pattern(ctx, pattern);
  ctx.synchronize();  // the slots' streams read it
  const std::size_t m = pattern.size();
  return stream_text(
      ctx, read, m - 1, stream,
      [&](std::span<const unsigned char> chars, std::size_t offset) {
        if (check) check_chunk_alphabet(function, chars, offset, plan.sigma);
      },
      [&](context& slot, const unsigned char* text, std::size_t n, uint32_t* words) -> std::size_t {
        if (n < m) return 0;
        run_bitmap(slot, plan, match_input{text, n, device_pattern.data(), m}, words);
        return bitmap_words(match_positions(n, m));
      },
      on_chunk);
}

/// multi_string_match_stream: bit r of a chunk's bitmap where some pattern of the set starts.
template <class Read, class OnChunk>
std::size_t multi_stream_dispatch(const context& ctx, Read& read, const device_pattern_table& table, bool check_text,
                                  const stream_options& stream, OnChunk& on_chunk) {
  const char* function = "multi_string_match_stream";
  const int sigma = table.host().sigma;
  const bool check = check_text && sigma < 8;
  const std::size_t shortest = table.host().shortest;
  return stream_text(
      ctx, read, table.host().longest - 1, stream,
      [&](std::span<const unsigned char> chars, std::size_t offset) {
        if (check) check_chunk_alphabet(function, chars, offset, sigma);
      },
      [&](context& slot, const unsigned char* text, std::size_t n, uint32_t* words) -> std::size_t {
        if (n < shortest) return 0;
        run_multi_bitmap(slot, table, text, n, words);
        return bitmap_words(match_positions(n, shortest));
      },
      on_chunk);
}

}  // namespace sluice::detail::string_match
