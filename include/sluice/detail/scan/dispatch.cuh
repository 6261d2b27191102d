// sluice/detail/scan/dispatch.cuh: the scan family's dispatch: the argument checks (once, for the public
// entry points) and run(), the chosen strategy's launches, which other families call directly.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/core/memory.hpp>
#include <sluice/core/scratch.hpp>
#include <sluice/core/span.hpp>
#include <sluice/detail/scan/decoupled_look_back.cuh>
#include <sluice/detail/scan/reduce_then_scan.cuh>
#include <sluice/detail/scan/teaching.cuh>
#include <sluice/detail/scan/tuning.hpp>
#include <sluice/options/scan.hpp>

#include <cuda/std/span>

#include <cstddef>
#include <limits>
#include <string>

namespace sluice::detail::scan {

/// The single-pass scan of n elements, a tile program (tile_scan.cuh) supplying each tile's elements
/// and storing the scanned tile.
template <scan_kind Kind, bool HasInit, class Tuning = default_look_back_tuning, class Program, class Op>
void run_decoupled_look_back(context& ctx, const Program& program, std::size_t n, typename Program::element init,
                             Op op) {
  using shape = typename Program::shape;
  using T = typename Program::element;
  using status_t = tile_status<T>;
  const std::size_t tiles = ceil_div(n, shape::tile);
  if (tiles > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw invalid_argument("scan", "n", "is " + std::to_string(n) + ": more tiles than one grid can hold");
  const std::size_t status_bytes = tiles * status_t::bytes_per_tile;
  const std::size_t counter_offset = ceil_div(status_bytes, 16) * 16;
  scratch<unsigned char> storage(ctx, counter_offset + sizeof(unsigned long long));
  SLUICE_CUDA_CHECK(cudaMemsetAsync(storage.get(), 0, counter_offset + sizeof(unsigned long long), ctx.stream()));
  decoupled_look_back_kernel<Kind, HasInit, Tuning><<<static_cast<unsigned>(tiles), shape::threads, 0, ctx.stream()>>>(
      program, n, init, op, make_tile_status<T>(storage.get(), tiles),
      reinterpret_cast<unsigned long long*>(storage.get() + counter_offset));
  SLUICE_CHECK_LAUNCH();
}

/// A plain scan of `in` (pointer or iterator) into `out` by the single pass.
template <scan_kind Kind, bool HasInit, class Tuning = default_look_back_tuning, class T, class Input, class Op>
void run_single_pass_scan(context& ctx, Input in, T* out, std::size_t n, T init, Op op) {
  run_decoupled_look_back<Kind, HasInit, Tuning>(ctx, make_scan_program<single_pass_shape<T>>(in, out), n, init, op);
}

template <scan_kind Kind, bool HasInit, class T, class Op>
void run_reduce_then_scan(context& ctx, const T* in, T* out, std::size_t n, T init, Op op) {
  using reduce_shape = reduce::default_shape<T>;
  using shape = default_shape<T>;
  auto reduce_kernel = reduce::reduce_tiles_kernel<reduce_shape, false, T, Op>;
  const std::size_t reduce_tiles = ceil_div(n, reduce_shape::tile);
  const std::size_t grid = one_wave_grid(ctx, reduce_kernel, reduce_shape::threads, reduce_tiles);
  const std::size_t tiles_per_run = ceil_div(reduce_tiles, grid);
  const std::size_t runs = ceil_div(reduce_tiles, tiles_per_run);
  scratch<T> partials(ctx, runs);
  reduce_kernel<<<static_cast<unsigned>(runs), reduce_shape::threads, 0, ctx.stream()>>>(in, n, tiles_per_run,
                                                                                          partials.get(), init, op);
  SLUICE_CHECK_LAUNCH();
  run_single_pass_scan<scan_kind::inclusive, false>(ctx, static_cast<const T*>(partials.get()), partials.get(), runs,
                                                    init, op);
  rescan_runs_kernel<shape, Kind, HasInit><<<static_cast<unsigned>(runs), shape::threads, 0, ctx.stream()>>>(
      in, out, n, tiles_per_run * reduce_shape::tile, partials.get(), init, op);
  SLUICE_CHECK_LAUNCH();
}

/// Inclusive scan without init of in[0, n) into `to` by Brent–Kung tiles, recursing on the tile totals.
/// In place (to == in) is safe. Fixed order: the grouping depends on n alone, never on scheduling, so
/// it is the scan for small arrays whose float results must be the same on every run (the merge-path
/// segmented reduction's tile carries).
template <class T, class Op>
void brent_kung_inclusive(context& ctx, const T* in, T* to, std::size_t n, Op op) {
  constexpr int threads = tuning::brent_kung_threads;
  constexpr std::size_t tile = 2 * threads;
  const std::size_t tiles = ceil_div(n, tile);
  scratch<T> totals(ctx, tiles);
  brent_kung_tiles_kernel<threads><<<static_cast<unsigned>(tiles), threads, 0, ctx.stream()>>>(in, to, totals.get(),
                                                                                               n, op);
  SLUICE_CHECK_LAUNCH();
  if (tiles == 1) return;
  brent_kung_inclusive(ctx, totals.get(), totals.get(), tiles, op);  // in place is safe: one tile per block
  add_tile_prefixes_kernel<<<streaming_grid(ctx, add_tile_prefixes_kernel<T, Op>, n), 256, 0, ctx.stream()>>>(
      to, n, tile, totals.get(), op);
  SLUICE_CHECK_LAUNCH();
}

/// Inclusive scan without init by Hillis–Steele steps; returns the buffer that holds the result.
template <class T, class Op>
const T* hillis_steele_inclusive(context& ctx, const T* in, T* ping, T* pong, std::size_t n, Op op) {
  const unsigned grid = streaming_grid(ctx, hillis_steele_step_kernel<T, Op>, n);
  const T* from = in;
  T* to = ping;
  for (std::size_t stride = 1; stride < n; stride *= 2) {
    hillis_steele_step_kernel<<<grid, 256, 0, ctx.stream()>>>(from, to, n, stride, op);
    SLUICE_CHECK_LAUNCH();
    from = to;
    to = to == ping ? pong : ping;
  }
  return from;
}

template <scan_kind Kind, bool HasInit, class T, class Op>
void run_textbook(context& ctx, scan_algorithm algorithm, const T* in, T* out, std::size_t n, T init, Op op) {
  scratch<T> ping(ctx, n), pong(ctx, algorithm == scan_algorithm::hillis_steele ? n : 0);
  const T* inclusive = ping.get();
  if (algorithm == scan_algorithm::brent_kung) brent_kung_inclusive(ctx, in, ping.get(), n, op);
  else inclusive = hillis_steele_inclusive(ctx, in, ping.get(), pong.get(), n, op);
  if (inclusive == in) {  // n == 1 and no step ran: the input is its own inclusive scan
    SLUICE_CUDA_CHECK(cudaMemcpyAsync(ping.get(), in, n * sizeof(T), cudaMemcpyDeviceToDevice, ctx.stream()));
    inclusive = ping.get();
  }
  finish_scan_kernel<Kind, HasInit><<<streaming_grid(ctx, finish_scan_kernel<Kind, HasInit, T, Op>, n), 256, 0,
                                      ctx.stream()>>>(inclusive, out, n, init, op);
  SLUICE_CHECK_LAUNCH();
}

template <class T>
void check_arguments(const context& ctx, const char* function, cuda::std::span<const T> in, cuda::std::span<T> out) {
  require_device_memory(ctx, in, function, "in");
  require_device_memory(ctx, out, function, "out");
  if (out.size() != in.size())
    throw invalid_argument(function, "out", "has " + std::to_string(out.size()) + " elements but in has " +
                                                std::to_string(in.size()));
  if (in.data() != out.data() && overlaps(in, out))
    throw invalid_argument(function, "out", "partially overlaps in (in place means out.data() == in.data())");
}

/// The scan of in[0, n) into out by options.algorithm; n may be 0. The caller has activated ctx's device.
template <scan_kind Kind, bool HasInit, class T, class Op>
void run(context& ctx, const T* in, T* out, std::size_t n, T init, Op op, const scan_options& options = {}) {
  if (n == 0) return;
  switch (options.algorithm) {
    case scan_algorithm::automatic:
    case scan_algorithm::decoupled_look_back: return run_single_pass_scan<Kind, HasInit>(ctx, in, out, n, init, op);
    case scan_algorithm::reduce_then_scan: return run_reduce_then_scan<Kind, HasInit>(ctx, in, out, n, init, op);
    case scan_algorithm::brent_kung:
    case scan_algorithm::hillis_steele: return run_textbook<Kind, HasInit>(ctx, options.algorithm, in, out, n, init, op);
  }
  throw invalid_argument("scan", "options.algorithm", "is not a scan_algorithm");
}

template <scan_kind Kind, bool HasInit, class T, class Op>
void dispatch(context& ctx, const char* function, cuda::std::span<const T> in, cuda::std::span<T> out, T init, Op op,
              const scan_options& options) {
  check_arguments(ctx, function, in, out);
  if (in.empty()) return;
  auto device = ctx.activate();
  run<Kind, HasInit>(ctx, in.data(), out.data(), in.size(), init, op, options);
}

}  // namespace sluice::detail::scan
